"""Workers' heartbeats: each Celery worker's main process writes a row every `INTERVAL_SECONDS`
(`workers.heartbeat`), and `/readyz` reads the newest per queue (`pbem.ops.readiness`)."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime, timedelta

from sqlalchemy import Table, delete, select
from sqlalchemy.engine import Connection
from sqlalchemy.sql import Insert

from pbem.models import WorkerHeartbeat

INTERVAL_SECONDS = 30
# A queue none of whose workers has written for this long has nobody working on it.
STALE_AFTER = timedelta(minutes=2)
# A worker gone this long (renamed, scaled down, its host retired) is forgotten.
FORGET_AFTER = timedelta(days=1)

_TABLE: Table = WorkerHeartbeat.__table__  # type: ignore[assignment]
_REWRITTEN = ("queues", "started_at", "beat_at")


def record(
    connection: Connection, worker: str, queues: Iterable[str], started_at: datetime, now: datetime
) -> None:
    """Write this worker's heartbeat (one row per worker, rewritten), and forget workers long
    gone; commits nothing: the caller's connection does."""
    values = {
        "worker": worker[:255],
        "queues": ",".join(sorted(queues))[:255],
        "started_at": started_at,
        "beat_at": now,
    }
    connection.execute(_upsert(connection, values))
    connection.execute(delete(_TABLE).where(_TABLE.c.beat_at < now - FORGET_AFTER))


def _upsert(connection: Connection, values: dict[str, object]) -> Insert:
    if connection.dialect.name == "postgresql":
        from sqlalchemy.dialects.postgresql import insert as pg_insert

        pg = pg_insert(_TABLE).values(values)
        return pg.on_conflict_do_update(
            index_elements=["worker"], set_={name: pg.excluded[name] for name in _REWRITTEN}
        )
    from sqlalchemy.dialects.sqlite import insert as sqlite_insert

    lite = sqlite_insert(_TABLE).values(values)
    return lite.on_conflict_do_update(
        index_elements=["worker"], set_={name: lite.excluded[name] for name in _REWRITTEN}
    )


def latest_by_queue(connection: Connection) -> dict[str, tuple[str, datetime]]:
    """For each queue some worker consumes, the worker that wrote last and when."""
    latest: dict[str, tuple[str, datetime]] = {}
    for worker, queues, beat_at in connection.execute(
        select(_TABLE.c.worker, _TABLE.c.queues, _TABLE.c.beat_at)
    ):
        for queue in filter(None, queues.split(",")):
            if queue not in latest or beat_at > latest[queue][1]:
                latest[queue] = (worker, beat_at)
    return latest
