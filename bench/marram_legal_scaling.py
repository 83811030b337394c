"""Marram engine speed: random playouts (legal_moves + play per action) and legal_moves() cost
at 10, 40 and 80 laid tiles.

Run: .venv/bin/python bench/marram_legal_scaling.py [games]
"""

from __future__ import annotations

import random
import sys
import time

from pbem import games
from pbem.games.marram.rules import MarramState


def playouts(count: int) -> None:
    game = games.get("marram")
    actions = 0
    began = time.perf_counter()
    cpu = time.process_time()
    for seed in range(count):
        variant = ("classic", "pitchfork", "animals")[seed % 3]
        state = game.new(2 + seed % 3, {"variant": variant, "length": "long"}, seed=seed)
        rng = random.Random(seed)
        while state.outcome is None:
            state = state.play(rng.choice(state.legal_moves()))
            actions += 1
    spent = time.perf_counter() - began
    cpu = time.process_time() - cpu
    print(
        f"random playouts: {count} games, {actions} actions, {actions / spent:,.0f} actions/s "
        f"wall, {actions / cpu:,.0f} actions per CPU second"
    )


def positions_with(laid: int, count: int) -> list[MarramState]:
    """Positions from random long games at the first moment `laid` tiles lie on the board."""
    game = games.get("marram")
    found: list[MarramState] = []
    seed = 0
    while len(found) < count:
        state = game.new(2, {"variant": "pitchfork", "length": "long"}, seed=seed)
        rng = random.Random(seed)
        seed += 1
        while state.outcome is None and len(state.board) < laid:
            state = state.play(rng.choice(state.legal_moves()))
        if state.outcome is None and len(state.board) == laid:
            found.append(state)
    return found


def legal_scaling() -> None:
    for laid in (10, 40, 80):
        states = positions_with(laid, 20)
        for s in states:  # warm the per-profile fit cache
            MarramState.from_json(s.to_json()).legal_moves()
        fresh = [MarramState.from_json(s.to_json()) for s in states]
        began = time.process_time()
        total = 0
        for s in fresh:
            total += len(s.legal_moves())
        spent = (time.process_time() - began) / len(fresh)
        print(
            f"legal_moves() at {laid:2d} laid tiles: {spent * 1e6:7.1f} µs "
            f"CPU ({total / len(fresh):.0f} moves on average, uncached state)"
        )


if __name__ == "__main__":
    playouts(int(sys.argv[1]) if len(sys.argv) > 1 else 30)
    legal_scaling()
