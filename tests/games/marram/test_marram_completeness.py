"""Scoring only complete features: searches from several start points must not share state.

The scoring after an action looks for complete regions from each quadrant of the acted tile (and,
in Pitchfork and Animals, from the quadrants beside spokes freed by a removed creature). Once, those
searches shared one visited set: a search that stopped early at an open side left part of its region
marked, and a later start in the same region explored only the rest, found it closed and scored
the region although it was open.
"""

from __future__ import annotations

from typing import Any

import pytest

from pbem.games.marram.features import complete_regions_at, creatures_on, region_at
from tests.games.marram.scenario import (
    GRASS,
    RING_TILES,
    deck_for,
    new,
    removed,
    ring,
    scored,
    solo,
    tokens,
)


@pytest.mark.parametrize("variant", ["classic", "pitchfork", "animals"])
def test_an_open_region_is_not_scored_when_a_later_search_sees_only_its_closed_part(
    variant: str,
) -> None:
    state, ids = ring(RING_TILES, variant)
    before = len(scored(state))
    state = state.play(f"place {ids[6]} 0,1 0 boot SE")
    mound = region_at(state.board, (0, 1), 2)
    assert mound.tiles == 8 and not mound.closed and mound.surrounded
    assert scored(state)[before:] == [], "an open sand mound was scored"
    assert state.scores()[0] == 0
    assert (0, "boot", 0, 1, "SE") in tokens(state), "the boot stays on the open mound"


def test_the_answer_does_not_depend_on_the_order_of_the_start_points() -> None:
    state, ids = ring(RING_TILES)
    state = state.play(f"place {ids[6]} 0,1 0")
    nodes = [((0, 1), q) for q in range(4)]
    for first in range(4):
        order = nodes[first:] + nodes[:first]
        assert complete_regions_at(state.board, order) == [], order
        assert complete_regions_at(state.board, order[::-1]) == [], order[::-1]


def test_closing_the_last_corner_scores_the_mound_once() -> None:
    state, ids = ring(RING_TILES)
    state = state.play(f"place {ids[6]} 0,1 0 boot SE")
    state = state.play(f"place {ids[7]} -1,2 0")
    (mound,) = [e for e in scored(state) if e["feature"] == "region" and e["terrain"] == "s"]
    assert mound["tiles"] == 9 and mound["value"] == 45 and mound["winners"] == [0]
    assert state.scores()[0] == 45
    assert (0, "boot", 0, 1, "SE") not in tokens(state)


def test_start_points_beside_freed_spokes_do_not_find_the_open_mound_closed() -> None:
    """Pitchfork: the acted tile completes a snake, which leaves the board; the quadrants beside
    its freed spokes are searched too, and they lie in the same open mound."""
    tiles = list(RING_TILES)
    tiles[2] = {"q": "sggs", "pieces": ["o:end:W"]}  # 1,1
    tiles[6] = {"q": "ssss", "pieces": ["o:end:E"]}  # 0,1: completes the snake
    state, ids = ring(tiles, "pitchfork")
    state = state.play(f"place {ids[6]} 0,1 0 boot SE")
    kinds = [(e["feature"], e.get("species") or e.get("terrain")) for e in scored(state)]
    assert kinds == [("creature", "o")], "only the snake is complete; the mound is open"
    assert removed(state, 0, 1) == ["E"] and removed(state, 1, 1) == ["W"]
    assert state.scores() == [0, 0]
    state = state.play(f"place {ids[7]} -1,2 0")
    mound = [e for e in scored(state) if e["feature"] == "region" and e["terrain"] == "s"]
    assert [(e["tiles"], e["value"], e["winners"]) for e in mound] == [(9, 27, [0])]


# A worm whose two ends lie on one tile, so that the tile holds two pieces of the same creature.
#   start 0,0: mid N-E; 1,0: mid W-N; 1,1: saddle S-W; 0,1: the tile laid last.
WORM_START = {"q": "gggg", "pieces": ["w:mid:N-E"]}
WORM_TILES: list[dict[str, Any]] = [
    {"q": "gggg", "pieces": ["w:mid:N-W"]},
    {"q": "gggg", "pieces": ["w:saddle:S-W"]},
]


@pytest.mark.parametrize(
    ("last", "complete"),
    [
        # Both ends close the loop: one valid worm of five pieces.
        ({"q": "gggg", "pieces": ["w:end:E", "w:end:S"]}, True),
        # A mid carries the worm on to the west, where nothing lies yet: still open.
        ({"q": "gggg", "pieces": ["w:end:E", "w:mid:S-W"]}, False),
    ],
)
def test_a_creature_crossing_the_acted_tile_twice_is_judged_whole(
    last: dict[str, Any], complete: bool
) -> None:
    """The creature search walks the whole creature from each start, so a creature met on two
    spokes of the acted tile is found once and is complete only if all of it is."""
    deck, ids = deck_for([*WORM_TILES, last], GRASS)
    state = new(deck, start=WORM_START)
    state = solo(state, f"place {ids[0]} 1,0 0", f"place {ids[1]} 1,1 0")
    state = solo(state, f"place {ids[2]} 0,1 0 boot E")
    (worm,) = creatures_on(state.board, (0, 1))
    assert worm.complete is complete
    assert worm.pieces == 5 and worm.tiles == 4
    worms = [e for e in scored(state) if e.get("species") == "w"]
    if complete:
        assert worm.valid
        assert [(e["value"], e["winners"]) for e in worms] == [(10, [0])]
        assert state.scores()[0] == 10
    else:
        assert worms == [] and state.scores()[0] == 0
        assert (0, "boot", 0, 1, "E") in tokens(state)
