"""Martian Mud Wrestling (Elliott C. Evans, 2002) as this project plays it.

Rules: shared/rules/mmw.md. The position and move rules live in `mmw_core`, the drawings in
`mmw_render`; this module is the registry entry (`GAME`) and re-exports the test constructor
`position` for scenario tests and problem positions.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from pbem.games import mmw_render
from pbem.games.base import State, check_players, resolve_options
from pbem.games.mmw_core import (
    COLOURS,
    NAME,
    TITLE,
    MMWState,
    Pyramid,
    from_json,
    new_state,
    parse_move,
    position,
)

__all__ = ["COLOURS", "GAME", "MMWGame", "MMWState", "Pyramid", "parse_move", "position"]


class MMWGame:
    """Two players, no options: the whole game is in the rules."""

    name = NAME
    title = TITLE
    min_players = 2
    max_players = 2
    options: Mapping[str, Sequence[int | str]] = {}

    def new(
        self, players: int, options: Mapping[str, Any] | None = None, seed: int = 0
    ) -> MMWState:
        check_players(NAME, players, self.min_players, self.max_players)
        resolve_options(NAME, self.options, options)
        return new_state(seed)

    def from_json(self, data: Mapping[str, Any]) -> MMWState:
        return from_json(data)

    def render_svg(self, state: State, seat: int | None = None) -> str:
        return mmw_render.render_svg(_own(state), seat)

    def render_text(self, state: State, seat: int | None = None) -> str:
        return mmw_render.render_text(_own(state), seat)


def _own(state: State) -> MMWState:
    if not isinstance(state, MMWState):
        raise TypeError(f"mmw cannot draw a {type(state).__name__}")
    return state


GAME = MMWGame()
