"""A whole schemathesis run against a served API: every phase (examples, coverage, fuzzing,
stateful) and every check (`--checks all`), as `schemathesis run` does it from a terminal.

The run holds the seat's token for both ways the API takes one, so that the `ignored_auth` check
can take it away, and draws most game ids from the real game, so that requests get past the
door (moves, draws, resignations, the game's views) while the others try the door itself (ids,
tokens, bounds). tests/web/test_openapi.py runs it against the embedded server,
tests/integration/test_it_openapi.py against gunicorn on PostgreSQL.
"""

from __future__ import annotations

import json
import os
import subprocess
from dataclasses import dataclass
from pathlib import Path

from tests.support.procs import VENV_BIN

# schemathesis's own list less "5xx" (no server error is an acceptable refusal), plus 413 and
# 414: a request over pbem's bounds is refused for its size, and that is a refusal too.
REFUSALS = [400, 401, 403, 404, 405, 406, 409, 413, 414, 415, 422, 428, 429]
# A move the schema allows may be one the position does not (422 illegal_move): the rules of a
# game are no schema's business.
MOVE_ANSWERS = ["2xx", 401, 403, 404, 409, 422]
# How often a game id is the real game's rather than one made up.
REAL_GAME = 0.75


@dataclass(frozen=True)
class Outcome:
    """What a run found: its exit status, its report in words, and how many requests it sent."""

    returncode: int
    output: str
    requests: int

    @property
    def passed(self) -> bool:
        return self.returncode == 0


def _toml(value: object) -> str:
    # JSON's strings, numbers and arrays are TOML's too.
    return json.dumps(value)


def config(token: str, game_id: str, max_examples: int, seed: int) -> str:
    """The run's schemathesis.toml."""
    return "\n".join(
        [
            f"seed = {seed}",
            "workers = 1",
            "[generation]",
            f"max-examples = {max_examples}",
            "[checks.negative_data_rejection]",
            f"expected-statuses = {_toml(REFUSALS)}",
            "[auth.openapi.bearerToken]",
            f"bearer = {_toml(token)}",
            "[auth.openapi.queryToken]",
            f"api_key = {_toml(token)}",
            "[dictionaries.games]",
            f"values = [{_toml(game_id)}]",
            "[parameters.game_id]",
            'dictionary = "games"',
            f"probability = {REAL_GAME}",
            "[[operations]]",
            'include-operation-id = "submitMove"',
            f"checks.positive_data_acceptance.expected-statuses = {_toml(MOVE_ANSWERS)}",
            "",
        ]
    )


def run(
    base_url: str,
    token: str,
    game_id: str,
    workdir: Path,
    *,
    max_examples: int,
    seed: int,
    timeout: float = 900,
) -> Outcome:
    """One `schemathesis run --checks all` of the API served at `base_url`; its config, cache
    and report stay in `workdir`."""
    workdir.mkdir(parents=True, exist_ok=True)
    config_file = workdir / "schemathesis.toml"
    config_file.write_text(config(token, game_id, max_examples, seed))
    report = workdir / "schemathesis.ndjson"
    command = [
        str(VENV_BIN / "schemathesis"),
        "--config-file",
        str(config_file),
        "run",
        f"{base_url.rstrip('/')}/api/openapi.json",
        "--checks",
        "all",
        "--report",
        "ndjson",
        "--report-ndjson-path",
        str(report),
        "--output-truncate",
        "false",
    ]
    env = {**os.environ, "NO_COLOR": "1"}
    done = subprocess.run(
        command,
        cwd=workdir,
        capture_output=True,
        text=True,
        timeout=timeout,
        env=env,
        check=False,
    )
    return Outcome(done.returncode, done.stdout + done.stderr, requests_in(report))


def requests_in(report: Path) -> int:
    """How many requests a run sent, from its NDJSON report (each with the response it got)."""
    if not report.exists():
        return 0
    count = 0
    for line in report.read_text().splitlines():
        count += _exchanges(json.loads(line))
    return count


def _exchanges(value: object) -> int:
    if isinstance(value, dict):
        own = 1 if isinstance(value.get("request"), dict) and "response" in value else 0
        return own + sum(_exchanges(item) for item in value.values())
    if isinstance(value, list):
        return sum(_exchanges(item) for item in value)
    return 0
