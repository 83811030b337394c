"""pbem.png_palette: the mail picture as a palette PNG stays librsvg's picture (issue 32: at most
0.5 % of pixels off by more than 32 levels in a channel), for random positions of every engine
at its largest board."""

from __future__ import annotations

import io
import random

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from PIL import Image

from pbem import pictures, png_palette
from pbem.games.base import State
from tests.support.played import PICTURE_CASES, played

NAMES = ["Ann Ångström", "Ben <b>", "Chloé", "Дмитрий"]
CASES = PICTURE_CASES


def random_positions(
    engine: str, players: int, options: dict[str, object], seed: int
) -> list[State]:
    """Three positions of one random game (early, middle, late): the board fills as it goes."""
    states = played(engine, players, options, seed)
    return [states[len(states) * share // 10] for share in (2, 5, 9)]


def librsvg_raster(svg: str) -> np.ndarray:
    """The drawing as librsvg rasterises it, before any palette: what the picture must show."""
    rgb, width, height = pictures.rasterise(svg)
    return np.frombuffer(rgb, np.uint8).reshape(height, width, 3)


def decoded(png: bytes) -> Image.Image:
    return Image.open(io.BytesIO(png))


@pytest.mark.parametrize(("engine", "players", "options"), CASES, ids=lambda c: str(c))
@pytest.mark.parametrize("seed", [3, 11])
def test_the_picture_is_librsvgs_drawing(
    engine: str, players: int, options: dict[str, object], seed: int
) -> None:
    for state in random_positions(engine, players, options, seed):
        seat = len(state.history) % players
        svg = pictures.board_svg(engine, state, seat, NAMES[:players])
        png = pictures.render_png(svg)
        image = decoded(png)
        assert image.mode == "P" and len(image.getpalette() or []) <= 3 * 256
        shown = np.asarray(image.convert("RGB"), dtype=np.int16)
        truth = librsvg_raster(svg).astype(np.int16)
        assert shown.shape == truth.shape
        off = (np.abs(shown - truth).max(axis=-1) > 32).mean()
        assert off <= 0.005, f"{engine} {options} ply {len(state.history)}: {off:.2%} pixels off"


@settings(max_examples=30, deadline=None)
@given(
    st.lists(
        st.tuples(st.integers(0, 255), st.integers(0, 255), st.integers(0, 255)),
        min_size=1,
        max_size=200,
    ),
    st.randoms(use_true_random=False),
)
def test_a_raster_of_few_colours_keeps_every_colour(
    colours: list[tuple[int, int, int]], rng: random.Random
) -> None:
    """Up to 256 colours each pixel keeps its own, within half a bin (4 levels)."""
    width, height = 23, 17
    pixels = np.array([rng.choice(colours) for _ in range(width * height)], dtype=np.uint8).reshape(
        height, width, 3
    )
    png = png_palette.palette_png(pixels.tobytes(), width, height)
    shown = np.asarray(decoded(png).convert("RGB"), dtype=np.int16)
    assert np.abs(shown - pixels.astype(np.int16)).max() <= 4


def test_more_than_256_colours_go_to_the_nearest_kept() -> None:
    """A grey ramp of 1,024 shades in a 256-colour palette: the fullest bins are kept and every
    other pixel lands on a neighbour, nowhere far."""
    ramp = np.repeat(np.arange(256, dtype=np.uint8), 4)
    pixels = np.stack([ramp, np.roll(ramp, 300), ramp[::-1]], -1).reshape(32, 32, 3)
    indices, palette = png_palette.quantize(pixels)
    assert len(palette) <= 256 and indices.shape == (32, 32)
    shown = palette[indices].astype(np.int16)
    assert np.abs(shown - pixels.astype(np.int16)).max() <= 32
