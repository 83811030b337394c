"""GORami's board for a turn email (`render_mail_svg`), as a phone shows it; pbem.pictures makes
the PNG, so it is drawn to cost little (see pbem.games.drawing)."""

from __future__ import annotations

import math

from pbem.games import drawing as d
from pbem.games.base import ending_words
from pbem.games.gorami.board import Board, Cell
from pbem.games.gorami.look import (
    CELL_FILL,
    CELL_STROKE,
    DISC_FILL,
    DISC_STROKE,
    DISC_TEXT,
    INK,
    MARKS,
    TURN_EDGE,
    Marked,
    across,
    badge_spot,
    centre,
    disc_paint,
    disc_shape,
    marked,
    stripe_end,
)
from pbem.games.gorami.rules import COLOURS, GoramiState
from pbem.games.two_player import Names, mail_names, mail_seats

M_EDGE_MAX = 124.0  # triangle side in the mail drawing, at most
M_SIDE = 64.0  # room left and right of the board for the rows' fish
M_ABOVE = 44.0  # room above and below for the diagonal stripes' fish
M_INTERIOR = "#e1e7c6"


class _Grid:
    """Maps grid coordinates to the drawing: the board centred under the header, as large as
    fits between room for the fish."""

    def __init__(self, geo: Board, width: float, top: float) -> None:
        self.min_x, max_x = across(geo)
        span = max_x - self.min_x
        self.edge = min(M_EDGE_MAX, (width - 2 * M_SIDE) / (span / 2))
        self.rise = self.edge * math.sqrt(3) / 2
        self.left = (width - span / 2 * self.edge) / 2
        self.top = top + M_ABOVE
        self.height = self.top + len(geo.rows) * self.rise + M_ABOVE
        self.radius = self.rise / 3 * 0.78  # of a disc

    def at(self, x: float, y: float) -> tuple[float, float]:
        return self.left + (x - self.min_x) * self.edge / 2, self.top + y * self.rise

    def centre(self, cell: Cell) -> tuple[float, float]:
        return self.at(*centre(cell))

    def corners(self, cell: Cell) -> list[tuple[float, float]]:
        return [self.at(*v) for v in cell.vertices]


def _mail_fish(x: float, y: float) -> str:
    """Path data for a fish facing right, centred at (x, y)."""
    return f"M{d.fmt(x - 9)} {d.fmt(y)} a12 8 0 1 0 24 0 a12 8 0 1 0 -24 0Z " + d.polygon_d(
        [(x - 8, y), (x - 18, y - 9), (x - 18, y + 9)]
    )


def render_mail_svg(
    state: GoramiState, seat: int | None = None, names: Names = None, last_turn: bool = True
) -> str:
    """The board for a turn email: names, colours and fish above; the board with every disc,
    cell names, the interior shaded and a fish per stripe in the colour of the seat winning it;
    and, when `last_turn`, the moves the page marks (`look.marked`) in their movers' colours:
    the cell outlined with the mover's letter, the discs it turned ringed (`class="last-move"`).
    Drawn to cost little as a PNG: no hands, hover titles or legend."""
    geo = state.board
    width = float(d.MAIL_WIDTH)
    who = mail_names(names, COLOURS)
    status, status_fill = _status(state, who)
    chips = [
        disc_shape(0, 0, 12, s, disc_paint(s))
        + f'<path d="{d.label_path(MARKS[s], 0, 0, 10)}" fill="none" '
        f'stroke="{DISC_TEXT[s]}" stroke-width="1.8" stroke-linecap="round"/>'
        for s in range(2)
    ]
    scores = [f"{fish} fish" for fish in state.fish()]
    seats = mail_seats(state, seat, who, chips, scores)
    band, top = d.header(width, status, status_fill, seats, d.after_moves(len(state.history)))
    grid = _Grid(geo, width, top)
    out = [
        d.svg_open(width, grid.height, "gorami"),
        f'<rect width="{d.fmt(width)}" height="{d.fmt(grid.height)}" fill="#fffdf7"/>',
    ]
    out.extend(band)
    out.extend(_cells(state, grid))
    for move in marked(state, seat) if last_turn else []:
        out.extend(_turn(geo, grid, move))
    out.extend(_fish(state, grid))
    out.append("</svg>")
    return "".join(out)


def _status(state: GoramiState, who: list[str]) -> tuple[str, str]:
    """The header's status line and its colour."""
    outcome = state.outcome
    if outcome is None:
        assert state.to_move is not None
        return f"{who[state.to_move]} to move", INK[state.to_move]
    if outcome.said is not None:
        winner = outcome.winners[0] if len(outcome.winners) == 1 else None
        return ending_words(outcome, who) or "", d.INK if winner is None else INK[winner]
    if not outcome.winners:
        return "Game over: a draw", d.INK
    win = outcome.winners[0]
    how = " on the interior" if outcome.details.get("tiebreak") == "interior" else ""
    return f"{who[win]} wins{how}", INK[win]


def _cells(state: GoramiState, grid: _Grid) -> list[str]:
    """The cells (the interior shaded) as two paths, then each cell's name and disc."""
    geo = state.board
    inside = geo.interior_mask
    plain = [d.polygon_d(grid.corners(c)) for c in geo.cells if not inside >> c.index & 1]
    inner = [d.polygon_d(grid.corners(c)) for c in geo.cells if inside >> c.index & 1]
    out = [
        f'<path d="{" ".join(plain)}" fill="{CELL_FILL}" stroke="{CELL_STROKE}" '
        f'stroke-width="1.5" stroke-linejoin="round"/>',
        f'<path class="interior" d="{" ".join(inner)}" fill="{M_INTERIOR}" '
        f'stroke="{CELL_STROKE}" stroke-width="1.5" stroke-linejoin="round"/>',
    ]
    rise = grid.rise
    for cell in geo.cells:
        cx, cy = grid.centre(cell)
        # The cell's name sits in the wide part of the triangle, clear of the disc.
        ly = cy - 0.42 * rise + 5 if cell.up else cy + 0.42 * rise + 2
        out.append(d.text(cx, ly, cell.name, 13, "#6b5d45", anchor="middle"))
        disc = state.disc(cell.name)
        if disc is None:
            continue
        number, owner = disc
        out.append(
            f'<g class="disc" data-cell="{cell.name}" data-number="{number}" '
            f'data-seat="{owner}">'
            + disc_shape(cx, cy, grid.radius, owner, disc_paint(owner))
            + d.text(cx, cy + 9, str(number), 25, DISC_TEXT[owner], bold=True, anchor="middle")
            + "</g>"
        )
    return out


def _turn(geo: Board, grid: _Grid, move: Marked) -> list[str]:
    """A marked move in its mover's colour: the cell outlined, the discs it turned ringed, and a
    badge of the mover's letter towards the right corner of the cell's base."""
    turn, notation, _, captured = move
    s = turn.seat
    out = []
    for name in captured:
        if name in geo.by_name:
            cx, cy = grid.centre(geo.cells[geo.by_name[name]])
            ring = d.circle_d(cx, cy, grid.radius + 5)
            out.append(
                f'<path class="last-move captured" data-cell="{name}" data-seat="{s}" '
                f'd="{ring}" fill="none" stroke="{TURN_EDGE[s]}" stroke-width="6" '
                f'stroke-dasharray="6 4"/><path d="{ring}" fill="none" '
                f'stroke="{DISC_FILL[s]}" stroke-width="3" stroke-dasharray="6 4"/>'
            )
    placed = notation[1:]
    if placed in geo.by_name:
        cell = geo.cells[geo.by_name[placed]]
        corners = grid.corners(cell)
        shape = d.polygon_d(corners)
        bx, by = badge_spot(cell, corners, grid.centre(cell), 0.62)
        out.append(
            f'<path class="last-move placed" data-cell="{placed}" data-seat="{s}" '
            f'd="{shape}" fill="none" stroke="{TURN_EDGE[s]}" stroke-width="8" '
            f'stroke-linejoin="round"/><path d="{shape}" fill="none" '
            f'stroke="{DISC_FILL[s]}" stroke-width="4.5" stroke-linejoin="round"/>'
            + d.mail_badge(bx, by, MARKS[s], DISC_FILL[s], TURN_EDGE[s], 10)
        )
    return out


def _fish(state: GoramiState, grid: _Grid) -> list[str]:
    """A fish past the end of each stripe, in the colour of the seat that wins it (grey: tied),
    one path per colour."""
    geo = state.board
    exit_ = grid.rise / 3 * 2 / math.sqrt(3)
    shoals: dict[int | None, list[str]] = {}
    for stripe, (ys, bs) in zip(geo.stripes, state.stripe_sums(), strict=True):
        end, dx, dy = stripe_end(geo, stripe)
        cx, cy = grid.centre(end)
        winner = 0 if ys > bs else 1 if bs > ys else None
        shoals.setdefault(winner, []).append(
            _mail_fish(cx + dx * (exit_ + 22), cy + dy * (exit_ + 22))
        )
    out = []
    for winner, shapes in shoals.items():
        fill = "none" if winner is None else DISC_FILL[winner]
        stroke = "#9a9a9a" if winner is None else DISC_STROKE[winner]
        out.append(
            f'<path class="fish" d="{" ".join(shapes)}" fill="{fill}" stroke="{stroke}" '
            f'stroke-width="1.8" stroke-linejoin="round"/>'
        )
    return out
