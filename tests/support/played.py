"""Random games of every engine at its largest board, for the picture tests: what a picture
worker is given, position by position."""

from __future__ import annotations

import random

from pbem import games
from pbem.games.base import State

# Every engine at its largest board, GORami's smallest, and Marram's other variants.
PICTURE_CASES: list[tuple[str, int, dict[str, object]]] = [
    ("gorami", 2, {"board": 24}),
    ("gorami", 2, {"board": 16}),
    ("mmw", 2, {}),
    ("marram", 4, {"length": "long"}),
    ("marram", 3, {"variant": "animals"}),
    ("marram", 2, {"variant": "pitchfork"}),
]


def played(engine: str, players: int, options: dict[str, object], seed: int) -> list[State]:
    """Every position of one random game, the start and the end included."""
    rng = random.Random(seed)
    state = games.get(engine).new(players, options, seed=seed)
    states = [state]
    while state.outcome is None:
        state = state.play(rng.choice(state.legal_moves()))
        states.append(state)
    return states
