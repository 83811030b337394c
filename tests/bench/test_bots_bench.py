"""bench/bots.py at a tiny scale: a chosen option reaches the games played, and options a game
does not have are refused before anything is played."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def _bench(*arguments: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(REPO / "bench" / "bots.py"), "--workers", "1", *arguments],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=REPO,
        check=False,
    )


def test_a_chosen_option_is_played_and_reported() -> None:
    done = _bench("--game", "gorami", "--option", "board=16", "--pairing", "greedy,random",
                  "--games", "2")  # fmt: skip
    assert done.returncode == 0, done.stderr[-4000:]
    rows = [line for line in done.stdout.splitlines() if line.startswith("| gorami")]
    assert len(rows) == 1
    assert "| board=16 | greedy vs random | 2 |" in rows[0]


def test_an_option_the_game_lacks_is_refused() -> None:
    done = _bench("--game", "gorami", "--option", "board=17", "--games", "1")
    assert done.returncode == 2
    assert "gorami has no option board=17" in done.stderr


def test_an_option_that_is_not_key_value_is_refused() -> None:
    done = _bench("--game", "marram", "--option", "long", "--games", "1")
    assert done.returncode == 2
    assert "is not KEY=VALUE" in done.stderr


def test_option_and_all_options_together_are_refused() -> None:
    done = _bench("--game", "marram", "--option", "length=long", "--all-options")
    assert done.returncode == 2
    assert "--all-options" in done.stderr
