"""Turns, claims, the flip, Pitchfork removal, Animals bets, dead tiles, pass and the end."""

from __future__ import annotations

import json
from typing import Any

import pytest

from pbem.games import IllegalMove, InvalidMove
from pbem.games.marram.rules import THRESHOLDS
from tests.games.marram.scenario import (
    GAME,
    GRASS,
    SAND,
    deck_for,
    edit,
    events,
    filler_move,
    new,
    play,
    removed,
    scored,
    solo,
    tokens,
)


def one(pieces: list[str], q: str = "ggss", **more: Any) -> dict[str, Any]:
    return {"q": q, "pieces": pieces, **more}


ORANGE_START = one(["o:mid:E-W"])

# -- set-up and turns ---------------------------------------------------------------------------


def test_options_and_setup() -> None:
    assert dict(GAME.options) == {
        "variant": ("classic", "pitchfork", "animals"),
        "length": ("short", "long"),
    }
    state = GAME.new(3, {"variant": "Pitchfork"}, seed=5)
    view = state.view(None)
    assert view["variant"] == "pitchfork" and view["length"] == "short"
    assert view["threshold"] == 90 and view["hand_sizes"] == [3, 3, 3]
    assert view["bag"] + sum(view["hand_sizes"]) + len(view["discarded"]) == 84
    assert view["supplies"][0] == {"boots": 5, "forks": 3, "shovels": 3, "bets": 0}
    assert GAME.new(2, {"variant": "animals"}).view(0)["supplies"][1]["bets"] == 2
    assert GAME.new(2).view(0)["supplies"][0] == {"boots": 7, "forks": 0, "shovels": 3, "bets": 0}
    assert GAME.new(2, {"length": "long"}).view(None)["threshold"] is None
    with pytest.raises(ValueError, match="players"):
        GAME.new(5)
    with pytest.raises(ValueError, match="variant"):
        GAME.new(2, {"variant": "chess"})


def test_the_standard_set_is_shuffled_from_the_seed_and_dealt_in_seat_order() -> None:
    a, b = GAME.new(2, seed=1), GAME.new(2, seed=2)
    assert a.to_json()["bag"] != b.to_json()["bag"]
    assert GAME.new(2, seed=1).to_json() == a.to_json()
    deck = [SAND] * 10
    state = new(deck, start={"q": "ssss"}, players=3)
    data = state.to_json()
    assert data["hands"] == [[1, 2, 3], [4, 5, 6], [7, 8, 9]] and data["bag"] == [10]
    assert data["board"] == [[0, 0, 0, 0, 0, 0]]


def test_two_actions_per_turn_then_draw() -> None:
    state = new([SAND] * 12, start={"q": "ssss"})
    view = state.view(0)
    assert (view["to_move"], view["actions_left"]) == (0, 2)
    state = state.play("place 1 1,0 0")
    view = state.view(0)
    assert (view["to_move"], view["actions_left"], view["hand"]) == (0, 1, [2, 3])
    state = state.play("place 2 2,0 0")
    view = state.view(0)
    assert (view["to_move"], view["actions_left"], view["hand"]) == (1, 2, [3, 7, 8])
    assert view["bag"] == 4 and view["hand_sizes"] == [3, 3]


# -- claims -------------------------------------------------------------------------------------


def test_claims_per_variant() -> None:
    deck, _ = deck_for([one(["o:end:W"])], SAND)
    classic = new(deck, start=ORANGE_START)
    moves = classic.legal_moves()
    assert "place 1 1,0 0 boot W" in moves and "place 1 1,0 0 boot NE" in moves
    assert not any("fork" in m or "bet" in m for m in moves)
    with pytest.raises(IllegalMove, match="no pitchforks in Classic"):
        classic.play("place 1 1,0 0 fork W")
    with pytest.raises(IllegalMove, match="carries no creature"):
        classic.play("place 1 1,0 0 boot E")
    with pytest.raises(IllegalMove, match="only used in Animals"):
        classic.play("place 1 1,0 0 bet W")
    fork = new(deck, start=ORANGE_START, variant="pitchfork")
    moves = fork.legal_moves()
    assert "place 1 1,0 0 fork W" in moves and "place 1 1,0 0 boot NE" in moves
    assert "place 1 1,0 0 boot W" not in moves and "place 1 1,0 0 fork NE" not in moves
    with pytest.raises(IllegalMove, match="boot goes on a quadrant"):
        fork.play("place 1 1,0 0 boot W")
    with pytest.raises(IllegalMove, match="pitchfork goes on a spoke"):
        fork.play("place 1 1,0 0 fork NE")
    state = fork.play("place 1 1,0 0 fork W")
    assert tokens(state) == [(0, "fork", 1, 0, "W")]
    assert state.view(0)["supplies"][0]["forks"] == 2


def test_no_claim_without_tokens_left() -> None:
    deck, _ = deck_for([{"q": "ssss"}], SAND)
    state = new(deck, start={"q": "ssss"})
    data = state.to_json()
    data["supplies"][0][0] = 0
    state = edit(state, supplies=data["supplies"])
    assert not any("boot" in m for m in state.legal_moves())
    with pytest.raises(IllegalMove, match="no boots left"):
        state.play("place 1 1,0 0 boot NW")


def test_a_feature_may_hold_several_tokens_even_ones_own() -> None:
    deck = [{"q": "ssss"}] * 12
    state = new(deck, start={"q": "ssss"})
    state = play(state, "place 1 1,0 0 boot NW", "place 2 2,0 0 boot NW")
    assert len(tokens(state)) == 2


# -- the flip -----------------------------------------------------------------------------------

# Its back, turned half a turn, shows the same sides with the end on the other spoke pair.
FLIPPER = one(["o:end:W"], coins=[["NW", "gold"]], back=one(["o:end:E"], q="ssgg"))


def flip_game(tile: dict[str, Any] = FLIPPER, variant: str = "classic") -> Any:
    deck, ids = deck_for([tile, one(["o:end:E"])], SAND)
    state = new(deck, start=ORANGE_START, variant=variant)
    return state, ids


def test_flip_spends_a_shovel_and_the_back_rotation_is_absolute() -> None:
    state, ids = flip_game()
    state = solo(state, f"place {ids[0]} 1,0 0 boot NE")
    assert "flip 1,0 180" in state.legal_moves()
    with pytest.raises(IllegalMove, match="rotations that fit here: 180"):
        state.play("flip 1,0 0")
    state = state.play("flip 1,0 180")
    view = state.view(0)
    laid = next(b for b in view["board"] if (b["x"], b["y"]) == (1, 0))
    assert laid["face"] == "back" and laid["rotation"] == 180
    assert view["supplies"][0]["shovels"] == 2
    # The boot on the flipped tile left the game.
    assert view["supplies"][0]["boots"] == 6 and laid["tokens"] == []
    assert state.to_json()["lost"][0] == [1, 0, 1, 0]
    [flip] = events(state, "flip")
    assert flip["lost"] == [{"seat": 0, "kind": "boot", "loc": "NE"}]
    # A back shows no shovel: it cannot be flipped again.
    assert not any(m.startswith("flip 1,0") for m in state.legal_moves())
    state = solo(state, f"place {ids[1]} -1,0 0")
    with pytest.raises(IllegalMove, match="shows no shovel"):
        state.play("flip 1,0 180")
    with pytest.raises(IllegalMove, match="shows no shovel"):
        state.play("flip 0,0 0")
    with pytest.raises(IllegalMove, match="no tile at"):
        state.play("flip 7,7 0")


def test_no_flip_without_a_shovel() -> None:
    state, ids = flip_game()
    state = solo(state, f"place {ids[0]} 1,0 0")
    data = state.to_json()
    data["supplies"][0][2] = 0
    state = edit(state, supplies=data["supplies"])
    assert not any(m.startswith("flip") for m in state.legal_moves())
    with pytest.raises(IllegalMove, match="no shovel left"):
        state.play("flip 1,0 180")


def test_a_flip_no_rotation_fits_is_illegal() -> None:
    tile = one(["o:end:W"], back=one(["w:end:W"]))
    state, ids = flip_game(tile)
    state = solo(state, f"place {ids[0]} 1,0 0")
    assert not any(m.startswith("flip") for m in state.legal_moves())
    with pytest.raises(IllegalMove, match="no rotation of the back fits"):
        state.play("flip 1,0 0")


def test_a_flip_scores_a_recompleted_feature_again() -> None:
    state, ids = flip_game()
    state = solo(state, f"place {ids[0]} 1,0 0 boot W", f"place {ids[1]} -1,0 0")
    assert [e["value"] for e in scored(state)] == [3] and state.scores()[0] == 3
    state = solo(state, "flip 1,0 180 boot W")
    assert [e["value"] for e in scored(state)] == [3, 3] and state.scores()[0] == 6
    assert state.view(0)["supplies"][0]["boots"] == 7
    # A flip with no token on the feature scores it for nobody.
    state, ids = flip_game()
    state = solo(state, f"place {ids[0]} 1,0 0 boot W", f"place {ids[1]} -1,0 0", "flip 1,0 180")
    assert scored(state)[-1]["winners"] == [] and state.scores()[0] == 3


def test_flipping_a_bend_into_two_ends_completes_both_halves() -> None:
    start = one(["o:end:E"])
    bend = {"q": "ggss", "pieces": ["o:mid:S-W"], "back": {"q": "ggss",
            "pieces": ["o:end:S", "o:end:W"]}}  # fmt: skip
    below = {"q": "ssss", "pieces": ["o:mid:N-S"]}
    deck, ids = deck_for([bend, below], SAND)
    state = new(deck, start=start)
    state = solo(state, f"place {ids[0]} 1,0 0", f"place {ids[1]} 1,-1 0")
    assert scored(state) == []
    state = solo(state, "flip 1,0 0")
    [event] = scored(state)
    assert event["pieces"] == 2 and event["valid"]


# -- Pitchfork ----------------------------------------------------------------------------------

# A grass corner at (0.5, 0.5) whose border an orange snake crosses between (0,0) and (1,0); the
# snake is completed far away at (1,-1).
P_START = {"q": "sgss", "pieces": ["o:end:E"]}
P_TILES = [
    {"q": "gsss", "pieces": ["o:mid:S-W"]},
    {"q": "ssgs"},
    {"q": "sssg"},
    {"q": "ssss", "pieces": ["o:end:N"]},
]


def pitchfork_game(variant: str) -> Any:
    deck, ids = deck_for(P_TILES, SAND)
    state = new(deck, start=P_START, variant=variant)
    state = solo(
        state, f"place {ids[0]} 1,0 0", f"place {ids[1]} 0,1 0", f"place {ids[2]} 1,1 0 boot SW"
    )
    assert scored(state) == []
    return solo(state, f"place {ids[3]} 1,-1 0")


@pytest.mark.parametrize("variant", ["pitchfork", "animals"])
def test_pitchfork_removes_creatures_and_scores_the_regions_they_freed(variant: str) -> None:
    state = pitchfork_game(variant)
    creature, region = scored(state)
    assert creature["feature"] == "creature" and creature["winners"] == []
    assert region["feature"] == "region" and region["tiles"] == 4 and region["value"] == 12
    assert state.scores()[0] == 12
    assert removed(state, 0, 0) == ["E"] and removed(state, 1, 0) == ["S", "W"]
    assert removed(state, 1, -1) == ["N"]
    [gone] = events(state, "removed")
    assert gone["species"] == "o" and gone["pieces"] == 3
    # The freed spokes carry nothing now.
    assert state.board[(0, 0)].piece_at(1) == -1


def test_classic_creatures_stay_and_block_the_region() -> None:
    state = pitchfork_game("classic")
    [creature] = scored(state)
    assert creature["feature"] == "creature"
    assert removed(state, 0, 0) == [] and state.scores() == [0, 0]


# -- Animals ------------------------------------------------------------------------------------


@pytest.mark.parametrize(("animal", "points"), [("fly", 5), ("frog", 7)])
def test_a_valid_snake_eats_its_prey(animal: str, points: int) -> None:
    tile = one(["o:end:W"], prey=[["W", animal]])
    deck, ids = deck_for([tile, one(["o:end:E"])], SAND)
    state = new(deck, start=ORANGE_START, variant="animals")
    state = solo(state, f"place {ids[0]} 1,0 0 bet W")
    assert state.view(0)["supplies"][0]["bets"] == 1
    state = solo(state, f"place {ids[1]} -1,0 0")
    [eaten] = events(state, "eaten")
    assert eaten == {"ply": eaten["ply"], "type": "eaten", "seat": 0, "prey": animal,
                     "points": points, "x": 1, "y": 0, "loc": "W"}  # fmt: skip
    assert state.scores()[0] == points and state.view(0)["supplies"][0]["bets"] == 2
    assert scored(state)[0]["winners"] == [], "a bet is not a claim"


def test_bets_are_lost_on_a_freak_beast() -> None:
    tile = one(["b:head:W"], prey=[["W", "frog"]])
    deck, ids = deck_for([tile, one(["b:head:E"])], SAND)
    state = new(deck, start=one(["b:mid:E-W"]), variant="animals")
    state = solo(state, f"place {ids[0]} 1,0 0 bet W", f"place {ids[1]} -1,0 0")
    assert scored(state)[0]["valid"] is False
    assert events(state, "eaten") == [] and len(events(state, "bet-lost")) == 1
    assert state.scores()[0] == 0 and state.view(0)["supplies"][0]["bets"] == 1
    assert state.to_json()["lost"][0][3] == 1


def test_bets_are_lost_on_a_flip() -> None:
    tile = one(["o:end:W"], prey=[["W", "fly"]], back=one(["o:end:W"], prey=[["W", "frog"]]))
    deck, ids = deck_for([tile], SAND)
    state = new(deck, start=ORANGE_START, variant="animals")
    state = solo(state, f"place {ids[0]} 1,0 0 fork W bet W", "flip 1,0 0 bet W")
    [lost] = events(state, "bet-lost")
    assert lost["seat"] == 0 and lost["why"] == "flip"
    assert tokens(state) == [(0, "bet", 1, 0, "W")]
    sup = state.view(0)["supplies"][0]
    assert (sup["bets"], sup["forks"], sup["shovels"]) == (0, 2, 2)
    assert state.to_json()["lost"][0] == [0, 1, 1, 1]
    while state.to_move == 1:
        state = state.play(filler_move(state))
    assert state.legal_moves() and not any("bet" in m for m in state.legal_moves())


def test_bets_need_a_prey() -> None:
    deck, _ = deck_for([one(["o:end:W"])], SAND)
    state = new(deck, start=ORANGE_START, variant="animals")
    with pytest.raises(IllegalMove, match="no prey on spoke W"):
        state.play("place 1 1,0 0 bet W")


# -- dead tiles and pass ------------------------------------------------------------------------


def test_dead_tiles_are_discarded_and_replaced_again_and_again() -> None:
    dead = {"q": "ssss"}
    deck = [dead, GRASS, GRASS, GRASS, dead, GRASS, dead, GRASS, GRASS]
    state = new(deck, start={"q": "gggg"})
    view = state.view(0)
    # Tile 1 is dead; its replacement 7 is dead too; 8 lives. Seat 1's dead tile 5 stays.
    assert view["discarded"] == [1, 7] and view["hand"] == [2, 3, 8]
    assert view["hand_sizes"] == [3, 3] and view["bag"] == 1
    assert [e["tile"] for e in events(state, "discard")] == [1, 7]
    state = play(state, "place 2 1,0 0", "place 3 2,0 0")
    view = state.view(1)
    assert view["discarded"] == [1, 7, 5] and view["hand"] == [4, 6]
    assert state.view(0)["hand"] == [8, 9]
    assert "1" in view["tiles"] and "5" in view["tiles"]


def test_a_dead_tile_is_discarded_even_without_replacement() -> None:
    deck = [{"q": "ssss"}, GRASS, GRASS, GRASS, GRASS, GRASS]
    state = new(deck, start={"q": "gggg"})
    assert state.view(0)["hand"] == [2, 3] and state.view(0)["discarded"] == [1]


def test_pass_only_when_nothing_else_can_be_done() -> None:
    deck = [GRASS] * 6
    state = new(deck, start={"q": "gggg"})
    with pytest.raises(IllegalMove, match="only pass"):
        state.play("pass")
    state = play(state, "place 1 1,0 0", "place 2 2,0 0", "place 4 -1,0 0", "place 5 -2,0 0")
    state = play(state, "place 3 3,0 0")
    assert state.legal_moves() == ["pass"]
    with pytest.raises(IllegalMove):
        state.play("place 3 4,0 0")
    state = state.play("pass")
    assert state.to_move == 1 and state.history[-1] == "pass"
    assert events(state, "pass")[0]["seat"] == 0
    state = state.play("place 6 0,1 0")
    assert state.outcome is not None and state.outcome.reason == "tiles-out"
    assert state.outcome.winners == [0, 1], "everybody tied: a shared win"
    assert state.to_move is None and state.view(0)["actions_left"] == 0


def test_the_game_ends_when_nobody_can_act() -> None:
    # Y fits only at 0,1; Z fills that spot, so seat 1 is left holding a dead Y.
    start = {"q": "ssgg", "pieces": ["w:end:N"]}
    y = {"q": "ssss", "pieces": ["w:end:N"]}
    z = {"q": "ggss", "pieces": ["w:end:S"]}
    deck = [z, GRASS, GRASS, y, GRASS, GRASS]
    state = new(deck, start=start, variant="classic")
    state = play(state, "place 2 0,-1 0", "place 3 0,-2 0")
    assert state.view(1)["hand"] == [4, 5, 6]
    state = play(state, "place 5 0,-3 0", "place 6 0,-4 0")
    state = state.play("place 1 0,1 0 boot S")
    assert state.outcome is not None and state.outcome.reason == "no-action"
    assert state.view(1)["hand"] == [4]
    # Z closed a two-ended worm without a saddle: a freak beast worth 3.
    assert state.scores() == [3, 0] and state.outcome.winners == [0]
    assert events(state, "end-bonus") == []


# -- the end ------------------------------------------------------------------------------------


@pytest.mark.parametrize("variant", ["classic", "pitchfork", "animals"])
@pytest.mark.parametrize("players", [2, 3, 4])
def test_short_game_thresholds(variant: str, players: int) -> None:
    threshold = THRESHOLDS[variant][players - 2]
    assert threshold == {"classic": [80, 60, 50]}.get(variant, [120, 90, 60])[players - 2]
    state = GAME.new(players, {"variant": variant}, seed=11)
    assert state.view(None)["threshold"] == threshold
    below = edit(state, scores=[0] * (players - 1) + [threshold - 1])
    after = below
    for _ in range(2):
        after = after.play(after.legal_moves()[0])
    if after.outcome is None:
        assert after.to_move == 1
    at = edit(state, scores=[0] * (players - 1) + [threshold])
    mid = at.play(at.legal_moves()[0])
    assert mid.outcome is None, "the threshold is checked at the end of a turn"
    done = mid.play(mid.legal_moves()[0])
    assert done.outcome is not None and done.outcome.reason == "threshold"
    assert done.outcome.winners == [players - 1] and done.to_move is None
    assert done.legal_moves() == []
    with pytest.raises(IllegalMove, match="over"):
        done.play("pass")
    long_state = GAME.new(players, {"variant": variant, "length": "long"}, seed=11)
    long_state = edit(long_state, scores=[0] * (players - 1) + [threshold])
    long_state = play(long_state, long_state.legal_moves()[0])
    long_state = play(long_state, long_state.legal_moves()[0])
    assert long_state.outcome is None


def test_the_threshold_wins_over_tiles_running_out_and_gives_no_bonus() -> None:
    deck = [one([], q="gggg")] * 6
    state = new(deck, start={"q": "gggg"}, length="short")
    state = play(state, "place 1 1,0 0 boot NW", "place 2 2,0 0", "place 4 -1,0 0")
    state = play(state, "place 5 -2,0 0", "place 3 3,0 0")
    state = edit(state, scores=[80, 0])
    state = state.play("pass")
    assert state.outcome is not None and state.outcome.reason == "threshold"
    assert events(state, "end-bonus") == []


def test_long_game_end_bonus_for_incomplete_claimed_features() -> None:
    grassy = {"q": "gggg", "coins": [["SE", "gold"], ["SE", "silver"]]}
    deck = [one(["o:end:W"]), grassy, SAND, SAND, SAND, SAND]
    state = new(deck, start=ORANGE_START)
    state = play(state, "place 1 1,0 0 boot W", "place 3 0,-1 0")
    state = play(state, "place 4 0,-2 0 boot SE", "place 5 0,-3 0 boot SE")
    state = play(state, "place 2 0,1 0 boot SE")
    assert state.legal_moves() == ["pass"]
    state = play(state, "pass", "place 6 0,-4 0 boot NW")
    assert state.outcome is not None and state.outcome.reason == "tiles-out"
    bonus = {e["seat"]: e["points"] for e in events(state, "end-bonus")}
    # Seat 0: a 2-piece snake (2) and a grass tuft of 3 bulges with 2 coins (5).
    # Seat 1: three boots on a sand mound of 6 bulges (start, 1,0 and the column below).
    assert bonus == {0: 7, 1: 6}
    assert state.scores() == [7, 6] and state.outcome.winners == [0]


def test_a_short_game_that_runs_out_gets_the_bonus_too() -> None:
    deck = [one(["o:end:W"]), SAND, SAND, SAND]
    state = new(deck, start=ORANGE_START, length="short")
    state = play(state, "place 1 1,0 0 boot W", "place 2 0,-1 0", "place 4 0,-2 0", "pass")
    state = play(state, "place 3 0,-3 0")
    assert state.outcome is not None and state.outcome.reason == "tiles-out"
    assert state.scores() == [2, 0]


def test_outcome_and_to_move_after_the_end_round_trip() -> None:
    deck = [GRASS] * 6
    state = new(deck, start={"q": "gggg"})
    state = play(state, "place 1 1,0 0", "place 2 2,0 0", "place 4 -1,0 0", "place 5 -2,0 0")
    state = play(state, "place 3 3,0 0", "pass", "place 6 0,1 0")
    again = GAME.from_json(json.loads(json.dumps(state.to_json())))
    assert again.to_json() == state.to_json()
    assert state.view(None)["outcome"] == {"winners": [0, 1], "scores": [0, 0],
                                           "reason": "tiles-out"}  # fmt: skip


# -- notation -----------------------------------------------------------------------------------


def test_canonical_notation_and_tolerant_input() -> None:
    deck, _ = deck_for([one(["o:end:W"])], SAND)
    state = new(deck, start=ORANGE_START)
    for typed in ["PLACE 1   1 , 0 0 BOOT w", "  place 1 1,0 0 boot W  ", "Place 1 1,+0 0 Boot W"]:
        assert state.play(typed).history == ["place 1 1,0 0 boot W"]
    prey = one(["o:end:W"], prey=[["W", "fly"]])
    animals = new(deck_for([prey], SAND)[0], start=ORANGE_START, variant="animals")
    assert "place 1 1,0 0 fork W bet W" in animals.legal_moves()
    assert animals.play("place 1 1,0 0 BET w FORK w").history == ["place 1 1,0 0 fork W bet W"]
    from pbem.games.marram.notation import parse

    assert parse("place 5 0,-1 0 boot ne bet e").canonical() == "place 5 0,-1 0 boot NE bet E"
    assert parse("place 5 0,-1 0 bet e boot ne").canonical() == "place 5 0,-1 0 boot NE bet E"
    assert parse("flip 1,0 180 fork n").canonical() == "flip 1,0 180 fork N"
    assert parse("place 9 2,0 270 bet E").canonical() == "place 9 2,0 270 bet E"
    assert parse(" PASS ").canonical() == "pass"


@pytest.mark.parametrize(
    "junk",
    ["place 1 1,0 45", "place x 1,0 0", "place 1 1;0 0", "flip 1,0", "place 1 1,0 0 boot",
     "place 1 1,0 0 boot XX", "place 1 1,0 0 bet NE", "place 1 1,0 0 boot N boot S", "pass now",
     "jump 1,0 0", "place 1 1,0 0 hat N"],
)  # fmt: skip
def test_unreadable_moves_are_invalid(junk: str) -> None:
    state = new([SAND] * 9, start={"q": "ssss"})
    with pytest.raises(InvalidMove) as caught:
        state.play(junk)
    assert junk in str(caught.value)


# -- hidden information -------------------------------------------------------------------------


def test_views_show_only_the_own_hand() -> None:
    state = GAME.new(3, {"variant": "animals"}, seed=4)
    for _ in range(7):
        state = state.play(state.legal_moves()[0])
    data = state.to_json()
    for seat in [None, 0, 1, 2]:
        view = state.view(seat)
        text = json.dumps(view)
        assert "seed" not in view and "hands" not in view
        assert view["bag"] == len(data["bag"])
        visible = {b["tile"] for b in view["board"]} | set(view["discarded"])
        if seat is not None:
            assert view["hand"] == data["hands"][seat]
            visible |= set(view["hand"])
        else:
            assert view["hand"] is None
        assert set(view["tiles"]) == {str(t) for t in visible}
        hidden = [t for s, h in enumerate(data["hands"]) if s != seat for t in h] + data["bag"]
        for t in hidden:
            assert str(t) not in view["tiles"]
        # The bag order appears nowhere.
        assert json.dumps(data["bag"])[1:-1] not in text
    with pytest.raises(ValueError):
        state.view(3)
    with pytest.raises(ValueError):
        state.view(-1)


def test_view_fields() -> None:
    state = GAME.new(2, {"variant": "pitchfork"}, seed=8)
    view = state.view(1)
    for key in ["hand", "hand_sizes", "bag", "discarded", "supplies", "scores", "actions_left",
                "to_move", "players", "variant", "length", "threshold", "board", "tiles",
                "history", "outcome", "log"]:  # fmt: skip
        assert key in view
    [start] = view["board"]
    assert start == {"x": 0, "y": 0, "tile": 0, "rotation": 0, "face": "front", "tokens": [],
                     "removed": []}  # fmt: skip
    assert "0" in view["tiles"] and "q" in view["tiles"]["0"]


def test_scenario_options_survive_the_json_round_trip() -> None:
    deck, ids = deck_for([FLIPPER, one(["o:end:E"])], SAND)
    state = new(deck, start=ORANGE_START, variant="animals", players=3)
    state = solo(state, f"place {ids[0]} 1,0 0 boot NE")
    data = json.loads(json.dumps(state.to_json()))
    again = GAME.from_json(data)
    assert again.to_json() == state.to_json()
    assert again.legal_moves() == state.legal_moves()
    assert data["deck"][0] == FLIPPER and data["start"] == ORANGE_START
    assert again.play("flip 1,0 180").to_json() == state.play("flip 1,0 180").to_json()


def test_bets_standing_at_the_end_score_nothing() -> None:
    tile = one(["o:end:W"], prey=[["W", "frog"]])
    deck = [tile, SAND, SAND, SAND]
    state = new(deck, start=ORANGE_START, variant="animals")
    state = play(state, "place 1 1,0 0 bet W", "place 2 0,-1 0", "place 4 0,-2 0", "pass")
    state = play(state, "place 3 0,-3 0")
    assert state.outcome is not None and state.outcome.reason == "tiles-out"
    assert state.scores() == [0, 0] and events(state, "end-bonus") == []
    assert tokens(state) == [(0, "bet", 1, 0, "W")]
