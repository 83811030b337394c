"""Marram move notation (rules section 7): parsing tolerant input and writing the canonical form."""

from __future__ import annotations

import re
from typing import NamedTuple

from pbem.games.base import InvalidMove, shorten
from pbem.games.marram.tiles import QUADRANT_INDEX, SPOKE_INDEX

ROTATION_WORDS = {"0": 0, "90": 1, "180": 2, "270": 3}
_INT = re.compile(r"[+-]?\d+")
# The longest canonical move is about 35 characters ("place 53 -12,-10 270 boot NW bet N");
# anything much longer is refused before it is read, so no input costs more than a short one.
MAX_LENGTH = 100
USAGE = (
    "write 'place <tile> <x>,<y> <rotation> [boot|fork <loc>] [bet <spoke>]', "
    "'flip <x>,<y> <rotation> [boot|fork <loc>] [bet <spoke>]' or 'pass'"
)


class Move(NamedTuple):
    action: str  # "place", "flip" or "pass"
    tile: int = -1
    pos: tuple[int, int] = (0, 0)
    k: int = 0  # rotation / 90
    claim: str = ""  # "", "boot" or "fork"
    loc: str = ""  # quadrant or spoke name, upper case
    bet: str = ""  # spoke name, upper case

    def canonical(self) -> str:
        if self.action == "pass":
            return "pass"
        where = f"{self.pos[0]},{self.pos[1]} {self.k * 90}"
        text = f"place {self.tile} {where}" if self.action == "place" else f"flip {where}"
        if self.claim:
            text += f" {self.claim} {self.loc}"
        if self.bet:
            text += f" bet {self.bet}"
        return text


def _bad(text: str, problem: str) -> InvalidMove:
    return InvalidMove(f"'{shorten(text)}' is not a Marram move: {problem}; {USAGE}")


def _close_commas(text: str) -> str:
    # "1 , 2" reads as "1,2". Split and strip rather than a regex around the comma: `\s*,\s*`
    # retries every run of spaces from each of its starts, quadratic in the run's length.
    return ",".join(part.strip() for part in text.split(","))


def _int(word: str, text: str, what: str) -> int:
    if not _INT.fullmatch(word):
        raise _bad(text, f"{what} {shorten(repr(word))} is not a whole number")
    return int(word)


def parse(text: str) -> Move:
    """Parse a move; raises InvalidMove naming the input when it cannot be read."""
    if not isinstance(text, str):
        raise InvalidMove(f"a move must be text, not {shorten(repr(text))}; {USAGE}")
    shown = text.strip()
    if len(shown) > MAX_LENGTH:
        raise _bad(shown, f"it is {len(shown)} characters long, and a move is at most {MAX_LENGTH}")
    words = _close_commas(shown.lower()).split()
    if not words:
        raise InvalidMove(f"the move is empty; {USAGE}")
    head, rest = words[0], words[1:]
    if head == "pass":
        if rest:
            raise _bad(shown, "'pass' takes nothing after it")
        return Move("pass")
    if head == "place":
        if len(rest) < 3:
            raise _bad(shown, "'place' needs a tile number, a position x,y and a rotation")
        tile = _int(rest[0], shown, "tile number")
        if tile < 0:
            raise _bad(shown, f"tile number {tile} cannot be negative")
        rest = rest[1:]
    elif head == "flip":
        if len(rest) < 2:
            raise _bad(shown, "'flip' needs a position x,y and a rotation")
        tile = -1
    else:
        raise _bad(shown, f"it must start with place, flip or pass, not {shorten(repr(head))}")
    coords = rest[0].split(",")
    if len(coords) != 2:
        raise _bad(
            shown, f"position {shorten(repr(rest[0]))} must be written x,y (for example 1,-2)"
        )
    pos = (_int(coords[0], shown, "x"), _int(coords[1], shown, "y"))
    if rest[1] not in ROTATION_WORDS:
        raise _bad(shown, f"rotation {shorten(repr(rest[1]))} must be 0, 90, 180 or 270")
    k = ROTATION_WORDS[rest[1]]
    claim = loc = bet = ""
    extra = rest[2:]
    i = 0
    while i < len(extra):
        word = extra[i]
        if i + 1 >= len(extra):
            raise _bad(shown, f"{shorten(repr(word))} must be followed by a location")
        arg = extra[i + 1].upper()
        if word in ("boot", "fork"):
            if claim:
                raise _bad(shown, "only one claim token can be placed in an action")
            if arg not in QUADRANT_INDEX and arg not in SPOKE_INDEX:
                raise _bad(
                    shown,
                    f"claim location {shorten(repr(extra[i + 1]))} must be a quadrant "
                    "(NW NE SE SW) or a spoke (N E S W)",
                )
            claim, loc = word, arg
        elif word == "bet":
            if bet:
                raise _bad(shown, "only one bet token can be placed in an action")
            if arg not in SPOKE_INDEX:
                raise _bad(
                    shown, f"a bet names the spoke of a prey (N E S W), not {shorten(repr(arg))}"
                )
            bet = arg
        else:
            raise _bad(
                shown,
                f"unexpected {shorten(repr(word))}; after the rotation come boot, fork or bet",
            )
        i += 2
    return Move(head, tile, pos, k, claim, loc, bet)
