"""A player's games, those waiting for them first, and the sign-in mail that opens the list."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import select

from pbem import links
from pbem.config import Settings
from pbem.domain import letters
from pbem.domain.access import signin_token
from pbem.domain.outbox import write_letters
from pbem.domain.views import engine, load_state, names
from pbem.extensions import db
from pbem.models import FINISHED, INVITING, RUNNING, Player, Seat


@dataclass
class GameLine:
    game_id: str
    title: str
    status: str
    your_turn: bool
    move_number: int
    opponents: list[str]
    scores: str
    href: str
    invited: bool
    last_activity: datetime

    @property
    def order(self) -> tuple[int, float]:
        # Waiting for this player first: their move, then an invitation to answer; then games
        # waiting for others, then those still gathering players, then the finished ones.
        if self.your_turn:
            rank = 0
        elif self.invited:
            rank = 1
        else:
            rank = {RUNNING: 2, INVITING: 3, FINISHED: 4}.get(self.status, 5)
        return rank, -self.last_activity.timestamp()


def game_lines(config: Settings, player: Player) -> list[GameLine]:
    seats = db.session.execute(select(Seat).where(Seat.player_id == player.id)).scalars().all()
    lines = []
    for seat in seats:
        game = seat.game
        if game.confirmed_at is None and game.organiser_id != player.id:
            continue  # not invited yet: the organiser has to confirm first
        who = names(game)
        state = load_state(game)
        invited = seat.accepted_at is None and game.status == INVITING
        purpose, path = (links.INVITE, "invite") if invited else (links.SEAT, "play")
        lines.append(
            GameLine(
                game_id=game.id,
                title=engine(game).title,
                status=game.status,
                your_turn=game.status == RUNNING and game.to_move == seat.seat,
                move_number=game.ply + 1,
                opponents=[n for i, n in enumerate(who) if i != seat.seat],
                scores=" : ".join(str(s) for s in state.scores()) if state is not None else "",
                href=f"/{path}/{links.token_for(config.signing_key, seat, purpose)}",
                invited=invited,
                last_activity=game.finished_at or game.started_at or game.created_at,
            )
        )
    lines.sort(key=lambda line: line.order)
    return lines


def request_signin(config: Settings, address: str) -> list[int]:
    """Write a sign-in email when `address` plays here; the outbox ids to send (none if not)."""
    player = db.session.execute(select(Player).where(Player.email == address)).scalar_one_or_none()
    if player is None:
        return []
    link = f"{config.base_url}/signin/{signin_token(config, player)}"
    outbox_ids = write_letters(db.session.connection(), config, [letters.signin(address, link)])
    db.session.commit()
    return outbox_ids
