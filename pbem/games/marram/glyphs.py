"""The small symbols on Marram's tiles: coins, flowers, prey, the shovel and the seats' tokens."""

from __future__ import annotations

import math
from collections.abc import Callable
from html import escape

from pbem.games.drawing import attr
from pbem.games.drawing import fine as _f
from pbem.games.marram.palette import seat_colour, seat_halo, seat_ink, seat_outline
from pbem.games.marram.seats import seat_letter
from pbem.games.messages import ENGLISH, Language


def _circle(x: float, y: float, r: float, paint: str) -> str:
    return f'<circle cx="{_f(x)}" cy="{_f(y)}" r="{_f(r)}" {paint}/>'


def _ellipse(x: float, y: float, rx: float, ry: float, paint: str) -> str:
    return f'<ellipse cx="{_f(x)}" cy="{_f(y)}" rx="{_f(rx)}" ry="{_f(ry)}" {paint}/>'


def coin(x: float, y: float, metal: str) -> str:
    fill, edge, shine = (
        ("#f5c518", "#9c7300", "#fff1a8") if metal == "gold" else ("#e3e6ea", "#6c757d", "#ffffff")
    )
    return (
        f'<g class="coin coin-{attr(metal)}">'
        + _circle(x, y, 6.2, f'fill="{fill}" stroke="{edge}" stroke-width="1.4"')
        + _circle(x, y, 3.4, f'fill="none" stroke="{edge}" stroke-width="0.7" opacity="0.7"')
        + _circle(x - 2, y - 2.2, 1.3, f'fill="{shine}"')
        + "</g>"
    )


def flower(x: float, y: float) -> str:
    petals = []
    for i in range(5):
        a = math.radians(-90 + 72 * i)
        petals.append(
            _circle(
                x + 3.6 * math.cos(a),
                y + 3.6 * math.sin(a),
                2.9,
                'fill="#d6336c" stroke="#8c1d46" stroke-width="0.6"',
            )
        )
    heart = _circle(x, y, 2.2, 'fill="#ffd43b" stroke="#9c6f00" stroke-width="0.5"')
    return f'<g class="flower">{"".join(petals)}{heart}</g>'


def fly(x: float, y: float) -> str:
    wings = []
    for side in (-1, 1):
        wx, wy = x + side * 3.2, y - 2.6
        turn = f'transform="rotate({side * 35} {_f(wx)} {_f(wy)})"'
        paint = f'fill="#e7f5ff" stroke="#495057" stroke-width="0.6" opacity="0.95" {turn}'
        wings.append(_ellipse(wx, wy, 3.6, 2.2, paint))
    return (
        '<g class="prey prey-fly">'
        + "".join(wings)
        + _ellipse(x, y + 0.5, 2.3, 3.6, 'fill="#212529"')
        + _circle(x, y - 3, 1.8, 'fill="#c92a2a"')
        + "</g>"
    )


# A frog's eyes, layer by layer: (height above its centre, radius, paint).
_FROG_EYES = (
    (3.2, 2.2, 'fill="#2b8a3e" stroke="#0b3d17" stroke-width="0.7"'),
    (3.4, 1, 'fill="#fff"'),
    (3.4, 0.5, 'fill="#000"'),
)


def frog(x: float, y: float) -> str:
    eyes = [
        _circle(x + side * 2.8, y - up, r, paint) for up, r, paint in _FROG_EYES for side in (-1, 1)
    ]
    return (
        '<g class="prey prey-frog">'
        + _ellipse(x, y + 0.8, 6, 4.6, 'fill="#2b8a3e" stroke="#0b3d17" stroke-width="0.8"')
        + "".join(eyes)
        + f'<path d="M{_f(x - 2.6)} {_f(y + 1.6)} Q{_f(x)} {_f(y + 3.4)} {_f(x + 2.6)} '
        f'{_f(y + 1.6)}" fill="none" stroke="#0b3d17" stroke-width="0.7"/></g>'
    )


def shovel(x: float, y: float, scale: float = 1.0, lang: Language = ENGLISH) -> str:
    """A small spade whose blade points down, anchored at its top-left corner."""
    said = escape(lang("shovel: this tile can be flipped"))
    return (
        f'<g class="shovel" transform="translate({_f(x)} {_f(y)}) scale({_f(scale)})">'
        f"<title>{said}</title>"
        '<rect x="-1" y="-1" width="14" height="16" rx="3" fill="#fff" opacity="0.75"/>'
        '<path d="M4 1.5 H8 M6 1.5 V8" stroke="#5c3b1e" stroke-width="1.8" '
        'stroke-linecap="round" fill="none"/>'
        '<path d="M2.6 7.5 H9.4 V10.5 Q9.4 13.5 6 14.2 Q2.6 13.5 2.6 10.5 Z" fill="#868e96" '
        'stroke="#343a40" stroke-width="0.9"/></g>'
    )


def _token_mark(seat: int, x: float, y: float, size: float) -> str:
    """The seat's letter on its token, so tokens differ by more than colour."""
    return (
        f'<text x="{_f(x)}" y="{_f(y)}" font-size="{_f(size)}" font-weight="bold" '
        f'text-anchor="middle" fill="{seat_ink(seat)}" font-family="sans-serif">'
        f"{seat_letter(seat)}</text>"
    )


def _token_open(kind: str, x: float, y: float, seat: int, scale: float) -> str:
    return (
        f'<g class="token token-{kind} seat-{seat}" data-seat="{seat}" '
        f'transform="translate({_f(x)} {_f(y)}) scale({_f(scale)})">'
    )


_BOOT = "M-7 -10 H2 V3 H6.5 Q10.5 4 10.5 8 V10 H-7 Z"


def boot_glyph(x: float, y: float, seat: int, size: float = 24.0, mark: bool = True) -> str:
    """A welly boot centred on (x, y) in the seat's colour, haloed so it shows on grass and
    sand, with the seat's letter on its leg (`mark`)."""
    edge = seat_outline(seat)
    return (
        _token_open("boot", x, y, seat, size / 22.0)
        + f'<path d="{_BOOT}" fill="none" stroke="{seat_halo(seat)}" stroke-width="4.6" '
        f'stroke-linejoin="round"/>'
        f'<path d="{_BOOT}" fill="{seat_colour(seat)}" '
        f'stroke="{edge}" stroke-width="1.8" stroke-linejoin="round"/>'
        f'<path d="M2 7 H10.5" stroke="{edge}" stroke-width="1.2"/>'
        + (_token_mark(seat, -2.5, 1.2, 8.5) if mark else "")
        + "</g>"
    )


_TINES = "M0 5 V-3 M-5.5 -11 V-3 H5.5 V-11 M0 -3 V-11"


def _tines(colour: str, width: str) -> str:
    return (
        f'<path d="{_TINES}" fill="none" stroke="{colour}" stroke-width="{width}" '
        f'stroke-linecap="round" stroke-linejoin="round"/>'
    )


def fork_glyph(x: float, y: float, seat: int, size: float = 24.0, mark: bool = True) -> str:
    """A pitchfork centred on (x, y) in the seat's colour, haloed, with the seat's letter on
    the knob of its handle (`mark`)."""
    edge, halo = seat_outline(seat), seat_halo(seat)
    knob = (
        f'<circle cy="7.5" r="5.6" fill="{seat_colour(seat)}" stroke="{edge}" stroke-width="1.4"/>'
    )
    return (
        _token_open("fork", x, y, seat, size / 22.0)
        + _tines(halo, "7.6")
        + f'<circle cy="7.5" r="7.6" fill="{halo}"/>'
        + _tines(edge, "5.2")
        + _tines(seat_colour(seat), "2.6")
        + knob
        + (_token_mark(seat, 0, 10.3, 7.6) if mark else "")
        + "</g>"
    )


def _chip(seat: int, ring: str, ring_width: str) -> str:
    """A betting chip's face: the seat's colour, a dashed ring of radius `ring` inside."""
    edge = seat_outline(seat)
    return (
        f'<circle r="7.5" fill="{seat_colour(seat)}" stroke="{edge}" stroke-width="1.4"/>'
        f'<circle r="{ring}" fill="none" stroke="{edge}" stroke-width="{ring_width}" '
        f'stroke-dasharray="2.2 1.9"/>'
    )


def bet_glyph(x: float, y: float, seat: int, size: float = 17.0, mark: bool = True) -> str:
    """A betting chip centred on (x, y) in the seat's colour, haloed, with the seat's letter in
    its middle (`mark`)."""
    return (
        _token_open("bet", x, y, seat, size / 16.0)
        + f'<circle r="9.2" fill="{seat_halo(seat)}"/>'
        + _chip(seat, "5.6", "1.3")
        + (_token_mark(seat, 0, 2.6, 7.2) if mark else "")
        + "</g>"
    )


def bet_mark(x: float, y: float, seat: int, size: float = 16.0) -> str:
    """A betting chip for the mail drawing: the page's chip without its letter (text is dear)."""
    return _token_open("bet", x, y, seat, size / 16.0) + _chip(seat, "4.4", "1.8") + "</g>"


TOKEN_GLYPH: dict[str, Callable[[float, float, int], str]] = {
    "boot": boot_glyph,
    "fork": fork_glyph,
    "bet": bet_glyph,
}
