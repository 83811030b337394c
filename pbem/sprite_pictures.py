"""A mail drawing of sprites (`pbem.games.sprites`) as a palette PNG, each sprite drawn once.

librsvg costs some 10 to 20 ms for a whole board picture; pasting the same picture from rasters
already made costs about one. So each distinct sprite (its fragment and box) is rasterised the
first time a picture needs it, all of a picture's new sprites in one librsvg call, and kept in
this process's LRU cache (`CACHE_BYTES` of rasters): the squares, stacks, discs and tiles of a
board come back picture after picture, so a worker soon draws most pictures from the cache alone.

A raster is kept as RGB when it covers its whole box (pasted as is) and otherwise as RGBA cropped
to its ink (pasted through its alpha, which is librsvg's own anti-aliasing). With each raster goes
a count of its colours, blended over the drawing's background, in bins of `png_palette.BITS` a
channel; a picture's palette is the fullest 256 bins of its sprites' counts together, and Pillow
maps the pasted picture onto it (nearest colour, no dither) and writes the PNG. Counting the
sprites rather than the picture's 400,000 pixels is what keeps the palette cheap.
"""

from __future__ import annotations

import re
import threading
from collections import OrderedDict
from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache

import numpy as np
from numpy.typing import NDArray
from PIL import Image

from pbem import librsvg, png_palette
from pbem.games import drawing
from pbem.games.sprites import MailDrawing, Placed, Sprite

__all__ = ["CACHE_BYTES", "cache_clear", "compose", "compose_png", "render_sprites"]

CACHE_BYTES = 64 * 1024 * 1024
_ATLAS_WIDTH = 2048  # a row of new sprites wraps here in the one SVG they are drawn from
_SHIFT = 8 - png_palette.BITS
_BINS = 1 << (3 * png_palette.BITS)


@dataclass(frozen=True, slots=True, eq=False)
class _Raster:
    """One sprite drawn: the image to paste, RGB when it covers its whole box (`opaque`), RGBA
    cropped to its ink otherwise, and where in its box it starts (`dx`, `dy`; None: no ink).
    With it its colours, for the palette: the "#rrggbb" colours its SVG names, and its pixels
    over the background as bins, counts and summed RGB."""

    image: Image.Image | None
    opaque: bool
    dx: int
    dy: int
    flat: frozenset[tuple[int, int, int]]
    bins: NDArray[np.int64]
    counts: NDArray[np.int64]
    sums: NDArray[np.int64]  # len(bins) × 3
    size: int  # bytes held, for the cache's budget


_cache: OrderedDict[tuple[str, Sprite], _Raster] = OrderedDict()
_cache_bytes = 0
_lock = threading.Lock()


def cache_clear() -> None:
    """Forget every raster and palette (tests, benchmarks of a cold start)."""
    global _cache_bytes
    with _lock:
        _cache.clear()
        _cache_bytes = 0
        _families.clear()


def _atlas_spots(sprites: list[Sprite]) -> list[tuple[int, int]]:
    """Where each sprite goes in the one SVG document they are drawn from: side by side in
    rows `_ATLAS_WIDTH` wide."""
    spots = []
    x = y = row_height = 0
    for sprite in sprites:
        if x and x + sprite.width > _ATLAS_WIDTH:
            x, y, row_height = 0, y + row_height, 0
        spots.append((x, y))
        x += sprite.width
        row_height = max(row_height, sprite.height)
    return spots


def _rasterise_all(sprites: list[Sprite]) -> NDArray[np.uint8]:
    """Every sprite drawn by librsvg in one SVG document, each at its `_atlas_spots` place;
    returns the RGBA raster. Each sprite is a nested <svg> whose viewBox is its box, so it is
    clipped to the box and lands on whole pixels."""
    vips = librsvg.renderer()
    spots = _atlas_spots(sprites)
    parts = [
        f'<svg x="{x}" y="{y}" width="{s.width}" height="{s.height}" '
        f'viewBox="{s.left} {s.top} {s.width} {s.height}">{s.svg}</svg>'
        for s, (x, y) in zip(sprites, spots, strict=True)
    ]
    width = max([1, *(x + s.width for s, (x, _) in zip(sprites, spots, strict=True))])
    height = max([1, *(y + s.height for s, (_, y) in zip(sprites, spots, strict=True))])
    document = (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}" font-family="{drawing.FONT}">{"".join(parts)}</svg>'
    )
    try:
        image = vips.Image.svgload_buffer(document.encode("utf-8"))
        if image.bands != 4:
            image = image.bandjoin(255)
        pixels = image.cast("uchar").write_to_memory()
    except vips.Error as exc:
        raise librsvg.RenderError(f"the board could not be drawn: {exc}") from exc
    atlas: NDArray[np.uint8] = np.frombuffer(pixels, np.uint8).reshape(image.height, image.width, 4)
    return atlas


def _colours(
    rgba: NDArray[np.uint8], background: tuple[int, int, int]
) -> tuple[NDArray[np.int64], NDArray[np.int64], NDArray[np.int64]]:
    """The colours of `rgba`'s inked pixels laid over `background`: bins, counts, RGB sums."""
    alpha = rgba[..., 3].astype(np.int64)
    inked = alpha > 0
    ground = np.array(background, np.int64)
    a = alpha[inked][:, None]
    over = (rgba[inked][:, :3].astype(np.int64) * a + ground * (255 - a) + 127) // 255
    shifted = over >> _SHIFT
    bins = (shifted[:, 0] << (2 * png_palette.BITS)) | (shifted[:, 1] << png_palette.BITS)
    bins |= shifted[:, 2]
    counts = np.bincount(bins, minlength=_BINS)
    used = np.flatnonzero(counts)
    sums = np.stack(
        [np.bincount(bins, over[:, c], minlength=_BINS)[used] for c in range(3)], -1
    ).astype(np.int64)
    return used, counts[used], sums


def _raster(rgba: NDArray[np.uint8], background: tuple[int, int, int], svg: str) -> _Raster:
    bins, counts, sums = _colours(rgba, background)
    flat = frozenset(_hex("#" + colour) for colour in _HEX.findall(svg))
    alpha = rgba[..., 3]
    size = bins.nbytes * 5 + len(svg)
    if alpha.min() == 255:
        rgb = np.ascontiguousarray(rgba[..., :3])
        image = Image.fromarray(rgb, "RGB")
        return _Raster(image, True, 0, 0, flat, bins, counts, sums, size + rgb.nbytes)
    rows = np.flatnonzero(alpha.any(1))
    cols = np.flatnonzero(alpha.any(0))
    if not len(rows):
        return _Raster(None, False, 0, 0, flat, bins, counts, sums, size)
    top, bottom, left, right = rows[0], rows[-1] + 1, cols[0], cols[-1] + 1
    cropped = np.ascontiguousarray(rgba[top:bottom, left:right])
    image = Image.fromarray(cropped, "RGBA")
    held = size + cropped.nbytes
    return _Raster(image, False, int(left), int(top), flat, bins, counts, sums, held)


def _hex(colour: str) -> tuple[int, int, int]:
    return int(colour[1:3], 16), int(colour[3:5], 16), int(colour[5:7], 16)


def render_sprites(placed: Iterable[Placed], background: str) -> list[_Raster]:
    """The rasters of the placed sprites (over `background` for their colour counts), from the
    cache or drawn now, all missing ones in one librsvg call."""
    global _cache_bytes
    keys = [(background, sprite) for sprite, _, _, _ in placed]
    found: dict[tuple[str, Sprite], _Raster] = {}
    with _lock:
        for key in keys:
            raster = _cache.get(key)
            if raster is not None:
                _cache.move_to_end(key)
                found[key] = raster
    missing = list(dict.fromkeys(key for key in keys if key not in found))
    if missing:
        new = [sprite for _, sprite in missing]
        atlas = _rasterise_all(new)
        ground = _hex(background)
        drawn = {
            key: _raster(atlas[y : y + s.height, x : x + s.width], ground, s.svg)
            for key, s, (x, y) in zip(missing, new, _atlas_spots(new), strict=True)
        }
        found.update(drawn)
        with _lock:
            for key, raster in drawn.items():
                if key not in _cache:
                    _cache[key] = raster
                    _cache_bytes += raster.size
            while _cache_bytes > CACHE_BYTES and _cache:
                _, old = _cache.popitem(last=False)
                _cache_bytes -= old.size
    return [found[key] for key in keys]


class _Family:
    """The palette the pictures of one family are mapped to, and Pillow's image of it: Pillow
    remembers, per palette image, the nearest entry of each colour it has mapped, so a picture
    mapped to a palette already used costs about a millisecond instead of four.

    It grows with the rasters its pictures are pasted from, each one looked at once: first the
    flat colours a sprite names (every "#rrggbb" of its SVG), then its other colours over the
    background (the anti-aliased edges), fullest first, each one more than `_NEAR` levels from
    every colour already in it and covering at least `_MIN_PIXELS`. Once `png_palette.COLOURS`
    are taken it stays as it is and every other colour takes its nearest entry. A family's
    sprites use a few dozen colours and their blends, so it fills within a game or two and is
    then fixed."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.colours: list[tuple[int, int, int]] = []
        self.taken = np.zeros((0, 3), np.int64)
        self.seen: set[int] = set()
        self.image = Image.new("P", (1, 1))

    def absorb(self, rasters: list[_Raster]) -> None:
        """Take in the colours of the rasters not seen before."""
        new = [r for r in rasters if id(r) not in self.seen]
        if not new or len(self.colours) >= png_palette.COLOURS:
            return
        if len(self.seen) > _SEEN_KEPT:
            self.seen.clear()
        self.seen.update(id(r) for r in new)
        before = len(self.colours)
        for colour in sorted(set().union(*(r.flat for r in new))):
            self._add(np.array(colour, np.int64), 0)
        bins = np.concatenate([r.bins for r in new])
        counts = np.concatenate([r.counts for r in new])
        sums = np.concatenate([r.sums for r in new])
        total = np.bincount(bins, counts, minlength=_BINS)
        used = np.flatnonzero(total >= _MIN_PIXELS)
        means = np.rint(
            np.stack([np.bincount(bins, sums[:, c], minlength=_BINS)[used] for c in range(3)], -1)
            / total[used, None]
        ).astype(np.int64)
        # Only colours far from every entry can join; most of a known sprite's are near one.
        far = np.abs(means[:, None, :] - self.taken[None, :, :]).max(2).min(1) > _NEAR
        means, counts_far = means[far], total[used][far]
        for mean in means[np.argsort(counts_far, kind="stable")[::-1]]:
            if len(self.colours) >= png_palette.COLOURS:
                break
            self._add(mean, _NEAR)
        if len(self.colours) != before:
            flat = b"".join(bytes(colour) for colour in self.colours)
            image = Image.new("P", (1, 1))
            # Pillow pads a short palette with black, which would then take the pixels nearest
            # black: repeat the last colour instead.
            image.putpalette(flat + flat[-3:] * (png_palette.COLOURS - len(self.colours)))
            self.image = image

    def _add(self, colour: NDArray[np.int64], near: int) -> None:
        if len(self.colours) >= png_palette.COLOURS:
            return
        if len(self.taken) and np.abs(self.taken - colour).max(1).min() <= near:
            return
        self.colours.append((int(colour[0]), int(colour[1]), int(colour[2])))
        self.taken = np.vstack([self.taken, colour])


_NEAR = 20  # levels per channel: a colour this close to an entry adds nothing to the palette
_MIN_PIXELS = 3
_SEEN_KEPT = 100_000
_families: dict[str, _Family] = {}
_HEX = re.compile(r"#([0-9a-fA-F]{6})\b")


def _palette(picture: MailDrawing, rasters: list[_Raster]) -> _Family:
    with _lock:
        family = _families.get(picture.family)
        if family is None:
            family = _families[picture.family] = _Family()
    background = _raster_of_colour(picture.background)
    with family.lock:
        family.absorb([background, *rasters])
    return family


@lru_cache(maxsize=64)
def _raster_of_colour(colour: str) -> _Raster:
    """A raster that is nothing but `colour`, so a background enters its family's palette."""
    rgb = _hex(colour)
    return _Raster(
        None,
        False,
        0,
        0,
        frozenset([rgb]),
        *(np.zeros(0, np.int64),) * 2,
        np.zeros((0, 3), np.int64),
        0,
    )


@lru_cache(maxsize=64)
def _blank(width: int, height: int, background: str) -> Image.Image:
    """A canvas of the background, copied for each picture (a copy costs less than a fill)."""
    return Image.new("RGB", (width, height), _hex(background))


def compose(picture: MailDrawing) -> tuple[Image.Image, list[_Raster]]:
    """The picture as an RGB image, and the rasters it was pasted from."""
    canvas = _blank(picture.width, picture.height, picture.background).copy()
    rasters = render_sprites(picture.placed, picture.background)
    paste = canvas.paste
    for (sprite, x, y, _), raster in zip(picture.placed, rasters, strict=True):
        image = raster.image
        if image is None:
            continue
        spot = (x + sprite.left + raster.dx, y + sprite.top + raster.dy)
        if raster.opaque:
            paste(image, spot)
        else:
            # Through its own alpha: straight alpha over an opaque ground, as cairo lays it.
            paste(image, spot, image)
    return canvas, rasters


def compose_png(picture: MailDrawing) -> bytes:
    """The picture as a palette PNG: pasted (`compose`), mapped by Pillow to its family's
    palette (nearest colour, no dither) and written."""
    canvas, rasters = compose(picture)
    family = _palette(picture, rasters)
    with family.lock:
        image = canvas.quantize(palette=family.image, dither=Image.Dither.NONE)
    return png_palette.write_png(image)
