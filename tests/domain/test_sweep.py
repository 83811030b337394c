"""The sweep: work the queue lost, found once it is old enough and handed back to the tasks."""

from __future__ import annotations

from datetime import timedelta

import pytest
from flask import Flask

from pbem import dispatch
from pbem.domain import moves, starting
from pbem.domain import sweep as sweeping
from pbem.extensions import db, settings
from pbem.models import APPLIED, SENT, OutboxMessage, Submission, utcnow
from tests.domain.flow import EMAILS, seat_to_move, start


def test_the_sweep_finds_what_the_queue_lost(app: Flask, monkeypatch: pytest.MonkeyPatch) -> None:
    config = settings()
    game = start()
    with pytest.MonkeyPatch.context() as queue_down:
        queue_down.setattr(dispatch, "_enqueue", lambda name, args: False)
        submission_id = moves.submit_move(seat_to_move(game), "1", 0)
        assert not dispatch.apply_move_later(submission_id)
        row_id = starting.create_game(config, "countdown", {}, EMAILS).outbox_ids[0]
    now = utcnow()
    # Too fresh: their tasks may be queued.
    assert sweeping.sweep(config, now) == sweeping.Sweep([], [])
    later = now + timedelta(seconds=31)
    found = sweeping.sweep(config, later)
    assert found.submission_ids == [submission_id]
    assert row_id in found.outbox_ids

    from workers.tasks import sweep

    monkeypatch.setattr(sweeping, "utcnow", lambda: later)
    sweep.delay()
    db.session.expire_all()
    assert db.session.get(Submission, submission_id).status == APPLIED
    assert db.session.get(OutboxMessage, row_id).status == SENT
