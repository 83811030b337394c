"""The sweep: work the queue lost or has not picked up for a while."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy import select

from pbem.config import Settings
from pbem.extensions import db
from pbem.models import PENDING, OutboxMessage, Submission, utcnow


@dataclass(frozen=True)
class Sweep:
    submission_ids: list[int]
    outbox_ids: list[int]


def sweep(config: Settings, now: datetime | None = None, limit: int = 1000) -> Sweep:
    """Pending submissions and due emails older than PBEM_SWEEP_SECONDS, for the caller to
    enqueue again.

    Waiting PBEM_SWEEP_SECONDS first leaves fresh rows to the tasks already queued for them;
    enqueuing one again anyway is harmless because every task is idempotent.
    """
    now = now or utcnow()
    cutoff = now - timedelta(seconds=config.sweep_seconds)
    submissions = db.session.execute(
        select(Submission.id)
        .where(Submission.status == PENDING, Submission.created_at <= cutoff)
        .order_by(Submission.id)
        .limit(limit)
    ).scalars()
    emails = db.session.execute(
        select(OutboxMessage.id)
        .where(OutboxMessage.status == PENDING, OutboxMessage.next_attempt_at <= cutoff)
        .order_by(OutboxMessage.id)
        .limit(limit)
    ).scalars()
    result = Sweep(list(submissions), list(emails))
    db.session.rollback()
    return result
