"""The logs of a whole-stack run with PBEM_LOG_FORMAT=json: every process's lines (gunicorn's
access and error logs, the app's, the workers', beat's) are JSON objects; the request id of a
move's POST is on the worker's line about it, with the game, seat and submission; and no line of
any log holds a token, a link with a token or a whole email address."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from pbem.redact import TOKEN_PATHS
from tests.integration.picture_stack import PICTURES_ON
from tests.support.flow import GameFlow, token_of
from tests.support.lines import line
from tests.support.procs import wait_until
from tests.support.stack import PICTURES_QUEUE, Stack

pytestmark = [pytest.mark.integration, pytest.mark.audit, pytest.mark.timeout(600)]

# What Celery prints itself on standard output, past logging, when a worker is told to stop
# (its banner is off: the Procfile runs it --quiet). Everything else is a JSON log line.
CELERY_PRINTS = re.compile(r"worker: (Warm|Cold) shutdown \(MainProcess\)")


@pytest.fixture(scope="module")
def logged(stack_session: Stack) -> Iterator[tuple[Stack, dict[Path, int]]]:
    """The stack writing JSON logs (pictures on, so that the picture worker logs too); where
    each log file stood before, so that only this run's lines are read."""
    # Stopped first: nothing the processes writing text logs say after this is read.
    stack_session.stop_processes()
    sizes = {path: path.stat().st_size for path in stack_session.log_dir.glob("*.log")}
    with stack_session.reconfigured(
        {**PICTURES_ON, "PBEM_LOG_FORMAT": "json"}, queues=(PICTURES_QUEUE,)
    ):
        yield stack_session, sizes


def _lines(stack: Stack, sizes: dict[Path, int]) -> dict[str, list[str]]:
    found = {}
    for path in sorted(stack.log_dir.glob("*.log")):
        with open(path, "rb") as f:
            f.seek(sizes.get(path, 0))
            found[path.name] = f.read().decode("utf-8", "replace").splitlines()
    return found


def _records(text_lines: list[str]) -> tuple[list[dict[str, object]], list[str]]:
    """The JSON lines of a log, and the lines that are not JSON (Celery's banner)."""
    records, other = [], []
    for text in text_lines:
        try:
            value = json.loads(text)
        except ValueError:
            other.append(text)
            continue
        assert isinstance(value, dict), text
        records.append(value)
    return records, other


def test_every_log_is_json_with_context_and_without_secrets(
    logged: tuple[Stack, dict[Path, int]],
) -> None:
    stack, sizes = logged
    flow = GameFlow(stack.http, stack.smtp, "gorami", {"board": 16})
    flow.create()
    flow.accept_all()
    results = flow.play_to_end(flow.follow(line("gorami", {"board": 16})))
    # A move the API refuses, under a request id of the test's own.
    token = token_of(results[0].link("/play/") or "")
    stack.http.request(
        "POST",
        f"/api/games/{flow.game_id}/moves",
        json.dumps({"move": "1a1", "ply": 0}).encode(),
        {"Authorization": f"Bearer {token}", "Content-Type": "application/json"},
    )
    wait_until(stack.queue_empty, timeout=30, message=lambda: "the queue to drain")

    logs = _lines(stack, sizes)
    secrets = _secrets(stack, flow)
    applied = []
    for name, text_lines in logs.items():
        records, other = _records(text_lines)
        if not name.startswith("redis"):
            assert [t for t in other if not CELERY_PRINTS.fullmatch(t)] == [], (name, other[:5])
        for text in text_lines:
            for secret in secrets:
                assert secret not in text, (name, text)
            for path in TOKEN_PATHS:
                for found in re.findall(rf"/{path}/([^\s\"'/?]+)", text):
                    assert len(found.rstrip("…")) <= 6, (name, text)
        applied += [r for r in records if str(r.get("message", "")).startswith("move for ply")]
    # The worker's line about each move names its request, game, seat and submission, and
    # that request id is the one gunicorn's access line gave the move's POST.
    moves = len(line("gorami", {"board": 16}))
    assert len([r for r in applied if r["message"].endswith(": applied")]) == moves  # type: ignore[union-attr]
    access_ids = {
        r.get("request_id")
        for name, text_lines in logs.items()
        if name.startswith("gunicorn")
        for r in _records(text_lines)[0]
        if "POST /play/" in str(r.get("message", ""))
    }
    for record in applied:
        assert record["game_id"] == flow.game_id and record["process"] == "worker"
        assert isinstance(record["seat"], int) and isinstance(record["submission_id"], int)
        assert record["request_id"] in access_ids


def _secrets(stack: Stack, flow: GameFlow) -> list[str]:
    """What may never be logged: every address of the game, every seat's token."""
    tokens = list(flow.seat_tokens().values())
    return [*flow.emails, *tokens, *(t[:20] for t in tokens)]
