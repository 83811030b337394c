"""The Marram renderer on real engine states: every viewer, every variant, start to finish."""

from __future__ import annotations

import random
import xml.etree.ElementTree as ET
from typing import Any

import pytest

from pbem import games
from pbem.games.marram import render

GAME = games.get("marram")


def playout(variant: str, seed: int, plies: int | None, players: int = 2) -> Any:
    """A seeded game that claims, bets and flips often, stopped after `plies` (None: the end)."""
    state = GAME.new(players, {"variant": variant, "length": "long"}, seed=seed)
    rng = random.Random(seed)
    while state.outcome is None and (plies is None or len(state.history) < plies):
        moves = state.legal_moves()
        extras = [m for m in moves if " boot " in m or " fork " in m or " bet " in m]
        flips = [m for m in moves if m.startswith("flip")]
        roll = rng.random()
        pool = flips if flips and roll < 0.1 else extras if extras and roll < 0.6 else moves
        state = state.play(rng.choice(pool))
    return state


def tiles_with(root: ET.Element, attr: str, value: str) -> list[ET.Element]:
    return [e for e in root.iter() if e.get(attr) == value and e.get("class") == "tile"]


STATES = [
    pytest.param(variant, seed, plies, id=f"{variant}-{seed}-{plies}")
    for variant in ("classic", "pitchfork", "animals")
    for seed, plies in ((1, 0), (2, 30), (3, 70), (4, None))
]


@pytest.mark.parametrize(("variant", "seed", "plies"), STATES)
def test_every_viewer_gets_a_well_formed_board(variant: str, seed: int, plies: int | None) -> None:
    state = playout(variant, seed, plies)
    for seat in (0, 1, None):
        view = state.view(seat)
        root = ET.fromstring(GAME.render_svg(state, seat))
        for laid in view["board"]:
            assert len(tiles_with(root, "data-pos", f"{laid['x']},{laid['y']}")) == 1
        hand = [e.get("data-tile") for e in root.iter() if e.get("data-hand") == "1"]
        assert hand == [str(t) for t in (view["hand"] or [])]
        # Nothing of another seat's hand shows up anywhere.
        for other in (0, 1):
            if other == seat:
                continue
            for tile in state.view(other)["hand"]:
                assert not [e for e in root.iter() if e.get("data-tile") == str(tile)]
        text = GAME.render_text(state, seat)
        assert ("Your hand" in text) == (seat is not None)


@pytest.mark.parametrize(("variant", "seed", "plies"), STATES)
def test_tokens_and_removed_pieces_follow_the_view(
    variant: str, seed: int, plies: int | None
) -> None:
    state = playout(variant, seed, plies)
    view = state.view(None)
    root = ET.fromstring(render.render_svg(view))
    for laid in view["board"]:
        (tile,) = tiles_with(root, "data-pos", f"{laid['x']},{laid['y']}")
        drawn = sorted(
            (int(e.get("data-seat", -1)), (e.get("class") or "").split()[1])
            for e in tile.iter()
            if (e.get("class") or "").startswith("token ")
        )
        assert drawn == sorted((t["seat"], f"token-{t['kind']}") for t in laid["tokens"])
        for glyph in (e for e in tile.iter() if (e.get("class") or "").startswith("token ")):
            seat = int(glyph.get("data-seat", -1))
            colour = render.SEAT_COLOURS[seat]
            assert any(colour in (c.get("fill"), c.get("stroke")) for c in glyph.iter())
        for piece in (e.get("data-piece", "") for e in tile.iter() if "data-piece" in e.attrib):
            spokes = piece.split(":")[2].split("-")
            assert not set(spokes) & set(laid["removed"])


def test_pitchfork_games_remove_completed_creatures_from_the_drawing() -> None:
    for seed in range(1, 30):
        state = playout("pitchfork", seed, None)
        view = state.view(None)
        if any(t["removed"] for t in view["board"]):
            break
    else:  # pragma: no cover - the standard set always completes some creature
        pytest.fail("no pitchfork playout removed a creature")
    root = ET.fromstring(render.render_svg(view))
    for laid in view["board"]:
        if not laid["removed"]:
            continue
        (tile,) = tiles_with(root, "data-pos", f"{laid['x']},{laid['y']}")
        for e in tile.iter():
            if "data-piece" in e.attrib:
                assert not set(e.get("data-piece", "").split(":")[2].split("-")) & set(
                    laid["removed"]
                )


def test_four_players_get_four_panel_rows_in_their_colours() -> None:
    state = playout("animals", 9, 20, players=4)
    root = ET.fromstring(GAME.render_svg(state, 2))
    rows = [e for e in root.iter() if e.get("class") == "seat"]
    assert [r.get("data-seat") for r in rows] == ["0", "1", "2", "3"]


def test_text_shows_every_seat_and_the_bag() -> None:
    state = playout("classic", 5, 25)
    text = GAME.render_text(state, 0)
    view = state.view(0)
    assert f"Bag {view['bag']}" in text
    for word in ("Red", "Violet"):
        assert word in text
    assert "Seat" not in text
    for tile in view["hand"]:
        assert str(tile) in text
    named = GAME.render_text(state, 0, names=["Ann", "Bob"])
    assert "> Ann" in named or "  Ann" in named
    assert "Bob" in named and "Red" not in named


def test_the_board_names_the_seats_by_their_display_names() -> None:
    state = playout("pitchfork", 6, 40)
    plain = GAME.render_svg(state, 0)
    assert "Seat" not in plain and "Red" in plain and "Violet" in plain
    named = GAME.render_svg(state, 0, names=["<Ann & Co>", "Bob\x07\n"])
    ET.fromstring(named)
    assert "&lt;Ann &amp; Co&gt;" in named and "Bob" in named
    assert "<Ann" not in named and "\x07" not in named
    assert "Red" not in named
    assert GAME.render_svg(state, 0, names=None) == plain


def test_single_tiles_of_the_standard_set_render() -> None:
    view = GAME.new(2, {"variant": "animals"}, seed=0).view(0)
    for tid in view["hand"]:
        desc = view["tiles"][str(tid)]
        faces = ["front", "back"] if desc.get("back") else ["front"]
        for face in faces:
            for rotation in (0, 90, 180, 270):
                ET.fromstring(render.render_tile_svg(desc, rotation, face, tile_id=tid))
