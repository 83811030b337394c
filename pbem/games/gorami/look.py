"""What GORami's drawings (`page`, `mail`, `text`) share: the seats' colours and disc shapes,
the turns they mark, and the status line.

Players are called by their colour ("Yellow to move") unless the seats' display names are given,
in which case the names label them (escaped in the SVG, shortened where space is tight).
"""

from __future__ import annotations

import math
from functools import lru_cache

from pbem.games import drawing as d
from pbem.games.base import MoveError, ending_words, seat_mark
from pbem.games.gorami.board import Board, Cell, Stripe
from pbem.games.gorami.rules import COLOURS, GoramiState
from pbem.games.messages import ENGLISH, N_, Language, Message, seat_ref
from pbem.games.two_player import Names, seat_word

DISC_FILL = ("#f5c518", "#2d6cdf")
DISC_STROKE = ("#9a7400", "#163d85")
DISC_TEXT = ("#3b2d00", "#ffffff")
INK = ("#8a6400", "#1f4fa8")  # yellow/blue as text on a light background
CELL_FILL = "#f6efdc"
CELL_STROKE = "#7a6a4f"
MARKS = tuple(seat_mark(c) for c in COLOURS)  # "Y", "B": on the last-turn badges
TURN_EDGE = ("#3b2d00", "#0b2350")  # under a seat's colour, so its marks show on any cell
# The seats named by their colours when the drawing has no names (`two_player.seat_word`).
SEAT_NAMES = (N_("Yellow"), N_("Blue"))

# A marked move: the turn, its notation, its sentence (seats as placeholders) and the cells of
# the discs it captured.
Marked = tuple[d.Turn, str, str, list[str]]

# Unit vectors along each stripe family, pointing to the end where its result is drawn.
STRIPE_DIRECTION = {
    "horizontal": (-1.0, 0.0),
    "rising": (0.5, -math.sqrt(3) / 2),
    "falling": (0.5, math.sqrt(3) / 2),
}


def stripe_end(geo: Board, stripe: Stripe) -> tuple[Cell, float, float]:
    """The cell past which a stripe's result is drawn, the one furthest along its direction (so
    the three families never collide), and that direction."""
    dx, dy = STRIPE_DIRECTION[stripe.direction]
    end = max((geo.cells[i] for i in stripe.cells), key=lambda c: (c.row * dy, c.half_col * dx))
    return end, dx, dy


def across(geo: Board) -> tuple[int, int]:
    """The grid X of the board's leftmost and rightmost corners."""
    xs = [v[0] for cell in geo.cells for v in cell.vertices]
    return min(xs), max(xs)


def centre(cell: Cell) -> tuple[float, float]:
    """A cell's centroid in grid coordinates (X in half edges, Y in rows)."""
    return cell.half_col, cell.row + (2 / 3 if cell.up else 1 / 3)


def badge_spot(
    cell: Cell, corners: list[tuple[float, float]], middle: tuple[float, float], share: float
) -> tuple[float, float]:
    """Where a marked move's badge goes on `cell` (its `corners` and `middle` as drawn): `share`
    of the way towards the right corner of its base, away from the cell's name."""
    (cx, cy), corner = middle, max(corners, key=lambda p: (p[1] if cell.up else -p[1], p[0]))
    return cx + (corner[0] - cx) * share, cy + (corner[1] - cy) * share


def fmt(v: float) -> str:
    return f"{v:.1f}".rstrip("0").rstrip(".")


def disc_paint(seat: int) -> str:
    """The fill and outline of a seat's discs."""
    return f'fill="{DISC_FILL[seat]}" stroke="{DISC_STROKE[seat]}" stroke-width="2"'


def disc_shape(cx: float, cy: float, r: float, seat: int, attrs: str) -> str:
    """A seat's disc: yellow ones round, blue ones hexagonal, so they differ by more than
    colour."""
    if seat == 0:
        return f'<circle cx="{fmt(cx)}" cy="{fmt(cy)}" r="{fmt(r)}" {attrs}/>'
    return f'<path d="{_hexagon(cx, cy, r)}" {attrs}/>'


def _hexagon(cx: float, cy: float, r: float) -> str:
    """Path data for a hexagon with flat top and bottom, about as big as a disc of radius r."""
    k = r * 1.08
    return d.polygon_d(
        (cx + k * math.cos(math.radians(a)), cy + k * math.sin(math.radians(a)))
        for a in range(0, 360, 60)
    )


@lru_cache(maxsize=32)
def _replayed(
    size: int, seed: int, history: tuple[str, ...], discs: tuple[tuple[str, str], ...]
) -> tuple[GoramiState, ...] | None:
    """The positions before each move and the last one, replayed from the start; None when the
    game did not start from the empty board (a position set up by hand)."""
    state = GoramiState.initial(size, seed)
    out = [state]
    for move in history:
        try:
            state = state.play(move)
        except MoveError:
            return None
        out.append(state)
    return tuple(out) if tuple(sorted(state.to_json()["discs"].items())) == discs else None


def marked(state: GoramiState, viewer: int | None) -> list[Marked]:
    """The moves marked for `viewer` (`drawing.marked_turns`), oldest first."""
    history = state.history
    if not history:
        return []
    discs = tuple(sorted(state.to_json()["discs"].items()))
    positions = _replayed(state.board.size, state.seed, tuple(history), discs)
    last = len(history) - 1
    if positions is None:
        # Set up by hand: only the last move is known, by the colour of the disc it placed.
        cell = history[-1][1:]
        disc = state.disc(cell)
        seat = disc[1] if disc is not None else 0
        placed = Message(
            "%(seat)s placed a %(number)s on %(cell)s",
            seat=seat_ref(seat),
            number=history[-1][0],
            cell=cell,
        )
        return [(d.Turn(seat, (last,)), history[-1], placed, state.captured())]
    turns = []
    for ply in range(len(history)):
        mover = positions[ply].to_move
        assert mover is not None
        turns.append(d.Turn(mover, (ply,)))
    out: list[Marked] = []
    for turn in d.marked_turns(turns, viewer):
        ply = turn.plies[0]
        words = positions[ply].describe(history[ply])
        out.append((turn, history[ply], words, positions[ply + 1].captured()))
    return out


def who(
    names: Names, seat: int, limit: int = 0, lang: Language = ENGLISH, capital: bool = True
) -> str:
    """The name of `seat`, or its colour word in `lang`, capitalised ("Yellow") unless not
    `capital`, when no names are given."""
    return seat_word(names, seat, COLOURS, limit, capital, lang)


def status(
    state: GoramiState, names: Names = None, limit: int = 0, lang: Language = ENGLISH
) -> tuple[str, str]:
    """A title and a one-line account of the position (not escaped), in `lang`."""
    head = lang("GORami · %(size)s-cell board", size=state.board.size)
    if state.outcome is None:
        assert state.to_move is not None
        now = who(names, state.to_move, limit, lang)
        moves = marked(state, None)
        if not moves:
            return head, lang("%(seat)s to move", seat=now)
        mover = who(names, moves[-1][0].seat, limit, lang)
        return head, lang(
            "%(seat)s to move · %(mover)s played %(move)s",
            seat=now,
            mover=mover,
            move=state.history[-1],
        )
    return head, _result_words(state, names, limit, lang)


def _result_words(state: GoramiState, names: Names, limit: int, lang: Language) -> str:
    outcome = state.outcome
    assert outcome is not None
    settled = ending_words(outcome, [who(names, s, limit, lang) for s in range(2)])
    if settled is not None:
        return settled
    fish = outcome.details["fish"]
    interior = outcome.details["interior"]
    full = outcome.reason == "board-full"
    if not outcome.winners:
        result = lang(
            "draw (%(fish)s fish each, interior %(interior)s each)",
            fish=fish[0],
            interior=interior[0],
        )
    else:
        win = outcome.winners[0]
        winner = who(names, win, limit, lang)
        if outcome.details["tiebreak"] == "fish":
            result = lang(
                "%(winner)s wins with %(fish)s fish to %(other)s",
                winner=winner,
                fish=fish[win],
                other=fish[1 - win],
            )
        else:
            result = lang(
                "%(winner)s wins on the interior, %(interior)s to %(other)s (%(fish)s fish each)",
                winner=winner,
                interior=interior[win],
                other=interior[1 - win],
                fish=fish[0],
            )
    if full:
        return lang("Board full: %(result)s", result=result)
    return lang("No one can place: %(result)s", result=result)
