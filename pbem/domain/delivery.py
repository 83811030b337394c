"""Sending the outbox: each row claimed, transmitted at most once, and marked sent; a failed
attempt scheduled again with backoff."""

from __future__ import annotations

import smtplib
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import Connection, bindparam, func, select, update

from pbem import mail
from pbem.config import Settings
from pbem.extensions import db
from pbem.models import FAILED, PENDING, SENT, OutboxMessage, utcnow


@dataclass(frozen=True)
class Delivery:
    status: str  # sent, retry, failed, skipped
    retry_in: int | None = None


_OUTBOX_ROW = select(OutboxMessage.__table__).where(OutboxMessage.id == bindparam("outbox_id"))
# Another worker holding the row is sending it right now: leave it to them.
_CLAIM_OUTBOX = _OUTBOX_ROW.with_for_update(skip_locked=True)
# On PostgreSQL the claim also makes the transaction's commit skip the wait for the WAL flush, in
# the same round trip (set_config(..., true) is SET LOCAL): a worker lost between the server's
# 250 and the commit that marks the row sent sends the message again when the task comes back,
# and not waiting for the disk shrinks that window to one round trip. The price is a resend after
# a PostgreSQL crash in that instant: the same duplicate, with the same Message-ID.
_CLAIM_OUTBOX_PG = (
    select(
        func.set_config("synchronous_commit", "off", True).label("commit_mode"),
        *OutboxMessage.__table__.columns,
    )
    .where(OutboxMessage.id == bindparam("outbox_id"))
    .with_for_update(of=OutboxMessage, skip_locked=True)
)
_UPDATE_OUTBOX = update(OutboxMessage).where(OutboxMessage.id == bindparam("outbox_id"))


def send_outbox(config: Settings, outbox_id: int, now: datetime | None = None) -> Delivery:
    """Transmit one outbox row at most once; on failure, schedule the next attempt with backoff."""
    return send_outboxes(config, [outbox_id], now)[outbox_id]


def send_outboxes(
    config: Settings, outbox_ids: Sequence[int], now: datetime | None = None
) -> dict[int, Delivery]:
    """Transmit outbox rows one after another over one database connection and one SMTP session.

    For each row: 1. claim it (locked, SKIP LOCKED; a row another worker holds, or one no longer
    pending, is skipped); 2. transmit it; 3. mark it sent and commit, right after the server
    took it, so what was sent is recorded at once; or, when the attempt failed, record the
    failure and the next attempt's time.
    """
    with db.engine.connect() as conn:
        claim = _CLAIM_OUTBOX_PG if conn.dialect.name == "postgresql" else _CLAIM_OUTBOX
        return {
            outbox_id: _send_one(conn, claim, outbox_id, config, now or utcnow())
            for outbox_id in outbox_ids
        }


def _send_one(
    conn: Connection, claim: Any, outbox_id: int, config: Settings, now: datetime
) -> Delivery:
    row = conn.execute(claim, {"outbox_id": outbox_id}).one_or_none()
    if row is None or row.status != PENDING:
        conn.rollback()
        return Delivery("skipped")
    attempts = row.attempts + 1
    try:
        with mail.delivering(row, config):
            # Recorded as soon as the server took the message, before the session is closed.
            conn.execute(
                _UPDATE_OUTBOX,
                {
                    "outbox_id": outbox_id,
                    "status": SENT,
                    "sent_at": now,
                    "attempts": attempts,
                    "last_error": None,
                },
            )
            conn.commit()
    except (OSError, smtplib.SMTPException) as exc:
        return _failed_attempt(conn, config, outbox_id, attempts, exc, now)
    return Delivery("sent")


def _failed_attempt(
    conn: Connection,
    config: Settings,
    outbox_id: int,
    attempts: int,
    exc: Exception,
    now: datetime,
) -> Delivery:
    changes: dict[str, Any] = {
        "attempts": attempts,
        "last_error": f"{type(exc).__name__}: {exc}"[:2000],
    }
    delivery = Delivery("failed")
    if attempts >= config.mail_max_attempts or isinstance(exc, smtplib.SMTPRecipientsRefused):
        changes["status"] = FAILED
    else:
        delay = min(config.mail_retry_seconds * 2 ** (attempts - 1), 3600)
        changes["next_attempt_at"] = now + timedelta(seconds=delay)
        delivery = Delivery("retry", delay)
    conn.execute(_UPDATE_OUTBOX, {"outbox_id": outbox_id, **changes})
    conn.commit()
    return delivery
