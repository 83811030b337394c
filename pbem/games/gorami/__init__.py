"""GORami: place numbered discs on a triangular board, capture by closing in, win fish per stripe.

Rules: docs/rules/gorami.md. This module is the registry entry (`GAME`); the position and rules
live in `rules`, move notation in `notation`, board geometry in `board`, drawing in `render`. It
re-exports what tests and tools use: `GoramiState`, `setup` (a position from its parts) and the
constants.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from pbem.games.base import JSON, State, check_players, resolve_options
from pbem.games.gorami import render
from pbem.games.gorami.notation import NUMBERS
from pbem.games.gorami.rules import COLOURS, NAME, GoramiState, setup

__all__ = ["COLOURS", "GAME", "NAME", "NUMBERS", "GoramiGame", "GoramiState", "setup"]


class GoramiGame:
    """The GORami rules for the registry."""

    name = NAME
    title = "GORami"
    min_players = 2
    max_players = 2
    options: Mapping[str, tuple[int, ...]] = {"board": (22, 16, 24)}
    perfect_information = True

    def new(
        self, players: int, options: Mapping[str, Any] | None = None, seed: int = 0
    ) -> GoramiState:
        check_players(NAME, players, self.min_players, self.max_players)
        resolved = resolve_options(NAME, self.options, options)
        return GoramiState.initial(int(resolved["board"]), int(seed))

    def from_json(self, data: Mapping[str, Any]) -> GoramiState:
        return GoramiState.from_json(data)

    def render_svg(
        self, state: State, seat: int | None = None, names: Sequence[str] | None = None
    ) -> str:
        return render.render_svg(_ours(state), seat, names)

    def render_text(
        self, state: State, seat: int | None = None, names: Sequence[str] | None = None
    ) -> str:
        return render.render_text(_ours(state), seat, names)

    def render_mail_svg(
        self,
        state: State,
        seat: int | None = None,
        names: Sequence[str] | None = None,
        last_turn: bool = True,
    ) -> str:
        return render.render_mail_svg(_ours(state), seat, names, last_turn)

    def board_assets(self, state: State, seat: int, names: Sequence[str] | None = None) -> JSON:
        """GORami's board needs no drawings beyond the SVG."""
        _ours(state)
        return {}


def _ours(state: State) -> GoramiState:
    if not isinstance(state, GoramiState):
        raise TypeError(f"gorami cannot draw a {type(state).__name__}")
    return state


GAME = GoramiGame()
