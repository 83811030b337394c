"""Random-playout throughput of every registered engine (a benchmark, not a test).

Each ply is `legal_moves()` + `play()` of a randomly chosen move, as a client would do. Runs on one
core. For Marram it also times `legal_moves()` alone in positions with 10, 40 and 80 laid tiles, to
show that its cost grows no faster than the board.

    .venv/bin/python bench/engines.py [--seconds 5] [--game NAME ...]
"""

from __future__ import annotations

import argparse
import itertools
import platform
import random
import time
from collections.abc import Iterator
from typing import Any

from pbem import games


def configurations(name: str) -> Iterator[tuple[int, dict[str, Any]]]:
    """Every player count with every combination of option values."""
    game = games.get(name)
    option_names = list(game.options)
    for players in range(game.min_players, game.max_players + 1):
        for values in itertools.product(*(game.options[o] for o in option_names)):
            yield players, dict(zip(option_names, values, strict=True))


def playout_rate(
    name: str, players: int, options: dict[str, Any], seconds: float
) -> dict[str, Any]:
    game = games.get(name)
    rng = random.Random(1)
    plies = finished = 0
    seed = 0
    start = time.perf_counter()
    cpu_start = time.process_time()
    deadline = start + seconds
    while time.perf_counter() < deadline:
        state = game.new(players=players, options=options, seed=seed)
        seed += 1
        while state.outcome is None:
            state = state.play(rng.choice(state.legal_moves()))
            plies += 1
        finished += 1
    elapsed = time.perf_counter() - start
    cpu = time.process_time() - cpu_start
    return {
        "plies": plies,
        "games": finished,
        "seconds": elapsed,
        "rate": plies / elapsed,
        "cpu_rate": plies / cpu,
    }


def marram_legal_scaling(repeats: int = 200) -> list[tuple[int, float, int]]:
    """(laid tiles, microseconds per legal_moves() call, number of legal moves)."""
    game = games.get("marram")
    rows = []
    for target in (10, 40, 80):
        samples: list[tuple[float, int]] = []
        for seed in range(5):
            state = game.new(players=2, options={"length": "long"}, seed=seed)
            rng = random.Random(seed)
            while state.outcome is None and len(state.view(None)["board"]) < target:
                state = state.play(rng.choice(state.legal_moves()))
            if state.outcome is not None:
                continue
            # A fresh copy per call: a state may cache its own legal moves.
            copies = [game.from_json(state.to_json()) for _ in range(repeats)]
            started = time.process_time()
            for copy in copies:
                moves = copy.legal_moves()
            samples.append(((time.process_time() - started) / repeats * 1e6, len(moves)))
        if samples:
            micro = sum(s[0] for s in samples) / len(samples)
            count = round(sum(s[1] for s in samples) / len(samples))
            rows.append((target, micro, count))
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=5.0, help="time per configuration")
    parser.add_argument("--game", action="append", help="only these games (repeatable)")
    args = parser.parse_args()
    names = args.game or games.names()
    print(f"Python {platform.python_version()} on {platform.machine()}, one process\n")
    # CPU time is the steadier figure on a shared machine; wall time is what a lone core gives.
    print("| game | players | options | plies/s (wall) | plies/CPU-s | plies | games |")
    print("|---|---|---|---:|---:|---:|---:|")
    for name in names:
        for players, options in configurations(name):
            r = playout_rate(name, players, options, args.seconds)
            shown = ", ".join(f"{k}={v}" for k, v in options.items()) or "-"
            print(
                f"| {name} | {players} | {shown} | {r['rate']:,.0f} | {r['cpu_rate']:,.0f} "
                f"| {r['plies']:,} "
                f"| {r['games']:,} |",
                flush=True,
            )
    if "marram" in names:
        print("\nMarram `legal_moves()` by laid tiles (2 players, long, mean of 5 games):\n")
        print("| laid tiles | CPU µs per legal_moves() | legal moves | µs per legal move |")
        print("|---:|---:|---:|---:|")
        for tiles, micro, count in marram_legal_scaling():
            per = micro / count if count else float("nan")
            print(f"| {tiles} | {micro:,.0f} | {count} | {per:.2f} |")


if __name__ == "__main__":
    main()
