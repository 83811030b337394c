"""How long a bot may think: a number of iterations (the same answer for the same seed), a
time (what the service gives it), or both, whichever ends first."""

from __future__ import annotations

import time
from dataclasses import dataclass


@dataclass(frozen=True)
class Budget:
    iterations: int | None = None
    seconds: float | None = None

    def __post_init__(self) -> None:
        if self.iterations is None and self.seconds is None:
            raise ValueError("a bot's budget needs iterations, seconds or both")
        if self.iterations is not None and self.iterations < 1:
            raise ValueError(f"a bot needs at least one iteration, not {self.iterations}")
        if self.seconds is not None and not self.seconds > 0:
            raise ValueError(f"a bot needs some time to think, not {self.seconds} s")

    def clock(self) -> Clock:
        return Clock(self)


class Clock:
    """One search's use of its budget: `more()` says whether another iteration may start."""

    __slots__ = ("_deadline", "_left", "done")

    def __init__(self, budget: Budget) -> None:
        self._left = budget.iterations
        self._deadline = None if budget.seconds is None else time.monotonic() + budget.seconds
        self.done = 0

    def more(self) -> bool:
        if self._left is not None and self.done >= self._left:
            return False
        # The first iteration always runs, so that even a tiny budget gives an answer.
        if self.done and self._deadline is not None and time.monotonic() >= self._deadline:
            return False
        self.done += 1
        return True
