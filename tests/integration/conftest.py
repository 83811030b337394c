"""Fixtures for the integration suite: the real service on loopback.

One stack per pytest run: a throwaway PostgreSQL database migrated with `pbem db upgrade`, a
private redis-server, an aiosmtpd sink, a prefork celery worker, celery beat running the sweep
and the clock task every second, and gunicorn. Under `-n 2` every test here goes to one xdist
worker (tests/support/scheduling.py), so they all run one after the other on that worker's
session stack, and no other worker starts one. A module that needs
more starts it (`Stack.use_queue`) or runs the service's processes again with other settings
for its tests (`Stack.reconfigured`); only test_it_pg_restart, which restarts PostgreSQL, runs
a stack of its own on a private cluster. Tests may break any part on purpose (stop Redis, stop
SMTP, SIGKILL the worker); the `stack` fixture starts again whatever is down before the next
test. Every subprocess dies with the session, even when it fails.
"""

from __future__ import annotations

import os
import shutil
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from tests.support import procs  # noqa: E402
from tests.support.needs import missing  # noqa: E402
from tests.support.pg import server_available  # noqa: E402
from tests.support.redis_server import redis_binary  # noqa: E402
from tests.support.stack import Stack  # noqa: E402

# Board pictures off, as in the fast tests, but for test_it_pictures' tests (which run the
# picture worker): these tests time emails, and with pictures on a turn email waits up to
# PBEM_PICTURE_TIMEOUT_SECONDS for a picture worker they do not run.
NO_PICTURES = {"PBEM_MAIL_PICTURES": "off"}
# Clocks of seconds for test_it_clocks: the clock task every second; a reminder 7.2 s before
# each deadline; any clock allowed. Its tests stop beat on purpose, and its gaps must not count
# as downtime. Games of the other tests have the default clock of days, which none of this
# reaches.
CLOCK_ENV = {
    "PBEM_CLOCK_SECONDS": "1",
    "PBEM_CLOCK_MIN_SECONDS": "1",
    "PBEM_REMINDER_HOURS": "0.002",
    "PBEM_CLOCK_DOWNTIME_SECONDS": "3600",
}
# Bots think briefly (test_it_bots, whose module starts the bot worker of the Procfile).
BOT_ENV = {"PBEM_BOT_SECONDS": "0.3"}
SERVICE_ENV = NO_PICTURES | CLOCK_ENV | BOT_ENV


def _why_not_runnable() -> str | None:
    """A reason to skip, only when the servers are truly not installed here."""
    if redis_binary() is None:
        return "redis-server is not installed (scripts/services.sh installs it)"
    problem = server_available()
    if problem is not None:
        if not (shutil.which("postgres") or shutil.which("pg_ctlcluster") or shutil.which("psql")):
            return f"PostgreSQL is not installed (scripts/services.sh installs it): {problem}"
        pytest.fail(
            f"PostgreSQL is installed but does not answer at PBEM_TEST_DATABASE_URL: {problem}\n"
            "Start it with scripts/services.sh.",
            pytrace=False,
        )
    return None


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    # Every test here runs real servers on the real clock, marked or not.
    for item in items:
        if "tests/integration/" in str(item.fspath).replace(os.sep, "/"):
            item.add_marker(pytest.mark.integration)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Iterator[None]:
    outcome = yield
    report = outcome.get_result()
    setattr(item, f"rep_{report.when}", report)


@pytest.fixture(scope="session")
def stack_session(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    reason = _why_not_runnable()
    if reason is not None:
        missing(reason)
    stack = Stack(log_dir=tmp_path_factory.mktemp("stack"), extra_env=SERVICE_ENV)
    try:
        stack.start()
        yield stack
        # Across the whole session, no message may ever reach the sink twice.
        duplicates = duplicate_message_ids(stack)
        assert not duplicates, f"messages delivered more than once: {_described(stack, duplicates)}"
    finally:
        stack.close()
        procs.kill_all()


@pytest.fixture
def stack(stack_session: Stack, request: pytest.FixtureRequest) -> Iterator[Stack]:
    """The session's stack, with every part running at the start of the test."""
    stack_session.start()
    yield stack_session
    report = getattr(request.node, "rep_call", None)
    if report is not None and report.failed:
        print(f"\n=== logs of the stack (in {stack_session.log_dir}) ===\n{stack_session.logs()}")


def duplicate_message_ids(stack: Stack) -> dict[str, int]:
    """Message-IDs the sink got more than once, but those a test already reported."""
    counts: dict[str, int] = {}
    for message in stack.smtp.messages:
        counts[message.message_id] = counts.get(message.message_id, 0) + 1
    return {mid: n for mid, n in counts.items() if n > 1 and mid not in stack.reported_duplicates}


def _described(stack: Stack, message_ids: dict[str, int]) -> str:
    """Each message delivered twice, with its subject, recipients and the instants it arrived."""
    lines = []
    for mid in message_ids:
        copies = [m for m in stack.smtp.messages if m.message_id == mid]
        at = ", ".join(time.strftime("%H:%M:%S", time.gmtime(m.accepted_at)) for m in copies)
        lines.append(f"{mid} {copies[0].subject!r} to {copies[0].rcpt_tos} at {at} UTC")
    return "\n".join(lines)
