"""GORami notation: reading and writing moves (`2b3`, a disc number and a cell) and discs (`y2`).

Rules: docs/rules/gorami.md ("Notation"). The lookups here are precomputed per board because move
parsing and legal-move listing are the engine's hot path.
"""

from __future__ import annotations

import re
from functools import cache

from pbem.games.base import InvalidMove, shorten
from pbem.games.gorami.board import Board, board

NUMBERS = (1, 2, 3)
MOVE_RE = re.compile(r"^(\d+)([a-z])(\d+)$")
DISC_RE = re.compile(r"^([yb])([123])$")
FORM = "write a disc number 1-3 followed by a cell, e.g. 2b3"
# A move is three characters ("2b3"); longer input is refused before it is read, so no input
# costs more than a short one.
MAX_LENGTH = 32


def move_text(number: int, cell: str) -> str:
    """The canonical move placing a disc `number` on the cell called `cell`."""
    return f"{number}{cell}"


def disc_code(number: int, seat: int) -> str:
    """A disc as stored in JSON: `y2` for a yellow 2, `b3` for a blue 3."""
    return "yb"[seat] + str(number)


def parse_disc(code: str) -> tuple[int, int] | None:
    """(number index 0..2, seat) of a disc code such as `y2`, or None when it is not one."""
    match = DISC_RE.match(code.strip().lower())
    if match is None:
        return None
    return int(match.group(2)) - 1, "yb".index(match.group(1))


def _byte_table(geo: Board, number: int, chunk: int) -> tuple[tuple[str, ...], ...]:
    """For each byte value, the moves of `number` on the cells of that byte of a cell mask."""
    cells = geo.cells[8 * chunk : 8 * chunk + 8]
    return tuple(
        tuple(move_text(number, cell.name) for bit, cell in enumerate(cells) if byte >> bit & 1)
        for byte in range(256)
    )


class MoveTables:
    """Per-board lookups for the hot path: move parsing and legal-move listing."""

    def __init__(self, geo: Board) -> None:
        self.geo = geo
        # canonical move -> (number index 0..2, cell index)
        self.moves: dict[str, tuple[int, int]] = {
            move_text(n, cell.name): (n - 1, cell.index) for n in NUMBERS for cell in geo.cells
        }
        # Legal moves are listed a byte of the cell mask at a time. Board order is the sorted
        # order of the move strings (rows a-d, at most 7 cells a row), so the list comes out sorted.
        names = [cell.name for cell in geo.cells]
        assert names == sorted(names)
        chunks = (len(geo.cells) + 7) // 8
        self.by_byte = tuple(
            tuple(_byte_table(geo, n, chunk) for chunk in range(chunks)) for n in NUMBERS
        )


@cache
def tables(size: int) -> MoveTables:
    return MoveTables(board(size))


def parse_move(t: MoveTables, move: str) -> tuple[int, int]:
    """(number index 0..2, cell index) of a move in any accepted spelling (spaces, capitals);
    raises InvalidMove saying what a move looks like."""
    if not isinstance(move, str):
        raise InvalidMove(
            f"{shorten(repr(move))}: a move is text such as 2b3 (a disc number and a cell)"
        )
    shown = move.strip()
    if len(shown) > MAX_LENGTH:
        raise InvalidMove(
            f"{shorten(repr(shown))} is not a GORami move: it is {len(shown)} characters "
            f"long; {FORM}"
        )
    text = "".join(move.split()).lower()
    parsed = t.moves.get(text)
    if parsed is not None:
        return parsed
    geo = t.geo
    match = MOVE_RE.match(text)
    if match is None:
        raise InvalidMove(f"{shorten(repr(shown))} is not a GORami move; {FORM}")
    number, cell = int(match.group(1)), match.group(2) + match.group(3)
    if number not in NUMBERS:
        raise InvalidMove(
            f"{shown}: there is no disc numbered {match.group(1)}; discs are numbered 1, 2 and 3"
        )
    plain = move_text(number, f"{match.group(2)}{int(match.group(3))}")
    if plain in t.moves:  # leading zeros
        raise InvalidMove(f"{shown}: write this move as {plain}")
    raise InvalidMove(
        f"{shown}: there is no cell {cell} on the {geo.size}-cell board; "
        f"its cells are {geo.describe_cells()}"
    )
