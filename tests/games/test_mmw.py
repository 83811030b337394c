"""Scenario tests for Martian Mud Wrestling: one or more per rule of docs/rules/mmw.md."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

from pbem import games
from pbem.games import IllegalMove, InvalidMove, MoveError
from pbem.games.mmw import GAME, MMWState, position

SQUARES = [f"{f}{r}" for f in "abcde" for r in range(1, 6)]


def stack(state: MMWState, square: str) -> list[tuple[str, int, bool]]:
    """A square's pyramids bottom first as (colour, size, touching), read from the public view."""
    return [(p["colour"], p["size"], p["touching"]) for p in state.view(None)["squares"][square]]


def play_all(state: MMWState, *moves: str) -> MMWState:
    for move in moves:
        state = state.play(move)
    return state


# --- registry and set-up ---------------------------------------------------------------------


def test_registry_entry() -> None:
    game = games.get("mmw")
    assert game is GAME
    assert game.name == "mmw"
    assert game.title == "Martian Mud Wrestling"
    assert (game.min_players, game.max_players) == (2, 2)
    assert game.options == {}


@pytest.mark.parametrize("players", [1, 3, 4])
def test_only_two_players(players: int) -> None:
    with pytest.raises(ValueError, match="players"):
        GAME.new(players)


def test_no_options_are_accepted() -> None:
    with pytest.raises(ValueError, match="board"):
        GAME.new(2, options={"board": 7})
    assert GAME.new(2, options={}).to_json() == GAME.new(2).to_json()


def test_setup_has_a_nest_on_every_home_square() -> None:
    state = GAME.new(2)
    for square in SQUARES:
        rank = square[1]
        if rank == "1":
            assert stack(state, square) == [("red", 1, True), ("red", 2, True), ("red", 3, True)]
        elif rank == "5":
            expected = [("blue", 1, True), ("blue", 2, True), ("blue", 3, True)]
            assert stack(state, square) == expected
        else:
            assert stack(state, square) == []


def test_setup_turn_scores_and_first_moves() -> None:
    state = GAME.new(2)
    view = state.view(None)
    assert state.to_move == 0
    assert view["colours"] == ["red", "blue"]
    assert state.scores() == [15, 15]
    assert view["pieces_left"] == [15, 15]
    assert view["sunk"] == [0, 0]
    assert view["plies_without_sinking"] == 0
    assert view["last_move"] is None
    assert view["outcome"] is None
    # Red moves the large pyramid off any of its five nests, one step in any direction.
    moves = state.legal_moves()
    assert moves == sorted(moves)
    assert {m.split("-")[0] for m in moves} == {"a1", "b1", "c1", "d1", "e1"}
    assert len(moves) == 3 + 5 + 5 + 5 + 3
    assert "a1-b2" in moves and "a1-a3" not in moves


def test_each_player_has_fifteen_pyramids_five_of_each_size() -> None:
    view = GAME.new(2).view(None)
    assert view["pieces_left_by_size"] == [[5, 5, 5], [5, 5, 5]]
    assert view["sunk_by_size"] == [[0, 0, 0], [0, 0, 0]]


# --- moves -----------------------------------------------------------------------------------


def test_a_pyramid_moves_in_all_eight_directions() -> None:
    state = position({"c3": "r1", "e5": "b1"})
    assert state.legal_moves() == [
        "c3-b2",
        "c3-b3",
        "c3-b4",
        "c3-c2",
        "c3-c4",
        "c3-d2",
        "c3-d3",
        "c3-d4",
    ]
    for move in state.legal_moves():
        after = state.play(move)
        assert stack(after, move[3:]) == [("red", 1, True)]
        assert stack(after, "c3") == []


def test_corner_has_three_neighbours() -> None:
    assert position({"a1": "r2", "e5": "b1"}).legal_moves() == ["a1-a2", "a1-b1", "a1-b2"]


def test_only_the_top_pyramid_moves_and_it_becomes_the_new_top() -> None:
    state = position({"b2": "r1 r2 r3", "c3": "b1 b2", "e5": "b1"})
    after = state.play("b2-c3")
    assert stack(after, "b2") == [("red", 1, True), ("red", 2, True)]
    assert stack(after, "c3") == [("blue", 1, True), ("blue", 2, True), ("red", 3, True)]
    assert after.view(None)["squares"]["c3"][-1]["colour"] == "red"


def test_only_stacks_topped_by_the_mover_can_move() -> None:
    # Red owns pyramids at the bottom of a1 but blue is on top there.
    state = position({"a1": "r1 b2", "c3": "r3 b1", "e5": "b3", "b2": "r2"})
    assert {m.split("-")[0] for m in state.legal_moves()} == {"b2"}
    with pytest.raises(IllegalMove, match=r"'a1-a2'.*top pyramid on a1 is blue"):
        state.play("a1-a2")
    blue = state.play("b2-b3")
    assert {m.split("-")[0] for m in blue.legal_moves()} == {"a1", "c3", "e5"}


def test_moving_onto_empty_own_and_enemy_stacks() -> None:
    state = position({"b2": "r1", "b3": "r2", "c2": "b1", "e5": "b3", "a5": "r3"})
    onto_empty = state.play("b2-a2")
    assert stack(onto_empty, "a2") == [("red", 1, True)]
    onto_own = state.play("b2-b3")
    assert stack(onto_own, "b3") == [("red", 2, True), ("red", 1, False)]
    onto_enemy = state.play("b3-c2")
    assert stack(onto_enemy, "c2") == [("blue", 1, True), ("red", 2, True)]


def test_removing_the_top_never_changes_the_pyramids_below() -> None:
    state = position({"c3": "r1 b1 r3", "e5": "b1", "a1": "b2"}, to_move=0)
    before = stack(state, "c3")
    assert before == [("red", 1, True), ("blue", 1, False), ("red", 3, True)]
    after = state.play("c3-d3")
    assert stack(after, "c3") == before[:-1]


def test_a_pyramid_keeps_its_status_on_its_square() -> None:
    # The resting small stays resting while a large drops over the pile, and after it leaves.
    state = position({"c3": "b1 r1", "b2": "r3", "e5": "b2"})
    state = state.play("b2-c3")  # r3 drops over both smalls
    assert stack(state, "c3") == [("blue", 1, True), ("red", 1, False), ("red", 3, True)]
    state = play_all(state, "e5-e4", "c3-c4")  # the large leaves again
    assert stack(state, "c3") == [("blue", 1, True), ("red", 1, False)]


def test_a_pyramid_changes_status_only_by_moving() -> None:
    # A medium resting on a large touches again once it moves to an empty square.
    state = position({"c3": "b3 r2", "e5": "b1"})
    assert stack(state, "c3")[-1] == ("red", 2, False)
    assert stack(state.play("c3-c4"), "c4") == [("red", 2, True)]


# --- the touching rule: the rules page's three examples -------------------------------------


def test_example_large_over_small_all_touching() -> None:
    state = position({"c3": "b1", "b2": "r3", "e5": "b2"}).play("b2-c3")
    assert stack(state, "c3") == [("blue", 1, True), ("red", 3, True)]
    pts = [(p["points"], p["touching"]) for p in state.view(None)["squares"]["c3"]]
    assert sum(p for p, t in pts if t) == 4 and sum(p for p, t in pts if not t) == 0


def test_example_small_on_small_one_touching_one_not_and_equal_does_not_sink() -> None:
    state = position({"c3": "b1", "b2": "r1", "e5": "b2"}).play("b2-c3")
    assert stack(state, "c3") == [("blue", 1, True), ("red", 1, False)]
    assert state.view(None)["plies_without_sinking"] == 1  # 1 touching vs 1 resting: stays
    assert state.scores() == [1, 2]


def test_example_two_smalls_then_a_large() -> None:
    state = position({"c3": "b1", "b2": "r1", "b4": "r3", "e5": "b2"})
    state = play_all(state, "b2-c3", "e5-e4", "b4-c3")
    assert stack(state, "c3") == [("blue", 1, True), ("red", 1, False), ("red", 3, True)]
    # 4 touching against 1 resting: no sinking.
    assert state.view(None)["plies_without_sinking"] == 3


def test_equal_size_does_not_drop_over() -> None:
    state = position({"c3": "b2", "b2": "r2", "e5": "b1"}).play("b2-c3")
    assert stack(state, "c3") == [("blue", 2, True), ("red", 2, False)]


def test_medium_over_a_pile_of_smalls_touches() -> None:
    state = position({"c3": "b1 r1", "b2": "r2", "e5": "b1"}).play("b2-c3")
    # 1 + 2 touching against 1 resting.
    assert stack(state, "c3") == [("blue", 1, True), ("red", 1, False), ("red", 2, True)]


# --- sinking ---------------------------------------------------------------------------------


def test_fewer_touching_points_sink_the_whole_stack_both_colours() -> None:
    # b1 touching (1) against r1 resting (1), then another small: 1 against 2.
    state = position({"c3": "b1 r1", "b2": "r1", "b4": "b3", "a1": "r3", "e5": "b2"})
    assert state.scores() == [3, 3]
    after = state.play("b2-c3")
    assert stack(after, "c3") == []
    assert after.scores() == [1, 2]
    view = after.view(None)
    assert view["sunk_by_size"] == [[5, 5, 4], [5, 4, 4]]
    assert view["sunk"] == [14, 13]
    assert view["plies_without_sinking"] == 0
    assert stack(after, "b2") == []  # the moved pyramid went down with the stack
    assert after.to_move == 1 and after.outcome is None


def test_medium_resting_on_a_small_sinks() -> None:
    # A medium cannot drop over a larger pyramid: 2 on 3 rests (3 vs 2, stays); a medium
    # landing on a medium and a small...
    state = position({"c3": "b3", "b2": "r2", "e5": "b1"}).play("b2-c3")
    assert stack(state, "c3") == [("blue", 3, True), ("red", 2, False)]
    state = position({"c3": "b2 r1", "b2": "r2", "e5": "b1", "a1": "r1"}).play("b2-c3")
    # 2 touching against 1 + 2 resting: sinks.
    assert stack(state, "c3") == []
    assert state.scores() == [1, 1]


def test_equal_points_do_not_sink() -> None:
    # 3 touching against 1 + 2 resting.
    state = position({"c3": "b3 r1", "b2": "r2", "e5": "b1"}).play("b2-c3")
    assert stack(state, "c3") == [("blue", 3, True), ("red", 1, False), ("red", 2, False)]
    assert state.scores() == [2, 2]


def test_only_the_destination_is_checked() -> None:
    # Positions built by hand may hold a stack that is already "under water" (a real game
    # never does); only the destination of a move is ever looked at, the origin included.
    state = position({"a1": "r1 r1 r1", "c3": "b1 b1 b1 r3", "e5": "b1", "b2": "r2"})
    after = state.play("c3-d4")  # the origin is left 1 touching against 2 resting
    assert len(stack(after, "c3")) == 3
    assert len(stack(after, "a1")) == 3
    assert after.scores() == state.scores()
    after = state.play("b2-b1")
    assert len(stack(after, "a1")) == 3


def test_a_sinking_takes_every_pyramid_of_the_stack() -> None:
    state = position({"c3": "b2 b1 b1", "b2": "r1", "e5": "b3", "a1": "r3"})
    assert state.view(None)["sunk_by_size"] == [[4, 5, 4], [3, 4, 4]]
    # 2 touching against 1 + 1 + 1 resting.
    after = state.play("b2-c3")
    assert stack(after, "c3") == []
    assert after.view(None)["sunk_by_size"] == [[5, 5, 4], [5, 5, 4]]
    assert after.scores() == [1, 1]


# --- notation and errors ---------------------------------------------------------------------


@pytest.mark.parametrize("typed", ["b1-c2", " B1 - C2 ", "b1 -c2", "B1-C2", "b1c2", "b1 c2"])
def test_move_text_is_case_and_space_tolerant(typed: str) -> None:
    state = GAME.new(2).play(typed)
    assert state.history == ["b1-c2"]
    assert state.view(None)["last_move"] == "b1-c2"


@pytest.mark.parametrize("junk", ["", "b1", "b1-", "-c2", "b1-c2-d3", "bb-cc", "1b-2c", "pass"])
def test_malformed_moves_are_invalid(junk: str) -> None:
    with pytest.raises(InvalidMove, match="not a move") as caught:
        GAME.new(2).play(junk)
    assert junk.strip() in str(caught.value)


@pytest.mark.parametrize(("typed", "square"), [("f1-e1", "f1"), ("a5-a6", "a6"), ("e1-f2", "f2")])
def test_off_board_squares_are_invalid(typed: str, square: str) -> None:
    with pytest.raises(InvalidMove, match=f"no square {square}"):
        GAME.new(2).play(typed)


def test_off_board_is_invalid_even_when_the_game_is_over() -> None:
    over = position({"c3": "r1"}, to_move=1)
    assert over.outcome is not None
    with pytest.raises(InvalidMove):
        over.play("z9-z8")


def test_empty_origin_is_illegal() -> None:
    with pytest.raises(IllegalMove, match=r"'c3-c4'.*no pyramid on c3") as caught:
        GAME.new(2).play("c3-c4")
    assert "a1, b1, c1, d1, e1" in str(caught.value)


def test_opponents_top_is_illegal() -> None:
    with pytest.raises(IllegalMove, match=r"'a5-a4'.*top pyramid on a5 is blue"):
        GAME.new(2).play("a5-a4")


def test_not_adjacent_is_illegal() -> None:
    with pytest.raises(IllegalMove, match=r"'a1-a3'.*a3 is not next to a1"):
        GAME.new(2).play("a1-a3")
    with pytest.raises(IllegalMove, match=r"'A1 - C3'.*not next to"):
        GAME.new(2).play("A1 - C3")


def test_same_square_is_illegal() -> None:
    with pytest.raises(IllegalMove, match=r"'b1-b1'.*another square"):
        GAME.new(2).play("b1-b1")


def test_errors_are_move_errors_and_leave_the_state_alone() -> None:
    state = GAME.new(2)
    before = state.to_json()
    for bad in ["x", "c3-c4", "a5-a4", "a1-a3"]:
        with pytest.raises(MoveError):
            state.play(bad)
    assert state.to_json() == before


def test_play_does_not_change_the_old_state() -> None:
    state = GAME.new(2)
    before = state.to_json()
    after = state.play("a1-b2")
    assert state.to_json() == before
    assert after.history == ["a1-b2"] and state.history == []


# --- end of the game -------------------------------------------------------------------------


def test_player_without_a_move_loses() -> None:
    # Red drops its large over blue's last top: blue owns no top pyramid and loses.
    state = position({"c3": "b1", "b2": "r3", "a1": "r1"}).play("b2-c3")
    assert state.outcome is not None
    assert state.outcome.reason == "no-move"
    assert state.outcome.winners == [0]
    assert state.outcome.scores == [2, 1]
    assert state.to_move is None
    assert state.legal_moves() == []
    assert state.view(1)["outcome"]["winners"] == [0]


def test_blue_can_win_too() -> None:
    state = position({"c3": "r1", "b2": "b3", "e5": "b1"}, to_move=1).play("b2-c3")
    assert state.outcome is not None
    assert (state.outcome.reason, state.outcome.winners) == ("no-move", [1])


def test_a_position_with_the_mover_stuck_is_over_at_once() -> None:
    state = position({"c3": "r1 b1", "a1": "b2"}, to_move=0)
    assert state.outcome is not None
    assert (state.outcome.reason, state.outcome.winners) == ("no-move", [1])


def test_own_pyramids_under_enemy_tops_do_not_count() -> None:
    # Blue still has pyramids on the board, but none on top.
    state = position({"c3": "b1 r2", "d4": "b2 r3", "a1": "r1"}, to_move=1)
    assert state.scores() == [3, 2]
    assert state.outcome is not None and state.outcome.winners == [0]


def test_both_stuck_when_the_last_stack_sinks() -> None:
    state = position({"c3": "b1 r1", "b2": "r1"}).play("b2-c3")
    assert stack(state, "c3") == []
    assert state.outcome is not None
    assert state.outcome.reason == "both-stuck"
    assert state.outcome.winners == []
    assert state.outcome.scores == [0, 0]


def test_sinking_that_strands_the_opponent_wins() -> None:
    state = position({"c3": "b1 r1", "b2": "r1", "a1": "r2"}).play("b2-c3")
    assert state.outcome is not None
    assert (state.outcome.reason, state.outcome.winners) == ("no-move", [0])


def test_sinking_that_strands_the_mover_is_not_an_immediate_loss() -> None:
    # Red sinks its own last top; blue still has a move, so blue plays on and red is
    # only judged when it is red's turn again.
    state = position({"c3": "b1 b1", "b2": "r1", "e5": "b2"}).play("b2-c3")
    assert state.outcome is None and state.to_move == 1
    final = state.play("e5-e4")
    assert final.outcome is not None
    assert (final.outcome.reason, final.outcome.winners) == ("no-move", [1])


def test_a_player_stranded_by_their_own_sinking_plays_on_if_uncovered() -> None:
    # Red sinks its only top; blue then lifts its large off a1 and uncovers red's medium.
    state = position({"c3": "b1 b1", "b2": "r1", "a1": "r2 b3"}).play("b2-c3")
    assert state.outcome is None and state.to_move == 1
    state = state.play("a1-a2")
    assert state.outcome is None
    assert state.legal_moves() == ["a1-a2", "a1-b1", "a1-b2"]


SHUFFLE = ["a1-a2", "e5-e4", "a2-a1", "e4-e5"]


def test_third_repetition_draws() -> None:
    start = position({"a1": "r1", "e5": "b1"})
    assert start.view(None)["occurrences"] == 1
    state = play_all(start, *SHUFFLE)  # the start position again: second time
    assert state.outcome is None
    assert state.view(None)["occurrences"] == 2
    state = play_all(state, *SHUFFLE[:3])
    assert state.outcome is None
    state = state.play(SHUFFLE[3])  # third time
    assert state.outcome is not None
    assert state.outcome.reason == "repetition"
    assert state.outcome.winners == []
    assert state.outcome.scores == [1, 1]
    assert len(state.history) == 8


def test_repetition_needs_the_same_player_to_move() -> None:
    # Red's pyramid returns to a1 after 2 plies but the other seat is then to move, so the
    # position differs; only counting (board, player to move) catches the real repeats.
    start = position({"a1": "r1", "e5": "b1", "c3": "b2"})
    state = play_all(start, "a1-a2", "e5-e4", "a2-a1")
    assert state.view(None)["occurrences"] == 1
    state = play_all(state, "e4-e5")
    assert state.view(None)["occurrences"] == 2


def test_repetition_counts_the_touching_status() -> None:
    # Same pyramids, same squares, same order, so necessarily the same status: status is
    # part of the position but can never differ for identical stacks. Different order does.
    a = position({"c3": "r1 r2", "e5": "b1"})
    b = position({"c3": "r2 r1", "e5": "b1"})
    assert a.view(None)["stacks"]["c3"] == "r1r2"
    assert b.view(None)["stacks"]["c3"] == "r2r1'"


def test_repetition_survives_a_json_round_trip() -> None:
    state = play_all(position({"a1": "r1", "e5": "b1"}), *SHUFFLE, *SHUFFLE[:3])
    again = GAME.from_json(json.loads(json.dumps(state.to_json())))
    assert again.view(None)["occurrences"] == 2
    final = again.play(SHUFFLE[3])
    assert final.outcome is not None and final.outcome.reason == "repetition"


def test_counting_starts_afresh_after_a_sinking() -> None:
    start = position({"a1": "r1", "e5": "b1", "c3": "b1 r1", "c2": "r1", "c5": "b3"})
    state = play_all(start, *SHUFFLE)
    assert state.view(None)["occurrences"] == 2
    state = state.play("c2-c3")  # c3 sinks: the position after it is a first occurrence
    assert state.view(None)["plies_without_sinking"] == 0
    assert state.view(None)["occurrences"] == 1
    state = play_all(state, "e5-e4", "a1-a2", "e4-e5", "a2-a1")
    assert state.view(None)["occurrences"] == 2
    state = play_all(state, "e5-e4", "a1-a2", "e4-e5")
    assert state.outcome is None
    state = state.play("a2-a1")
    assert state.outcome is not None and state.outcome.reason == "repetition"


def _walk_without_sinking_or_repeats(state: MMWState, plies: int) -> MMWState:
    """Play `plies` moves that neither sink nor repeat a position, first such move each time."""
    seen = {json.dumps(state.view(None)["stacks"]) + str(state.to_move)}
    for _ in range(plies):
        assert state.outcome is None
        for move in state.legal_moves():
            nxt = state.play(move)
            key = json.dumps(nxt.view(None)["stacks"]) + str(nxt.turn)
            sank = nxt.scores() != state.scores()
            stranded = nxt.outcome is not None and nxt.outcome.reason != "no-sinking-100"
            if not sank and not stranded and key not in seen:
                seen.add(key)
                state = nxt
                break
        else:
            raise AssertionError("no quiet move found")
    return state


def test_hundred_plies_without_sinking_draw_on_the_hundredth() -> None:
    state = _walk_without_sinking_or_repeats(GAME.new(2), 99)
    assert state.outcome is None
    assert state.view(None)["plies_without_sinking"] == 99
    state = _walk_without_sinking_or_repeats(state, 1)
    assert state.outcome is not None
    assert state.outcome.reason == "no-sinking-100"
    assert state.outcome.winners == []
    assert state.outcome.scores == [15, 15]
    assert len(state.history) == 100


def test_a_sinking_resets_the_count() -> None:
    state = position({"c3": "b1 r1", "b2": "r1", "a1": "r3", "e5": "b3"}, plies_without_sinking=99)
    state = state.play("b2-c3")
    assert state.outcome is None
    assert state.view(None)["plies_without_sinking"] == 0


def test_the_count_ends_a_position_built_near_the_limit() -> None:
    state = position({"a1": "r1", "e5": "b1"}, plies_without_sinking=98)
    state = state.play("a1-a2")
    assert state.outcome is None
    state = state.play("e5-e4")
    assert state.outcome is not None and state.outcome.reason == "no-sinking-100"


def test_no_move_beats_the_draw_rules_on_the_same_ply() -> None:
    # The 100th quiet ply also strands blue: the loss by the published rules comes first.
    state = position({"c3": "b1", "b2": "r3", "a1": "r1"}, plies_without_sinking=99)
    state = state.play("b2-c3")
    assert state.outcome is not None
    assert (state.outcome.reason, state.outcome.winners) == ("no-move", [0])


def test_repetition_is_named_before_the_hundredth_ply() -> None:
    state = play_all(position({"a1": "r1", "e5": "b1"}, plies_without_sinking=92), *SHUFFLE)
    state = play_all(state, *SHUFFLE)
    assert state.view(None)["plies_without_sinking"] == 100
    assert state.outcome is not None and state.outcome.reason == "repetition"


def test_finished_games_refuse_moves() -> None:
    state = position({"c3": "b1", "b2": "r3", "a1": "r1"}).play("b2-c3")
    with pytest.raises(IllegalMove, match="over"):
        state.play("c3-c4")
    with pytest.raises(IllegalMove, match="over"):
        state.play(" A1 - A2")


# --- scores, view and JSON -------------------------------------------------------------------


def test_view_contents() -> None:
    state = play_all(GAME.new(2), "a1-b2", "e5-d4")
    for seat in (None, 0, 1):
        view = state.view(seat)
        assert json.loads(json.dumps(view)) == view
        assert set(view["squares"]) == set(SQUARES)
        assert view["squares"]["b2"] == [
            {"colour": "red", "seat": 0, "size": 3, "points": 3, "touching": True}
        ]
        assert view["squares"]["a1"][-1]["size"] == 2
        assert view["to_move"] == 0
        assert view["last_move"] == "e5-d4"
        assert view["history"] == ["a1-b2", "e5-d4"]
        assert view["scores"] == [15, 15]
        assert view["plies_without_sinking"] == 2
    # Nothing is hidden: every seat sees the same board.
    assert state.view(0)["squares"] == state.view(1)["squares"] == state.view(None)["squares"]


@pytest.mark.parametrize("seat", [2, -1, 5])
def test_view_of_a_missing_seat(seat: int) -> None:
    with pytest.raises(ValueError, match="seat"):
        GAME.new(2).view(seat)


def test_json_round_trip_and_continuation() -> None:
    state = play_all(GAME.new(2, seed=5), "a1-b2", "e5-d4", "b2-c3")
    data = json.loads(json.dumps(state.to_json()))
    again = GAME.from_json(data)
    assert again.to_json() == state.to_json()
    assert again.legal_moves() == state.legal_moves()
    assert again.play("e4-e3" if "e4-e3" in again.legal_moves() else "d4-d3").to_json() == (
        state.play("e4-e3" if "e4-e3" in state.legal_moves() else "d4-d3").to_json()
    )
    assert data["seed"] == 5
    assert data["board"]["c3"] == "r3"


def test_from_json_rejects_inconsistent_touching_marks() -> None:
    data: dict[str, Any] = GAME.new(2).to_json()
    data["board"]["c3"] = "r1 r3'"
    with pytest.raises(ValueError, match="touches"):
        GAME.from_json(data)


def test_position_checks_its_input() -> None:
    with pytest.raises(ValueError, match="only 5"):
        position({s: "r1" for s in SQUARES[:6]})
    with pytest.raises(ValueError, match="square"):
        position({"f6": "r1"})
    with pytest.raises(ValueError, match="cannot read"):
        position({"a1": "g1"})
    with pytest.raises(ValueError, match="to_move"):
        position({"a1": "r1"}, to_move=2)


def test_position_derives_touching_from_arrival_order() -> None:
    state = position({"c3": ["b1", "r1", "r3", "b2"], "e5": "b1"})
    assert stack(state, "c3") == [
        ("blue", 1, True),
        ("red", 1, False),
        ("red", 3, True),
        ("blue", 2, False),
    ]
    assert state.view(None)["stacks"]["c3"] == "b1r1'r3b2'"


# --- drawings --------------------------------------------------------------------------------


def test_svg_shows_every_pyramid_square_and_the_last_move() -> None:
    state = position({"c3": "b1 r1 r3", "b2": "r2", "e5": "b2"}).play("b2-b3")
    svg = GAME.render_svg(state)
    assert svg.startswith("<svg") and svg.rstrip().endswith("</svg>")
    assert set(re.findall(r'<g class="square" data-square="(\w\d)"', svg)) == set(SQUARES)
    assert svg.count('class="pyramid ') == 5
    assert svg.count('class="pyramid resting') == 1
    assert svg.count(' top"') == 3  # one top per occupied square
    assert 'data-square="b2" data-top="" data-stack="" data-last="from"' in svg
    assert 'data-square="b3" data-top="red" data-stack="r2" data-last="to"' in svg
    assert '<g class="last-turn" data-seat="0" data-plies="0" data-move="b2-b3"' in svg
    assert ">Red</text>" in svg and ">3 left, 12 sunk</text>" in svg


def test_svg_turns_the_board_for_seat_one() -> None:
    state = GAME.new(2)

    def corner(svg: str, square: str) -> tuple[int, int]:
        m = re.search(rf'data-square="{square}".*?<rect x="(\d+)" y="(\d+)"', svg, re.S)
        assert m is not None
        return int(m.group(1)), int(m.group(2))

    red_view = GAME.render_svg(state, seat=0)
    blue_view = GAME.render_svg(state, seat=1)
    assert corner(red_view, "a1")[1] > corner(red_view, "a5")[1]  # rank 1 at the bottom
    assert corner(blue_view, "a5")[1] > corner(blue_view, "a1")[1]  # rank 5 at the bottom
    assert corner(blue_view, "a1")[0] > corner(blue_view, "e1")[0]  # files turned round
    assert GAME.render_svg(state) == GAME.render_svg(state, seat=None)


def test_svg_of_a_finished_game_names_the_result() -> None:
    state = position({"c3": "b1", "b2": "r3", "a1": "r1"}).play("b2-c3")
    svg = GAME.render_svg(state)
    assert "Game over: red wins</text>" in svg and "no-move" not in svg


def test_text_board() -> None:
    state = position({"c3": "b1 r1 r3", "e5": "b2", "a1": "r2"})
    text = GAME.render_text(state)
    assert "b1r1'r3" in text
    assert "red (seat 0): 3 on the board, 12 sunk" in text
    assert "red to move" in text
    rows = [line for line in text.splitlines() if re.match(r" [1-5] ", line)]
    assert [row[1] for row in rows] == ["5", "4", "3", "2", "1"]
    rows = [line for line in GAME.render_text(state, seat=1).splitlines() if re.match(r" \d", line)]
    assert [row[1] for row in rows] == ["1", "2", "3", "4", "5"]


def test_the_last_moves_are_marked_in_the_movers_colour_with_its_letter() -> None:
    import xml.etree.ElementTree as ET

    from pbem.games.mmw import render

    svg_ns = "{http://www.w3.org/2000/svg}"
    state = GAME.new(2)
    state = state.play(state.legal_moves()[0])
    state = state.play(state.legal_moves()[0])
    _, blue = state.history
    root = ET.fromstring(GAME.render_svg(state, 0, ["Ann", "Bob"]))
    marks = {el.get("data-seat"): el for el in root.iter() if el.get("class") == "last-turn"}
    assert set(marks) == {"1"}, "red's own earlier move is not marked"
    mark = marks["1"]
    assert mark.get("data-move") == blue
    assert render.FILL["blue"] in {p.get("stroke") for p in mark.iter(f"{svg_ns}path")}
    assert "".join(mark.find(f"{svg_ns}g").itertext()) == "B"  # type: ignore[union-attr]
    title = mark.findtext(f"{svg_ns}title") or ""
    frm, to = blue.split("-")
    assert title.startswith("Bob moved a ") and f"pyramid from {frm}" in title and to in title
    arrows = [el for el in root.iter() if "arrow" in el.get("class", "").split()]
    assert [a.get("data-seat") for a in arrows] == ["1"]
    assert render.FILL["blue"] in {p.get("fill") for p in arrows[0].iter(f"{svg_ns}path")}
    # Blue's view: its own move (the latest) and red's.
    seen = ET.fromstring(GAME.render_svg(state, 1))
    assert {el.get("data-seat") for el in seen.iter() if el.get("class") == "last-turn"} == {
        "0",
        "1",
    }
    # Pyramids carry their owner's letter by their size; squares are named top first.
    svg = GAME.render_svg(state)
    assert ">R3</text>" in svg and ">B1</text>" in svg
    assert 'data-name="c1: red large on red medium on red small; touching 6, resting 0"' in svg
    assert "after move 2" in svg and "ply" not in svg
