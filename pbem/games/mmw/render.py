"""Martian Mud Wrestling drawn as SVG (for the web and email) and as text (for the terminal).

Stacks are drawn side-on: every pyramid is a triangle sized by its points, bottom first.
Pyramids touching the board are solid; resting ones are hatched with a dashed outline. The top
pyramid (the one that can move) has a gold outline.

Players are called by their colour ("Red to move") unless the seats' display names are given, in
which case the names label them (escaped in the SVG, shortened where space is tight).
"""

from __future__ import annotations

from collections.abc import Sequence
from html import escape

from pbem.games.base import Outcome, display_name
from pbem.games.mmw.board import (
    COLOURS,
    FILES,
    SIZE,
    SQUARE_INDEX,
    SQUARE_NAMES,
    Pyramid,
    square_index,
)
from pbem.games.mmw.rules import NO_SINKING_LIMIT, MMWState

CELL = 100  # width of a square
ROW = 112  # height of a square: a little taller, for tall stacks
LEFT = 30
TOP = 44
LABEL = 26
FOOT = 64
WIDTH = LEFT + SIZE * CELL + LEFT
HEIGHT = TOP + SIZE * ROW + LABEL + FOOT
GROUND = 14  # ground line height above the bottom of a cell
HEAD_ROOM = 18  # space above the tallest stack for the square name
MIN_HEIGHT = 14.0  # tall stacks overlap their pyramids rather than shrink them further
FILL = {"red": "#c62828", "blue": "#1f5fbf"}
DARK = {"red": "#6d1010", "blue": "#0d2f66"}
BASE = {1: 26, 2: 42, 3: 58}
HEAD_NAME = 30  # longest name in the status line, in characters
FOOT_NAME = 18  # longest name in the score line under the board


def _who(names: Sequence[str] | None, seat: int, limit: int = 0, capital: bool = True) -> str:
    """The name of `seat`, or its colour word ("Red", or "red") when no names are given."""
    name = display_name(names, seat, limit)
    if name is not None:
        return name
    return COLOURS[seat].capitalize() if capital else COLOURS[seat]


def _why(outcome: Outcome, names: Sequence[str] | None) -> str:
    """Why the game ended, in a few words (never the outcome's reason code)."""
    if outcome.reason == "no-move" and outcome.winners:
        return f"{_who(names, 1 - outcome.winners[0])} could not move"
    return {
        "both-stuck": "neither could move",
        "repetition": "the same position three times",
        "no-sinking-100": f"{NO_SINKING_LIMIT} plies without a sinking",
    }.get(outcome.reason, "")


def _place(index: int, seat: int | None) -> tuple[int, int]:
    """Top-left corner of a square; seat 1 sees the board turned round, home rank at the bottom."""
    f, r = divmod(index, SIZE)
    col, row = (SIZE - 1 - f, r) if seat == 1 else (f, SIZE - 1 - r)
    return LEFT + col * CELL, TOP + row * ROW


def _tokens(pyramids: list[Pyramid]) -> str:
    return "".join(p.token() for p in pyramids)


def _points(pyramids: list[Pyramid]) -> tuple[int, int]:
    touching = sum(p.size for p in pyramids if p.touching)
    return touching, sum(p.size for p in pyramids) - touching


def _describe_stack(name: str, pyramids: list[Pyramid]) -> str:
    if not pyramids:
        return f"{name}: empty"
    parts = [f"{p.colour} {p.size}{'' if p.touching else ' (resting)'}" for p in pyramids]
    touching, resting = _points(pyramids)
    return f"{name}: {', '.join(parts)} (bottom to top); touching {touching}, resting {resting}"


def _stack_svg(x: int, y: int, pyramids: list[Pyramid]) -> list[str]:
    out: list[str] = []
    ground = y + ROW - GROUND
    cx = x + CELL / 2
    out.append(
        f'<line x1="{x + 10}" y1="{ground}" x2="{x + CELL - 10}" y2="{ground}" '
        'stroke="#6b4f2a" stroke-width="2" stroke-linecap="round"/>'
    )
    if not pyramids:
        return out
    level = min(22.0, (ROW - GROUND - HEAD_ROOM) / len(pyramids))
    for i, p in enumerate(pyramids):
        bottom = ground - i * level
        top = bottom - max(level, MIN_HEIGHT) + 1
        half = BASE[p.size] / 2
        shape = f"{cx - half:.1f},{bottom:.1f} {cx + half:.1f},{bottom:.1f} {cx:.1f},{top:.1f}"
        is_top = i == len(pyramids) - 1
        if p.touching:
            fill, stroke, width, dash = FILL[p.colour], DARK[p.colour], 1.2, ""
        else:
            fill, stroke, width, dash = f"url(#hatch-{p.colour})", FILL[p.colour], 1.6, "4 2"
        if is_top:
            stroke, width, dash = "#ffb300", 3, ""
        dashes = f' stroke-dasharray="{dash}"' if dash else ""
        kind = "touching" if p.touching else "resting"
        out.append(
            f'<polygon class="pyramid {kind}{" top" if is_top else ""}" points="{shape}" '
            f'fill="{fill}" stroke="{stroke}" stroke-width="{width}"{dashes} '
            f'stroke-linejoin="round" data-colour="{p.colour}" data-size="{p.size}" '
            f'data-touching="{str(p.touching).lower()}" data-level="{i}"/>'
        )
        if level >= 11 or is_top:
            font = min(13.0, max(level, MIN_HEIGHT) * 0.62)
            colour = "#fff" if p.touching else DARK[p.colour]
            halo = "" if p.touching else ' stroke="#fffaf0" stroke-width="3" paint-order="stroke"'
            out.append(
                f'<text x="{cx:.1f}" y="{bottom - 2:.1f}" font-size="{font:.1f}" '
                f'text-anchor="middle" font-weight="bold" fill="{colour}"{halo}>{p.size}</text>'
            )
    return out


def render_svg(state: MMWState, seat: int | None = None, names: Sequence[str] | None = None) -> str:
    """The board as a standalone SVG document; `names` label the seats instead of colours."""
    history = state.history
    last = history[-1] if history else None
    marked: dict[str, str] = {}
    if last:
        frm, to = last.split("-")
        marked = {frm: "from", to: "to"}
    parts: list[str] = [
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {WIDTH} {HEIGHT}" '
        f'width="{WIDTH}" height="{HEIGHT}" font-family="DejaVu Sans, Verdana, sans-serif" '
        f'class="mmw-board" data-game="mmw" data-seat="{"" if seat is None else seat}">',
        "<defs>",
    ]
    for colour in COLOURS:
        parts.append(
            f'<pattern id="hatch-{colour}" width="5" height="5" patternUnits="userSpaceOnUse" '
            f'patternTransform="rotate(45)"><rect width="5" height="5" fill="#fffaf0"/>'
            f'<line x1="0" y1="0" x2="0" y2="5" stroke="{FILL[colour]}" stroke-width="2.2"/>'
            "</pattern>"
        )
    parts.append(
        '<marker id="arrow" viewBox="0 0 10 10" refX="6" refY="5" markerWidth="4" '
        'markerHeight="4" orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" '
        'fill="#8a6d00"/></marker>'
    )
    parts.append("</defs>")
    parts.append(f'<rect width="{WIDTH}" height="{HEIGHT}" fill="#f4ecdc"/>')

    to_move = state.to_move
    outcome = state.outcome
    if outcome is None:
        assert to_move is not None
        head = f"{_who(names, to_move, HEAD_NAME)} to move"
        head_fill = FILL[COLOURS[to_move]]
    else:
        if outcome.winners:
            winner = _who(names, outcome.winners[0], HEAD_NAME, capital=False)
            head = f"Game over: {winner} wins"
        elif outcome.reason == "both-stuck":
            head = "Game over: both lose"
        else:
            head = "Game over: drawn"
        head_fill = "#333"
    parts.append(
        f'<text x="{LEFT}" y="{TOP - 16}" font-size="17" font-weight="bold" fill="{head_fill}" '
        f'class="status">{escape(head)}</text>'
    )
    parts.append(
        f'<text x="{WIDTH - LEFT}" y="{TOP - 16}" font-size="13" text-anchor="end" '
        f'fill="#555">ply {len(history)}{" · last " + last if last else ""}</text>'
    )

    stacks = state.stacks()
    piles: list[str] = []  # drawn after the last-move arrow so the arrow stays underneath
    for name in SQUARE_NAMES:
        index = SQUARE_INDEX[name]
        x, y = _place(index, seat)
        f, r = divmod(index, SIZE)
        base_fill = "#e6d3b1" if (f + r) % 2 else "#d8c197"
        fill = {"from": "#f3e08a", "to": "#f7d54a"}.get(marked.get(name, ""), base_fill)
        pyramids = stacks[name]
        top = pyramids[-1].colour if pyramids else ""
        touching, resting = _points(pyramids)
        extra = f' data-last="{marked[name]}"' if name in marked else ""
        parts.append(
            f'<g class="square" data-square="{name}" data-top="{top}" '
            f'data-stack="{_tokens(pyramids)}"{extra}>'
        )
        parts.append(f"<title>{escape(_describe_stack(name, pyramids))}</title>")
        parts.append(
            f'<rect x="{x}" y="{y}" width="{CELL}" height="{ROW}" fill="{fill}" '
            'stroke="#8d7350" stroke-width="1"/>'
        )
        parts.append(f'<text x="{x + 5}" y="{y + 14}" font-size="11" fill="#7a6240">{name}</text>')
        if pyramids:
            danger = "#b00020" if resting >= touching else "#5b4a30"
            parts.append(
                f'<text x="{x + CELL - 5}" y="{y + 14}" font-size="11" text-anchor="end" '
                f'fill="{danger}" class="points">{touching}|{resting}</text>'
            )
        parts.append("</g>")
        piles.append(f'<g class="stack" data-square="{name}">')
        piles.extend(_stack_svg(x, y, pyramids))
        piles.append("</g>")

    if last:
        (x1, y1), (x2, y2) = (_place(SQUARE_INDEX[s], seat) for s in last.split("-"))
        # From the middle of the origin to the edge of the destination, so the arrow head is not
        # hidden under the stack it points at.
        fx, fy = x1 + CELL / 2, y1 + ROW / 2
        tx, ty = x2 + CELL / 2 - (x2 - x1) * 0.32, y2 + ROW / 2 - (y2 - y1) * 0.32
        parts.append(
            f'<line class="last-move" x1="{fx:.1f}" y1="{fy:.1f}" x2="{tx:.1f}" y2="{ty:.1f}" '
            'stroke="#8a6d00" stroke-opacity="0.6" stroke-width="5" stroke-linecap="round" '
            'marker-end="url(#arrow)" pointer-events="none"/>'
        )
    parts.extend(piles)

    for i in range(SIZE):
        x, y = _place(square_index(i, 0), seat)
        parts.append(
            f'<text x="{x + CELL / 2}" y="{TOP + SIZE * ROW + 18}" font-size="14" '
            f'text-anchor="middle" fill="#4a3a22">{FILES[i]}</text>'
        )
        x, y = _place(square_index(0, i), seat)
        parts.append(
            f'<text x="{LEFT / 2}" y="{y + ROW / 2 + 5}" font-size="14" text-anchor="middle" '
            f'fill="#4a3a22">{i + 1}</text>'
        )

    scores = state.scores()
    foot_y = TOP + SIZE * ROW + LABEL + 18
    for s, colour in enumerate(COLOURS):
        x, anchor = (LEFT, "start") if s == 0 else (WIDTH - LEFT, "end")
        parts.append(
            f'<text x="{x}" y="{foot_y}" font-size="15" fill="{FILL[colour]}" '
            f'text-anchor="{anchor}" font-weight="bold" class="score" data-seat="{s}">'
            f"{escape(_who(names, s, FOOT_NAME))}: {scores[s]} left, {15 - scores[s]} sunk</text>"
        )
    parts.append(
        f'<text x="{WIDTH / 2}" y="{foot_y + 20}" font-size="11" fill="#555" '
        'text-anchor="middle">solid: touches the board · hatched: resting · gold edge: top · '
        "corner: touching|resting points</text>"
    )
    parts.append(
        f'<text x="{WIDTH / 2}" y="{foot_y + 35}" font-size="11" fill="#555" '
        f'text-anchor="middle" class="no-sinking">{state.plies_without_sinking} of '
        f"{NO_SINKING_LIMIT} plies without a sinking</text>"
    )
    parts.append("</svg>")
    return "\n".join(parts)


def render_text(
    state: MMWState, seat: int | None = None, names: Sequence[str] | None = None
) -> str:
    """A plain board: each square lists its stack bottom first, `'` marking resting pyramids.
    `names` call the seats instead of their colours."""
    texts = {name: _tokens(state.stack(name)) or "." for name in SQUARE_NAMES}
    width = [
        max(6, *(len(texts[SQUARE_NAMES[square_index(f, r)]]) for r in range(SIZE))) + 2
        for f in range(SIZE)
    ]
    files = list(range(SIZE))
    ranks = list(range(SIZE - 1, -1, -1))
    if seat == 1:
        files.reverse()
        ranks.reverse()
    outcome = state.outcome
    to_move = state.to_move
    if outcome is None:
        assert to_move is not None
        status = f"{_who(names, to_move, capital=False)} to move"
    elif outcome.winners:
        winner = _who(names, outcome.winners[0], capital=False)
        status = f"game over: {winner} wins ({_why(outcome, names)})"
    elif outcome.reason == "both-stuck":
        status = f"game over: both lose ({_why(outcome, names)})"
    else:
        status = f"game over: drawn ({_why(outcome, names)})"
    history = state.history
    lines = [
        f"Martian Mud Wrestling: {status}; ply {len(history)}, "
        f"{state.plies_without_sinking} without sinking"
    ]
    header = "    " + "".join(FILES[f].ljust(width[f]) for f in files)
    lines.append(header.rstrip())
    for r in ranks:
        row = "".join(texts[SQUARE_NAMES[square_index(f, r)]].ljust(width[f]) for f in files)
        lines.append(f" {r + 1}  {row}{r + 1}")
    lines.append(header.rstrip())
    scores = state.scores()
    seats = []
    for s, colour in enumerate(COLOURS):
        name = display_name(names, s)
        seats.append(f"{colour} (seat {s})" if name is None else f"{name} ({colour}, seat {s})")
    lines.append(
        "   ".join(f"{seats[s]}: {scores[s]} on the board, {15 - scores[s]} sunk" for s in range(2))
    )
    if history:
        lines.append(f"last move: {history[-1]}")
    lines.append("stacks read bottom to top; ' marks a pyramid resting (not touching the board)")
    return "\n".join(lines) + "\n"


# ---------------------------------------------------------------------------------------------
# The mail drawing: the board as a phone shows it in a turn email (pbem.pictures makes the PNG).

M_CELL = 112.0  # a square, wide and high
M_LEFT = 24.0  # room for the rank numbers
M_FOOT = 26.0  # room for the file letters
M_GROUND = 14.0
M_BASE = {1: 34.0, 2: 54.0, 3: 74.0}
M_LEVEL = 27.0  # height of one pyramid in a stack of up to three; taller stacks squeeze
M_LIGHT = "#eadbbd"
M_DARK = "#d3bb90"
M_FROM = "#f6e3a1"
M_TO = "#f7cf3f"
M_LAST = "#8a5a00"
M_INK = "#4a3a22"
M_PALE = {"red": "#f4c7c3", "blue": "#c6d6f2"}  # resting pyramids: pale, not hatched (cheaper)


def _mail_place(index: int, seat: int | None, top: float) -> tuple[float, float]:
    """Top-left corner of a square in the mail drawing (seat 1 sees the board turned round)."""
    f, r = divmod(index, SIZE)
    col, row = (SIZE - 1 - f, r) if seat == 1 else (f, SIZE - 1 - r)
    return M_LEFT + col * M_CELL, top + row * M_CELL


def _mail_chip(seat: int) -> str:
    colour = COLOURS[seat]
    return (
        f'<path d="M-12 9 L12 9 L0 -11 Z" fill="{FILL[colour]}" stroke="{DARK[colour]}" '
        f'stroke-width="1.5" stroke-linejoin="round"/>'
    )


def render_mail_svg(
    state: MMWState,
    seat: int | None = None,
    names: Sequence[str] | None = None,
    last_turn: bool = True,
) -> str:
    """The board for a turn email, from `seat`'s side: the players' names and colours with
    pyramids left, every stack, and the last move (both squares tinted, an arrow between them,
    `class="last-move"`) when `last_turn`. Drawn to cost little as a PNG (see pbem.games.drawing):
    no square names, hover titles or legend."""
    from pbem.games import drawing as d

    width = float(d.MAIL_WIDTH)
    history = state.history
    last = history[-1] if history and last_turn else None
    outcome = state.outcome
    limit = d.name_limit(2)
    who = [d.seat_name(names, s, COLOURS[s].capitalize(), limit) for s in range(2)]
    if outcome is None:
        assert state.to_move is not None
        status, status_fill = f"{who[state.to_move]} to move", FILL[COLOURS[state.to_move]]
    elif outcome.winners:
        status, status_fill = f"{who[outcome.winners[0]]} wins", FILL[COLOURS[outcome.winners[0]]]
    elif outcome.reason == "both-stuck":
        status, status_fill = "Game over: both lose", d.INK
    else:
        status, status_fill = "Game over: drawn", d.INK
    scores = state.scores()
    seats = [
        d.SeatLine(
            chip=_mail_chip(s),
            name=who[s],
            score=f"{scores[s]} left",
            to_move=outcome is None and state.to_move == s,
            you=seat == s,
            won=outcome is not None and s in outcome.winners,
        )
        for s in range(2)
    ]
    band, top = d.header(width, status, status_fill, seats, d.after_moves(len(history)))
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
    if last:
        frm, to = last.split("-")
        ends = []
        for name, fill, kind in ((frm, M_FROM, "from"), (to, M_TO, "to")):
            x, y = _mail_place(SQUARE_INDEX[name], seat, top)
            out.append(
                f'<rect class="last-move" data-square="{name}" data-last="{kind}" '
                f'x="{d.fmt(x)}" y="{d.fmt(y)}" width="{d.fmt(M_CELL)}" '
                f'height="{d.fmt(M_CELL)}" fill="{fill}" stroke="{M_LAST}" stroke-width="3"/>'
            )
            ends.append((x + M_CELL / 2, y + M_CELL / 2))
        (fx, fy), (tx, ty) = ends
        # The arrow stops short of the destination's centre, so its head shows above the stack.
        dx, dy = tx - fx, ty - fy
        length = max((dx * dx + dy * dy) ** 0.5, 1.0)
        ux, uy = dx / length, dy / length
        hx, hy = tx - ux * 30, ty - uy * 30
        bx, by = hx - ux * 18, hy - uy * 18
        head = [(hx, hy), (bx - uy * 11, by + ux * 11), (bx + uy * 11, by - ux * 11)]
        out.append(
            f'<path class="last-move arrow" d="M{d.fmt(fx)} {d.fmt(fy)} L{d.fmt(bx)} {d.fmt(by)}" '
            f'stroke="{M_LAST}" stroke-opacity="0.7" stroke-width="6" stroke-linecap="round"/>'
            f'<path d="{d.polygon_d(head)}" '
            f'fill="{M_LAST}" fill-opacity="0.8"/>'
        )
    # Stacks, bottom first; one path per look keeps the element count low.
    ground: list[str] = []
    looks: dict[tuple[str, bool], list[str]] = {}
    tops: list[str] = []
    light_digits: list[tuple[int, float, float, float]] = []
    dark_digits: list[tuple[int, float, float, float]] = []
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
                mark = (p.size, cx, bottom - 2 - size / 2, size)
                (light_digits if p.touching else dark_digits).append(mark)
    out.append(
        f'<path d="{" ".join(ground)}" stroke="#6b4f2a" stroke-width="2.5" stroke-linecap="round"/>'
    )
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
    if dark_digits:
        path = d.digits_path(dark_digits)
        out.append(
            f'<path d="{path}" fill="none" stroke="#fffaf0" stroke-width="4.5" '
            f'stroke-linecap="round" stroke-linejoin="round"/>'
            f'<path d="{path}" fill="none" stroke="#3b1010" stroke-width="2" '
            f'stroke-linecap="round" stroke-linejoin="round"/>'
        )
    if light_digits:
        out.append(
            f'<path d="{d.digits_path(light_digits)}" fill="none" stroke="#ffffff" '
            f'stroke-width="2" stroke-linecap="round" stroke-linejoin="round"/>'
        )
    # File letters under the board, rank numbers on its left (from the reader's side).
    for i in range(SIZE):
        x, _ = _mail_place(square_index(i, 0), seat, top)
        out.append(d.text(x + M_CELL / 2, top + board_h + 20, FILES[i], 17, M_INK, anchor="middle"))
        _, y = _mail_place(square_index(0, i), seat, top)
        out.append(d.text(M_LEFT / 2, y + M_CELL / 2 + 6, str(i + 1), 17, M_INK, anchor="middle"))
    out.append("</svg>")
    return "".join(out)
