"""Is the service ready to play? What `/readyz` answers: the database reachable and at the
migrations' head, Redis reachable when configured, a live worker on every queue, the clock task
run lately. Each check says what is wrong and what to do about it."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from functools import lru_cache

from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import func, select
from sqlalchemy.engine import Connection, Engine
from sqlalchemy.exc import SQLAlchemyError

from pbem.config import Settings
from pbem.models import ClockRun
from pbem.ops import heartbeats
from pbem.queues import QUEUES
from pbem.resources import migrations_dir

# Redis must answer a ping within this many seconds.
REDIS_TIMEOUT_SECONDS = 2.0


@dataclass(frozen=True)
class Check:
    name: str
    ok: bool
    detail: str


def readiness(config: Settings, engine: Engine, now: datetime) -> list[Check]:
    """Every check, in the order an operator would look (naive UTC `now`)."""
    checks: list[Check] = []
    try:
        with engine.connect() as connection:
            checks.append(_migrations(connection))
            checks += _workers(config, connection, now)
            checks.append(_clock(config, connection, now))
    except SQLAlchemyError as exc:
        unknown = "unknown while the database cannot be read"
        checks = [
            Check(
                "database",
                False,
                f"cannot reach the database ({type(exc).__name__}): is it running, and does "
                "DATABASE_URL name it?",
            ),
            *(Check(name, False, unknown) for name in ("workers", "clock")),
        ]
    checks.insert(1, _redis(config))
    return checks


def current_heads(connection: Connection) -> frozenset[str]:
    """The revisions the database is at."""
    return frozenset(MigrationContext.configure(connection).get_current_heads())


def _migrations(connection: Connection) -> Check:
    current = current_heads(connection)
    head = migration_heads()
    if current == head:
        return Check("database", True, f"reachable, at migration {', '.join(sorted(head))}")
    at = ", ".join(sorted(current)) or "no migration"
    return Check(
        "database",
        False,
        f"reachable, but at {at} while this code needs {', '.join(sorted(head))}: run "
        "`pbem db upgrade`",
    )


@lru_cache(maxsize=1)
def migration_heads() -> frozenset[str]:
    """The revisions this code's migrations end at (read once per process)."""
    return frozenset(ScriptDirectory(str(migrations_dir())).get_heads())


def _redis(config: Settings) -> Check:
    if config.redis_url is None:
        return Check("redis", True, "not configured: tasks run in the web process")
    import redis

    client = redis.Redis.from_url(
        config.redis_url,
        socket_connect_timeout=REDIS_TIMEOUT_SECONDS,
        socket_timeout=REDIS_TIMEOUT_SECONDS,
    )
    try:
        client.ping()
    except redis.RedisError as exc:
        return Check(
            "redis",
            False,
            f"does not answer ({type(exc).__name__}): is it running, and does REDIS_URL name it?",
        )
    finally:
        client.close()
    return Check("redis", True, "answers")


def _workers(config: Settings, connection: Connection, now: datetime) -> list[Check]:
    if config.embedded_tasks:
        return [Check("workers", True, "none needed: tasks run in the web process")]
    latest = heartbeats.latest_by_queue(connection)
    checks = []
    for queue in QUEUES:
        name = f"worker:{queue}"
        if queue not in latest:
            checks.append(
                Check(name, False, f"no worker has ever consumed the queue {queue!r}: start one")
            )
            continue
        worker, beat_at = latest[queue]
        age = now - beat_at
        if age > heartbeats.STALE_AFTER:
            checks.append(
                Check(
                    name,
                    False,
                    f"no worker of the queue {queue!r} has reported for {_span(age)} (the last "
                    f"was {worker}): is it running?",
                )
            )
        else:
            checks.append(Check(name, True, f"{worker} reported {_span(age)} ago"))
    return checks


def _clock(config: Settings, connection: Connection, now: datetime) -> Check:
    period = config.clocks.period_seconds
    last = connection.execute(select(func.max(ClockRun.last_run_at))).scalar_one_or_none()
    runner = "the web process" if config.embedded_tasks else "beat"
    if last is None:
        return Check("clock", False, f"the clock task has never run: is {runner} running?")
    age = now - last
    if age > timedelta(seconds=2 * period):
        return Check(
            "clock",
            False,
            f"the clock task last ran {_span(age)} ago, and runs every {period} s: is {runner} "
            "running?",
        )
    return Check("clock", True, f"ran {_span(age)} ago")


def _span(age: timedelta) -> str:
    seconds = max(0, int(age.total_seconds()))
    if seconds < 120:
        return f"{seconds} s"
    if seconds < 7200:
        return f"{seconds // 60} min"
    return f"{seconds // 3600} h"
