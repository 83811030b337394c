"""What a bot is given of a game: its seat's view, and positions drawn from that view.

A bot never holds the position itself. In a game of hidden information (secret hands, the order
of a bag) it could read what its seat cannot see; the engines' `State.sample(seat, rng)` draws
instead a position the seat cannot tell from the true one, and bots search those. In a game of
perfect information the sample is the position itself, so the same code serves both.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

from pbem.games.base import JSON, State


class Observation:
    """A seat's knowledge of a position: `view` and `sample(rng)`, nothing else."""

    def __init__(
        self,
        seat: int,
        viewer: Callable[[], JSON],
        sampler: Callable[[random.Random], State],
        perfect_information: bool,
    ) -> None:
        self.seat = seat
        self.perfect_information = perfect_information
        self._viewer = viewer
        self._sampler = sampler
        self._view: JSON | None = None

    @classmethod
    def of(cls, state: Any, seat: int, perfect_information: bool) -> Observation:
        """What `seat` knows of `state`: only its `view` and its `sample` are ever called."""
        return cls(
            seat,
            lambda: state.view(seat),
            lambda rng: state.sample(seat, rng),
            perfect_information,
        )

    @property
    def view(self) -> JSON:
        if self._view is None:
            self._view = self._viewer()
        return self._view

    def sample(self, rng: random.Random) -> State:
        """A full position consistent with the view (the position itself when nothing is
        hidden)."""
        return self._sampler(rng)
