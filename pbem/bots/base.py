"""What every bot offers the service: a move for its seat, and its opinion of a position (to
answer a draw offer)."""

from __future__ import annotations

import random
from typing import Protocol

from pbem.bots.budget import Budget
from pbem.bots.observation import Observation


class Bot(Protocol):
    kind: str  # "random", "greedy", "mcts": what the players list names it by ("bot:mcts")
    name: str  # how pages and mail call it ("pbem MCTS")

    def choose(self, seen: Observation, rng: random.Random, budget: Budget) -> str:
        """A legal move for `seen.seat`, which is to move. The same seed and the same
        iteration budget give the same move."""
        ...

    def rate(self, seen: Observation, rng: random.Random, budget: Budget) -> float:
        """The bot's estimate of `seen.seat`'s result from here, 0 (lost) to 1 (won); 0.5 is
        even. It accepts a draw at 0.5 or less."""
        ...
