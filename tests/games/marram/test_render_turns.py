"""Marram's page drawing tells what happened: every other seat's last turn (both actions) marked
in its colour and letter, tokens that stand out on any ground, tiles named for screen readers, and
the flip preview's warning of the tokens it removes."""

from __future__ import annotations

import random
import xml.etree.ElementTree as ET
from typing import Any

from pbem import games
from pbem.games.base import fill_names
from pbem.games.marram import render
from pbem.games.marram.rules import MarramState
from tests.games.marram.scenario import SAND, deck_for, edit, new, solo
from tests.games.marram.test_render import sample_view

SVG = "{http://www.w3.org/2000/svg}"
GAME = games.get("marram")
NAMES = ["Ann", "Bob", "Cy", "Di"]


def _classes(el: ET.Element) -> list[str]:
    return el.get("class", "").split()


def _marks(svg: str) -> dict[int, ET.Element]:
    root = ET.fromstring(svg)
    return {int(el.get("data-seat", "-1")): el for el in root.iter() if "last-turn" in _classes(el)}


def _three_player_turn() -> MarramState:
    """A 3-player game at the start of a seat's turn, both others having laid or flipped twice in
    their last turns."""
    for seed in range(40):
        rng = random.Random(seed)
        state = GAME.new(3, {"variant": "pitchfork"}, seed=seed)
        while state.outcome is None and len(state.history) < 40:
            state = state.play(rng.choice(state.legal_moves()))
            if len(state.history) >= 12 and not state.mid_turn and "pass" not in state.history[-6:]:
                assert isinstance(state, MarramState)
                return state
    raise AssertionError("no 3-player position without passes")


def _actions(state: MarramState) -> dict[int, dict[str, Any]]:
    return {
        int(e["ply"]): e for e in state.view(None)["log"] if e["type"] in ("place", "flip", "pass")
    }


def test_both_opponents_last_turns_are_marked_action_by_action_in_their_colours() -> None:
    state = _three_player_turn()
    me = state.to_move
    assert me is not None
    actions = _actions(state)
    plies = len(state.history)
    marks = _marks(GAME.render_svg(state, me, NAMES))
    assert set(marks) == {(me + 1) % 3, (me + 2) % 3}
    for seat, mark in marks.items():
        # The two seats after the viewer played the last four actions, two each, in turn order.
        first = plies - 4 if seat == (me + 1) % 3 else plies - 2
        assert mark.get("data-plies") == f"{first} {first + 1}"
        colour = render.SEAT_COLOURS[seat]
        letter = render.seat_letter(seat)
        done = mark.findall(f"{SVG}g")
        assert [el.get("data-label") for el in done] == [f"{letter}1", f"{letter}2"]
        for number, el in enumerate(done):
            event = actions[first + number]
            assert el.get("data-pos") == f"{event['x']},{event['y']}"
            assert el.get("data-ply") == str(first + number)
            strokes = {p.get("stroke") for p in el.iter(f"{SVG}path")}
            assert colour in strokes, "the outline is in the seat's colour"
            badge = next(g for g in el.iter(f"{SVG}g") if "badge" in _classes(g))
            assert badge.find(f"{SVG}rect").get("fill") == colour  # type: ignore[union-attr]
            assert "".join(badge.itertext()) == f"{letter}{number + 1}"
        title = mark.findtext(f"{SVG}title") or ""
        assert title.startswith(f"{NAMES[seat]}'s last turn: 1. {NAMES[seat]} ")
        assert f". 2. {NAMES[seat]} " in title


def test_the_panel_lists_the_marked_actions_with_their_badges_and_names() -> None:
    state = _three_player_turn()
    me = state.to_move
    assert me is not None
    root = ET.fromstring(GAME.render_svg(state, me, NAMES))
    lines = [el for el in root.iter() if "turn-line" in _classes(el)]
    assert len(lines) == 4
    view = state.view(me)
    for line in lines:
        ply = int(line.get("data-ply", "-1"))
        badge, *texts = ("".join(t.itertext()) for t in line.iter(f"{SVG}text"))
        assert badge[0] == render.seat_letter(int(line.get("data-seat", "-1")))
        said = fill_names(render.action_words(view, ply), NAMES)
        assert said.startswith(" ".join(texts).rstrip("…").rstrip())
    assert "Seat " not in ET.tostring(root, encoding="unicode")


def test_the_viewer_part_way_through_its_turn_sees_its_own_first_action() -> None:
    state = _three_player_turn()
    me = state.to_move
    assert me is not None
    move = next(m for m in state.legal_moves() if m != "pass")
    state = state.play(move)
    assert state.mid_turn
    marks = _marks(GAME.render_svg(state, me, NAMES))
    assert set(marks) == {0, 1, 2}
    [done] = marks[me].findall(f"{SVG}g")
    assert done.get("data-label") == f"{render.seat_letter(me)}1"


def test_actions_read_as_the_moves_stored_words() -> None:
    """The drawing's sentences come from the view alone, and say what the engine's do."""
    for seed, variant in enumerate(["classic", "pitchfork", "animals"] * 3):
        rng = random.Random(seed)
        state = GAME.new(2 + seed % 3, {"variant": variant}, seed=seed)
        while state.outcome is None:
            move = rng.choice(state.legal_moves())
            after, words = state.play_described(move)
            assert render.action_words(after.view(None), len(state.history)) == words
            state = after


def test_tokens_carry_their_seats_letter_and_a_ring_that_shows_on_any_ground() -> None:
    view = sample_view(0)
    view["players"] = 4
    view["board"][0]["tokens"] = [
        {"seat": s, "kind": k, "loc": loc}
        for s, (k, loc) in enumerate([("boot", "NW"), ("fork", "E"), ("bet", "W"), ("boot", "SE")])
    ]
    root = ET.fromstring(render.render_svg(view))
    tokens = [el for el in root.iter() if "token" in _classes(el)]
    assert {int(el.get("data-seat", "-1")) for el in tokens} >= {0, 1, 2, 3}
    for token in tokens:
        seat = int(token.get("data-seat", "-1"))
        assert "".join(token.itertext()) == render.seat_letter(seat)
        ring, *rest = list(token)
        assert render.SEAT_HALOS[seat] in (ring.get("stroke"), ring.get("fill")), "a ring first"
        assert render.SEAT_OUTLINES[seat] in {el.get("stroke") for el in rest}
    # The white seat: white body, dark outline, white ring; the black seat the other way round.
    assert render.SEAT_OUTLINES[2] == render.SEAT_HALOS[3] == "#212529"
    assert [render.seat_letter(s) for s in range(4)] == ["R", "V", "W", "B"]


def test_a_laid_tile_is_named_for_screen_readers() -> None:
    view = sample_view(0)
    root = ET.fromstring(render.render_svg(view, NAMES[:2]))
    tile = next(el for el in root.iter() if el.get("data-pos") == "0,1" and "tile" in _classes(el))
    name = (
        "tile 3 at (0,1): grass and sand, worm, 1 gold coin, 1 silver coin, 2 flowers; "
        "Bob's boot on SE, Ann's boot on SE"
    )
    assert tile.get("data-name") == name
    assert tile.findtext(f"{SVG}title") == name
    flippable = next(
        el for el in root.iter() if el.get("data-pos") == "1,0" and el.get("data-tile")
    )
    assert flippable.get("data-name", "").endswith("; can be flipped")
    assert "a frog on W" in flippable.get("data-name", "")
    frontier = next(el for el in root.iter() if "frontier" in _classes(el))
    assert frontier.get("data-name") == f"open place at ({frontier.get('data-pos')})"
    hand = [el.get("data-name") for el in root.iter() if el.get("data-hand")]
    assert hand == ["tile 12 in your hand", "tile 20 in your hand", "tile 33 in your hand"]
    board = ET.fromstring(render.render_svg(view))
    assert board.get("role") == "group"
    assert board.get("aria-label") == "Marram board: Red to move, 2 actions left"


def test_previews_name_the_places_a_token_can_go() -> None:
    view = sample_view(0)
    previews = render.previews(view, ["place 12 2,0 0 fork N"])
    root = ET.fromstring(f'<svg xmlns="http://www.w3.org/2000/svg">{previews["front:12:0"]}</svg>')
    names = {el.get("data-loc"): el.get("data-name") for el in root.iter() if el.get("data-loc")}
    assert names["NW"] == "NW quadrant, grass" and names["NE"] == "NE quadrant, sand"
    assert names["N"] == "N spoke, orange snake"


def _flip_position() -> MarramState:
    """Ann to act again, with her boot and Bob's on a tile she may flip."""
    tile = {
        "q": "ggss",
        "pieces": ["o:end:W"],
        "back": {"q": "ggss", "pieces": ["o:end:W"], "coins": [["NW", "gold"]]},
    }
    deck, ids = deck_for([tile], SAND)
    state = new(deck, start={"q": "ggss", "pieces": ["o:mid:E-W"]})
    state = solo(state, f"place {ids[0]} 1,0 0 boot NE")
    data = state.to_json()
    data["tokens"].append([1, "boot", 1, 0, "SE"])
    return edit(state, tokens=data["tokens"])


def test_the_flip_preview_names_the_tokens_a_flip_removes() -> None:
    state = _flip_position()
    assert any(m.startswith("flip 1,0") for m in state.legal_moves())
    flips = GAME.board_assets(state, 0, NAMES)["flips"]
    flip = flips["1,0"]
    assert flip["warning"] == "Flipping the tile at (1,0) removes your boot and Bob's boot."
    assert flip["lost"] == [
        {"seat": 0, "kind": "boot", "loc": "NE"},
        {"seat": 1, "kind": "boot", "loc": "SE"},
    ]
    marks = ET.fromstring(f'<svg xmlns="http://www.w3.org/2000/svg">{flip["marks"]}</svg>')
    crossed = [el for el in marks.iter() if "lost-token" in _classes(el)]
    assert [(el.get("data-seat"), el.get("data-loc")) for el in crossed] == [
        ("0", "NE"),
        ("1", "SE"),
    ]
    # Without names, the seats' colour words; the flip's own words agree on what is lost.
    plain = GAME.board_assets(state, 0)["flips"]["1,0"]["warning"]
    assert plain == "Flipping the tile at (1,0) removes your boot and Violet's boot."
    assert "Ann's boot and Bob's boot there were lost" in fill_names(
        state.describe("flip 1,0 0"), NAMES
    )


def test_a_flip_that_removes_nothing_says_nothing() -> None:
    state = edit(_flip_position(), tokens=[])
    flip = GAME.board_assets(state, 0, NAMES)["flips"]["1,0"]
    assert flip["lost"] == [] and flip["warning"] == "" and flip["marks"] == ""
    assert GAME.board_assets(state, 1, NAMES) == {}, "only on the seat's own turn"


def test_words_in_the_drawing_are_written_as_a_person_would() -> None:
    view = sample_view(0)
    view["bag"] = 1
    view["actions_left"] = 1
    svg = render.render_svg(view)
    assert "Bag: 1 tile ·" in svg and "1 action left" in svg
    text = render.render_text(view)
    assert "1 action left" in text and "(s)" not in text


def test_the_page_can_start_a_small_screen_on_the_last_turns() -> None:
    state = _three_player_turn()
    me = state.to_move
    root = ET.fromstring(GAME.render_svg(state, me, NAMES))
    x, y, w, h = (float(v) for v in root.get("data-focus", "").split())
    for el in root.iter():
        if "last-action" in _classes(el):
            rect = next(el.iter(f"{SVG}path"))
            # The outline's first corner lies inside the focus box.
            mx, my = (float(v) for v in rect.get("d", "")[1:].split("h")[0].split())
            assert x <= mx <= x + w and y <= my <= y + h


def test_a_flip_that_removes_tokens_is_warned_of_by_its_move() -> None:
    """The page shows `warnings[prefix]` under a chosen move: a flip removing tokens has one."""
    state = GAME.new(2, {}, seed=7)
    rng = random.Random(1)
    while state.outcome is None:
        warnings = GAME.board_assets(state, state.to_move, ["Ann", "Bob"]).get("warnings", {})
        if warnings:
            key, sentence = next(iter(warnings.items()))
            assert key.startswith("flip ") and sentence.startswith("Flipping the tile at (")
            assert any(move.startswith(key + " ") for move in state.legal_moves())
            return
        state = state.play(rng.choice(state.legal_moves()))
    raise AssertionError("no flip removed a token in a whole game")
