"""Martian Mud Wrestling's board for the web page (`render_svg`).

Stacks are drawn side-on: every pyramid is a triangle sized by its points, bottom first.
Pyramids touching the board are solid; resting ones are hatched with a dashed outline. The top
pyramid (the one that can move) has a gold outline.
"""

from __future__ import annotations

from html import escape

from pbem.games import drawing as d
from pbem.games.base import ending_words, fill_names
from pbem.games.messages import ENGLISH, N_, Language, Message
from pbem.games.mmw.board import (
    COLOURS,
    FILES,
    SIZE,
    SQUARE_INDEX,
    SQUARE_NAMES,
    Pyramid,
    square_index,
)
from pbem.games.mmw.look import (
    DARK,
    FILL,
    MARKS,
    TINT,
    Marked,
    after_moves,
    arrow,
    marked,
    points,
    square,
    tokens,
    verdict,
    who,
)
from pbem.games.mmw.rules import NO_SINKING_LIMIT, MMWState
from pbem.games.two_player import SEATS, Names

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
BASE = {1: 26, 2: 42, 3: 58}
HEAD_NAME = 30  # longest name in the status line, in characters
FOOT_NAME = 22  # longest name in the score line under the board


def _place(index: int, seat: int | None) -> tuple[int, int]:
    """Top-left corner of a square, as `seat` sees the board."""
    col, row = square(index, seat)
    return LEFT + col * CELL, TOP + row * ROW


# A pyramid as a square's name says it, by colour and size.
PYRAMID_WORDS = {
    "red": (N_("red small"), N_("red medium"), N_("red large")),
    "blue": (N_("blue small"), N_("blue medium"), N_("blue large")),
}


def _describe_stack(name: str, pyramids: list[Pyramid], lang: Language) -> str:
    """A square's accessible name, top pyramid first: "c3: red large on blue small (resting);
    touching 3, resting 1"."""
    if not pyramids:
        return lang("%(square)s: empty", square=name)
    stack = ""
    for p in reversed(pyramids):
        said = lang(PYRAMID_WORDS[p.colour][p.size - 1])
        if not p.touching:
            said = lang("%(pyramid)s (resting)", pyramid=said)
        stack = lang("%(above)s on %(below)s", above=stack, below=said) if stack else said
    touching, resting = points(pyramids)
    return lang(
        "%(square)s: %(stack)s; touching %(touching)s, resting %(resting)s",
        square=name,
        stack=stack,
        touching=touching,
        resting=resting,
    )


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
            text = (
                f'x="{cx:.1f}" y="{bottom - 2:.1f}" font-size="{font:.1f}" '
                f'text-anchor="middle" font-weight="bold"'
            )
            mark = f"{MARKS[p.seat]}{p.size}"
            if not p.touching:
                # The halo is a copy drawn first (HTML does not allow `paint-order` on SVG).
                out.append(
                    f'<text {text} fill="#fffaf0" stroke="#fffaf0" stroke-width="3" '
                    f'aria-hidden="true">{mark}</text>'
                )
            out.append(f'<text {text} fill="{colour}">{mark}</text>')
    return out


def render_svg(
    state: MMWState, seat: int | None = None, names: Names = None, lang: Language = ENGLISH
) -> str:
    """The board as a standalone SVG document; `names` label the seats instead of colours; its
    words are in `lang`.

    Squares carry data-square and their accessible name in data-name (and a title). The last
    move of the other seat (and the viewer's own when nobody has moved since) is marked in the
    mover's colour: both squares tinted and outlined, an arrow, and a badge with the mover's
    letter (`g.last-turn`)."""
    moves = marked(state, seat)
    parts = _top(state, seat, names, lang)
    squares, piles = _squares(state, seat, moves, lang)
    parts.extend(squares)
    # The stacks go over the arrows, so that the arrows stay underneath.
    parts.extend(_arrows(moves, seat))
    parts.extend(piles)
    parts.extend(_turn_marks(moves, seat, names, lang))
    parts.extend(_edges(seat))
    parts.extend(_foot(state, names, lang))
    parts.append("</svg>")
    return "\n".join(parts)


def _top(state: MMWState, seat: int | None, names: Names, lang: Language) -> list[str]:
    """The document's start: its accessible name, the hatching, the ground and the status."""
    to_move = state.to_move
    outcome = state.outcome
    if outcome is None:
        assert to_move is not None
        mover = who(names, to_move, HEAD_NAME, lang=lang)
        head = lang("%(seat)s to move", seat=mover)
        head_fill = FILL[COLOURS[to_move]]
    else:
        settled = ending_words(outcome, [who(names, s, HEAD_NAME, lang=lang) for s in SEATS])
        if settled is None:
            lower = [who(names, s, HEAD_NAME, capital=False, lang=lang) for s in SEATS]
            settled = verdict(outcome, lower, lang)
        head = lang("Game over: %(result)s", result=settled)
        head_fill = "#333"
    after = after_moves(len(state.history), lang)
    label = lang("Martian Mud Wrestling board: %(status)s, %(after)s", status=head, after=after)
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
        f'fill="#555">{escape(after)}</text>'
    )
    return parts


def _squares(
    state: MMWState, seat: int | None, moves: list[Marked], lang: Language
) -> tuple[list[str], list[str]]:
    """Each square as a group named for a screen reader (its colour tinted by a marked move,
    its name and points), and apart from them the stacks on them."""
    history = state.history
    last: dict[str, str] = {}
    if history:
        frm, to = history[-1].split("-")
        last = {frm: "from", to: "to"}
    tints: dict[str, str] = {}
    for turn, move, _ in moves:
        for name in move.split("-"):
            tints[name] = TINT[COLOURS[turn.seat]]
    stacks = state.stacks()
    parts: list[str] = []
    piles: list[str] = []
    for name in SQUARE_NAMES:
        index = SQUARE_INDEX[name]
        x, y = _place(index, seat)
        f, r = divmod(index, SIZE)
        fill = tints.get(name, "#e6d3b1" if (f + r) % 2 else "#d8c197")
        pyramids = stacks[name]
        top = pyramids[-1].colour if pyramids else ""
        touching, resting = points(pyramids)
        extra = f' data-last="{last[name]}"' if name in last else ""
        words = escape(_describe_stack(name, pyramids, lang))
        parts.append(
            f'<g class="square" data-square="{name}" data-top="{top}" '
            f'data-stack="{tokens(pyramids)}"{extra} data-name="{words}">'
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
    return parts, piles


def _edges(seat: int | None) -> list[str]:
    """The file letters under the board and the rank numbers on its left, from `seat`'s side."""
    parts = []
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
    return parts


def _foot(state: MMWState, names: Names, lang: Language) -> list[str]:
    """Under the board: each seat's name and pyramids left, and a key to the drawing."""
    parts = []
    scores = state.scores()
    foot_y = TOP + SIZE * ROW + LABEL + 18
    for s, colour in enumerate(COLOURS):
        x, anchor = (LEFT, "start") if s == 0 else (WIDTH - LEFT, "end")
        # The name and the count on lines of their own: two long names side by side on one line
        # each would run into each other in the middle.
        name = escape(who(names, s, FOOT_NAME, lang=lang))
        count = escape(lang("%(left)s left, %(sunk)s sunk", left=scores[s], sunk=15 - scores[s]))
        # The seat's letter in a badge before its name, the key to the letters on the pyramids.
        chip_x = x + 9 if s == 0 else x - 9
        text_x = x + 22 if s == 0 else x - 22
        parts.append(
            d.badge(chip_x, foot_y - 5, MARKS[s], FILL[colour], DARK[colour], 11)
            + f'<text x="{text_x}" y="{foot_y}" font-size="15" fill="{FILL[colour]}" '
            f'text-anchor="{anchor}" font-weight="bold" class="score" data-seat="{s}">'
            f"{name}</text>"
            f'<text x="{text_x}" y="{foot_y + 17}" font-size="13" fill="{FILL[colour]}" '
            f'text-anchor="{anchor}" class="score-count" data-seat="{s}">{count}</text>'
        )
    key = lang(
        "solid: touches the board · hatched: resting · gold edge: top · "
        "corner: touching|resting points"
    )
    parts.append(
        f'<text x="{WIDTH / 2}" y="{foot_y + 38}" font-size="11" fill="#555" '
        f'text-anchor="middle">{escape(key)}</text>'
    )
    calm = lang(
        "%(moves)s of %(limit)s moves without a sinking",
        moves=state.plies_without_sinking,
        limit=NO_SINKING_LIMIT,
    )
    parts.append(
        f'<text x="{WIDTH / 2}" y="{foot_y + 53}" font-size="11" fill="#555" '
        f'text-anchor="middle" class="no-sinking">{escape(calm)}</text>'
    )
    return parts


def _anchor(name: str, seat: int | None) -> tuple[float, float]:
    """Where a last-move arrow starts or ends on a square: in the middle, above most stacks."""
    x, y = _place(SQUARE_INDEX[name], seat)
    return x + CELL / 2, y + ROW * 0.36


def _arrows(moves: list[Marked], seat: int | None) -> list[str]:
    """An arrow in the mover's colour for each marked move, under the stacks, its head short of
    the destination's middle so the stack there does not hide it."""
    out = []
    for turn, move, _ in moves:
        colour = COLOURS[turn.seat]
        frm, to = move.split("-")
        (fx, fy), (cx, cy) = _anchor(frm, seat), _anchor(to, seat)
        (bx, by), head = arrow((fx, fy), (cx - (cx - fx) * 0.2, cy - (cy - fy) * 0.2), 0, 16, 10)
        out.append(
            f'<g class="last-move arrow" data-seat="{turn.seat}" pointer-events="none" '
            f'opacity="0.8"><path d="M{d.fmt(fx)} {d.fmt(fy)} L{d.fmt(bx)} {d.fmt(by)}" '
            f'stroke="{FILL[colour]}" stroke-width="6" stroke-linecap="round"/>'
            f'<path d="{d.polygon_d(head)}" fill="{FILL[colour]}"/></g>'
        )
    return out


def _turn_marks(moves: list[Marked], seat: int | None, names: Names, lang: Language) -> list[str]:
    """Over the stacks, each marked move's squares outlined in the mover's colour (the origin
    thinly) and a badge with the mover's letter at the top of the destination."""
    seats = [who(names, s, lang=lang) for s in SEATS]
    out = []
    for turn, move, words in moves:
        colour = COLOURS[turn.seat]
        sentence = fill_names(words.say(lang) if isinstance(words, Message) else words, seats)
        frm, to = move.split("-")
        group = [
            f'<g class="last-turn" data-seat="{turn.seat}" data-plies="{turn.plies[0]}" '
            f'data-move="{move}" data-name="{escape(sentence)}" pointer-events="none">'
            f"<title>{escape(sentence)}</title>"
        ]
        for name, width in ((frm, 1.5), (to, 3.5)):
            x, y = _place(SQUARE_INDEX[name], seat)
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
