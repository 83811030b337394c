"""The page contract for Marram: mid_turn, describe, describe_outcome, summary, board_assets."""

from __future__ import annotations

import json
from typing import Any

import pytest

from pbem.games import IllegalMove, InvalidMove, MoveError, SeatSummary, Summary, fill_names
from pbem.games.marram import render
from pbem.games.marram.rules import MarramState
from pbem.games.marram.words import tile_named
from tests.games.marram.scenario import (
    GAME,
    GRASS,
    RING_TILES,
    SAND,
    deck_for,
    edit,
    filler_move,
    new,
    play,
    ring,
    solo,
)
from tests.games.marram.test_marram_rules import P_START, P_TILES


def one(pieces: list[str], q: str = "ggss", **more: Any) -> dict[str, Any]:
    return {"q": q, "pieces": pieces, **more}


ORANGE_START = one(["o:mid:E-W"])
NAMES = ["Ann", "Bob", "Cy", "Di"]


def said(state: MarramState, move: str) -> str:
    """`describe` with names filled in, checking it leaves the state alone and agrees with play."""
    before = state.to_json()
    sentence = state.describe(move)
    assert state.to_json() == before, "describe must not change the state"
    state.play(move)  # describe accepted it, so play does too
    return fill_names(sentence, NAMES)


# -- mid_turn -----------------------------------------------------------------------------------


def test_mid_turn_is_true_between_the_two_actions_of_a_turn() -> None:
    state = new([GRASS] * 12, start={"q": "gggg"})
    assert state.mid_turn is False
    state = state.play("place 1 1,0 0")
    assert state.to_move == 0 and state.mid_turn is True
    state = state.play("place 2 2,0 0")
    assert state.to_move == 1 and state.mid_turn is False
    state = state.play("place 4 -1,0 0")
    assert state.mid_turn is True
    again = GAME.from_json(json.loads(json.dumps(state.to_json())))
    assert again.mid_turn is True


def test_mid_turn_agrees_with_the_services_old_rule_through_whole_games() -> None:
    """The service inferred a turn going on from `actions_left` falling for the same seat."""
    for variant, players, seed in [("classic", 2, 1), ("pitchfork", 3, 2), ("animals", 4, 3)]:
        state = GAME.new(players, {"variant": variant, "length": "long"}, seed=seed)
        while state.outcome is None:
            mover = state.to_move
            assert mover is not None
            after = state.play(state.legal_moves()[len(state.history) % len(state.legal_moves())])
            left_before = state.view(mover)["actions_left"]
            left_after = after.view(mover)["actions_left"]
            continues = after.to_move == mover and 0 < left_after < left_before
            assert after.mid_turn is continues, after.history
            state = after
        assert state.mid_turn is False


def test_a_game_ending_between_the_two_actions_is_not_mid_turn() -> None:
    deck = [GRASS] * 6
    state = new(deck, start={"q": "gggg"})
    state = play(state, "place 1 1,0 0", "place 2 2,0 0", "place 4 -1,0 0", "place 5 -2,0 0")
    state = play(state, "place 3 3,0 0", "pass")
    state = state.play("place 6 0,1 0")  # seat 1's first action: the tiles run out
    assert state.outcome is not None and state.mid_turn is False


# -- describe -----------------------------------------------------------------------------------


def test_placing_and_claiming() -> None:
    deck, ids = deck_for([one(["o:end:W"]), {"q": "ggss", "coins": [["NW", "gold"]]}], SAND)
    state = new(deck, start=ORANGE_START)
    assert (
        said(state, f"place {ids[0]} 1,0 0")
        == "Ann placed a grass-and-sand tile with an orange snake (#1) at (1,0)"
    )
    assert said(state, f"place {ids[0]} 1,0 0 boot SE") == (
        "Ann placed a grass-and-sand tile with an orange snake (#1) at (1,0) and put a boot "
        "on the sand"
    )
    assert said(state, f"place {ids[0]} 1,0 0 boot NE") == (
        "Ann placed a grass-and-sand tile with an orange snake (#1) at (1,0) and put a boot "
        "on the grass"
    )
    # The snake runs on west of the start tile, where nothing lies yet: nothing completes.
    assert said(state, f"place {ids[0]} 1,0 0 boot W") == (
        "Ann placed a grass-and-sand tile with an orange snake (#1) at (1,0) and put a boot "
        "on the orange snake"
    )


def test_a_pitchfork_and_a_bet() -> None:
    tile = one(["o:end:W"], prey=[["W", "frog"]])
    deck, ids = deck_for([tile], SAND)
    state = new(deck, start=ORANGE_START, variant="animals")
    assert (
        said(state, f"place {ids[0]} 1,0 0 fork W bet W")
        == "Ann placed a grass-and-sand tile with an orange snake plus a frog (#1) at (1,0) and "
        "put a pitchfork on the orange snake and a bet on the frog"
    )
    assert said(state, f"place {ids[0]} 1,0 0 bet W") == (
        "Ann placed a grass-and-sand tile with an orange snake plus a frog (#1) at (1,0) and "
        "put a bet on the frog"
    )


def test_completing_a_feature_names_it_its_value_and_who_scores() -> None:
    deck, ids = deck_for([one(["o:end:W"]), one(["o:end:E"])], SAND)
    state = new(deck, start=ORANGE_START)
    state = solo(state, f"place {ids[0]} 1,0 0 boot W")
    assert said(state, f"place {ids[1]} -1,0 0") == (
        "Ann placed a grass-and-sand tile with an orange snake (#2) at (-1,0) and completed an "
        "orange snake worth 3 to Ann"
    )
    # Seat 1 has a boot on the snake too: a tie scores fully for both.
    data = state.to_json()
    data["tokens"].append([1, "boot", -1, 0, "E"])
    tied = edit(state, tokens=data["tokens"])
    assert said(tied, f"place {ids[1]} -1,0 0") == (
        "Ann placed a grass-and-sand tile with an orange snake (#2) at (-1,0) and completed an "
        "orange snake worth 3 each to Ann and Bob"
    )
    # Unclaimed: nobody scores.
    state = new(deck, start=ORANGE_START)
    state = solo(state, f"place {ids[0]} 1,0 0")
    assert said(state, f"place {ids[1]} -1,0 0 boot NE") == (
        "Ann placed a grass-and-sand tile with an orange snake (#2) at (-1,0), put a boot on the "
        "grass and completed an orange snake "
        "worth 3, which nobody claimed"
    )


def test_a_region_is_named_with_its_bulges() -> None:
    state, ids = ring(RING_TILES)
    state = state.play(f"place {ids[6]} 0,1 0 boot SE")
    assert said(state, f"place {ids[7]} -1,2 0") == (
        f"Ann placed a grass-and-sand tile (#{ids[7]}) at (-1,2) and completed a sand mound of 9 "
        "bulges worth 45 to Ann"
    )


def test_a_flip_loses_the_tokens_on_the_tile() -> None:
    tile = one(["o:end:W"], back=one(["o:end:W"], coins=[["NW", "gold"]]))
    deck, ids = deck_for([tile], SAND)
    state = new(deck, start=ORANGE_START)
    state = solo(state, f"place {ids[0]} 1,0 0 boot NE")
    data = state.to_json()
    data["tokens"].append([1, "boot", 1, 0, "SE"])
    state = edit(state, tokens=data["tokens"])
    assert said(state, "flip 1,0 0") == (
        "Ann flipped the tile at (1,0); Ann's boot and Bob's boot there were lost"
    )
    state = edit(state, tokens=[[1, "boot", 1, 0, "SE"]])
    assert said(state, "flip 1,0 0 boot SW") == (
        "Ann flipped the tile at (1,0) and put a boot on the sand; Bob's boot there was lost"
    )


@pytest.mark.parametrize("variant", ["pitchfork", "animals"])
def test_a_completed_creature_leaving_the_board_and_a_freed_region(variant: str) -> None:
    deck, ids = deck_for(P_TILES, SAND)
    state = new(deck, start=P_START, variant=variant)
    state = solo(
        state, f"place {ids[0]} 1,0 0", f"place {ids[1]} 0,1 0", f"place {ids[2]} 1,1 0 boot SW"
    )
    while state.to_move != 0:
        state = state.play(filler_move(state))
    assert said(state, f"place {ids[3]} 1,-1 0") == (
        f"Ann placed a sand tile with an orange snake (#{ids[3]}) at (1,-1) and completed an "
        "orange snake worth 3, which nobody "
        "claimed, and a grass tuft of 4 bulges worth 12 to Ann; the orange snake left the board"
    )


@pytest.mark.parametrize(("animal", "points"), [("fly", 5), ("frog", 7)])
def test_prey_eaten_and_bets_lost(animal: str, points: int) -> None:
    tile = one(["o:end:W"], prey=[["W", animal]])
    deck, ids = deck_for([tile, one(["o:end:E"])], SAND)
    state = new(deck, start=ORANGE_START, variant="animals")
    state = solo(state, f"place {ids[0]} 1,0 0 bet W")
    while state.to_move != 0:
        state = state.play(filler_move(state))
    assert said(state, f"place {ids[1]} -1,0 0") == (
        "Ann placed a grass-and-sand tile with an orange snake (#2) at (-1,0) and completed an "
        "orange snake worth 3, which nobody "
        f"claimed; the orange snake left the board; Ann's bet on the {animal} won {points}"
    )
    # A freak beast: two heads.
    tile = one(["b:head:W"], prey=[["W", animal]])
    deck, ids = deck_for([tile, one(["b:head:E"])], SAND)
    state = new(deck, start=one(["b:mid:E-W"]), variant="animals")
    state = solo(state, f"place {ids[0]} 1,0 0 bet W")
    while state.to_move != 0:
        state = state.play(filler_move(state))
    assert said(state, f"place {ids[1]} -1,0 0") == (
        "Ann placed a grass-and-sand tile with a blue snake (#2) at (-1,0) and completed a freak "
        "beast (blue snake) worth 3, which "
        "nobody claimed; the freak beast (blue snake) left the board; "
        "Ann's bet was lost with the freak beast"
    )


def test_a_bet_lost_on_a_flip_is_told_once() -> None:
    tile = one(["o:end:W"], prey=[["W", "fly"]], back=one(["o:end:W"], prey=[["W", "frog"]]))
    deck, ids = deck_for([tile], SAND)
    state = new(deck, start=ORANGE_START, variant="animals")
    state = solo(state, f"place {ids[0]} 1,0 0 fork W bet W")
    assert said(state, "flip 1,0 0 bet W") == (
        "Ann flipped the tile at (1,0) and put a bet on the frog; Ann's pitchfork and Ann's bet "
        "there were lost"
    )


def test_pass_dead_tiles_and_the_end() -> None:
    deck = [GRASS] * 6
    state = new(deck, start={"q": "gggg"})
    state = play(state, "place 1 1,0 0", "place 2 2,0 0", "place 4 -1,0 0", "place 5 -2,0 0")
    state = play(state, "place 3 3,0 0")
    assert said(state, "pass") == "Ann passed, as no tile could be placed or flipped"
    state = state.play("pass")
    assert said(state, "place 6 0,1 0") == "Bob placed a grass tile (#6) at (0,1); the game ended"


def test_a_dead_tile_discarded_next_is_told() -> None:
    # The sand tile 4 of seat 1 fits only against the sand on the start tile's north side;
    # seat 0 covers that with a tile showing grass north, and tile 4 dies before seat 1 acts.
    dead = {"q": "ssss", "pieces": ["w:end:S"]}
    lid = {"q": "ggss", "pieces": ["w:end:S"]}
    start = {"q": "ssgg", "pieces": ["w:end:N"]}
    deck = [lid, GRASS, GRASS, dead, GRASS, GRASS, GRASS, GRASS, GRASS, GRASS]
    state = new(deck, start=start)
    state = state.play("place 2 0,-1 0")
    assert said(state, "place 1 0,1 0") == (
        "Ann placed a grass-and-sand tile with a worm (#1) at (0,1) and completed a freak beast "
        "(worm) worth 3, which nobody claimed; Bob discarded a sand tile with a worm (#4), which "
        "fits nowhere"
    )


def test_describe_refuses_as_play_does() -> None:
    deck, _ = deck_for([one(["o:end:W"])], SAND)
    state = new(deck, start=ORANGE_START)
    for move in ["", "jump", "place 1", "place 99 1,0 0", "place 1 5,5 0", "place 1 1,0 90",
                 "pass", "flip 0,0 0", "place 1 1,0 0 fork W"]:  # fmt: skip
        with pytest.raises(MoveError) as by_play:
            state.play(move)
        with pytest.raises(type(by_play.value)) as by_describe:
            state.describe(move)
        assert str(by_describe.value) == str(by_play.value)
    with pytest.raises(InvalidMove):
        state.describe("jump")
    with pytest.raises(IllegalMove):
        state.describe("pass")


def test_every_legal_move_of_whole_games_is_a_sentence_with_only_placeholders() -> None:
    for variant, players in [("classic", 2), ("pitchfork", 3), ("animals", 4)]:
        state = GAME.new(players, {"variant": variant, "length": "long"}, seed=7)
        step = 0
        while state.outcome is None:
            moves = state.legal_moves()
            move = moves[(step * 7919) % len(moves)]
            sentence = state.describe(move)
            assert sentence.startswith(f"{{{state.to_move}}} ")
            filled = fill_names(sentence, ["A", "B", "C", "D"])
            assert "{" not in filled and "}" not in filled and "Seat" not in filled
            state = state.play(move)
            step += 1


# -- describe_outcome ---------------------------------------------------------------------------


def test_no_outcome_while_the_game_runs() -> None:
    state = GAME.new(2, {}, seed=1)
    assert state.describe_outcome() is None
    assert state.play(state.legal_moves()[0]).describe_outcome() is None


def test_the_tiles_running_out_and_a_shared_win() -> None:
    deck = [GRASS] * 6
    state = new(deck, start={"q": "gggg"})
    state = play(state, "place 1 1,0 0", "place 2 2,0 0", "place 4 -1,0 0", "place 5 -2,0 0")
    state = play(state, "place 3 3,0 0", "pass", "place 6 0,1 0")
    assert (
        state.describe_outcome()
        == "The tiles ran out; {0} and {1} share the win with 0 points each"
    )


def test_the_end_bonus_is_told() -> None:
    grassy = {"q": "gggg", "coins": [["SE", "gold"], ["SE", "silver"]]}
    deck = [one(["o:end:W"]), grassy, SAND, SAND, SAND, SAND]
    state = new(deck, start=ORANGE_START)
    state = play(state, "place 1 1,0 0 boot W", "place 3 0,-1 0")
    state = play(state, "place 4 0,-2 0 boot SE", "place 5 0,-3 0 boot SE")
    state = play(state, "place 2 0,1 0 boot SE", "pass", "place 6 0,-4 0 boot NW")
    assert state.describe_outcome() == (
        "The tiles ran out; the end bonus gave {0} 7 and {1} 6; {0} wins with 7 points to {1}'s 6"
    )


def test_nobody_able_to_act() -> None:
    start = {"q": "ssgg", "pieces": ["w:end:N"]}
    y = {"q": "ssss", "pieces": ["w:end:N"]}
    z = {"q": "ggss", "pieces": ["w:end:S"]}
    deck = [z, GRASS, GRASS, y, GRASS, GRASS]
    state = new(deck, start=start)
    state = play(state, "place 2 0,-1 0", "place 3 0,-2 0", "place 5 0,-3 0", "place 6 0,-4 0")
    state = state.play("place 1 0,1 0 boot S")
    assert state.outcome is not None and state.outcome.reason == "no-action"
    # Seat 0 has just laid its last tile; seat 1 holds only a dead one.
    assert state.outcome.details == {"seat": 0}
    assert state.describe_outcome() == (
        "{0} had no tile to lay and nothing to flip, and nobody else could act; "
        "{0} wins with 3 points to {1}'s 0"
    )


def test_the_threshold() -> None:
    state = new([one([], q="gggg")] * 6, start={"q": "gggg"}, length="short")
    state = play(state, "place 1 1,0 0 boot NW", "place 2 2,0 0", "place 4 -1,0 0")
    state = play(state, "place 5 -2,0 0", "place 3 3,0 0")
    state = edit(state, scores=[0, 81])
    state = state.play("pass")
    assert state.outcome is not None and state.outcome.reason == "threshold"
    assert state.outcome.details == {"threshold": 80, "turn_of": 0}
    assert state.describe_outcome() == (
        "The threshold of 80 points was reached at the end of {0}'s turn; "
        "{1} wins with 81 points to {0}'s 0"
    )
    again = GAME.from_json(json.loads(json.dumps(state.to_json())))
    assert again.describe_outcome() == state.describe_outcome()


def test_an_outcome_stored_without_details_is_still_told() -> None:
    state = new([one([], q="gggg")] * 6, start={"q": "gggg"}, length="short")
    state = play(state, "place 1 1,0 0", "place 2 2,0 0", "place 4 -1,0 0")
    state = play(state, "place 5 -2,0 0", "place 3 3,0 0")
    state = edit(state, scores=[80, 0]).play("pass")
    data = state.to_json()
    del data["outcome"]["details"]
    old = GAME.from_json(data)
    assert old.describe_outcome() == (
        "The threshold of 80 points was reached; {0} wins with 80 points to {1}'s 0"
    )
    data["outcome"]["reason"] = "no-action"
    assert GAME.from_json(data).describe_outcome() == (
        "Nobody could place or flip a tile; {0} wins with 80 points to {1}'s 0"
    )


# -- summary ------------------------------------------------------------------------------------


def test_summary_in_the_words_of_the_game_page() -> None:
    state = GAME.new(3, {"variant": "animals"}, seed=5)
    summary = state.summary(1)
    hand = state.view(1)["hand"]
    assert summary == Summary(
        score_label="points",
        seats=[
            SeatSummary("red", "boots 5 · forks 3 · shovels 3 · bets 2 · 3 tiles in hand"),
            SeatSummary("violet", "boots 5 · forks 3 · shovels 3 · bets 2 · 3 tiles in hand"),
            SeatSummary("white", "boots 5 · forks 3 · shovels 3 · bets 2 · 3 tiles in hand"),
        ],
        hand="your tiles: "
        + "; ".join(f"{tile_named(t, state.tile(t).description())}" for t in hand),
        hand_brief="your tiles: " + ", ".join(f"#{t}" for t in hand),
        notes=f"{state.view(None)['bag']} tiles in the bag · first to 90 wins · 2 actions left "
        "this turn",
    )
    assert state.summary(None).hand == state.summary(None).hand_brief == ""
    state = state.play(state.legal_moves()[0])
    assert state.summary(None).notes.endswith(" · 1 action left this turn")
    assert state.summary(0).seats[0].supplies.endswith(" · 2 tiles in hand")


def test_summary_per_variant_and_length() -> None:
    classic = GAME.new(4, {"variant": "classic", "length": "long"}, seed=2)
    summary = classic.summary(3)
    assert [s.colour for s in summary.seats] == ["red", "violet", "white", "black"]
    assert summary.seats[3].supplies == "boots 7 · shovels 3 · 3 tiles in hand"
    assert (
        summary.notes == f"{classic.view(None)['bag']} tiles in the bag · 2 actions left this turn"
    )
    pitchfork = GAME.new(2, {"variant": "pitchfork"}, seed=2)
    assert (
        pitchfork.summary(0).seats[1].supplies == "boots 5 · forks 3 · shovels 3 · 3 tiles in hand"
    )
    bag = pitchfork.view(None)["bag"]
    assert pitchfork.summary(0).notes == (
        f"{bag} tiles in the bag · first to 120 wins · 2 actions left this turn"
    )
    with pytest.raises(ValueError):
        pitchfork.summary(2)


def test_summary_of_an_empty_hand_and_a_finished_game() -> None:
    deck = [GRASS] * 6
    state = new(deck, start={"q": "gggg"})
    state = play(state, "place 1 1,0 0", "place 2 2,0 0", "place 4 -1,0 0", "place 5 -2,0 0")
    state = play(state, "place 3 3,0 0", "pass", "place 6 0,1 0")
    summary = state.summary(0)
    assert summary.hand == "your tiles: none"
    assert summary.notes == "0 tiles in the bag"
    assert summary.seats[0].supplies == "boots 7 · shovels 3 · 0 tiles in hand"


# -- board_assets -------------------------------------------------------------------------------


def test_board_assets_on_the_seats_turn_only() -> None:
    state = GAME.new(2, {"variant": "animals"}, seed=3)
    assert GAME.board_assets(state, 1) == {}
    assets = GAME.board_assets(state, 0)
    assert set(assets) == {"previews", "flips", "glyphs", "warnings", "claims"}
    # The page's warning for each flip that removes tokens, keyed by the flip's move prefix.
    assert assets["warnings"] == {
        f"flip {pos}": flip["warning"] for pos, flip in assets["flips"].items() if flip["warning"]
    }
    assert assets["glyphs"] == {
        "boot": render.boot_glyph(0, 0, 0),
        "fork": render.fork_glyph(0, 0, 0),
        "bet": render.bet_glyph(0, 0, 0),
    }
    assert json.loads(json.dumps(assets)) == assets
    previews = assets["previews"]
    hand = state.view(0)["hand"]
    for tile in hand:
        assert f"front:{tile}:0" in previews
    for move in state.legal_moves():
        words = move.split()
        if words[0] == "place":
            assert f"front:{words[1]}:{words[3]}" in previews
    assert all('data-preview="1"' in svg for svg in previews.values())


def test_board_assets_offer_the_backs_of_flippable_tiles() -> None:
    tile = one(["o:end:W"], back=one(["o:end:W"], q="ggss"))
    deck, ids = deck_for([tile], SAND)
    state = new(deck, start=ORANGE_START)
    state = solo(state, f"place {ids[0]} 1,0 0")
    previews = GAME.board_assets(state, 0)["previews"]
    flips = {m.split()[2] for m in state.legal_moves() if m.startswith("flip 1,0")}
    assert flips and {f"back:{ids[0]}:{r}" for r in flips} <= set(previews)


def test_board_assets_of_a_finished_game_are_empty() -> None:
    deck = [GRASS] * 6
    state = new(deck, start={"q": "gggg"})
    state = play(state, "place 1 1,0 0", "place 2 2,0 0", "place 4 -1,0 0", "place 5 -2,0 0")
    state = play(state, "place 3 3,0 0", "pass", "place 6 0,1 0")
    assert GAME.board_assets(state, 0) == {} and GAME.board_assets(state, 1) == {}
