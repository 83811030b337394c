"""Matching (rules 2), regions and creatures (3), validity and values (5.5) on scenarios."""

from __future__ import annotations

from typing import Any

import pytest

from pbem.games import IllegalMove
from pbem.games.marram.features import creature_at, region_at
from tests.games.marram.scenario import GRASS, SAND, deck_for, new, play, scored, solo

GGSS_ORANGE = {"q": "ggss", "pieces": ["o:mid:E-W"]}


def one(pieces: list[str], q: str = "ggss") -> dict[str, Any]:
    return {"q": q, "pieces": pieces}


# -- matching -----------------------------------------------------------------------------------


def test_matching_terrain_and_spokes() -> None:
    deck = [one(["o:end:W"]), {"q": "ssss", "pieces": ["o:end:W"]}, one(["w:end:W"]), SAND]
    state = new(deck + [SAND] * 4, start=GGSS_ORANGE)
    assert "place 1 1,0 0" in state.legal_moves()
    state.play("place 1 1,0 0")
    # Rotated half a turn the orange end points east: the west side then shows nothing.
    with pytest.raises(IllegalMove, match="west side") as caught:
        state.play("place 1 1,0 180")
    assert "nothing" in str(caught.value) and "orange snake" in str(caught.value)
    # Sand against grass along the west side.
    with pytest.raises(IllegalMove, match="west side") as caught:
        state.play("place 2 1,0 0")
    assert "sand, orange snake, sand" in str(caught.value)
    # A worm cannot meet an orange snake.
    with pytest.raises(IllegalMove, match="worm"):
        state.play("place 3 1,0 0")


def test_kinds_do_not_matter_when_matching() -> None:
    state = new([one(["b:head:W"]), one(["b:tail:E"]), SAND] + [SAND] * 6, start=one(["b:mid:E-W"]))
    state = play(state, "place 1 1,0 0", "place 2 -1,0 0")
    assert state.board[(1, 0)].tile == 1


def test_a_tile_must_touch_the_board_and_land_on_an_empty_position() -> None:
    state = new([SAND] * 9, start={"q": "ssss"})
    with pytest.raises(IllegalMove, match="does not share a side"):
        state.play("place 1 5,5 0")
    with pytest.raises(IllegalMove, match="already holds"):
        state.play("place 1 0,0 0")
    with pytest.raises(IllegalMove, match="not in your hand"):
        state.play("place 4 1,0 0")


# -- regions ------------------------------------------------------------------------------------


def test_quadrants_join_inside_a_tile_and_across_sides() -> None:
    state = new([{"q": "ggss"}, {"q": "gggg", "pieces": ["o:mid:N-S"]}] + [SAND] * 7,
                start={"q": "ggss"})  # fmt: skip
    state = play(state, "place 1 1,0 0")
    board = state.board
    grass = region_at(board, (0, 0), 0)
    # NW and NE of both tiles: same terrain, empty spoke N inside, facing quadrants across E/W.
    assert grass.nodes == {((0, 0), 0), ((0, 0), 1), ((1, 0), 0), ((1, 0), 1)}
    assert grass.tiles == 2 and not grass.closed
    sand = region_at(board, (0, 0), 2)
    assert ((0, 0), 0) not in sand.nodes
    state = play(state, "place 2 0,1 90")
    quads = region_at(state.board, (0, 1), 0)
    # Turned a quarter, the piece lies E-W: NW and SW stay apart, NW and NE join across N.
    assert ((0, 1), 3) not in quads.nodes and ((0, 1), 1) in quads.nodes
    assert not quads.surrounded


# The four tiles around one grass corner: the smallest region there is (4 bulges).
CORNER = [{"q": "gsss"}, {"q": "ssgs"}, {"q": "sssg"}]
CORNER_START = {"q": "sgss"}
CORNER_MOVES = ["place {} 1,0 0", "place {} 0,1 0", "place {} 1,1 0"]


def corner_game(tiles: list[dict[str, Any]], start: dict[str, Any], filler: dict[str, Any],
                variant: str = "classic") -> tuple[Any, list[str]]:  # fmt: skip
    deck, ids = deck_for(tiles, filler)
    state = new(deck, start=start, variant=variant)
    return state, [m.format(i) for m, i in zip(CORNER_MOVES, ids, strict=True)]


def test_a_region_completes_when_closed_and_surrounded() -> None:
    state, moves = corner_game(CORNER, CORNER_START, SAND)
    state = solo(state, moves[0] + " boot NW", moves[1])
    region = region_at(state.board, (1, 0), 0)
    assert not region.closed and region.surrounded
    assert scored(state) == []
    state = solo(state, moves[2])
    [event] = scored(state)
    assert event["feature"] == "region" and event["terrain"] == "g"
    assert event["tiles"] == 4 and event["value"] == 20 and event["winners"] == [0]
    assert state.scores() == [20, 0]
    assert state.view(0)["supplies"][0]["boots"] == 7, "the boot came back"


@pytest.mark.parametrize(
    ("variant", "grass", "sand"),
    [("classic", 5 * 4 + 5 + 3 + 3, 5 * 4 + 4 * 3), ("pitchfork", 3 * 4 + 4 + 2 + 2, 3 * 4 + 3 * 3),
     ("animals", 3 * 4 + 4 + 2 + 2, 3 * 4 + 3 * 3)],
)  # fmt: skip
def test_region_values(variant: str, grass: int, sand: int) -> None:
    tiles = [
        {"q": "gsss", "coins": [["NW", "gold"], ["NW", "silver"]]},
        {"q": "ssgs", "coins": [["SE", "silver"]]},
        {"q": "sssg"},
    ]
    state, moves = corner_game(tiles, CORNER_START, SAND, variant)
    state = solo(state, moves[0] + " boot NW", moves[1], moves[2])
    assert scored(state)[-1]["value"] == grass == state.scores()[0]
    # The same corner in sand, with flowers.
    tiles = [
        {"q": "sggg", "flowers": ["NW", "NW"]},
        {"q": "ggsg", "flowers": ["SE"]},
        {"q": "gggs"},
    ]
    state, moves = corner_game(tiles, {"q": "gsgg"}, GRASS, variant)
    state = solo(state, moves[0] + " boot NW", moves[1], moves[2])
    [event] = scored(state)
    assert event["terrain"] == "s" and event["value"] == sand == state.scores()[0]


def test_unclaimed_complete_features_score_for_nobody() -> None:
    state, moves = corner_game(CORNER, CORNER_START, SAND)
    state = solo(state, *moves)
    [event] = scored(state)
    assert event["winners"] == [] and state.scores() == [0, 0]


def two_claims(first: str, second: str, last_claim: str = "") -> Any:
    """Seat 0 claims the corner on its first tile, seat 1 on the second, seat 0 closes it."""
    deck = [CORNER[0], SAND, CORNER[2], CORNER[1], SAND, SAND] + [SAND] * 8
    state = new(deck, start=CORNER_START)
    state = play(state, f"place 1 1,0 0 {first}".strip(), "place 2 0,-1 0")
    state = play(state, f"place 4 0,1 0 {second}".strip(), "place 5 -1,0 0")
    return play(state, f"place 3 1,1 0 {last_claim}".strip())


def test_tied_majorities_share_fully() -> None:
    state = two_claims("boot NW", "boot SE")
    assert state.scores() == [20, 20]
    assert scored(state)[0]["winners"] == [0, 1]
    supplies = state.view(None)["supplies"]
    assert supplies[0]["boots"] == 7 and supplies[1]["boots"] == 7


def test_the_majority_takes_it_all() -> None:
    state = two_claims("boot NW", "boot SE", "boot SW")
    assert state.scores() == [20, 0]
    assert scored(state)[0]["winners"] == [0]
    assert state.view(None)["supplies"][1]["boots"] == 7, "the loser's boot comes back too"


def test_two_locations_of_one_feature_are_two_moves() -> None:
    deck, _ = deck_for([{"q": "ggss"}], SAND)
    state = new(deck, start={"q": "ggss"})
    moves = state.legal_moves()
    assert "place 1 1,0 0 boot NW" in moves and "place 1 1,0 0 boot NE" in moves


# -- creatures ----------------------------------------------------------------------------------

CREATURES = [
    # (start pieces, [(pieces, x, y)], species, valid, value)
    (["o:mid:E-W"], [(["o:end:W"], 1), (["o:end:E"], -1)], "o", True, 3),
    (["o:mid:E-W"], [(["o:mid:E-W"], 1), (["o:end:W"], 2), (["o:end:E"], -1)], "o", True, 4),
    (["w:saddle:E-W"], [(["w:end:W"], 1), (["w:end:E"], -1)], "w", True, 6),
    (["w:saddle:E-W"], [(["w:mid:E-W"], 1), (["w:end:W"], 2), (["w:end:E"], -1)], "w", True, 8),
    (["w:mid:E-W"], [(["w:end:W"], 1), (["w:end:E"], -1)], "w", False, 3),
    (["w:saddle:E-W"], [(["w:saddle:E-W"], 1), (["w:end:W"], 2), (["w:end:E"], -1)], "w", False, 3),
    (["b:mid:E-W"], [(["b:head:W"], 1), (["b:tail:E"], -1)], "b", True, 9),
    (["b:mid:E-W"], [(["b:mid:E-W"], 1), (["b:tail:W"], 2), (["b:head:E"], -1)], "b", True, 12),
    (["b:mid:E-W"], [(["b:head:W"], 1), (["b:head:E"], -1)], "b", False, 3),
    (["b:mid:E-W"], [(["b:tail:W"], 1), (["b:tail:E"], -1)], "b", False, 3),
    (["b:head:E"], [(["b:tail:W"], 1)], "b", False, 3),
    (["o:end:E"], [(["o:end:W"], 1)], "o", True, 2),
]


@pytest.mark.parametrize(("start", "tiles", "species", "valid", "value"), CREATURES)
@pytest.mark.parametrize("variant", ["classic", "pitchfork", "animals"])
def test_creature_completion_validity_and_value(
    start: list[str], tiles: list[tuple[list[str], int]], species: str, valid: bool, value: int,
    variant: str,
) -> None:  # fmt: skip
    deck, ids = deck_for([one(p) for p, _ in tiles], SAND)
    state = new(deck, start=one(start), variant=variant)
    claim = "boot" if variant == "classic" else "fork"
    moves = [f"place {i} {x},0 0" for i, (_, x) in zip(ids, tiles, strict=True)]
    moves[0] += f" {claim} W" if tiles[0][1] > 0 else f" {claim} E"
    state = solo(state, *moves[:-1])
    assert not creature_at(state.board, (0, 0), 0).complete
    assert scored(state) == []
    state = solo(state, moves[-1])
    [event] = scored(state)
    assert event["feature"] == "creature" and event["species"] == species
    assert event["valid"] is valid and event["value"] == value
    assert event["pieces"] == len(tiles) + 1 and event["tiles"] == len(tiles) + 1
    assert state.scores()[0] == value and event["winners"] == [0]
    supplies = state.view(0)["supplies"][0]
    assert supplies["boots"] + supplies["forks"] == (7 if variant == "classic" else 8)


def test_a_closed_loop_is_a_freak_beast() -> None:
    bends = [
        {"q": "gggg", "pieces": ["o:mid:N-W"]},
        {"q": "gggg", "pieces": ["o:mid:E-S"]},
        {"q": "gggg", "pieces": ["o:mid:S-W"]},
    ]
    deck, ids = deck_for(bends, GRASS)
    state = new(deck, start={"q": "gggg", "pieces": ["o:mid:N-E"]})
    state = solo(state, f"place {ids[0]} 1,0 0 boot N", f"place {ids[1]} 0,1 0")
    state = solo(state, f"place {ids[2]} 1,1 0")
    [event] = scored(state)
    assert event["species"] == "o" and event["valid"] is False and event["value"] == 3
    assert event["pieces"] == 4 and state.scores()[0] == 3


def test_creatures_are_scored_before_regions() -> None:
    # One tile completes an orange snake and the corner region next to it.
    start = {"q": "sgss", "pieces": ["o:end:S"]}
    tiles = [{"q": "gsss"}, {"q": "ssgs"}, {"q": "sssg"}, {"q": "ssss", "pieces": ["o:end:N"]}]
    deck, ids = deck_for(tiles, SAND)
    state = new(deck, start=start)
    state = solo(state, f"place {ids[0]} 1,0 0", f"place {ids[1]} 0,1 0", f"place {ids[3]} 0,-1 0")
    state = solo(state, f"place {ids[2]} 1,1 0")
    assert [e["feature"] for e in scored(state)] == ["creature", "region"]
