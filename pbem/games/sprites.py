"""A mail drawing as sprites: SVG parts, each drawn once and reused wherever it is placed.

A board picture is mostly the same few things again and again: a square, a stack of pyramids, a
disc on a cell, a tile. An engine's `mail_drawing` describes its picture as a background colour
and a list of placed `Sprite`s, bottom first: each an SVG fragment in its own coordinates with the
whole-pixel box its ink stays inside, and the whole-pixel spot its origin goes to (`Placed`).
pbem.sprite_pictures rasterises each distinct sprite once (librsvg) and pastes the rasters, so a
picture costs some pastes and the PNG; `MailDrawing.svg()` is the same drawing as one SVG
document (`render_mail_svg`), which is what a test holds the pictures to.

Whole pixels keep a sprite's raster exact wherever it goes: one unit of the drawing is one pixel
of the picture (`drawing.MAIL_WIDTH` across). A fragment in the drawing's own coordinates (placed
at 0, 0) suits something that only ever appears at one spot. Pure: no I/O.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from pbem.games import drawing as d

__all__ = ["MailDrawing", "Placed", "Sprite", "box_around"]


@dataclass(frozen=True, slots=True)
class Sprite:
    """An SVG fragment whose ink stays inside the box (`left`, `top`, `width`, `height`) of its
    own coordinates: all its raster depends on, so equal sprites share one raster."""

    svg: str
    left: int
    top: int
    width: int
    height: int
    # Computed once: a picture looks up each of its sprites in the raster cache.
    _hash: int = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        key = (self.svg, self.left, self.top, self.width, self.height)
        object.__setattr__(self, "_hash", hash(key))

    def __hash__(self) -> int:
        return self._hash


# A sprite, where its origin goes in the drawing (whole pixels), and attributes for its group in
# the SVG document only ("" for none): what it stands for (`class="last-move" data-pos="1,0"`),
# kept out of the sprite so that one raster serves every place it goes.
Placed = tuple[Sprite, int, int, str]


def box_around(svg: str, x0: float, y0: float, x1: float, y1: float, margin: float = 2.0) -> Sprite:
    """A sprite at the drawing's origin whose ink lies within (x0, y0)-(x1, y1), grown by `margin`
    (half the widest stroke and a pixel of anti-aliasing) and out to whole pixels."""
    left = math.floor(x0 - margin)
    top = math.floor(y0 - margin)
    return Sprite(svg, left, top, math.ceil(x1 + margin) - left, math.ceil(y1 + margin) - top)


@dataclass(frozen=True)
class MailDrawing:
    """A mail picture: `width` by `height` pixels of `background` (#rrggbb), the sprites painted
    over it in order. Drawings of one `family` (an engine and variant) share their colours, so
    pbem.sprite_pictures keeps one palette for them."""

    width: int
    height: int
    background: str
    placed: tuple[Placed, ...]
    css_class: str
    family: str

    def svg(self) -> str:
        """The drawing as one SVG document: each sprite a group moved to its spot."""
        out = [
            d.svg_open(self.width, self.height, self.css_class),
            f'<rect width="{self.width}" height="{self.height}" fill="{self.background}"/>',
        ]
        for sprite, x, y, attrs in self.placed:
            if x or y or attrs:
                move = f' transform="translate({x} {y})"' if x or y else ""
                out.append(f"<g{move}{' ' + attrs if attrs else ''}>{sprite.svg}</g>")
            else:
                out.append(sprite.svg)
        out.append("</svg>")
        return "".join(out)
