"""Invitations: GET shows one (mail scanners open every link), POST accepts it."""

from __future__ import annotations

from flask import Blueprint, render_template

from pbem import dispatch, links, service
from pbem.models import Game, Seat

bp = Blueprint("invite", __name__)


@bp.get("/invite/<token>")
def show(token: str) -> str:
    seat = service.seat_for_token(token, links.INVITE)
    return _page(seat, token)


@bp.post("/invite/<token>")
def accept(token: str) -> str:
    seat = service.seat_for_token(token, links.INVITE)
    accepted = service.accept_invitation(seat.id)
    dispatch.send_emails_later(accepted.outbox_ids)
    return _page(seat, token, just_accepted=not accepted.already, game=accepted.game)


def _page(seat: Seat, token: str, just_accepted: bool = False, game: Game | None = None) -> str:
    game = game or seat.game
    return render_template(
        "pages/invite.html",
        game=game,
        seat=seat,
        token=token,
        title=service.engine(game).title,
        names=service.names(game),
        waiting=[s.player.email for s in game.seats if s.accepted_at is None],
        just_accepted=just_accepted,
        seat_link=links.seat_url(seat) if seat.accepted_at else None,
    )
