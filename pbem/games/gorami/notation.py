"""GORami notation: reading and writing moves (`2b3`, a disc number and a cell) and discs (`y2`).

Rules: docs/rules/gorami.md ("Notation"). The lookups here are precomputed per board because move
parsing and legal-move listing are the engine's hot path.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import cache

from pbem.games.base import InvalidMove, shorten
from pbem.games.gorami.board import Board, board
from pbem.games.messages import N_, Message

NUMBERS = (1, 2, 3)
MOVE_RE = re.compile(r"^(\d+)([a-z])(\d+)$")
DISC_RE = re.compile(r"^([yb])([123])$")
FORM = N_("write a disc number 1-3 followed by a cell, e.g. 2b3")
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


# The engine packs three cell masks, one per disc number, into one int: number n's cells at bit
# FIELD * (n - 1) + cell. One mask operation then serves all three numbers at once.
FIELD = 32
REPEAT = 1 | 1 << FIELD | 1 << 2 * FIELD  # a cell mask times REPEAT: the mask in every field
# Hands are six 4-bit counts in one int, seat * 3 + (number - 1) -> count.
HAND_BITS = 4
HAND_MASK = (1 << HAND_BITS) - 1
SEAT_HAND_BITS = 3 * HAND_BITS  # one seat's three counts
SEAT_HAND_MASK = (1 << SEAT_HAND_BITS) - 1
# For each hand of one seat: the fields of the numbers it still holds, all ones.
HOLDING = tuple(
    sum(((1 << FIELD) - 1) << FIELD * n for n in range(3) if hand >> HAND_BITS * n & HAND_MASK)
    for hand in range(1 << SEAT_HAND_BITS)
)
# The tally: per stripe yellow's sum minus blue's, TALLY_BITS each, kept biased by STRIPE_BIAS so
# that no field ever goes negative and the packed int is their exact sum; above the stripes,
# yellow's and blue's sums on the interior cells. A move adds a constant to it.
TALLY_BITS = 8
STRIPE_BIAS = 64

# The data of one canonical move for `play`: number index, cell index, the cell's bit, that bit
# in the number's field, the cell's edge neighbours as a mask, the mask keeping the cells still
# open after it (the cell for every number, its neighbours for this number), the neighbours'
# indices, the hand decrement per seat and the tally change per seat.
Step = tuple[int, int, int, int, int, int, tuple[int, ...], tuple[int, int], tuple[int, int]]


def _move_lists(names: list[str]) -> tuple[tuple[str, ...], ...]:
    """For each value of a mask over `names`, the names of its bits, lowest bit first."""
    out: list[tuple[str, ...]] = [()]
    for value in range(1, 1 << len(names)):
        low = value & -value
        out.append((names[low.bit_length() - 1], *out[value ^ low]))
    return tuple(out)


class MoveTables:
    """Per-board lookups for the hot path: move parsing, playing and legal-move listing."""

    def __init__(self, geo: Board) -> None:
        self.geo = geo
        self.full = geo.full_mask
        self.neighbour_masks = geo.neighbour_masks
        self.full_hands = sum(geo.discs_per_number << HAND_BITS * i for i in range(6))
        # canonical move -> (number index 0..2, cell index)
        self.moves: dict[str, tuple[int, int]] = {
            move_text(n, cell.name): (n - 1, cell.index) for n in NUMBERS for cell in geo.cells
        }
        # Each cell's unit in the tally: one in each of its three stripes, and in a seat's
        # interior field when the cell is interior.
        count = len(geo.stripes)
        share = [0] * len(geo.cells)
        for s, stripe in enumerate(geo.stripes):
            for i in stripe.cells:
                share[i] += 1 << TALLY_BITS * s
        interior = [
            (1 << TALLY_BITS * count, 1 << TALLY_BITS * (count + 1))
            if geo.interior_mask >> i & 1
            else (0, 0)
            for i in range(len(geo.cells))
        ]
        self.stripe_count = count
        self.tally_start = sum(STRIPE_BIAS << TALLY_BITS * s for s in range(count))
        top = 1 << (TALLY_BITS - 1)
        self.stripe_tops = sum(top << TALLY_BITS * s for s in range(count))
        # Added to the tally, these carry into a stripe field's top bit exactly when yellow's sum
        # is above blue's (first) or not below it (second).
        self.stripe_ahead = sum((top - STRIPE_BIAS - 1) << TALLY_BITS * s for s in range(count))
        self.stripe_level = sum((top - STRIPE_BIAS) << TALLY_BITS * s for s in range(count))
        self.interior_shift = TALLY_BITS * count
        # The discs on a cell changing from blue to yellow (negated: the other way), by the
        # numbers on it as `(nums >> cell) & REPEAT` gives them: one number, unless a hand-made
        # position put two on the cell, and then each counts, as in the stripe sums.
        self.turned = tuple(
            {
                sum(1 << FIELD * n for n in numbers): sum(
                    (n + 1) * (2 * share[i] + interior[i][0] - interior[i][1]) for n in numbers
                )
                for numbers in ((0,), (1,), (2,), (0, 1), (0, 2), (1, 2), (0, 1, 2))
            }
            for i in range(len(geo.cells))
        )
        # A disc placed, per seat.
        self.placed = tuple(
            tuple(
                (
                    (n + 1) * (share[i] + interior[i][0]),
                    (n + 1) * (interior[i][1] - share[i]),
                )
                for n in range(3)
            )
            for i in range(len(geo.cells))
        )
        self.steps = self._steps()
        # Legal moves are listed half a field of the packed mask at a time. Board order is the
        # sorted order of the move strings (rows a-d, at most 7 cells a row) and numbers come
        # first in a move, so the list comes out sorted.
        names = [cell.name for cell in geo.cells]
        assert names == sorted(names)
        half = (len(names) + 1) // 2
        self.half = half
        self.listing = tuple(
            _move_lists([move_text(n, name) for name in part])
            for n in NUMBERS
            for part in (names[:half], names[half:])
        )

    def _steps(self) -> dict[str, Step]:
        """What `play` needs of each canonical move (`Step`)."""
        geo = self.geo
        steps: dict[str, Step] = {}
        for text, (n, cell) in self.moves.items():
            bit = 1 << cell
            near = geo.neighbour_masks[cell]
            steps[text] = (
                n,
                cell,
                bit,
                bit << FIELD * n,
                near,
                ~(bit * REPEAT | near << FIELD * n),
                geo.neighbours[cell],
                (1 << HAND_BITS * n, 1 << HAND_BITS * (3 + n)),
                self.placed[cell][n],
            )
        return steps

    def __reduce__(self) -> tuple[Callable[[int], MoveTables], tuple[int]]:
        """Pickled and copied as the board's shared tables (a state refers to them), not as the
        megabyte of move lists they hold."""
        return tables, (self.geo.size,)


@cache
def tables(size: int) -> MoveTables:
    return MoveTables(board(size))


def parse_move(t: MoveTables, move: str) -> tuple[int, int]:
    """(number index 0..2, cell index) of a move in any accepted spelling (spaces, capitals);
    raises InvalidMove saying what a move looks like."""
    if not isinstance(move, str):
        raise InvalidMove(
            Message(
                "%(move)s: a move is text such as 2b3 (a disc number and a cell)",
                move=shorten(repr(move)),
            )
        )
    shown = move.strip()
    if len(shown) > MAX_LENGTH:
        raise InvalidMove(
            Message.counted(
                "%(move)s is not a GORami move: it is %(n)s character long; %(form)s",
                "%(move)s is not a GORami move: it is %(n)s characters long; %(form)s",
                len(shown),
                move=shorten(repr(shown)),
                form=Message(FORM),
            )
        )
    text = "".join(move.split()).lower()
    parsed = t.moves.get(text)
    if parsed is not None:
        return parsed
    geo = t.geo
    match = MOVE_RE.match(text)
    if match is None:
        raise InvalidMove(
            Message(
                "%(move)s is not a GORami move; %(form)s",
                move=shorten(repr(shown)),
                form=Message(FORM),
            )
        )
    number, cell = int(match.group(1)), match.group(2) + match.group(3)
    if number not in NUMBERS:
        raise InvalidMove(
            Message(
                "%(move)s: there is no disc numbered %(number)s; discs are numbered 1, 2 and 3",
                move=shown,
                number=match.group(1),
            )
        )
    plain = move_text(number, f"{match.group(2)}{int(match.group(3))}")
    if plain in t.moves:  # leading zeros
        raise InvalidMove(
            Message("%(move)s: write this move as %(plain)s", move=shown, plain=plain)
        )
    raise InvalidMove(
        Message(
            "%(move)s: there is no cell %(cell)s on the %(size)s-cell board; its cells are "
            "%(cells)s",
            move=shown,
            cell=cell,
            size=geo.size,
            cells=geo.describe_cells(),
        )
    )
