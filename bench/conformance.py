"""Random conformance games at full length: every engine and option value, any number of games.

tests/games/test_conformance.py plays the first 25 seeded games of each case (an engine and one
value of one of its options) in the default tier and up to 500 in the audit tier; this plays as
many as asked, with the same checks at every ply (tests/support/conformance.py: legal moves,
JSON round trip, the old state untouched, the same game again from the same seed). It prints
one row per case and exits 1 if any game failed, naming its seed.

    .venv/bin/python bench/conformance.py --games 500 --workers 2
    .venv/bin/python bench/conformance.py --games 2000 --engine marram --first 500
"""

from __future__ import annotations

import argparse
import multiprocessing
import sys
import time
import traceback
from collections.abc import Iterator
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from pbem import games  # noqa: E402
from tests.support import conformance  # noqa: E402

Case = tuple[str, str | None, Any]
# Games a task plays: small enough to spread the cases over the workers evenly.
CHUNK = 25


def _label(case: Case) -> str:
    name, option, value = case
    return name if option is None else f"{name} {option}={value}"


def _chunks(cases: list[Case], first: int, count: int) -> Iterator[tuple[Case, int, int]]:
    for case in cases:
        for start in range(first, first + count, CHUNK):
            yield case, start, min(start + CHUNK, first + count)


def _play(task: tuple[Case, int, int]) -> tuple[Case, int, int, float, list[str]]:
    """Games [start, stop) of a case: (case, games, plies, CPU seconds, failures)."""
    (name, option, value), start, stop = task
    plies = 0
    failures = []
    began = time.process_time()
    for seed in range(start, stop):
        try:
            final = conformance.play_case_game(name, option, value, seed)
            plies += len(final.history)
        except Exception:
            failures.append(
                f"{_label((name, option, value))} seed {seed}:\n{traceback.format_exc()}"
            )
    return (name, option, value), stop - start, plies, time.process_time() - began, failures


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=500, help="games per case (default 500)")
    parser.add_argument("--first", type=int, default=0, help="the first seed (default 0)")
    parser.add_argument("--engine", choices=games.names(), help="only this engine")
    parser.add_argument("--workers", type=int, default=1, help="processes (default 1)")
    args = parser.parse_args()
    if args.games < 1 or args.workers < 1 or args.first < 0:
        parser.error("--games and --workers must be at least 1, --first at least 0")
    cases = [c for c in conformance.cases() if args.engine in (None, c[0])]
    tasks = list(_chunks(cases, args.first, args.games))
    rows: dict[Case, list[float]] = {case: [0, 0, 0.0, 0] for case in cases}
    failures: list[str] = []
    started = time.monotonic()
    if args.workers == 1:
        results: Iterator[tuple[Case, int, int, float, list[str]]] = map(_play, tasks)
        pool = None
    else:
        pool = multiprocessing.get_context("fork").Pool(args.workers)
        results = pool.imap_unordered(_play, tasks)
    try:
        for case, played, plies, cpu, failed in results:
            row = rows[case]
            row[0] += played
            row[1] += plies
            row[2] += cpu
            row[3] += len(failed)
            failures += failed
    finally:
        if pool is not None:
            pool.close()
            pool.join()
    wall = time.monotonic() - started
    seeds = f"seeds {args.first}–{args.first + args.games - 1}"
    print(f"{args.games} games a case ({seeds}), each played twice, {args.workers} process(es)")
    print()
    print("| case | games | plies | plies a game | CPU s | failed |")
    print("|---|---:|---:|---:|---:|---:|")
    for case, (played, plies, cpu, failed) in rows.items():
        print(
            f"| {_label(case)} | {played:.0f} | {plies:.0f} | {plies / played:.1f} "
            f"| {cpu:.1f} | {failed:.0f} |"
        )
    total_games = sum(row[0] for row in rows.values())
    total_cpu = sum(row[2] for row in rows.values())
    print()
    print(
        f"{total_games:.0f} games, {len(failures)} failed, {total_cpu:.0f} CPU s, {wall:.0f} s wall"
    )
    for failure in failures:
        print(failure, file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
