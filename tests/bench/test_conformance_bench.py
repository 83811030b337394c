"""bench/conformance.py at a tiny scale: a row per case of the engine asked for, every game
counted, and nonsense counts refused before anything is played."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from pbem import games

REPO = Path(__file__).resolve().parents[2]


def _bench(*arguments: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(REPO / "bench" / "conformance.py"), *arguments],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=REPO,
        check=False,
    )


def test_two_games_of_each_gorami_board_are_played_and_counted() -> None:
    done = _bench("--engine", "gorami", "--games", "2", "--first", "7")
    assert done.returncode == 0, done.stderr[-4000:]
    rows = [line for line in done.stdout.splitlines() if line.startswith("| gorami")]
    boards = games.get("gorami").options["board"]
    assert [row.split(" | ")[0] for row in rows] == [f"| gorami board={b}" for b in boards]
    assert all(row.split(" | ")[1] == "2" and row.endswith("| 0 |") for row in rows), rows
    assert "seeds 7–8" in done.stdout
    assert f"{2 * len(boards)} games, 0 failed" in done.stdout


def test_no_games_is_refused() -> None:
    done = _bench("--games", "0")
    assert done.returncode == 2
    assert "--games and --workers must be at least 1" in done.stderr
