"""Pooled PostgreSQL connections are pinged only after being idle, and replaced when dead."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import psycopg
import pytest
from sqlalchemy import create_engine, text
from sqlalchemy.engine import Engine

from pbem.pool import ping_when_idle
from tests.conftest import make_app
from tests.support.needs import missing
from tests.support.pg import admin_url, libpq_url, server_available


@pytest.fixture
def engine() -> Iterator[Engine]:
    if (why := server_available()) is not None:
        missing(f"PostgreSQL unavailable: {why}")
    engine = create_engine(admin_url(), pool_size=1, max_overflow=0)
    yield engine
    engine.dispose()


def _backend_pid(engine: Engine) -> int:
    with engine.connect() as conn:
        return int(conn.execute(text("select pg_backend_pid()")).scalar_one())


def _count_pings(engine: Engine, monkeypatch: pytest.MonkeyPatch) -> list[int]:
    pings: list[int] = []
    ping = engine.dialect.do_ping

    def counted(dbapi_connection: Any) -> bool:
        pings.append(1)
        return ping(dbapi_connection)

    monkeypatch.setattr(engine.dialect, "do_ping", counted)
    return pings


def test_a_connection_killed_while_idle_is_replaced_without_an_error(engine: Engine) -> None:
    ping_when_idle(engine, after_seconds=0.05)
    first = _backend_pid(engine)
    with psycopg.connect(libpq_url(admin_url()), autocommit=True) as admin:
        admin.execute("select pg_terminate_backend(%s)", (first,))
    time.sleep(0.1)

    assert _backend_pid(engine) != first


def test_a_connection_back_from_use_moments_ago_is_not_pinged(
    engine: Engine, monkeypatch: pytest.MonkeyPatch
) -> None:
    pings = _count_pings(engine, monkeypatch)
    ping_when_idle(engine, after_seconds=60)
    pids = {_backend_pid(engine) for _ in range(5)}

    assert pings == []
    assert len(pids) == 1  # one connection, reused


def test_a_connection_idle_past_the_threshold_is_pinged_once(
    engine: Engine, monkeypatch: pytest.MonkeyPatch
) -> None:
    pings = _count_pings(engine, monkeypatch)
    ping_when_idle(engine, after_seconds=0.05)
    first = _backend_pid(engine)
    time.sleep(0.1)

    assert _backend_pid(engine) == first  # alive: kept
    assert pings == [1]


def test_the_service_pings_idle_postgresql_connections_not_every_checkout(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    if (why := server_available()) is not None:
        missing(f"PostgreSQL unavailable: {why}")
    import pbem.pool
    from pbem.extensions import db

    monkeypatch.setattr(pbem.pool, "PING_AFTER_IDLE_SECONDS", 0.05)
    app = make_app(tmp_path, DATABASE_URL=admin_url())
    assert "pool_pre_ping" not in app.config["SQLALCHEMY_ENGINE_OPTIONS"]
    with app.app_context():
        first = _backend_pid(db.engine)
        with psycopg.connect(libpq_url(admin_url()), autocommit=True) as admin:
            admin.execute("select pg_terminate_backend(%s)", (first,))
        time.sleep(0.1)
        assert _backend_pid(db.engine) != first
        db.engine.dispose()
