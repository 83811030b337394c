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


def test_delivered_emails_keep_their_bodies_for_the_configured_days(app: Flask) -> None:
    from sqlalchemy import select

    from pbem.models import PENDING

    config = settings()
    assert config.mail.keep_days == 30
    game = start()
    sent, waiting, *others = (
        db.session.execute(
            select(OutboxMessage).where(OutboxMessage.game_id == game.id).order_by(OutboxMessage.id)
        )
        .scalars()
        .all()
    )
    sent_at = utcnow()
    for row in [sent, *others]:
        row.status, row.sent_at = SENT, sent_at + timedelta(seconds=1 if row is not sent else 0)
    waiting.status, waiting.sent_at = PENDING, None
    db.session.commit()
    record = (sent.to, sent.subject, sent.message_id, sent.references, sent.picture)
    assert sweeping.prune_bodies(config, sent_at + timedelta(days=30)) == 0
    assert sweeping.prune_bodies(config, sent_at + timedelta(days=30, seconds=1)) == 1
    db.session.expire_all()
    assert (sent.text, sent.html) == ("", "")
    assert (sent.to, sent.subject, sent.message_id, sent.references, sent.picture) == record
    # Never an email still to go, however old; and an emptied one is not counted again.
    assert waiting.text and waiting.html
    assert sweeping.prune_bodies(config, sent_at + timedelta(days=400)) == len(others)
    assert sweeping.prune_bodies(config, sent_at + timedelta(days=400)) == 0
    assert waiting.text and waiting.html


def test_the_keep_days_are_a_setting(app: Flask) -> None:
    from pbem.config import ConfigError, load_settings

    base = {"PBEM_ENV": "test", "SECRET_KEY": "k" * 32}
    assert load_settings(base | {"PBEM_MAIL_KEEP_DAYS": "7"}).mail.keep_days == 7
    with pytest.raises(ConfigError, match="PBEM_MAIL_KEEP_DAYS"):
        load_settings(base | {"PBEM_MAIL_KEEP_DAYS": "0"})
