"""The gauges `/metrics` reads from the database and Redis when it is scraped: the state of the
service rather than what one process did. Each scrape costs a handful of indexed counts."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime

from prometheus_client.core import GaugeMetricFamily
from prometheus_client.registry import Collector
from sqlalchemy import func, select
from sqlalchemy.engine import Connection, Engine
from sqlalchemy.exc import SQLAlchemyError

from pbem.config import Settings
from pbem.models import PENDING, RUNNING, ClockRun, Game, OutboxMessage, Picture, Submission
from pbem.ops import heartbeats
from pbem.queues import QUEUES

# kombu's Redis transport keeps a queue's messages in a list named after it, and those of higher
# priorities in lists with these suffixes (its default priority steps 3, 6 and 9).
_PRIORITY_SUFFIXES = ("", "\x06\x163", "\x06\x166", "\x06\x169")


class ServiceGauges(Collector):
    """The database's and Redis's figures, as of `now` (naive UTC)."""

    def __init__(self, config: Settings, engine: Engine, now: datetime) -> None:
        self.config = config
        self.engine = engine
        self.now = now

    def collect(self) -> Iterator[GaugeMetricFamily]:
        up = GaugeMetricFamily("pbem_database_up", "1 when the database answered this scrape")
        try:
            with self.engine.connect() as connection:
                families = list(self._from_database(connection))
        except SQLAlchemyError:
            families = []
        up.add_metric([], 1.0 if families else 0.0)
        yield up
        yield from families
        if self.config.redis_url is not None:
            yield from self._from_redis(self.config.redis_url)

    def _from_database(self, connection: Connection) -> Iterator[GaugeMetricFamily]:
        games = GaugeMetricFamily(
            "pbem_games", "Games by engine and state", labels=["engine", "state"]
        )
        for engine, status, count in connection.execute(
            select(Game.engine, Game.status, func.count()).group_by(Game.engine, Game.status)
        ):
            games.add_metric([engine, status], count)
        yield games
        pending, first = connection.execute(
            select(func.count(), func.min(Submission.created_at)).where(
                Submission.status == PENDING
            )
        ).one()
        yield _gauge("pbem_submissions_pending", "Moves stored and not applied yet", pending)
        yield _gauge(
            "pbem_oldest_pending_submission_seconds",
            "Age of the oldest move stored and not applied (0 when none waits)",
            self._age(first),
        )
        unsent, oldest = connection.execute(
            select(func.count(), func.min(OutboxMessage.created_at)).where(
                OutboxMessage.status == PENDING
            )
        ).one()
        yield _gauge("pbem_emails_unsent", "Emails in the outbox not sent yet", unsent)
        yield _gauge(
            "pbem_oldest_unsent_email_seconds",
            "Age of the oldest email not sent yet (0 when none waits)",
            self._age(oldest),
        )
        yield _gauge(
            "pbem_pictures_stored",
            "Board pictures kept for emails still to send",
            connection.execute(select(func.count()).select_from(Picture)).scalar_one(),
        )
        last_run = connection.execute(select(func.max(ClockRun.last_run_at))).scalar_one()
        yield _gauge(
            "pbem_clock_last_run_seconds",
            "Since the clock task last ran (-1: never)",
            -1.0 if last_run is None else self._age(last_run),
        )
        overdue = connection.execute(
            select(func.min(Game.deadline)).where(
                Game.status == RUNNING, Game.deadline.is_not(None), Game.paused_at.is_(None)
            )
        ).scalar_one()
        yield _gauge(
            "pbem_clock_lag_seconds",
            "How long the earliest deadline of a running game has been past without its turn "
            "ending (0 when none is past): the clock task's lag",
            self._age(overdue),
        )
        ages = GaugeMetricFamily(
            "pbem_worker_heartbeat_seconds",
            "Since a worker of the queue last wrote its heartbeat",
            labels=["queue"],
        )
        for queue, (_worker, beat_at) in sorted(heartbeats.latest_by_queue(connection).items()):
            ages.add_metric([queue], self._age(beat_at))
        yield ages

    def _from_redis(self, url: str) -> Iterator[GaugeMetricFamily]:
        import redis

        depth = GaugeMetricFamily(
            "pbem_queue_depth", "Messages waiting in the queue", labels=["queue"]
        )
        up = GaugeMetricFamily("pbem_redis_up", "1 when Redis answered this scrape")
        client = redis.Redis.from_url(url, socket_connect_timeout=2, socket_timeout=2)
        try:
            with client.pipeline(transaction=False) as pipe:
                for queue in QUEUES:
                    for suffix in _PRIORITY_SUFFIXES:
                        pipe.llen(queue + suffix)
                lengths = pipe.execute()
        except redis.RedisError:
            up.add_metric([], 0.0)
            yield up
            return
        finally:
            client.close()
        up.add_metric([], 1.0)
        yield up
        per_queue = len(_PRIORITY_SUFFIXES)
        for index, queue in enumerate(QUEUES):
            depth.add_metric([queue], sum(lengths[index * per_queue : (index + 1) * per_queue]))
        yield depth

    def _age(self, then: datetime | None) -> float:
        return 0.0 if then is None else max(0.0, (self.now - then).total_seconds())


def _gauge(name: str, documentation: str, value: float) -> GaugeMetricFamily:
    return GaugeMetricFamily(name, documentation, value=float(value))
