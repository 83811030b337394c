"""Invitations: GET shows one (mail scanners open every link), POST accepts it, with the name
the player chooses if they give one."""

from __future__ import annotations

from flask import Blueprint, render_template, request

from pbem import dispatch, links
from pbem.domain import bot_turns, starting, views
from pbem.domain.names import MAX_LENGTH, BadName, optional_name
from pbem.extensions import settings
from pbem.web import game_cards, ratelimits
from pbem.web.access import invitation_claims, invited_seat

bp = Blueprint("invite", __name__)


@bp.get("/invite/<token>")
def show(token: str) -> str:
    seat = invited_seat(token)
    return _page(starting.InvitedGame.of(seat.game), seat.seat, token)


@bp.post("/invite/<token>")
def accept(token: str) -> str | tuple[str, int]:
    # The claims only: accept_invitation checks them against the seat under the game's lock.
    claims = invitation_claims(token)
    # No `name` field (a plain POST): the player's name stays as it is; an empty one clears it.
    typed = request.form.get("name")
    try:
        optional_name(typed)
    except BadName as exc:
        # Nothing is taken: the player corrects the name and accepts again.
        seat = invited_seat(token)
        page = _page(
            starting.InvitedGame.of(seat.game),
            seat.seat,
            token,
            name_error=exc.message,
            typed=typed,
        )
        return page, exc.status
    # Confirming a game invites the others: counted against their daily invitations first.
    ratelimits.check_invitations(starting.invited_on_confirmation(claims))
    accepted = starting.accept_invitation(settings(), claims, name=typed)
    dispatch.send_emails_later(accepted.outbox_ids)
    if accepted.started:
        # A bot may have the first move.
        dispatch.play_bots_later(bot_turns.with_bots([accepted.game.id]))
    return _page(
        accepted.game,
        claims.seat,
        token,
        just_accepted=not accepted.already,
        confirming=accepted.confirmed,
    )


def _page(
    game: starting.InvitedGame,
    seat: int,
    token: str,
    just_accepted: bool = False,
    confirming: bool = False,
    name_error: str | None = None,
    typed: str | None = None,
) -> str:
    mine = game.seats[seat]
    return render_template(
        "pages/invite.html",
        game=game,
        picture=game_cards.picture(game.engine),
        seat=seat,
        accepted=game.accepted[seat],
        token=token,
        title=views.engine(game).title,
        names=game.names,
        waiting=game.waiting,
        just_accepted=just_accepted,
        confirming=confirming,
        organiser=game.organiser,
        seat_link=links.seat_url(settings(), mine) if game.accepted[seat] else None,
        own_name=mine.name if typed is None else typed,
        name_error=name_error,
        name_length=MAX_LENGTH,
    )
