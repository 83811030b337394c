"""The answer to "moves": a few lines of moves in words, those doing the same thing together,
the rest counted, whatever the number of legal moves."""

from __future__ import annotations

import re

from pbem import games
from pbem.domain import move_groups

NAMES = ["Ann", "Bob"]


def test_a_marram_turn_is_a_few_lines_naming_tile_and_place() -> None:
    state = games.get("marram").new(2, {"variant": "animals"}, seed=3)
    listed = move_groups.listed(state, 0, NAMES)
    legal = state.legal_moves()
    assert listed.total == len(legal) > 40
    assert len(listed.groups) <= move_groups.GROUPS_SHOWN
    # Every legal move is on a line or counted; none twice.
    on_lines = sum(len(g.moves) + g.more for g in listed.groups)
    assert on_lines + listed.left_out == len(legal)
    for group in listed.groups:
        assert len(group.moves) <= move_groups.MOVES_PER_GROUP
        # "You placed a sand tile with 2 flowers (#16) at (0,-1)": who, what and where; never a
        # bare list of notation.
        assert group.words.startswith("You placed a ") and " tile" in group.words
        assert re.search(r" \(#\d+\) at \(-?\d+,-?\d+\)$", group.words)
        assert all(move.startswith("place ") for move in group.moves)
        assert all(state.describe(move).startswith("{0} placed") for move in group.moves)


def test_many_different_moves_are_cut_short_and_counted() -> None:
    state = games.get("gorami").new(2, {"board": 16}, seed=1)
    listed = move_groups.listed(state, 1, NAMES, shown=5)
    assert len(listed.groups) == 5 and listed.left_out == listed.total - 5
    first = listed.groups[0]
    # A move alone on its line is said whole, the reader as "you" and the others by name.
    assert first.moves == [state.legal_moves()[0]] and first.more == 0
    assert first.words == games.fill_names(state.describe(first.moves[0]), ["Ann", "you"]).replace(
        "you", "You", 1
    )
