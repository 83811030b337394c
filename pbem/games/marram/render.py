"""Drawing Marram from a view dict: an SVG board for the web and mail, plain text for a terminal.

Everything here works from `state.view(seat)` alone (rules section 7), so it can never show what
the viewer may not see. Geometry follows rules 1.1/1.4: x east, y north, rotation clockwise; the
tile is drawn in a 100-unit box with screen y pointing down.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from html import escape
from typing import Any

from pbem.games import drawing as d
from pbem.games.base import SAID, fill_names, seat_mark, shorten
from pbem.games.marram import words

__all__ = [
    "SEAT_COLOURS",
    "SEAT_WORDS",
    "previews",
    "render_svg",
    "render_text",
    "render_tile_svg",
    "tile_group",
]

SPOKES = ("N", "E", "S", "W")
QUADS = ("NW", "NE", "SE", "SW")
T = 100.0  # tile side in SVG units
C = T / 2
BODY = 15.0  # creature body width

# Unit vectors from the tile centre towards each side, screen coordinates (y down).
_DIR: dict[str, tuple[float, float]] = {"N": (0, -1), "E": (1, 0), "S": (0, 1), "W": (-1, 0)}
# Outer corner of each quadrant, and the direction pointing from it towards the tile centre.
_CORNER: dict[str, tuple[float, float, float, float]] = {
    "NW": (0, 0, 1, 1),
    "NE": (T, 0, -1, 1),
    "SE": (T, T, -1, -1),
    "SW": (0, T, 1, -1),
}
_QRECT: dict[str, tuple[float, float]] = {"NW": (0, 0), "NE": (C, 0), "SE": (C, C), "SW": (0, C)}

TERRAIN = {"g": "#8cc56b", "s": "#ecd9a5"}
TERRAIN_EDGE = {"g": "#79b159", "s": "#dcc58c"}
# species -> (body, outline, pattern)
SPECIES = {
    "o": ("#f28c28", "#7f4310", "#c9661a"),
    "b": ("#2f6fde", "#11306e", "#1d4fb0"),
    "w": ("#ee9fb4", "#6e4034", "#c97a8e"),
}
# Longest names on the panel's lines that cannot wrap: the status line, a seat's row.
STATUS_NAME = 20
SEAT_NAME = 24
SPECIES_NAME = {"o": "orange snake", "b": "blue snake", "w": "worm"}
KIND_NAME = {"end": "end", "head": "head", "tail": "tail", "mid": "mid", "saddle": "saddle"}
# Seat colours avoid the terrain and creature colours: red, violet, white, black.
SEAT_COLOURS = ("#e03131", "#8e44ad", "#f8f9fa", "#212529")
SEAT_OUTLINES = ("#3b0a0a", "#2a0f35", "#212529", "#f8f9fa")
# A ring round every token and last-turn mark, against its outline, so it stands out on grass,
# sand and creatures alike (a white token's dark outline gets a white ring, and so on).
SEAT_HALOS = ("#ffffff", "#ffffff", "#ffffff", "#212529")
VARIANT_TITLE = {"classic": "Classic", "pitchfork": "Pitchfork", "animals": "Animals"}

PANEL_W = 340.0
MARGIN = 24.0


# ---------------------------------------------------------------------------------------------
# Small helpers


def _f(v: float) -> str:
    """A compact number for SVG attributes."""
    text = f"{v:.2f}".rstrip("0").rstrip(".")
    return "0" if text == "-0" else text


def _attr(value: object) -> str:
    return escape(str(value), quote=True)


def _rot_steps(rotation: int) -> int:
    return (int(rotation) // 90) % 4


def rotate_spoke(spoke: str, rotation: int) -> str:
    """The board name of a tile spoke after a clockwise rotation."""
    return SPOKES[(SPOKES.index(spoke) + _rot_steps(rotation)) % 4]


def rotate_quad(quad: str, rotation: int) -> str:
    """The board name of a tile quadrant after a clockwise rotation."""
    return QUADS[(QUADS.index(quad) + _rot_steps(rotation)) % 4]


def _face(desc: Mapping[str, Any], face: str) -> Mapping[str, Any]:
    if face == "back":
        back = desc.get("back")
        if isinstance(back, Mapping):
            return back
    return desc


def _parse_piece(text: str) -> tuple[str, str, list[str]]:
    species, kind, spokes = str(text).split(":")
    return species, kind, [s for s in spokes.split("-") if s]


def _spoke_point(spoke: str, dist_from_side: float) -> tuple[float, float]:
    dx, dy = _DIR[spoke]
    r = C - dist_from_side
    return C + dx * r, C + dy * r


def _seat_colour(seat: int) -> str:
    return SEAT_COLOURS[seat % len(SEAT_COLOURS)]


def _seat_outline(seat: int) -> str:
    return SEAT_OUTLINES[seat % len(SEAT_OUTLINES)]


def _seat_halo(seat: int) -> str:
    return SEAT_HALOS[seat % len(SEAT_HALOS)]


def _seat_ink(seat: int) -> str:
    """Text on the seat's colour."""
    return d.contrast_ink(_seat_colour(seat))


def seat_letter(seat: int) -> str:
    """The letter marking a seat's tokens and turns: its colour word's initial ("V")."""
    return seat_mark(seat_word(seat))


SEAT_WORDS = ("Red", "Violet", "White", "Black")
# Characters XML 1.0 cannot hold (escaping does not help) and line breaks, which would break a row.
_UNPRINTABLE = dict.fromkeys([*range(0x20), 0x7F, 0xFFFE, 0xFFFF, *range(0xD800, 0xE000)])


def seat_word(seat: int) -> str:
    """The colour word naming a seat when no display name is given ("Red" for seat 0)."""
    return SEAT_WORDS[seat % len(SEAT_WORDS)]


def clean_name(name: object) -> str:
    """A display name fit for one line of SVG or text: control characters dropped, trimmed."""
    return str(name).translate(_UNPRINTABLE).strip()


def _player_names(view: Mapping[str, Any], given: Sequence[str] | None = None) -> list[str]:
    """The seats' names: `given` when passed, else names in the view's `players`, else colour
    words. Blank names fall back to the colour word."""
    n = _seat_count(view)
    raw = given if given is not None else view.get("players")
    names = [seat_word(i) for i in range(n)]
    if isinstance(raw, Sequence) and not isinstance(raw, str):
        for i, entry in enumerate(raw[:n]):
            if isinstance(entry, Mapping):
                entry = entry.get("name") or ""
            text = clean_name(entry) if isinstance(entry, str) else ""
            if text:
                names[i] = text
    return names


def _seat_count(view: Mapping[str, Any]) -> int:
    raw = view.get("players")
    if isinstance(raw, int) and not isinstance(raw, bool):
        return raw
    for key in ("scores", "hand_sizes", "supplies"):
        value = view.get(key)
        if isinstance(value, Sequence) and value:
            return len(value)
    if isinstance(raw, Sequence):
        return len(raw)
    return 0


# ---------------------------------------------------------------------------------------------
# Glyphs


def _coin(x: float, y: float, metal: str) -> str:
    fill, edge, shine = (
        ("#f5c518", "#9c7300", "#fff1a8") if metal == "gold" else ("#e3e6ea", "#6c757d", "#ffffff")
    )
    return (
        f'<g class="coin coin-{_attr(metal)}"><circle cx="{_f(x)}" cy="{_f(y)}" r="6.2" '
        f'fill="{fill}" stroke="{edge}" stroke-width="1.4"/>'
        f'<circle cx="{_f(x)}" cy="{_f(y)}" r="3.4" fill="none" stroke="{edge}" '
        f'stroke-width="0.7" opacity="0.7"/>'
        f'<circle cx="{_f(x - 2)}" cy="{_f(y - 2.2)}" r="1.3" fill="{shine}"/></g>'
    )


def _flower(x: float, y: float) -> str:
    petals = []
    for i in range(5):
        a = math.radians(-90 + 72 * i)
        petals.append(
            f'<circle cx="{_f(x + 3.6 * math.cos(a))}" cy="{_f(y + 3.6 * math.sin(a))}" '
            f'r="2.9" fill="#d6336c" stroke="#8c1d46" stroke-width="0.6"/>'
        )
    return (
        f'<g class="flower">{"".join(petals)}'
        f'<circle cx="{_f(x)}" cy="{_f(y)}" r="2.2" fill="#ffd43b" stroke="#9c6f00" '
        f'stroke-width="0.5"/></g>'
    )


def _fly(x: float, y: float) -> str:
    return (
        f'<g class="prey prey-fly">'
        f'<ellipse cx="{_f(x - 3.2)}" cy="{_f(y - 2.6)}" rx="3.6" ry="2.2" fill="#e7f5ff" '
        f'stroke="#495057" stroke-width="0.6" opacity="0.95" '
        f'transform="rotate(-35 {_f(x - 3.2)} {_f(y - 2.6)})"/>'
        f'<ellipse cx="{_f(x + 3.2)}" cy="{_f(y - 2.6)}" rx="3.6" ry="2.2" fill="#e7f5ff" '
        f'stroke="#495057" stroke-width="0.6" opacity="0.95" '
        f'transform="rotate(35 {_f(x + 3.2)} {_f(y - 2.6)})"/>'
        f'<ellipse cx="{_f(x)}" cy="{_f(y + 0.5)}" rx="2.3" ry="3.6" fill="#212529"/>'
        f'<circle cx="{_f(x)}" cy="{_f(y - 3)}" r="1.8" fill="#c92a2a"/></g>'
    )


def _frog(x: float, y: float) -> str:
    return (
        f'<g class="prey prey-frog">'
        f'<ellipse cx="{_f(x)}" cy="{_f(y + 0.8)}" rx="6" ry="4.6" fill="#2b8a3e" '
        f'stroke="#0b3d17" stroke-width="0.8"/>'
        f'<circle cx="{_f(x - 2.8)}" cy="{_f(y - 3.2)}" r="2.2" fill="#2b8a3e" '
        f'stroke="#0b3d17" stroke-width="0.7"/>'
        f'<circle cx="{_f(x + 2.8)}" cy="{_f(y - 3.2)}" r="2.2" fill="#2b8a3e" '
        f'stroke="#0b3d17" stroke-width="0.7"/>'
        f'<circle cx="{_f(x - 2.8)}" cy="{_f(y - 3.4)}" r="1" fill="#fff"/>'
        f'<circle cx="{_f(x + 2.8)}" cy="{_f(y - 3.4)}" r="1" fill="#fff"/>'
        f'<circle cx="{_f(x - 2.8)}" cy="{_f(y - 3.4)}" r="0.5" fill="#000"/>'
        f'<circle cx="{_f(x + 2.8)}" cy="{_f(y - 3.4)}" r="0.5" fill="#000"/>'
        f'<path d="M{_f(x - 2.6)} {_f(y + 1.6)} Q{_f(x)} {_f(y + 3.4)} {_f(x + 2.6)} '
        f'{_f(y + 1.6)}" fill="none" stroke="#0b3d17" stroke-width="0.7"/></g>'
    )


def _shovel(x: float, y: float, scale: float = 1.0) -> str:
    """A small spade whose blade points down, anchored at its top-left corner."""
    return (
        f'<g class="shovel" transform="translate({_f(x)} {_f(y)}) scale({_f(scale)})">'
        "<title>shovel: this tile can be flipped</title>"
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
        f'text-anchor="middle" fill="{_seat_ink(seat)}" font-family="sans-serif">'
        f"{seat_letter(seat)}</text>"
    )


_BOOT = "M-7 -10 H2 V3 H6.5 Q10.5 4 10.5 8 V10 H-7 Z"


def boot_glyph(x: float, y: float, seat: int, size: float = 24.0, mark: bool = True) -> str:
    """A welly boot centred on (x, y) in the seat's colour, haloed so it shows on grass and
    sand, with the seat's letter on its leg (`mark`)."""
    s = size / 22.0
    edge = _seat_outline(seat)
    return (
        f'<g class="token token-boot seat-{seat}" data-seat="{seat}" '
        f'transform="translate({_f(x)} {_f(y)}) scale({_f(s)})">'
        f'<path d="{_BOOT}" fill="none" stroke="{_seat_halo(seat)}" stroke-width="4.6" '
        f'stroke-linejoin="round"/>'
        f'<path d="{_BOOT}" fill="{_seat_colour(seat)}" '
        f'stroke="{edge}" stroke-width="1.8" stroke-linejoin="round"/>'
        f'<path d="M2 7 H10.5" stroke="{edge}" stroke-width="1.2"/>'
        + (_token_mark(seat, -2.5, 1.2, 8.5) if mark else "")
        + "</g>"
    )


def fork_glyph(x: float, y: float, seat: int, size: float = 24.0, mark: bool = True) -> str:
    """A pitchfork centred on (x, y) in the seat's colour, haloed, with the seat's letter on
    the knob of its handle (`mark`)."""
    s = size / 22.0
    tines = "M0 5 V-3 M-5.5 -11 V-3 H5.5 V-11 M0 -3 V-11"
    edge = _seat_outline(seat)
    knob = (
        f'<circle cy="7.5" r="5.6" fill="{_seat_colour(seat)}" stroke="{edge}" stroke-width="1.4"/>'
    )
    return (
        f'<g class="token token-fork seat-{seat}" data-seat="{seat}" '
        f'transform="translate({_f(x)} {_f(y)}) scale({_f(s)})">'
        f'<path d="{tines}" fill="none" stroke="{_seat_halo(seat)}" stroke-width="7.6" '
        f'stroke-linecap="round" stroke-linejoin="round"/>'
        f'<circle cy="7.5" r="7.6" fill="{_seat_halo(seat)}"/>'
        f'<path d="{tines}" fill="none" stroke="{edge}" stroke-width="5.2" '
        f'stroke-linecap="round" stroke-linejoin="round"/>'
        f'<path d="{tines}" fill="none" stroke="{_seat_colour(seat)}" stroke-width="2.6" '
        f'stroke-linecap="round" stroke-linejoin="round"/>'
        + knob
        + (_token_mark(seat, 0, 10.3, 7.6) if mark else "")
        + "</g>"
    )


def bet_glyph(x: float, y: float, seat: int, size: float = 17.0, mark: bool = True) -> str:
    """A betting chip centred on (x, y) in the seat's colour, haloed, with the seat's letter in
    its middle (`mark`)."""
    s = size / 16.0
    edge = _seat_outline(seat)
    return (
        f'<g class="token token-bet seat-{seat}" data-seat="{seat}" '
        f'transform="translate({_f(x)} {_f(y)}) scale({_f(s)})">'
        f'<circle r="9.2" fill="{_seat_halo(seat)}"/>'
        f'<circle r="7.5" fill="{_seat_colour(seat)}" stroke="{edge}" stroke-width="1.4"/>'
        f'<circle r="5.6" fill="none" stroke="{edge}" stroke-width="1.3" '
        f'stroke-dasharray="2.2 1.9"/>' + (_token_mark(seat, 0, 2.6, 7.2) if mark else "") + "</g>"
    )


_TOKEN_GLYPH: dict[str, Callable[[float, float, int], str]] = {
    "boot": boot_glyph,
    "fork": fork_glyph,
    "bet": bet_glyph,
}


# ---------------------------------------------------------------------------------------------
# Creature pieces


def _path_for(spokes: list[str]) -> tuple[str, tuple[float, float], tuple[float, float]]:
    """Path of a two-spoke piece, with its midpoint and the tangent there."""
    a, b = spokes[0], spokes[1]
    ax, ay = _spoke_point(a, 0)
    bx, by = _spoke_point(b, 0)
    if _DIR[a][0] == -_DIR[b][0] and _DIR[a][1] == -_DIR[b][1]:
        return (
            f"M{_f(ax)} {_f(ay)} L{_f(bx)} {_f(by)}",
            ((ax + bx) / 2, (ay + by) / 2),
            (bx - ax, by - ay),
        )
    # A bend: quadratic through the centre's pull, so the body turns smoothly.
    mx, my = 0.25 * ax + 0.5 * C + 0.25 * bx, 0.25 * ay + 0.5 * C + 0.25 * by
    return (
        f"M{_f(ax)} {_f(ay)} Q{_f(C)} {_f(C)} {_f(bx)} {_f(by)}",
        (mx, my),
        (bx - ax, by - ay),
    )


def _pattern(species: str, d: str) -> str:
    """Body markings: worm rings, orange snake stripe, blue snake scales."""
    _, _, mark = SPECIES[species]
    if species == "w":
        return (
            f'<path d="{d}" fill="none" stroke="{mark}" stroke-width="{_f(BODY - 1)}" '
            f'stroke-dasharray="1.4 5.2"/>'
        )
    if species == "o":
        return (
            f'<path d="{d}" fill="none" stroke="{mark}" stroke-width="3.2" '
            f'stroke-dasharray="7 4" stroke-linecap="round"/>'
        )
    return (
        f'<path d="{d}" fill="none" stroke="{mark}" stroke-width="{_f(BODY - 7)}" '
        f'stroke-dasharray="3 3"/>'
    )


def _two_spoke_piece(species: str, kind: str, spokes: list[str]) -> str:
    body, edge, _ = SPECIES[species]
    d, (mx, my), (tx, ty) = _path_for(spokes)
    parts = [
        f'<path d="{d}" fill="none" stroke="{edge}" stroke-width="{_f(BODY + 3)}"/>',
        f'<path d="{d}" fill="none" stroke="{body}" stroke-width="{_f(BODY)}"/>',
        _pattern(species, d),
    ]
    if kind == "saddle":
        angle = math.degrees(math.atan2(ty, tx))
        parts.append(
            f'<rect x="{_f(mx - 8)}" y="{_f(my - BODY / 2 - 2.5)}" width="16" '
            f'height="{_f(BODY + 5)}" rx="4" fill="#a8566a" stroke="{edge}" stroke-width="1.5" '
            f'transform="rotate({_f(angle)} {_f(mx)} {_f(my)})"/>'
        )
    return "".join(parts)


def _one_spoke_piece(species: str, kind: str, spoke: str) -> str:
    body, edge, _ = SPECIES[species]
    dx, dy = _DIR[spoke]
    px, py = -dy, dx  # perpendicular
    sx, sy = _spoke_point(spoke, 0)
    half = BODY / 2

    def at(dist: float, off: float) -> str:
        x, y = _spoke_point(spoke, dist)
        return f"{_f(x + px * off)} {_f(y + py * off)}"

    if kind == "tail":
        # Full width at the side, tapering to a point short of the centre.
        outline = (
            f"M{at(0, half)} L{at(16, half)} Q{at(32, half * 0.55)} {at(43, 0)} "
            f"Q{at(32, -half * 0.55)} {at(16, -half)} L{at(0, -half)} Z"
        )
        return (
            f'<path d="{outline}" fill="{body}" stroke="{edge}" stroke-width="1.5" '
            f'stroke-linejoin="round"/>'
            f'<path d="M{at(0, 0)} L{at(30, 0)}" stroke="{SPECIES[species][2]}" '
            f'stroke-width="{_f(BODY - 9)}" stroke-dasharray="3 3" fill="none"/>'
            # Cover the outline on the tile side so the body runs on into the neighbour.
            f'<path d="M{at(0, half - 0.8)} L{at(0, -half + 0.8)}" stroke="{body}" '
            f'stroke-width="1.8"/>'
        )
    if kind == "head":
        neck = f"M{_f(sx)} {_f(sy)} L{at(24, 0)}"
        hx, hy = _spoke_point(spoke, 32)
        angle = math.degrees(math.atan2(dy, dx))
        eyes = []
        for side in (1, -1):
            ex, ey = _spoke_point(spoke, 35)
            ex, ey = ex + px * side * 4.8, ey + py * side * 4.8
            eyes.append(
                f'<circle cx="{_f(ex)}" cy="{_f(ey)}" r="2.4" fill="#fff" stroke="{edge}" '
                f'stroke-width="0.6"/><circle cx="{_f(ex + dx * 0.7)}" cy="{_f(ey + dy * 0.7)}" '
                f'r="1.2" fill="#000"/>'
            )
        tongue_a = at(43.5, 0)
        return (
            f'<path d="M{tongue_a} L{at(48.5, 0)} M{at(48.5, 0)} L{at(50.5, 1.6)} '
            f'M{at(48.5, 0)} L{at(50.5, -1.6)}" stroke="#c92a2a" stroke-width="1.2" '
            f'fill="none" stroke-linecap="round"/>'
            f'<path d="{neck}" fill="none" stroke="{edge}" stroke-width="{_f(BODY + 3)}"/>'
            f'<ellipse cx="{_f(hx)}" cy="{_f(hy)}" rx="12" ry="11" fill="{body}" '
            f'stroke="{edge}" stroke-width="1.5" '
            f'transform="rotate({_f(angle)} {_f(hx)} {_f(hy)})"/>'
            f'<path d="{neck}" fill="none" stroke="{body}" stroke-width="{_f(BODY)}"/>'
            + _pattern(species, f"M{_f(sx)} {_f(sy)} L{at(20, 0)}")
            + "".join(eyes)
        )
    # An end: a rounded cap short of the centre, so two ends on one tile never look joined.
    tip = 33.0
    line = f"M{_f(sx)} {_f(sy)} L{at(tip, 0)}"
    cx, cy = _spoke_point(spoke, tip)
    return (
        f'<path d="{line}" fill="none" stroke="{edge}" stroke-width="{_f(BODY + 3)}"/>'
        f'<circle cx="{_f(cx)}" cy="{_f(cy)}" r="{_f(half + 1.5)}" fill="{edge}"/>'
        f'<path d="{line}" fill="none" stroke="{body}" stroke-width="{_f(BODY)}"/>'
        f'<circle cx="{_f(cx)}" cy="{_f(cy)}" r="{_f(half)}" fill="{body}"/>'
        + _pattern(species, f"M{_f(sx)} {_f(sy)} L{at(tip - 2, 0)}")
    )


def _piece_svg(species: str, kind: str, spokes: list[str]) -> str:
    if species not in SPECIES or not spokes or any(s not in _DIR for s in spokes):
        return ""
    title = f"{SPECIES_NAME[species]} {KIND_NAME.get(kind, kind)} ({'-'.join(spokes)})"
    if len(spokes) >= 2:
        inner = _two_spoke_piece(species, kind, spokes[:2])
    else:
        inner = _one_spoke_piece(species, kind, spokes[0])
    return (
        f'<g class="piece piece-{_attr(species)} piece-{_attr(kind)}" '
        f'data-piece="{_attr(species)}:{_attr(kind)}:{"-".join(spokes)}">'
        f"<title>{escape(title)}</title>{inner}</g>"
    )


# ---------------------------------------------------------------------------------------------
# One tile


def _deco_slots(quad: str) -> list[tuple[float, float]]:
    ox, oy, sx, sy = _CORNER[quad]
    # The SE corner holds the shovel mark, so decorations there keep clear of it.
    spots = (
        ((27, 13), (13, 27), (24, 24), (16, 16))
        if quad == "SE"
        else ((16, 17), (31, 12), (12, 31), (24, 24))
    )
    return [(ox + sx * a, oy + sy * b) for a, b in spots]


def _token_point(loc: str, index: int) -> tuple[float, float]:
    """Where the index-th token standing at a location is drawn."""
    if loc in _CORNER:
        ox, oy, sx, sy = _CORNER[loc]
        x, y = ox + sx * 32, oy + sy * 32
        return x - sx * index * 7, y - sy * index * 3
    dx, dy = _DIR[loc]
    x, y = _spoke_point(loc, 31)
    return x + (-dy) * index * 8, y + dx * index * 8


def _bet_point(loc: str, index: int) -> tuple[float, float]:
    dx, dy = _DIR[loc]
    x, y = _spoke_point(loc, 13)
    off = 16 + index * 9
    return x + (-dy) * off, y + dx * off


def _placed_tokens(
    tokens: Iterable[Mapping[str, Any]],
) -> Iterator[tuple[str, str, Callable[[float, float, int], str], int, float, float]]:
    """Each token of a tile that has a glyph (kind, place, glyph, seat), with where it is drawn in
    the tile's units (x, y): bets queue along their spoke, claims around their place, in the
    order given."""
    bets_at: dict[str, int] = {}
    claims_at: dict[str, int] = {}
    for token in tokens:
        kind, loc, seat = str(token.get("kind")), str(token.get("loc")), int(token.get("seat", 0))
        draw = _TOKEN_GLYPH.get(kind)
        if draw is None or (loc not in _DIR and loc not in _CORNER):
            continue
        if kind == "bet" and loc in _DIR:
            index = bets_at.get(loc, 0)
            bets_at[loc] = index + 1
            x, y = _bet_point(loc, index)
        else:
            index = claims_at.get(loc, 0)
            claims_at[loc] = index + 1
            x, y = _token_point(loc, index)
        yield kind, loc, draw, seat, x, y


def tile_group(
    desc: Mapping[str, Any],
    *,
    x: float = 0.0,
    y: float = 0.0,
    rotation: int = 0,
    face: str = "front",
    tile_id: int | str | None = None,
    removed: Iterable[str] = (),
    tokens: Sequence[Mapping[str, Any]] = (),
    show_prey: bool = True,
    attrs: str = "",
    scale: float = 1.0,
    name_locs: bool = False,
    title: str = "",
) -> str:
    """An SVG `<g>` drawing one tile with its top-left corner at (x, y).

    Locations (quadrants, spokes, `removed`, token locations) are in board orientation; `desc` is a
    rules 1.5 description, shown on its `face` turned `rotation` degrees clockwise. With
    `name_locs` each quadrant and creature-carrying spoke has its accessible name in data-name
    ("NW quadrant, sand"; "E spoke, blue snake"), for the previews the page clicks in. `title`
    becomes the group's first child, its name on hover and for screen readers.
    """
    f = _face(desc, face)
    gone = set(removed)
    q = str(f.get("q", "gggg"))
    parts: list[str] = []
    transform = f"translate({_f(x)} {_f(y)})" + (f" scale({_f(scale)})" if scale != 1 else "")
    parts.append(f'<g class="tile" transform="{transform}"{attrs}>')
    if title:
        parts.append(f"<title>{escape(title)}</title>")
    # Terrain.
    terrain: dict[str, str] = {}
    for i, quad in enumerate(QUADS):
        board_quad = rotate_quad(quad, rotation)
        terrain[board_quad] = q[i] if i < len(q) else "g"
    for quad in QUADS:
        t = terrain[quad]
        qx, qy = _QRECT[quad]
        name = "grass" if t == "g" else "sand"
        label = f' data-name="{quad} quadrant, {name}"' if name_locs else ""
        parts.append(
            f'<rect class="quad {name}" data-loc="{quad}"{label} shape-rendering="crispEdges" '
            f'x="{_f(qx)}" y="{_f(qy)}" '
            f'width="{_f(C)}" height="{_f(C)}" fill="{TERRAIN.get(t, "#ccc")}"/>'
        )
    # Soft texture: grass blades and sand ripples make the two terrains readable without colour.
    for quad in QUADS:
        ox, oy, sx, sy = _CORNER[quad]
        if terrain[quad] == "g":
            for a, b in ((9, 41), (41, 8), (40, 40)):
                bx, by = ox + sx * a, oy + sy * b
                parts.append(
                    f'<path d="M{_f(bx - 2)} {_f(by + 2)} L{_f(bx)} {_f(by - 3)} '
                    f'L{_f(bx + 2)} {_f(by + 2)}" fill="none" stroke="{TERRAIN_EDGE["g"]}" '
                    f'stroke-width="1" stroke-linecap="round"/>'
                )
        else:
            for a, b in ((8, 41), (40, 8)):
                bx, by = ox + sx * a, oy + sy * b
                parts.append(
                    f'<path d="M{_f(bx - 3.5)} {_f(by)} q1.75 -2 3.5 0 t3.5 0" fill="none" '
                    f'stroke="{TERRAIN_EDGE["s"]}" stroke-width="1"/>'
                )
    # Creatures.
    pieces = [_parse_piece(p) for p in f.get("pieces", [])]
    board_pieces: list[tuple[str, str, list[str]]] = []
    carried: dict[str, str] = {}
    for species, kind, spokes in pieces:
        bs = sorted((rotate_spoke(s, rotation) for s in spokes), key=SPOKES.index)
        if any(s in gone for s in bs):
            continue
        board_pieces.append((species, kind, bs))
        for s in bs:
            carried[s] = species
    # Mids first so heads and caps sit on top where bodies come close.
    board_pieces.sort(key=lambda p: len(p[2]) < 2)
    for species, kind, bs in board_pieces:
        parts.append(_piece_svg(species, kind, bs))
    # Decorations.
    per_quad: dict[str, list[str]] = {quad: [] for quad in QUADS}
    for entry in f.get("coins", []):
        quad, metal = entry[0], entry[1]
        if quad in QUADS:
            per_quad[rotate_quad(quad, rotation)].append(str(metal))
    for quad in f.get("flowers", []):
        if quad in QUADS:
            per_quad[rotate_quad(quad, rotation)].append("flower")
    for quad, items in per_quad.items():
        # Gold before silver before flowers, so the most valuable sits in the clearest slot.
        items.sort(key=lambda k: {"gold": 0, "silver": 1}.get(k, 2))
        slots = _deco_slots(quad)
        for i, item in enumerate(items):
            if i < len(slots):
                cx, cy = slots[i]
            else:  # More than the slots hold: fan them out along the outer edge.
                ox, oy, sx, sy = _CORNER[quad]
                cx, cy = ox + sx * (8 + 7 * (i - 4)), oy + sy * 8
            parts.append(_flower(cx, cy) if item == "flower" else _coin(cx, cy, item))
    if show_prey:
        for entry in f.get("prey", []):
            spoke, animal = rotate_spoke(str(entry[0]), rotation), str(entry[1])
            if spoke not in carried:
                continue
            px, py = _spoke_point(spoke, 13)
            glyph = _frog(px, py) if animal == "frog" else _fly(px, py)
            parts.append(
                f'<g data-prey="{spoke}"><title>{escape(animal)} on {spoke}</title>{glyph}</g>'
            )
    # Tile frame, id and shovel.
    parts.append(
        f'<rect x="0.5" y="0.5" width="{_f(T - 1)}" height="{_f(T - 1)}" fill="none" '
        f'stroke="#00000040" stroke-width="1"/>'
    )
    if face != "back" and isinstance(desc.get("back"), Mapping):
        parts.append(_shovel(T - 14, T - 16))
    if face == "back":
        parts.append(
            f'<path d="M{_f(T - 12)} {_f(T - 3)} L{_f(T - 3)} {_f(T - 12)} L{_f(T - 3)} '
            f'{_f(T - 3)} Z" fill="#495057" opacity="0.55"><title>flipped (back face)</title>'
            f"</path>"
        )
    if tile_id is not None:
        label = escape(str(tile_id))
        parts.append(
            f'<text class="tile-id" x="2.5" y="9.5" font-size="9" fill="#212529" '
            f'stroke="#ffffff" stroke-width="2.4" paint-order="stroke" '
            f'font-family="sans-serif">{label}</text>'
        )
    # Tokens.
    for _, _, draw, seat, tx, ty in _placed_tokens(tokens):
        parts.append(draw(tx, ty, seat))
    # Hit areas for click-to-move on the spokes that carry a piece (quadrants have their rects).
    for spoke in SPOKES:
        if spoke in carried:
            ax, ay = _spoke_point(spoke, 0)
            bx, by = _spoke_point(spoke, 40)
            x0, x1 = sorted((ax, bx))
            y0, y1 = sorted((ay, by))
            w = max(x1 - x0, BODY + 4)
            h = max(y1 - y0, BODY + 4)
            what = SPECIES_NAME.get(carried[spoke], "creature")
            label = f' data-name="{spoke} spoke, {what}"' if name_locs else ""
            parts.append(
                f'<rect class="spoke" data-loc="{spoke}"{label} x="{_f((x0 + x1 - w) / 2)}" '
                f'y="{_f((y0 + y1 - h) / 2)}" width="{_f(w)}" height="{_f(h)}" '
                f'fill="transparent"/>'
            )
    parts.append("</g>")
    return "".join(parts)


def previews(view: Mapping[str, Any], legal: Iterable[str]) -> dict[str, str]:
    """Each tile the viewer may lay or flip, drawn in every legal rotation (key face:tile:rotation).

    The game page shows the chosen one in place; quadrant and spoke hit areas are drawn in board
    orientation, so the same drawing offers the boot, fork and bet locations. The hand's tiles are
    also drawn upright, for the picker's buttons.
    """
    show_prey = view.get("variant") == "animals"
    tiles = view.get("tiles") or {}
    at = {(int(t["x"]), int(t["y"])): t for t in view.get("board") or []}
    wanted: set[tuple[str, int, int]] = {("front", int(t), 0) for t in view.get("hand") or []}
    for move in legal:
        part = move.split()
        if part[0] == "place":
            wanted.add(("front", int(part[1]), int(part[3])))
        elif part[0] == "flip":
            x, y = (int(v) for v in part[1].split(","))
            laid = at.get((x, y))
            if laid is not None:
                wanted.add(("back", int(laid["tile"]), int(part[2])))
    out = {}
    for face, tile, rotation in sorted(wanted):
        desc = tiles.get(str(tile))
        if desc is None:
            continue
        out[f"{face}:{tile}:{rotation}"] = tile_group(
            desc,
            rotation=rotation,
            face=face,
            tile_id=tile,
            show_prey=show_prey,
            attrs=' data-preview="1"',
            name_locs=True,
        )
    return out


def flips(
    view: Mapping[str, Any], legal: Iterable[str], names: Sequence[str] | None = None
) -> dict[str, dict[str, Any]]:
    """What each flip the viewer may make would cost, keyed by position ("x,y"), as MMW warns
    before a sinking: `tile`; `lost`, the tokens on the tile (rules: a flip removes them), each
    `{seat, kind, loc}`; `warning`, a sentence naming them ("Flipping the tile at (-2,1)
    removes Carol's boot and your pitchfork.", "" when none); and `marks`, those tokens drawn
    crossed out in the tile's own units (0 to 100, as the previews), to lay over the preview."""
    seat = view.get("seat")
    who = _player_names(view, names)
    at = {(int(t["x"]), int(t["y"])): t for t in view.get("board") or [] if isinstance(t, Mapping)}
    out: dict[str, dict[str, Any]] = {}
    for move in legal:
        part = move.split()
        if part[0] != "flip" or part[1] in out:
            continue
        x, y = (int(v) for v in part[1].split(","))
        laid = at.get((x, y))
        if laid is None:
            continue
        lost: list[dict[str, Any]] = [
            {"seat": int(k.get("seat", 0)), "kind": str(k.get("kind")), "loc": str(k.get("loc"))}
            for k in laid.get("tokens") or []
            if isinstance(k, Mapping)
        ]
        things = [
            ("your" if k["seat"] == seat else f"{_who(who, k['seat'])}'s")
            + f" {words.TOKEN_WORDS.get(str(k['kind']), 'token')}"
            for k in lost
        ]
        warning = (
            f"Flipping the tile at ({x},{y}) removes {words.listing(things)}." if things else ""
        )
        out[part[1]] = {
            "tile": int(laid["tile"]),
            "lost": lost,
            "warning": warning,
            "marks": _lost_marks(lost),
        }
    return out


def _lost_marks(lost: Sequence[Mapping[str, Any]]) -> str:
    """The tokens a flip removes, faded and struck through with a red cross, where the board
    draws them (tile units)."""
    if not lost:
        return ""
    parts = ['<g class="lost-tokens" pointer-events="none">']
    for kind, loc, draw, seat, x, y in _placed_tokens(lost):
        cross = (
            f"M{_f(x - 9)} {_f(y - 9)} L{_f(x + 9)} {_f(y + 9)} "
            f"M{_f(x + 9)} {_f(y - 9)} L{_f(x - 9)} {_f(y + 9)}"
        )
        parts.append(
            f'<g class="lost-token" data-seat="{seat}" data-kind="{_attr(kind)}" '
            f'data-loc="{_attr(loc)}"><g opacity="0.6">{draw(x, y, seat)}</g>'
            f'<path d="{cross}" stroke="#ffffff" stroke-width="5.5" stroke-linecap="round"/>'
            f'<path d="{cross}" stroke="#c92a2a" stroke-width="3" stroke-linecap="round"/></g>'
        )
    parts.append("</g>")
    return "".join(parts)


def _svg_open(width: float, height: float, extra: str = "") -> str:
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {_f(width)} {_f(height)}" '
        f'width="{_f(width)}" height="{_f(height)}" font-family="sans-serif"{extra}>'
    )


def render_tile_svg(
    desc: Mapping[str, Any],
    rotation: int = 0,
    face: str = "front",
    *,
    tile_id: int | str | None = None,
    size: float = 100.0,
    show_prey: bool = True,
) -> str:
    """A standalone SVG document showing one tile description (for the tile sheet and web page)."""
    scale = size / T
    body = tile_group(
        desc,
        rotation=rotation,
        face=face,
        tile_id=tile_id,
        show_prey=show_prey,
        scale=scale,
        attrs=f' data-tile="{_attr(tile_id)}"' if tile_id is not None else "",
    )
    return _svg_open(size, size) + body + "</svg>"


# ---------------------------------------------------------------------------------------------
# The whole view


def _tile_desc(view: Mapping[str, Any], tile_id: object) -> Mapping[str, Any]:
    tiles = view.get("tiles") or {}
    desc = tiles.get(str(tile_id))
    if desc is None and isinstance(tile_id, int):
        desc = tiles.get(tile_id)
    return desc if isinstance(desc, Mapping) else {"q": "gggg"}


def _frontier(laid: set[tuple[int, int]]) -> set[tuple[int, int]]:
    out: set[tuple[int, int]] = set()
    for x, y in laid:
        for dx, dy in ((0, 1), (1, 0), (0, -1), (-1, 0)):
            p = (x + dx, y + dy)
            if p not in laid:
                out.add(p)
    return out


def _last_tile(view: Mapping[str, Any]) -> tuple[int, int] | None:
    """The position of the most recent place or flip, when the log names it."""
    for event in reversed(view.get("log") or []):
        if not isinstance(event, Mapping) or event.get("type") not in ("place", "flip"):
            continue
        pos = _event_pos(event)
        if pos is not None:
            return pos
        return None
    return None


def _event_pos(event: Mapping[str, Any]) -> tuple[int, int] | None:
    if "x" in event and "y" in event:
        try:
            return int(event["x"]), int(event["y"])
        except (TypeError, ValueError):
            return None
    pos = event.get("pos")
    if isinstance(pos, str) and "," in pos:
        a, b = pos.split(",", 1)
        try:
            return int(a), int(b)
        except ValueError:
            return None
    if isinstance(pos, Sequence) and not isinstance(pos, str) and len(pos) == 2:
        return int(pos[0]), int(pos[1])
    return None


def _dropped(view: Mapping[str, Any]) -> set[int]:
    """The seats that left the game (rules section 9); none in a view from before drops."""
    raw = view.get("dropped")
    if not isinstance(raw, Sequence) or isinstance(raw, str):
        return set()
    return {s for s in raw if isinstance(s, int) and not isinstance(s, bool)}


def _who(names: Sequence[str], seat: object, limit: int = 0) -> str:
    """The seat's name, cut to `limit` characters (0: whole) where a line has no room to wrap."""
    if isinstance(seat, int) and not isinstance(seat, bool):
        name = names[seat] if 0 <= seat < len(names) else seat_word(seat)
        return shorten(name, limit) if limit else name
    return "someone"


def _settled_words(outcome: object, names: Sequence[str], limit: int = 0) -> str | None:
    """An ending the service decided (the view's outcome has its sentence), in words; None while
    the game runs or when the rules ended it."""
    said = outcome.get(SAID) if isinstance(outcome, Mapping) else None
    if not isinstance(said, str):
        return None
    return fill_names(said, [_who(names, seat, limit) for seat in range(len(names))])


def describe_event(event: Mapping[str, Any], names: Sequence[str]) -> str:
    """One public log event in plain words."""
    kind = event.get("type")
    who = _who(names, event.get("seat"))
    pos = _event_pos(event)
    at = f" at ({pos[0]},{pos[1]})" if pos else ""
    if kind == "place":
        tile = event.get("tile")
        rot = event.get("rotation")
        return f"{who} placed tile {tile}{at}" + (f", turned {rot}°" if rot is not None else "")
    if kind == "flip":
        return f"{who} flipped the tile{at}"
    if kind == "pass":
        return f"{who} passed"
    if kind in ("claim", "bet"):
        what = event.get("kind") or ("bet" if kind == "bet" else "token")
        return f"{who} put a {what} on {event.get('loc', '?')}{at}"
    if kind == "score":
        feature = event.get("feature")
        if feature == "creature":
            name = SPECIES_NAME.get(str(event.get("species")), "creature")
            if event.get("valid") is False:
                name = f"freak beast ({name})"
        else:
            name = "grass tuft" if event.get("terrain") == "g" else "sand mound"
        winners = event.get("winners") or []
        value = event.get("value", 0)
        if winners:
            by = " and ".join(_who(names, w) for w in winners)
            return f"{name} completed: {value} to {by}"
        return f"{name} completed ({value}, unclaimed)"
    if kind == "removed":
        return "completed creatures left the board"
    if kind == "eaten":
        animal = event.get("prey", "prey")
        seat = event.get("seat")
        gain = event.get("value", event.get("points"))
        if seat is None:
            return f"a {animal} was eaten"
        return f"{_who(names, seat)}'s bet on a {animal} won {gain}"
    if kind == "bet-lost":
        return f"{who} lost a bet"
    if kind == "discard":
        return f"{who} discarded dead tile {event.get('tile')}"
    if kind == "end-bonus":
        return f"end bonus: {event.get('points', event.get('value', 0))} to {who}"
    if kind == "dropped":
        return f"{who} left the game"
    return str(kind)


# ---------------------------------------------------------------------------------------------
# The last turns: who did what, from the view's log


_ACTIONS = ("place", "flip", "pass")
_ACTIONS_PER_TURN = 2  # rules 4.1; rules.ACTIONS_PER_TURN, not imported so this module needs
# only the view


def turns(view: Mapping[str, Any]) -> list[d.Turn]:
    """Every turn so far, from the log's actions: a seat's consecutive actions, two to a turn
    (rules 4.1); the last may be under way, or cut short by the end of the game."""
    out: list[d.Turn] = []
    for event in view.get("log") or []:
        if not isinstance(event, Mapping) or event.get("type") not in _ACTIONS:
            continue
        ply, seat = event.get("ply"), event.get("seat")
        if not isinstance(ply, int) or not isinstance(seat, int) or isinstance(seat, bool):
            continue
        last = out[-1] if out else None
        if last and last.seat == seat and len(last.plies) < _ACTIONS_PER_TURN:
            out[-1] = d.Turn(seat, (*last.plies, ply))
        else:
            out.append(d.Turn(seat, (ply,)))
    return out


def marked_turns(view: Mapping[str, Any]) -> list[d.Turn]:
    """The turns the board marks for the view's seat (`drawing.marked_turns`), oldest first."""
    seat = view.get("seat")
    viewer = seat if isinstance(seat, int) and not isinstance(seat, bool) else None
    return d.marked_turns(turns(view), viewer, _dropped(view))


def _laid_at(view: Mapping[str, Any], pos: tuple[int, int]) -> Mapping[str, Any] | None:
    for laid in view.get("board") or []:
        if isinstance(laid, Mapping) and (laid.get("x"), laid.get("y")) == pos:
            return laid
    return None


def _what_is_at(view: Mapping[str, Any], pos: tuple[int, int], loc: str) -> str:
    """What a token at `loc` of the tile at `pos` stands on, in the rules' words: "sand",
    "blue snake"; the location's name when the tile is not known."""
    laid = _laid_at(view, pos)
    if laid is None:
        return loc
    rotation = int(laid.get("rotation") or 0)
    f = _face(_tile_desc(view, laid.get("tile")), str(laid.get("face") or "front"))
    if loc in QUADS:
        q = str(f.get("q", ""))
        i = (QUADS.index(loc) - _rot_steps(rotation)) % 4
        return {"g": "grass", "s": "sand"}.get(q[i : i + 1], loc)
    for text in f.get("pieces", []):
        species, _, spokes = _parse_piece(text)
        if loc in (rotate_spoke(sp, rotation) for sp in spokes):
            return SPECIES_NAME.get(species, "creature")
    return loc


def action_words(view: Mapping[str, Any], ply: int) -> str:
    """The sentence for the action at `ply`, seats as placeholders `{0}` for `fill_names`, as
    the move's stored words say it (pbem.games.marram.words): "{2} flipped the tile at (-2,1);
    {0}'s boot there was lost"."""
    log = [e for e in view.get("log") or [] if isinstance(e, Mapping)]
    now = [e for e in log if e.get("ply") == ply]
    mover = next((e.get("seat") for e in now if e.get("type") in _ACTIONS), None)
    clauses: list[str] = []
    tails: list[str] = []
    things: list[str] = []
    for event in now:
        kind = event.get("type")
        pos = _event_pos(event)
        at = f" at ({pos[0]},{pos[1]})" if pos else ""
        if kind == "pass":
            clauses.append("passed, as no tile could be placed or flipped")
        elif kind == "place":
            clauses.append(f"placed tile {event.get('tile')}{at}")
        elif kind == "flip":
            clauses.append(f"flipped the tile{at}")
            lost = [
                f"{{{t.get('seat')}}}'s {words.TOKEN_WORDS.get(str(t.get('kind')), 'token')}"
                for t in event.get("lost") or []
                if isinstance(t, Mapping)
            ]
            if lost:
                verb = "was" if len(lost) == 1 else "were"
                tails.append(f"{words.listing(lost)} there {verb} lost")
        elif kind == "claim" and pos is not None:
            token = words.TOKEN_WORDS.get(str(event.get("kind")), "token")
            where = _what_is_at(view, pos, str(event.get("loc")))
            things.append(f"{words.with_article(token)} on the {where}")
        elif kind == "bet":
            things.append(f"a bet on the {event.get('prey', 'prey')}")
    if things:
        clauses.append("put " + words.listing(things))
    completed = [_feature_words(e) for e in now if e.get("type") == "score"]
    if completed:
        # A comma closes "…, which nobody claimed" before the next feature.
        joined = words.listing(completed)
        if len(completed) > 1 and "," in completed[-2]:
            joined = ", ".join(completed[:-1]) + ", and " + completed[-1]
        clauses.append("completed " + joined)
    gone = [_creature_words(e) for e in now if e.get("type") == "removed"]
    if gone:
        tails.append(f"{words.listing(['the ' + g for g in gone])} left the board")
    for event in now:
        who = f"{{{event.get('seat')}}}"
        if event.get("type") == "eaten":
            tails.append(f"{who}'s bet on the {event.get('prey')} won {event.get('points')}")
        elif event.get("type") == "bet-lost" and event.get("why") == "freak":
            tails.append(f"{who}'s bet was lost with the freak beast")
    for event in log:
        if event.get("ply") == ply + 1 and event.get("type") == "discard":
            tails.append(f"{{{event.get('seat')}}} discarded dead tile {event.get('tile')}")
    if view.get("outcome") is not None and ply == len(view.get("history") or []) - 1:
        tails.append("the game ended")
    head = f"{{{mover}}} {words.listing(clauses)}" if clauses else f"{{{mover}}} acted"
    return "; ".join([head, *tails])


def _creature_words(event: Mapping[str, Any]) -> str:
    species = SPECIES_NAME.get(str(event.get("species")), "creature")
    return species if event.get("valid", True) else f"freak beast ({species})"


def _feature_words(event: Mapping[str, Any]) -> str:
    """'a worm worth 6 each to {0} and {1}', 'a sand mound of 9 bulges worth 45, which nobody
    claimed' (as pbem.games.marram.words writes a completed feature)."""
    if event.get("feature") == "creature":
        name = words.with_article(_creature_words(event))
    else:
        name = words.with_article(words.REGION_WORDS.get(str(event.get("terrain")), "region"))
        name += f" of {words.plural(int(event.get('tiles') or 0), 'bulge')}"
    value = event.get("value", 0)
    winners = [f"{{{w}}}" for w in event.get("winners") or []]
    if not winners:
        return f"{name} worth {value}, which nobody claimed"
    each = " each" if len(winners) > 1 else ""
    return f"{name} worth {value}{each} to {words.listing(winners)}"


def _departures(view: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    """The log's seats leaving the game (rules section 9), told beside the last turns."""
    return [
        e for e in view.get("log") or [] if isinstance(e, Mapping) and e.get("type") == "dropped"
    ]


def _turn_label(turn: d.Turn, index: int) -> str:
    """A mark's badge: the seat's letter and the action's number in its turn ("V2")."""
    return f"{seat_letter(turn.seat)}{index + 1}"


def _wrap(text: str, width: int, lines: int) -> list[str]:
    """`text` in lines of at most `width` characters, at most `lines` of them (the last cut
    short with "…")."""
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


def tile_name(
    view: Mapping[str, Any], laid: Mapping[str, Any], names: Sequence[str] | None = None
) -> str:
    """A laid tile's accessible name: "tile 42 at (1,-1): grass and sand, blue snake, 1 gold
    coin; Carol's boot on NW; can be flipped"."""
    who = _player_names(view, names)
    x, y, tid = laid.get("x"), laid.get("y"), laid.get("tile")
    face = str(laid.get("face") or "front")
    rotation = int(laid.get("rotation") or 0)
    desc = _tile_desc(view, tid)
    f = _face(desc, face)
    q = str(f.get("q", ""))
    ground = [n for c, n in (("g", "grass"), ("s", "sand")) if c in q]
    parts = [" and ".join(ground) or "a tile"]
    gone = {str(sp) for sp in laid.get("removed") or []}
    creatures: list[str] = []
    for text in f.get("pieces", []):
        species, _, spokes = _parse_piece(text)
        if any(rotate_spoke(sp, rotation) in gone for sp in spokes):
            continue
        name = SPECIES_NAME.get(species, "creature")
        if name not in creatures:
            creatures.append(name)
    parts.extend(creatures)
    metals = [str(c[1]) for c in f.get("coins", []) if len(c) > 1]
    for metal in ("gold", "silver"):
        if metal in metals:
            parts.append(words.plural(metals.count(metal), f"{metal} coin"))
    if f.get("flowers"):
        parts.append(words.plural(len(f.get("flowers", [])), "flower"))
    if view.get("variant") == "animals":
        for spoke, animal in f.get("prey", []):
            if rotate_spoke(str(spoke), rotation) not in gone:
                parts.append(f"a {animal} on {rotate_spoke(str(spoke), rotation)}")
    tokens = [
        f"{_who(who, k.get('seat'))}'s {words.TOKEN_WORDS.get(str(k.get('kind')), 'token')} "
        f"on {k.get('loc')}"
        for k in laid.get("tokens") or []
        if isinstance(k, Mapping)
    ]
    text = f"tile {tid} at ({x},{y}): " + ", ".join(parts)
    if tokens:
        text += "; " + ", ".join(tokens)
    if face == "back":
        text += "; flipped"
    elif isinstance(desc.get("back"), Mapping):
        text += "; can be flipped"
    return text


def _action_pos(view: Mapping[str, Any], ply: int) -> tuple[int, int] | None:
    """Where the action at `ply` laid or flipped a tile; None for a pass."""
    for event in view.get("log") or []:
        if (
            isinstance(event, Mapping)
            and event.get("ply") == ply
            and event.get("type") in ("place", "flip")
        ):
            return _event_pos(event)
    return None


def _placed_actions(
    view: Mapping[str, Any],
    turn: Any,
    laid: set[tuple[int, int]],
    slots: dict[tuple[int, int], int],
) -> Iterator[tuple[int, tuple[int, int], int]]:
    """Each action of a marked turn on a tile of the board: its number in the turn, the tile,
    and how many marks that tile already has (`slots`, shared across turns, is counted up)."""
    for index, ply in enumerate(turn.plies):
        pos = _action_pos(view, ply)
        if pos is None or pos not in laid:
            continue
        slot = slots.get(pos, 0)
        slots[pos] = slot + 1
        yield index, pos, slot


def _turn_marks(
    view: Mapping[str, Any],
    marked: list[d.Turn],
    sentences: Mapping[int, str],
    names: Sequence[str],
    origin: Callable[[int, int], tuple[float, float]],
    laid: set[tuple[int, int]],
) -> list[str]:
    """Each marked turn as a group (`g.last-turn`): every tile it laid or flipped outlined in
    the seat's colour, with a badge of the seat's letter and the action's number ("V2") in a
    corner. A tile marked twice (laid, then flipped) gets the second mark inside the first, its
    badge in the opposite corner."""
    out: list[str] = []
    slots: dict[tuple[int, int], int] = {}
    for turn in marked:
        seat = turn.seat
        steps = [f"{i + 1}. {sentences[ply]}" for i, ply in enumerate(turn.plies)]
        title = f"{_who(names, seat)}'s last turn: " + ". ".join(steps)
        plies = " ".join(str(p) for p in turn.plies)
        group = [
            f'<g class="last-turn" data-seat="{seat}" data-plies="{plies}" '
            f'data-name="{_attr(title)}" pointer-events="none"><title>{escape(title)}</title>'
        ]
        for index, pos, slot in _placed_actions(view, turn, laid, slots):
            ply = turn.plies[index]
            ox, oy = origin(*pos)
            inset = 3.5 + 7 * slot
            label = _turn_label(turn, index)
            bx, by = (ox + T - 17, oy + 11) if slot % 2 == 0 else (ox + 17, oy + T - 11)
            group.append(
                f'<g class="last-action" data-ply="{ply}" data-pos="{pos[0]},{pos[1]}" '
                f'data-label="{label}"><title>{escape(sentences[ply])}</title>'
                + d.outline(
                    d.rect_d(ox + inset, oy + inset, T - 2 * inset, T - 2 * inset),
                    _seat_colour(seat),
                    _seat_outline(seat),
                    3.5,
                )
                + d.badge(bx, by, label, _seat_colour(seat), _seat_outline(seat), 12)
                + "</g>"
            )
        group.append("</g>")
        out.append("".join(group))
    return out


def _focus(
    view: Mapping[str, Any], marked: list[d.Turn], laid: set[tuple[int, int]]
) -> tuple[int, int, int, int]:
    """The board cells a small screen should show first (min x, min y, max x, max y): the
    tiles of the marked turns, else the last tile laid or flipped, else the start."""
    spots = [
        pos
        for turn in marked
        for ply in turn.plies
        if (pos := _action_pos(view, ply)) is not None and pos in laid
    ]
    if not spots:
        last = _last_tile(view)
        spots = [last if last is not None and last in laid else (0, 0)]
    xs = [p[0] for p in spots]
    ys = [p[1] for p in spots]
    return min(xs), min(ys), max(xs), max(ys)


def render_svg(view: Mapping[str, Any], names: Sequence[str] | None = None) -> str:
    """The board, the viewer's hand and a score panel as one SVG document.

    `names` are the seats' display names (escaped here); colour words when None.
    """
    variant = str(view.get("variant") or "classic")
    show_prey = variant == "animals"
    names = _player_names(view, names)
    seats = len(names)
    board = [t for t in view.get("board") or [] if isinstance(t, Mapping)]
    laid = {(int(t["x"]), int(t["y"])) for t in board}
    frontier = _frontier(laid) if view.get("outcome") is None else set()
    if not laid and view.get("outcome") is None:
        frontier = {(0, 0)}
    cells = laid | frontier or {(0, 0)}
    min_x = min(p[0] for p in cells)
    max_x = max(p[0] for p in cells)
    min_y = min(p[1] for p in cells)
    max_y = max(p[1] for p in cells)
    cols, rows = max_x - min_x + 1, max_y - min_y + 1
    axis = 16.0
    board_x0, board_y0 = MARGIN + axis, MARGIN + axis
    board_w, board_h = cols * T, rows * T

    def origin(x: int, y: int) -> tuple[float, float]:
        return board_x0 + (x - min_x) * T, board_y0 + (max_y - y) * T

    zoom = min(2.0, max(1.0, (board_h + 2 * MARGIN) / 900.0))
    label = _f(11 * zoom)
    out: list[str] = []
    body: list[str] = []
    # Board backdrop and axis labels (the same coordinates moves are typed in).
    body.append(
        f'<rect class="board-bg" x="{_f(board_x0 - 6)}" y="{_f(board_y0 - 6)}" '
        f'width="{_f(board_w + 12)}" height="{_f(board_h + 12)}" rx="8" fill="#e9e4d8"/>'
    )
    for x in range(min_x, max_x + 1):
        cx = board_x0 + (x - min_x + 0.5) * T
        body.append(
            f'<text x="{_f(cx)}" y="{_f(board_y0 - 5)}" font-size="{label}" fill="#868e96" '
            f'text-anchor="middle">x={x}</text>'
        )
    for y in range(min_y, max_y + 1):
        cy = board_y0 + (max_y - y + 0.5) * T
        body.append(
            f'<text x="{_f(board_x0 - 5)}" y="{_f(cy)}" font-size="{label}" fill="#868e96" '
            f'text-anchor="middle" transform="rotate(-90 {_f(board_x0 - 5)} {_f(cy)})">'
            f"y={y}</text>"
        )
    for x, y in sorted(frontier):
        ox, oy = origin(x, y)
        body.append(
            f'<g class="frontier" data-pos="{x},{y}" data-name="open place at ({x},{y})">'
            f'<rect x="{_f(ox + 3)}" y="{_f(oy + 3)}" '
            f'width="{_f(T - 6)}" height="{_f(T - 6)}" rx="6" fill="#ffffff" fill-opacity="0.35" '
            f'stroke="#adb5bd" stroke-width="1.2" stroke-dasharray="5 4"/>'
            f'<text x="{_f(ox + C)}" y="{_f(oy + C + 4)}" font-size="11" fill="#adb5bd" '
            f'text-anchor="middle">{x},{y}</text></g>'
        )
    for t in board:
        x, y = int(t["x"]), int(t["y"])
        ox, oy = origin(x, y)
        tid = t.get("tile")
        face = str(t.get("face") or "front")
        title = tile_name(view, t, names)
        group = tile_group(
            _tile_desc(view, tid),
            x=ox,
            y=oy,
            rotation=int(t.get("rotation") or 0),
            face=face,
            tile_id=tid,
            removed=[str(s) for s in t.get("removed") or []],
            tokens=[k for k in t.get("tokens") or [] if isinstance(k, Mapping)],
            show_prey=show_prey,
            attrs=f' data-pos="{x},{y}" data-tile="{_attr(tid)}" data-name="{_attr(title)}"',
            title=title,
        )
        body.append(group)
    marked = marked_turns(view)
    sentences = {ply: fill_names(action_words(view, ply), names) for t in marked for ply in t.plies}
    body.extend(_turn_marks(view, marked, sentences, names, origin, laid))
    focus = _focus(view, marked, laid)
    fx0, fy0 = origin(focus[0], focus[3])
    focus_box = f"{_f(fx0)} {_f(fy0)} {_f((focus[2] - focus[0] + 1) * T)} " + _f(
        (focus[3] - focus[1] + 1) * T
    )

    # The side panel.
    # The panel is drawn at the origin and then placed right of the board, scaled up with a big
    # board so its text stays legible when the whole picture is shrunk to fit a page.
    panel_x = board_x0 + board_w + 6 + MARGIN
    px = 0.0
    py = MARGIN / zoom
    panel: list[str] = []
    title = f"Marram · {VARIANT_TITLE.get(variant, variant.title())}"
    length = view.get("length")
    if length:
        title += f" · {length}"
    panel.append(
        f'<text x="{_f(px)}" y="{_f(py + 18)}" font-size="20" font-weight="bold" '
        f'fill="#343a40">{escape(title)}</text>'
    )
    py += 30
    outcome = view.get("outcome")
    to_move = view.get("to_move")
    actions_left = view.get("actions_left")
    settled = _settled_words(outcome, names, STATUS_NAME)
    if settled is not None:
        status = f"Game over: {settled}"
    elif isinstance(outcome, Mapping):
        winners = [int(w) for w in outcome.get("winners") or []]
        if winners:
            limit = STATUS_NAME if len(winners) == 1 else STATUS_NAME // 2
            who = " and ".join(_who(names, w, limit) for w in winners)
            status = f"Game over: {who} {'wins' if len(winners) == 1 else 'share the win'}"
        else:
            status = "Game over: no winner"
    elif isinstance(to_move, int):
        n = int(actions_left or 0)
        status = (
            f"{_who(names, to_move, STATUS_NAME)} to move, {n} action{'s' if n != 1 else ''} left"
        )
    else:
        status = ""
    if status:
        colour = _seat_colour(to_move) if isinstance(to_move, int) and not outcome else "#343a40"
        panel.append(
            f'<text class="status" x="{_f(px)}" y="{_f(py + 12)}" font-size="14" '
            f'fill="#212529"><tspan fill="{colour}" stroke="#495057" stroke-width="0.4">●</tspan>'
            f" {escape(status)}</text>"
        )
        py += 22
    threshold = view.get("threshold")
    info = f"Bag: {words.plural(int(view.get('bag') or 0), 'tile')}"
    if threshold:
        info += f" · first to {threshold} wins"
    discarded = view.get("discarded") or []
    if discarded:
        info += f" · dead tiles discarded: {len(discarded)}"
    panel.append(
        f'<text x="{_f(px)}" y="{_f(py + 12)}" font-size="12.5" fill="#495057">'
        f"{escape(info)}</text>"
    )
    py += 24
    scores = list(view.get("scores") or [0] * seats)
    supplies = list(view.get("supplies") or [{}] * seats)
    sizes = list(view.get("hand_sizes") or [0] * seats)
    winners_set = (
        {int(w) for w in outcome.get("winners") or []} if isinstance(outcome, Mapping) else set()
    )
    left = _dropped(view)
    for seat in range(seats):
        row_h = 50.0
        active = seat == to_move and not outcome
        panel.append(
            f'<g class="seat" data-seat="{seat}"><rect x="{_f(px)}" y="{_f(py)}" '
            f'width="{_f(PANEL_W - 10)}" height="{_f(row_h - 6)}" rx="6" '
            f'fill="{"#fff3bf" if active else "#f8f9fa"}" '
            f'stroke="{"#f59f00" if active else "#dee2e6"}" stroke-width="{2 if active else 1}"/>'
        )
        panel.append(boot_glyph(px + 18, py + 22, seat, size=24))
        name = _who(names, seat, SEAT_NAME) + ("  ★" if seat in winners_set else "")
        in_hand = sizes[seat] if seat < len(sizes) else 0
        aside = "left the game" if seat in left else f"{in_hand} in hand"
        panel.append(
            f'<text x="{_f(px + 36)}" y="{_f(py + 18)}" font-size="14" font-weight="bold" '
            f'fill="#212529">{escape(name)}<tspan font-size="11.5" font-weight="normal" '
            f'fill="#868e96" dx="8">{aside}</tspan></text>'
        )
        sup = supplies[seat] if seat < len(supplies) and isinstance(supplies[seat], Mapping) else {}
        bits = [f"boots {sup.get('boots', 0)}"]
        if variant != "classic" or sup.get("forks"):
            bits.append(f"forks {sup.get('forks', 0)}")
        bits.append(f"shovels {sup.get('shovels', 0)}")
        if variant == "animals" or sup.get("bets"):
            bits.append(f"bets {sup.get('bets', 0)}")
        panel.append(
            f'<text x="{_f(px + 36)}" y="{_f(py + 35)}" font-size="11.5" fill="#495057">'
            f"{escape(' · '.join(bits))}</text>"
        )
        score = scores[seat] if seat < len(scores) else 0
        panel.append(
            f'<text x="{_f(px + PANEL_W - 20)}" y="{_f(py + 30)}" font-size="24" '
            f'font-weight="bold" text-anchor="end" fill="#212529">{escape(str(score))}</text></g>'
        )
        py += row_h
    hand = view.get("hand")
    if isinstance(hand, Sequence) and not isinstance(hand, str):
        py += 6
        panel.append(
            f'<text x="{_f(px)}" y="{_f(py + 12)}" font-size="14" font-weight="bold" '
            f'fill="#343a40">Your hand</text>'
        )
        py += 20
        hx = px
        for tid in hand:
            panel.append(
                tile_group(
                    _tile_desc(view, tid),
                    x=hx,
                    y=py,
                    tile_id=tid,
                    show_prey=show_prey,
                    attrs=f' data-tile="{_attr(tid)}" data-hand="1" '
                    f'data-name="tile {_attr(tid)} in your hand"',
                    title=f"tile {tid} in your hand",
                )
            )
            hx += T + 10
        if not hand:
            panel.append(
                f'<text x="{_f(px)}" y="{_f(py + 14)}" font-size="12" fill="#868e96">(empty)</text>'
            )
            py += 24
        else:
            py += T + 10
    departures = _departures(view)
    if marked or departures:
        py += 8
        panel.append(
            f'<text x="{_f(px)}" y="{_f(py + 12)}" font-size="14" font-weight="bold" '
            f'fill="#343a40">Last turns</text>'
        )
        py += 18
        for event in departures:
            panel.append(
                f'<text class="departure" x="{_f(px + 32)}" y="{_f(py + 12)}" '
                f'font-size="11.5" fill="#343a40">{escape(describe_event(event, names))}</text>'
            )
            py += 19
        for turn in marked:
            for index, ply in enumerate(turn.plies):
                lines = _wrap(sentences[ply], 46, 3)
                panel.append(
                    f'<g class="turn-line" data-seat="{turn.seat}" data-ply="{ply}">'
                    + d.badge(
                        px + 13,
                        py + 8,
                        _turn_label(turn, index),
                        _seat_colour(turn.seat),
                        _seat_outline(turn.seat),
                        11,
                    )
                )
                for line in lines:
                    panel.append(
                        f'<text x="{_f(px + 32)}" y="{_f(py + 12)}" font-size="11.5" '
                        f'fill="#343a40">{escape(line)}</text>'
                    )
                    py += 15
                panel.append("</g>")
                py += 4
    py += 8
    panel.append(_legend(px, py, variant))
    py += _LEGEND_H

    width = panel_x + PANEL_W * zoom + MARGIN
    height = max(board_y0 + board_h + 6 + MARGIN, py * zoom + MARGIN)
    label = f"Marram board: {status}" if status else "Marram board"
    out.append(
        _svg_open(
            width,
            height,
            f' class="marram-board" role="group" aria-label="{_attr(label)}" '
            f'data-focus="{focus_box}"',
        )
    )
    out.append(f'<rect width="{_f(width)}" height="{_f(height)}" fill="#fbfaf7"/>')
    out.extend(body)
    out.append(f'<g class="panel" transform="translate({_f(panel_x)} 0) scale({_f(zoom)})">')
    out.extend(panel)
    out.append("</g>")
    out.append("</svg>")
    return "".join(out)


_LEGEND_H = 112.0


def _legend(x: float, y: float, variant: str) -> str:
    """A strip of small samples naming the creature parts, for first-time readers."""
    samples: list[tuple[str, str, str]] = [
        ("b:head:S", "head", "b"),
        ("b:tail:S", "tail", "b"),
        ("o:end:S", "end", "o"),
        ("w:saddle:N-S", "saddle", "w"),
        ("b:mid:N-S", "mid", "b"),
    ]
    parts = [
        f'<g class="legend"><text x="{_f(x)}" y="{_f(y + 12)}" font-size="14" '
        f'font-weight="bold" fill="#343a40">Key</text>'
    ]
    step = 64.0
    for i, (piece, label, _species) in enumerate(samples):
        gx = x + i * step
        gy = y + 20
        parts.append(
            f'<g transform="translate({_f(gx)} {_f(gy)}) scale(0.52)">'
            f'<rect width="100" height="100" rx="8" fill="#f1f3f5"/>'
            f"{_piece_svg(*_parse_piece(piece))}</g>"
        )
        parts.append(
            f'<text x="{_f(gx + 26)}" y="{_f(gy + 66)}" font-size="11" fill="#495057" '
            f'text-anchor="middle">{label}</text>'
        )
    gy = y + 102
    key = [_coin(x + 6, gy - 4, "gold"), _coin(x + 22, gy - 4, "silver")]
    key.append(_flower(x + 78, gy - 4))
    key.append(_shovel(x + 134, gy - 12, 0.9))
    labels = [(x + 32, "coins"), (x + 88, "flower"), (x + 150, "flippable")]
    if variant == "animals":
        key.append(_fly(x + 222, gy - 4))
        key.append(_frog(x + 240, gy - 4))
        labels.append((x + 250, "prey"))
    parts.extend(key)
    for lx, label in labels:
        parts.append(
            f'<text x="{_f(lx)}" y="{_f(gy)}" font-size="11" fill="#495057">{label}</text>'
        )
    parts.append("</g>")
    return "".join(parts)


# ---------------------------------------------------------------------------------------------
# Plain text

_KIND_CHAR = {
    ("o", "end"): "O",
    ("o", "mid"): "o",
    ("b", "head"): "H",
    ("b", "tail"): "T",
    ("b", "mid"): "b",
    ("w", "end"): "W",
    ("w", "mid"): "w",
    ("w", "saddle"): "=",
}
_BEND_CHAR = {
    frozenset(("N", "S")): "│",
    frozenset(("E", "W")): "─",
    frozenset(("N", "E")): "└",
    frozenset(("E", "S")): "┌",
    frozenset(("S", "W")): "┐",
    frozenset(("W", "N")): "┘",
}


def _deco_char(items: list[str]) -> str:
    if not items:
        return " "
    if len(items) > 1:
        return str(min(len(items), 9))
    return {"gold": "$", "silver": "c", "flower": "*"}.get(items[0], "?")


def tile_text(
    desc: Mapping[str, Any],
    rotation: int = 0,
    face: str = "front",
    removed: Iterable[str] = (),
    tokens: Sequence[Mapping[str, Any]] = (),
) -> list[str]:
    """A tile as three lines of five characters.

    ```
    g$O g     corners: terrain (upper case = a claim token stands there)
    T─┘ .     sides: the piece on that spoke (see the key); centre: how two-spoke pieces run
    s * s     between: $ gold, c silver, * flower, a digit for several
    ```
    """
    f = _face(desc, face)
    gone = set(removed)
    q = str(f.get("q", "gggg"))
    grid = [[" "] * 5 for _ in range(3)]
    spot = {"NW": (0, 0), "NE": (0, 4), "SE": (2, 4), "SW": (2, 0)}
    deco_spot = {"NW": (0, 1), "NE": (0, 3), "SE": (2, 3), "SW": (2, 1)}
    spoke_spot = {"N": (0, 2), "E": (1, 4), "S": (2, 2), "W": (1, 0)}
    claimed = {str(t.get("loc")) for t in tokens if t.get("kind") in ("boot", "fork")}
    for i, quad in enumerate(QUADS):
        bq = rotate_quad(quad, rotation)
        r, c = spot[bq]
        letter = q[i] if i < len(q) else "?"
        grid[r][c] = letter.upper() if bq in claimed else letter
    items: dict[str, list[str]] = {quad: [] for quad in QUADS}
    for entry in f.get("coins", []):
        items[rotate_quad(entry[0], rotation)].append(str(entry[1]))
    for quad in f.get("flowers", []):
        items[rotate_quad(quad, rotation)].append("flower")
    for quad, found in items.items():
        r, c = deco_spot[quad]
        grid[r][c] = _deco_char(found)
    for spoke in SPOKES:
        r, c = spoke_spot[spoke]
        grid[r][c] = "."
    bends: list[frozenset[str]] = []
    for text in f.get("pieces", []):
        species, kind, spokes = _parse_piece(text)
        bs = [rotate_spoke(s, rotation) for s in spokes]
        if any(s in gone for s in bs):
            continue
        for s in bs:
            r, c = spoke_spot[s]
            grid[r][c] = _KIND_CHAR.get((species, kind), "?")
        if len(bs) == 2:
            bends.append(frozenset(bs))
    centre = " "
    if len(bends) == 1:
        centre = _BEND_CHAR.get(bends[0], "+")
    elif len(bends) > 1:
        centre = "┼"
    grid[1][2] = centre
    # Connectors between the centre and the E/W sides show whether the piece reaches the middle.
    for bend in bends:
        if "W" in bend:
            grid[1][1] = "─"
        if "E" in bend:
            grid[1][3] = "─"
    return ["".join(row) for row in grid]


def _tokens_text(view: Mapping[str, Any], names: Sequence[str]) -> list[str]:
    lines = []
    for t in view.get("board") or []:
        for token in t.get("tokens") or []:
            who = _who(names, token.get("seat"))
            lines.append(f"  {who}: {token.get('kind')} at {t['x']},{t['y']} {token.get('loc')}")
    return lines


def _prey_text(view: Mapping[str, Any]) -> list[str]:
    """Prey still on the board, in board orientation (the text blocks have no room for them)."""
    out = []
    for t in view.get("board") or []:
        rotation = int(t.get("rotation") or 0)
        f = _face(_tile_desc(view, t.get("tile")), str(t.get("face") or "front"))
        gone = set(t.get("removed") or [])
        for spoke, animal in f.get("prey", []):
            board_spoke = rotate_spoke(str(spoke), rotation)
            if board_spoke not in gone:
                out.append(f"{animal} at {t['x']},{t['y']} {board_spoke}")
    return out


# Why a game ended, for the text board (words.describe_outcome says it whole, from the state).
ENDED_WORDS = {
    "threshold": "the threshold was reached",
    "tiles-out": "the tiles ran out",
    "no-action": "nobody could act",
    "others-left": "the others left",
}


def render_text(view: Mapping[str, Any], names: Sequence[str] | None = None) -> str:
    """The board, scores and the viewer's hand for a terminal (`names` as for `render_svg`)."""
    variant = str(view.get("variant") or "classic")
    names = _player_names(view, names)
    board = [t for t in view.get("board") or [] if isinstance(t, Mapping)]
    by_pos = {(int(t["x"]), int(t["y"])): t for t in board}
    laid = set(by_pos)
    frontier = _frontier(laid) if view.get("outcome") is None else set()
    cells = laid | frontier or {(0, 0)}
    min_x = min(p[0] for p in cells)
    max_x = max(p[0] for p in cells)
    min_y = min(p[1] for p in cells)
    max_y = max(p[1] for p in cells)
    lines: list[str] = []
    title = f"Marram {VARIANT_TITLE.get(variant, variant)}"
    if view.get("length"):
        title += f", {view.get('length')} game"
    if view.get("threshold"):
        title += f" to {view.get('threshold')}"
    lines.append(title)
    label_w = 5
    header = " " * label_w + "".join(f"{x:^5} " for x in range(min_x, max_x + 1))
    lines.append(header.rstrip())
    for y in range(max_y, min_y - 1, -1):
        rows = ["", "", ""]
        for x in range(min_x, max_x + 1):
            t = by_pos.get((x, y))
            if t is not None:
                block = tile_text(
                    _tile_desc(view, t.get("tile")),
                    int(t.get("rotation") or 0),
                    str(t.get("face") or "front"),
                    [str(s) for s in t.get("removed") or []],
                    [k for k in t.get("tokens") or [] if isinstance(k, Mapping)],
                )
            elif (x, y) in frontier:
                block = ["     ", "  ·  ", "     "]
            else:
                block = ["     "] * 3
            for i in range(3):
                rows[i] += block[i] + " "
        lines.append(" " * label_w + rows[0].rstrip())
        lines.append(f"{y:>3}  " + rows[1].rstrip())
        lines.append(" " * label_w + rows[2].rstrip())
    if variant == "animals":
        prey = _prey_text(view)
        if prey:
            lines.append("Prey: " + "; ".join(prey))
    tokens = _tokens_text(view, names)
    if tokens:
        lines.append("Tokens:")
        lines.extend(tokens)
    lines.append("")
    scores = list(view.get("scores") or [])
    supplies = list(view.get("supplies") or [])
    sizes = list(view.get("hand_sizes") or [])
    to_move = view.get("to_move")
    left = _dropped(view)
    for seat, name in enumerate(names):
        sup = supplies[seat] if seat < len(supplies) else {}
        mark = ">" if seat == to_move else " "
        if seat in left:
            score = scores[seat] if seat < len(scores) else 0
            lines.append(f"{mark} {name:<12} {score:>4}   left the game")
            continue
        bits = [f"boots {sup.get('boots', 0)}"]
        if variant != "classic":
            bits.append(f"forks {sup.get('forks', 0)}")
        bits.append(f"shovels {sup.get('shovels', 0)}")
        if variant == "animals":
            bits.append(f"bets {sup.get('bets', 0)}")
        bits.append(f"hand {sizes[seat] if seat < len(sizes) else 0}")
        score = scores[seat] if seat < len(scores) else 0
        lines.append(f"{mark} {name:<12} {score:>4}   {', '.join(bits)}")
    status = f"Bag {view.get('bag', 0)}"
    discarded = view.get("discarded") or []
    if discarded:
        status += f", discarded {', '.join(str(t) for t in discarded)}"
    outcome = view.get("outcome")
    settled = _settled_words(outcome, names)
    if settled is not None:
        status += f". Game over: {settled}."
    elif isinstance(outcome, Mapping):
        winners = [int(w) for w in outcome.get("winners") or []]
        who = " and ".join(_who(names, w) for w in winners) or "nobody"
        why = ENDED_WORDS.get(str(outcome.get("reason")), "")
        status += f". Game over{': ' + why if why else ''}; {who} won."
    elif isinstance(to_move, int):
        acts = words.plural(int(view.get("actions_left") or 0), "action")
        status += f". {_who(names, to_move)} to move, {acts} left."
    lines.append(status)
    for turn in marked_turns(view):
        for index, ply in enumerate(turn.plies):
            said = fill_names(action_words(view, ply), names)
            lines.append(f"[{_turn_label(turn, index)}] {said}")
    lines.extend(describe_event(e, names) for e in _departures(view))
    hand = view.get("hand")
    if isinstance(hand, Sequence) and not isinstance(hand, str):
        lines.append("Your hand:" if hand else "Your hand is empty.")
        if hand:
            blocks = [tile_text(_tile_desc(view, tid)) for tid in hand]
            marks = [f"{tid!s}{' ^' if _tile_desc(view, tid).get('back') else ''}" for tid in hand]
            lines.append("  " + "".join(f"{m:<9}" for m in marks).rstrip())
            for i in range(3):
                lines.append("  " + "".join(f"{b[i]:<9}" for b in blocks).rstrip())
    lines.append(
        "Key: O/W end, H head, T tail, o/b/w mid, = saddle; $ gold, c silver, * flower, "
        "^ shovel; G/S claimed quadrant."
    )
    return "\n".join(lines) + "\n"


# ---------------------------------------------------------------------------------------------
# The mail drawing: the board as a phone shows it in a turn email (pbem.pictures makes the PNG).

M_TILE_MAX = 64.0  # a tile's side in the mail drawing, at most
M_BOARD_H = 600.0  # the board's height in the mail drawing, at most
M_AXIS = 20.0  # room for the coordinates above and left of the board
M_MARGIN = 8.0
M_GRID = "#a99c7c"
M_LINE = 0.6  # half the width of the grid's lines


def _mail_piece(
    species: str, kind: str, spokes: list[str], ox: float, oy: float, k: float
) -> tuple[str, str]:
    """A creature piece in board coordinates: (bucket, path data). Buckets: "run" for two-spoke
    pieces (butt ends), "end" for rounded ends and heads' necks, "tail", "head", "saddle"."""

    def p(x: float, y: float) -> str:
        return f"{d.fmt(ox + x * k)} {d.fmt(oy + y * k)}"

    if len(spokes) >= 2:
        a, b = spokes[0], spokes[1]
        ax, ay = _spoke_point(a, 0)
        bx, by = _spoke_point(b, 0)
        if _DIR[a][0] == -_DIR[b][0] and _DIR[a][1] == -_DIR[b][1]:
            return "run", f"M{p(ax, ay)} L{p(bx, by)}"
        return "run", f"M{p(ax, ay)} Q{p(C, C)} {p(bx, by)}"
    spoke = spokes[0]
    dx, dy = _DIR[spoke]
    half = BODY / 2
    if kind == "tail":
        px, py = -dy, dx
        sx, sy = _spoke_point(spoke, 0)
        tx, ty = _spoke_point(spoke, 42)
        return "tail", d.polygon_d(
            [
                (ox + (sx + px * half) * k, oy + (sy + py * half) * k),
                (ox + tx * k, oy + ty * k),
                (ox + (sx - px * half) * k, oy + (sy - py * half) * k),
            ]
        )
    # An end or a head's neck: from just inside the side (the round cap reaches the side) to
    # short of the centre, so two ends on one tile never look joined.
    sx, sy = _spoke_point(spoke, half)
    tx, ty = _spoke_point(spoke, 30 if kind == "head" else 33)
    return "end", f"M{p(sx, sy)} L{p(tx, ty)}"


def render_mail_svg(
    view: Mapping[str, Any], names: Sequence[str] | None = None, last_turn: bool = True
) -> str:
    """The board of `view` for a turn email: the seats' names, boots and scores above; every laid
    tile with its terrain, creatures, coins, flowers, prey and tokens; the coordinates moves are
    typed in; and, when `last_turn`, the tiles laid or flipped in each other seat's last turn
    (and the reader's own when nobody has moved since) outlined in the seat's colour
    (`class="last-move"`) with a badge of its letter and the action's number. Drawn to cost
    little as a PNG: no hand, frontier, tile numbers, textures, hover titles, log or key."""
    width = float(d.MAIL_WIDTH)
    variant = str(view.get("variant") or "classic")
    names = _player_names(view, names)
    seats = len(names)
    limit = d.name_limit(seats)
    shown = [n if len(n) <= limit else n[: limit - 1] + "…" for n in names]
    outcome = view.get("outcome")
    to_move = view.get("to_move")
    scores = list(view.get("scores") or [0] * seats)
    left_game = _dropped(view)
    winners: set[int] = set()
    if isinstance(outcome, Mapping):
        winners = {int(w) for w in outcome.get("winners") or []}
        settled = _settled_words(outcome, shown)
        status = (
            settled
            if settled is not None
            else "Game over: " + " and ".join(shown[w] for w in sorted(winners)) + " won"
            if winners
            else "Game over: no winner"
        )
        status_fill = "#212529"
    elif isinstance(to_move, int):
        n = int(view.get("actions_left") or 0)
        status = f"{shown[to_move]} to move, {n} action{'s' if n != 1 else ''}"
        status_fill = "#212529"
    else:
        status, status_fill = "", "#212529"
    lines = [
        d.SeatLine(
            chip=_mail_chip(seat),
            name=shown[seat] + (" (left)" if seat in left_game else ""),
            score=str(scores[seat] if seat < len(scores) else 0),
            to_move=not outcome and seat == to_move,
            you=view.get("seat") == seat,
            won=seat in winners,
        )
        for seat in range(seats)
    ]
    plies = len(view.get("history") or [])
    band, top = d.header(width, status, status_fill, lines, d.after_moves(plies))

    board = [t for t in view.get("board") or [] if isinstance(t, Mapping)]
    laid = {(int(t["x"]), int(t["y"])) for t in board} or {(0, 0)}
    min_x = min(p[0] for p in laid)
    max_x = max(p[0] for p in laid)
    min_y = min(p[1] for p in laid)
    max_y = max(p[1] for p in laid)
    cols, rows = max_x - min_x + 1, max_y - min_y + 1
    room = width - 2 * M_MARGIN - M_AXIS
    tile = min(M_TILE_MAX, room / cols, M_BOARD_H / rows)
    k = tile / T
    x0 = M_MARGIN + M_AXIS + (room - cols * tile) / 2
    y0 = top + M_AXIS + 4
    height = y0 + rows * tile + M_MARGIN

    def origin(x: int, y: int) -> tuple[float, float]:
        return x0 + (x - min_x) * tile, y0 + (max_y - y) * tile

    out = [d.svg_open(width, height, "marram-board")]
    out.append(f'<rect width="{d.fmt(width)}" height="{d.fmt(height)}" fill="#fbfaf7"/>')
    out.extend(band)
    # Coordinates, drawn as strokes in one path (text is dear): every column and row, or every
    # other when tiles are small.
    step = 1 if tile >= 26 else 2
    labels = [
        d.number_path(x, x0 + (x - min_x + 0.5) * tile, y0 - 10, 10)
        for x in range(min_x, max_x + 1, step)
    ] + [
        d.number_path(y, x0 - 6, y0 + (max_y - y + 0.5) * tile, 10, anchor="end")
        for y in range(max_y, min_y - 1, -step)
    ]
    out.append(
        f'<path class="axes" d="{" ".join(labels)}" fill="none" stroke="#6c757d" '
        f'stroke-width="1.5" stroke-linecap="round" stroke-linejoin="round"/>'
    )

    sand: list[str] = []
    grass: list[str] = []
    frames: list[str] = []
    runs: dict[str, list[str]] = {}
    ends: dict[str, list[str]] = {}
    tails: dict[str, list[str]] = {}
    heads: dict[str, list[str]] = {}
    saddles: list[str] = []
    coins: dict[str, list[str]] = {"gold": [], "silver": []}
    flowers: list[str] = []
    prey: dict[str, list[str]] = {"fly": [], "frog": []}
    tokens: list[str] = []
    dot = max(2.2, 5.5 * k)
    for t in board:
        x, y = int(t["x"]), int(t["y"])
        ox, oy = origin(x, y)
        rotation = int(t.get("rotation") or 0)
        f = _face(_tile_desc(view, t.get("tile")), str(t.get("face") or "front"))
        gone = {str(s) for s in t.get("removed") or []}
        # The grid shows as the frame colour under terrain inset by a line's width.
        frames.append(d.rect_d(ox, oy, tile, tile))
        sand.append(d.rect_d(ox + M_LINE, oy + M_LINE, tile - 2 * M_LINE, tile - 2 * M_LINE))
        q = str(f.get("q", "gggg"))
        for i, quad in enumerate(QUADS):
            if (q[i] if i < len(q) else "g") == "g":
                qx, qy = _QRECT[rotate_quad(quad, rotation)]
                gx0 = max(ox + qx * k, ox + M_LINE)
                gy0 = max(oy + qy * k, oy + M_LINE)
                gx1 = min(ox + (qx + C) * k, ox + tile - M_LINE)
                gy1 = min(oy + (qy + C) * k, oy + tile - M_LINE)
                grass.append(d.rect_d(gx0, gy0, gx1 - gx0, gy1 - gy0))
        carried: set[str] = set()
        for text in f.get("pieces", []):
            species, kind, spokes = _parse_piece(text)
            board_spokes = sorted((rotate_spoke(s, rotation) for s in spokes), key=SPOKES.index)
            if species not in SPECIES or not board_spokes or any(s in gone for s in board_spokes):
                continue
            carried.update(board_spokes)
            bucket, path = _mail_piece(species, kind, board_spokes, ox, oy, k)
            {"run": runs, "end": ends, "tail": tails}[bucket].setdefault(species, []).append(path)
            if kind == "head":
                hx, hy = _spoke_point(board_spokes[0], 32)
                heads.setdefault(species, []).append(d.circle_d(ox + hx * k, oy + hy * k, 11 * k))
            if kind == "saddle" and len(board_spokes) >= 2:
                _, (mx, my), (tx, ty) = _path_for(board_spokes[:2])
                length = math.hypot(tx, ty) or 1.0
                ux, uy = tx / length, ty / length
                a, b = 7.0, BODY / 2 + 3
                saddles.append(
                    d.polygon_d(
                        [
                            (ox + (mx + ux * a + uy * b) * k, oy + (my + uy * a - ux * b) * k),
                            (ox + (mx + ux * a - uy * b) * k, oy + (my + uy * a + ux * b) * k),
                            (ox + (mx - ux * a - uy * b) * k, oy + (my - uy * a + ux * b) * k),
                            (ox + (mx - ux * a + uy * b) * k, oy + (my - uy * a - ux * b) * k),
                        ]
                    )
                )
        per_quad: dict[str, list[str]] = {quad: [] for quad in QUADS}
        for entry in f.get("coins", []):
            if entry[0] in QUADS:
                per_quad[rotate_quad(entry[0], rotation)].append(str(entry[1]))
        for quad in f.get("flowers", []):
            if quad in QUADS:
                per_quad[rotate_quad(quad, rotation)].append("flower")
        for quad, items in per_quad.items():
            items.sort(key=lambda item: {"gold": 0, "silver": 1}.get(item, 2))
            for (cx, cy), item in zip(_deco_slots(quad), items, strict=False):
                shape = d.dot_d(ox + cx * k, oy + cy * k, dot)
                (flowers if item == "flower" else coins.setdefault(item, [])).append(shape)
        if variant == "animals":
            for entry in f.get("prey", []):
                spoke = rotate_spoke(str(entry[0]), rotation)
                if spoke in carried and str(entry[1]) in prey:
                    px, py = _spoke_point(spoke, 13)
                    prey[str(entry[1])].append(d.dot_d(ox + px * k, oy + py * k, dot + 0.8))
        claims: dict[str, int] = {}
        for token in t.get("tokens") or []:
            if not isinstance(token, Mapping):
                continue
            kind, loc = str(token.get("kind")), str(token.get("loc"))
            seat = int(token.get("seat", 0))
            if kind not in _TOKEN_GLYPH or (loc not in _DIR and loc not in _CORNER):
                continue
            index = claims.get(loc, 0)
            claims[loc] = index + 1
            if kind == "bet" and loc in _DIR:
                tx, ty = _bet_point(loc, index)
            else:
                tx, ty = _token_point(loc, index)
            tx, ty = ox + tx * k, oy + ty * k
            if kind == "bet":
                glyph = bet_mark(tx, ty, seat, max(12.0, 16.0 * k * 1.2))
            elif kind == "fork":
                glyph = fork_glyph(tx, ty, seat, max(13.0, 22.0 * k * 1.2), mark=False)
            else:
                glyph = boot_glyph(tx, ty, seat, max(13.0, 22.0 * k * 1.2), mark=False)
            tokens.append(glyph)

    out.append(f'<path class="frames" d="{" ".join(frames)}" fill="{M_GRID}"/>')
    out.append(f'<path class="tiles" d="{" ".join(sand)}" fill="{TERRAIN["s"]}"/>')
    if grass:
        out.append(f'<path class="grass" d="{" ".join(grass)}" fill="{TERRAIN["g"]}"/>')
    for species in SPECIES:
        body, edge, _ = SPECIES[species]
        outline = (BODY + 3) * k
        inner = BODY * k
        strokes = [(runs.get(species), "butt"), (ends.get(species), "round")]
        for shapes, cap in strokes:
            if shapes:
                out.append(
                    f'<path d="{" ".join(shapes)}" fill="none" stroke="{edge}" '
                    f'stroke-width="{d.fmt(outline)}" stroke-linecap="{cap}"/>'
                )
        for shapes, cap in strokes:
            if shapes:
                out.append(
                    f'<path class="creature {species}" d="{" ".join(shapes)}" '
                    f'fill="none" stroke="{body}" stroke-width="{d.fmt(inner)}" '
                    f'stroke-linecap="{cap}"/>'
                )
        for shapes in (tails.get(species), heads.get(species)):
            if shapes:
                out.append(
                    f'<path d="{" ".join(shapes)}" fill="{body}" stroke="{edge}" '
                    f'stroke-width="{d.fmt(max(1.0, 1.5 * k))}" stroke-linejoin="round"/>'
                )
    if saddles:
        out.append(f'<path d="{" ".join(saddles)}" fill="#a8566a" stroke="#6e4034"/>')
    # Dots without outlines (an outline would double their cost), dark enough to show on both
    # terrains.
    looks = (
        (coins.get("gold"), "#e0a400", "gold"),
        (coins.get("silver"), "#868e96", "silver"),
        (flowers, "#d6336c", "flowers"),
        (prey["fly"], "#212529", "flies"),
        (prey["frog"], "#1b6e2e", "frogs"),
    )
    for shapes, fill, css in looks:
        if shapes:
            out.append(f'<path class="{css}" d="{" ".join(shapes)}" fill="{fill}"/>')
    out.extend(tokens)
    if last_turn:
        out.extend(_mail_marks(view, laid, origin, tile))
    out.append("</svg>")
    return "".join(out)


def _mail_marks(
    view: Mapping[str, Any],
    laid: set[tuple[int, int]],
    origin: Callable[[int, int], tuple[float, float]],
    tile: float,
) -> list[str]:
    """The page's last-turn marks, for mail: each tile a marked turn laid or flipped outlined in
    the seat's colour (`class="last-move"`) with a badge of its letter and the action's number,
    drawn as strokes."""
    out: list[str] = []
    slots: dict[tuple[int, int], int] = {}
    for turn in marked_turns(view):
        seat = turn.seat
        for index, pos, slot in _placed_actions(view, turn, laid, slots):
            ox, oy = origin(*pos)
            inset = 2.0 + 4.0 * slot
            side = tile - 2 * inset
            label = _turn_label(turn, index)
            box = d.rect_d(ox + inset, oy + inset, side, side)
            bx, by = (ox + tile - 13, oy + 9) if slot % 2 == 0 else (ox + 13, oy + tile - 9)
            out.append(
                f'<path class="last-move" data-pos="{pos[0]},{pos[1]}" data-seat="{seat}" '
                f'data-label="{label}" d="{box}" fill="none" stroke="{_seat_outline(seat)}" '
                f'stroke-width="4.5"/><path d="{box}" fill="none" '
                f'stroke="{_seat_colour(seat)}" stroke-width="2.5"/>'
                + d.mail_badge(bx, by, label, _seat_colour(seat), _seat_outline(seat), 8)
            )
    return out


def _mail_chip(seat: int) -> str:
    """A seat's boot in the mail header, its letter drawn on the leg as strokes."""
    letter = d.label_path(seat_letter(seat), -2.5 * 24 / 22, -1.5, 7.5)
    return boot_glyph(0, 0, seat, size=24, mark=False) + (
        f'<path d="{letter}" fill="none" stroke="{_seat_ink(seat)}" stroke-width="1.5" '
        f'stroke-linecap="round" stroke-linejoin="round"/>'
    )


def bet_mark(x: float, y: float, seat: int, size: float = 16.0) -> str:
    """A betting chip for the mail drawing: the page's chip without its "$" (text is dear)."""
    s = size / 16.0
    return (
        f'<g class="token token-bet seat-{seat}" data-seat="{seat}" '
        f'transform="translate({_f(x)} {_f(y)}) scale({_f(s)})">'
        f'<circle r="7.5" fill="{_seat_colour(seat)}" stroke="{_seat_outline(seat)}" '
        f'stroke-width="1.4"/>'
        f'<circle r="4.4" fill="none" stroke="{_seat_outline(seat)}" stroke-width="1.8" '
        f'stroke-dasharray="2.2 1.9"/></g>'
    )
