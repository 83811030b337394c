"""Drawing GORami positions: an SVG board for the web and mail, a text board for the terminal.

Players are called by their colour ("Yellow to move") unless the seats' display names are given,
in which case the names label them (escaped in the SVG, shortened where space is tight).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from html import escape

from pbem.games.base import display_name
from pbem.games.gorami.board import Board, Cell
from pbem.games.gorami.rules import COLOURS, GoramiState

EDGE = 96.0  # triangle side, px
HEIGHT = EDGE * math.sqrt(3) / 2
MARGIN_X = 84.0
MARGIN_TOP = 114.0
PANEL = 166.0  # hands and scores under the board

DISC_FILL = ("#f5c518", "#2d6cdf")
DISC_STROKE = ("#9a7400", "#163d85")
DISC_TEXT = ("#3b2d00", "#ffffff")
INK = ("#8a6400", "#1f4fa8")  # yellow/blue as text on a light background
CELL_FILL = "#f6efdc"
INTERIOR_FILL = "#e4e9cf"
CELL_STROKE = "#7a6a4f"
LAST_STROKE = "#d62828"
PANEL_NAME = 18  # longest name shown above a hand, in characters
STATUS_NAME = 40  # longest name in the status line


def _point(x: float, y: float) -> tuple[float, float]:
    """A grid point (X in half edges, Y in rows) in px, before the margins."""
    return x * EDGE / 2, y * HEIGHT


class _Frame:
    """Maps grid coordinates to the page so the board is centred between the margins."""

    def __init__(self, geo: Board) -> None:
        xs = [v[0] for cell in geo.cells for v in cell.vertices]
        self.min_x = min(xs)
        self.width = (max(xs) - self.min_x) * EDGE / 2 + 2 * MARGIN_X
        self.rows = len(geo.rows)
        self.board_bottom = MARGIN_TOP + self.rows * HEIGHT
        self.height = self.board_bottom + 64 + PANEL

    def at(self, x: float, y: float) -> tuple[float, float]:
        px, py = _point(x - self.min_x, y)
        return px + MARGIN_X, py + MARGIN_TOP

    def centroid(self, cell: Cell) -> tuple[float, float]:
        return self.at(cell.half_col, cell.row + (2 / 3 if cell.up else 1 / 3))


def _who(names: Sequence[str] | None, seat: int, limit: int = 0) -> str:
    """The name of `seat`, or its colour word capitalised ("Yellow") when no names are given."""
    name = display_name(names, seat, limit)
    return COLOURS[seat].capitalize() if name is None else name


def _fmt(v: float) -> str:
    return f"{v:.1f}".rstrip("0").rstrip(".")


def _fish(x: float, y: float, winner: int | None) -> str:
    """A small fish icon facing right, centred at (x, y)."""
    fill = "none" if winner is None else DISC_FILL[winner]
    stroke = "#8c8c8c" if winner is None else DISC_STROKE[winner]
    body = (
        f'<ellipse cx="{_fmt(x + 2)}" cy="{_fmt(y)}" rx="9" ry="5.5" fill="{fill}" '
        f'stroke="{stroke}" stroke-width="1.5"/>'
    )
    tail = (
        f'<path d="M{_fmt(x - 6)},{_fmt(y)} L{_fmt(x - 13)},{_fmt(y - 6)} '
        f'L{_fmt(x - 13)},{_fmt(y + 6)} Z" fill="{fill}" stroke="{stroke}" stroke-width="1.5"/>'
    )
    return body + tail


Point = tuple[float, float]

# Unit vectors along each stripe family, pointing to the end where its result is drawn.
_STRIPE_DIRECTION = {
    "horizontal": (-1.0, 0.0),
    "rising": (0.5, -math.sqrt(3) / 2),
    "falling": (0.5, math.sqrt(3) / 2),
}
# From a cell's centre along any of those directions the cell's edge is 2/sqrt(3) inradii away.
_EXIT = HEIGHT / 3 * 2 / math.sqrt(3)


def _stripe_marks(geo: Board, frame: _Frame, index: int) -> tuple[Point, Point, Point]:
    """Where a stripe's result is drawn, with a short guide from the stripe's end cell to it:
    rows on the left, rising stripes past their upper end, falling stripes past their lower end,
    so the three families never collide."""
    stripe = geo.stripes[index]
    dx, dy = _STRIPE_DIRECTION[stripe.direction]
    # The end cell is the one furthest along the direction.
    end = max((geo.cells[i] for i in stripe.cells), key=lambda c: (c.row * dy, c.half_col * dx))
    cx, cy = frame.centroid(end)

    def along(distance: float) -> Point:
        return cx + dx * distance, cy + dy * distance

    return along(_EXIT + 40), along(_EXIT + 3), along(_EXIT + 20)


def render_svg(
    state: GoramiState, seat: int | None = None, names: Sequence[str] | None = None
) -> str:
    """The position as an SVG document; cells carry data-cell, hand discs data-number/data-seat.
    `names` label the seats instead of their colours."""
    geo = state.board
    view = state.view(seat)
    frame = _Frame(geo)
    last = view["last_move"]
    last_cell = last[1:] if last else None
    captured = set(view["captured"])
    out: list[str] = []
    w, h = frame.width, frame.height
    out.append(
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {_fmt(w)} {_fmt(h)}" '
        f'width="{_fmt(w)}" height="{_fmt(h)}" class="gorami" data-board="{geo.size}" '
        f'font-family="DejaVu Sans, Verdana, sans-serif">'
    )
    out.append(f'<rect x="0" y="0" width="{_fmt(w)}" height="{_fmt(h)}" fill="#fffdf7"/>')
    title, status = _status(state, names, STATUS_NAME)
    out.append(
        f'<text x="{_fmt(w / 2)}" y="26" text-anchor="middle" font-size="19" font-weight="bold" '
        f'fill="#333">{escape(title)}</text>'
        f'<text class="status" x="{_fmt(w / 2)}" y="50" text-anchor="middle" font-size="15" '
        f'fill="#333">{escape(status)}</text>'
    )

    for cell in geo.cells:
        disc = view["cells"][cell.index]["disc"]
        pts = " ".join(f"{_fmt(px)},{_fmt(py)}" for px, py in (frame.at(*v) for v in cell.vertices))
        interior = view["cells"][cell.index]["interior"]
        classes = ["cell", cell.orientation]
        if interior:
            classes.append("interior")
        if disc is None:
            classes.append("empty")
        attrs = f'class="{" ".join(classes)}" data-cell="{cell.name}"'
        if disc is not None:
            attrs += f' data-number="{disc["number"]}" data-colour="{disc["colour"]}"'
        out.append(f"<g {attrs}>")
        out.append(
            f'<polygon points="{pts}" fill="{INTERIOR_FILL if interior else CELL_FILL}" '
            f'stroke="{CELL_STROKE}" stroke-width="1.5" stroke-linejoin="round"/>'
        )
        cx, cy = frame.centroid(cell)
        # The name sits in the wide part of the triangle, clear of the disc.
        ly = cy - 0.40 * HEIGHT if cell.up else cy + 0.40 * HEIGHT + 4
        out.append(
            f'<text x="{_fmt(cx)}" y="{_fmt(ly + 4)}" text-anchor="middle" font-size="12" '
            f'fill="#6b5d45">{cell.name}</text>'
        )
        if disc is not None:
            s = int(disc["seat"])
            ring = ""
            if cell.name in captured:
                ring = (
                    f'<circle cx="{_fmt(cx)}" cy="{_fmt(cy)}" r="{_fmt(HEIGHT / 3 * 0.74 + 4)}" '
                    f'fill="none" stroke="{LAST_STROKE}" stroke-width="2" '
                    f'stroke-dasharray="4 3"/>'
                )
            out.append(
                ring + f'<circle cx="{_fmt(cx)}" cy="{_fmt(cy)}" r="{_fmt(HEIGHT / 3 * 0.74)}" '
                f'fill="{DISC_FILL[s]}" stroke="{DISC_STROKE[s]}" stroke-width="2"/>'
                f'<text x="{_fmt(cx)}" y="{_fmt(cy + 8)}" text-anchor="middle" font-size="23" '
                f'font-weight="bold" fill="{DISC_TEXT[s]}">{disc["number"]}</text>'
            )
        out.append("</g>")
    if last_cell is not None and last_cell in geo.by_name:
        cell = geo.cells[geo.by_name[last_cell]]
        pts = " ".join(f"{_fmt(px)},{_fmt(py)}" for px, py in (frame.at(*v) for v in cell.vertices))
        out.append(
            f'<polygon class="last-move" points="{pts}" fill="none" stroke="{LAST_STROKE}" '
            f'stroke-width="4" stroke-linejoin="round" pointer-events="none"/>'
        )

    sides = [COLOURS[s] if names is None else escape(_who(names, s)) for s in range(2)]
    for index, stripe in enumerate(view["stripes"]):
        (x, y), (gx0, gy0), (gx1, gy1) = _stripe_marks(geo, frame, index)
        ys, bs = stripe["sums"]
        out.append(
            f'<g class="stripe" data-stripe="{index}" data-direction="{stripe["direction"]}" '
            f'data-cells="{" ".join(stripe["cells"])}">'
            f"<title>{stripe['direction']} stripe {' '.join(stripe['cells'])}: "
            f"{sides[0]} {ys}, {sides[1]} {bs}</title>"
            f'<line x1="{_fmt(gx0)}" y1="{_fmt(gy0)}" x2="{_fmt(gx1)}" y2="{_fmt(gy1)}" '
            f'stroke="#a8997c" stroke-width="1.5" stroke-dasharray="3 2"/>'
            + _fish(x, y - 7, stripe["fish"])
            + f'<text x="{_fmt(x)}" y="{_fmt(y + 14)}" text-anchor="middle" font-size="12" '
            f'font-weight="bold"><tspan fill="{INK[0]}">{ys}</tspan>'
            f'<tspan fill="#777">:</tspan><tspan fill="{INK[1]}">{bs}</tspan></text></g>'
        )

    out.extend(_panel(state, view, frame, names))
    out.append("</svg>")
    return "\n".join(out)


def _panel(
    state: GoramiState, view: dict[str, object], frame: _Frame, names: Sequence[str] | None
) -> list[str]:
    out: list[str] = []
    top = frame.board_bottom + 70
    column = frame.width / 2
    for k, words in enumerate(
        (
            "shaded cells are interior (the tie-break)",
            "fish: who wins each stripe, yellow:blue sums",
        )
    ):
        out.append(
            f'<text x="{_fmt(frame.width / 2)}" y="{_fmt(top + 110 + 15 * k)}" '
            f'text-anchor="middle" font-size="11" fill="#777">{words}</text>'
        )
    fish = state.fish()
    interior = state.interior()
    for s in range(2):
        x0 = 16 + s * column
        turn = " ◀ to move" if state.to_move == s else ""
        you = " (you)" if view["seat"] == s else ""
        out.append(
            f'<g class="hand" data-seat="{s}">'
            f'<text x="{_fmt(x0)}" y="{_fmt(top + 14)}" font-size="15" font-weight="bold" '
            f'fill="{INK[s]}">{escape(_who(names, s, PANEL_NAME))}{you}{turn}</text>'
            f'<text x="{_fmt(x0)}" y="{_fmt(top + 34)}" font-size="13" fill="#333">'
            f"fish {fish[s]} · interior {interior[s]}</text>"
        )
        hand = state.hand(s)
        for n in range(3):
            cx = x0 + 18 + n * 60
            cy = top + 66
            out.append(
                f'<g class="hand-disc" data-seat="{s}" data-number="{n + 1}" '
                f'data-count="{hand[n]}" opacity="{1 if hand[n] else 0.3}">'
                f'<circle cx="{_fmt(cx)}" cy="{_fmt(cy)}" r="15" fill="{DISC_FILL[s]}" '
                f'stroke="{DISC_STROKE[s]}" stroke-width="2"/>'
                f'<text x="{_fmt(cx)}" y="{_fmt(cy + 6)}" text-anchor="middle" font-size="16" '
                f'font-weight="bold" fill="{DISC_TEXT[s]}">{n + 1}</text>'
                f'<text x="{_fmt(cx + 20)}" y="{_fmt(cy + 5)}" font-size="13" fill="#333">'
                f"×{hand[n]}</text></g>"
            )
        out.append("</g>")
    return out


def _status(
    state: GoramiState, names: Sequence[str] | None = None, limit: int = 0
) -> tuple[str, str]:
    """A title and a one-line account of the position (not escaped)."""
    head = f"GORami · {state.board.size}-cell board"
    if state.outcome is None:
        assert state.to_move is not None
        last = f" · last move {state.history[-1]}" if state.history else ""
        return head, f"{_who(names, state.to_move, limit)} to move{last}"
    return head, _result_words(state, names, limit)


def _result_words(state: GoramiState, names: Sequence[str] | None, limit: int) -> str:
    outcome = state.outcome
    assert outcome is not None
    fish = outcome.details["fish"]
    interior = outcome.details["interior"]
    ended = "Board full" if outcome.reason == "board-full" else "No one can place"
    if not outcome.winners:
        return f"{ended}: draw ({fish[0]} fish each, interior {interior[0]} each)"
    win = outcome.winners[0]
    winner = _who(names, win, limit)
    if outcome.details["tiebreak"] == "fish":
        return f"{ended}: {winner} wins with {fish[win]} fish to {fish[1 - win]}"
    return (
        f"{ended}: {winner} wins on the interior, {interior[win]} to {interior[1 - win]} "
        f"({fish[0]} fish each)"
    )


def render_text(
    state: GoramiState, seat: int | None = None, names: Sequence[str] | None = None
) -> str:
    """A terminal board shaped like the rules diagrams: each row of cell names, and under it the
    discs on those cells (Y2 = yellow 2, B3 = blue 3, . = empty). `names` call the seats."""
    geo = state.board
    widest = max(len(row) for row in geo.rows)
    last = state.history[-1][1:] if state.history else None
    captured = set(state.captured())
    # ASCII only, as the rest of the drawing: a mail's text part in plain ASCII costs less to send.
    head, status = _status(state, names)
    lines = [f"{head.replace(' · ', ', ')}: {status.replace(' · ', '; ')}", ""]
    for row in geo.rows:
        # As in the rules diagrams: two spaces per missing cell, so rows look centred.
        indent = " " * (2 * (widest - len(row)))
        cell_names = []
        discs = []
        for index in row:
            cell = geo.cells[index]
            cell_names.append(f"{cell.name}{'^' if cell.up else 'v'}".ljust(5))
            disc = state.disc(cell.name)
            mark = "*" if cell.name == last else "!" if cell.name in captured else " "
            text = "." if disc is None else f"{'YB'[disc[1]]}{disc[0]}"
            discs.append(f"{text}{mark}".ljust(5))
        lines.append((indent + "".join(cell_names)).rstrip())
        lines.append((indent + "".join(discs)).rstrip())
    lines.append("")
    lines.append("Y2 = yellow 2, B3 = blue 3; * last move, ! changed colour on the last move")
    interior = ", ".join(geo.cells[i].name for i in geo.interior)
    lines.append(f"interior cells (tie-break): {interior}")
    fish = state.fish()
    inner = state.interior()
    for s in range(2):
        hand = state.hand(s)
        held = "  ".join(f"{n + 1}x{hand[n]}" for n in range(3))
        you = " (you)" if seat == s else ""
        turn = "  <- to move" if state.to_move == s else ""
        name = display_name(names, s)
        who = f"{COLOURS[s].capitalize():6}" if name is None else f"{name} ({COLOURS[s]})"
        lines.append(
            f"{who} seat {s}{you}: hand {held}   fish {fish[s]}   interior {inner[s]}{turn}"
        )
    lines.append("stripes, yellow:blue sums (Y or B wins the fish, = nobody):")
    sums = state.stripe_sums()
    for direction, label in (("horizontal", "rows"), ("rising", "rising"), ("falling", "falling")):
        parts = []
        for stripe, (ys, bs) in zip(geo.stripes, sums, strict=True):
            if stripe.direction != direction:
                continue
            first = geo.cells[stripe.cells[0]].name
            last_name = geo.cells[stripe.cells[-1]].name
            name = first[0] if direction == "horizontal" else f"{first}-{last_name}"
            won = "Y" if ys > bs else "B" if bs > ys else "="
            parts.append(f"{name} {ys}:{bs}{won}")
        lines.append(f"  {label + ':':9}" + "   ".join(parts))
    if state.outcome is None:
        lines.append("A move is a disc number and a cell, e.g. 2b3.")
    return "\n".join(lines) + "\n"


# ---------------------------------------------------------------------------------------------
# The mail drawing: the board as a phone shows it in a turn email (pbem.pictures makes the PNG).

M_EDGE_MAX = 124.0  # triangle side in the mail drawing, at most
M_SIDE = 64.0  # room left and right of the board for the rows' fish
M_ABOVE = 44.0  # room above and below for the diagonal stripes' fish
M_INTERIOR = "#e1e7c6"


def _mail_fish(x: float, y: float) -> str:
    """Path data for a fish facing right, centred at (x, y)."""
    from pbem.games import drawing as d

    return f"M{d.fmt(x - 9)} {d.fmt(y)} a12 8 0 1 0 24 0 a12 8 0 1 0 -24 0Z " + d.polygon_d(
        [(x - 8, y), (x - 18, y - 9), (x - 18, y + 9)]
    )


def render_mail_svg(
    state: GoramiState,
    seat: int | None = None,
    names: Sequence[str] | None = None,
    last_turn: bool = True,
) -> str:
    """The board for a turn email: names, colours and fish above; the board with every disc,
    cell names, the interior shaded and a fish per stripe in the colour of the seat winning it;
    and, when `last_turn`, the cell of the last move outlined and the discs it turned ringed
    (`class="last-move"`). Drawn to cost little as a PNG: no hands, hover titles or legend."""
    from pbem.games import drawing as d

    geo = state.board
    width = float(d.MAIL_WIDTH)
    outcome = state.outcome
    limit = d.name_limit(2)
    who = [d.seat_name(names, s, COLOURS[s].capitalize(), limit) for s in range(2)]
    if outcome is None:
        assert state.to_move is not None
        status, status_fill = f"{who[state.to_move]} to move", INK[state.to_move]
    elif not outcome.winners:
        status, status_fill = "Game over: a draw", d.INK
    else:
        win = outcome.winners[0]
        how = " on the interior" if outcome.details.get("tiebreak") == "interior" else ""
        status, status_fill = f"{who[win]} wins{how}", INK[win]
    fish = state.fish()
    seats = [
        d.SeatLine(
            chip=f'<circle r="12" fill="{DISC_FILL[s]}" stroke="{DISC_STROKE[s]}" '
            f'stroke-width="2"/>',
            name=who[s],
            score=f"{fish[s]} fish",
            to_move=outcome is None and state.to_move == s,
            you=seat == s,
            won=outcome is not None and s in outcome.winners,
        )
        for s in range(2)
    ]
    band, top = d.header(width, status, status_fill, seats, d.after_moves(len(state.history)))

    xs = [v[0] for cell in geo.cells for v in cell.vertices]
    min_x, span = min(xs), max(xs) - min(xs)
    edge = min(M_EDGE_MAX, (width - 2 * M_SIDE) / (span / 2))
    rise = edge * math.sqrt(3) / 2
    left = (width - span / 2 * edge) / 2
    board_top = top + M_ABOVE
    height = board_top + len(geo.rows) * rise + M_ABOVE

    def at(x: float, y: float) -> tuple[float, float]:
        return left + (x - min_x) * edge / 2, board_top + y * rise

    def centre(cell: Cell) -> tuple[float, float]:
        return at(cell.half_col, cell.row + (2 / 3 if cell.up else 1 / 3))

    def corners(cell: Cell) -> list[tuple[float, float]]:
        return [at(*v) for v in cell.vertices]

    out = [
        d.svg_open(width, height, "gorami"),
        f'<rect width="{d.fmt(width)}" height="{d.fmt(height)}" fill="#fffdf7"/>',
    ]
    out.extend(band)
    plain = [d.polygon_d(corners(c)) for c in geo.cells if not geo.interior_mask >> c.index & 1]
    inner = [d.polygon_d(corners(c)) for c in geo.cells if geo.interior_mask >> c.index & 1]
    out.append(
        f'<path d="{" ".join(plain)}" fill="{CELL_FILL}" stroke="{CELL_STROKE}" '
        f'stroke-width="1.5" stroke-linejoin="round"/>'
    )
    out.append(
        f'<path class="interior" d="{" ".join(inner)}" fill="{M_INTERIOR}" '
        f'stroke="{CELL_STROKE}" stroke-width="1.5" stroke-linejoin="round"/>'
    )
    radius = rise / 3 * 0.78
    captured = set(state.captured()) if last_turn else set()
    placed = state.history[-1][1:] if last_turn and state.history else None
    for cell in geo.cells:
        cx, cy = centre(cell)
        # The cell's name sits in the wide part of the triangle, clear of the disc.
        ly = cy - 0.42 * rise + 5 if cell.up else cy + 0.42 * rise + 2
        out.append(d.text(cx, ly, cell.name, 13, "#6b5d45", anchor="middle"))
        disc = state.disc(cell.name)
        if disc is None:
            continue
        number, owner = disc
        out.append(
            f'<g class="disc" data-cell="{cell.name}" data-number="{number}" '
            f'data-seat="{owner}"><circle cx="{d.fmt(cx)}" cy="{d.fmt(cy)}" '
            f'r="{d.fmt(radius)}" fill="{DISC_FILL[owner]}" stroke="{DISC_STROKE[owner]}" '
            f'stroke-width="2"/>'
            + d.text(cx, cy + 9, str(number), 25, DISC_TEXT[owner], bold=True, anchor="middle")
            + "</g>"
        )
        if cell.name in captured:
            out.append(
                f'<circle class="last-move captured" data-cell="{cell.name}" '
                f'cx="{d.fmt(cx)}" cy="{d.fmt(cy)}" r="{d.fmt(radius + 5)}" fill="none" '
                f'stroke="{LAST_STROKE}" stroke-width="3" stroke-dasharray="6 4"/>'
            )
    if placed is not None and placed in geo.by_name:
        cell = geo.cells[geo.by_name[placed]]
        out.append(
            f'<path class="last-move placed" data-cell="{placed}" '
            f'd="{d.polygon_d(corners(cell))}" fill="none" stroke="{LAST_STROKE}" '
            f'stroke-width="5" stroke-linejoin="round"/>'
        )
    # A fish past the end of each stripe, in the colour of the seat that wins it (grey: tied).
    exit_ = rise / 3 * 2 / math.sqrt(3)
    shoals: dict[int | None, list[str]] = {}
    for stripe, (ys, bs) in zip(geo.stripes, state.stripe_sums(), strict=True):
        dx, dy = _STRIPE_DIRECTION[stripe.direction]
        end = max((geo.cells[i] for i in stripe.cells), key=lambda c: (c.row * dy, c.half_col * dx))
        cx, cy = centre(end)
        winner = 0 if ys > bs else 1 if bs > ys else None
        shoals.setdefault(winner, []).append(
            _mail_fish(cx + dx * (exit_ + 22), cy + dy * (exit_ + 22))
        )
    for winner, shapes in shoals.items():
        fill = "none" if winner is None else DISC_FILL[winner]
        stroke = "#9a9a9a" if winner is None else DISC_STROKE[winner]
        out.append(
            f'<path class="fish" d="{" ".join(shapes)}" fill="{fill}" stroke="{stroke}" '
            f'stroke-width="1.8" stroke-linejoin="round"/>'
        )
    out.append("</svg>")
    return "".join(out)
