"""Pictures of the board for email: a PNG from the engine's mail drawing, and its alt text.

`board_png(engine_name, state, seat, names)` asks the engine for its mail drawing
(`Game.render_mail_svg`: the board from the reader's seat, the players' names and colours, the last
turn marked) and rasterises it with libvips, whose SVG loader is librsvg (the packages `pyvips` and
`pyvips-binary`, which bring their own libvips, librsvg and cairo; the fonts are the system's,
DejaVu Sans on Debian), written as an 8-bit palette PNG by `pbem.png_palette`. `alt_text`
says the same in words for mail readers that show no pictures.

The picture is `MAIL_WIDTH_PX` (600) pixels wide: phone mail apps lay a message out 320 to 430 CSS
pixels wide and shrink a wider picture to fit, so 600 pixels give 1.4 to 1.9 device pixels per
CSS pixel, near-crisp on a 2x screen; twice that would quadruple the pixels, the bytes and the
time to encode them (bench/pictures.py measures the cost per picture).

Pure apart from the renderer: no database, no clock, no I/O. A small in-process LRU cache keyed by
(game id, ply, seat) serves the same picture twice when a `game_id` is given.
"""

from __future__ import annotations

import importlib
import logging
import re
import threading
from collections import OrderedDict
from collections.abc import Hashable, Sequence
from typing import Any

from pbem import games, png_palette
from pbem.games.base import State, display_name, fill_names

__all__ = [
    "CACHE_SIZE",
    "MAIL_WIDTH_PX",
    "PNG_SIGNATURE",
    "RenderError",
    "alt_text",
    "board_png",
    "board_svg",
    "cache_clear",
    "rasterise",
    "render_png",
]

MAIL_WIDTH_PX = 600
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
CACHE_SIZE = 256
_MAX_WIDTH_PX = 2400


class RenderError(RuntimeError):
    """The renderer could not turn a drawing into a PNG (the mail then goes without it)."""


_vips: Any = None
_vips_lock = threading.Lock()


def _renderer() -> Any:
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


def rasterise(svg: str, width_px: int = MAIL_WIDTH_PX) -> tuple[bytes, int, int]:
    """An SVG document as librsvg draws it on white, `width_px` pixels wide (the height follows
    the drawing): (RGB bytes row by row, width, height). Raises RenderError when the renderer is
    missing or refuses the drawing."""
    if not 16 <= width_px <= _MAX_WIDTH_PX:
        raise ValueError(f"width_px must be 16 to {_MAX_WIDTH_PX}, not {width_px!r}")
    vips = _renderer()
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


def render_png(svg: str, width_px: int = MAIL_WIDTH_PX) -> bytes:
    """An SVG document as an opaque palette PNG `width_px` pixels wide (`rasterise`, then
    `png_palette`). Raises RenderError when the renderer is missing or refuses the drawing."""
    return png_palette.palette_png(*rasterise(svg, width_px))


def board_svg(
    engine_name: str,
    state: State,
    seat: int | None,
    names: Sequence[str],
    last_turn_marked: bool = True,
) -> str:
    """The engine's mail drawing of `state` from `seat` (its page drawing when it has none)."""
    engine = games.get(engine_name)
    draw = getattr(engine, "render_mail_svg", None)
    if draw is None:
        return engine.render_svg(state, seat, names)
    svg: str = draw(state, seat, names, last_turn_marked)
    return svg


_cache: OrderedDict[Hashable, bytes] = OrderedDict()
_cache_lock = threading.Lock()


def cache_clear() -> None:
    """Forget every cached picture (tests, and a worker that wants its memory back)."""
    with _cache_lock:
        _cache.clear()


def board_png(
    engine_name: str,
    state: State,
    seat: int | None,
    names: Sequence[str],
    last_turn_marked: bool = True,
    width_px: int = MAIL_WIDTH_PX,
    *,
    game_id: Hashable | None = None,
) -> bytes:
    """The board from `seat`'s side as a PNG for a phone: the engine's mail drawing (names,
    colours, the last turn marked unless `last_turn_marked` is False) `width_px` pixels wide.

    With a `game_id` the picture is kept in an LRU cache of `CACHE_SIZE` entries under (game id,
    ply, seats dropped, whether it is over, seat, names, options): a position is fixed by its game
    and ply but for the seats that left and the service ending the game (`State.settled`), which
    change it without a ply. Raises RenderError when rendering fails.
    """
    key: Hashable | None = None
    if game_id is not None:
        key = (
            game_id,
            len(state.history),
            tuple(state.dropped),
            state.outcome is None,
            seat,
            tuple(names),
            engine_name,
            last_turn_marked,
            width_px,
        )
        with _cache_lock:
            cached = _cache.get(key)
            if cached is not None:
                _cache.move_to_end(key)
                return cached
    png = render_png(board_svg(engine_name, state, seat, names, last_turn_marked), width_px)
    if key is not None:
        with _cache_lock:
            _cache[key] = png
            _cache.move_to_end(key)
            while len(_cache) > CACHE_SIZE:
                _cache.popitem(last=False)
    return png


def _who(names: Sequence[str] | None, seat: int, colour: str) -> str:
    name = display_name(names, seat, 40)
    return name if name else colour.capitalize()


def alt_text(
    engine_name: str, state: State, seat: int | None, names: Sequence[str] | None = None
) -> str:
    """The picture in one sentence, for the `alt` attribute: "<Title> board after move 12 (last
    move 2b3): alice to move; alice (yellow) 5 fish, bob (blue) 4 fish." Plain text (the mail
    builder escapes it)."""
    engine = games.get(engine_name)
    summary = state.summary(seat)
    colours = [s.colour for s in summary.seats]
    players = state.players
    who = [
        _who(names, s, colours[s] if s < len(colours) else f"seat {s + 1}") for s in range(players)
    ]
    history = state.history
    head = f"{engine.title} board"
    if history:
        last = " ".join(history[-1].split())
        head += f" after move {len(history)} (last move {last[:40]})"
    else:
        head += " at the start"
    outcome = state.outcome
    if outcome is not None:
        ended = state.describe_outcome()
        status = fill_names(ended, who) if ended else "game over"
    elif state.to_move is not None:
        status = f"{who[state.to_move]} to move"
    else:
        status = ""
    scores = state.scores()
    dropped = set(state.dropped)
    parts = []
    for s in range(players):
        tags = [colours[s]] if s < len(colours) and colours[s] != who[s].lower() else []
        tags += ["you"] if s == seat else []
        tags += ["left the game"] if s in dropped else []
        aside = f" ({', '.join(tags)})" if tags else ""
        parts.append(f"{who[s]}{aside} {scores[s]} {summary.score_label}")
    sentence = f"{head}: {status}; " if status else f"{head}: "
    return sentence + ", ".join(parts) + "."
