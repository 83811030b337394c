"""Pictures of the board for email: a PNG from the engine's mail drawing, and its alt text.

`board_png(engine_name, state, seat, names)` asks the engine for its mail drawing as sprites
(`mail_drawing`: the board from the reader's side, the last turns marked) and pastes it together
from rasters drawn once (pbem.sprite_pictures); an engine without one has its SVG
(`render_mail_svg`) rasterised whole by librsvg (pbem.librsvg) and written as an 8-bit palette PNG
by `pbem.png_palette`. `alt_text` says the same in words for mail readers that show no pictures.

The picture is `MAIL_WIDTH_PX` (600) pixels wide: phone mail apps lay a message out 320 to 430 CSS
pixels wide and shrink a wider picture to fit, so 600 pixels give 1.4 to 1.9 device pixels per
CSS pixel, near-crisp on a 2x screen; twice that would quadruple the pixels, the bytes and the
time to encode them (bench/pictures.py measures the cost per picture).

Pure apart from the renderer: no database, no clock, no I/O. A small in-process LRU cache keyed by
(game id, ply, side) serves the same picture twice when a `game_id` is given.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Hashable, Sequence

from pbem import games, librsvg, png_palette, sprite_pictures
from pbem.games.base import State, display_name, fill_names
from pbem.games.sprites import MailDrawing
from pbem.librsvg import RenderError, renderer

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
    "renderer",
    "side",
]

MAIL_WIDTH_PX = 600
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
CACHE_SIZE = 256


def rasterise(svg: str, width_px: int = MAIL_WIDTH_PX) -> tuple[bytes, int, int]:
    """`librsvg.rasterise` at the mail picture's width unless told otherwise."""
    return librsvg.rasterise(svg, width_px)


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
    """The engine's mail drawing of `state` from `seat`'s side, as one SVG document (its page
    drawing when it has none)."""
    engine = games.get(engine_name)
    draw = getattr(engine, "render_mail_svg", None)
    if draw is None:  # an engine with no mail drawing: its page's
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
    """The board from `seat`'s side as a PNG for a phone: the engine's mail drawing (the last
    turns marked unless `last_turn_marked` is False) `width_px` pixels wide. `names` reach only
    an engine that still draws them.

    With a `game_id` the picture is kept in an LRU cache of `CACHE_SIZE` entries under (game id,
    ply, seats dropped, whether it is over, side, options): a position is fixed by its game
    and ply but for the seats that left and the service ending the game (`State.settled`), which
    change it without a ply, and seats with the same side (`side`) see the same drawing.
    Raises RenderError when rendering fails.
    """
    key: Hashable | None = None
    if game_id is not None:
        key = (
            game_id,
            len(state.history),
            tuple(state.dropped),
            state.outcome is None,
            side(engine_name, seat),
            engine_name,
            last_turn_marked,
            width_px,
        )
        with _cache_lock:
            cached = _cache.get(key)
            if cached is not None:
                _cache.move_to_end(key)
                return cached
    png = _draw_png(engine_name, state, seat, names, last_turn_marked, width_px)
    if key is not None:
        with _cache_lock:
            _cache[key] = png
            _cache.move_to_end(key)
            while len(_cache) > CACHE_SIZE:
                _cache.popitem(last=False)
    return png


def side(engine_name: str, seat: int | None) -> int | None:
    """The side of the board the engine's mail drawing shows `seat` (`Game.mail_side`): the
    seat's own where it draws from the reader's side, None where every seat sees one drawing.
    Seats with the same side are shown the same picture."""
    mail_side = getattr(games.get(engine_name), "mail_side", None)
    return seat if mail_side is None else mail_side(seat)


def _draw_png(
    engine_name: str,
    state: State,
    seat: int | None,
    names: Sequence[str],
    last_turn_marked: bool,
    width_px: int,
) -> bytes:
    """The picture pasted from the engine's sprites (pbem.sprite_pictures) at the mail width;
    at any other width, or from an engine without sprites, its SVG through librsvg."""
    sprites = getattr(games.get(engine_name), "mail_drawing", None)
    if sprites is not None and width_px == MAIL_WIDTH_PX:
        drawing: MailDrawing = sprites(state, seat, names, last_turn_marked)
        return sprite_pictures.compose_png(drawing)
    return render_png(board_svg(engine_name, state, seat, names, last_turn_marked), width_px)


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
