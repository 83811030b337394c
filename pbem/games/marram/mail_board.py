"""Marram's board as a turn email shows it on a phone (pbem.pictures makes the PNG)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
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
    seat_ink,
    seat_outline,
)
from pbem.games.marram.pieces import mail_piece, mail_saddle
from pbem.games.marram.seats import dropped, player_names, seat_letter, settled_words
from pbem.games.marram.turns import marked_turns, placed_actions, turn_label

M_TILE_MAX = 64.0  # a tile's side in the mail drawing, at most
M_BOARD_H = 600.0  # the board's height in the mail drawing, at most
M_AXIS = 20.0  # room for the coordinates above and left of the board
M_MARGIN = 8.0
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
    tokens: list[str] = field(default_factory=list)


def _mail_chip(seat: int) -> str:
    """A seat's boot in the mail header, its letter drawn on the leg as strokes."""
    letter = d.label_path(seat_letter(seat), -2.5 * 24 / 22, -1.5, 7.5)
    return boot_glyph(0, 0, seat, size=24, mark=False) + (
        f'<path d="{letter}" fill="none" stroke="{seat_ink(seat)}" stroke-width="1.5" '
        f'stroke-linecap="round" stroke-linejoin="round"/>'
    )


def _status(view: Mapping[str, Any], shown: Sequence[str]) -> str:
    outcome, to_move = view.get("outcome"), view.get("to_move")
    if isinstance(outcome, Mapping):
        settled = settled_words(outcome, shown)
        if settled is not None:
            return settled
        winners = sorted({int(w) for w in outcome.get("winners") or []})
        if not winners:
            return "Game over: no winner"
        return "Game over: " + " and ".join(shown[w] for w in winners) + " won"
    if isinstance(to_move, int):
        n = int(view.get("actions_left") or 0)
        return f"{shown[to_move]} to move, {n} action{'s' if n != 1 else ''}"
    return ""


def _header(view: Mapping[str, Any], names: Sequence[str], width: float) -> tuple[list[str], float]:
    """The band above the board: the status line and each seat's boot, name and score."""
    limit = d.name_limit(len(names))
    shown = [n if len(n) <= limit else n[: limit - 1] + "…" for n in names]
    outcome, to_move = view.get("outcome"), view.get("to_move")
    scores = list(view.get("scores") or [0] * len(names))
    left = dropped(view)
    won = {int(w) for w in outcome.get("winners") or []} if isinstance(outcome, Mapping) else set()
    lines = [
        d.SeatLine(
            chip=_mail_chip(seat),
            name=shown[seat] + (" (left)" if seat in left else ""),
            score=str(scores[seat] if seat < len(scores) else 0),
            to_move=not outcome and seat == to_move,
            you=view.get("seat") == seat,
            won=seat in won,
        )
        for seat in range(len(names))
    ]
    plies = len(view.get("history") or [])
    return d.header(width, _status(view, shown), "#212529", lines, d.after_moves(plies))


def _axes(grid: Grid) -> str:
    """The coordinates, drawn as strokes in one path (text is dear): every column and row, or
    every other when tiles are small."""
    step = 1 if grid.size >= 26 else 2
    labels = [
        d.number_path(x, grid.x0 + (x - grid.min_x + 0.5) * grid.size, grid.y0 - 10, 10)
        for x in range(grid.min_x, grid.max_x + 1, step)
    ] + [
        d.number_path(
            y, grid.x0 - 6, grid.y0 + (grid.max_y - y + 0.5) * grid.size, 10, anchor="end"
        )
        for y in range(grid.max_y, grid.min_y - 1, -step)
    ]
    return (
        f'<path class="axes" d="{" ".join(labels)}" fill="none" stroke="#6c757d" '
        f'stroke-width="1.5" stroke-linecap="round" stroke-linejoin="round"/>'
    )


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


def _gather(layers: _Layers, view: Mapping[str, Any], laid: Mapping[str, Any], grid: Grid) -> None:
    """Gathers one laid tile's shapes, in board coordinates."""
    ox, oy = grid.origin(int(laid["x"]), int(laid["y"]))
    rotation = int(laid.get("rotation") or 0)
    f = laid_face(view, laid)
    k = grid.size / T
    dot = max(2.2, 5.5 * k)
    _ground(layers, str(f.get("q", "gggg")), rotation, ox, oy, grid.size)
    carried = _creatures(layers, f, laid, ox, oy, k)
    for quad, items in decorations(f, rotation).items():
        for (cx, cy), item in zip(deco_slots(quad), items, strict=False):
            shape = d.dot_d(ox + cx * k, oy + cy * k, dot)
            (layers.flowers if item == "flower" else layers.coins.setdefault(item, [])).append(
                shape
            )
    if view.get("variant") == "animals":
        for spoke, animal in board_prey(f, rotation, carried):
            if animal in layers.prey:
                px, py = spoke_point(spoke, 13)
                layers.prey[animal].append(d.dot_d(ox + px * k, oy + py * k, dot + 0.8))
    tokens = [token for token in laid.get("tokens") or [] if isinstance(token, Mapping)]
    for kind, _, seat, tx, ty in placed_tokens(tokens, TOKEN_GLYPH, one_queue=True):
        x, y = ox + tx * k, oy + ty * k
        if kind == "bet":
            glyph = bet_mark(x, y, seat, max(12.0, 16.0 * k * 1.2))
        elif kind == "fork":
            glyph = fork_glyph(x, y, seat, max(13.0, 22.0 * k * 1.2), mark=False)
        else:
            glyph = boot_glyph(x, y, seat, max(13.0, 22.0 * k * 1.2), mark=False)
        layers.tokens.append(glyph)


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
    return out + layers.tokens


def _mail_marks(view: Mapping[str, Any], laid: set[tuple[int, int]], grid: Grid) -> list[str]:
    """The page's last-turn marks, for mail: each tile a marked turn laid or flipped outlined in
    the seat's colour (`class="last-move"`) with a badge of its letter and the action's number,
    drawn as strokes."""
    out: list[str] = []
    slots: dict[tuple[int, int], int] = {}
    tile = grid.size
    for turn in marked_turns(view):
        seat = turn.seat
        for index, pos, slot in placed_actions(view, turn, laid, slots):
            ox, oy = grid.origin(*pos)
            inset = 2.0 + 4.0 * slot
            side = tile - 2 * inset
            label = turn_label(turn, index)
            box = d.rect_d(ox + inset, oy + inset, side, side)
            bx, by = (ox + tile - 13, oy + 9) if slot % 2 == 0 else (ox + 13, oy + tile - 9)
            out.append(
                f'<path class="last-move" data-pos="{pos[0]},{pos[1]}" data-seat="{seat}" '
                f'data-label="{label}" d="{box}" fill="none" stroke="{seat_outline(seat)}" '
                f'stroke-width="4.5"/><path d="{box}" fill="none" '
                f'stroke="{seat_colour(seat)}" stroke-width="2.5"/>'
                + d.mail_badge(bx, by, label, seat_colour(seat), seat_outline(seat), 8)
            )
    return out


def render_mail_svg(
    view: Mapping[str, Any], names: Sequence[str] | None = None, last_turn: bool = True
) -> str:
    """The board of `view` for a turn email: the seats' names, boots and scores above; every laid
    tile with its terrain, creatures, coins, flowers, prey and tokens; the coordinates moves are
    typed in; and, when `last_turn`, the tiles laid or flipped in each other seat's last turn
    (and the reader's own when nobody has moved since) outlined in the seat's colour
    (`class="last-move"`) with a badge of its letter and the action's number. Drawn to cost
    little as a PNG: no hand, frontier, tile numbers, textures, hover titles, log or key."""
    width = float(d.MAIL_WIDTH)
    band, top = _header(view, player_names(view, names), width)
    board = [t for t in view.get("board") or [] if isinstance(t, Mapping)]
    laid = {(int(t["x"]), int(t["y"])) for t in board} or {(0, 0)}
    grid = Grid.around(laid)
    room = width - 2 * M_MARGIN - M_AXIS
    tile = min(M_TILE_MAX, room / grid.cols, M_BOARD_H / grid.rows)
    x0 = M_MARGIN + M_AXIS + (room - grid.cols * tile) / 2
    grid = replace(grid, x0=x0, y0=top + M_AXIS + 4, size=tile)
    height = grid.y0 + grid.rows * tile + M_MARGIN
    layers = _Layers()
    for t in board:
        _gather(layers, view, t, grid)
    return "".join(
        [
            d.svg_open(width, height, "marram-board"),
            f'<rect width="{d.fmt(width)}" height="{d.fmt(height)}" fill="{PAPER}"/>',
            *band,
            _axes(grid),
            *_paint(layers, tile / T),
            *(_mail_marks(view, laid, grid) if last_turn else []),
            "</svg>",
        ]
    )
