"""With REDIS_URL set the rate limit counters live in Redis: every web process shares them, and
the store holds no email address."""

from __future__ import annotations

import os
import secrets
from collections.abc import Iterator
from pathlib import Path

import pytest
import redis
from flask import Flask

from pbem.web import ratelimits
from pbem.web.ratelimits import RateLimited
from tests.conftest import make_app
from tests.support.needs import missing

REDIS_URL = os.environ.get("PBEM_TEST_REDIS_URL", "redis://127.0.0.1:6379/0")


@pytest.fixture
def store() -> Iterator[redis.Redis]:
    client = redis.Redis.from_url(REDIS_URL, socket_connect_timeout=2)
    try:
        client.ping()
    except redis.RedisError as exc:
        missing(f"Redis does not answer at PBEM_TEST_REDIS_URL={REDIS_URL}: {exc}")
    yield client
    client.close()


def web_process(tmp_path: Path, name: str) -> Flask:
    """An app as one gunicorn process would build it."""
    return make_app(
        tmp_path / name,
        REDIS_URL=REDIS_URL,
        PBEM_RATE_LIMITS="on",
        PBEM_LIMIT_GAMES_PER_ORGANISER="3 per hour",
    )


def test_the_counters_live_in_redis_and_are_shared(tmp_path: Path, store: redis.Redis) -> None:
    # Unique per run, so that runs sharing the server do not count each other.
    organiser = f"organiser-{secrets.token_hex(6)}@example.org"
    client_address = (
        f"10.{secrets.randbelow(250)}.{secrets.randbelow(250)}.{secrets.randbelow(250)}"
    )
    first, second = web_process(tmp_path, "one"), web_process(tmp_path, "two")

    def start_one(app: Flask) -> None:
        with app.test_request_context(environ_base={"REMOTE_ADDR": client_address}):
            ratelimits.check_game_creation(organiser)

    start_one(first)
    start_one(second)
    start_one(first)
    with pytest.raises(RateLimited) as refused:
        start_one(second)
    assert organiser in refused.value.message and refused.value.retry_after > 3500

    organiser_key = ratelimits.address_key(organiser)
    keys = [key.decode() for key in store.keys(f"{ratelimits.REDIS_KEY_PREFIX}:*")]
    mine = [key for key in keys if organiser_key in key or f"/{client_address}/" in key]
    try:
        assert len(mine) == 3  # the organiser per hour, the client per hour and per day
        assert all(key.startswith("pbem-limits:") for key in mine)
        # A moving window: one entry per game counted, expiring with the window.
        (hour,) = [key for key in mine if organiser_key in key and key.endswith("/hour")]
        assert store.llen(hour) == 3 and 0 < store.ttl(hour) <= 3600
        assert not any("example.org" in key for key in keys)
    finally:
        # Only this test's keys: other test processes may share the server.
        store.delete(*mine)
