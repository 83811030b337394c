"""The service in figures (`pbem admin stats`, and the gauges `/metrics` reads from the
database): games by engine and state, players, moves, mail by status, what waits."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta

from sqlalchemy import func, select

from pbem.extensions import db
from pbem.models import (
    PENDING,
    SENT,
    ClockRun,
    Game,
    Move,
    OutboxMessage,
    Picture,
    Player,
    Submission,
)


@dataclass
class Stats:
    games: dict[str, dict[str, int]] = field(default_factory=dict)  # engine -> status -> count
    players: dict[str, int] = field(default_factory=dict)
    moves: dict[str, int] = field(default_factory=dict)
    emails: dict[str, int] = field(default_factory=dict)  # by status, and without_picture
    submissions_pending: int = 0
    pictures_stored: int = 0
    oldest_unsent_seconds: float | None = None  # the oldest pending email, since it was written
    clock_last_run_seconds: float | None = None  # since the clock task last ran


def stats(now: datetime) -> Stats:
    result = Stats()
    for engine, status, count in db.session.execute(
        select(Game.engine, Game.status, func.count()).group_by(Game.engine, Game.status)
    ):
        result.games.setdefault(engine, {})[status] = count
    people = Player.bot.is_(None)
    result.players = {
        "people": _count(select(func.count()).where(people)),
        "bouncing": _count(select(func.count()).where(Player.bounced_at.is_not(None))),
        "blocked": _count(select(func.count()).where(Player.blocked_at.is_not(None))),
        "away": _count(select(func.count()).where(Player.vacation_since.is_not(None))),
    }
    day_ago = now - timedelta(days=1)
    result.moves = {
        "total": _count(select(func.count()).select_from(Move)),
        "last_24h": _count(
            select(func.count()).select_from(Move).where(Move.created_at >= day_ago)
        ),
    }
    for status, count in db.session.execute(
        select(OutboxMessage.status, func.count()).group_by(OutboxMessage.status)
    ):
        result.emails[status] = count
    result.emails["without_picture"] = _count(
        select(func.count()).where(OutboxMessage.status == SENT, OutboxMessage.without_picture),
    )
    result.submissions_pending = _count(select(func.count()).where(Submission.status == PENDING))
    result.pictures_stored = _count(select(func.count()).select_from(Picture))
    oldest = db.session.execute(
        select(func.min(OutboxMessage.created_at)).where(OutboxMessage.status == PENDING)
    ).scalar_one_or_none()
    result.oldest_unsent_seconds = _age(now, oldest)
    last_run = db.session.execute(select(func.max(ClockRun.last_run_at))).scalar_one_or_none()
    result.clock_last_run_seconds = _age(now, last_run)
    return result


def _count(query: object) -> int:
    return int(db.session.execute(query).scalar_one())  # type: ignore[call-overload]


def _age(now: datetime, then: datetime | None) -> float | None:
    return None if then is None else max(0.0, (now - then).total_seconds())
