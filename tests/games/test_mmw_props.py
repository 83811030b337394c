"""Property tests for Martian Mud Wrestling invariants over random games and positions."""

from __future__ import annotations

import json
from collections import Counter

from hypothesis import given, settings
from hypothesis import strategies as st

from pbem.games.mmw import GAME, MMWState, position

SQUARES = [f"{f}{r}" for f in "abcde" for r in range(1, 6)]
ALL_PYRAMIDS = [(colour, size) for colour in ("r", "b") for size in (1, 2, 3) for _ in range(5)]

Stacks = dict[str, list[tuple[str, int, bool]]]


def stacks(state: MMWState) -> Stacks:
    return {
        square: [(p["colour"], p["size"], p["touching"]) for p in pile]
        for square, pile in state.view(None)["squares"].items()
    }


def census(state: MMWState) -> Counter[tuple[str, int]]:
    """On the board plus sunk, per colour and size."""
    view = state.view(None)
    total: Counter[tuple[str, int]] = Counter()
    for pile in view["squares"].values():
        for p in pile:
            total[(p["colour"], p["size"])] += 1
    for seat, colour in enumerate(("red", "blue")):
        for size, sunk in enumerate(view["sunk_by_size"][seat], start=1):
            total[(colour, size)] += sunk
    return total


FULL = Counter({(colour, size): 5 for colour in ("red", "blue") for size in (1, 2, 3)})


@st.composite
def positions(draw: st.DrawFn) -> MMWState:
    """Any arrangement of any subset of the 30 pyramids (reachable or not), either to move."""
    order = draw(st.permutations(ALL_PYRAMIDS))
    places = draw(st.lists(st.sampled_from([*SQUARES, None]), min_size=30, max_size=30))
    squares: dict[str, list[str]] = {}
    for (colour, size), place in zip(order, places, strict=True):
        if place is not None:
            squares.setdefault(place, []).append(f"{colour}{size}")
    return position(squares, to_move=draw(st.integers(0, 1)))


def check_ply(before: MMWState, move: str, after: MMWState) -> None:
    old, new = stacks(before), stacks(after)
    frm, to = move.split("-")
    for square in SQUARES:
        if square not in (frm, to):
            assert new[square] == old[square]
    # The origin loses its top and nothing below changes.
    assert new[frm] == old[frm][:-1]
    colour, size, _ = old[frm][-1]
    touching = size > max((s for _, s, _ in old[to]), default=0)
    grown = [*old[to], (colour, size, touching)]
    points_on = sum(s for _, s, t in grown if t)
    points_off = sum(s for _, s, t in grown if not t)
    if points_on < points_off:
        assert new[to] == []
        assert after.view(None)["plies_without_sinking"] == 0
    else:
        # The pyramids already there keep their status; the newcomer is on top.
        assert new[to] == grown
        assert (
            after.view(None)["plies_without_sinking"]
            == before.view(None)["plies_without_sinking"] + 1
        )
    # A sunk pyramid never comes back.
    for seat in (0, 1):
        for size_index in range(3):
            assert (
                after.view(None)["sunk_by_size"][seat][size_index]
                >= before.view(None)["sunk_by_size"][seat][size_index]
            )
    assert census(after) == census(before)


def play_randomly(state: MMWState, choices: list[int]) -> None:
    for choice in choices:
        if state.outcome is not None:
            break
        moves = state.legal_moves()
        move = moves[choice % len(moves)]
        after = state.play(move)
        check_ply(state, move, after)
        state = after
        assert census(state) == FULL
        scores = state.scores()
        for seat, colour in enumerate(("red", "blue")):
            on_board = sum(1 for pile in stacks(state).values() for p in pile if p[0] == colour)
            assert scores[seat] == on_board


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(0, 10_000), min_size=1, max_size=300))
def test_random_games_keep_every_pyramid_accounted_for(choices: list[int]) -> None:
    play_randomly(GAME.new(2), choices)


@settings(max_examples=80, deadline=None)
@given(positions(), st.lists(st.integers(0, 10_000), min_size=1, max_size=40))
def test_random_positions_keep_every_pyramid_accounted_for(
    start: MMWState, choices: list[int]
) -> None:
    assert census(start) == FULL
    play_randomly(start, choices)


@settings(max_examples=40, deadline=None)
@given(st.lists(st.integers(0, 10_000), min_size=1, max_size=300))
def test_reached_stacks_are_never_under_water(choices: list[int]) -> None:
    """In a real game no stack, nor anything left of it after lifting tops, ever should sink."""
    state = GAME.new(2)
    for choice in choices:
        if state.outcome is not None:
            break
        moves = state.legal_moves()
        state = state.play(moves[choice % len(moves)])
        for pile in stacks(state).values():
            for height in range(1, len(pile) + 1):
                part = pile[:height]
                on = sum(s for _, s, t in part if t)
                off = sum(s for _, s, t in part if not t)
                assert on >= off
                # Status follows from arrival order alone.
                _, size, touching = part[-1]
                assert touching == (size > max((s for _, s, _ in part[:-1]), default=0))


@settings(max_examples=40, deadline=None)
@given(st.lists(st.integers(0, 10_000), min_size=1, max_size=250))
def test_json_round_trip_continues_the_same_game(choices: list[int]) -> None:
    state = GAME.new(2)
    for choice in choices:
        if state.outcome is not None:
            break
        again = GAME.from_json(json.loads(json.dumps(state.to_json())))
        assert again.to_json() == state.to_json()
        assert again.view(None) == state.view(None)
        moves = state.legal_moves()
        move = moves[choice % len(moves)]
        state = state.play(move)
        assert again.play(move).to_json() == state.to_json()


@settings(max_examples=60, deadline=None)
@given(positions())
def test_legal_moves_are_exactly_the_tops_of_the_mover(state: MMWState) -> None:
    if state.outcome is not None:
        assert state.legal_moves() == []
        return
    mover = ("red", "blue")[state.turn]
    tops = {sq for sq, pile in stacks(state).items() if pile and pile[-1][0] == mover}
    moves = state.legal_moves()
    assert moves == sorted(set(moves))
    assert {m.split("-")[0] for m in moves} == tops
    for move in moves:
        a, b = move.split("-")
        assert max(abs(ord(a[0]) - ord(b[0])), abs(int(a[1]) - int(b[1]))) == 1
