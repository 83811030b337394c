"""The whole schemathesis run of tests/web/test_openapi.py, against the API as production serves
it: gunicorn on PostgreSQL, moves applied by a Celery worker."""

from __future__ import annotations

import os
import random
from pathlib import Path

import pytest

from tests.support import schemathesis_run
from tests.support.flow import GameFlow
from tests.support.procs import wait_until
from tests.support.stack import Stack

pytestmark = [pytest.mark.integration, pytest.mark.audit, pytest.mark.timeout(900)]

# More than the embedded run's 20: about 1,500 requests.
RUN_EXAMPLES = 50


def _ply(flow: GameFlow, token: str) -> int:
    game = flow.http.get(f"/api/games/{flow.game_id}", token=token)
    assert game.status == 200, game
    ply: int = game.json()["ply"]
    return ply


def test_a_whole_schemathesis_run_against_gunicorn_finds_nothing(
    stack: Stack, tmp_path: Path
) -> None:
    flow = GameFlow(stack.http, stack.smtp, "gorami", {"board": 16}).start()
    tokens = flow.seat_tokens()
    # Two moves in, as in the embedded run: a history, past positions and a submission to read.
    for ply in range(2):
        mover = next(t for t in tokens.values() if flow.legal(t)["your_turn"])
        accepted = flow.api_move(mover, flow.legal(mover)["moves"][0], ply)
        assert accepted.status == 202, accepted
        wait_until(lambda m=mover, p=ply: _ply(flow, m) == p + 1, message=f"move {ply + 1}")
    token = next(t for t in tokens.values() if flow.legal(t)["your_turn"])
    seed = 1 if os.environ.get("CI") else random.randrange(2**31)
    outcome = schemathesis_run.run(
        stack.base_url, token, flow.game_id, tmp_path, max_examples=RUN_EXAMPLES, seed=seed
    )
    assert outcome.passed, outcome.output
    assert outcome.requests >= 1000, outcome.output
