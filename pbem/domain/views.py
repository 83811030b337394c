"""What pages, mail and the API show of a game: its players' names, a seat's picture of it, its
moves, its record, and past positions replayed from the seed."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, Protocol

from sqlalchemy import Connection, bindparam, select

from pbem import games
from pbem.extensions import db
from pbem.models import RUNNING, Game, Move, Player, Seat

RECENT_MOVES = 8


class OfEngine(Protocol):
    @property
    def engine(self) -> str: ...


def engine(game: OfEngine) -> games.Game:
    """The rules a game is played by."""
    return games.get(game.engine)


def load_state(game: Game) -> games.State | None:
    """The engine state of a running or finished game; None while it is inviting."""
    if game.state is None:
        return None
    return engine(game).from_json(game.state)


def names(game: Game) -> list[str]:
    """How each seat is called in pages and emails: its player's address."""
    return [seat.player.email for seat in game.seats]


def move_number(ply: int) -> int:
    """Plies count from 0; people count moves from 1."""
    return ply + 1


@dataclass
class GameFacts:
    """A game as a move left it, for the emails written in the same transaction."""

    id: str
    engine: str
    status: str
    ply: int
    to_move: int | None
    thread_message_id: str


@dataclass(frozen=True)
class SeatInfo:
    """A seat with its player's address: what links and emails need of it."""

    id: int
    game_id: str
    seat: int
    player_id: int
    nonce: str
    email: str
    player_nonce: str  # signs the player's dashboard link

    @classmethod
    def of(cls, seat: Seat) -> SeatInfo:
        player = seat.player
        return cls(
            seat.id, seat.game_id, seat.seat, seat.player_id, seat.nonce, player.email, player.nonce
        )

    @classmethod
    def of_row(cls, row: Any) -> SeatInfo:
        """From a Core row that selected the SEAT_INFO columns (and maybe more)."""
        return cls(
            row.id, row.game_id, row.seat, row.player_id, row.nonce, row.email, row.player_nonce
        )


# SeatInfo's fields as columns (joined with Player), for Core reads.
SEAT_INFO = (
    Seat.id,
    Seat.game_id,
    Seat.seat,
    Seat.player_id,
    Seat.nonce,
    Player.email,
    Player.nonce.label("player_nonce"),
)


@dataclass
class SeatPicture:
    """One seat's picture of a game: what its page, its emails and the API show."""

    game: Game | GameFacts
    seat: Seat | SeatInfo
    state: games.State | None
    names: list[str]
    recent: list[tuple[int, str, str]] = field(default_factory=list)  # (ply, who, move)

    @property
    def title(self) -> str:
        return engine(self.game).title

    @property
    def your_turn(self) -> bool:
        return self.game.status == RUNNING and self.game.to_move == self.seat.seat

    @property
    def opponents(self) -> list[str]:
        return [name for index, name in enumerate(self.names) if index != self.seat.seat]

    @cached_property
    def scores(self) -> list[tuple[str, int]]:
        # Cached: a mail's text and HTML both show them, and some engines count them up.
        if self.state is None:
            return []
        return list(zip(self.names, self.state.scores(), strict=False))

    @property
    def outcome_text(self) -> str:
        """How the game ended, in words with the players' names ("" while it runs)."""
        sentence = self.state.describe_outcome() if self.state is not None else None
        return games.fill_names(sentence, self.names) if sentence else ""

    @property
    def to_move_name(self) -> str | None:
        to_move = self.game.to_move
        return self.names[to_move] if to_move is not None else None

    def legal_moves(self) -> list[str]:
        if not self.your_turn or self.state is None:
            return []
        return self.state.legal_moves()


def picture(seat: Seat, recent: int = RECENT_MOVES) -> SeatPicture:
    game = seat.game
    who = names(game)
    moves = recent_moves(db.session.connection(), game.id, who, recent) if recent else []
    return SeatPicture(game, seat, load_state(game), who, moves)


_RECENT = (
    select(Move.ply, Move.seat, Move.move)
    .where(Move.game_id == bindparam("game_id"))
    .order_by(Move.ply.desc())
    .limit(bindparam("limit"))
)


def recent_moves(
    conn: Connection, game_id: str, who: Sequence[str], limit: int = RECENT_MOVES
) -> list[tuple[int, str, str]]:
    """The game's last `limit` moves, oldest first, as (ply, who, move)."""
    rows = conn.execute(_RECENT, {"game_id": game_id, "limit": limit}).all()
    return [(ply, who[seat], move) for ply, seat, move in reversed(rows)]


def history(game: Game) -> list[Move]:
    return list(
        db.session.execute(select(Move).where(Move.game_id == game.id).order_by(Move.ply)).scalars()
    )


def replay(game: Game) -> Iterator[games.State]:
    """Every position of the game from the start, replayed from its seed and recorded moves."""
    state = engine(game).new(len(game.seats), game.options, game.seed)
    yield state
    for move in history(game):
        state = state.play(move.move)
        yield state


def position_after(game: Game, ply: int) -> games.State | None:
    """The state after `ply` moves (0 = the start); None when the game has no such position."""
    for index, state in enumerate(replay(game)):
        if index == ply:
            return state
    return None


def game_record(game: Game) -> dict[str, Any]:
    """Everything needed to replay the game elsewhere: options, seed, players and moves."""
    return {
        "game": game.id,
        "engine": game.engine,
        "title": engine(game).title,
        "options": game.options,
        "seed": game.seed,
        "players": [
            {"seat": s.seat, "email": s.player.email, "accepted": s.accepted_at is not None}
            for s in game.seats
        ],
        "status": game.status,
        "ply": game.ply,
        "outcome": game.outcome,
        "moves": [
            {
                "ply": m.ply,
                "seat": m.seat,
                "move": m.move,
                "at": m.created_at.isoformat() + "Z",
            }
            for m in history(game)
        ],
        "created_at": game.created_at.isoformat() + "Z",
        "started_at": game.started_at.isoformat() + "Z" if game.started_at else None,
        "finished_at": game.finished_at.isoformat() + "Z" if game.finished_at else None,
    }
