"""Invitations: GET shows one (mail scanners open every link), POST accepts it."""

from __future__ import annotations

from flask import Blueprint, render_template

from pbem import dispatch, links
from pbem.domain import starting, views
from pbem.extensions import settings
from pbem.web import ratelimits
from pbem.web.access import invitation_claims, invited_seat

bp = Blueprint("invite", __name__)


@bp.get("/invite/<token>")
def show(token: str) -> str:
    seat = invited_seat(token)
    return _page(starting.InvitedGame.of(seat.game), seat.seat, token)


@bp.post("/invite/<token>")
def accept(token: str) -> str:
    # The claims only: accept_invitation checks them against the seat under the game's lock.
    claims = invitation_claims(token)
    # Confirming a game invites the others: counted against their daily invitations first.
    ratelimits.check_invitations(starting.invited_on_confirmation(claims))
    accepted = starting.accept_invitation(settings(), claims)
    dispatch.send_emails_later(accepted.outbox_ids)
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
) -> str:
    mine = game.seats[seat]
    return render_template(
        "pages/invite.html",
        game=game,
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
    )
