"""Marram move notation (rules section 7): parsing tolerant input and writing the canonical form."""

from __future__ import annotations

import re
from typing import NamedTuple

from pbem.games.base import InvalidMove, shorten
from pbem.games.marram.tiles import QUADRANT_INDEX, SPOKE_INDEX
from pbem.games.messages import N_, Message

ROTATION_WORDS = {"0": 0, "90": 1, "180": 2, "270": 3}
_INT = re.compile(r"[+-]?\d+")
# The longest canonical move is about 35 characters ("place 53 -12,-10 270 boot NW bet N");
# anything much longer is refused before it is read, so no input costs more than a short one.
MAX_LENGTH = 100
USAGE = N_(
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


def _bad(text: str, problem: Message) -> InvalidMove:
    return InvalidMove(
        Message(
            "'%(move)s' is not a Marram move: %(problem)s; %(usage)s",
            move=shorten(text),
            problem=problem,
            usage=Message(USAGE),
        )
    )


def _close_commas(text: str) -> str:
    # "1 , 2" reads as "1,2". Split and strip rather than a regex around the comma: `\s*,\s*`
    # retries every run of spaces from each of its starts, quadratic in the run's length.
    return ",".join(part.strip() for part in text.split(","))


def _int(word: str, text: str, what: str) -> int:
    """`word` as a number; else refused with the message `what` (its %(word)s the word)."""
    if not _INT.fullmatch(word):
        raise _bad(text, Message(what, word=shorten(repr(word))))
    return int(word)


def parse(text: str) -> Move:
    """Parse a move; raises InvalidMove naming the input when it cannot be read."""
    if not isinstance(text, str):
        raise InvalidMove(
            Message(
                "a move must be text, not %(value)s; %(usage)s",
                value=shorten(repr(text)),
                usage=Message(USAGE),
            )
        )
    shown = text.strip()
    if len(shown) > MAX_LENGTH:
        raise _bad(
            shown,
            Message.counted(
                "it is %(n)s character long, and a move is at most %(most)s",
                "it is %(n)s characters long, and a move is at most %(most)s",
                len(shown),
                most=MAX_LENGTH,
            ),
        )
    words = _close_commas(shown.lower()).split()
    if not words:
        raise InvalidMove(Message("the move is empty; %(usage)s", usage=Message(USAGE)))
    head, rest = words[0], words[1:]
    if head == "pass":
        if rest:
            raise _bad(shown, Message("'pass' takes nothing after it"))
        return Move("pass")
    if head == "place":
        if len(rest) < 3:
            raise _bad(shown, Message("'place' needs a tile number, a position x,y and a rotation"))
        tile = _int(rest[0], shown, N_("tile number %(word)s is not a whole number"))
        if tile < 0:
            raise _bad(shown, Message("tile number %(tile)s cannot be negative", tile=tile))
        rest = rest[1:]
    elif head == "flip":
        if len(rest) < 2:
            raise _bad(shown, Message("'flip' needs a position x,y and a rotation"))
        tile = -1
    else:
        raise _bad(
            shown,
            Message(
                "it must start with place, flip or pass, not %(word)s", word=shorten(repr(head))
            ),
        )
    coords = rest[0].split(",")
    if len(coords) != 2:
        raise _bad(
            shown,
            Message(
                "position %(word)s must be written x,y (for example 1,-2)",
                word=shorten(repr(rest[0])),
            ),
        )
    pos = (
        _int(coords[0], shown, N_("x %(word)s is not a whole number")),
        _int(coords[1], shown, N_("y %(word)s is not a whole number")),
    )
    if rest[1] not in ROTATION_WORDS:
        raise _bad(
            shown,
            Message("rotation %(word)s must be 0, 90, 180 or 270", word=shorten(repr(rest[1]))),
        )
    k = ROTATION_WORDS[rest[1]]
    claim, loc, bet = _tokens(rest[2:], shown)
    return Move(head, tile, pos, k, claim, loc, bet)


def _tokens(extra: list[str], shown: str) -> tuple[str, str, str]:
    """What follows the rotation: the claim ("boot"/"fork"), its location and the bet's spoke,
    each "" when absent."""
    claim = loc = bet = ""
    i = 0
    while i < len(extra):
        word = extra[i]
        if i + 1 >= len(extra):
            raise _bad(
                shown, Message("%(word)s must be followed by a location", word=shorten(repr(word)))
            )
        arg = extra[i + 1].upper()
        if word in ("boot", "fork"):
            if claim:
                raise _bad(shown, Message("only one claim token can be placed in an action"))
            if arg not in QUADRANT_INDEX and arg not in SPOKE_INDEX:
                raise _bad(
                    shown,
                    Message(
                        "claim location %(word)s must be a quadrant (NW NE SE SW) or a spoke "
                        "(N E S W)",
                        word=shorten(repr(extra[i + 1])),
                    ),
                )
            claim, loc = word, arg
        elif word == "bet":
            if bet:
                raise _bad(shown, Message("only one bet token can be placed in an action"))
            if arg not in SPOKE_INDEX:
                raise _bad(
                    shown,
                    Message(
                        "a bet names the spoke of a prey (N E S W), not %(word)s",
                        word=shorten(repr(arg)),
                    ),
                )
            bet = arg
        else:
            raise _bad(
                shown,
                Message(
                    "unexpected %(word)s; after the rotation come boot, fork or bet",
                    word=shorten(repr(word)),
                ),
            )
        i += 2
    return claim, loc, bet
