"""Each engine's mail drawing (`render_mail_svg`, `mail_drawing`): well-formed, 600 units wide,
from the reader's side where the game has sides, each seat's last turn marked, the same for
every reader of a side. The PNG and its cost are pbem.pictures' and bench/'s business."""

from __future__ import annotations

import itertools
import random
import re
import xml.etree.ElementTree as ET
from functools import cache

import pytest

from pbem import games
from pbem.games import drawing
from pbem.games.base import State
from pbem.games.marram import render as marram_render
from pbem.games.marram.rules import MarramState

SVG = "{http://www.w3.org/2000/svg}"


@cache
def _played(name: str, players: int, seed: int) -> list[State]:
    game = games.get(name)
    rng = random.Random(seed)
    state = game.new(players, seed=seed)
    states = [state]
    while state.outcome is None:
        state = state.play(rng.choice(state.legal_moves()))
        states.append(state)
    return states


def _marked(svg: str) -> list[ET.Element]:
    return [el for el in ET.fromstring(svg).iter() if "last-move" in el.get("class", "").split()]


@pytest.mark.parametrize(
    ("name", "players"), [("gorami", 2), ("mmw", 2), ("marram", 2), ("marram", 4)]
)
def test_the_mail_drawing_is_an_svg_600_wide_for_every_position(name: str, players: int) -> None:
    game = games.get(name)
    assert isinstance(game, games.Game)
    for state in _played(name, players, 1)[::5]:
        for seat in (None, *range(players)):
            svg = game.render_mail_svg(state, seat, ["a", "b", "c", "d"][:players])
            root = ET.fromstring(svg)
            assert root.get("width") == "600"
            assert root.get("viewBox", "").startswith("0 0 600 ")
            assert "mail" in root.get("class", "")
            # No page extras: hover titles, scripts, hit areas.
            assert root.find(f".//{SVG}title") is None
            assert "<script" not in svg and "transparent" not in svg


def test_gorami_marks_the_placed_cells_and_rings_the_turned_discs_in_the_movers_colours() -> None:
    game = games.get("gorami")
    found = False
    states = _played("gorami", 2, 3)
    for before, state in itertools.pairwise(states):
        captured = state.captured()  # type: ignore[attr-defined]
        mover = before.to_move
        # Seen by the other seat, the latest move is the mover's last turn and is marked.
        svg = game.render_mail_svg(state, 1 - (mover or 0), None)
        marks = {(el.get("class"), el.get("data-cell"), el.get("data-seat")) for el in _marked(svg)}
        assert ("last-move placed", state.history[-1][1:], str(mover)) in marks
        ringed = {cell for kind, cell, seat in marks if kind == "last-move captured"}
        assert set(captured) <= ringed
        assert {seat for _, _, seat in marks} <= {"0", "1"}
        found = found or bool(captured)
    assert found, "no game position turned a disc"


@pytest.mark.parametrize(("name", "players"), [("gorami", 2), ("mmw", 2), ("marram", 4)])
def test_the_picture_is_the_same_for_every_reader_of_a_side_and_names_nobody(
    name: str, players: int
) -> None:
    """One picture per side of the board (issue 32): nothing personal, no names, no words."""
    game = games.get(name)
    names = ["Ann <b>", "Bob & co", "Chloé", "Dmitri"][:players]
    for state in _played(name, players, 2)[::7]:
        drawings = {}
        for seat in (None, *range(players)):
            svg = game.render_mail_svg(state, seat, names)
            assert svg == game.render_mail_svg(state, seat, None)
            assert not any(part in svg for part in ("Ann", "Bob", "Chlo", "Dmitri", "you"))
            words = {"".join(el.itertext()) for el in ET.fromstring(svg).iter(f"{SVG}text")}
            # Only the board's own labels: file letters, rank numbers, cell names.
            assert all(re.fullmatch(r"[a-z]?\d*", word) for word in words), words
            drawings.setdefault(game.mail_side(seat), set()).add(svg)
        assert all(len(same) == 1 for same in drawings.values())
    sides = {game.mail_side(seat) for seat in (None, *range(players))}
    assert sides == ({0, 1} if name == "mmw" else {None})


def test_mmw_turns_the_board_for_seat_one_and_marks_both_last_moves() -> None:
    game = games.get("mmw")
    state = _played("mmw", 2, 2)[9]
    frm, to = state.history[-1].split("-")
    mover = 1 - (state.to_move or 0)
    earlier_from, earlier_to = state.history[-2].split("-")
    for seat in (0, 1):
        svg = game.render_mail_svg(state, seat, ["ann", "bob"])
        root = ET.fromstring(svg)
        marks = [
            (el.get("data-square"), el.get("data-last"), el.get("data-seat"))
            for el in _marked(svg)
            if el.get("data-square")
        ]
        # Each seat's latest move, whoever reads, in board order of the squares as drawn.
        expected = {
            (earlier_from, "from", str(mover ^ 1)),
            (earlier_to, "to", str(mover ^ 1)),
            (frm, "from", str(mover)),
            (to, "to", str(mover)),
        }
        assert set(marks) == expected
        assert sum("arrow" in el.get("class", "") for el in _marked(svg)) == 2
        files = {
            "".join(el.itertext()): float(el.get("x", "0"))
            for el in root.iter(f"{SVG}text")
            if "".join(el.itertext()) in ("a", "e")
        }
        assert (files["a"] < files["e"]) == (seat == 0)
    assert "last-move" not in game.render_mail_svg(state, 0, None, last_turn=False)


def _marram_turns(players: int, seed: int) -> list[MarramState]:
    return [s for s in _played("marram", players, seed) if isinstance(s, MarramState)]


def _actions(state: MarramState) -> dict[int, dict[str, object]]:
    return {
        int(e["ply"]): e
        for e in state.view(None)["log"]
        if e.get("type") in ("place", "flip", "pass")
    }


def test_marram_marks_every_seats_last_turn_in_order() -> None:
    checked = 0
    for state in _marram_turns(4, 5)[1:]:
        if state.mid_turn or state.outcome is not None:
            continue
        actions = _actions(state)
        # Each seat's latest actions, the seat that played longest ago first, the first of two
        # numbered 1: the same for every reader.
        latest: dict[int, list[int]] = {}
        for ply in sorted(actions):
            seat = int(actions[ply]["seat"])  # type: ignore[call-overload]
            turn = latest.get(seat)
            latest[seat] = [*turn, ply] if turn and turn[-1] == ply - 1 else [ply]
        expected = [
            (f"{actions[p]['x']},{actions[p]['y']}", str(seat), f"{'RVWB'[seat]}{n + 1}")
            for seat, plies in sorted(latest.items(), key=lambda item: item[1][0])
            for n, p in enumerate(plies)
            if actions[p]["type"] != "pass"
        ]
        svg = games.get("marram").render_mail_svg(state, state.to_move, None)
        marks = [
            (el.get("data-pos"), el.get("data-seat"), el.get("data-label")) for el in _marked(svg)
        ]
        assert marks == expected
        checked += 1
    assert checked > 10


def test_marram_mid_turn_marks_the_action_taken_so_far() -> None:
    state = next(s for s in _marram_turns(2, 4) if s.mid_turn)
    last = _actions(state)[len(state.history) - 1]
    svg = games.get("marram").render_mail_svg(state, 1, None)
    marked = [el.get("data-pos") for el in _marked(svg)]
    if last["type"] != "pass":
        assert marked[-1] == f"{last['x']},{last['y']}"


def test_marram_last_turn_from_a_hand_made_view() -> None:
    view = {
        "players": 2,
        "to_move": 1,
        "actions_left": 2,
        "history": ["place 1 0,1 0", "pass", "place 2 1,0 0", "flip 0,1 90"],
        "board": [
            {"x": 0, "y": 0, "tile": 0, "rotation": 0, "face": "front", "tokens": []},
            {"x": 0, "y": 1, "tile": 1, "rotation": 90, "face": "back", "tokens": []},
            {"x": 1, "y": 0, "tile": 2, "rotation": 0, "face": "front", "tokens": []},
        ],
        "tiles": {"0": {"q": "gggg"}, "1": {"q": "ssss", "back": {"q": "gsgs"}}, "2": {}},
        "log": [
            {"ply": 0, "type": "place", "seat": 0, "x": 0, "y": 1},
            {"ply": 1, "type": "pass", "seat": 0},
            {"ply": 2, "type": "place", "seat": 0, "x": 1, "y": 0},
            {"ply": 3, "type": "flip", "seat": 0, "x": 0, "y": 1},
        ],
        "scores": [0, 0],
    }
    svg = marram_render.render_mail_svg(view)
    assert [el.get("data-pos") for el in _marked(svg)] == ["1,0", "0,1"]
    assert not _marked(marram_render.render_mail_svg(view, last_turn=False))


def test_digits_and_numbers_are_path_data() -> None:
    for value in range(10):
        assert re.fullmatch(r"[MLCZ0-9. -]+", drawing.digits_path([(value, 10, 10, 14)]))
    minus = drawing.number_path(-12, 50, 50, 10)
    assert minus.count("M") == 3  # the minus, the 1, the 2
    assert drawing.number_path(7, 0, 0, 14) == drawing.digits_path([(7, 0, 0, 14)])
    assert drawing.dot_d(0, 0, 2).count("L") == 7
    assert drawing.digits_path([(42, 0, 0, 10)]) == ""
