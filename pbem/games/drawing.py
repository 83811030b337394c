"""Shared pieces of the engines' drawings: for the page (`render_svg`), the marks of each seat's
last turn (`turn_marks`, `badge`, `seat_mark`); for mail (each engine's `mail_drawing`, sprites
of pbem.games.sprites), digits and letters drawn as strokes, badges, and path data for many
shapes at once.

A mail drawing's sprites are rasterised once each, and a new one costs librsvg a fraction of a
millisecond (see bench/pictures.py); text is what costs most in it (every glyph is a filled
outline), so these drawings:

- draw numbers and the seats' letters as stroked paths (`digits_path`, `label_path`), not text;
- put many shapes of one style into one `<path>` (`circle_d`, `rect_d`, `polygon_d`);
- keep text to the board's own labels (file letters, cell names), drawn once per board.

Everything is plain SVG 1.1 that any renderer draws the same: no CSS, no `paint-order`, no
eight-digit colours, no markers. Pure: no I/O, no clock.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass
from html import escape

__all__ = [
    "FONT",
    "MAIL_WIDTH",
    "Turn",
    "attr",
    "badge",
    "circle_d",
    "contrast_ink",
    "digits_path",
    "dot_d",
    "fine",
    "fmt",
    "label_path",
    "mail_badge",
    "marked_turns",
    "number_path",
    "outline",
    "polygon_d",
    "rect_d",
    "svg_open",
    "text",
    "wrap",
]

MAIL_WIDTH = 600  # the drawings' user units across: one unit is one pixel of the picture
FONT = "DejaVu Sans, Verdana, sans-serif"
INK = "#212529"
MUTED = "#6c757d"

# Digits (and the minus sign, -1) as strokes in a box 10 wide and 14 high centred on the origin
# (y down).
_DIGITS: dict[int, str] = {
    -1: "M-3.6 0.6 L3.6 0.6",
    0: "M0 -7 C-6.4 -7 -6.4 7 0 7 C6.4 7 6.4 -7 0 -7 Z",
    1: "M-2.6 -4.2 L1.2 -7 L1.2 7",
    2: "M-4.4 -3.6 C-4.4 -8.6 4.4 -8.6 4.4 -3.6 C4.4 0.4 -4.6 2.6 -4.6 7 L4.8 7",
    3: "M-4.4 -5.2 C-2.2 -8.6 4.4 -7.8 4.4 -3.6 C4.4 -0.9 1.8 -0.3 -0.8 -0.3 "
    "C2.6 -0.3 4.8 1.3 4.8 3.6 C4.8 8.3 -2.6 8.4 -4.8 5.2",
    4: "M2.2 7 L2.2 -7 L-4.8 3.2 L5 3.2",
    5: "M4.2 -7 L-3.4 -7 L-4 -0.6 C0.4 -3 4.8 -1.4 4.8 2.6 C4.8 8 -2.6 8.4 -4.8 5.2",
    6: "M3.6 -6.6 C-2 -8.6 -4.8 -3.4 -4.8 1.6 C-4.8 8.6 4.8 8.6 4.8 2.6 C4.8 -2.4 -3.6 -2.6 -4.8 2",
    7: "M-4.6 -7 L4.8 -7 L-1 7",
    8: "M0 -0.4 C-5.6 -1.4 -5.6 -7 0 -7 C5.6 -7 5.6 -1.4 0 -0.4 C-6.2 0.6 -6.2 7 0 7 "
    "C6.2 7 6.2 0.6 0 -0.4 Z",
    9: "M-3.6 6.6 C2 8.6 4.8 3.4 4.8 -1.6 C4.8 -8.6 -4.8 -8.6 -4.8 -2.6 C-4.8 2.4 3.6 2.6 4.8 -2",
}
# The seats' letters, drawn the same way, for the mail drawings' last-turn badges (text is dear).
_LETTERS: dict[str, str] = {
    "B": "M-4 7 L-4 -7 L0.8 -7 C5.4 -7 5.4 -0.2 0.8 -0.2 L-4 -0.2 M0.8 -0.2 "
    "C6.2 -0.2 6.2 7 0.8 7 L-4 7",
    "R": "M-4 7 L-4 -7 L0.8 -7 C5.6 -7 5.6 0 0.8 0 L-4 0 M0.6 0 L4.6 7",
    "V": "M-4.8 -7 L0 7 L4.8 -7",
    "W": "M-6 -7 L-3.2 7 L0 -2.6 L3.2 7 L6 -7",
    "Y": "M-4.8 -7 L0 0 L4.8 -7 M0 0 L0 7",
}
_DIGIT_COMMANDS: dict[int, list[tuple[str, list[float]]]] = {}


def fmt(v: float) -> str:
    """A compact number for SVG attributes (a tenth of a unit is a tenth of a pixel)."""
    text = f"{v:.1f}"
    if text.endswith(".0"):
        text = text[:-2]
    return "0" if text == "-0" else text


def fine(v: float) -> str:
    """A compact number to a hundredth, for the page's drawings: they are shown scaled up, where
    `fmt`'s tenths would show."""
    text = f"{v:.2f}".rstrip("0").rstrip(".")
    return "0" if text == "-0" else text


def attr(value: object) -> str:
    """`value` as text fit for a quoted SVG attribute."""
    return escape(str(value), quote=True)


def _parsed(path: str) -> list[tuple[str, list[float]]]:
    out: list[tuple[str, list[float]]] = []
    for token in path.split():
        if token[0].isalpha():
            out.append((token[0], []))
            token = token[1:]
        if token:
            out[-1][1].append(float(token))
    return out


def _commands(digit: int) -> list[tuple[str, list[float]]]:
    if digit not in _DIGIT_COMMANDS:
        _DIGIT_COMMANDS[digit] = _parsed(_DIGITS[digit])
    return _DIGIT_COMMANDS[digit]


def _placed(commands: list[tuple[str, list[float]]], cx: float, cy: float, s: float) -> str:
    parts = []
    for command, numbers in commands:
        coords = [fmt((n * s) + (cx if i % 2 == 0 else cy)) for i, n in enumerate(numbers)]
        parts.append(command + " ".join(coords))
    return " ".join(parts)


def digits_path(digits: Iterable[tuple[int, float, float, float]]) -> str:
    """Path data for digits (value 0 to 9 or -1 for a minus sign, centre x, centre y, height):
    stroke it, no fill, about a seventh of the height wide, with round caps and joins."""
    return " ".join(
        _placed(_commands(value), cx, cy, height / 14)
        for value, cx, cy, height in digits
        if value in _DIGITS
    )


def label_path(label: str, x: float, y: float, height: float) -> str:
    """Path data for a short label of the seats' letters and digits ("V2") centred on (x, y),
    drawn as `digits_path` draws digits; characters it cannot draw are left out."""
    advance = height * 0.82
    first = x - advance * (len(label) - 1) / 2
    parts = []
    for i, char in enumerate(label):
        cx = first + i * advance
        if char.isdigit():
            parts.append(_placed(_commands(int(char)), cx, y, height / 14))
        elif char.upper() in _LETTERS:
            parts.append(_placed(_parsed(_LETTERS[char.upper()]), cx, y, height / 14))
    return " ".join(parts)


def number_path(value: int, x: float, y: float, height: float, anchor: str = "middle") -> str:
    """Path data for a whole number written with `digits_path`, its middle (or its "end") at
    (x, y)."""
    chars = [-1] * (value < 0) + [int(c) for c in str(abs(value))]
    advance = height * 0.82
    span = advance * (len(chars) - 1)
    first = x - span / 2 if anchor == "middle" else x - span - advance / 2
    return digits_path((c, first + i * advance, y, height) for i, c in enumerate(chars))


def dot_d(cx: float, cy: float, r: float) -> str:
    """Path data for a small round dot as an octagon: at a few pixels it looks the same as a
    circle and costs less to draw."""
    a, b = r * 0.924, r * 0.383
    return polygon_d(
        [
            (cx + a, cy + b),
            (cx + b, cy + a),
            (cx - b, cy + a),
            (cx - a, cy + b),
            (cx - a, cy - b),
            (cx - b, cy - a),
            (cx + b, cy - a),
            (cx + a, cy - b),
        ]
    )


def circle_d(cx: float, cy: float, r: float) -> str:
    """Path data for a circle, to put many circles of one style into one path."""
    return (
        f"M{fmt(cx - r)} {fmt(cy)} a{fmt(r)} {fmt(r)} 0 1 0 {fmt(2 * r)} 0 "
        f"a{fmt(r)} {fmt(r)} 0 1 0 {fmt(-2 * r)} 0Z"
    )


def rect_d(x: float, y: float, w: float, h: float) -> str:
    """Path data for an axis-aligned rectangle."""
    return f"M{fmt(x)} {fmt(y)}h{fmt(w)}v{fmt(h)}h{fmt(-w)}Z"


def polygon_d(points: Iterable[tuple[float, float]]) -> str:
    """Path data for a closed polygon."""
    return "M" + " L".join(f"{fmt(x)} {fmt(y)}" for x, y in points) + "Z"


def text(
    x: float,
    y: float,
    words: str,
    size: float,
    fill: str = INK,
    *,
    bold: bool = False,
    anchor: str = "start",
    extra: str = "",
) -> str:
    """One `<text>` element; `words` are escaped here."""
    weight = ' font-weight="bold"' if bold else ""
    align = "" if anchor == "start" else f' text-anchor="{anchor}"'
    return (
        f'<text x="{fmt(x)}" y="{fmt(y)}" font-size="{fmt(size)}" fill="{fill}"{weight}{align}'
        f"{extra}>{escape(words, quote=True)}</text>"
    )


def wrap(text: str, width: int, lines: int) -> list[str]:
    """`text` in lines of at most `width` characters, at most `lines` of them (the last cut
    short with "…"), for captions SVG cannot wrap itself."""
    out: list[str] = []
    for word in text.split():
        if out and len(out[-1]) + 1 + len(word) <= width:
            out[-1] += " " + word
        else:
            out.append(word[:width])
    if len(out) > lines:
        out = out[:lines]
        out[-1] = out[-1][: width - 1].rstrip() + "…"
    return out


def svg_open(width: float, height: float, css_class: str) -> str:
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {fmt(width)} {fmt(height)}" '
        f'width="{fmt(width)}" height="{fmt(height)}" class="{css_class} mail" '
        f'font-family="{FONT}">'
    )


# ---------------------------------------------------------------------------------------------
# Marks of the last turns, for the page's drawings (`render_svg`). Unlike the mail drawings these
# may use any SVG a browser draws; they stay plain so the same marks can go into a picture.


@dataclass(frozen=True)
class Turn:
    """One turn as a drawing marks it: the seat that played it and the plies (counted from 0) of
    its actions, in order; a Marram turn has two actions, the other games' one."""

    seat: int
    plies: tuple[int, ...]


def marked_turns(
    turns: Sequence[Turn], viewer: int | None, gone: Collection[int] = ()
) -> list[Turn]:
    """The turns a drawing marks for `viewer`, oldest first: every other seat's latest turn, and
    the viewer's own latest when nobody has moved since (it has just moved, or is part-way
    through its turn). A spectator (None) gets every seat's latest turn. Seats in `gone` (they
    left the game) are not marked: their tokens and turns are no longer in play."""
    latest: dict[int, Turn] = {}
    for turn in turns:
        latest[turn.seat] = turn
    last = turns[-1] if turns else None
    marked = [
        turn
        for seat, turn in latest.items()
        if seat not in gone and (seat != viewer or turn is last)
    ]
    return sorted(marked, key=lambda turn: turn.plies[0] if turn.plies else -1)


def contrast_ink(fill: str) -> str:
    """Dark or white text, whichever reads on `fill` (a #rrggbb colour)."""
    try:
        r, g, b = (int(fill[i : i + 2], 16) / 255 for i in (1, 3, 5))
    except ValueError:
        return INK
    lum = 0.2126 * r**2.2 + 0.7152 * g**2.2 + 0.0722 * b**2.2
    return INK if lum > 0.28 else "#ffffff"


def badge(cx: float, cy: float, label: str, fill: str, edge: str, size: float = 12.0) -> str:
    """A rounded tag centred on (cx, cy) with `label` in bold, text dark or light to read on
    `fill`; `edge` outlines it so it stands out on any ground."""
    width = size * (0.66 * len(label) + 0.75)
    height = size * 1.32
    return (
        f'<g class="badge" pointer-events="none"><rect x="{fmt(cx - width / 2)}" '
        f'y="{fmt(cy - height / 2)}" width="{fmt(width)}" height="{fmt(height)}" '
        f'rx="{fmt(height / 2)}" fill="{fill}" stroke="{edge}" stroke-width="{fmt(size / 7)}"/>'
        + text(cx, cy + size * 0.36, label, size, contrast_ink(fill), bold=True, anchor="middle")
        + "</g>"
    )


def mail_badge(cx: float, cy: float, label: str, fill: str, edge: str, height: float = 10.0) -> str:
    """`badge` for the mail drawings: its label drawn as strokes (`label_path`), no text."""
    width = height * (0.82 * len(label) + 0.9)
    box = height * 1.7
    ink = contrast_ink(fill)
    return (
        f'<rect x="{fmt(cx - width / 2)}" y="{fmt(cy - box / 2)}" width="{fmt(width)}" '
        f'height="{fmt(box)}" rx="{fmt(box / 2)}" fill="{fill}" stroke="{edge}" '
        f'stroke-width="1.5"/><path d="{label_path(label, cx, cy, height)}" fill="none" '
        f'stroke="{ink}" stroke-width="{fmt(height / 6)}" stroke-linecap="round" '
        f'stroke-linejoin="round"/>'
    )


def outline(d: str, colour: str, edge: str, width: float, dash: str = "") -> str:
    """Path data `d` stroked twice, a wider `edge` under `colour`, so the line shows in the
    seat's colour on light and dark ground alike."""
    dashes = f' stroke-dasharray="{dash}"' if dash else ""
    return (
        f'<path d="{d}" fill="none" stroke="{edge}" stroke-width="{fmt(width + 3)}" '
        f'stroke-linejoin="round"{dashes}/>'
        f'<path d="{d}" fill="none" stroke="{colour}" stroke-width="{fmt(width)}" '
        f'stroke-linejoin="round"{dashes}/>'
    )
