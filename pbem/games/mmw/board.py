"""The Martian Mud Wrestling board: squares, adjacency, pyramids and how stacks are stored.

Rules: docs/rules/mmw.md. Representation (chosen for copy-on-play speed):

- The board is a tuple of 25 stacks indexed ``file * 5 + rank`` so that index order is the
  sorted order of square names (``a1 < a2 < … < e5``); legal moves then come out sorted for free.
- A stack is a ``str``, bottom first, one character per pyramid: ``abc``/``def`` are red
  (seat 0) sizes 1–3 touching/resting, ``ABC``/``DEF`` the same for blue (seat 1).

A pyramid's touching status is fixed when it arrives (strictly larger than everything already
there) and the pyramids below it are exactly those that were there when it arrived (only tops
leave), so the status is a function of the stack below it. The engine still stores it per
pyramid because it makes sinking a constant-time sum; `build_stack` derives it.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import NamedTuple

COLOURS = ("red", "blue")
SIZE_NAMES = ("small", "medium", "large")
FILES = "abcde"
SIZE = 5
CELLS = SIZE * SIZE
PER_KIND = 5  # pyramids of each size per player
PER_PLAYER = PER_KIND * 3

Board = tuple[str, ...]
# A state keeps the squares each seat's pyramids top as one int: bit i for red on square i,
# bit TOP_FIELD + i for blue.
TOP_FIELD = 32


class Pyramid(NamedTuple):
    """One pyramid as the rules see it."""

    seat: int
    size: int
    touching: bool

    @property
    def colour(self) -> str:
        return COLOURS[self.seat]

    @property
    def points(self) -> int:
        return self.size

    def token(self) -> str:
        """Text form: `r3`, `b1'` (the mark means it rests and does not touch the board)."""
        mark = "" if self.touching else "'"
        return f"{COLOURS[self.seat][0]}{self.size}{mark}"


# --- squares and adjacency -------------------------------------------------------------------

SQUARE_NAMES: tuple[str, ...] = tuple(f"{f}{r}" for f in FILES for r in range(1, SIZE + 1))
SQUARE_INDEX: dict[str, int] = {name: i for i, name in enumerate(SQUARE_NAMES)}


def _neighbours(index: int) -> tuple[int, ...]:
    f, r = divmod(index, SIZE)
    out = [
        (f + df) * SIZE + (r + dr)
        for df in (-1, 0, 1)
        for dr in (-1, 0, 1)
        if (df or dr) and 0 <= f + df < SIZE and 0 <= r + dr < SIZE
    ]
    return tuple(sorted(out))


NEIGHBOURS: tuple[tuple[int, ...], ...] = tuple(_neighbours(i) for i in range(CELLS))


def square_index(file: int, rank: int) -> int:
    """Index of the square on file 0–4 (a–e) and rank 0–4 (1–5)."""
    return file * SIZE + rank


# --- pyramid characters ----------------------------------------------------------------------

_CHARS = {
    (0, 1, True): "a",
    (0, 2, True): "b",
    (0, 3, True): "c",
    (0, 1, False): "d",
    (0, 2, False): "e",
    (0, 3, False): "f",
    (1, 1, True): "A",
    (1, 2, True): "B",
    (1, 3, True): "C",
    (1, 1, False): "D",
    (1, 2, False): "E",
    (1, 3, False): "F",
}
PYRAMIDS: dict[str, Pyramid] = {ch: Pyramid(*key) for key, ch in _CHARS.items()}
SEAT_OF: dict[str, int] = {ch: p.seat for ch, p in PYRAMIDS.items()}
# The seat whose pyramid tops a stack, by the stack's last character (`stack[-1:]`); 2 for none.
TOP_SEAT: dict[str, int] = {"": 2, **SEAT_OF}
SIZE_OF: dict[str, int] = {ch: p.size for ch, p in PYRAMIDS.items()}
AS_TOUCHING: dict[str, str] = {ch: _CHARS[(p.seat, p.size, True)] for ch, p in PYRAMIDS.items()}
AS_RESTING: dict[str, str] = {ch: _CHARS[(p.seat, p.size, False)] for ch, p in PYRAMIDS.items()}

NEST = ("abc", "ABC")  # small, medium, large: each drops over the ones below, so all touch


def pyramid_char(seat: int, size: int, touching: bool) -> str:
    return _CHARS[(seat, size, touching)]


# stack -> (largest size, touching points, resting points). A memo, not game state: the same
# few hundred stacks come up again and again and the answer never depends on anything else.
STACK_INFO: dict[str, tuple[int, int, int]] = {"": (0, 0, 0)}
_INFO_LIMIT = 200_000


def stack_info(stack: str) -> tuple[int, int, int]:
    """(largest size, touching points, resting points) of a stack."""
    found = STACK_INFO.get(stack)
    if found is not None:
        return found
    largest = touching = resting = 0
    for ch in stack:
        size = SIZE_OF[ch]
        largest = max(largest, size)
        if ch in "abcABC":
            touching += size
        else:
            resting += size
    if len(STACK_INFO) > _INFO_LIMIT:
        STACK_INFO.clear()
        STACK_INFO[""] = (0, 0, 0)
    found = STACK_INFO[stack] = (largest, touching, resting)
    return found


# stack + the character of a pyramid arriving on it -> the stack after it arrived (the pyramid's
# status set by the arrival rule), or "" when it sinks. A memo like STACK_INFO, read directly by
# `play`, which calls `arrive` only for a stack and pyramid it does not hold yet.
ARRIVALS: dict[str, str] = {}


def arrive(stack: str, piece: str) -> str:
    """The stack once `piece` arrives on it, or "" when it then sinks (touching < resting)."""
    largest, touching, resting = stack_info(stack)
    size = SIZE_OF[piece]
    if size > largest:
        status = AS_TOUCHING[piece]
        touching += size
    else:
        status = AS_RESTING[piece]
        resting += size
    after = "" if touching < resting else stack + status
    if len(ARRIVALS) > _INFO_LIMIT:
        ARRIVALS.clear()
    ARRIVALS[stack + piece] = after
    return after


def build_stack(pieces: Iterable[tuple[int, int]]) -> str:
    """A stack from (seat, size) pairs bottom first, touching status by the arrival rule."""
    out = []
    largest = 0
    for seat, size in pieces:
        out.append(pyramid_char(seat, size, size > largest))
        largest = max(largest, size)
    return "".join(out)


def stack_pyramids(stack: str) -> list[Pyramid]:
    return [PYRAMIDS[ch] for ch in stack]


def initial_board() -> Board:
    board = [""] * CELLS
    for f in range(SIZE):
        board[square_index(f, 0)] = NEST[0]
        board[square_index(f, SIZE - 1)] = NEST[1]
    return tuple(board)
