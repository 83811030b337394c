"""librsvg, through libvips: an SVG document as pixels (`rasterise`), for pbem.pictures and the
sprites of pbem.sprite_pictures.

The packages `pyvips` and `pyvips-binary` bring their own libvips, librsvg and cairo; the fonts are
the system's (DejaVu Sans on Debian). libvips is loaded on first use and set to one thread and no
operation cache: each picture is drawn once on a worker's own CPU.
"""

from __future__ import annotations

import importlib
import logging
import re
import threading
from typing import Any

__all__ = ["MAX_WIDTH_PX", "RenderError", "rasterise", "renderer"]

MAX_WIDTH_PX = 2400


class RenderError(RuntimeError):
    """The renderer could not turn a drawing into a PNG (the mail then goes without it)."""


_vips: Any = None
_vips_lock = threading.Lock()


def renderer() -> Any:
    """pyvips, loaded on first use and set to one thread and no operation cache: each picture is
    drawn once on a worker's own CPU, and this module keeps the PNGs worth keeping."""
    global _vips
    if _vips is None:
        with _vips_lock:
            if _vips is None:
                try:
                    vips = importlib.import_module("pyvips")
                except (ImportError, OSError) as exc:
                    raise RenderError(f"the SVG renderer is not installed: {exc}") from exc
                vips.concurrency_set(1)
                vips.cache_set_max(0)
                # libvips reports every finished thread pool at INFO: two lines per picture.
                logging.getLogger("pyvips").setLevel(logging.WARNING)
                _vips = vips
    return _vips


_ROOT = re.compile(r"<svg\b[^>]*>", re.DOTALL)
_WIDTH = re.compile(r"""\swidth\s*=\s*["']\s*([0-9.]+)\s*(?:px)?\s*["']""")
_VIEWBOX = re.compile(r"""\sviewBox\s*=\s*["']\s*[-0-9.]+[\s,]+[-0-9.]+[\s,]+([0-9.]+)""")


def _svg_width(svg: str) -> float | None:
    """The drawing's width in user units, from its root element (None when it does not say)."""
    root = _ROOT.search(svg)
    if root is None:
        return None
    for pattern in (_WIDTH, _VIEWBOX):
        found = pattern.search(root.group(0))
        if found:
            try:
                value = float(found.group(1))
            except ValueError:
                continue
            if value > 0:
                return value
    return None


def rasterise(svg: str, width_px: int) -> tuple[bytes, int, int]:
    """An SVG document as librsvg draws it on white, `width_px` pixels wide (the height follows
    the drawing): (RGB bytes row by row, width, height). Raises RenderError when the renderer is
    missing or refuses the drawing."""
    if not 16 <= width_px <= MAX_WIDTH_PX:
        raise ValueError(f"width_px must be 16 to {MAX_WIDTH_PX}, not {width_px!r}")
    vips = renderer()
    data = svg.encode("utf-8")
    try:
        width = _svg_width(svg)
        if width is None:
            width = float(vips.Image.svgload_buffer(data).width)
        image = vips.Image.svgload_buffer(data, scale=width_px / width)
        if image.width != width_px:  # rounding in the loader: a pixel more or less
            image = image.resize(width_px / image.width)
        if image.hasalpha():
            image = image.flatten(background=[255, 255, 255])
        if image.bands != 3:
            raise RenderError(f"the drawing rendered with {image.bands} bands, not RGB")
        rgb: bytes = image.cast("uchar").write_to_memory()
    except vips.Error as exc:
        raise RenderError(f"the board could not be drawn: {exc}") from exc
    return rgb, image.width, image.height
