"""Martian Mud Wrestling (Elliott C. Evans, 2002) as this project plays it.

Rules: docs/rules/mmw.md. This module is the registry entry (`GAME`); the position and move rules
live in `rules`, squares and the stack encoding in `board`, move and stack notation in
`notation`, the drawings in `render` (the page in `page`, mail in `mail`, the terminal in
`text`). It re-exports the test constructor `position` for scenario tests and problem positions.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pbem.games.base import Options
from pbem.games.mmw import render
from pbem.games.mmw.board import COLOURS, Pyramid
from pbem.games.mmw.notation import parse_move
from pbem.games.mmw.rules import NAME, TITLE, MMWState, from_json, new_state, position
from pbem.games.two_player import TwoPlayerGame

__all__ = ["COLOURS", "GAME", "MMWGame", "MMWState", "Pyramid", "parse_move", "position"]


class MMWGame(TwoPlayerGame[MMWState]):
    """Two players, no options: the whole game is in the rules."""

    name = NAME
    title = TITLE
    state_type = MMWState
    drawings = render

    def start(self, options: Options, seed: int) -> MMWState:
        return new_state(seed)

    def from_json(self, data: Mapping[str, Any]) -> MMWState:
        return from_json(data)

    def mail_side(self, seat: int | None) -> int | None:
        """Each seat sees the board from its own side; a spectator from the first seat's."""
        return 1 if seat == 1 else 0


GAME = MMWGame()
