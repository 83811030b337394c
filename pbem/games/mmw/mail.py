"""Martian Mud Wrestling's board for a turn email (`mail_drawing`, `render_mail_svg`), as a phone
shows it: sprites (pbem.games.sprites) that pbem.pictures rasterises once and pastes."""

from __future__ import annotations

from functools import lru_cache

from pbem.games import drawing as d
from pbem.games.drawing import Turn
from pbem.games.mmw.board import (
    COLOURS,
    FILES,
    SIZE,
    SQUARE_INDEX,
    SQUARE_NAMES,
    Pyramid,
    square_index,
)
from pbem.games.mmw.look import DARK, FILL, MARKS, TINT, arrow, marked_moves, square
from pbem.games.mmw.rules import MMWState
from pbem.games.sprites import MailDrawing, Placed, Sprite, box_around
from pbem.games.two_player import Names

M_CELL = 112  # a square, wide and high, in whole pixels: the squares are sprites
M_LEFT = 24  # room for the rank numbers
M_TOP = 10
M_FOOT = 26  # room for the file letters
M_GROUND = 14.0
M_BASE = {1: 34.0, 2: 54.0, 3: 74.0}
M_LEVEL = 27.0  # height of one pyramid in a stack of up to three; taller stacks squeeze
M_LIGHT = "#eadbbd"
M_DARK = "#d3bb90"
M_INK = "#4a3a22"
M_PALE = {"red": "#f4c7c3", "blue": "#c6d6f2"}  # resting pyramids: pale, not hatched (cheaper)
M_BACKGROUND = "#f4ecdc"
WIDTH = d.MAIL_WIDTH
HEIGHT = M_TOP + SIZE * M_CELL + M_FOOT


def _mail_place(index: int, seat: int | None) -> tuple[int, int]:
    """Top-left corner of a square in the mail drawing, as `seat` sees the board."""
    col, row = square(index, seat)
    return M_LEFT + col * M_CELL, M_TOP + row * M_CELL


def render_mail_svg(
    state: MMWState, seat: int | None = None, names: Names = None, last_turn: bool = True
) -> str:
    """`mail_drawing` as one SVG document."""
    return mail_drawing(state, seat, names, last_turn).svg()


def mail_drawing(
    state: MMWState, seat: int | None = None, names: Names = None, last_turn: bool = True
) -> MailDrawing:
    """The board for a turn or result email, from `seat`'s side: every stack (each pyramid's
    owner and size, "R3"), and when `last_turn` each seat's latest move (`look.marked` for a
    spectator), in its mover's colour: both squares tinted, an arrow between them
    (`class="last-move"`) and the mover's letter. Only the board, the same for every reader on
    that side: who is who, the scores and what happens next are the email's words, so `names`
    are not drawn. Sprites: the frame with its file letters and rank numbers, each square,
    each arrow, each stack, each badge."""
    del names  # the picture is the same for every reader; the email names the players
    moves = marked_moves(state, None) if last_turn else []
    tinted: dict[int, tuple[int, str]] = {}
    for turn, move in moves:
        for name, kind in zip(move.split("-"), ("from", "to"), strict=True):
            tinted[SQUARE_INDEX[name]] = (turn.seat, kind)
    placed: list[Placed] = [(_frame(seat), 0, 0, "")]
    for index in range(SIZE * SIZE):
        x, y = _mail_place(index, seat)
        f, r = divmod(index, SIZE)
        mark = tinted.get(index)
        attrs = ""
        if mark is not None:
            attrs = (
                f'class="last-move" data-square="{SQUARE_NAMES[index]}" '
                f'data-last="{mark[1]}" data-seat="{mark[0]}"'
            )
        placed.append((_square((f + r) % 2 == 0, mark), x, y, attrs))
    for marked_move in moves:
        placed.append((_arrow(marked_move, seat), 0, 0, ""))
    stacks = state.stacks()
    for name in SQUARE_NAMES:
        if stacks[name]:
            x, y = _mail_place(SQUARE_INDEX[name], seat)
            placed.append((_stack(tuple(stacks[name])), x, y, ""))
    for turn, move in moves:
        x, y = _mail_place(SQUARE_INDEX[move.split("-")[1]], seat)
        placed.append((_badge(turn.seat), x, y, ""))
    return MailDrawing(WIDTH, HEIGHT, M_BACKGROUND, tuple(placed), "mmw-board", "mmw")


@lru_cache(maxsize=4)
def _frame(seat: int | None) -> Sprite:
    """The whole drawing's ground with the board's edge, file letters under the board and rank
    numbers on its left, from the reader's side."""
    board = SIZE * M_CELL
    out = [
        f'<rect width="{WIDTH}" height="{HEIGHT}" fill="{M_BACKGROUND}"/>',
        # The edge lies just outside the squares, which are painted over the board.
        f'<rect x="{d.fmt(M_LEFT - 0.75)}" y="{d.fmt(M_TOP - 0.75)}" '
        f'width="{d.fmt(board + 1.5)}" height="{d.fmt(board + 1.5)}" fill="{M_LIGHT}" '
        f'stroke="#8d7350" stroke-width="1.5"/>',
    ]
    for i in range(SIZE):
        x, _ = _mail_place(square_index(i, 0), seat)
        out.append(d.text(x + M_CELL / 2, M_TOP + board + 20, FILES[i], 17, M_INK, anchor="middle"))
        _, y = _mail_place(square_index(0, i), seat)
        out.append(d.text(M_LEFT / 2, y + M_CELL / 2 + 6, str(i + 1), 17, M_INK, anchor="middle"))
    return Sprite("".join(out), 0, 0, WIDTH, HEIGHT)


@lru_cache(maxsize=64)
def _square(dark: bool, mark: tuple[int, str] | None) -> Sprite:
    """A square with its ground line, tinted and outlined in the mover's colour when a marked
    move (its seat, "from" or "to") left or reached it."""
    out = [f'<rect width="{M_CELL}" height="{M_CELL}" fill="{M_DARK if dark else M_LIGHT}"/>']
    if mark is not None:
        mover, kind = mark
        colour = COLOURS[mover]
        out.append(
            f'<rect x="2" y="2" width="{M_CELL - 4}" height="{M_CELL - 4}" '
            f'fill="{TINT[colour]}" stroke="{FILL[colour]}" '
            f'stroke-width="{3.5 if kind == "to" else 2}"/>'
        )
    floor = d.fmt(M_CELL - M_GROUND)
    out.append(
        f'<path d="M12 {floor}H{M_CELL - 12}" stroke="#6b4f2a" stroke-width="2.5" '
        f'stroke-linecap="round"/>'
    )
    return Sprite("".join(out), 0, 0, M_CELL, M_CELL)


def _arrow(move: tuple[Turn, str], seat: int | None) -> Sprite:
    """A marked move's arrow in its mover's colour, from the middle of one square to short of
    the other's, in the drawing's own coordinates."""
    turn, notation = move
    colour = COLOURS[turn.seat]
    ends = []
    for name in notation.split("-"):
        x, y = _mail_place(SQUARE_INDEX[name], seat)
        ends.append((x + M_CELL / 2, y + M_CELL * 0.34))
    (fx, fy), end = ends
    # The arrow stops short of the destination's middle, its head above the stack.
    (bx, by), head = arrow((fx, fy), end, 24, 18, 11)
    svg = (
        f'<path class="last-move arrow" data-seat="{turn.seat}" '
        f'd="M{d.fmt(fx)} {d.fmt(fy)} L{d.fmt(bx)} {d.fmt(by)}" stroke="{FILL[colour]}" '
        f'stroke-opacity="0.75" stroke-width="6" stroke-linecap="round"/>'
        f'<path d="{d.polygon_d(head)}" fill="{FILL[colour]}" fill-opacity="0.85"/>'
    )
    xs = [fx, bx, *(p[0] for p in head)]
    ys = [fy, by, *(p[1] for p in head)]
    return box_around(svg, min(xs), min(ys), max(xs), max(ys), 4)


@lru_cache(maxsize=512)
def _stack(pyramids: tuple[Pyramid, ...]) -> Sprite:
    """A square's stack, bottom first, in the square's coordinates: the pyramids, the top one
    outlined, and each pyramid's owner and size ("R3") where there is room."""
    floor = M_CELL - M_GROUND
    cx = M_CELL / 2
    level = min(M_LEVEL, (M_CELL - M_GROUND - 8) / len(pyramids))
    out = []
    labels = []
    for i, p in enumerate(pyramids):
        bottom = floor - i * level
        peak = bottom - max(level, 12.0) + 1
        half = M_BASE[p.size] / 2
        shape = d.polygon_d([(cx - half, bottom), (cx + half, bottom), (cx, peak)])
        paint = FILL[p.colour] if p.touching else M_PALE[p.colour]
        edge = DARK[p.colour] if p.touching else FILL[p.colour]
        out.append(
            f'<path class="pyramids {p.colour} {"touching" if p.touching else "resting"}" '
            f'd="{shape}" fill="{paint}" stroke="{edge}" stroke-width="1.5" '
            f'stroke-linejoin="round"/>'
        )
        if i == len(pyramids) - 1:
            out.append(
                f'<path class="top" d="{shape}" fill="none" stroke="#ffb300" '
                f'stroke-width="3" stroke-linejoin="round"/>'
            )
        if level >= 12 or i == len(pyramids) - 1:
            size = min(12.0, max(level, 12.0) * 0.55)
            label = d.label_path(f"{MARKS[p.seat]}{p.size}", cx, bottom - 2 - size / 2, size)
            labels.append((label, p.touching))
    for label, touching in labels:
        if touching:
            out.append(
                f'<path d="{label}" fill="none" stroke="#ffffff" stroke-width="2" '
                f'stroke-linecap="round" stroke-linejoin="round"/>'
            )
        else:
            out.append(
                f'<path d="{label}" fill="none" stroke="#fffaf0" stroke-width="4.5" '
                f'stroke-linecap="round" stroke-linejoin="round"/>'
                f'<path d="{label}" fill="none" stroke="#3b1010" stroke-width="2" '
                f'stroke-linecap="round" stroke-linejoin="round"/>'
            )
    return Sprite("".join(out), 0, 0, M_CELL, M_CELL)


@lru_cache(maxsize=4)
def _badge(mover: int) -> Sprite:
    """The mover's letter at the top of the square a marked move reached."""
    colour = COLOURS[mover]
    svg = d.mail_badge(M_CELL / 2, 12, MARKS[mover], FILL[colour], DARK[colour], 10)
    return box_around(svg, M_CELL / 2 - 12, 12 - 9.5, M_CELL / 2 + 12, 12 + 9.5)
