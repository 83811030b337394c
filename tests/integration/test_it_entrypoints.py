"""The image's entry points without a container: deploy/entrypoint.sh runs the Procfile's
`release`, `web`, `worker`, `picture`, `bot` and `beat` by name, as the Containerfile and the
compose file do, on a database of their own; together they make a service /readyz calls ready,
and any other command runs as given."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.http import Http
from tests.support.pg import TempDatabase
from tests.support.procs import LOOPBACK, REPO, VENV_BIN, Proc, free_port, run, wait_until
from tests.support.stack import Stack

pytestmark = [pytest.mark.integration, pytest.mark.audit, pytest.mark.timeout(300)]

ENTRYPOINT = REPO / "deploy" / "entrypoint.sh"
PROCESSES = ("web", "worker", "picture", "bot", "beat")


@pytest.fixture
def env(stack: Stack, tmp_path: Path) -> Iterator[dict[str, str]]:
    """A deployment's settings on a database of its own and a Redis database the stack's
    workers do not read."""
    database = TempDatabase(prefix="pbem_entry").create()
    base = stack.redis.url.rsplit("/", 1)[0]
    env = {
        **stack.env,
        "DATABASE_URL": database.url,
        "REDIS_URL": f"{base}/7",
        "PORT": str(free_port()),
        "PBEM_PROCFILE": str(REPO / "Procfile"),
        "PBEM_VAR_DIR": str(tmp_path / "var"),
        "PBEM_METRICS_DIR": str(tmp_path / "metrics"),
        "PBEM_CLOCK_SECONDS": "1",
        "PBEM_LOG_FORMAT": "json",
        "PATH": f"{VENV_BIN}:{stack.env['PATH']}",
    }
    yield env
    database.drop()


def test_the_procfiles_processes_by_name_make_a_ready_service(
    env: dict[str, str], tmp_path: Path
) -> None:
    release = run([str(ENTRYPOINT), "release"], env)
    assert release.returncode == 0, release.stdout + release.stderr
    procs = [
        Proc(f"entry-{name}", [str(ENTRYPOINT), name], env=env, log_dir=tmp_path).start()
        for name in PROCESSES
    ]
    http = Http(f"http://{LOOPBACK}:{env['PORT']}")
    try:
        wait_until(
            lambda: _ready(http),
            timeout=90,
            message=lambda: "\n".join(p.log_tail() for p in procs),
        )
        assert all(p.running for p in procs)
        ready = http.get("/readyz").json()
        for queue in ("celery", "pictures", "bots"):
            assert ready["checks"][f"worker:{queue}"]["ok"]
        # Any other command runs as given.
        stats = run([str(ENTRYPOINT), "pbem", "admin", "stats", "--json"], env, timeout=60)
        assert stats.returncode == 0, stats.stderr
        assert json.loads(stats.stdout)["games"] == {}
    finally:
        for proc in procs:
            proc.stop(timeout=15)


def _ready(http: Http) -> bool:
    try:
        return http.get("/readyz").status == 200
    except OSError:
        return False  # gunicorn is not listening yet
