"""Fixtures for the integration suite: the real service on loopback.

One stack per pytest process (so per xdist worker): a throwaway PostgreSQL database migrated with
`pbem db upgrade`, a private redis-server, an aiosmtpd sink, a prefork celery worker, celery beat
running the sweep every second, and gunicorn. Tests may break any part on purpose (stop Redis,
stop SMTP, SIGKILL the worker); the `stack` fixture starts again whatever is down before the next
test. Every subprocess dies with the session, even when it fails.
"""

from __future__ import annotations

import os
import shutil
import sys
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

# Board pictures off, as in the fast tests, for every stack but test_it_pictures' (which runs the
# picture worker, picture_stack.PictureStack): these tests time emails, and with pictures on a
# turn email waits up to PBEM_PICTURE_TIMEOUT_SECONDS for a picture worker they do not run.
NO_PICTURES = {"PBEM_MAIL_PICTURES": "off"}


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
    stack = Stack(log_dir=tmp_path_factory.mktemp("stack"), extra_env=NO_PICTURES)
    try:
        stack.start()
        yield stack
        # Across the whole session, no message may ever reach the sink twice.
        duplicates = duplicate_message_ids(stack)
        assert not duplicates, f"messages delivered more than once: {duplicates}"
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
