"""Martian Mud Wrestling notation: moves (`b1-c2`) and stacks (`r1 r2 b3'`, bottom first).

Rules: docs/rules/mmw.md ("Notation").
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from pbem.games.base import InvalidMove, shorten
from pbem.games.messages import N_, Message
from pbem.games.mmw.board import (
    CELLS,
    NEIGHBOURS,
    PYRAMIDS,
    SIZE,
    SQUARE_INDEX,
    SQUARE_NAMES,
    TOP_FIELD,
    build_stack,
)

# --- moves -----------------------------------------------------------------------------------


def move_text(frm: int, to: int) -> str:
    """The canonical move from square index `frm` to `to`: `b1-c2`."""
    return f"{SQUARE_NAMES[frm]}-{SQUARE_NAMES[to]}"


# Moves out of each square, already in sorted order.
MOVES_FROM: tuple[tuple[str, ...], ...] = tuple(
    tuple(move_text(i, j) for j in NEIGHBOURS[i]) for i in range(CELLS)
)
MOVE_SQUARES: dict[str, tuple[int, int]] = {
    move_text(i, j): (i, j) for i in range(CELLS) for j in NEIGHBOURS[i]
}

# What `play` needs of a canonical move: the squares, the mask that clears both seats' top bits
# of both squares, and the origin's and the destination's top bit per seat (and 0 for the origin
# left empty, board.TOP_SEAT's seat 2).
Step = tuple[int, int, int, tuple[int, int, int], tuple[int, int]]


def _step(frm: int, to: int) -> Step:
    from_bits = (1 << frm, 1 << (TOP_FIELD + frm), 0)
    to_bits = (1 << to, 1 << (TOP_FIELD + to))
    return frm, to, ~(sum(from_bits) | sum(to_bits)), from_bits, to_bits


MOVE_STEPS: dict[str, Step] = {move: _step(*squares) for move, squares in MOVE_SQUARES.items()}

# The moves out of the squares of one file (five squares, five bits of a seat's tops), for each
# value of those bits, in sorted order.
MOVES_BY_FILE: tuple[tuple[tuple[str, ...], ...], ...] = tuple(
    tuple(
        tuple(move for r in range(SIZE) if bits >> r & 1 for move in MOVES_FROM[f * SIZE + r])
        for bits in range(1 << SIZE)
    )
    for f in range(SIZE)
)


# Matched against text whose whitespace is already one space at most, hence ` ?` rather than
# `\s*` on both sides of the dash: two unbounded runs over the same characters backtrack
# quadratically.
MOVE_RE = re.compile(r"([a-z])(\d{1,3}) ?[-–—]? ?([a-z])(\d{1,3})")
FORMAT_HINT = N_("write a move as <from>-<to>, for example b1-c2")
# A move is five characters ("b1-c2"); longer input is refused before it is read, so no input
# costs more than a short one.
MAX_LENGTH = 32


def _square(name: str, raw: str) -> int:
    index = SQUARE_INDEX.get(name)
    if index is None:
        raise InvalidMove(
            Message(
                "'%(move)s' is not a move on this board: there is no square %(square)s (files a "
                "to e, ranks 1 to 5)",
                move=raw,
                square=name,
            )
        )
    return index


def _not_a_move(shown: str) -> Message:
    return Message("'%(move)s' is not a move: %(hint)s", move=shown, hint=Message(FORMAT_HINT))


def parse_move(raw: str) -> tuple[int, int]:
    """Squares (from, to) of a move; raises InvalidMove when the text is not a move."""
    if not isinstance(raw, str):
        raise InvalidMove(_not_a_move(shorten(repr(raw))))
    stripped = raw.strip()
    if len(stripped) > MAX_LENGTH:
        raise InvalidMove(
            Message.counted(
                "'%(move)s' is not a move: it is %(n)s character long; %(hint)s",
                "'%(move)s' is not a move: it is %(n)s characters long; %(hint)s",
                len(stripped),
                move=shorten(stripped),
                hint=Message(FORMAT_HINT),
            )
        )
    shown = " ".join(raw.split())
    found = MOVE_SQUARES.get(shown.lower())
    if found is not None:
        return found
    m = MOVE_RE.fullmatch(shown.lower())
    if m is None:
        if not shown:
            raise InvalidMove(
                Message("'' (nothing) is not a move: %(hint)s", hint=Message(FORMAT_HINT))
            )
        raise InvalidMove(_not_a_move(shown))
    return _square(m.group(1) + m.group(2), shown), _square(m.group(3) + m.group(4), shown)


# --- stacks ----------------------------------------------------------------------------------


def stack_text(stack: str) -> str:
    """`r1r2r3`, `b1b1'`: the stack bottom first, `'` after each resting pyramid."""
    return "".join(PYRAMIDS[ch].token() for ch in stack)


_TOKEN = re.compile(r"([rb])([123])(')?")


def parse_stack(text: str | Sequence[str], where: str = "stack") -> str:
    """Parse `r1 r2 b3'` (or a list of such tokens) into a stack, checking any `'` marks."""
    joined = text if isinstance(text, str) else " ".join(text)
    squeezed = re.sub(r"[\s,]+", "", joined.lower())
    pos = 0
    pieces: list[tuple[int, int]] = []
    marks: list[bool | None] = []
    while pos < len(squeezed):
        m = _TOKEN.match(squeezed, pos)
        if m is None:
            raise ValueError(f"{where}: cannot read {joined!r}; write pyramids like r1 b3 r2'")
        pieces.append((0 if m.group(1) == "r" else 1, int(m.group(2))))
        marks.append(False if m.group(3) else None)
        pos = m.end()
    stack = build_stack(pieces)
    for i, (ch, mark) in enumerate(zip(stack, marks, strict=True)):
        if mark is False and ch in "abcABC":
            raise ValueError(
                f"{where}: pyramid {i + 1} of {joined!r} is marked resting, "
                "but it is larger than everything below it, so it touches the board"
            )
    return stack
