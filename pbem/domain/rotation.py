"""Revoking links: a nonce replaced, so every link signed with the old one is refused."""

from __future__ import annotations

from sqlalchemy import select

from pbem.config import Settings
from pbem.domain import letters, player_letters
from pbem.domain.addresses import normalise_address
from pbem.domain.errors import NotFound
from pbem.domain.outbox import write_letters
from pbem.domain.views import SeatInfo
from pbem.extensions import db
from pbem.models import INVITING, Player, Seat, new_nonce


def rotate_seat_links(
    config: Settings, game_id: str, seat_index: int, notify: bool = True
) -> list[int]:
    """Revoke every link of one seat; with `notify`, email the player a fresh one."""
    seat = db.session.execute(
        select(Seat).where(Seat.game_id == game_id, Seat.seat == seat_index)
    ).scalar_one_or_none()
    if seat is None:
        raise NotFound(f"Game {game_id} has no seat {seat_index}.")
    seat.nonce = new_nonce()
    outbox_ids: list[int] = []
    if notify:
        invited = seat.accepted_at is None and seat.game.status == INVITING
        letter = letters.new_links(config, seat.game, SeatInfo.of(seat), invited)
        outbox_ids = write_letters(db.session.connection(), config, [letter])
    db.session.commit()
    return outbox_ids


def sign_out_everywhere(config: Settings, player: Player) -> None:
    """Revoke every link the player holds, in every game: seat, invitation, player, sign-in."""
    player.nonce = new_nonce()
    player.signin_nonce = None
    for seat in db.session.execute(select(Seat).where(Seat.player_id == player.id)).scalars():
        seat.nonce = new_nonce()
    db.session.commit()


def rotate_player_links(config: Settings, email: str, notify: bool = True) -> list[int]:
    """`sign_out_everywhere` for an address; with `notify`, email a fresh link to the player's
    games (from which every game of theirs opens again)."""
    address = normalise_address(config, email)
    player = db.session.execute(select(Player).where(Player.email == address)).scalar_one_or_none()
    if player is None:
        raise NotFound(f"No player has the address {email!r}.")
    sign_out_everywhere(config, player)
    if not notify:
        return []
    letter = player_letters.new_player_link(config, player)
    outbox_ids = write_letters(db.session.connection(), config, [letter])
    db.session.commit()
    return outbox_ids
