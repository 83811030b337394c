"""Moves: a player's submission, checked and stored; then applied by a worker under the game's
row lock, with the emails it calls for.

Submitting and applying is the service's hot path (one of each per move, at hundreds of moves a
second): both run a few Core statements on one connection instead of loading and flushing ORM
objects, which cost several times more CPU than the statements themselves.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from sqlalchemy import Connection, bindparam, func, insert, select, update
from sqlalchemy.exc import IntegrityError

from pbem import games, links
from pbem.config import Settings
from pbem.domain import letters
from pbem.domain.access import check_claims
from pbem.domain.errors import (
    GameNotStarted,
    GameOver,
    MoveRefused,
    NotFound,
    NotYourTurn,
    ServiceError,
    StalePly,
)
from pbem.domain.outbox import Letter, write_letters
from pbem.domain.views import (
    RECENT_MOVES,
    SEAT_INFO,
    GameFacts,
    SeatInfo,
    move_number,
)
from pbem.extensions import db
from pbem.models import (
    APPLIED,
    FINISHED,
    INVITING,
    PENDING,
    REJECTED,
    RUNNING,
    Game,
    Move,
    OutboxMessage,
    Player,
    Seat,
    Submission,
    utcnow,
)

log = logging.getLogger(__name__)

UPDATE_GAME = update(Game).where(Game.id == bindparam("game_id"))

# --- submitting ----------------------------------------------------------------------------------

_SUBMIT_READ = (
    select(Seat.player_id, Seat.nonce, Game.engine, Game.state, Game.ply, Game.to_move, Game.status)
    .join(Game, Game.id == Seat.game_id)
    .where(Seat.game_id == bindparam("game_id"), Seat.seat == bindparam("seat"))
)
_INSERT_SUBMISSION = insert(Submission).returning(Submission.id)


def submit_move(seat: links.SeatKey, move: str, ply: int) -> int:
    """Check a move against the game as it stands and store it as a pending submission.

    The checks, in order: the token's claims against the seat (a rotated link is refused), the
    game running, the seat to move, the ply current, the engine accepting the move. Returns the
    submission's id. The worker checks again under the game's row lock, because another move may
    land between this commit and the task.

    The read and the insert each commit on their own (autocommit): nothing here needs them in
    one transaction, since the worker decides under the lock, and it saves the BEGIN and COMMIT
    round trips. The insert is durable when it returns.
    """
    move = move.strip()
    with db.engine.connect() as conn:
        return _submit(conn.execution_options(isolation_level="AUTOCOMMIT"), seat, move, ply)


def _submit(conn: Connection, seat: links.SeatKey, move: str, ply: int) -> int:
    game = conn.execute(_SUBMIT_READ, {"game_id": seat.game_id, "seat": seat.seat}).one_or_none()
    if isinstance(seat, links.LinkClaims):
        check_claims(seat, game)
    elif game is None:
        raise NotFound("There is no such seat.")
    assert game is not None
    check_turn(game, seat.seat, ply)
    if not move:
        raise MoveRefused(
            "No move was given: choose one of the legal moves or type one.", "no_move"
        )
    try:
        games.get(game.engine).from_json(game.state).play(move)
    except games.MoveError as exc:
        code = "invalid_move" if isinstance(exc, games.InvalidMove) else "illegal_move"
        raise MoveRefused(str(exc), code) from exc
    submission_id: int = conn.execute(
        _INSERT_SUBMISSION,
        {
            "game_id": seat.game_id,
            "seat": seat.seat,
            "ply": ply,
            "move": move,
            "status": PENDING,
            "created_at": utcnow(),
        },
    ).scalar_one()
    return submission_id


class TurnFacts(Protocol):
    @property
    def status(self) -> str: ...

    @property
    def ply(self) -> int: ...

    @property
    def to_move(self) -> int | None: ...


def check_turn(game: TurnFacts, seat: int, ply: int) -> None:
    """Refuse a move when the game is not running, the ply is stale or it is not `seat`'s turn."""
    if game.status == INVITING:
        raise GameNotStarted(
            "The game has not started yet: it starts when every invited player has accepted."
        )
    if game.status != RUNNING:
        raise GameOver("The game is over; no more moves can be made.")
    if ply != game.ply:
        raise StalePly(
            f"This move was for move {move_number(ply)}; the game is at move "
            f"{move_number(game.ply)}. Reload the game page to see the board as it is now."
        )
    if game.to_move != seat:
        raise NotYourTurn(
            "It is not your turn: wait for the email telling you it is, then use its link."
        )


# --- applying ------------------------------------------------------------------------------------

# Both rows are locked, so the submission too is read as it is once we hold the lock (PostgreSQL
# re-reads locked rows after a wait, not the others of the join): another worker may have decided
# it while we waited. Rows are locked in the order they are sorted, so two workers whose batches
# share a game cannot deadlock. SQLite has no row locks; its writers take turns on the database.
_LOCK_FOR_APPLY = (
    select(
        Submission.id.label("submission_id"),
        Submission.status.label("submission_status"),
        Submission.seat.label("submission_seat"),
        Submission.ply.label("submission_ply"),
        Submission.move,
        Game.id,
        Game.engine,
        Game.state,
        Game.ply,
        Game.to_move,
        Game.status,
        Game.thread_message_id,
    )
    .join(Game, Game.id == Submission.game_id)
    .where(Submission.id.in_(bindparam("submission_ids", expanding=True)))
    .order_by(Game.id, Submission.id)
    .with_for_update(of=(Game, Submission))
)
_LAST_MESSAGE_ID = (
    select(OutboxMessage.message_id)
    .where(OutboxMessage.game_id == Seat.game_id, OutboxMessage.to == Player.email)
    .order_by(OutboxMessage.id.desc())
    .limit(1)
    .correlate(Seat, Player)
    .scalar_subquery()
)
# Each seat with its address and the last message that address got in the game (to thread after).
_SEATS = (
    select(*SEAT_INFO, _LAST_MESSAGE_ID.label("last_message_id"))
    .join(Player, Player.id == Seat.player_id)
    .where(Seat.game_id.in_(bindparam("game_ids", expanding=True)))
    .order_by(Seat.game_id, Seat.seat)
)
_NUMBERED_MOVES = (
    select(
        Move.game_id,
        Move.ply,
        Move.seat,
        Move.move,
        func.row_number().over(partition_by=Move.game_id, order_by=Move.ply.desc()).label("newest"),
    )
    .where(Move.game_id.in_(bindparam("game_ids", expanding=True)))
    .subquery()
)
# The moves before this batch's that the emails list, for every game of the batch at once.
_RECENT_OF_GAMES = (
    select(
        _NUMBERED_MOVES.c.game_id,
        _NUMBERED_MOVES.c.ply,
        _NUMBERED_MOVES.c.seat,
        _NUMBERED_MOVES.c.move,
    )
    .where(_NUMBERED_MOVES.c.newest < RECENT_MOVES)
    .order_by(_NUMBERED_MOVES.c.game_id, _NUMBERED_MOVES.c.ply)
)
_INSERT_MOVE = insert(Move)
_DECIDE_SUBMISSION = update(Submission).where(Submission.id == bindparam("submission_id"))


@dataclass
class _Playing(GameFacts):
    """A locked game as this batch has left it so far."""

    snapshot: dict[str, Any] = field(default_factory=dict)
    state: games.State | None = None
    changed: bool = False

    def current(self) -> games.State:
        if self.state is None:
            self.state = games.get(self.engine).from_json(self.snapshot)
        return self.state


@dataclass(frozen=True)
class _Played:
    submission_id: int
    game: GameFacts
    seat: int
    ply: int
    move: str
    after: games.State


def apply_moves(config: Settings, submission_ids: Sequence[int]) -> list[int]:
    """Play pending submissions under their games' row locks, all in one transaction.

    For each: append the move, store the new snapshot and write the outbox rows, or mark the
    submission rejected. Submissions of one game are decided in the order they arrived, so of two
    for the same ply the first is played and the second rejected. Returns the outbox ids to send.
    Running it again for the same ids changes nothing. A worker takes a batch at a time: the
    reads and writes of a batch cost a handful of statements and one commit, whatever its size.
    """
    if not submission_ids:
        return []
    try:
        return _apply_batch(config, sorted(set(submission_ids)))
    except IntegrityError:
        # Only reachable without row locks (SQLite): the unique ply refused a second move.
        db.session.rollback()
        if len(submission_ids) > 1:
            return [one_id for one in submission_ids for one_id in apply_moves(config, [one])]
        reason = "Another move was made for this turn first."
        db.session.connection().execute(_DECIDE_SUBMISSION, [_rejection(submission_ids[0], reason)])
        db.session.commit()
        return []


def _apply_batch(config: Settings, submission_ids: list[int]) -> list[int]:
    conn = db.session.connection()
    rows = conn.execute(_LOCK_FOR_APPLY, {"submission_ids": submission_ids}).all()
    now = utcnow()
    playing: dict[str, _Playing] = {}
    decided: list[dict[str, Any]] = []
    played: list[_Played] = []
    for row in rows:
        if row.submission_status != PENDING:
            continue
        game = playing.setdefault(
            row.id,
            _Playing(
                row.id,
                row.engine,
                row.status,
                row.ply,
                row.to_move,
                row.thread_message_id,
                row.state,
            ),
        )
        seat = row.submission_seat
        try:
            check_turn(game, seat, row.submission_ply)
            after = game.current().play(row.move)
        except (ServiceError, games.MoveError) as exc:
            decided.append(_rejection(row.submission_id, str(exc)))
            continue
        except Exception:
            # An engine bug must not leave the submission pending for the sweep to retry forever.
            log.exception("engine error applying submission %s", row.submission_id)
            reason = "pbem could not play this move because of an error on our side; try again."
            decided.append(_rejection(row.submission_id, reason))
            continue
        move = after.history[-1] if after.history else row.move
        facts = GameFacts(
            game.id,
            game.engine,
            RUNNING if after.outcome is None else FINISHED,
            game.ply + 1,
            after.to_move,
            game.thread_message_id,
        )
        played.append(_Played(row.submission_id, facts, seat, game.ply, move, after))
        decided.append(
            {
                "submission_id": row.submission_id,
                "status": APPLIED,
                "error": None,
                "applied_at": now,
            }
        )
        game.state, game.changed = after, True
        game.ply, game.to_move, game.status = facts.ply, facts.to_move, facts.status

    outbox_ids = _write_letters_for(conn, config, played) if played else []
    if played:
        conn.execute(
            _INSERT_MOVE,
            [
                {
                    "game_id": p.game.id,
                    "ply": p.ply,
                    "seat": p.seat,
                    "move": p.move,
                    "submission_id": p.submission_id,
                    "created_at": now,
                }
                for p in played
            ],
        )
        conn.execute(UPDATE_GAME, [_game_changes(g, now) for g in playing.values() if g.changed])
    if decided:
        conn.execute(_DECIDE_SUBMISSION, decided)
    db.session.commit()
    return outbox_ids


def _game_changes(game: _Playing, now: Any) -> dict[str, Any]:
    state = game.current()
    outcome = state.outcome
    return {
        "game_id": game.id,
        "state": state.to_json(),
        "ply": game.ply,
        "to_move": game.to_move,
        "status": game.status,
        "finished_at": now if outcome is not None else None,
        "outcome": outcome.to_json() if outcome is not None else None,
    }


def _rejection(submission_id: int, reason: str) -> dict[str, Any]:
    return {
        "submission_id": submission_id,
        "status": REJECTED,
        "error": reason,
        "applied_at": utcnow(),
    }


def _tells(p: _Played) -> bool:
    """Whether a move calls for an email: the game ended, or a turn begins.

    The same seat to move again within its turn (a second action of the turn) is on the page
    already; a seat moving again because nobody else could (a new turn) must be told.
    """
    if p.after.outcome is not None:
        return True
    return p.after.to_move is not None and not (p.after.to_move == p.seat and p.after.mid_turn)


def _write_letters_for(conn: Connection, config: Settings, played: list[_Played]) -> list[int]:
    """The emails the batch's moves call for: the next player's turn, or everyone's result."""
    tell = [p for p in played if _tells(p)]
    if not tell:
        return []
    game_ids = sorted({p.game.id for p in tell})
    seats: dict[str, list[SeatInfo]] = {}
    previous: dict[str, dict[str, str]] = {}
    for row in conn.execute(_SEATS, {"game_ids": game_ids}):
        seats.setdefault(row.game_id, []).append(SeatInfo.of_row(row))
        if row.last_message_id:
            previous.setdefault(row.game_id, {})[row.email] = row.last_message_id
    recent: dict[str, list[tuple[int, int, str]]] = {}
    for game_id, ply, seat, move in conn.execute(_RECENT_OF_GAMES, {"game_ids": game_ids}):
        recent.setdefault(game_id, []).append((ply, seat, move))
    written: list[Letter] = []
    for p in tell:
        game_seats = seats[p.game.id]
        who = [info.email for info in game_seats]
        moves = recent.setdefault(p.game.id, [])
        moves.append((p.ply, p.seat, p.move))
        shown = [(ply, who[seat], move) for ply, seat, move in moves[-RECENT_MOVES:]]
        if p.after.outcome is not None:
            written += letters.results(config, p.game, game_seats, p.after, who, shown)
        else:
            assert p.after.to_move is not None
            again = p.after.to_move == p.seat
            next_seat = game_seats[p.after.to_move]
            written.append(letters.turn(config, p.game, next_seat, p.after, who, shown, again))
    return write_letters(conn, config, written, previous)
