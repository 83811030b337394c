"""/readyz on the real stack: each Celery worker of the Procfile writes its heartbeat at start,
so the service is ready once a worker takes every queue and beat has run the clock; a worker
gone quiet, or Redis down, turns it red, saying which."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from pbem.queues import BOTS_QUEUE, PICTURES_QUEUE, QUEUES
from tests.support.procs import wait_until
from tests.support.stack import Stack

pytestmark = [pytest.mark.integration, pytest.mark.audit, pytest.mark.timeout(300)]


def _ready(stack: Stack) -> tuple[int, dict[str, Any]]:
    response = stack.http.get("/readyz")
    return response.status, response.json()


@pytest.fixture
def every_worker(stack: Stack) -> Iterator[Stack]:
    """The stack with the Procfile's picture and bot workers too, for this test only."""
    before = stack.queues
    for queue in (PICTURES_QUEUE, BOTS_QUEUE):
        stack.use_queue(queue)
    yield stack
    stack.queues = before
    for queue in (PICTURES_QUEUE, BOTS_QUEUE):
        if queue not in before and queue in stack.queue_workers:
            stack.queue_workers.pop(queue).stop(timeout=10)


def test_ready_with_every_worker_and_red_when_one_is_quiet_or_redis_is_down(
    every_worker: Stack,
) -> None:
    stack = every_worker
    wait_until(lambda: _ready(stack)[0] == 200, timeout=30, message=lambda: str(_ready(stack)))
    status, body = _ready(stack)
    workers = stack.db.query("select worker, queues from worker_heartbeats order by worker")
    consumed = {queue for _, queues in workers for queue in queues.split(",")}
    assert consumed >= set(QUEUES), workers
    assert body["checks"][f"worker:{PICTURES_QUEUE}"]["detail"].startswith("pictures@pbem-test ")

    # The picture worker stops; two minutes later nobody takes pictures.
    stack.queue_workers[PICTURES_QUEUE].stop(timeout=10)
    with stack.db.connect() as connection:
        connection.execute(
            "update worker_heartbeats set beat_at = beat_at - interval '3 minutes' "
            "where worker = 'pictures@pbem-test'"
        )
    status, body = _ready(stack)
    assert status == 503
    assert body["problems"] == [
        f"worker:{PICTURES_QUEUE}: no worker of the queue 'pictures' has reported for 3 min "
        "(the last was pictures@pbem-test): is it running?"
    ]
    # Started again, it says so at once.
    stack.start_queue_worker(PICTURES_QUEUE)
    wait_until(lambda: _ready(stack)[0] == 200, timeout=10, message=lambda: str(_ready(stack)))

    stack.redis.stop()
    status, body = _ready(stack)
    assert status == 503
    assert not body["checks"]["redis"]["ok"]
    assert "REDIS_URL" in body["checks"]["redis"]["detail"]
