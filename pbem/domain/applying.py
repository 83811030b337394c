"""Applying moves: a worker plays pending submissions under their games' row locks.

Applying is the service's hot path with submitting (one of each per move, at hundreds of moves a
second): a batch costs a handful of Core statements and one commit, whatever its size, instead
of loading and flushing ORM objects, which cost several times more CPU than the statements.

1. Lock the submissions and their games (`_LOCK_FOR_APPLY`, in game order: two workers whose
   batches share a game cannot deadlock) in the session's transaction.
2. Decide each pending submission in the order it arrived (`_decide`): `turns.may_act` at the
   instant it was stored and the ply (`turns.check_move`), then the engine plays it. A refused
   one is marked rejected with the reason; an engine error rejects it too, so the sweep never
   retries it forever. Of two for the same ply the first is played.
3. End the turns the moves ended (`pbem.domain.turn_ending`): the next turn's clock, the
   mover's Fischer bank, the turn or result emails in the outbox.
4. Insert the moves, update the games and decide the submissions, then commit once.
Running it again for the same ids changes nothing: only pending submissions are decided.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from sqlalchemy import Connection, bindparam, insert, select, update
from sqlalchemy.exc import IntegrityError

from pbem import games, i18n
from pbem.config import Settings
from pbem.domain import clocks, turns, wording
from pbem.domain.errors import OutOfTime, ServiceError
from pbem.domain.turn_ending import (
    PLAYING_COLUMNS,
    UPDATE_GAME,
    Applied,
    Decided,
    Played,
    end_turns,
)
from pbem.domain.views import GameFacts
from pbem.extensions import db
from pbem.games.messages import Message
from pbem.models import APPLIED, PENDING, REJECTED, Game, Move, Submission, utcnow
from pbem.ops import metrics

log = logging.getLogger(__name__)

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
        Submission.autopilot.label("submission_autopilot"),
        Submission.created_at.label("submitted_at"),
        *PLAYING_COLUMNS,
    )
    .join(Game, Game.id == Submission.game_id)
    .where(Submission.id.in_(bindparam("submission_ids", expanding=True)))
    .order_by(Game.id, Submission.id)
    .with_for_update(of=(Game, Submission))
)
_INSERT_MOVE = insert(Move)
_DECIDE_SUBMISSION = update(Submission).where(Submission.id == bindparam("submission_id"))
# Refusals stored with a submission, as messages of the service's catalog, said in each
# reader's language when shown (`wording.read_words`). A stored move judged late: its player was
# told "in time" or "out of time" when they sent it.
STORED_LATE = Message("This move was stored after the turn's deadline.")
ENGINE_ERROR = Message("pbem could not play this move because of an error on our side; try again.")
CONFLICT = Message("Another move was made for this turn first.")


@dataclass
class Playing(GameFacts):
    """A locked game as this batch has left it so far."""

    snapshot: dict[str, Any] = field(default_factory=dict)
    state: games.State | None = None
    changed: bool = False
    clock: clocks.Clock = clocks.NO_CLOCK
    turn: turns.TurnClock = turns.NO_TURN
    draw_offered_by: int | None = None

    @classmethod
    def locked(cls, row: Any) -> Playing:
        return cls.of(
            row,
            snapshot=row.state,
            clock=turns.game_clock(row.clock),
            turn=turns.TurnClock.of(row),
            draw_offered_by=row.draw_offered_by,
        )

    # What `turns.may_act` reads of the turn on the clock.
    @property
    def deadline(self) -> datetime | None:
        return self.turn.deadline

    @property
    def paused_at(self) -> datetime | None:
        return self.turn.paused_at

    def current(self) -> games.State:
        if self.state is None:
            self.state = games.get(self.engine).from_json(self.snapshot)
        return self.state

    def play(self, played: Played) -> None:
        """Move on to the state `played` left it in."""
        facts = played.game
        self.state, self.changed = played.after, True
        self.ply, self.to_move, self.status = facts.ply, facts.to_move, facts.status
        self.outcome = facts.outcome
        ended = played.after.outcome is not None
        if played.seat != self.draw_offered_by or ended:
            # A draw offer lapses at the other player's next move.
            self.draw_offered_by = None
        if ended:
            self.turn = turns.NO_TURN

    def changes(self, now: datetime) -> dict[str, Any]:
        """The game row's new columns."""
        state = self.current()
        outcome = state.outcome
        return {
            "game_id": self.id,
            "state": state.to_json(),
            "ply": self.ply,
            "to_move": self.to_move,
            "status": self.status,
            "finished_at": now if outcome is not None else None,
            "outcome": outcome.to_json() if outcome is not None else None,
            "draw_offered_by": self.draw_offered_by,
            **self.turn.columns(),
        }


def apply_moves(config: Settings, submission_ids: Sequence[int]) -> list[int]:
    """`apply_submissions`, for callers that have no bot to tell: the outbox ids to send."""
    return apply_submissions(config, submission_ids).outbox_ids


def apply_submissions(config: Settings, submission_ids: Sequence[int]) -> Applied:
    """Play pending submissions under their games' row locks, all in one transaction (the
    module's steps). Returns the outbox ids to send and the games a bot moves in next."""
    if not submission_ids:
        return Applied()
    try:
        return _apply_batch(config, sorted(set(submission_ids)))
    except IntegrityError:
        # Only reachable without row locks (SQLite): the unique ply refused a second move.
        db.session.rollback()
        if len(submission_ids) > 1:
            return sum(
                (apply_submissions(config, [one]) for one in submission_ids), start=Applied()
            )
        reason = wording.stored_words(CONFLICT, i18n.SERVICE_DOMAIN)
        db.session.connection().execute(_DECIDE_SUBMISSION, [_rejection(submission_ids[0], reason)])
        db.session.commit()
        metrics.MOVES_REFUSED.labels("unknown", "conflict").inc()
        return Applied()


def _apply_batch(config: Settings, submission_ids: list[int]) -> Applied:
    conn = db.session.connection()
    rows = conn.execute(_LOCK_FOR_APPLY, {"submission_ids": submission_ids}).all()
    now = utcnow()
    playing: dict[str, Playing] = {}
    decided: list[dict[str, Any]] = []
    played: list[Played] = []
    refused: list[tuple[str, str]] = []
    results: list[Decided] = []
    for row in rows:
        if row.submission_status != PENDING:
            continue
        game = playing.setdefault(row.id, Playing.locked(row))
        ply = game.ply
        outcome = _decide(game, row)
        if isinstance(outcome, Refusal):
            decided.append(_rejection(row.submission_id, outcome.message))
            refused.append((game.engine, outcome.code))
            results.append(
                Decided(row.submission_id, game.id, row.submission_seat, ply, outcome.code)
            )
            continue
        played.append(outcome)
        decided.append(_decision(row.submission_id, APPLIED, None, now))
        results.append(Decided(row.submission_id, game.id, row.submission_seat, ply, APPLIED))
        game.play(outcome)
    applied = Applied()
    if played:
        applied = end_turns(conn, config, played, playing, now)
        _store(conn, played, playing, now)
    if decided:
        conn.execute(_DECIDE_SUBMISSION, decided)
    db.session.commit()
    _count(played, refused, now)
    applied.decided = results
    return applied


def _count(played: list[Played], refused: list[tuple[str, str]], now: datetime) -> None:
    """What the batch committed, for the operator's figures (pbem.ops.metrics)."""
    for p in played:
        metrics.MOVES_APPLIED.labels(p.game.engine).inc()
        waited = (now - p.submitted_at).total_seconds()
        metrics.MOVE_APPLY_SECONDS.labels(p.game.engine).observe(max(0.0, waited))
    for engine, code in refused:
        metrics.MOVES_REFUSED.labels(engine, code).inc()


@dataclass(frozen=True)
class Refusal:
    """Why a submission is refused: the words its player reads, the code the figures count."""

    message: str
    code: str


def _decide(game: Playing, row: Any) -> Played | Refusal:
    """The move of submission `row` played in `game`, or why it is refused."""
    seat = row.submission_seat
    try:
        # Judged when it was stored: a move stored in time stays in time in the queue.
        sitter = turns.Sitter(seat, active=seat not in game.current().dropped)
        verdict = turns.may_act(game, sitter, row.submitted_at)
        try:
            turns.check_move(verdict, row.submission_ply, game.ply)
        except OutOfTime as exc:
            return Refusal(wording.stored_words(STORED_LATE, i18n.SERVICE_DOMAIN), exc.code)
        # The sentence comes with the play: Move.words is stored without playing it twice.
        after, words = game.current().play_described(row.move)
    except ServiceError as exc:
        return Refusal(str(exc), exc.code)
    except games.MoveError as exc:
        code = "invalid_move" if isinstance(exc, games.InvalidMove) else "illegal_move"
        # Kept as the engine's message, said in the reader's language when it is shown.
        return Refusal(wording.stored_words(wording.engine_said(exc), game.engine), code)
    except Exception:
        # An engine bug must not leave the submission pending for the sweep to retry forever.
        log.exception("engine error applying submission %s", row.submission_id)
        return Refusal(wording.stored_words(ENGINE_ERROR, i18n.SERVICE_DOMAIN), "engine_error")
    return Played(
        row.submission_id,
        GameFacts.at(game, after, game.ply + 1),
        seat,
        game.ply,
        after.history[-1] if after.history else row.move,
        wording.stored_words(words, game.engine),
        after,
        row.submitted_at,
        game.turn,
        row.submission_autopilot,
    )


def _store(
    conn: Connection, played: list[Played], playing: dict[str, Playing], now: datetime
) -> None:
    """Insert the moves and write the games as the batch left them."""
    conn.execute(
        _INSERT_MOVE,
        [
            {
                "game_id": p.game.id,
                "ply": p.ply,
                "seat": p.seat,
                "move": p.move,
                "words": p.words,
                "submission_id": p.submission_id,
                "autopilot": p.autopilot,
                "created_at": now,
            }
            for p in played
        ],
    )
    conn.execute(UPDATE_GAME, [g.changes(now) for g in playing.values() if g.changed])


def _rejection(submission_id: int, reason: str) -> dict[str, Any]:
    return _decision(submission_id, REJECTED, reason, utcnow())


def _decision(submission_id: int, status: str, error: str | None, at: datetime) -> dict[str, Any]:
    return {"submission_id": submission_id, "status": status, "error": error, "applied_at": at}
