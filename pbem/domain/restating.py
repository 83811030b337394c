"""The moves' words said again by the engines: each stored game replayed from its seed and its
record, and each move's sentence stored as the engine's message (`wording.stored_words`), so
that games stored while an engine spoke English only are read in every language (migrations
0016 and 0017, and again whenever another engine starts speaking in messages)."""

from __future__ import annotations

import logging
from collections import defaultdict
from typing import Any

from sqlalchemy import Connection, bindparam, func, select, update

from pbem import games
from pbem.domain import wording
from pbem.games.messages import Message
from pbem.models import Game, GameEvent, Move, Seat

log = logging.getLogger(__name__)

# Named columns only: a later revision's columns are not there yet when migration 0016 runs.
_GAMES = select(Game.id, Game.engine, Game.options, Game.seed).where(Game.state.is_not(None))
_SEATS = select(Seat.game_id, func.count().label("n")).group_by(Seat.game_id)
_EVENTS = (
    select(GameEvent.game_id, GameEvent.ply, GameEvent.seat, GameEvent.detail)
    .where(GameEvent.seat.is_not(None))
    .order_by(GameEvent.id)
)
_MOVES = (
    select(Move.id, Move.ply, Move.move, Move.words)
    .where(Move.game_id == bindparam("game_id"))
    .order_by(Move.ply)
)
_STORED = select(Move.id, Move.words).where(Move.words.startswith('{"'))
_WRITE = update(Move).where(Move.id == bindparam("move_id")).values(words=bindparam("said"))


def restate_moves(conn: Connection) -> int:
    """Store every move's words as its engine's message where the engine gives one; the number
    of moves rewritten. A game that no longer replays (a damaged row) keeps its words as they
    are and is logged: one bad game does not stop the rest."""
    seats = {row.game_id: int(row.n) for row in conn.execute(_SEATS)}
    drops: dict[str, dict[int, list[int]]] = defaultdict(lambda: defaultdict(list))
    for event in conn.execute(_EVENTS):
        if isinstance(event.detail, dict) and event.detail.get("dropped"):
            drops[event.game_id][int(event.ply)].append(int(event.seat))
    rewritten = 0
    for game in conn.execute(_GAMES.order_by(Game.id)).all():
        try:
            changes = _restated(conn, game, seats.get(game.id, 0), drops.get(game.id, {}))
        except Exception:
            log.exception("game %s does not replay; its moves' words are left as they are", game.id)
            continue
        if changes:
            conn.execute(_WRITE, changes)
            rewritten += len(changes)
    return rewritten


def english_moves(conn: Connection) -> int:
    """The other way (the migration's downgrade): every stored message back to its English."""
    changes = []
    for row in conn.execute(_STORED):
        said = wording.read_english(row.words)
        if said != row.words:
            changes.append({"move_id": row.id, "said": said})
    if changes:
        conn.execute(_WRITE, changes)
    return len(changes)


def _restated(
    conn: Connection, game: Any, players: int, drops: dict[int, list[int]]
) -> list[dict[str, Any]]:
    engine = games.get(game.engine)
    state = _dropping(engine.new(players, game.options, int(game.seed)), drops, 0)
    changes = []
    for move in conn.execute(_MOVES, {"game_id": game.id}):
        after, words = state.play_described(move.move)
        if isinstance(words, Message):
            stored = wording.stored_words(words, game.engine)
            if stored != move.words:
                changes.append({"move_id": move.id, "said": stored})
        state = _dropping(after, drops, int(move.ply) + 1)
    return changes


def _dropping(state: games.State, drops: dict[int, list[int]], ply: int) -> games.State:
    for seat in drops.get(ply, []):
        state = state.drop(seat)
    return state
