"""What an operator does about mail that did not go: list the emails given up on, with why, and
send one again (`pbem admin mail failed`, `pbem admin mail resend ID`)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy import func, select, update

from pbem.config import Settings
from pbem.extensions import db
from pbem.models import FAILED, PENDING, SENT, OutboxMessage, Player


class AdminError(Exception):
    """A request the operator made that cannot be done, said in words."""


@dataclass(frozen=True)
class FailedEmail:
    id: int
    kind: str
    game_id: str | None
    to: str
    subject: str
    written_at: datetime
    attempts: int
    why: str
    # When the address was marked bouncing (pbem.domain.bounces), if it is.
    bouncing_since: datetime | None


def failed(limit: int = 100) -> list[FailedEmail]:
    """The emails given up on, newest first."""
    rows = db.session.execute(
        select(OutboxMessage, Player.bounced_at)
        .outerjoin(Player, Player.email == OutboxMessage.to)
        .where(OutboxMessage.status == FAILED)
        .order_by(OutboxMessage.id.desc())
        .limit(limit)
    ).all()
    return [
        FailedEmail(
            id=row.id,
            kind=row.kind,
            game_id=row.game_id,
            to=row.to,
            subject=row.subject,
            written_at=row.created_at,
            attempts=row.attempts,
            why=row.last_error or "no reason recorded",
            bouncing_since=bounced_at,
        )
        for row, bounced_at in rows
    ]


@dataclass(frozen=True)
class Resent:
    id: int
    to: str
    was: str  # the status it had: failed, sent or pending
    bouncing_since: datetime | None


def resend(config: Settings, outbox_id: int, now: datetime) -> Resent:
    """Make one email due again, as the same message (its Message-ID unchanged, so a mail
    client that has it shows it once); the caller queues it after the commit. A failed email
    gets a fresh series of attempts; a sent one goes again (the player says it never came),
    while its text is kept; a pending one is only made due now."""
    row = db.session.get(OutboxMessage, outbox_id, with_for_update=True)
    if row is None:
        raise AdminError(f"there is no email {outbox_id} in the outbox")
    was = row.status
    if was == SENT and not row.html and not row.text:
        raise AdminError(
            f"email {outbox_id} was delivered on {row.sent_at:%Y-%m-%d} and its text is gone "
            f"(kept {config.mail.keep_days} days after delivery, PBEM_MAIL_KEEP_DAYS): it "
            "cannot be sent again"
        )
    drawn = row.picture is not None and config.mail.pictures
    waits = timedelta(seconds=config.mail.picture_timeout_seconds if drawn else 0)
    db.session.execute(
        update(OutboxMessage)
        .where(OutboxMessage.id == outbox_id)
        .values(
            status=PENDING,
            # From 0: the attempts allowed start again, and a row that carries a board picture
            # waits for it to be drawn again (the picture went when the email first went).
            attempts=0,
            next_attempt_at=now + waits,
        )
    )
    bounced = db.session.execute(
        select(func.max(Player.bounced_at)).where(Player.email == row.to)
    ).scalar_one_or_none()
    return Resent(outbox_id, row.to, was, bounced)
