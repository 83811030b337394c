"""pbem.sprite_pictures: a picture pasted from sprites is the engine's mail drawing as librsvg
draws it (issue 32: at most 0.5 % of pixels off by more than 32 levels in a channel), each
sprite is drawn once, and the PNG is one any decoder reads. Speed is bench/pictures.py's."""

from __future__ import annotations

import io
from collections.abc import Iterator

import numpy as np
import pytest
from PIL import Image

from pbem import games, pictures, png_palette, sprite_pictures
from pbem.games.sprites import MailDrawing, Sprite
from tests.support.played import PICTURE_CASES, played

CASES = PICTURE_CASES


@pytest.fixture(autouse=True)
def _cold() -> Iterator[None]:
    """Each test starts as a new worker does: no rasters, no palettes."""
    sprite_pictures.cache_clear()
    yield
    sprite_pictures.cache_clear()


def librsvg(svg: str, width_px: int) -> np.ndarray:
    rgb, width, height = pictures.rasterise(svg, width_px)
    return np.frombuffer(rgb, np.uint8).reshape(height, width, 3).astype(np.int16)


def shown(png: bytes) -> np.ndarray:
    return np.asarray(Image.open(io.BytesIO(png)).convert("RGB"), dtype=np.int16)


def off(png: bytes, svg: str) -> float:
    """The share of pixels more than 32 levels from librsvg's in some channel."""
    picture = shown(png)
    truth = librsvg(svg, picture.shape[1])
    assert picture.shape == truth.shape
    return float((np.abs(picture - truth).max(axis=-1) > 32).mean())


@pytest.mark.parametrize(("engine", "players", "options"), CASES, ids=str)
@pytest.mark.parametrize("seed", [3, 11])
def test_the_picture_is_librsvgs_drawing_of_the_engines_svg(
    engine: str, players: int, options: dict[str, object], seed: int
) -> None:
    """From the first picture of a cold worker (which starts the palette) to the end of a game,
    as a worker draws them: one in four positions compared."""
    game = games.get(engine)
    states = played(engine, players, options, seed)
    for index, state in enumerate(states):
        seat = len(state.history) % players
        drawing = game.mail_drawing(state, seat)
        png = sprite_pictures.compose_png(drawing)
        if index % 4 and index != len(states) - 1:
            continue
        share = off(png, game.render_mail_svg(state, seat))
        assert share <= 0.005, f"{engine} {options} ply {len(state.history)}: {share:.2%} off"
        image = Image.open(io.BytesIO(png))
        assert image.mode == "P" and image.width == pictures.MAIL_WIDTH_PX


def test_each_sprite_is_drawn_once_and_a_pictures_new_ones_together(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    calls: list[int] = []
    real = sprite_pictures._rasterise_all

    def counted(sprites: list[Sprite]) -> np.ndarray:
        calls.append(len(sprites))
        return real(sprites)

    monkeypatch.setattr(sprite_pictures, "_rasterise_all", counted)
    game = games.get("mmw")
    state = played("mmw", 2, {}, 5)[30]
    drawing = game.mail_drawing(state, 0)
    first = sprite_pictures.compose_png(drawing)
    distinct = len({sprite for sprite, _, _, _ in drawing.placed})
    assert calls == [distinct]
    assert sprite_pictures.compose_png(drawing) == first
    assert calls == [distinct], "the second picture drew nothing"
    # The other side of the same board: the squares and stacks are the same sprites.
    sprite_pictures.compose_png(game.mail_drawing(state, 1))
    assert len(calls) == 2 and calls[1] < distinct


def test_the_png_reads_the_same_in_libpng_and_pillow() -> None:
    state = played("marram", 4, {"length": "long"}, 2)[-1]
    png = pictures.board_png("marram", state, 0, ["a", "b", "c", "d"])
    vips = pictures.renderer()
    decoded = vips.Image.pngload_buffer(png)
    by_vips = np.frombuffer(decoded.write_to_memory(), np.uint8).reshape(
        decoded.height, decoded.width, decoded.bands
    )
    assert np.array_equal(by_vips[..., :3].astype(np.int16), shown(png))


def test_a_sprite_librsvg_refuses_is_a_render_error() -> None:
    broken = MailDrawing(
        40, 40, "#ffffff", ((Sprite("<rect", 0, 0, 10, 10), 0, 0, ""),), "x", "broken"
    )
    with pytest.raises(pictures.RenderError):
        sprite_pictures.compose_png(broken)


def test_sprites_reaching_past_the_edges_are_cut_there() -> None:
    disc = Sprite('<circle cx="20" cy="20" r="18" fill="#c62828"/>', 0, 0, 40, 40)
    square = Sprite('<rect width="40" height="40" fill="#1f5fbf"/>', 0, 0, 40, 40)
    placed = ((disc, -20, -20, ""), (square, 80, 30, ""), (disc, 90, 50, ""), (disc, 200, 0, ""))
    drawing = MailDrawing(100, 60, "#fffdf7", placed, "x", "edges")
    png = sprite_pictures.compose_png(drawing)
    assert shown(png).shape == (60, 100, 3)
    assert off(png, drawing.svg()) <= 0.005


def test_the_palette_fills_then_stays_and_takes_a_new_flat_colour_while_there_is_room() -> None:
    game = games.get("gorami")
    for state in played("gorami", 2, {"board": 24}, 4):
        sprite_pictures.compose_png(game.mail_drawing(state, 0))
    family = sprite_pictures._families["gorami-24"]
    assert len(family.colours) <= png_palette.COLOURS
    before = family.image
    state = played("gorami", 2, {"board": 24}, 4)[10]
    sprite_pictures.compose_png(game.mail_drawing(state, 0))
    assert family.image is before, "a picture of known sprites changes nothing"
    # A sprite of a colour never seen: it joins the palette, exactly.
    if len(family.colours) < png_palette.COLOURS:
        odd = Sprite('<rect width="20" height="20" fill="#13579b"/>', 0, 0, 20, 20)
        drawing = MailDrawing(40, 40, "#fffdf7", ((odd, 10, 10, ""),), "x", "gorami-24")
        png = sprite_pictures.compose_png(drawing)
        assert (0x13, 0x57, 0x9B) in family.colours
        assert tuple(shown(png)[20, 20]) == (0x13, 0x57, 0x9B)


def test_the_raster_cache_keeps_to_its_budget(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sprite_pictures, "CACHE_BYTES", 200_000)
    game = games.get("marram")
    for state in played("marram", 2, {}, 6)[::3]:
        sprite_pictures.compose_png(game.mail_drawing(state, 0))
        assert sprite_pictures._cache_bytes <= 200_000
