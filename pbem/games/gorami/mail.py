"""GORami's board for a turn email (`mail_drawing`, `render_mail_svg`), as a phone shows it:
sprites (pbem.games.sprites) that pbem.pictures rasterises once and pastes."""

from __future__ import annotations

import math
from functools import lru_cache

from pbem.games import drawing as d
from pbem.games.gorami.board import Board, Cell, board
from pbem.games.gorami.look import (
    CELL_FILL,
    CELL_STROKE,
    DISC_FILL,
    DISC_STROKE,
    DISC_TEXT,
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
from pbem.games.gorami.rules import GoramiState
from pbem.games.sprites import MailDrawing, Sprite, box_around
from pbem.games.two_player import Names

M_EDGE_MAX = 124.0  # triangle side in the mail drawing, at most
M_SIDE = 64.0  # room left and right of the board for the rows' fish
M_ABOVE = 44.0  # room above and below for the diagonal stripes' fish
M_TOP = 4.0
M_INTERIOR = "#e1e7c6"
M_BACKGROUND = "#fffdf7"


class _Grid:
    """Maps grid coordinates to the drawing: the board centred, as large as fits between room
    for the fish."""

    def __init__(self, geo: Board, width: float, top: float) -> None:
        self.min_x, max_x = across(geo)
        span = max_x - self.min_x
        self.edge = min(M_EDGE_MAX, (width - 2 * M_SIDE) / (span / 2))
        self.rise = self.edge * math.sqrt(3) / 2
        self.left = (width - span / 2 * self.edge) / 2
        self.top = top + M_ABOVE
        self.height = math.ceil(self.top + len(geo.rows) * self.rise + M_ABOVE)
        self.radius = self.rise / 3 * 0.78  # of a disc

    def at(self, x: float, y: float) -> tuple[float, float]:
        return self.left + (x - self.min_x) * self.edge / 2, self.top + y * self.rise

    def centre(self, cell: Cell) -> tuple[float, float]:
        return self.at(*centre(cell))

    def corners(self, cell: Cell) -> list[tuple[float, float]]:
        return [self.at(*v) for v in cell.vertices]


@lru_cache(maxsize=8)
def _grid(size: int) -> _Grid:
    return _Grid(board(size), d.MAIL_WIDTH, M_TOP)


def _mail_fish(x: float, y: float) -> str:
    """Path data for a fish facing right, centred at (x, y)."""
    return f"M{d.fmt(x - 9)} {d.fmt(y)} a12 8 0 1 0 24 0 a12 8 0 1 0 -24 0Z " + d.polygon_d(
        [(x - 8, y), (x - 18, y - 9), (x - 18, y + 9)]
    )


def render_mail_svg(
    state: GoramiState, seat: int | None = None, names: Names = None, last_turn: bool = True
) -> str:
    """`mail_drawing` as one SVG document."""
    return mail_drawing(state, seat, names, last_turn).svg()


def mail_drawing(
    state: GoramiState, seat: int | None = None, names: Names = None, last_turn: bool = True
) -> MailDrawing:
    """The board for a turn or result email: every disc, cell names, the interior shaded and a
    fish per stripe in the colour of the seat winning it; and, when `last_turn`, each seat's
    latest move (`look.marked` for a spectator) in its mover's colour: the cell outlined with
    the mover's letter, the discs it turned ringed (`class="last-move"`). The same for every
    reader (GORami's board has no side): who is who, the scores and what happens next are the
    email's words, so neither `seat` nor `names` changes it. Sprites: the board, each disc,
    each mark, each fish."""
    del seat, names
    geo = state.board
    grid = _grid(geo.size)
    sprites = [_board(geo.size)]
    for cell in geo.cells:
        disc = state.disc(cell.name)
        if disc is not None:
            sprites.append(_disc(geo.size, cell.index, *disc))
    for move in marked(state, None) if last_turn else []:
        sprites.extend(_turn(geo, move))
    sprites.extend(_fish(state))
    return MailDrawing(
        d.MAIL_WIDTH,
        grid.height,
        M_BACKGROUND,
        tuple((sprite, 0, 0, "") for sprite in sprites),
        "gorami",
        f"gorami-{geo.size}",
    )


@lru_cache(maxsize=8)
def _board(size: int) -> Sprite:
    """The whole drawing's ground, the cells (the interior shaded) and their names."""
    geo = board(size)
    grid = _grid(size)
    inside = geo.interior_mask
    plain = [d.polygon_d(grid.corners(c)) for c in geo.cells if not inside >> c.index & 1]
    inner = [d.polygon_d(grid.corners(c)) for c in geo.cells if inside >> c.index & 1]
    out = [
        f'<rect width="{d.MAIL_WIDTH}" height="{grid.height}" fill="{M_BACKGROUND}"/>',
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
    return Sprite("".join(out), 0, 0, d.MAIL_WIDTH, grid.height)


@lru_cache(maxsize=512)
def _disc(size: int, index: int, number: int, owner: int) -> Sprite:
    """A disc on its cell: the owner's shape and colour, its number."""
    geo = board(size)
    grid = _grid(size)
    cell = geo.cells[index]
    cx, cy = grid.centre(cell)
    r = grid.radius
    svg = (
        f'<g class="disc" data-cell="{cell.name}" data-number="{number}" data-seat="{owner}">'
        + disc_shape(cx, cy, r, owner, disc_paint(owner))
        + d.text(cx, cy + 9, str(number), 25, DISC_TEXT[owner], bold=True, anchor="middle")
        + "</g>"
    )
    return box_around(svg, cx - r, cy - r, cx + r, cy + r, 3)


def _turn(geo: Board, move: Marked) -> list[Sprite]:
    """A marked move in its mover's colour: the discs it turned ringed, the cell outlined, and a
    badge of the mover's letter towards the right corner of the cell's base."""
    turn, notation, _, captured = move
    out = [
        _ring(geo.size, geo.by_name[name], turn.seat) for name in captured if name in geo.by_name
    ]
    placed = notation[1:]
    if placed in geo.by_name:
        out.append(_placed(geo.size, geo.by_name[placed], turn.seat))
    return out


@lru_cache(maxsize=512)
def _ring(size: int, index: int, s: int) -> Sprite:
    geo = board(size)
    grid = _grid(size)
    cell = geo.cells[index]
    cx, cy = grid.centre(cell)
    r = grid.radius + 5
    ring = d.circle_d(cx, cy, r)
    svg = (
        f'<path class="last-move captured" data-cell="{cell.name}" data-seat="{s}" '
        f'd="{ring}" fill="none" stroke="{TURN_EDGE[s]}" stroke-width="6" '
        f'stroke-dasharray="6 4"/><path d="{ring}" fill="none" '
        f'stroke="{DISC_FILL[s]}" stroke-width="3" stroke-dasharray="6 4"/>'
    )
    return box_around(svg, cx - r, cy - r, cx + r, cy + r, 4)


@lru_cache(maxsize=512)
def _placed(size: int, index: int, s: int) -> Sprite:
    geo = board(size)
    grid = _grid(size)
    cell = geo.cells[index]
    corners = grid.corners(cell)
    shape = d.polygon_d(corners)
    bx, by = badge_spot(cell, corners, grid.centre(cell), 0.62)
    svg = (
        f'<path class="last-move placed" data-cell="{cell.name}" data-seat="{s}" '
        f'd="{shape}" fill="none" stroke="{TURN_EDGE[s]}" stroke-width="8" '
        f'stroke-linejoin="round"/><path d="{shape}" fill="none" '
        f'stroke="{DISC_FILL[s]}" stroke-width="4.5" stroke-linejoin="round"/>'
        + d.mail_badge(bx, by, MARKS[s], DISC_FILL[s], TURN_EDGE[s], 10)
    )
    xs = [x for x, _ in corners] + [bx - 12, bx + 12]
    ys = [y for _, y in corners] + [by - 10, by + 10]
    # The mitred corners of an 8-unit stroke reach well past the triangle's own.
    return box_around(svg, min(xs), min(ys), max(xs), max(ys), 9)


def _fish(state: GoramiState) -> list[Sprite]:
    """A fish past the end of each stripe, in the colour of the seat that wins it (grey: tied)."""
    out = []
    for index, (ys, bs) in enumerate(state.stripe_sums()):
        winner = 0 if ys > bs else 1 if bs > ys else None
        out.append(_one_fish(state.board.size, index, winner))
    return out


@lru_cache(maxsize=512)
def _one_fish(size: int, stripe_index: int, winner: int | None) -> Sprite:
    geo = board(size)
    grid = _grid(size)
    exit_ = grid.rise / 3 * 2 / math.sqrt(3)
    end, dx, dy = stripe_end(geo, geo.stripes[stripe_index])
    cx, cy = grid.centre(end)
    x, y = cx + dx * (exit_ + 22), cy + dy * (exit_ + 22)
    fill = "none" if winner is None else DISC_FILL[winner]
    stroke = "#9a9a9a" if winner is None else DISC_STROKE[winner]
    svg = (
        f'<path class="fish" d="{_mail_fish(x, y)}" fill="{fill}" stroke="{stroke}" '
        f'stroke-width="1.8" stroke-linejoin="round"/>'
    )
    return box_around(svg, x - 18, y - 9, x + 15, y + 9, 3)
