"""GORami's board for the web page (`render_svg`): the cells, the stripes' fish, each seat's last
move marked, and under the board both hands and scores."""

from __future__ import annotations

import math
from html import escape
from typing import Any

from pbem.games import drawing as d
from pbem.games.base import JSON, fill_names
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
    fmt,
    marked,
    status,
    stripe_end,
    who,
)
from pbem.games.gorami.rules import COLOUR_DISC, GoramiState
from pbem.games.messages import ENGLISH, N_, Language, Message
from pbem.games.two_player import Names

EDGE = 96.0  # triangle side, px
HEIGHT = EDGE * math.sqrt(3) / 2
MARGIN_X = 84.0
MARGIN_TOP = 114.0
PANEL = 183.0  # hands and scores under the board
INTERIOR_FILL = "#e4e9cf"
PANEL_NAME = 18  # longest name shown above a hand, in characters
STATUS_NAME = 16  # longest name in the status line
# From a cell's centre along a stripe's direction the cell's edge is 2/sqrt(3) inradii away.
_EXIT = HEIGHT / 3 * 2 / math.sqrt(3)

Point = tuple[float, float]


def _point(x: float, y: float) -> tuple[float, float]:
    """A grid point (X in half edges, Y in rows) in px, before the margins."""
    return x * EDGE / 2, y * HEIGHT


class _Frame:
    """Maps grid coordinates to the page so the board is centred between the margins."""

    def __init__(self, geo: Board) -> None:
        self.min_x, max_x = across(geo)
        self.width = (max_x - self.min_x) * EDGE / 2 + 2 * MARGIN_X
        self.rows = len(geo.rows)
        self.board_bottom = MARGIN_TOP + self.rows * HEIGHT
        self.height = self.board_bottom + 64 + PANEL

    def at(self, x: float, y: float) -> tuple[float, float]:
        px, py = _point(x - self.min_x, y)
        return px + MARGIN_X, py + MARGIN_TOP

    def centroid(self, cell: Cell) -> tuple[float, float]:
        return self.at(*centre(cell))


def _fish(x: float, y: float, winner: int | None) -> str:
    """A small fish icon facing right, centred at (x, y)."""
    fill = "none" if winner is None else DISC_FILL[winner]
    stroke = "#8c8c8c" if winner is None else DISC_STROKE[winner]
    body = (
        f'<ellipse cx="{fmt(x + 2)}" cy="{fmt(y)}" rx="9" ry="5.5" fill="{fill}" '
        f'stroke="{stroke}" stroke-width="1.5"/>'
    )
    tail = (
        f'<path d="M{fmt(x - 6)},{fmt(y)} L{fmt(x - 13)},{fmt(y - 6)} '
        f'L{fmt(x - 13)},{fmt(y + 6)} Z" fill="{fill}" stroke="{stroke}" stroke-width="1.5"/>'
    )
    return body + tail


def _stripe_marks(geo: Board, frame: _Frame, index: int) -> tuple[Point, Point, Point]:
    """Where a stripe's result is drawn, with a short guide from the stripe's end cell to it:
    rows on the left, rising stripes past their upper end, falling stripes past their lower end,
    so the three families never collide."""
    end, dx, dy = stripe_end(geo, geo.stripes[index])
    cx, cy = frame.centroid(end)

    def along(distance: float) -> Point:
        return cx + dx * distance, cy + dy * distance

    return along(_EXIT + 40), along(_EXIT + 3), along(_EXIT + 20)


def render_svg(
    state: GoramiState, seat: int | None = None, names: Names = None, lang: Language = ENGLISH
) -> str:
    """The position as an SVG document. Cells carry data-cell and their accessible name in
    data-name (and a title); hand discs data-number/data-seat. The last turn of each other seat
    (and the viewer's own when nobody has moved since) is outlined in the mover's colour with a
    badge of its letter, the discs it captured ringed (`g.last-turn`). `names` label the seats
    instead of their colours. Its words are in `lang`."""
    geo = state.board
    view = state.view(seat)
    frame = _Frame(geo)
    out: list[str] = []
    w, h = frame.width, frame.height
    title, words = status(state, names, STATUS_NAME, lang)
    out.append(
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {fmt(w)} {fmt(h)}" '
        f'width="{fmt(w)}" height="{fmt(h)}" class="gorami" data-board="{geo.size}" '
        f'role="group" aria-label="{escape(f"{title}: {words}")}" '
        f'font-family="DejaVu Sans, Verdana, sans-serif">'
    )
    out.append(f'<rect x="0" y="0" width="{fmt(w)}" height="{fmt(h)}" fill="#fffdf7"/>')
    out.append(
        f'<text x="{fmt(w / 2)}" y="26" text-anchor="middle" font-size="19" font-weight="bold" '
        f'fill="#333">{escape(title)}</text>'
        f'<text class="status" x="{fmt(w / 2)}" y="50" text-anchor="middle" font-size="15" '
        f'fill="#333">{escape(words)}</text>'
    )
    radius = HEIGHT / 3 * 0.74
    out.extend(_cells(geo, view, frame, radius, lang))
    out.extend(_turn_marks(geo, frame, marked(state, seat), names, radius, lang))
    out.extend(_stripes(geo, view, frame, names, lang))
    out.extend(_panel(state, view, frame, names, lang))
    out.append("</svg>")
    return "\n".join(out)


def _cells(geo: Board, view: JSON, frame: _Frame, radius: float, lang: Language) -> list[str]:
    """Every cell as a group named for a screen reader: its triangle, its name and its disc."""
    out: list[str] = []
    for cell in geo.cells:
        disc = view["cells"][cell.index]["disc"]
        pts = " ".join(f"{fmt(px)},{fmt(py)}" for px, py in (frame.at(*v) for v in cell.vertices))
        interior = view["cells"][cell.index]["interior"]
        classes = ["cell", cell.orientation]
        if interior:
            classes.append("interior")
        if disc is None:
            classes.append("empty")
        name = _cell_name(cell.name, disc, interior, lang)
        attrs = f'class="{" ".join(classes)}" data-cell="{cell.name}"'
        if disc is not None:
            attrs += f' data-number="{disc["number"]}" data-colour="{disc["colour"]}"'
        attrs += f' data-name="{escape(name)}"'
        out.append(f"<g {attrs}><title>{escape(name)}</title>")
        out.append(
            f'<polygon points="{pts}" fill="{INTERIOR_FILL if interior else CELL_FILL}" '
            f'stroke="{CELL_STROKE}" stroke-width="1.5" stroke-linejoin="round"/>'
        )
        cx, cy = frame.centroid(cell)
        # The name sits in the wide part of the triangle, clear of the disc.
        ly = cy - 0.40 * HEIGHT if cell.up else cy + 0.40 * HEIGHT + 4
        out.append(
            f'<text x="{fmt(cx)}" y="{fmt(ly + 4)}" text-anchor="middle" font-size="12" '
            f'fill="#6b5d45">{cell.name}</text>'
        )
        if disc is not None:
            s = int(disc["seat"])
            out.append(
                disc_shape(cx, cy, radius, s, disc_paint(s))
                + f'<text x="{fmt(cx)}" y="{fmt(cy + 8)}" text-anchor="middle" font-size="23" '
                f'font-weight="bold" fill="{DISC_TEXT[s]}">{disc["number"]}</text>'
            )
        out.append("</g>")
    return out


def _cell_name(cell: str, disc: dict[str, object] | None, interior: bool, lang: Language) -> str:
    """A cell's accessible name: "b3: yellow 2, interior", "c1: empty"."""
    if disc is None:
        if interior:
            return lang("%(cell)s: empty, interior", cell=cell)
        return lang("%(cell)s: empty", cell=cell)
    what = Message(COLOUR_DISC[int(str(disc["seat"]))], n=int(str(disc["number"])))
    if interior:
        return lang("%(cell)s: %(disc)s, interior", cell=cell, disc=what)
    return lang("%(cell)s: %(disc)s", cell=cell, disc=what)


def _stripes(geo: Board, view: JSON, frame: _Frame, names: Names, lang: Language) -> list[str]:
    """Each stripe's fish past its end, in the colour of the seat winning it, with both sums."""
    sides = [who(names, s, capital=names is not None, lang=lang) for s in range(2)]
    out: list[str] = []
    for index, stripe in enumerate(view["stripes"]):
        (x, y), (gx0, gy0), (gx1, gy1) = _stripe_marks(geo, frame, index)
        ys, bs = stripe["sums"]
        out.append(
            f'<g class="stripe" data-stripe="{index}" data-direction="{stripe["direction"]}" '
            f'data-cells="{" ".join(stripe["cells"])}">'
            f"<title>{escape(_stripe_name(stripe, sides, lang))}</title>"
            f'<line x1="{fmt(gx0)}" y1="{fmt(gy0)}" x2="{fmt(gx1)}" y2="{fmt(gy1)}" '
            f'stroke="#a8997c" stroke-width="1.5" stroke-dasharray="3 2"/>'
            + _fish(x, y - 7, stripe["fish"])
            + f'<text x="{fmt(x)}" y="{fmt(y + 14)}" text-anchor="middle" font-size="12" '
            f'font-weight="bold"><tspan fill="{INK[0]}">{ys}</tspan>'
            f'<tspan fill="#777">:</tspan><tspan fill="{INK[1]}">{bs}</tspan></text></g>'
        )
    return out


_STRIPE_NAMES = {
    "horizontal": N_("horizontal stripe %(cells)s: %(first)s %(a)s, %(second)s %(b)s"),
    "rising": N_("rising stripe %(cells)s: %(first)s %(a)s, %(second)s %(b)s"),
    "falling": N_("falling stripe %(cells)s: %(first)s %(a)s, %(second)s %(b)s"),
}


def _stripe_name(stripe: dict[str, Any], sides: list[str], lang: Language) -> str:
    """A stripe's title: "rising stripe a1 b1 b2: yellow 5, blue 3"."""
    a, b = stripe["sums"]
    return lang(
        _STRIPE_NAMES[str(stripe["direction"])],
        cells=" ".join(stripe["cells"]),
        first=sides[0],
        a=a,
        second=sides[1],
        b=b,
    )


def _turn_marks(
    geo: Board, frame: _Frame, moves: list[Marked], names: Names, radius: float, lang: Language
) -> list[str]:
    """Each marked move: its cell outlined in the mover's colour with a badge of the mover's
    letter in a corner, and the discs it captured ringed with a dashed line of that colour."""
    seats = [who(names, s, lang=lang) for s in range(2)]
    out: list[str] = []
    for turn, move, words, captured in moves:
        s, ply = turn.seat, turn.plies[0]
        sentence = fill_names(words.say(lang) if isinstance(words, Message) else words, seats)
        parts = [
            f'<g class="last-turn" data-seat="{s}" data-plies="{ply}" '
            f'data-name="{escape(sentence)}" pointer-events="none">'
            f"<title>{escape(sentence)}</title>"
        ]
        cell_name = move[1:]
        if cell_name in geo.by_name:
            cell = geo.cells[geo.by_name[cell_name]]
            corners = [frame.at(*v) for v in cell.vertices]
            parts.append(d.outline(d.polygon_d(corners), DISC_FILL[s], TURN_EDGE[s], 4))
            bx, by = badge_spot(cell, corners, frame.centroid(cell), 0.64)
            parts.append(d.badge(bx, by, MARKS[s], DISC_FILL[s], TURN_EDGE[s], 15))
        for name in captured:
            if name not in geo.by_name:
                continue
            cx, cy = frame.centroid(geo.cells[geo.by_name[name]])
            parts.append(
                d.outline(d.circle_d(cx, cy, radius + 5), DISC_FILL[s], TURN_EDGE[s], 2.5, "5 3")
            )
        parts.append("</g>")
        out.append("".join(parts))
    return out


def _panel(
    state: GoramiState, view: dict[str, Any], frame: _Frame, names: Names, lang: Language
) -> list[str]:
    """Under the board: a key to the drawing, and per seat its name, score and hand."""
    out: list[str] = []
    top = frame.board_bottom + 70
    column = frame.width / 2
    for k, words in enumerate(
        (
            lang("shaded cells are interior (the tie-break)"),
            lang("fish: who wins each stripe, yellow:blue sums"),
        )
    ):
        out.append(
            f'<text x="{fmt(frame.width / 2)}" y="{fmt(top + 127 + 15 * k)}" '
            f'text-anchor="middle" font-size="11" fill="#777">{escape(words)}</text>'
        )
    # Each seat's name has its own line, what goes with it ("you", "to move") the next: two
    # long names side by side, each with its extras, would run into each other.
    fish = state.fish()
    interior = state.interior()
    for s in range(2):
        x0 = 16 + s * column
        extras = [
            *([lang("you")] if view["seat"] == s else []),
            *([lang("◀ to move")] if state.to_move == s else []),
        ]
        out.append(
            f'<g class="hand" data-seat="{s}">'
            + d.badge(x0 + 8, top + 9, MARKS[s], DISC_FILL[s], TURN_EDGE[s], 11)
            + f'<text x="{fmt(x0 + 22)}" y="{fmt(top + 14)}" font-size="15" font-weight="bold" '
            f'fill="{INK[s]}">{escape(who(names, s, PANEL_NAME, lang))}</text>'
            + (
                f'<text x="{fmt(x0 + 22)}" y="{fmt(top + 31)}" font-size="13" '
                f'font-weight="bold" fill="{INK[s]}">{escape(" · ".join(extras))}</text>'
                if extras
                else ""
            )
            + f'<text x="{fmt(x0)}" y="{fmt(top + 51)}" font-size="13" fill="#333">'
            + escape(
                lang("fish %(fish)s · interior %(interior)s", fish=fish[s], interior=interior[s])
            )
            + "</text>"
        )
        out.extend(_hand(state, s, x0, top + 83, lang))
        out.append("</g>")
    return out


def _hand(state: GoramiState, s: int, x0: float, cy: float, lang: Language) -> list[str]:
    """A seat's discs left: one of each number, faded when none is left, with the count."""
    hand = state.hand(s)
    out: list[str] = []
    for n in range(3):
        cx = x0 + 18 + n * 60
        name = escape(
            lang("%(disc)s, %(left)s left", disc=Message(COLOUR_DISC[s], n=n + 1), left=hand[n])
        )
        out.append(
            f'<g class="hand-disc" data-seat="{s}" data-number="{n + 1}" '
            f'data-count="{hand[n]}" data-name="{name}" opacity="{1 if hand[n] else 0.3}">'
            f"<title>{name}</title>"
            + disc_shape(cx, cy, 15, s, disc_paint(s))
            + f'<text x="{fmt(cx)}" y="{fmt(cy + 6)}" text-anchor="middle" font-size="16" '
            f'font-weight="bold" fill="{DISC_TEXT[s]}">{n + 1}</text>'
            f'<text x="{fmt(cx + 20)}" y="{fmt(cy + 5)}" font-size="13" fill="#333">'
            f"×{hand[n]}</text></g>"
        )
    return out
