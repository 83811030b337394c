"""The moves of a game as pages, mail and the API list them: in words with the players' names,
and marked when a bot made one for its player on autopilot (`Move.autopilot`)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlalchemy import Connection, bindparam, select

from pbem import games, i18n
from pbem.domain import wording
from pbem.domain.turns import move_number
from pbem.models import Move

RECENT_MOVES = 8


class RecentMove(tuple[int, str, str]):
    """A move as pages and mail list it: a (ply, who, move) tuple, so code that unpacks or
    compares three still works, that also carries the move in words, and the bot that made it
    when the seat was on autopilot."""

    autopilot: str | None  # the bot that made it for the seat's player (Move.autopilot)
    _stored: str | None  # Move.words
    _names: tuple[str, ...]  # the players' names, by seat

    def __new__(
        cls,
        ply: int,
        who: str,
        move: str,
        stored: str | None = None,
        autopilot: str | None = None,
        names: Sequence[str] = (),
    ) -> RecentMove:
        made = super().__new__(cls, (ply, who, move))
        made._stored = stored
        made._names = tuple(names)
        made.autopilot = autopilot
        return made

    @property
    def words(self) -> str | None:
        """The engine's sentence in the language being written, the names filled in; None for a
        move stored before moves had words."""
        if not self._stored:
            return None
        return games.fill_names(wording.read_words(self._stored), self._names)

    @property
    def ply(self) -> int:
        return self[0]

    @property
    def number(self) -> int:
        return move_number(self[0])

    @property
    def who(self) -> str:
        """The mover's name."""
        return self[1]

    @property
    def move(self) -> str:
        """The move in the game's notation."""
        return self[2]

    @property
    def autopilot_note(self) -> str:
        """ "played by autopilot for Ann" when a bot made the move for its player; else ""."""
        if not self.autopilot:
            return ""
        return i18n.gettext("played by autopilot for %(name)s", name=self[1])

    @property
    def sentence(self) -> str:
        """The move in words: the engine's, or for a move stored before moves had words, who
        played what; with the autopilot note beside it, so that every page and email that
        tells the move tells who made it."""
        told = self.words or i18n.gettext("%(name)s played %(move)s", name=self[1], move=self[2])
        return f"{told} ({self.autopilot_note})" if self.autopilot else told


def said(
    ply: int,
    seat: int,
    move: str,
    words: str | None,
    who: Sequence[str],
    autopilot: str | None = None,
) -> RecentMove:
    """A stored move (`words` as `Move.words` holds them: `wording.stored_words`, seats as
    placeholders) with the players' names `who` put in when it is said; `autopilot` the bot that
    made it for the seat's player."""
    name = who[seat] if 0 <= seat < len(who) else f"seat {seat}"
    return RecentMove(ply, name, move, words, autopilot, who)


_RECENT = (
    select(Move.ply, Move.seat, Move.move, Move.words, Move.autopilot)
    .where(Move.game_id == bindparam("game_id"))
    .order_by(Move.ply.desc())
    .limit(bindparam("limit"))
)


def recent_moves(
    conn: Connection, game_id: str, who: Sequence[str], limit: int = RECENT_MOVES
) -> list[tuple[int, str, str]]:
    """The game's last `limit` moves, oldest first, in words with the names `who`: each a
    RecentMove (typed as the (ply, who, move) tuple that letters take)."""
    rows = conn.execute(_RECENT, {"game_id": game_id, "limit": limit}).all()
    return [
        said(row.ply, row.seat, row.move, row.words, who, row.autopilot) for row in reversed(rows)
    ]


def move_json(move: Move) -> dict[str, Any]:
    """A recorded move as the API's move lists and the record give it: `autopilot` true (and
    `autopilot_bot` its kind) when a bot made it for the seat's player."""
    return {
        "ply": move.ply,
        "seat": move.seat,
        "move": move.move,
        "autopilot": move.autopilot is not None,
        "autopilot_bot": move.autopilot,
        "at": move.created_at.isoformat() + "Z",
    }
