"""Martian Mud Wrestling drawn as SVG (for the web and email) and as text (for the terminal).

Stacks are drawn side-on: every pyramid is a triangle sized by its points, bottom first.
Pyramids touching the board are solid; resting ones are hatched with a dashed outline. The top
pyramid (the one that can move) has a gold outline.

Players are called by their colour ("Red to move") unless the seats' display names are given, in
which case the names label them (escaped in the SVG, shortened where space is tight).
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from html import escape

from pbem.games import drawing as d
from pbem.games.base import (
    MoveError,
    Outcome,
    display_name,
    ending_words,
    fill_names,
    seat_mark,
)
from pbem.games.mmw.board import (
    COLOURS,
    FILES,
    SIZE,
    SIZE_NAMES,
    SQUARE_INDEX,
    SQUARE_NAMES,
    Pyramid,
    square_index,
)
from pbem.games.mmw.rules import NO_SINKING_LIMIT, MMWState, new_state

CELL = 100  # width of a square
ROW = 112  # height of a square: a little taller, for tall stacks
LEFT = 30
TOP = 44
LABEL = 26
FOOT = 82
WIDTH = LEFT + SIZE * CELL + LEFT
HEIGHT = TOP + SIZE * ROW + LABEL + FOOT
GROUND = 14  # ground line height above the bottom of a cell
HEAD_ROOM = 18  # space above the tallest stack for the square name
MIN_HEIGHT = 14.0  # tall stacks overlap their pyramids rather than shrink them further
FILL = {"red": "#c62828", "blue": "#1f5fbf"}
DARK = {"red": "#6d1010", "blue": "#0d2f66"}
BASE = {1: 26, 2: 42, 3: 58}
HEAD_NAME = 30  # longest name in the status line, in characters
FOOT_NAME = 22  # longest name in the score line under the board


MARKS = tuple(seat_mark(c) for c in COLOURS)  # "R", "B": on pyramids and last-move badges
TINT = {"red": "#f3c9c4", "blue": "#c9d8f1"}  # a last move's squares, in the mover's colour


def _after_moves(plies: int) -> str:
    """How far the game is, counted in moves from 1 as the pages count them."""
    return f"after move {plies}" if plies else "the start"


@lru_cache(maxsize=32)
def _sentences(
    seed: int, history: tuple[str, ...], board: tuple[tuple[str, str], ...]
) -> tuple[str, ...] | None:
    """The sentence of each of the last two moves (seats as placeholders), replayed from the
    start; None when the game did not start from the usual position (set up by hand)."""
    state = new_state(seed)
    words: list[str] = []
    try:
        for ply, move in enumerate(history):
            if ply >= len(history) - 2:
                state, sentence = state.play_described(move)
                words.append(sentence)
            else:
                state = state.play(move)
    except MoveError:
        return None
    return tuple(words) if tuple(sorted(state.to_json()["board"].items())) == board else None


def _marked(state: MMWState, viewer: int | None) -> list[tuple[d.Turn, str, str]]:
    """The moves marked for `viewer` (`drawing.marked_turns`), oldest first, each with its
    notation and sentence (seats as placeholders). Turns alternate, so the last two moves are
    one of each seat."""
    history = state.history
    count = len(history)
    turns = [
        d.Turn((state.turn + count - ply) % 2, (ply,)) for ply in range(max(0, count - 2), count)
    ]
    board = tuple(sorted(state.to_json()["board"].items()))
    words = _sentences(state.seed, tuple(history), board)
    out = []
    for turn in d.marked_turns(turns, viewer):
        ply = turn.plies[0]
        move = history[ply]
        if words is not None:
            sentence = words[ply - (count - len(words))]
        else:
            frm, to = move.split("-")
            sentence = f"{{{turn.seat}}} moved the top pyramid of {frm} to {to}"
        out.append((turn, move, sentence))
    return out


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
    """A square's accessible name, top pyramid first: "c3: red large on blue small (resting);
    touching 3, resting 1"."""
    if not pyramids:
        return f"{name}: empty"
    parts = [
        f"{p.colour} {SIZE_NAMES[p.size - 1]}{'' if p.touching else ' (resting)'}"
        for p in reversed(pyramids)
    ]
    touching, resting = _points(pyramids)
    return f"{name}: {' on '.join(parts)}; touching {touching}, resting {resting}"


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
            # The owner's letter beside the size, so the stacks read without colour.
            font = min(13.0, max(level, MIN_HEIGHT) * 0.62)
            colour = "#fff" if p.touching else DARK[p.colour]
            halo = "" if p.touching else ' stroke="#fffaf0" stroke-width="3" paint-order="stroke"'
            out.append(
                f'<text x="{cx:.1f}" y="{bottom - 2:.1f}" font-size="{font:.1f}" '
                f'text-anchor="middle" font-weight="bold" fill="{colour}"{halo}>'
                f"{MARKS[p.seat]}{p.size}</text>"
            )
    return out


def render_svg(state: MMWState, seat: int | None = None, names: Sequence[str] | None = None) -> str:
    """The board as a standalone SVG document; `names` label the seats instead of colours.

    Squares carry data-square and their accessible name in data-name (and a title). The last
    move of the other seat (and the viewer's own when nobody has moved since) is marked in the
    mover's colour: both squares tinted and outlined, an arrow, and a badge with the mover's
    letter (`g.last-turn`)."""
    history = state.history
    last = history[-1] if history else None
    marked_moves = _marked(state, seat)
    marked: dict[str, str] = {}
    if last:
        frm, to = last.split("-")
        marked = {frm: "from", to: "to"}
    tints: dict[str, str] = {}
    for turn, move, _ in marked_moves:
        for square in move.split("-"):
            tints[square] = TINT[COLOURS[turn.seat]]

    to_move = state.to_move
    outcome = state.outcome
    if outcome is None:
        assert to_move is not None
        head = f"{_who(names, to_move, HEAD_NAME)} to move"
        head_fill = FILL[COLOURS[to_move]]
    else:
        settled = ending_words(outcome, [_who(names, s, HEAD_NAME) for s in range(2)])
        if settled is not None:
            head = f"Game over: {settled}"
        elif outcome.winners:
            winner = _who(names, outcome.winners[0], HEAD_NAME, capital=False)
            head = f"Game over: {winner} wins"
        elif outcome.reason == "both-stuck":
            head = "Game over: both lose"
        else:
            head = "Game over: drawn"
        head_fill = "#333"
    label = f"Martian Mud Wrestling board: {head}, {_after_moves(len(history))}"
    parts: list[str] = [
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {WIDTH} {HEIGHT}" '
        f'width="{WIDTH}" height="{HEIGHT}" font-family="DejaVu Sans, Verdana, sans-serif" '
        f'class="mmw-board" data-game="mmw" data-seat="{"" if seat is None else seat}" '
        f'role="group" aria-label="{escape(label)}">',
        "<defs>",
    ]
    for colour in COLOURS:
        parts.append(
            f'<pattern id="hatch-{colour}" width="5" height="5" patternUnits="userSpaceOnUse" '
            f'patternTransform="rotate(45)"><rect width="5" height="5" fill="#fffaf0"/>'
            f'<line x1="0" y1="0" x2="0" y2="5" stroke="{FILL[colour]}" stroke-width="2.2"/>'
            "</pattern>"
        )
    parts.append("</defs>")
    parts.append(f'<rect width="{WIDTH}" height="{HEIGHT}" fill="#f4ecdc"/>')
    parts.append(
        f'<text x="{LEFT}" y="{TOP - 16}" font-size="17" font-weight="bold" fill="{head_fill}" '
        f'class="status">{escape(head)}</text>'
    )
    parts.append(
        f'<text x="{WIDTH - LEFT}" y="{TOP - 16}" font-size="13" text-anchor="end" '
        f'fill="#555">{_after_moves(len(history))}</text>'
    )

    stacks = state.stacks()
    piles: list[str] = []  # drawn after the last-move arrows so the arrows stay underneath
    for name in SQUARE_NAMES:
        index = SQUARE_INDEX[name]
        x, y = _place(index, seat)
        f, r = divmod(index, SIZE)
        base_fill = "#e6d3b1" if (f + r) % 2 else "#d8c197"
        fill = tints.get(name, base_fill)
        pyramids = stacks[name]
        top = pyramids[-1].colour if pyramids else ""
        touching, resting = _points(pyramids)
        extra = f' data-last="{marked[name]}"' if name in marked else ""
        words = escape(_describe_stack(name, pyramids))
        parts.append(
            f'<g class="square" data-square="{name}" data-top="{top}" '
            f'data-stack="{_tokens(pyramids)}"{extra} data-name="{words}">'
        )
        parts.append(f"<title>{words}</title>")
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

    parts.extend(_arrows(marked_moves, seat))
    parts.extend(piles)
    parts.extend(_turn_marks(marked_moves, seat, names))

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
        # The name and the count on lines of their own: two long names side by side on one line
        # each would run into each other in the middle.
        who = escape(_who(names, s, FOOT_NAME))
        count = f"{scores[s]} left, {15 - scores[s]} sunk"
        # The seat's letter in a badge before its name, the key to the letters on the pyramids.
        chip_x = x + 9 if s == 0 else x - 9
        text_x = x + 22 if s == 0 else x - 22
        parts.append(
            d.badge(chip_x, foot_y - 5, MARKS[s], FILL[colour], DARK[colour], 11)
            + f'<text x="{text_x}" y="{foot_y}" font-size="15" fill="{FILL[colour]}" '
            f'text-anchor="{anchor}" font-weight="bold" class="score" data-seat="{s}">'
            f"{who}</text>"
            f'<text x="{text_x}" y="{foot_y + 17}" font-size="13" fill="{FILL[colour]}" '
            f'text-anchor="{anchor}" class="score-count" data-seat="{s}">{count}</text>'
        )
    parts.append(
        f'<text x="{WIDTH / 2}" y="{foot_y + 38}" font-size="11" fill="#555" '
        'text-anchor="middle">solid: touches the board · hatched: resting · gold edge: top · '
        "corner: touching|resting points</text>"
    )
    parts.append(
        f'<text x="{WIDTH / 2}" y="{foot_y + 53}" font-size="11" fill="#555" '
        f'text-anchor="middle" class="no-sinking">{state.plies_without_sinking} of '
        f"{NO_SINKING_LIMIT} moves without a sinking</text>"
    )
    parts.append("</svg>")
    return "\n".join(parts)


def _anchor(square: str, seat: int | None) -> tuple[float, float]:
    """Where a last-move arrow starts or ends on a square: in the middle, above most stacks."""
    x, y = _place(SQUARE_INDEX[square], seat)
    return x + CELL / 2, y + ROW * 0.36


def _arrows(marked: list[tuple[d.Turn, str, str]], seat: int | None) -> list[str]:
    """An arrow in the mover's colour for each marked move, under the stacks, its head short of
    the destination's middle so the stack there does not hide it."""
    out = []
    for turn, move, _ in marked:
        colour = COLOURS[turn.seat]
        frm, to = move.split("-")
        (fx, fy), (cx, cy) = _anchor(frm, seat), _anchor(to, seat)
        tx, ty = cx - (cx - fx) * 0.2, cy - (cy - fy) * 0.2
        dx, dy = tx - fx, ty - fy
        length = max((dx * dx + dy * dy) ** 0.5, 1.0)
        ux, uy = dx / length, dy / length
        bx, by = tx - ux * 16, ty - uy * 16
        head = [(tx, ty), (bx - uy * 10, by + ux * 10), (bx + uy * 10, by - ux * 10)]
        out.append(
            f'<g class="last-move arrow" data-seat="{turn.seat}" pointer-events="none" '
            f'opacity="0.8"><path d="M{d.fmt(fx)} {d.fmt(fy)} L{d.fmt(bx)} {d.fmt(by)}" '
            f'stroke="{FILL[colour]}" stroke-width="6" stroke-linecap="round"/>'
            f'<path d="{d.polygon_d(head)}" fill="{FILL[colour]}"/></g>'
        )
    return out


def _turn_marks(
    marked: list[tuple[d.Turn, str, str]], seat: int | None, names: Sequence[str] | None
) -> list[str]:
    """Over the stacks, each marked move's squares outlined in the mover's colour (the origin
    thinly) and a badge with the mover's letter at the top of the destination."""
    who = [_who(names, s) for s in range(2)]
    out = []
    for turn, move, words in marked:
        colour = COLOURS[turn.seat]
        sentence = fill_names(words, who)
        frm, to = move.split("-")
        group = [
            f'<g class="last-turn" data-seat="{turn.seat}" data-plies="{turn.plies[0]}" '
            f'data-move="{move}" data-name="{escape(sentence)}" pointer-events="none">'
            f"<title>{escape(sentence)}</title>"
        ]
        for square, width in ((frm, 1.5), (to, 3.5)):
            x, y = _place(SQUARE_INDEX[square], seat)
            group.append(
                d.outline(
                    d.rect_d(x + 3, y + 3, CELL - 6, ROW - 6), FILL[colour], DARK[colour], width
                )
            )
        x, y = _place(SQUARE_INDEX[to], seat)
        group.append(
            d.badge(x + CELL / 2, y + 12, MARKS[turn.seat], FILL[colour], DARK[colour], 13)
        )
        group.append("</g>")
        out.append("".join(group))
    return out


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
    elif outcome.said is not None:
        status = f"game over: {ending_words(outcome, [_who(names, s) for s in range(2)])}"
    elif outcome.winners:
        winner = _who(names, outcome.winners[0], capital=False)
        status = f"game over: {winner} wins ({_why(outcome, names)})"
    elif outcome.reason == "both-stuck":
        status = f"game over: both lose ({_why(outcome, names)})"
    else:
        status = f"game over: drawn ({_why(outcome, names)})"
    history = state.history
    lines = [
        f"Martian Mud Wrestling: {status}; {_after_moves(len(history))}, "
        f"{state.plies_without_sinking} of {NO_SINKING_LIMIT} moves without a sinking"
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
M_INK = "#4a3a22"
M_PALE = {"red": "#f4c7c3", "blue": "#c6d6f2"}  # resting pyramids: pale, not hatched (cheaper)


def _mail_place(index: int, seat: int | None, top: float) -> tuple[float, float]:
    """Top-left corner of a square in the mail drawing (seat 1 sees the board turned round)."""
    f, r = divmod(index, SIZE)
    col, row = (SIZE - 1 - f, r) if seat == 1 else (f, SIZE - 1 - r)
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
    state: MMWState,
    seat: int | None = None,
    names: Sequence[str] | None = None,
    last_turn: bool = True,
) -> str:
    """The board for a turn email, from `seat`'s side: the players' names and colours with
    pyramids left, every stack (each pyramid's owner and size, "R3"), and when `last_turn` the
    moves the page marks (`_marked`), each in its mover's colour: both squares tinted, an arrow
    between them (`class="last-move"`) and the mover's letter. Drawn to cost little as a PNG
    (see pbem.games.drawing): no square names, hover titles or legend."""
    width = float(d.MAIL_WIDTH)
    history = state.history
    outcome = state.outcome
    limit = d.name_limit(2)
    who = [d.seat_name(names, s, COLOURS[s].capitalize(), limit) for s in range(2)]
    if outcome is None:
        assert state.to_move is not None
        status, status_fill = f"{who[state.to_move]} to move", FILL[COLOURS[state.to_move]]
    elif outcome.said is not None:
        status, status_fill = ending_words(outcome, who) or "", d.INK
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
    marked = _marked(state, seat) if last_turn else []
    for turn, move, _ in marked:
        # Each marked move in its mover's colour: both squares tinted and outlined, an arrow.
        colour = COLOURS[turn.seat]
        ends = []
        for name, kind in zip(move.split("-"), ("from", "to"), strict=True):
            x, y = _mail_place(SQUARE_INDEX[name], seat, top)
            out.append(
                f'<rect class="last-move" data-square="{name}" data-last="{kind}" '
                f'data-seat="{turn.seat}" x="{d.fmt(x + 2)}" y="{d.fmt(y + 2)}" '
                f'width="{d.fmt(M_CELL - 4)}" height="{d.fmt(M_CELL - 4)}" '
                f'fill="{TINT[colour]}" stroke="{FILL[colour]}" '
                f'stroke-width="{3.5 if kind == "to" else 2}"/>'
            )
            ends.append((x + M_CELL / 2, y + M_CELL * 0.34))
        (fx, fy), (tx, ty) = ends
        # The arrow stops short of the destination's middle, its head above the stack.
        dx, dy = tx - fx, ty - fy
        length = max((dx * dx + dy * dy) ** 0.5, 1.0)
        ux, uy = dx / length, dy / length
        hx, hy = tx - ux * 24, ty - uy * 24
        bx, by = hx - ux * 18, hy - uy * 18
        head = [(hx, hy), (bx - uy * 11, by + ux * 11), (bx + uy * 11, by - ux * 11)]
        out.append(
            f'<path class="last-move arrow" data-seat="{turn.seat}" '
            f'd="M{d.fmt(fx)} {d.fmt(fy)} L{d.fmt(bx)} {d.fmt(by)}" stroke="{FILL[colour]}" '
            f'stroke-opacity="0.75" stroke-width="6" stroke-linecap="round"/>'
            f'<path d="{d.polygon_d(head)}" fill="{FILL[colour]}" fill-opacity="0.85"/>'
        )
    # Stacks, bottom first; one path per look keeps the element count low.
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
    for turn, move, _ in marked:
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
