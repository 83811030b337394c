"""Shared fixtures for the fast service tests: SQLite in a temporary folder, tasks in-process,
mail saved as files. The real-infrastructure fixtures live in tests/integration/.

Every test but the integration and browser tests runs on a fixed calendar (`fixed_clock`): its
wall clock starts at `SUITE_NOW` and ticks on from there, so no test depends on the day it runs;
a test that needs another instant travels from there. The integration and browser tests run on
the real clock: Celery ETAs, Redis expiries and the browser's own clock cannot be moved.

Hypothesis runs without deadlines (speed is measured in bench/, and a loaded 2-core CI machine
must not turn a slow example into a failure), derandomised on CI so a red run can be
reproduced."""

from __future__ import annotations

import os
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest
import time_machine
from flask import Flask
from flask.testing import FlaskClient
from hypothesis import HealthCheck
from hypothesis import settings as hypothesis_settings

from pbem import games
from pbem.app import create_app
from pbem.config import SETTING_NAMES
from pbem.extensions import db
from tests.countdown import GAME as COUNTDOWN
from tests.support import faketime

faketime.install()

hypothesis_settings.register_profile(
    "pbem",
    deadline=None,
    derandomize=bool(os.environ.get("CI")),
    suppress_health_check=[HealthCheck.too_slow],
)
hypothesis_settings.load_profile("pbem")

# A Monday before tests/domain/clock_flow.T0 (Wednesday 2 December 2026, 12:00 UTC), so that a
# game created "now" and then moved through T0's days sees its clock run forward.
SUITE_NOW = datetime(2026, 11, 30, 9, 0, tzinfo=UTC)
REAL_CLOCK_MARKERS = ("integration", "browser")


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config: pytest.Config, log: object) -> object | None:
    """Under `-n N` (xdist's `--dist load`), the tests of the real stack go to one worker
    (tests/support/scheduling.py); any other `--dist` is left as asked."""
    if config.getvalue("dist") != "load":
        return None
    from tests.support.scheduling import StackScheduling

    return StackScheduling(config, log)


@pytest.fixture(autouse=True)
def fixed_clock(request: pytest.FixtureRequest) -> Iterator[None]:
    """One travel around the whole test, from its first fixture to its last assertion."""
    if any(request.node.get_closest_marker(name) for name in REAL_CLOCK_MARKERS):
        yield
        return
    with time_machine.travel(SUITE_NOW, tick=True):
        yield


@pytest.fixture
def countdown_engine() -> Iterator[None]:
    """Registers the tiny test engine `countdown` beside the real ones (for the `app` fixture and
    whoever asks; other suites see the real registry only)."""
    games.register("countdown", COUNTDOWN)
    yield
    games.unregister("countdown")


def make_app(tmp_path: Path, **overrides: object) -> Flask:
    settings: dict[str, object] = {
        "PBEM_ENV": "test",
        "DATABASE_URL": f"sqlite:///{tmp_path / 'pbem.db'}",
        "REDIS_URL": None,
        "SMTP_URL": None,
        "SECRET_KEY": "test-secret-key-0123456789",
        "BASE_URL": "http://pbem.test",
        "MAIL_FROM": "pbem <pbem@pbem.test>",
        "PBEM_VAR_DIR": str(tmp_path / "var"),
        "PBEM_OUTBOX_DIR": str(tmp_path / "outbox"),
        "PBEM_LINK_MAX_AGE_DAYS": None,
        "PBEM_SWEEP_SECONDS": None,
        "PBEM_MAIL_RETRY_SECONDS": None,
        "PBEM_MAIL_MAX_ATTEMPTS": None,
        # Tests about the limits turn them on; the others start as many games as they like.
        "PBEM_RATE_LIMITS": "off",
        "PBEM_LIMIT_GAMES_PER_CLIENT": None,
        "PBEM_LIMIT_GAMES_PER_ORGANISER": None,
        "PBEM_LIMIT_INVITATIONS_PER_RECIPIENT": None,
        "PBEM_LIMIT_SIGNIN_PER_ADDRESS": None,
        "PBEM_LIMIT_SIGNIN_PER_CLIENT": None,
        "PBEM_TRUSTED_PROXIES": None,
        "PBEM_DEFAULT_CLOCK": None,
        "PBEM_CLOCK_SECONDS": None,
        "PBEM_CLOCK_DOWNTIME_SECONDS": None,
        "PBEM_CLOCK_MIN_SECONDS": None,
        "PBEM_REMINDER_HOURS": None,
        "PBEM_VACATION_DAYS_PER_YEAR": None,
        "PBEM_INVITATION_DAYS": None,
        # Tests about pictures in mail turn them on; the others send mail without rendering.
        "PBEM_MAIL_PICTURES": "off",
        "PBEM_PICTURE_TIMEOUT_SECONDS": None,
        "PBEM_MAIL_KEEP_DAYS": None,
        "PBEM_DKIM_KEY_FILE": None,
        "PBEM_DKIM_SELECTOR": None,
        "PBEM_DIGEST_HOUR": None,
        # Bots think briefly in tests: any legal move will do.
        "PBEM_BOT_SECONDS": "0.05",
        "PBEM_MAIL_AUTHSERV_ID": None,
    }
    settings.update(overrides)
    return create_app(settings)


@pytest.fixture
def app(tmp_path: Path, countdown_engine: None) -> Iterator[Flask]:
    app = make_app(tmp_path)
    with app.app_context():
        db.create_all()
        yield app
        db.session.remove()
        db.engine.dispose()


@pytest.fixture
def pg_app(tmp_path: Path, countdown_engine: None) -> Iterator[Flask]:
    """The app on a throwaway PostgreSQL database (row locks, autocommit, strict text), for the
    fast tests that need PostgreSQL's behaviour; missing PostgreSQL fails under CI."""
    from tests.support.needs import missing
    from tests.support.pg import TempDatabase, server_available

    if (why := server_available()) is not None:
        missing(f"PostgreSQL unavailable: {why}")
    database = TempDatabase(prefix="pbem_app").create()
    try:
        app = make_app(tmp_path, DATABASE_URL=database.url)
        with app.app_context():
            db.create_all()
            yield app
            db.session.remove()
            db.engine.dispose()
    finally:
        database.drop()


@pytest.fixture
def client(app: Flask) -> FlaskClient:
    return app.test_client()


@pytest.fixture
def cli_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, countdown_engine: None) -> Path:
    """The environment a `pbem` command reads, for `pbem.cli.main` called in-process: SQLite
    and the mail folder under `tmp_path`, every other setting unset."""
    for name in SETTING_NAMES:
        monkeypatch.delenv(name, raising=False)
    for name, value in {
        "DATABASE_URL": f"sqlite:///{tmp_path / 'cli.db'}",
        "SECRET_KEY": "cli-test-secret-0123456789",
        "PBEM_VAR_DIR": str(tmp_path / "var"),
        "PBEM_OUTBOX_DIR": str(tmp_path / "outbox"),
        "BASE_URL": "http://pbem.test",
        "MAIL_FROM": "pbem <pbem@pbem.test>",
        "PBEM_ENV": "test",
    }.items():
        monkeypatch.setenv(name, value)
    return tmp_path
