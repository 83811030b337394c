"""Helpers for the tests of time: games reloaded, moves made at an instant, the clock task run
as of an instant, the events recorded."""

from __future__ import annotations

from datetime import datetime, timedelta

import time_machine
from sqlalchemy import select

from pbem.domain import clock_task, moves
from pbem.extensions import db, settings
from pbem.models import ClockRun, Game, GameEvent, Submission
from tests.domain.flow import EMAILS

# A Wednesday noon, UTC: far from any weekend.
T0 = datetime(2026, 12, 2, 12, 0)
THREE = [*EMAILS, "carol@example.org"]


def reload(game_id: str) -> Game:
    """The game as stored now."""
    db.session.expire_all()
    game = db.session.get(Game, game_id)
    assert game is not None
    return game


def move_at(game: Game, move: str, at: datetime) -> Submission:
    """`move` by the seat to move, stored and applied at `at`."""
    assert game.to_move is not None
    with time_machine.travel(at, tick=False):
        submission_id = moves.submit_move(game.seats[game.to_move], move, game.ply)
        moves.apply_moves(settings(), [submission_id])
    db.session.expire_all()
    submission = db.session.get(Submission, submission_id)
    assert submission is not None
    return submission


def run_clock_at(now: datetime) -> clock_task.ClockReport:
    """The clock task as of `now`, as if it had run every minute until then: no downtime."""
    run = db.session.get(ClockRun, 1)
    if run is not None:
        run.last_run_at = now - timedelta(minutes=1)
        db.session.commit()
    return clock_task.run_clock(settings(), now)


def game_events(game_id: str) -> list[tuple[str, int | None, int]]:
    """(kind, seat, ply) of every event of the game, in order."""
    rows = db.session.execute(
        select(GameEvent).where(GameEvent.game_id == game_id).order_by(GameEvent.id)
    ).scalars()
    return [(e.kind, e.seat, e.ply) for e in rows]
