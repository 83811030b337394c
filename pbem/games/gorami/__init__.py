"""GORami: place numbered discs on a triangular board, capture by closing in, win fish per stripe.

Rules: docs/rules/gorami.md. This module is the registry entry (`GAME`); the position and rules
live in `rules`, move notation in `notation`, board geometry in `board`, drawing in `render`
(the page in `page`, mail in `mail`, the terminal in `text`). It re-exports what tests and tools
use: `GoramiState`, `setup` (a position from its parts) and the constants.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pbem.games.base import Options
from pbem.games.gorami import render
from pbem.games.gorami.notation import NUMBERS
from pbem.games.gorami.rules import COLOURS, NAME, GoramiState, setup
from pbem.games.two_player import TwoPlayerGame

__all__ = ["COLOURS", "GAME", "NAME", "NUMBERS", "GoramiGame", "GoramiState", "setup"]


class GoramiGame(TwoPlayerGame[GoramiState]):
    """The GORami rules for the registry."""

    name = NAME
    title = "GORami"
    options: Mapping[str, tuple[int, ...]] = {"board": (22, 16, 24)}
    state_type = GoramiState
    drawings = render

    def start(self, options: Options, seed: int) -> GoramiState:
        return GoramiState.initial(int(options["board"]), int(seed))

    def from_json(self, data: Mapping[str, Any]) -> GoramiState:
        return GoramiState.from_json(data)


GAME = GoramiGame()
