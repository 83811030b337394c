"""GORami and MMW states share their history (and MMW its repetition window) with the states they
were played from, as chains of pairs: the safety of that sharing.

Copy-on-play must hold for any tree of plays, not only a line; a state must pickle and copy however
long its history (a chain nests once per ply); MMW's count of a position must be the plain count
over the positions since the last sinking, which a model kept here from the views says.
"""

from __future__ import annotations

import copy
import json
import pickle
import random
import sys

import pytest

from pbem import games
from pbem.games.mmw import position

CASES = [("gorami", {"board": 16}), ("gorami", {"board": 22}), ("gorami", {"board": 24})]
CASES += [("mmw", {})]


def _line(name: str, options: dict[str, int], seed: int, plies: int) -> games.State:
    rng = random.Random(seed)
    state = games.get(name).new(2, options, seed=seed)
    for _ in range(plies):
        if state.outcome is not None:
            break
        state = state.play(rng.choice(state.legal_moves()))
    return state


@pytest.mark.parametrize(("name", "options"), CASES)
def test_every_branch_of_a_tree_of_plays_keeps_its_own_history(
    name: str, options: dict[str, int]
) -> None:
    for seed in range(4):
        root = _line(name, options, seed, 5)
        before = json.dumps(root.to_json())
        children = {move: root.play(move) for move in root.legal_moves()}
        grandchildren = [
            (move, reply, child.play(reply))
            for move, child in children.items()
            for reply in child.legal_moves()[:5]
        ]
        assert json.dumps(root.to_json()) == before
        for move, child in children.items():
            assert child.history == [*root.history, move]
        for move, reply, grandchild in grandchildren:
            assert grandchild.history == [*root.history, move, reply]
            again = games.get(name).from_json(json.loads(json.dumps(grandchild.to_json())))
            assert again.to_json() == grandchild.to_json()
            assert again.view(None) == grandchild.view(None)


def _long_mmw() -> games.State:
    """An MMW state with 5,000 moves of history (a stored game's JSON may say anything there)."""
    state = position({"a1": "r1", "e5": "b1"})
    data = state.to_json()
    data["history"] = ["a1-a2", "e5-e4", "a2-a1", "e4-e5"] * 1250
    return games.get("mmw").from_json(data)


def _quiet_mmw() -> games.State:
    """A running MMW state from random play with a long window behind it (many quiet plies)."""
    best = None
    for seed in range(20):
        rng = random.Random(seed)
        state = games.get("mmw").new(2, seed=seed)
        while state.outcome is None:
            if best is None or state.plies_without_sinking > best.plies_without_sinking:
                best = state
            state = state.play(rng.choice(state.legal_moves()))
    assert best is not None and best.plies_without_sinking > 80
    return best


def _state(which: str) -> games.State:
    if which == "mmw-long-history":
        return _long_mmw()
    if which == "mmw-quiet":
        return _quiet_mmw()
    name, options = CASES[int(which.rsplit("-", 1)[1])]
    return _line(name, options, 1, 1000)


@pytest.mark.parametrize(
    "which", ["mmw-long-history", "mmw-quiet", *(f"finished-{i}" for i in range(len(CASES)))]
)
def test_states_pickle_and_copy_however_long_their_history(which: str) -> None:
    state = _state(which)
    # Room for the copying machinery, far less than one level per ply of a 5,000-ply chain.
    depth, frame = 0, sys._getframe()
    while frame.f_back is not None:
        depth, frame = depth + 1, frame.f_back
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(depth + 200)
    try:
        copies = [
            pickle.loads(pickle.dumps(state)),
            copy.deepcopy(state),
            copy.copy(state),
        ]
    finally:
        sys.setrecursionlimit(limit)
    if state.view(None)["game"] == "gorami":
        # A GORami board's move tables go by reference, not as a megabyte of lists.
        assert len(pickle.dumps(state)) < 5_000
    for other in copies:
        assert other.to_json() == state.to_json()
        assert other.view(0) == state.view(0)
        assert other.legal_moves() == state.legal_moves()
        if state.outcome is None:
            move = state.legal_moves()[0]
            assert other.play(move).to_json() == state.play(move).to_json()


def _key(view: dict[str, object]) -> str:
    return json.dumps([view["stacks"], view["turn"]])


@pytest.mark.parametrize("seed", range(40))
def test_mmw_counts_positions_as_a_plain_list_of_them_would(seed: int) -> None:
    """Random games that often undo their own last move, checked ply by ply against the count
    over a list of the positions since the last sinking, and the third time ending the game."""
    rng = random.Random(seed)
    state = games.get("mmw").new(2, seed=seed)
    seen = [_key(state.view(None))]
    while state.outcome is None:
        moves = state.legal_moves()
        move = rng.choice(moves)
        history = state.history
        if len(history) >= 2 and rng.random() < 0.5:
            frm, to = history[-2].split("-")
            if f"{to}-{frm}" in moves:
                move = f"{to}-{frm}"
        state = state.play(move)
        view = state.view(None)
        if view["plies_without_sinking"] == 0:
            seen = []
        seen.append(_key(view))
        count = seen.count(seen[-1])
        assert view["occurrences"] == count
        if count >= 3:
            # The third time draws, unless the seat to move has no move: that loss comes first.
            assert state.outcome is not None
            assert state.outcome.reason in ("repetition", "no-move", "both-stuck")
        elif state.outcome is not None:
            assert state.outcome.reason != "repetition"
