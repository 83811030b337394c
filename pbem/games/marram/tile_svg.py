"""One Marram tile as SVG, with its tokens: for the board, the hand, previews and the tile sheet."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from html import escape
from typing import Any

from pbem.games.drawing import attr
from pbem.games.drawing import fine as _f
from pbem.games.marram import words
from pbem.games.marram.geometry import (
    BODY,
    CORNER,
    QRECT,
    QUADS,
    SPOKES,
    C,
    T,
    board_pieces,
    board_prey,
    deco_slots,
    decorations,
    face_of,
    placed_tokens,
    rotate_quad,
    spoke_point,
)
from pbem.games.marram.glyphs import TOKEN_GLYPH, coin, flower, fly, frog, shovel
from pbem.games.marram.palette import TERRAIN, TERRAIN_EDGE
from pbem.games.marram.pieces import piece_svg
from pbem.games.marram.seats import player_names, who
from pbem.games.messages import ENGLISH, N_, Language, Listing, Message


def _ground(q: str, rotation: int, name_locs: bool, lang: Language) -> list[str]:
    """The four quadrants' terrain, with a soft texture (grass blades, sand ripples) that makes
    the two terrains readable without colour."""
    terrain: dict[str, str] = {}
    for i, quad in enumerate(QUADS):
        terrain[rotate_quad(quad, rotation)] = q[i] if i < len(q) else "g"
    # crispEdges on the quadrants' group, not on each: inherited, and said once.
    parts = ['<g class="quads" shape-rendering="crispEdges">']
    for quad in QUADS:
        t = terrain[quad]
        qx, qy = QRECT[quad]
        name = "grass" if t == "g" else "sand"
        label = ""
        if name_locs:
            ground = lang(words.GROUND_NAMES[t])
            said = lang("%(quadrant)s quadrant, %(ground)s", quadrant=quad, ground=ground)
            label = f' data-name="{attr(said)}"'
        parts.append(
            f'<rect class="quad {name}" data-loc="{quad}"{label} x="{_f(qx)}" y="{_f(qy)}" '
            f'width="{_f(C)}" height="{_f(C)}" fill="{TERRAIN.get(t, "#ccc")}"/>'
        )
    parts.append("</g>")
    # One path per terrain, its strokes as subpaths: a board of forty tiles draws hundreds of
    # them, and a phone lays out each element of the page.
    blades: list[str] = []
    ripples: list[str] = []
    for quad in QUADS:
        ox, oy, sx, sy = CORNER[quad]
        if terrain[quad] == "g":
            for a, b in ((9, 41), (41, 8), (40, 40)):
                bx, by = ox + sx * a, oy + sy * b
                blades.append(
                    f"M{_f(bx - 2)} {_f(by + 2)} L{_f(bx)} {_f(by - 3)} L{_f(bx + 2)} {_f(by + 2)}"
                )
        else:
            for a, b in ((8, 41), (40, 8)):
                bx, by = ox + sx * a, oy + sy * b
                ripples.append(f"M{_f(bx - 3.5)} {_f(by)} q1.75 -2 3.5 0 t3.5 0")
    if blades:
        parts.append(
            f'<path d="{" ".join(blades)}" fill="none" stroke="{TERRAIN_EDGE["g"]}" '
            f'stroke-width="1" stroke-linecap="round"/>'
        )
    if ripples:
        parts.append(
            f'<path d="{" ".join(ripples)}" fill="none" stroke="{TERRAIN_EDGE["s"]}" '
            f'stroke-width="1"/>'
        )
    return parts


def _decorations(f: Mapping[str, Any], rotation: int) -> list[str]:
    parts = []
    for quad, items in decorations(f, rotation).items():
        slots = deco_slots(quad)
        for i, item in enumerate(items):
            if i < len(slots):
                cx, cy = slots[i]
            else:  # More than the slots hold: fan them out along the outer edge.
                ox, oy, sx, sy = CORNER[quad]
                cx, cy = ox + sx * (8 + 7 * (i - 4)), oy + sy * 8
            parts.append(flower(cx, cy) if item == "flower" else coin(cx, cy, item))
    return parts


def _prey(
    f: Mapping[str, Any], rotation: int, carried: Mapping[str, str], lang: Language
) -> list[str]:
    parts = []
    for spoke, animal in board_prey(f, rotation, carried):
        px, py = spoke_point(spoke, 13)
        glyph = frog(px, py) if animal == "frog" else fly(px, py)
        prey = words.prey_name(animal, lang)
        said = lang("%(prey)s on %(spoke)s", prey=prey, spoke=spoke)
        parts.append(f'<g data-prey="{spoke}"><title>{escape(said)}</title>{glyph}</g>')
    return parts


def _frame(
    desc: Mapping[str, Any], face: str, tile_id: int | str | None, lang: Language
) -> list[str]:
    """The tile's edge, its shovel (it can be flipped) or flipped corner, and its number."""
    parts = [
        f'<rect x="0.5" y="0.5" width="{_f(T - 1)}" height="{_f(T - 1)}" fill="none" '
        f'stroke="#00000040" stroke-width="1"/>'
    ]
    if face != "back" and isinstance(desc.get("back"), Mapping):
        parts.append(shovel(T - 14, T - 16, lang=lang))
    if face == "back":
        flipped = escape(lang("flipped (back face)"))
        parts.append(
            f'<path d="M{_f(T - 12)} {_f(T - 3)} L{_f(T - 3)} {_f(T - 12)} L{_f(T - 3)} '
            f'{_f(T - 3)} Z" fill="#495057" opacity="0.55"><title>{flipped}</title></path>'
        )
    if tile_id is not None:
        label = escape(str(tile_id))
        # The halo is a copy drawn first (not `paint-order`, which HTML does not allow on SVG).
        # The font is the drawing's own (svg_open), inherited.
        text = 'x="2.5" y="9.5" font-size="9"'
        parts.append(
            f'<text {text} fill="#ffffff" stroke="#ffffff" stroke-width="2.4" '
            f'aria-hidden="true">{label}</text>'
            f'<text class="tile-id" {text} fill="#212529">{label}</text>'
        )
    return parts


def _hit_areas(carried: Mapping[str, str], name_locs: bool, lang: Language) -> list[str]:
    """Areas for click-to-move on the spokes that carry a piece (quadrants have their rects)."""
    parts = []
    for spoke in SPOKES:
        if spoke in carried:
            ax, ay = spoke_point(spoke, 0)
            bx, by = spoke_point(spoke, 40)
            x0, x1 = sorted((ax, bx))
            y0, y1 = sorted((ay, by))
            w = max(x1 - x0, BODY + 4)
            h = max(y1 - y0, BODY + 4)
            label = ""
            if name_locs:
                what = words.species_name(carried[spoke], lang)
                said = lang("%(spoke)s spoke, %(creature)s", spoke=spoke, creature=what)
                label = f' data-name="{attr(said)}"'
            parts.append(
                f'<rect class="spoke" data-loc="{spoke}"{label} x="{_f((x0 + x1 - w) / 2)}" '
                f'y="{_f((y0 + y1 - h) / 2)}" width="{_f(w)}" height="{_f(h)}" '
                f'fill="transparent"/>'
            )
    return parts


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
    lang: Language = ENGLISH,
) -> str:
    """An SVG `<g>` drawing one tile with its top-left corner at (x, y).

    Locations (quadrants, spokes, `removed`, token locations) are in board orientation; `desc` is a
    rules 1.5 description, shown on its `face` turned `rotation` degrees clockwise. With
    `name_locs` each quadrant and creature-carrying spoke has its accessible name in data-name
    ("NW quadrant, sand"; "E spoke, blue snake"), for the previews the page clicks in. `title`
    becomes the group's first child, its name on hover and for screen readers. Its words are in
    `lang`.
    """
    f = face_of(desc, face)
    transform = f"translate({_f(x)} {_f(y)})" + (f" scale({_f(scale)})" if scale != 1 else "")
    parts = [f'<g class="tile" transform="{transform}"{attrs}>']
    if title:
        parts.append(f"<title>{escape(title)}</title>")
    parts.extend(_ground(str(f.get("q", "gggg")), rotation, name_locs, lang))
    pieces = board_pieces(f, rotation, set(removed))
    carried = {spoke: species for species, _, spokes in pieces for spoke in spokes}
    # Mids first so heads and caps sit on top where bodies come close.
    pieces.sort(key=lambda p: len(p[2]) < 2)
    parts.extend(piece_svg(*piece, lang=lang) for piece in pieces)
    parts.extend(_decorations(f, rotation))
    if show_prey:
        parts.extend(_prey(f, rotation, carried, lang))
    parts.extend(_frame(desc, face, tile_id, lang))
    for kind, _, seat, tx, ty in placed_tokens(tokens, TOKEN_GLYPH):
        parts.append(TOKEN_GLYPH[kind](tx, ty, seat))
    parts.extend(_hit_areas(carried, name_locs, lang))
    parts.append("</g>")
    return "".join(parts)


def previews(
    view: Mapping[str, Any], legal: Iterable[str], lang: Language = ENGLISH
) -> dict[str, str]:
    """Each tile the viewer may lay or flip, drawn in every legal rotation (key face:tile:rotation).

    The game page shows the chosen one in place; quadrant and spoke hit areas are drawn in board
    orientation, so the same drawing offers the boot, fork and bet locations. The hand's tiles are
    also drawn upright, for the picker's buttons.
    """
    show_prey = view.get("variant") == "animals"
    tiles = view.get("tiles") or {}
    at = {(int(laid["x"]), int(laid["y"])): laid for laid in view.get("board") or []}
    wanted: set[tuple[str, int, int]] = {("front", int(tid), 0) for tid in view.get("hand") or []}
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
            lang=lang,
        )
    return out


def flips(
    view: Mapping[str, Any],
    legal: Iterable[str],
    names: Sequence[str] | None = None,
    lang: Language = ENGLISH,
) -> dict[str, dict[str, Any]]:
    """What each flip the viewer may make would cost, keyed by position ("x,y"), as MMW warns
    before a sinking: `tile`; `lost`, the tokens on the tile (rules: a flip removes them), each
    `{seat, kind, loc}`; `warning`, a sentence naming them ("Flipping the tile at (-2,1)
    removes Carol's boot and your pitchfork.", "" when none); and `marks`, those tokens drawn
    crossed out in the tile's own units (0 to 100, as the previews), to lay over the preview."""
    seat = view.get("seat")
    known = player_names(view, names, lang)
    at = {
        (int(laid["x"]), int(laid["y"])): laid
        for laid in view.get("board") or []
        if isinstance(laid, Mapping)
    }
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
        things = Listing(_lost_token(k, seat, known) for k in lost)
        warning = (
            lang("Flipping the tile at (%(x)s,%(y)s) removes %(tokens)s.", x=x, y=y, tokens=things)
            if things
            else ""
        )
        out[part[1]] = {
            "tile": int(laid["tile"]),
            "lost": lost,
            "warning": warning,
            "marks": _lost_marks(lost),
        }
    return out


_YOUR_TOKEN = {
    "boot": N_("your boot"),
    "fork": N_("your pitchfork"),
    "bet": N_("your bet"),
    "token": N_("your token"),
}


def _lost_token(token: Mapping[str, Any], seat: object, names: Sequence[str]) -> Message:
    """A token a flip would remove, as its warning names it: "your boot", "Carol's bet"."""
    kind = str(token["kind"]) if token["kind"] in _YOUR_TOKEN else "token"
    if token["seat"] == seat:
        return Message(_YOUR_TOKEN[kind])
    return Message(words.TOKEN_OF.get(kind, words.TOKEN_OF_ANY), seat=who(names, token["seat"]))


def _lost_marks(lost: Sequence[Mapping[str, Any]]) -> str:
    """The tokens a flip removes, faded and struck through with a red cross, where the board
    draws them (tile units)."""
    if not lost:
        return ""
    parts = ['<g class="lost-tokens" pointer-events="none">']
    for kind, loc, seat, x, y in placed_tokens(lost, TOKEN_GLYPH):
        cross = (
            f"M{_f(x - 9)} {_f(y - 9)} L{_f(x + 9)} {_f(y + 9)} "
            f"M{_f(x + 9)} {_f(y - 9)} L{_f(x - 9)} {_f(y + 9)}"
        )
        parts.append(
            f'<g class="lost-token" data-seat="{seat}" data-kind="{attr(kind)}" '
            f'data-loc="{attr(loc)}"><g opacity="0.6">{TOKEN_GLYPH[kind](x, y, seat)}</g>'
            f'<path d="{cross}" stroke="#ffffff" stroke-width="5.5" stroke-linecap="round"/>'
            f'<path d="{cross}" stroke="#c92a2a" stroke-width="3" stroke-linecap="round"/></g>'
        )
    parts.append("</g>")
    return "".join(parts)


def svg_open(width: float, height: float, extra: str = "") -> str:
    """The page drawings' root element."""
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
        attrs=f' data-tile="{attr(tile_id)}"' if tile_id is not None else "",
    )
    return svg_open(size, size) + body + "</svg>"
