"""Every engine's page drawing (`render_svg`): each other seat's last turn marked with its letter,
every cell, square or tile named for a screen reader, and words as a person writes them.

Nothing here names a game: turns are told from `to_move` and `mid_turn`, letters from the
summary's colours (`seat_mark`), so a new engine is held to the same."""

from __future__ import annotations

import json
import random
import re
import xml.etree.ElementTree as ET
from functools import cache

import pytest

from pbem import games
from pbem.games.base import State, seat_mark

SVG = "{http://www.w3.org/2000/svg}"
NAMED = {"cell", "square", "tile", "frontier", "hand-disc"}  # what a page may click or focus


def _classes(el: ET.Element) -> list[str]:
    return el.get("class", "").split()


@cache
def _game(name: str, players: int, seed: int) -> tuple[list[State], list[tuple[int, ...]]]:
    """A random game's positions, and its turns as tuples of plies, from who was to move and
    whether the turn went on (`mid_turn`)."""
    game = games.get(name)
    rng = random.Random(seed)
    state = game.new(players, seed=seed)
    states: list[State] = [state]
    turns: list[tuple[int, ...]] = []
    movers: list[int] = []
    going_on = False
    while state.outcome is None and len(states) < 60:
        assert state.to_move is not None
        ply = len(state.history)
        movers.append(state.to_move)
        if going_on:
            turns[-1] = (*turns[-1], ply)
        else:
            turns.append((ply,))
        state = state.play(rng.choice(state.legal_moves()))
        going_on = state.mid_turn
        states.append(state)
    return states, [(movers[t[0]], *t) for t in turns]


def _expected(turns: list[tuple[int, ...]], plies: int, viewer: int | None) -> set[str]:
    """`seat:plies` of the turns a drawing after `plies` moves marks for `viewer`: every other
    seat's latest, and the viewer's own when it is the latest of all."""
    seen = [(t[0], tuple(p for p in t[1:] if p < plies)) for t in turns if t[1] < plies]
    latest = {seat: ps for seat, ps in seen}
    last_seat = seen[-1][0] if seen else None
    return {
        f"{seat}:{' '.join(map(str, ps))}"
        for seat, ps in latest.items()
        if seat != viewer or seat == last_seat
    }


CASES = [(name, players) for name in games.names() for players in {2, games.get(name).max_players}]


@pytest.mark.parametrize(("name", "players"), CASES)
def test_each_other_seats_last_turn_is_marked_with_its_letter(name: str, players: int) -> None:
    game = games.get(name)
    for seed in range(3):
        states, turns = _game(name, players, seed)
        for state in states[:: max(1, len(states) // 12)]:
            letters = [seat_mark(line.colour) for line in state.summary(None).seats]
            for viewer in (None, *range(players)):
                root = ET.fromstring(game.render_svg(state, viewer))
                marks = [el for el in root.iter() if "last-turn" in _classes(el)]
                found = {f"{el.get('data-seat')}:{el.get('data-plies')}" for el in marks}
                assert found == _expected(turns, len(state.history), viewer), (seed, viewer)
                for mark in marks:
                    seat = int(mark.get("data-seat", "-1"))
                    assert mark.get("data-name"), "a mark says what the turn did"
                    assert mark.find(f"{SVG}title") is not None
                    labels = ["".join(t.itertext()) for t in mark.iter(f"{SVG}text")]
                    assert labels and all(label.startswith(letters[seat]) for label in labels)


def test_the_seats_of_every_game_have_letters_of_their_own() -> None:
    for name in games.names():
        game = games.get(name)
        state = game.new(game.max_players)
        letters = [seat_mark(line.colour) for line in state.summary(None).seats]
        assert len(set(letters)) == len(letters) and all(letters), name


@pytest.mark.parametrize("name", games.names())
def test_cells_tiles_and_squares_have_accessible_names(name: str) -> None:
    game = games.get(name)
    states, _ = _game(name, game.min_players, 7)
    for state in (states[0], states[len(states) // 2], states[-1]):
        for viewer in (None, 0):
            root = ET.fromstring(game.render_svg(state, viewer, ["Ann", "Bob", "Cy", "Di"]))
            assert root.get("role") == "group" and root.get("aria-label")
            named = [el for el in root.iter() if NAMED & set(_classes(el))]
            assert named
            for el in named:
                assert (el.get("data-name") or "").strip(), ET.tostring(el)[:120]
            titled = [el for el in named if {"cell", "square", "tile"} & set(_classes(el))]
            for el in titled:
                title = el.find(f"{SVG}title")
                assert title is not None and (title.text or "").strip()


PLY = re.compile(r"\bpl(?:y|ies)\b", re.I)
BAD_PLURAL = re.compile(r"\b1 (?:tiles|shovels|actions|moves|boots|forks|bets|points)\b")


def _words(svg: str) -> list[str]:
    root = ET.fromstring(svg)
    out = ["".join(el.itertext()) for el in root.iter() if el.tag in (f"{SVG}text", f"{SVG}title")]
    out += [
        v for el in root.iter() for k, v in el.attrib.items() if k in ("data-name", "aria-label")
    ]
    return out


@pytest.mark.parametrize("name", games.names())
def test_drawings_count_moves_and_give_no_reason_codes(name: str) -> None:
    game = games.get(name)
    for seed in range(4):
        state = game.new(game.min_players, seed=seed)
        rng = random.Random(seed)
        while state.outcome is None:
            state = state.play(rng.choice(state.legal_moves()))
        reason = state.outcome.reason
        for text in _words(game.render_svg(state, 0)):
            assert not PLY.search(text), text
            assert not BAD_PLURAL.search(text), text
            assert "(s)" not in text, text
            if "-" in reason:  # a code such as "no-move" reads as words elsewhere
                assert reason not in text, text


@pytest.mark.parametrize("name", games.names())
def test_board_assets_take_the_names(name: str) -> None:
    game = games.get(name)
    states, _ = _game(name, game.min_players, 3)
    for state in states[:10]:
        if state.to_move is None:
            continue
        assets = game.board_assets(state, state.to_move, ["Ann", "Bob", "Cy", "Di"])
        assert json.loads(json.dumps(assets)) == assets
        assert game.board_assets(state, state.to_move, None) == game.board_assets(
            state, state.to_move
        )
