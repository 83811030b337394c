"""Metrics on the real stack: gunicorn's two processes share their counters (the web's
/metrics, with the database's gauges), and the worker host serves its workers' counters on
PBEM_METRICS_PORT; each counts what its processes did, once."""

from __future__ import annotations

import urllib.request
from collections.abc import Iterator

import pytest
from prometheus_client.parser import text_string_to_metric_families

from tests.support.flow import GameFlow
from tests.support.lines import line
from tests.support.procs import LOOPBACK, free_port, wait_until
from tests.support.stack import Stack

pytestmark = [pytest.mark.integration, pytest.mark.audit, pytest.mark.timeout(300)]

TOKEN = "stack-metrics-token-0123456789"
Figures = dict[tuple[str, tuple[tuple[str, str], ...]], float]


@pytest.fixture(scope="module")
def counted(
    stack_session: Stack, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[tuple[Stack, int]]:
    """The session's stack counting into a folder of its own, its workers' counters served on
    a port of their own."""
    port = free_port()
    folder = tmp_path_factory.mktemp("metrics")
    env = {
        "PBEM_METRICS_TOKEN": TOKEN,
        "PBEM_METRICS_PORT": str(port),
        "PBEM_METRICS_HOST": LOOPBACK,
        "PBEM_METRICS_DIR": str(folder),
    }
    with stack_session.reconfigured(env):
        yield stack_session, port


def _parse(text: str) -> Figures:
    figures: Figures = {}
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            figures[sample.name, tuple(sorted(sample.labels.items()))] = sample.value
    return figures


def _web(stack: Stack) -> Figures:
    response = stack.http.get("/metrics", token=TOKEN)
    assert response.status == 200, response.text
    return _parse(response.text)


def _workers(port: int) -> Figures:
    url = f"http://{LOOPBACK}:{port}/metrics"
    with urllib.request.urlopen(url, timeout=5) as answer:
        return _parse(answer.read().decode())


def _at(figures: Figures, name: str, **labels: str) -> float:
    return figures.get((name, tuple(sorted(labels.items()))), 0.0)


def test_each_host_counts_its_own_processes_once(counted: tuple[Stack, int]) -> None:
    stack, port = counted
    assert stack.http.get("/metrics").status == 401
    flow = GameFlow(stack.http, stack.smtp, "gorami", {"board": 16})
    flow.create()
    flow.accept_all()
    moves = line("gorami", {"board": 16})
    flow.play_to_end(flow.follow(moves))
    web = _web(stack)
    # Moves are stored by the web's two processes: their counts add up, once.
    assert _at(web, "pbem_moves_submitted_total", engine="gorami") == len(moves)
    assert _at(web, "pbem_games", engine="gorami", state="finished") >= 1
    assert _at(web, "pbem_database_up") == 1 and _at(web, "pbem_redis_up") == 1
    assert _at(web, "pbem_queue_depth", queue="celery") >= 0
    assert ("pbem_moves_applied_total", (("engine", "gorami"),)) not in web
    wait_until(
        lambda: _at(_workers(port), "pbem_emails_sent_total", kind="result") == 2,
        timeout=30,
        message=lambda: str(_workers(port)),
    )
    workers = _workers(port)
    assert _at(workers, "pbem_moves_applied_total", engine="gorami") == len(moves)
    assert _at(workers, "pbem_move_apply_seconds_count", engine="gorami") == len(moves)
    assert _at(workers, "pbem_emails_sent_total", kind="turn") >= len(moves)
    assert ("pbem_moves_submitted_total", (("engine", "gorami"),)) not in workers
    assert ("pbem_games", (("engine", "gorami"), ("state", "finished"))) not in workers
