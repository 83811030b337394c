"""Drawing GORami positions: an SVG board for the web and mail, a text board for the terminal.

Players are called by their colour ("Yellow to move") unless the seats' display names are given,
in which case the names label them (escaped in the SVG, shortened where space is tight).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from functools import lru_cache
from html import escape

from pbem.games import drawing as d
from pbem.games.base import MoveError, display_name, ending_words, fill_names, seat_mark
from pbem.games.gorami.board import Board, Cell
from pbem.games.gorami.rules import COLOURS, GoramiState

EDGE = 96.0  # triangle side, px
HEIGHT = EDGE * math.sqrt(3) / 2
MARGIN_X = 84.0
MARGIN_TOP = 114.0
PANEL = 183.0  # hands and scores under the board

DISC_FILL = ("#f5c518", "#2d6cdf")
DISC_STROKE = ("#9a7400", "#163d85")
DISC_TEXT = ("#3b2d00", "#ffffff")
INK = ("#8a6400", "#1f4fa8")  # yellow/blue as text on a light background
CELL_FILL = "#f6efdc"
INTERIOR_FILL = "#e4e9cf"
CELL_STROKE = "#7a6a4f"
PANEL_NAME = 18  # longest name shown above a hand, in characters
STATUS_NAME = 16  # longest name in the status line


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


MARKS = tuple(seat_mark(c) for c in COLOURS)  # "Y", "B": on the last-turn badges
TURN_EDGE = ("#3b2d00", "#0b2350")  # under a seat's colour, so its marks show on any cell


def _disc_shape(cx: float, cy: float, r: float, seat: int, attrs: str) -> str:
    """A seat's disc: yellow ones round, blue ones hexagonal, so they differ by more than
    colour."""
    if seat == 0:
        return f'<circle cx="{_fmt(cx)}" cy="{_fmt(cy)}" r="{_fmt(r)}" {attrs}/>'
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


def _marked(state: GoramiState, viewer: int | None) -> list[tuple[d.Turn, str, str, list[str]]]:
    """The moves marked for `viewer` (`drawing.marked_turns`), oldest first, each with its
    notation, its sentence (seats as placeholders) and the cells of the discs it captured."""
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
        words = f"{{{seat}}} placed a {history[-1][0]} on {cell}"
        return [(d.Turn(seat, (last,)), history[-1], words, state.captured())]
    turns = []
    for ply in range(len(history)):
        mover = positions[ply].to_move
        assert mover is not None
        turns.append(d.Turn(mover, (ply,)))
    out = []
    for turn in d.marked_turns(turns, viewer):
        ply = turn.plies[0]
        words = positions[ply].describe(history[ply])
        out.append((turn, history[ply], words, positions[ply + 1].captured()))
    return out


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
    """The position as an SVG document. Cells carry data-cell and their accessible name in
    data-name (and a title); hand discs data-number/data-seat. The last turn of each other seat
    (and the viewer's own when nobody has moved since) is outlined in the mover's colour with a
    badge of its letter, the discs it captured ringed (`g.last-turn`). `names` label the seats
    instead of their colours."""
    geo = state.board
    view = state.view(seat)
    frame = _Frame(geo)
    marked = _marked(state, seat)
    out: list[str] = []
    w, h = frame.width, frame.height
    title, status = _status(state, names, STATUS_NAME)
    out.append(
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {_fmt(w)} {_fmt(h)}" '
        f'width="{_fmt(w)}" height="{_fmt(h)}" class="gorami" data-board="{geo.size}" '
        f'role="group" aria-label="{escape(f"{title}: {status}")}" '
        f'font-family="DejaVu Sans, Verdana, sans-serif">'
    )
    out.append(f'<rect x="0" y="0" width="{_fmt(w)}" height="{_fmt(h)}" fill="#fffdf7"/>')
    out.append(
        f'<text x="{_fmt(w / 2)}" y="26" text-anchor="middle" font-size="19" font-weight="bold" '
        f'fill="#333">{escape(title)}</text>'
        f'<text class="status" x="{_fmt(w / 2)}" y="50" text-anchor="middle" font-size="15" '
        f'fill="#333">{escape(status)}</text>'
    )

    radius = HEIGHT / 3 * 0.74
    for cell in geo.cells:
        disc = view["cells"][cell.index]["disc"]
        pts = " ".join(f"{_fmt(px)},{_fmt(py)}" for px, py in (frame.at(*v) for v in cell.vertices))
        interior = view["cells"][cell.index]["interior"]
        classes = ["cell", cell.orientation]
        if interior:
            classes.append("interior")
        if disc is None:
            classes.append("empty")
        name = _cell_name(cell.name, disc, interior)
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
            f'<text x="{_fmt(cx)}" y="{_fmt(ly + 4)}" text-anchor="middle" font-size="12" '
            f'fill="#6b5d45">{cell.name}</text>'
        )
        if disc is not None:
            s = int(disc["seat"])
            out.append(
                _disc_shape(
                    cx,
                    cy,
                    radius,
                    s,
                    f'fill="{DISC_FILL[s]}" stroke="{DISC_STROKE[s]}" stroke-width="2"',
                )
                + f'<text x="{_fmt(cx)}" y="{_fmt(cy + 8)}" text-anchor="middle" font-size="23" '
                f'font-weight="bold" fill="{DISC_TEXT[s]}">{disc["number"]}</text>'
            )
        out.append("</g>")
    out.extend(_turn_marks(geo, frame, marked, names, radius))

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


def _cell_name(cell: str, disc: dict[str, object] | None, interior: bool) -> str:
    """A cell's accessible name: "b3: yellow 2, interior", "c1: empty"."""
    what = "empty" if disc is None else f"{disc['colour']} {disc['number']}"
    return f"{cell}: {what}" + (", interior" if interior else "")


def _turn_marks(
    geo: Board,
    frame: _Frame,
    marked: list[tuple[d.Turn, str, str, list[str]]],
    names: Sequence[str] | None,
    radius: float,
) -> list[str]:
    """Each marked move: its cell outlined in the mover's colour with a badge of the mover's
    letter in a corner, and the discs it captured ringed with a dashed line of that colour."""
    who = [_who(names, s) for s in range(2)]
    out: list[str] = []
    for turn, move, words, captured in marked:
        s, ply = turn.seat, turn.plies[0]
        sentence = fill_names(words, who)
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
            cx, cy = frame.centroid(cell)
            # The badge sits towards the right corner of the base, away from the cell's name.
            corner = max(corners, key=lambda p: (p[1] if cell.up else -p[1], p[0]))
            bx, by = cx + (corner[0] - cx) * 0.64, cy + (corner[1] - cy) * 0.64
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
            f'<text x="{_fmt(frame.width / 2)}" y="{_fmt(top + 127 + 15 * k)}" '
            f'text-anchor="middle" font-size="11" fill="#777">{words}</text>'
        )
    # Each seat's name has its own line, what goes with it ("you", "to move") the next: two
    # long names side by side, each with its extras, would run into each other.
    fish = state.fish()
    interior = state.interior()
    for s in range(2):
        x0 = 16 + s * column
        extras = [
            *(["you"] if view["seat"] == s else []),
            *(["◀ to move"] if state.to_move == s else []),
        ]
        out.append(
            f'<g class="hand" data-seat="{s}">'
            + d.badge(x0 + 8, top + 9, MARKS[s], DISC_FILL[s], TURN_EDGE[s], 11)
            + f'<text x="{_fmt(x0 + 22)}" y="{_fmt(top + 14)}" font-size="15" font-weight="bold" '
            f'fill="{INK[s]}">{escape(_who(names, s, PANEL_NAME))}</text>'
            + (
                f'<text x="{_fmt(x0 + 22)}" y="{_fmt(top + 31)}" font-size="13" '
                f'font-weight="bold" fill="{INK[s]}">{" · ".join(extras)}</text>'
                if extras
                else ""
            )
            + f'<text x="{_fmt(x0)}" y="{_fmt(top + 51)}" font-size="13" fill="#333">'
            f"fish {fish[s]} · interior {interior[s]}</text>"
        )
        hand = state.hand(s)
        for n in range(3):
            cx = x0 + 18 + n * 60
            cy = top + 83
            name = f"{COLOURS[s]} {n + 1}, {hand[n]} left"
            out.append(
                f'<g class="hand-disc" data-seat="{s}" data-number="{n + 1}" '
                f'data-count="{hand[n]}" data-name="{name}" opacity="{1 if hand[n] else 0.3}">'
                f"<title>{name}</title>"
                + _disc_shape(
                    cx,
                    cy,
                    15,
                    s,
                    f'fill="{DISC_FILL[s]}" stroke="{DISC_STROKE[s]}" stroke-width="2"',
                )
                + f'<text x="{_fmt(cx)}" y="{_fmt(cy + 6)}" text-anchor="middle" font-size="16" '
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
        last = ""
        marked = _marked(state, None)
        if marked:
            mover = marked[-1][0].seat
            last = f" · {_who(names, mover, limit)} played {state.history[-1]}"
        return head, f"{_who(names, state.to_move, limit)} to move{last}"
    return head, _result_words(state, names, limit)


def _result_words(state: GoramiState, names: Sequence[str] | None, limit: int) -> str:
    outcome = state.outcome
    assert outcome is not None
    settled = ending_words(outcome, [_who(names, s, limit) for s in range(2)])
    if settled is not None:
        return settled
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
    and, when `last_turn`, the moves the page marks (`_marked`) in their movers' colours: the
    cell outlined with the mover's letter, the discs it turned ringed (`class="last-move"`).
    Drawn to cost little as a PNG: no hands, hover titles or legend."""
    geo = state.board
    width = float(d.MAIL_WIDTH)
    outcome = state.outcome
    limit = d.name_limit(2)
    who = [d.seat_name(names, s, COLOURS[s].capitalize(), limit) for s in range(2)]
    if outcome is None:
        assert state.to_move is not None
        status, status_fill = f"{who[state.to_move]} to move", INK[state.to_move]
    elif outcome.said is not None:
        winner = outcome.winners[0] if len(outcome.winners) == 1 else None
        status = ending_words(outcome, who) or ""
        status_fill = d.INK if winner is None else INK[winner]
    elif not outcome.winners:
        status, status_fill = "Game over: a draw", d.INK
    else:
        win = outcome.winners[0]
        how = " on the interior" if outcome.details.get("tiebreak") == "interior" else ""
        status, status_fill = f"{who[win]} wins{how}", INK[win]
    fish = state.fish()
    seats = [
        d.SeatLine(
            chip=_disc_shape(
                0, 0, 12, s, f'fill="{DISC_FILL[s]}" stroke="{DISC_STROKE[s]}" stroke-width="2"'
            )
            + f'<path d="{d.label_path(MARKS[s], 0, 0, 10)}" fill="none" '
            f'stroke="{DISC_TEXT[s]}" stroke-width="1.8" stroke-linecap="round"/>',
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
            f'data-seat="{owner}">'
            + _disc_shape(
                cx,
                cy,
                radius,
                owner,
                f'fill="{DISC_FILL[owner]}" stroke="{DISC_STROKE[owner]}" stroke-width="2"',
            )
            + d.text(cx, cy + 9, str(number), 25, DISC_TEXT[owner], bold=True, anchor="middle")
            + "</g>"
        )
    for turn, move, _, captured in _marked(state, seat) if last_turn else []:
        # Each marked move in its mover's colour: the cell outlined, the discs it turned ringed,
        # and a badge of the mover's letter towards the right corner of the cell's base.
        s = turn.seat
        for name in captured:
            if name in geo.by_name:
                cx, cy = centre(geo.cells[geo.by_name[name]])
                ring = d.circle_d(cx, cy, radius + 5)
                out.append(
                    f'<path class="last-move captured" data-cell="{name}" data-seat="{s}" '
                    f'd="{ring}" fill="none" stroke="{TURN_EDGE[s]}" stroke-width="6" '
                    f'stroke-dasharray="6 4"/><path d="{ring}" fill="none" '
                    f'stroke="{DISC_FILL[s]}" stroke-width="3" stroke-dasharray="6 4"/>'
                )
        placed = move[1:]
        if placed in geo.by_name:
            cell = geo.cells[geo.by_name[placed]]
            shape = d.polygon_d(corners(cell))
            cx, cy = centre(cell)
            corner = max(corners(cell), key=lambda p: (p[1] if cell.up else -p[1], p[0]))
            bx, by = cx + (corner[0] - cx) * 0.62, cy + (corner[1] - cy) * 0.62
            out.append(
                f'<path class="last-move placed" data-cell="{placed}" data-seat="{s}" '
                f'd="{shape}" fill="none" stroke="{TURN_EDGE[s]}" stroke-width="8" '
                f'stroke-linejoin="round"/><path d="{shape}" fill="none" '
                f'stroke="{DISC_FILL[s]}" stroke-width="4.5" stroke-linejoin="round"/>'
                + d.mail_badge(bx, by, MARKS[s], DISC_FILL[s], TURN_EDGE[s], 10)
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
