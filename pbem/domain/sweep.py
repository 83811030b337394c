"""The sweep: work the queue lost or has not picked up for a while."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta

from sqlalchemy import and_, delete, func, or_, select, update

from pbem.config import Settings
from pbem.domain import bot_turns
from pbem.extensions import db
from pbem.models import PENDING, SENT, Game, GameEvent, OutboxMessage, Seat, Submission, utcnow


@dataclass(frozen=True)
class Sweep:
    submission_ids: list[int]
    outbox_ids: list[int]
    bot_games: list[str] = field(default_factory=list)  # a bot's turn nobody has played


def sweep(config: Settings, now: datetime | None = None, limit: int = 1000) -> Sweep:
    """Pending submissions and due emails older than PBEM_SWEEP_SECONDS, emails whose wait for
    their board picture is over, and bots' turns that have waited long for their bot
    (`bot_turns.stalled`), for the caller to enqueue again.

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
        .where(
            OutboxMessage.status == PENDING,
            OutboxMessage.next_attempt_at <= now,
            or_(
                OutboxMessage.next_attempt_at <= cutoff,
                # A row that waited for its board picture is due the moment its wait is over:
                # the send queued for that instant may have been lost with the queue, and
                # waiting PBEM_SWEEP_SECONDS more would delay it for nothing.
                and_(OutboxMessage.picture.is_not(None), OutboxMessage.attempts == 0),
            ),
        )
        .order_by(OutboxMessage.id)
        .limit(limit)
    ).scalars()
    found = (list(submissions), list(emails))
    result = Sweep(*found, bot_turns.stalled(config, now, limit))
    db.session.rollback()
    return result


# A game its organiser never confirmed is deleted after this long, with its emails.
UNCONFIRMED_DAYS = 7


def expire_unconfirmed(now: datetime | None = None) -> int:
    """Delete games started from the web form that nobody confirmed within UNCONFIRMED_DAYS;
    the number deleted. Such a game has no moves: only its seats and its one email."""
    cutoff = (now or utcnow()) - timedelta(days=UNCONFIRMED_DAYS)
    stale = select(Game.id).where(Game.confirmed_at.is_(None), Game.created_at <= cutoff)
    game_ids = list(db.session.execute(stale.limit(1000)).scalars())
    if game_ids:
        db.session.execute(delete(OutboxMessage).where(OutboxMessage.game_id.in_(game_ids)))
        db.session.execute(delete(GameEvent).where(GameEvent.game_id.in_(game_ids)))
        db.session.execute(delete(Seat).where(Seat.game_id.in_(game_ids)))
        db.session.execute(delete(Game).where(Game.id.in_(game_ids)))
    db.session.commit()
    return len(game_ids)


def prune_bodies(config: Settings, now: datetime | None = None, limit: int = 1000) -> int:
    """Empty the text and HTML of up to `limit` emails delivered more than PBEM_MAIL_KEEP_DAYS
    ago; how many. The row stays (address, subject, Message-ID, thread, picture key, status):
    what bounces, threading and the operator read. Nothing reads a delivered body again: the
    game's history and record are its moves and events, and a new email is written anew."""
    cutoff = (now or utcnow()) - timedelta(days=config.mail.keep_days)
    due = (
        select(OutboxMessage.id)
        # As the partial index ix_outbox_sent_with_body says it, so that the index serves.
        .where(OutboxMessage.status == SENT, func.length(OutboxMessage.html) > 0)
        .where(OutboxMessage.sent_at < cutoff)
        .order_by(OutboxMessage.sent_at)
        .limit(limit)
    )
    ids = list(db.session.execute(due).scalars())
    if ids:
        db.session.execute(
            update(OutboxMessage).where(OutboxMessage.id.in_(ids)).values(text="", html="")
        )
    db.session.commit()
    return len(ids)
