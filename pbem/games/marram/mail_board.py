"""Marram's board as a turn email shows it on a phone: sprites (pbem.games.sprites) that
pbem.pictures rasterises once and pastes."""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from functools import lru_cache
from typing import Any

from pbem.games import drawing as d
from pbem.games.marram.geometry import (
    BODY,
    QRECT,
    QUADS,
    C,
    Grid,
    T,
    board_pieces,
    board_prey,
    deco_slots,
    decorations,
    laid_face,
    placed_tokens,
    rotate_quad,
    spoke_point,
)
from pbem.games.marram.glyphs import TOKEN_GLYPH, bet_mark, boot_glyph, fork_glyph
from pbem.games.marram.palette import (
    PAPER,
    SADDLE,
    SPECIES,
    TERRAIN,
    seat_colour,
    seat_outline,
)
from pbem.games.marram.pieces import mail_piece, mail_saddle
from pbem.games.marram.turns import (
    action_positions,
    marked_turns,
    placed_actions,
    turn_label,
)
from pbem.games.sprites import MailDrawing, Placed, Sprite, box_around

# A tile's side in the mail drawing: the largest of these that fits. A few sizes, so a worker
# soon has every tile drawn at each (pbem.sprite_pictures), and whole pixels.
M_TILE_SIZES = (96, 80, 64, 56, 48, 42, 36, 32, 28, 24, 21, 18, 16, 14, 12, 10, 8)
M_MIN_HEIGHT = 200  # a board of a tile or two still makes a picture, not a strip
M_BOARD_H = 600  # the board's height in the mail drawing, at most
M_AXIS = 20  # room for the coordinates above and left of the board
M_MARGIN = 8
M_GRID = "#a99c7c"
M_LINE = 0.6  # half the width of the grid's lines


@dataclass
class _Layers:
    """The board's shapes gathered by style, each style drawn as one path (elements are dear)."""

    frames: list[str] = field(default_factory=list)
    sand: list[str] = field(default_factory=list)
    grass: list[str] = field(default_factory=list)
    runs: dict[str, list[str]] = field(default_factory=dict)
    ends: dict[str, list[str]] = field(default_factory=dict)
    tails: dict[str, list[str]] = field(default_factory=dict)
    heads: dict[str, list[str]] = field(default_factory=dict)
    saddles: list[str] = field(default_factory=list)
    coins: dict[str, list[str]] = field(default_factory=lambda: {"gold": [], "silver": []})
    flowers: list[str] = field(default_factory=list)
    prey: dict[str, list[str]] = field(default_factory=lambda: {"fly": [], "frog": []})


@lru_cache(maxsize=1024)
def _column_label(x: int, size: int) -> Sprite:
    """Column `x`'s coordinate over a column `size` wide, drawn as strokes (text is dear); the
    origin is the column's top-left corner."""
    return _label(d.number_path(x, size / 2, -10, 10), size / 2 - 24, -18, size / 2 + 24, -2)


@lru_cache(maxsize=1024)
def _row_label(y: int, size: int) -> Sprite:
    """Row `y`'s coordinate left of a row `size` high; the origin is the row's top-left."""
    path = d.number_path(y, -6, size / 2, 10, anchor="end")
    return _label(path, -40, size / 2 - 8, -2, size / 2 + 8)


def _label(path: str, x0: float, y0: float, x1: float, y1: float) -> Sprite:
    svg = (
        f'<path class="axes" d="{path}" fill="none" stroke="#6c757d" stroke-width="1.5" '
        f'stroke-linecap="round" stroke-linejoin="round"/>'
    )
    return box_around(svg, x0, y0, x1, y1)


def _axes(grid: Grid, size: int) -> list[Placed]:
    """The coordinates: every column and row, or every other when tiles are small."""
    step = 1 if size >= 26 else 2
    out: list[Placed] = []
    for x in range(grid.min_x, grid.max_x + 1, step):
        ox, oy = grid.origin(x, grid.max_y)
        out.append((_column_label(x, size), int(ox), int(oy), ""))
    for y in range(grid.max_y, grid.min_y - 1, -step):
        ox, oy = grid.origin(grid.min_x, y)
        out.append((_row_label(y, size), int(ox), int(oy), ""))
    return out


def _ground(layers: _Layers, q: str, rotation: int, ox: float, oy: float, tile: float) -> None:
    # The grid shows as the frame colour under terrain inset by a line's width.
    k = tile / T
    layers.frames.append(d.rect_d(ox, oy, tile, tile))
    layers.sand.append(d.rect_d(ox + M_LINE, oy + M_LINE, tile - 2 * M_LINE, tile - 2 * M_LINE))
    for i, quad in enumerate(QUADS):
        if (q[i] if i < len(q) else "g") == "g":
            qx, qy = QRECT[rotate_quad(quad, rotation)]
            gx0 = max(ox + qx * k, ox + M_LINE)
            gy0 = max(oy + qy * k, oy + M_LINE)
            gx1 = min(ox + (qx + C) * k, ox + tile - M_LINE)
            gy1 = min(oy + (qy + C) * k, oy + tile - M_LINE)
            layers.grass.append(d.rect_d(gx0, gy0, gx1 - gx0, gy1 - gy0))


def _creatures(
    layers: _Layers, f: Mapping[str, Any], laid: Mapping[str, Any], ox: float, oy: float, k: float
) -> set[str]:
    """Gathers the tile's creatures; returns the spokes that carry one."""
    rotation = int(laid.get("rotation") or 0)
    gone = {str(s) for s in laid.get("removed") or []}
    carried: set[str] = set()
    for species, kind, spokes in board_pieces(f, rotation, gone):
        if species not in SPECIES or not spokes:
            continue
        carried.update(spokes)
        bucket, path = mail_piece(species, kind, spokes, ox, oy, k)
        {"run": layers.runs, "end": layers.ends, "tail": layers.tails}[bucket].setdefault(
            species, []
        ).append(path)
        if kind == "head":
            hx, hy = spoke_point(spokes[0], 32)
            circle = d.circle_d(ox + hx * k, oy + hy * k, 11 * k)
            layers.heads.setdefault(species, []).append(circle)
        if kind == "saddle" and len(spokes) >= 2:
            layers.saddles.append(mail_saddle(spokes, ox, oy, k))
    return carried


def _gather(
    layers: _Layers, variant: object, f: Mapping[str, Any], laid: Mapping[str, Any], size: int
) -> None:
    """Gathers one laid tile's ground, creatures, dots and prey in the tile's own coordinates
    (its tokens are sprites of their own, `_tokens`)."""
    rotation = int(laid.get("rotation") or 0)
    k = size / T
    dot = max(2.2, 5.5 * k)
    _ground(layers, str(f.get("q", "gggg")), rotation, 0, 0, size)
    carried = _creatures(layers, f, laid, 0, 0, k)
    for quad, items in decorations(f, rotation).items():
        for (cx, cy), item in zip(deco_slots(quad), items, strict=False):
            shape = d.dot_d(cx * k, cy * k, dot)
            (layers.flowers if item == "flower" else layers.coins.setdefault(item, [])).append(
                shape
            )
    if variant == "animals":
        for spoke, animal in board_prey(f, rotation, carried):
            if animal in layers.prey:
                px, py = spoke_point(spoke, 13)
                layers.prey[animal].append(d.dot_d(px * k, py * k, dot + 0.8))


def _creature_paths(layers: _Layers, k: float) -> list[str]:
    """Each species' bodies, outline under colour, then its tails and heads, filled."""
    out = []
    for species, (body, edge, _) in SPECIES.items():
        strokes = [(layers.runs.get(species), "butt"), (layers.ends.get(species), "round")]
        for shapes, cap in strokes:
            if shapes:
                out.append(
                    f'<path d="{" ".join(shapes)}" fill="none" stroke="{edge}" '
                    f'stroke-width="{d.fmt((BODY + 3) * k)}" stroke-linecap="{cap}"/>'
                )
        for shapes, cap in strokes:
            if shapes:
                out.append(
                    f'<path class="creature {species}" d="{" ".join(shapes)}" '
                    f'fill="none" stroke="{body}" stroke-width="{d.fmt(BODY * k)}" '
                    f'stroke-linecap="{cap}"/>'
                )
        for shapes in (layers.tails.get(species), layers.heads.get(species)):
            if shapes:
                out.append(
                    f'<path d="{" ".join(shapes)}" fill="{body}" stroke="{edge}" '
                    f'stroke-width="{d.fmt(max(1.0, 1.5 * k))}" stroke-linejoin="round"/>'
                )
    return out


def _paint(layers: _Layers, k: float) -> list[str]:
    out = [
        f'<path class="frames" d="{" ".join(layers.frames)}" fill="{M_GRID}"/>',
        f'<path class="tiles" d="{" ".join(layers.sand)}" fill="{TERRAIN["s"]}"/>',
    ]
    if layers.grass:
        out.append(f'<path class="grass" d="{" ".join(layers.grass)}" fill="{TERRAIN["g"]}"/>')
    out.extend(_creature_paths(layers, k))
    if layers.saddles:
        out.append(f'<path d="{" ".join(layers.saddles)}" fill="{SADDLE}" stroke="#6e4034"/>')
    # Dots without outlines (an outline would double their cost), dark enough to show on both
    # terrains.
    looks = (
        (layers.coins.get("gold"), "#e0a400", "gold"),
        (layers.coins.get("silver"), "#868e96", "silver"),
        (layers.flowers, "#d6336c", "flowers"),
        (layers.prey["fly"], "#212529", "flies"),
        (layers.prey["frog"], "#1b6e2e", "frogs"),
    )
    for shapes, fill, css in looks:
        if shapes:
            out.append(f'<path class="{css}" d="{" ".join(shapes)}" fill="{fill}"/>')
    return out


def _mail_marks(
    view: Mapping[str, Any], laid: set[tuple[int, int]], grid: Grid, size: int
) -> list[Placed]:
    """The page's last-turn marks, for mail: each tile a marked turn laid or flipped outlined in
    the seat's colour (`class="last-move"`) with a badge of its letter and the action's number,
    drawn as strokes."""
    out: list[Placed] = []
    slots: dict[tuple[int, int], int] = {}
    positions = action_positions(view)
    for turn in marked_turns(view):
        for index, pos, slot in placed_actions(positions, turn, laid, slots):
            ox, oy = grid.origin(*pos)
            label = turn_label(turn, index)
            attrs = (
                f'class="last-move" data-pos="{pos[0]},{pos[1]}" data-seat="{turn.seat}" '
                f'data-label="{label}"'
            )
            out.append((_mark(size, slot, label, turn.seat), int(ox), int(oy), attrs))
    return out


@lru_cache(maxsize=1024)
def _mark(size: int, slot: int, label: str, seat: int) -> Sprite:
    """One action's outline and badge on a tile `size` wide, its `slot`-th mark inset further."""
    inset = 2.0 + 4.0 * slot
    side = size - 2 * inset
    box = d.rect_d(inset, inset, side, side)
    bx, by = (size - 13, 9) if slot % 2 == 0 else (13, size - 9)
    svg = (
        f'<path d="{box}" fill="none" stroke="{seat_outline(seat)}" '
        f'stroke-width="4.5"/><path d="{box}" fill="none" '
        f'stroke="{seat_colour(seat)}" stroke-width="2.5"/>'
        + d.mail_badge(bx, by, label, seat_colour(seat), seat_outline(seat), 8)
    )
    half = 8 * (0.82 * len(label) + 0.9) / 2
    return box_around(
        svg,
        min(inset, bx - half) - 2.5,
        min(inset, by - 7) - 2.5,
        max(size - inset, bx + half) + 2.5,
        max(size - inset, by + 7) + 2.5,
    )


# Tiles drawn so far, by what they show: building a tile's SVG costs more than pasting it.
# Least recently used first; a long-lived worker keeps every face it meets at every size.
_TILES: OrderedDict[tuple[object, ...], Sprite] = OrderedDict()
_TILES_KEPT = 16384


def _tile(view: Mapping[str, Any], laid: Mapping[str, Any], size: int) -> Sprite:
    """A laid tile without its tokens, `size` units square and opaque: its frame (the grid's
    line), terrain, creatures, coins, flowers and prey. Tokens are sprites of their own, so
    a tile's sprite is one of its faces in one of four rotations at each size."""
    face = laid_face(view, laid)
    variant = view.get("variant")
    key = (
        variant,
        size,
        int(laid.get("rotation") or 0),
        tuple(str(s) for s in laid.get("removed") or []),
        repr(face),
    )
    sprite = _TILES.get(key)
    if sprite is None:
        layers = _Layers()
        _gather(layers, variant, face, laid, size)
        sprite = Sprite("".join(_paint(layers, size / T)), 0, 0, size, size)
        _TILES[key] = sprite
        if len(_TILES) > _TILES_KEPT:
            _TILES.popitem(last=False)
    else:
        _TILES.move_to_end(key)
    return sprite


def _tokens(laid: Mapping[str, Any], size: int) -> list[Sprite]:
    """The tile's boots, pitchforks and bets, in the tile's coordinates."""
    tokens = [t for t in laid.get("tokens") or [] if isinstance(t, Mapping)]
    return [
        _token(kind, seat, tx, ty, size)
        for kind, _, seat, tx, ty in placed_tokens(tokens, TOKEN_GLYPH, one_queue=True)
    ]


@lru_cache(maxsize=4096)
def _token(kind: str, seat: int, tx: float, ty: float, size: int) -> Sprite:
    k = size / T
    x, y = tx * k, ty * k
    if kind == "bet":
        reach = max(12.0, 16.0 * k * 1.2)
        glyph = bet_mark(x, y, seat, reach)
    elif kind == "fork":
        reach = max(13.0, 22.0 * k * 1.2)
        glyph = fork_glyph(x, y, seat, reach, mark=False)
    else:
        reach = max(13.0, 22.0 * k * 1.2)
        glyph = boot_glyph(x, y, seat, reach, mark=False)
    return box_around(glyph, x - reach, y - reach, x + reach, y + reach)


def render_mail_svg(view: Mapping[str, Any], last_turn: bool = True) -> str:
    """`mail_drawing` as one SVG document."""
    return mail_drawing(view, last_turn).svg()


def mail_drawing(view: Mapping[str, Any], last_turn: bool = True) -> MailDrawing:
    """The board of `view` for a turn or result email: every laid tile with its terrain,
    creatures, coins, flowers, prey and tokens; the coordinates moves are typed in; and, when
    `last_turn`, the tiles laid or flipped in the turns the view marks (a spectator's view:
    each seat's latest) outlined in the seat's colour (`class="last-move"`) with a badge of its
    letter and the action's number. Only the board: the players, scores, hand and what happens
    next are the email's words. Drawn as sprites on whole pixels: tiles a whole number of
    pixels wide (`M_TILE_SIZES`), each tile one sprite, each token, mark and row of
    coordinates another."""
    width = d.MAIL_WIDTH
    board = [t for t in view.get("board") or [] if isinstance(t, Mapping)]
    laid = {(int(t["x"]), int(t["y"])) for t in board} or {(0, 0)}
    grid = Grid.around(laid)
    room = width - 2 * M_MARGIN - M_AXIS
    fits = min(room / grid.cols, M_BOARD_H / grid.rows)
    size = next((step for step in M_TILE_SIZES if step <= fits), M_TILE_SIZES[-1])
    x0 = M_MARGIN + M_AXIS + (room - grid.cols * size) // 2
    natural = M_MARGIN + M_AXIS + grid.rows * size + M_MARGIN
    height = max(natural, M_MIN_HEIGHT)
    grid = replace(grid, x0=x0, y0=M_MARGIN + M_AXIS + (height - natural) // 2, size=size)
    placed = _axes(grid, size)
    tokens: list[Placed] = []
    for t in board:
        ox, oy = grid.origin(int(t["x"]), int(t["y"]))
        x, y = int(ox), int(oy)
        placed.append((_tile(view, t, size), x, y, ""))
        tokens.extend((token, x, y, "") for token in _tokens(t, size))
    placed.extend(tokens)
    if last_turn:
        placed.extend(_mail_marks(view, laid, grid, size))
    family = f"marram-{view.get('variant')}"
    return MailDrawing(width, height, PAPER, tuple(placed), "marram-board", family)
