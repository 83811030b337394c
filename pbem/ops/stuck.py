"""What is stuck (`pbem admin games stuck`): moves stored and not applied for a while, turns
past their deadline that the clock task has not ended, bots' turns nobody played, and emails
overdue. Each is work the sweep or the clock should have done: its age says how long the worker,
beat or the queue has been failing."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy import select

from pbem.config import Settings
from pbem.domain import bot_turns
from pbem.extensions import db
from pbem.models import PENDING, RUNNING, Game, OutboxMessage, Submission


@dataclass(frozen=True)
class StuckItem:
    kind: str  # submission, deadline, bot, email
    game_id: str | None
    ref: str  # the row: "submission 12", "outbox 40", the game's ply
    since: datetime  # when it should have been done
    what: str


def stuck(
    config: Settings, now: datetime, older_than: timedelta, limit: int = 200
) -> list[StuckItem]:
    """Everything overdue by more than `older_than`, oldest first within each kind."""
    cutoff = now - older_than
    items: list[StuckItem] = []
    for sub in db.session.execute(
        select(Submission.id, Submission.game_id, Submission.ply, Submission.created_at)
        .where(Submission.status == PENDING, Submission.created_at < cutoff)
        .order_by(Submission.created_at)
        .limit(limit)
    ):
        items.append(
            StuckItem(
                "submission",
                sub.game_id,
                f"submission {sub.id}",
                sub.created_at,
                f"a move for ply {sub.ply} stored and not applied: is the worker running?",
            )
        )
    # The clock task ends a turn past its deadline within one period; past two, it lags.
    lag = max(older_than, timedelta(seconds=2 * config.clocks.period_seconds))
    for game in db.session.execute(
        select(Game.id, Game.ply, Game.deadline)
        .where(
            Game.status == RUNNING,
            Game.deadline.is_not(None),
            Game.paused_at.is_(None),
            Game.deadline < now - lag,
        )
        .order_by(Game.deadline)
        .limit(limit)
    ):
        items.append(
            StuckItem(
                "deadline",
                game.id,
                f"ply {game.ply}",
                game.deadline,
                "a turn past its deadline and not ended: is beat running the clock task?",
            )
        )
    stalled = bot_turns.stalled(config, now, limit)
    for game in db.session.execute(
        select(Game.id, Game.ply, Game.turn_started_at).where(Game.id.in_(stalled))
    ):
        items.append(
            StuckItem(
                "bot",
                game.id,
                f"ply {game.ply}",
                game.turn_started_at,
                "a bot's turn nobody played: is the bot worker running?",
            )
        )
    for email in db.session.execute(
        select(OutboxMessage.id, OutboxMessage.game_id, OutboxMessage.kind)
        .add_columns(OutboxMessage.next_attempt_at, OutboxMessage.attempts)
        .where(OutboxMessage.status == PENDING, OutboxMessage.next_attempt_at < cutoff)
        .order_by(OutboxMessage.next_attempt_at)
        .limit(limit)
    ):
        tries = f"{email.attempts} tries so far" if email.attempts else "never tried"
        items.append(
            StuckItem(
                "email",
                email.game_id,
                f"outbox {email.id}",
                email.next_attempt_at,
                f"a {email.kind} email due and not sent ({tries}): is the worker running, and "
                "does the mail server answer?",
            )
        )
    return items
