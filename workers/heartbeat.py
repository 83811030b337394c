"""Each worker's heartbeat (`pbem.ops.heartbeats`): a bootstep of the worker's main process that
writes its row at start and every 30 seconds, on the worker's own timer. It beats from the main
process, not a pool process, so a worker busy on a long task still says it is alive; a worker
whose main process hangs or dies stops beating, and `/readyz` says so after two minutes.

It is a step of the consumer, not of the worker: when the broker's connection drops, Celery
clears the worker's timer and starts the consumer's steps again once it is back, so a worker
step's repeating entry would be gone for good (celery/celery#5833) and a live worker would look
dead from then on."""

from __future__ import annotations

import logging
from typing import Any

from celery import bootsteps
from flask import Flask
from sqlalchemy.exc import SQLAlchemyError

from pbem.extensions import db
from pbem.models import utcnow
from pbem.ops import heartbeats

log = logging.getLogger(__name__)


def heartbeat_step(flask_app: Flask) -> type[bootsteps.StartStopStep]:
    """The bootstep class for a worker of this app (`celery.steps["consumer"].add(...)`)."""

    class Heartbeat(bootsteps.StartStopStep):  # type: ignore[misc]
        # A consumer step: started again after every reconnection to the broker.
        requires = ("celery.worker.consumer.connection:Connection",)

        def __init__(self, worker: Any, **kwargs: Any) -> None:
            super().__init__(worker, **kwargs)
            self.timer_entry: Any = None
            self.started_at = utcnow()
            self.queues: list[str] = []

        def start(self, worker: Any) -> None:
            if not self.queues:
                # Read once, before any task runs: a task this process runs may route a message
                # to another queue, which Celery then declares here without consuming it.
                self.queues = consumed_queues(worker)
                # What Celery's banner says, as a log line (the Procfile runs Celery --quiet).
                log.info(
                    "worker %s: queues %s, concurrency %s",
                    worker.hostname,
                    ", ".join(self.queues),
                    worker.controller.concurrency,
                )
            self.stop(worker)
            self.beat(worker)
            self.timer_entry = worker.timer.call_repeatedly(
                heartbeats.INTERVAL_SECONDS, self.beat, (worker,), priority=10
            )

        def stop(self, worker: Any) -> None:
            if self.timer_entry is not None:
                self.timer_entry.cancel()
                self.timer_entry = None

        shutdown = stop

        def beat(self, worker: Any) -> None:
            try:
                with flask_app.app_context(), db.engine.begin() as connection:
                    heartbeats.record(
                        connection,
                        worker.hostname,
                        self.queues,
                        self.started_at,
                        utcnow(),
                    )
            except SQLAlchemyError as exc:
                # /readyz says what is wrong with the database; one line here is enough.
                problem = " ".join(str(exc).split())[:200]
                log.warning("heartbeat of %s not written: %s", worker.hostname, problem)

    return Heartbeat


def consumed_queues(worker: Any) -> list[str]:
    """The queues this worker takes tasks from: `-Q`'s, or every queue Celery declares."""
    queues = worker.app.amqp.queues
    return sorted(queues.consume_from or queues)
