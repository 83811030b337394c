"""Invitations: GET shows one (mail scanners open every link), POST accepts it."""

from __future__ import annotations

from flask import Blueprint, render_template

from pbem import dispatch, links, service

bp = Blueprint("invite", __name__)


@bp.get("/invite/<token>")
def show(token: str) -> str:
    seat = service.seat_for_token(token, links.INVITE)
    return _page(service.InvitedGame.of(seat.game), seat.seat, token)


@bp.post("/invite/<token>")
def accept(token: str) -> str:
    # The claims only: accept_invitation checks them against the seat under the game's lock.
    claims = service.read_claims(token, links.INVITE)
    accepted = service.accept_invitation(claims)
    dispatch.send_emails_later(accepted.outbox_ids)
    return _page(accepted.game, claims.seat, token, just_accepted=not accepted.already)


def _page(game: service.InvitedGame, seat: int, token: str, just_accepted: bool = False) -> str:
    mine = game.seats[seat]
    return render_template(
        "pages/invite.html",
        game=game,
        seat=seat,
        accepted=game.accepted[seat],
        token=token,
        title=service.engine(game).title,
        names=game.names,
        waiting=game.waiting,
        just_accepted=just_accepted,
        seat_link=links.seat_url(mine) if game.accepted[seat] else None,
    )
