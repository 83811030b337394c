"""Marram: the dune tile-laying game (rules in shared/rules/marram.md)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from pbem.games import base
from pbem.games.base import OptionValue
from pbem.games.marram.rules import LENGTHS, VARIANTS, MarramState, make_setup

__all__ = ["GAME", "MarramGame", "MarramState"]


class MarramGame:
    """The Marram rules: Classic, Pitchfork and Animals, short or long."""

    name = "marram"
    title = "Marram"
    min_players = 2
    max_players = 4
    options: Mapping[str, Sequence[OptionValue]] = {"variant": VARIANTS, "length": LENGTHS}

    def new(
        self, players: int, options: Mapping[str, Any] | None = None, seed: int = 0
    ) -> MarramState:
        base.check_players(self.name, players, self.min_players, self.max_players)
        opts = base.resolve_options(self.name, self.options, options, extra=("start", "deck"))
        setup = make_setup(
            players,
            str(opts["variant"]),
            str(opts["length"]),
            int(seed),
            opts.get("start"),
            opts.get("deck"),
        )
        return MarramState.new(setup)

    def from_json(self, data: Mapping[str, Any]) -> MarramState:
        return MarramState.from_json(data)

    def render_svg(self, state: base.State, seat: int | None = None) -> str:
        from pbem.games.marram import render

        text: str = render.render_svg(state.view(seat))
        return text

    def render_text(self, state: base.State, seat: int | None = None) -> str:
        from pbem.games.marram import render

        text: str = render.render_text(state.view(seat))
        return text


GAME = MarramGame()
