"""Deterministic move lines for the engines, found by seeded random playouts."""

from __future__ import annotations

import itertools
import random

from pbem import games


def playout(engine: str, options: dict[str, object], seed: int) -> tuple[list[str], list[int]]:
    """The moves of one seeded random game and the seat that played each of them."""
    rules = games.get(engine)
    state = rules.new(rules.min_players, options, 0)
    rng = random.Random(seed)
    moves, movers = [], []
    while state.outcome is None:
        mover = state.to_move
        assert mover is not None
        move = rng.choice(state.legal_moves())
        moves.append(move)
        movers.append(mover)
        state = state.play(move)
    return moves, movers


def has_repeat_turn(movers: list[int]) -> bool:
    """A seat that moves twice in a row: the other one was skipped (GORami)."""
    return any(a == b for a, b in itertools.pairwise(movers))


def line(
    engine: str = "gorami",
    options: dict[str, object] | None = None,
    repeat_turn: bool = False,
    max_plies: int | None = None,
) -> list[str]:
    """The first seeded line with (or without) a seat moving twice in a row."""
    options = {"board": 16} if options is None and engine == "gorami" else dict(options or {})
    for seed in range(10_000):
        moves, movers = playout(engine, options, seed)
        short_enough = max_plies is None or len(moves) <= max_plies
        if has_repeat_turn(movers) == repeat_turn and short_enough:
            return moves
    raise LookupError(f"no {engine} line with repeat_turn={repeat_turn}")
