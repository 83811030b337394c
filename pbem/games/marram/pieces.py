"""Marram's creature pieces: one piece on a tile, for the page, and as path data for mail."""

from __future__ import annotations

import math
from html import escape

from pbem.games import drawing as d
from pbem.games.drawing import attr
from pbem.games.drawing import fine as _f
from pbem.games.marram.geometry import BODY, DIR, C, spoke_point, straight
from pbem.games.marram.palette import SADDLE, SPECIES
from pbem.games.marram.words import species_name
from pbem.games.messages import ENGLISH, N_, Language


def path_for(spokes: list[str]) -> tuple[str, tuple[float, float], tuple[float, float]]:
    """Path of a two-spoke piece, with its midpoint and the tangent there."""
    a, b = spokes[0], spokes[1]
    ax, ay = spoke_point(a, 0)
    bx, by = spoke_point(b, 0)
    if straight(a, b):
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


def _pattern(species: str, path: str) -> str:
    """Body markings: worm rings, orange snake stripe, blue snake scales."""
    _, _, mark = SPECIES[species]
    if species == "w":
        return (
            f'<path d="{path}" fill="none" stroke="{mark}" stroke-width="{_f(BODY - 1)}" '
            f'stroke-dasharray="1.4 5.2"/>'
        )
    if species == "o":
        return (
            f'<path d="{path}" fill="none" stroke="{mark}" stroke-width="3.2" '
            f'stroke-dasharray="7 4" stroke-linecap="round"/>'
        )
    return (
        f'<path d="{path}" fill="none" stroke="{mark}" stroke-width="{_f(BODY - 7)}" '
        f'stroke-dasharray="3 3"/>'
    )


def _two_spoke_piece(species: str, kind: str, spokes: list[str]) -> str:
    body, edge, _ = SPECIES[species]
    path, (mx, my), (tx, ty) = path_for(spokes)
    parts = [
        f'<path d="{path}" fill="none" stroke="{edge}" stroke-width="{_f(BODY + 3)}"/>',
        f'<path d="{path}" fill="none" stroke="{body}" stroke-width="{_f(BODY)}"/>',
        _pattern(species, path),
    ]
    if kind == "saddle":
        angle = math.degrees(math.atan2(ty, tx))
        parts.append(
            f'<rect x="{_f(mx - 8)}" y="{_f(my - BODY / 2 - 2.5)}" width="16" '
            f'height="{_f(BODY + 5)}" rx="4" fill="{SADDLE}" stroke="{edge}" stroke-width="1.5" '
            f'transform="rotate({_f(angle)} {_f(mx)} {_f(my)})"/>'
        )
    return "".join(parts)


def _one_spoke_piece(species: str, kind: str, spoke: str) -> str:
    body, edge, _ = SPECIES[species]
    dx, dy = DIR[spoke]
    px, py = -dy, dx  # perpendicular
    sx, sy = spoke_point(spoke, 0)
    half = BODY / 2

    def at(dist: float, off: float) -> str:
        x, y = spoke_point(spoke, dist)
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
        hx, hy = spoke_point(spoke, 32)
        angle = math.degrees(math.atan2(dy, dx))
        eyes = []
        for side in (1, -1):
            ex, ey = spoke_point(spoke, 35)
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
    cx, cy = spoke_point(spoke, tip)
    return (
        f'<path d="{line}" fill="none" stroke="{edge}" stroke-width="{_f(BODY + 3)}"/>'
        f'<circle cx="{_f(cx)}" cy="{_f(cy)}" r="{_f(half + 1.5)}" fill="{edge}"/>'
        f'<path d="{line}" fill="none" stroke="{body}" stroke-width="{_f(BODY)}"/>'
        f'<circle cx="{_f(cx)}" cy="{_f(cy)}" r="{_f(half)}" fill="{body}"/>'
        + _pattern(species, f"M{_f(sx)} {_f(sy)} L{at(tip - 2, 0)}")
    )


# A piece's part, as the drawing's key names it.
PART_NAMES = {
    "head": N_("head"),
    "tail": N_("tail"),
    "end": N_("end"),
    "saddle": N_("saddle"),
    "mid": N_("mid"),
}


def piece_svg(species: str, kind: str, spokes: list[str], lang: Language = ENGLISH) -> str:
    if species not in SPECIES or not spokes or any(s not in DIR for s in spokes):
        return ""
    part = lang(PART_NAMES[kind]) if kind in PART_NAMES else kind
    creature = species_name(species, lang)
    title = lang(
        "%(creature)s %(part)s (%(spokes)s)", creature=creature, part=part, spokes="-".join(spokes)
    )
    if len(spokes) >= 2:
        inner = _two_spoke_piece(species, kind, spokes[:2])
    else:
        inner = _one_spoke_piece(species, kind, spokes[0])
    return (
        f'<g class="piece piece-{attr(species)} piece-{attr(kind)}" '
        f'data-piece="{attr(species)}:{attr(kind)}:{"-".join(spokes)}">'
        f"<title>{escape(title)}</title>{inner}</g>"
    )


def mail_piece(
    species: str, kind: str, spokes: list[str], ox: float, oy: float, k: float
) -> tuple[str, str]:
    """A creature piece in board coordinates: (bucket, path data). Buckets: "run" for two-spoke
    pieces (butt ends), "end" for rounded ends and heads' necks, "tail", "head", "saddle"."""

    def p(x: float, y: float) -> str:
        return f"{d.fmt(ox + x * k)} {d.fmt(oy + y * k)}"

    if len(spokes) >= 2:
        a, b = spokes[0], spokes[1]
        ax, ay = spoke_point(a, 0)
        bx, by = spoke_point(b, 0)
        if straight(a, b):
            return "run", f"M{p(ax, ay)} L{p(bx, by)}"
        return "run", f"M{p(ax, ay)} Q{p(C, C)} {p(bx, by)}"
    spoke = spokes[0]
    dx, dy = DIR[spoke]
    half = BODY / 2
    if kind == "tail":
        px, py = -dy, dx
        sx, sy = spoke_point(spoke, 0)
        tx, ty = spoke_point(spoke, 42)
        return "tail", d.polygon_d(
            [
                (ox + (sx + px * half) * k, oy + (sy + py * half) * k),
                (ox + tx * k, oy + ty * k),
                (ox + (sx - px * half) * k, oy + (sy - py * half) * k),
            ]
        )
    # An end or a head's neck: from just inside the side (the round cap reaches the side) to
    # short of the centre, so two ends on one tile never look joined.
    sx, sy = spoke_point(spoke, half)
    tx, ty = spoke_point(spoke, 30 if kind == "head" else 33)
    return "end", f"M{p(sx, sy)} L{p(tx, ty)}"


def mail_saddle(spokes: list[str], ox: float, oy: float, k: float) -> str:
    """Path data for a saddle across a two-spoke piece, in board coordinates."""
    _, (mx, my), (tx, ty) = path_for(spokes[:2])
    length = math.hypot(tx, ty) or 1.0
    ux, uy = tx / length, ty / length
    a, b = 7.0, BODY / 2 + 3
    return d.polygon_d(
        [
            (ox + (mx + ux * a + uy * b) * k, oy + (my + uy * a - ux * b) * k),
            (ox + (mx + ux * a - uy * b) * k, oy + (my + uy * a + ux * b) * k),
            (ox + (mx - ux * a - uy * b) * k, oy + (my - uy * a + ux * b) * k),
            (ox + (mx - ux * a + uy * b) * k, oy + (my - uy * a - ux * b) * k),
        ]
    )
