"""Martian Mud Wrestling's board for a turn email (`render_mail_svg`), as a phone shows it;
pbem.pictures makes the PNG, so it is drawn to cost little (see pbem.games.drawing)."""

from __future__ import annotations

from pbem.games import drawing as d
from pbem.games.base import ending_words
from pbem.games.mmw.board import COLOURS, FILES, SIZE, SQUARE_INDEX, SQUARE_NAMES, square_index
from pbem.games.mmw.look import DARK, FILL, MARKS, TINT, Marked, arrow, marked, square, verdict
from pbem.games.mmw.rules import MMWState
from pbem.games.two_player import Names, mail_names, mail_seats

M_CELL = 112.0  # a square, wide and high
M_LEFT = 24.0  # room for the rank numbers
M_FOOT = 26.0  # room for the file letters
M_GROUND = 14.0
M_BASE = {1: 34.0, 2: 54.0, 3: 74.0}
M_LEVEL = 27.0  # height of one pyramid in a stack of up to three; taller stacks squeeze
M_LIGHT = "#eadbbd"
M_DARK = "#d3bb90"
M_INK = "#4a3a22"
M_PALE = {"red": "#f4c7c3", "blue": "#c6d6f2"}  # resting pyramids: pale, not hatched (cheaper)


def _mail_place(index: int, seat: int | None, top: float) -> tuple[float, float]:
    """Top-left corner of a square in the mail drawing, as `seat` sees the board."""
    col, row = square(index, seat)
    return M_LEFT + col * M_CELL, top + row * M_CELL


def _mail_chip(seat: int) -> str:
    """A seat's pyramid in the mail header, with its letter drawn as strokes."""
    colour = COLOURS[seat]
    return (
        f'<path d="M-13 10 L13 10 L0 -12 Z" fill="{FILL[colour]}" stroke="{DARK[colour]}" '
        f'stroke-width="1.5" stroke-linejoin="round"/>'
        f'<path d="{d.label_path(MARKS[seat], 0, 3.5, 8)}" fill="none" stroke="#ffffff" '
        f'stroke-width="1.6" stroke-linecap="round" stroke-linejoin="round"/>'
    )


def render_mail_svg(
    state: MMWState, seat: int | None = None, names: Names = None, last_turn: bool = True
) -> str:
    """The board for a turn email, from `seat`'s side: the players' names and colours with
    pyramids left, every stack (each pyramid's owner and size, "R3"), and when `last_turn` the
    moves the page marks (`look.marked`), each in its mover's colour: both squares tinted, an
    arrow between them (`class="last-move"`) and the mover's letter. Drawn to cost little as a
    PNG (see pbem.games.drawing): no square names, hover titles or legend."""
    width = float(d.MAIL_WIDTH)
    who = mail_names(names, COLOURS)
    status, status_fill = _status(state, who)
    chips = [_mail_chip(s) for s in range(2)]
    seats = mail_seats(state, seat, who, chips, [f"{n} left" for n in state.scores()])
    band, top = d.header(width, status, status_fill, seats, d.after_moves(len(state.history)))
    board_h = SIZE * M_CELL
    height = top + board_h + M_FOOT
    out = [d.svg_open(width, height, "mmw-board")]
    out.append(f'<rect width="{d.fmt(width)}" height="{d.fmt(height)}" fill="#f4ecdc"/>')
    out.extend(band)
    # Squares: the light colour under the whole board, the dark squares as one path.
    out.append(
        f'<rect x="{d.fmt(M_LEFT)}" y="{d.fmt(top)}" width="{d.fmt(SIZE * M_CELL)}" '
        f'height="{d.fmt(board_h)}" fill="{M_LIGHT}" stroke="#8d7350" stroke-width="1.5"/>'
    )
    dark = []
    for index in range(SIZE * SIZE):
        f, r = divmod(index, SIZE)
        if (f + r) % 2 == 0:
            x, y = _mail_place(index, seat, top)
            dark.append(d.rect_d(x, y, M_CELL, M_CELL))
    out.append(f'<path d="{" ".join(dark)}" fill="{M_DARK}"/>')
    moves = marked(state, seat) if last_turn else []
    for marked_move in moves:
        out.extend(_move(marked_move, seat, top))
    out.extend(_stacks(state, seat, top))
    for turn, move, _ in moves:
        x, y = _mail_place(SQUARE_INDEX[move.split("-")[1]], seat, top)
        colour = COLOURS[turn.seat]
        out.append(
            d.mail_badge(x + M_CELL / 2, y + 12, MARKS[turn.seat], FILL[colour], DARK[colour], 10)
        )
    # File letters under the board, rank numbers on its left (from the reader's side).
    for i in range(SIZE):
        x, _ = _mail_place(square_index(i, 0), seat, top)
        out.append(d.text(x + M_CELL / 2, top + board_h + 20, FILES[i], 17, M_INK, anchor="middle"))
        _, y = _mail_place(square_index(0, i), seat, top)
        out.append(d.text(M_LEFT / 2, y + M_CELL / 2 + 6, str(i + 1), 17, M_INK, anchor="middle"))
    out.append("</svg>")
    return "".join(out)


def _status(state: MMWState, who: list[str]) -> tuple[str, str]:
    """The header's status line and its colour."""
    outcome = state.outcome
    if outcome is None:
        assert state.to_move is not None
        return f"{who[state.to_move]} to move", FILL[COLOURS[state.to_move]]
    if outcome.said is not None:
        return ending_words(outcome, who) or "", d.INK
    result = verdict(outcome, who)
    if outcome.winners:
        return result, FILL[COLOURS[outcome.winners[0]]]
    return f"Game over: {result}", d.INK


def _move(move: Marked, seat: int | None, top: float) -> list[str]:
    """A marked move in its mover's colour: both squares tinted and outlined, an arrow."""
    turn, notation, _ = move
    colour = COLOURS[turn.seat]
    out = []
    ends = []
    for name, kind in zip(notation.split("-"), ("from", "to"), strict=True):
        x, y = _mail_place(SQUARE_INDEX[name], seat, top)
        out.append(
            f'<rect class="last-move" data-square="{name}" data-last="{kind}" '
            f'data-seat="{turn.seat}" x="{d.fmt(x + 2)}" y="{d.fmt(y + 2)}" '
            f'width="{d.fmt(M_CELL - 4)}" height="{d.fmt(M_CELL - 4)}" '
            f'fill="{TINT[colour]}" stroke="{FILL[colour]}" '
            f'stroke-width="{3.5 if kind == "to" else 2}"/>'
        )
        ends.append((x + M_CELL / 2, y + M_CELL * 0.34))
    (fx, fy), end = ends
    # The arrow stops short of the destination's middle, its head above the stack.
    (bx, by), head = arrow((fx, fy), end, 24, 18, 11)
    out.append(
        f'<path class="last-move arrow" data-seat="{turn.seat}" '
        f'd="M{d.fmt(fx)} {d.fmt(fy)} L{d.fmt(bx)} {d.fmt(by)}" stroke="{FILL[colour]}" '
        f'stroke-opacity="0.75" stroke-width="6" stroke-linecap="round"/>'
        f'<path d="{d.polygon_d(head)}" fill="{FILL[colour]}" fill-opacity="0.85"/>'
    )
    return out


def _stacks(state: MMWState, seat: int | None, top: float) -> list[str]:
    """The stacks, bottom first; one path per look keeps the element count low."""
    ground: list[str] = []
    looks: dict[tuple[str, bool], list[str]] = {}
    tops: list[str] = []
    light_labels: list[str] = []  # owner's letter and size, "R3", as strokes
    dark_labels: list[str] = []
    stacks = state.stacks()
    for name in SQUARE_NAMES:
        x, y = _mail_place(SQUARE_INDEX[name], seat, top)
        floor = y + M_CELL - M_GROUND
        cx = x + M_CELL / 2
        ground.append(f"M{d.fmt(x + 12)} {d.fmt(floor)}H{d.fmt(x + M_CELL - 12)}")
        pyramids = stacks[name]
        if not pyramids:
            continue
        level = min(M_LEVEL, (M_CELL - M_GROUND - 8) / len(pyramids))
        for i, p in enumerate(pyramids):
            bottom = floor - i * level
            peak = bottom - max(level, 12.0) + 1
            half = M_BASE[p.size] / 2
            shape = d.polygon_d([(cx - half, bottom), (cx + half, bottom), (cx, peak)])
            looks.setdefault((p.colour, p.touching), []).append(shape)
            if i == len(pyramids) - 1:
                tops.append(shape)
            if level >= 12 or i == len(pyramids) - 1:
                size = min(12.0, max(level, 12.0) * 0.55)
                label = d.label_path(f"{MARKS[p.seat]}{p.size}", cx, bottom - 2 - size / 2, size)
                (light_labels if p.touching else dark_labels).append(label)
    out = [
        f'<path d="{" ".join(ground)}" stroke="#6b4f2a" stroke-width="2.5" stroke-linecap="round"/>'
    ]
    for (colour, touching), shapes in sorted(looks.items()):
        paint = FILL[colour] if touching else M_PALE[colour]
        edge = DARK[colour] if touching else FILL[colour]
        out.append(
            f'<path class="pyramids {colour} {"touching" if touching else "resting"}" '
            f'd="{" ".join(shapes)}" fill="{paint}" stroke="{edge}" stroke-width="1.5" '
            f'stroke-linejoin="round"/>'
        )
    if tops:
        out.append(
            f'<path class="top" d="{" ".join(tops)}" fill="none" stroke="#ffb300" '
            f'stroke-width="3" stroke-linejoin="round"/>'
        )
    if dark_labels:
        path = " ".join(dark_labels)
        out.append(
            f'<path d="{path}" fill="none" stroke="#fffaf0" stroke-width="4.5" '
            f'stroke-linecap="round" stroke-linejoin="round"/>'
            f'<path d="{path}" fill="none" stroke="#3b1010" stroke-width="2" '
            f'stroke-linecap="round" stroke-linejoin="round"/>'
        )
    if light_labels:
        out.append(
            f'<path d="{" ".join(light_labels)}" fill="none" stroke="#ffffff" '
            f'stroke-width="2" stroke-linecap="round" stroke-linejoin="round"/>'
        )
    return out
