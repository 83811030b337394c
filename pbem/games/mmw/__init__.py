"""Martian Mud Wrestling (Elliott C. Evans, 2002) as this project plays it.

Rules: docs/rules/mmw.md. This module is the registry entry (`GAME`); the position and move rules
live in `rules`, squares and the stack encoding in `board`, move and stack notation in
`notation`, the drawings in `render`. It re-exports the test constructor `position` for scenario
tests and problem positions.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from pbem.games.base import JSON, State, check_players, resolve_options
from pbem.games.mmw import render
from pbem.games.mmw.board import COLOURS, Pyramid
from pbem.games.mmw.notation import parse_move
from pbem.games.mmw.rules import NAME, TITLE, MMWState, from_json, new_state, position

__all__ = ["COLOURS", "GAME", "MMWGame", "MMWState", "Pyramid", "parse_move", "position"]


class MMWGame:
    """Two players, no options: the whole game is in the rules."""

    name = NAME
    title = TITLE
    min_players = 2
    max_players = 2
    options: Mapping[str, Sequence[int | str]] = {}
    perfect_information = True

    def new(
        self, players: int, options: Mapping[str, Any] | None = None, seed: int = 0
    ) -> MMWState:
        check_players(NAME, players, self.min_players, self.max_players)
        resolve_options(NAME, self.options, options)
        return new_state(seed)

    def from_json(self, data: Mapping[str, Any]) -> MMWState:
        return from_json(data)

    def render_svg(
        self, state: State, seat: int | None = None, names: Sequence[str] | None = None
    ) -> str:
        return render.render_svg(_own(state), seat, names)

    def render_text(
        self, state: State, seat: int | None = None, names: Sequence[str] | None = None
    ) -> str:
        return render.render_text(_own(state), seat, names)

    def render_mail_svg(
        self,
        state: State,
        seat: int | None = None,
        names: Sequence[str] | None = None,
        last_turn: bool = True,
    ) -> str:
        return render.render_mail_svg(_own(state), seat, names, last_turn)

    def board_assets(self, state: State, seat: int, names: Sequence[str] | None = None) -> JSON:
        """The board needs no drawings beyond the SVG."""
        _own(state)
        return {}


def _own(state: State) -> MMWState:
    if not isinstance(state, MMWState):
        raise TypeError(f"mmw cannot draw a {type(state).__name__}")
    return state


GAME = MMWGame()
