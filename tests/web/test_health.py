"""/healthz and /readyz: what a monitor reads, each problem said with what to do."""

from __future__ import annotations

import os
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
import redis
from flask import Flask
from flask.testing import FlaskClient
from flask_migrate import upgrade
from sqlalchemy import text

from pbem.extensions import db
from pbem.models import ClockRun, utcnow
from pbem.ops import heartbeats
from pbem.queues import QUEUES
from tests.conftest import make_app
from tests.support.needs import missing

REDIS_URL = os.environ.get("PBEM_TEST_REDIS_URL", "redis://127.0.0.1:6379/0")
# Nothing listens on port 1.
DEAD_REDIS = "redis://127.0.0.1:1/0"


def _migrated(tmp_path: Path, **overrides: object) -> Iterator[Flask]:
    app = make_app(tmp_path, **overrides)
    with app.app_context():
        upgrade()
        yield app
        db.session.remove()
        db.engine.dispose()


@pytest.fixture
def embedded(tmp_path: Path) -> Iterator[Flask]:
    yield from _migrated(tmp_path)


def _ran_clock(ago: timedelta = timedelta(seconds=5)) -> None:
    db.session.add(ClockRun(id=1, last_run_at=utcnow() - ago))
    db.session.commit()


def _beat(worker: str, queues: tuple[str, ...], ago: timedelta) -> None:
    with db.engine.begin() as connection:
        now = utcnow()
        heartbeats.record(connection, worker, queues, now - timedelta(hours=1), now - ago)


def _ready(client: FlaskClient) -> tuple[int, dict[str, Any]]:
    response = client.get("/readyz")
    assert response.headers["Cache-Control"] == "no-store"
    assert ("Retry-After" in response.headers) == (response.status_code == 503)
    return response.status_code, response.get_json()


def test_healthz_answers_without_touching_the_database(tmp_path: Path) -> None:
    app = make_app(tmp_path, DATABASE_URL="postgresql+psycopg://nobody@127.0.0.1:1/none")
    response = app.test_client().get("/healthz")
    assert response.status_code == 200
    assert response.get_json() == {"status": "ok"}
    assert response.headers["Cache-Control"] == "no-store"


def test_embedded_service_is_ready_once_its_clock_has_run(embedded: Flask) -> None:
    client = embedded.test_client()
    status, body = _ready(client)
    assert status == 503
    assert body["status"] == "not ready"
    assert body["problems"] == ["clock: the clock task has never run: is the web process running?"]
    assert body["checks"]["database"]["ok"]
    assert body["checks"]["redis"] == {
        "ok": True,
        "detail": "not configured: tasks run in the web process",
    }
    _ran_clock()
    status, body = _ready(client)
    assert status == 200, body
    assert body["status"] == "ready" and body["problems"] == []
    assert set(body["checks"]) == {"database", "redis", "workers", "clock"}


def test_a_clock_that_stopped_is_reported(embedded: Flask) -> None:
    _ran_clock(ago=timedelta(seconds=121))  # two periods of 60 s and a second
    status, body = _ready(embedded.test_client())
    assert status == 503
    assert body["problems"] == [
        "clock: the clock task last ran 2 min ago, and runs every 60 s: is the web process running?"
    ]


def test_a_database_behind_the_code_says_to_upgrade(embedded: Flask) -> None:
    _ran_clock()
    with db.engine.begin() as connection:
        connection.execute(
            text("UPDATE alembic_version SET version_num = '0012_outbox_bodies_compressed'")
        )
    status, body = _ready(embedded.test_client())
    assert status == 503
    (problem,) = body["problems"]
    assert problem.startswith("database: reachable, but at 0012_outbox_bodies_compressed while")
    assert problem.endswith("run `pbem db upgrade`")


def test_an_unreachable_database_is_said_and_the_rest_unknown(tmp_path: Path) -> None:
    app = make_app(tmp_path, DATABASE_URL="postgresql+psycopg://nobody@127.0.0.1:1/none")
    status, body = _ready(app.test_client())
    assert status == 503
    assert body["checks"]["database"]["detail"].startswith("cannot reach the database (")
    assert "DATABASE_URL" in body["checks"]["database"]["detail"]
    # Nothing of the URL is shown: a stranger may read /readyz.
    assert "nobody" not in str(body) and "127.0.0.1" not in str(body)
    assert not body["checks"]["workers"]["ok"] and not body["checks"]["clock"]["ok"]


def test_with_redis_every_queue_needs_a_live_worker(tmp_path: Path) -> None:
    try:
        redis.Redis.from_url(REDIS_URL, socket_connect_timeout=2).ping()
    except redis.RedisError as exc:
        missing(f"Redis does not answer at PBEM_TEST_REDIS_URL={REDIS_URL}: {exc}")
    for app in _migrated(tmp_path, REDIS_URL=REDIS_URL):
        client = app.test_client()
        _ran_clock()
        status, body = _ready(client)
        assert status == 503
        assert body["checks"]["redis"] == {"ok": True, "detail": "answers"}
        assert body["problems"] == [
            f"worker:{queue}: no worker has ever consumed the queue {queue!r}: start one"
            for queue in QUEUES
        ]
        _beat("celery@web1", ("celery",), timedelta(seconds=10))
        _beat("picture@web1", ("pictures",), timedelta(minutes=3))
        _beat("bot@web1", ("bots", "celery"), timedelta(seconds=40))
        status, body = _ready(client)
        assert body["problems"] == [
            "worker:pictures: no worker of the queue 'pictures' has reported for 3 min (the "
            "last was picture@web1): is it running?"
        ]
        assert body["checks"]["worker:celery"]["detail"] == "celery@web1 reported 10 s ago"
        _beat("picture@web2", ("pictures",), timedelta(seconds=1))
        status, body = _ready(client)
        assert status == 200, body


def test_a_redis_that_does_not_answer_is_said(tmp_path: Path) -> None:
    for app in _migrated(tmp_path, REDIS_URL=DEAD_REDIS):
        _ran_clock()
        status, body = _ready(app.test_client())
        assert status == 503
        assert body["checks"]["redis"]["detail"] == (
            "does not answer (ConnectionError): is it running, and does REDIS_URL name it?"
        )


def test_a_heartbeat_rewrites_its_row_and_forgets_workers_long_gone(embedded: Flask) -> None:
    _beat("old@gone", ("celery",), timedelta(days=2))
    _beat("celery@web1", ("celery",), timedelta(seconds=40))
    _beat("celery@web1", ("celery",), timedelta(seconds=5))
    with db.engine.connect() as connection:
        rows = connection.execute(text("SELECT worker FROM worker_heartbeats")).all()
        latest = heartbeats.latest_by_queue(connection)
    assert [row.worker for row in rows] == ["celery@web1"]
    worker, beat_at = latest["celery"]
    assert worker == "celery@web1"
    assert utcnow() - beat_at < timedelta(seconds=30)


def test_robots_keep_out_of_the_operators_paths(client: FlaskClient) -> None:
    robots = client.get("/robots.txt").get_data(as_text=True)
    for path in ("/healthz", "/readyz", "/metrics"):
        assert f"Disallow: {path}\n" in robots
