"""pbem.pictures: the board as a PNG for mail, its alt text and its cache (timing is measured in
bench/pictures.py, never asserted here)."""

from __future__ import annotations

import random
import struct
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from functools import cache
from typing import Any

import pytest

from pbem import games, pictures
from pbem.games.base import State

ENGINES = [
    ("gorami", 2, {}),
    ("gorami", 2, {"board": 16}),
    ("mmw", 2, {}),
    ("marram", 2, {}),
    ("marram", 3, {"variant": "animals"}),
    ("marram", 4, {"variant": "pitchfork"}),
]
MOMENTS = ("start", "middle", "end")
SVG = "{http://www.w3.org/2000/svg}"
# Names with markup, quotes and letters of several scripts: the alt text must carry them.
NAMES = ["<b>&amp;A", 'Bo "B" O\'N', "Zoë Ørsted 李", "Дмитрий"]


@cache
def _game(engine: str, players: int, options: tuple[tuple[str, Any], ...]) -> list[State]:
    game = games.get(engine)
    rng = random.Random(7)
    state = game.new(players, dict(options), seed=7)
    states = [state]
    while state.outcome is None:
        state = state.play(rng.choice(state.legal_moves()))
        states.append(state)
    return states


def position(engine: str, players: int, options: dict[str, Any], moment: str) -> State:
    states = _game(engine, players, tuple(sorted(options.items())))
    return states[{"start": 0, "middle": len(states) // 2, "end": -1}[moment]]


def png_size(png: bytes) -> tuple[int, int]:
    assert png[:8] == pictures.PNG_SIGNATURE
    assert png[12:16] == b"IHDR"
    width, height = struct.unpack(">II", png[16:24])
    return int(width), int(height)


@pytest.fixture(autouse=True)
def _fresh_cache() -> Iterator[None]:
    pictures.cache_clear()
    yield
    pictures.cache_clear()


@pytest.mark.parametrize("moment", MOMENTS)
@pytest.mark.parametrize(("engine", "players", "options"), ENGINES)
def test_a_png_comes_out_at_the_mail_width(
    engine: str, players: int, options: dict[str, Any], moment: str
) -> None:
    state = position(engine, players, options, moment)
    seat = len(state.history) % players
    png = pictures.board_png(engine, state, seat, NAMES[:players])
    width, height = png_size(png)
    assert width == pictures.MAIL_WIDTH_PX == 600
    # Sized for a phone: never a strip, never a scroll of several screens.
    assert 150 <= height <= 900
    assert len(png) < 200_000


@pytest.mark.parametrize(("engine", "players", "options"), ENGINES)
def test_the_picture_draws_no_names(engine: str, players: int, options: dict[str, Any]) -> None:
    """Names are the email's words (escaped there, and in the alt text's HTML attribute): the
    picture is the same whoever plays, so it can be shared."""
    state = position(engine, players, options, "middle")
    svg = pictures.board_svg(engine, state, 0, NAMES[:players])
    ET.fromstring(svg)
    assert svg == pictures.board_svg(engine, state, 0, ["x", "y", "z", "w"][:players])
    assert not any(name in svg for name in ("&lt;b&gt;", "Zoë", "Дмитрий"))
    png = pictures.board_png(engine, state, 0, NAMES[:players])
    assert png == pictures.board_png(engine, state, 0, ["x", "y", "z", "w"][:players])


@pytest.mark.parametrize(("engine", "players", "options"), ENGINES)
def test_the_last_turn_is_marked_unless_asked_not_to(
    engine: str, players: int, options: dict[str, Any]
) -> None:
    state = position(engine, players, options, "middle")
    marked = pictures.board_svg(engine, state, 0, NAMES[:players])
    plain = pictures.board_svg(engine, state, 0, NAMES[:players], last_turn_marked=False)
    assert 'class="last-move' in marked
    assert "last-move" not in plain
    start = position(engine, players, options, "start")
    assert "last-move" not in pictures.board_svg(engine, start, 0, NAMES[:players])


def test_the_marking_names_the_cells_of_the_last_move() -> None:
    state = position("gorami", 2, {}, "middle")
    svg = pictures.board_svg("gorami", state, 0, NAMES[:2])
    cell = state.history[-1][1:]
    assert f'class="last-move placed" data-cell="{cell}"' in svg
    state = position("mmw", 2, {}, "middle")
    svg = pictures.board_svg("mmw", state, 1, NAMES[:2])
    frm, to = state.history[-1].split("-")
    assert f'data-square="{frm}" data-last="from"' in svg
    assert f'data-square="{to}" data-last="to"' in svg


def test_width_can_be_chosen() -> None:
    state = position("mmw", 2, {}, "middle")
    assert png_size(pictures.board_png("mmw", state, 0, NAMES[:2], width_px=300))[0] == 300
    assert png_size(pictures.board_png("mmw", state, 0, NAMES[:2], width_px=1200))[0] == 1200
    with pytest.raises(ValueError):
        pictures.board_png("mmw", state, 0, NAMES[:2], width_px=0)


def test_pictures_are_cached_per_game_ply_and_side() -> None:
    state = position("mmw", 2, {}, "middle")
    first = pictures.board_png("mmw", state, 0, NAMES[:2], game_id="g1")
    assert pictures.board_png("mmw", state, 0, NAMES[:2], game_id="g1") is first
    # A spectator sees the first seat's side: the same picture.
    assert pictures.board_png("mmw", state, None, NAMES[:2], game_id="g1") is first
    other_side = pictures.board_png("mmw", state, 1, NAMES[:2], game_id="g1")
    assert other_side is not first and other_side != first
    later = state.play(state.legal_moves()[0])
    assert pictures.board_png("mmw", later, 0, NAMES[:2], game_id="g1") != first
    # GORami has one drawing for both seats.
    gorami = position("gorami", 2, {}, "middle")
    shared = pictures.board_png("gorami", gorami, 0, NAMES[:2], game_id="g2")
    assert pictures.board_png("gorami", gorami, 1, NAMES[:2], game_id="g2") is shared
    # Without a game id nothing is kept.
    assert pictures.board_png("mmw", state, 0, NAMES[:2]) is not first
    pictures.cache_clear()
    assert pictures.board_png("mmw", state, 0, NAMES[:2], game_id="g1") is not first


def test_the_cache_keeps_a_bounded_number(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(pictures, "CACHE_SIZE", 2)
    states = _game("mmw", 2, ())
    kept = [pictures.board_png("mmw", s, 0, NAMES[:2], game_id="m") for s in states[:3]]
    assert pictures.board_png("mmw", states[2], 0, NAMES[:2], game_id="m") is kept[2]
    assert pictures.board_png("mmw", states[0], 0, NAMES[:2], game_id="m") is not kept[0]


def test_a_broken_drawing_raises_render_error() -> None:
    with pytest.raises(pictures.RenderError):
        pictures.render_png("<svg xmlns='http://www.w3.org/2000/svg' width='10'><rect")


@pytest.mark.usefixtures("countdown_engine")
def test_an_engine_without_a_mail_drawing_sends_its_page_drawing() -> None:
    state = games.get("countdown").new(2)
    png = pictures.board_png("countdown", state, 0, ["a", "b"])
    assert png_size(png)[0] == 600


def test_alt_text_says_the_game_the_move_who_moves_and_the_scores() -> None:
    state = position("gorami", 2, {}, "middle")
    text = pictures.alt_text("gorami", state, 0, ["alice", "bob"])
    fish = state.scores()
    assert text.startswith(f"GORami board after move {len(state.history)} (last move ")
    assert state.history[-1] in text
    mover = ["alice", "bob"][state.to_move or 0]
    assert f": {mover} to move;" in text
    assert f"alice (yellow, you) {fish[0]} fish" in text
    assert f"bob (blue) {fish[1]} fish" in text
    assert "<" not in text


def test_alt_text_at_the_start_and_at_the_end() -> None:
    start = position("mmw", 2, {}, "start")
    assert pictures.alt_text("mmw", start, 1, ["red one", "blue one"]).startswith(
        "Martian Mud Wrestling board at the start: red one to move; "
    )
    end = position("marram", 4, {"variant": "pitchfork"}, "end")
    text = pictures.alt_text("marram", end, None, NAMES)
    assert "to move" not in text
    assert end.describe_outcome() is not None
    assert "{0}" not in text and "{1}" not in text
    for seat, score in enumerate(end.scores()):
        assert f"{score} points" in text
        assert NAMES[seat] in text


def test_alt_text_without_names_uses_the_colours() -> None:
    state = position("marram", 3, {"variant": "animals"}, "middle")
    text = pictures.alt_text("marram", state, 2, None)
    assert "Red " in text and "Violet " in text and "White (you) " in text
