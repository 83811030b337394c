"""Martian Mud Wrestling's page contract: move and outcome sentences, the summary, names in the
drawings."""

from __future__ import annotations

from xml.etree import ElementTree

import pytest

from pbem import games
from pbem.games import IllegalMove, InvalidMove, SeatSummary, Summary, fill_names
from pbem.games.mmw import MMWState, position

GAME = games.get("mmw")
SHUFFLE = ["a1-a2", "e5-e4", "a2-a1", "e4-e5"]


def new() -> MMWState:
    state = GAME.new(2)
    assert isinstance(state, MMWState)
    return state


def play_all(state: MMWState, *moves: str) -> MMWState:
    for move in moves:
        state = state.play(move)
    return state


# -- describe -----------------------------------------------------------------------------------


def test_a_move_to_an_empty_square() -> None:
    state = new()
    assert state.describe("b1-c2") == "{0} moved a large pyramid from b1 to c2"
    assert state.describe(" B1 c2 ") == "{0} moved a large pyramid from b1 to c2"
    assert state.play("b1-c2").describe("d5-d4") == "{1} moved a large pyramid from d5 to d4"
    assert fill_names(state.describe("b1-c2"), ["Ann", "Bob"]) == (
        "Ann moved a large pyramid from b1 to c2"
    )


def test_describe_leaves_the_state_alone() -> None:
    state = new()
    before = state.to_json()
    state.describe("b1-c2")
    assert state.to_json() == before


def test_a_larger_pyramid_drops_over_and_touches() -> None:
    state = position({"c3": "b1", "b2": "r3", "e5": "b2"})
    assert state.describe("b2-c3") == (
        "{0} moved a large pyramid from b2 onto the stack on c3, "
        "where it drops over and touches the board"
    )


def test_an_equal_or_smaller_pyramid_rests_and_equal_points_do_not_sink() -> None:
    state = position({"c3": "b1", "b2": "r1", "e5": "b2"})
    assert state.describe("b2-c3") == (
        "{0} moved a small pyramid from b2 onto the stack on c3, where it rests on the pile"
    )
    state = position({"c3": "b3 r1", "b2": "r2", "e5": "b1"})  # touching 3, resting 1 + 2
    assert "sank" not in state.describe("b2-c3")


def test_a_sinking_gives_the_points_and_every_pyramid_lost_by_seat() -> None:
    state = position({"c3": "b1 r1", "b2": "r1", "b4": "b3", "a1": "r3", "e5": "b2"})
    assert state.describe("b2-c3") == (
        "{0} moved a small pyramid from b2 onto the stack on c3, where it rests on the pile; "
        "the stack on c3 sank into the mud (touching 1 < resting 2): {0} lost two smalls and "
        "{1} lost a small"
    )
    state = position({"c3": "b2 b1 b1", "b2": "r1", "e5": "b3", "a1": "r3"})
    assert state.describe("b2-c3").endswith(
        "the stack on c3 sank into the mud (touching 2 < resting 3): {0} lost a small and "
        "{1} lost two smalls and a medium"
    )


def test_a_sinking_of_only_the_movers_pyramids() -> None:
    state = position({"c3": "r3", "b2": "r2", "d4": "r2", "e5": "b1"})
    state = play_all(state, "b2-c3", "e5-e4")  # c3: large, medium resting (3 against 2)
    assert state.describe("d4-c3").endswith(
        "the stack on c3 sank into the mud (touching 3 < resting 4): "
        "{0} lost two mediums and a large"
    )


@pytest.mark.parametrize(
    ("squares", "to_move", "move", "ending"),
    [
        ({"c3": "b1", "b2": "r3", "a1": "r1"}, 0, "b2-c3", "{1} has no move, so the game ends"),
        ({"c3": "r1", "b2": "b3", "e5": "b1"}, 1, "b2-c3", "{0} has no move, so the game ends"),
        (
            {"c3": "b1 r1", "b2": "r1"},
            0,
            "b2-c3",
            "neither player has a move, so the game ends",
        ),
    ],
)
def test_the_move_that_ends_the_game_says_why(
    squares: dict[str, str], to_move: int, move: str, ending: str
) -> None:
    assert position(squares, to_move=to_move).describe(move).endswith("; " + ending)


def test_draws_are_said_by_the_move_that_makes_them() -> None:
    state = play_all(position({"a1": "r1", "e5": "b1"}), *SHUFFLE, *SHUFFLE[:3])
    assert state.describe(SHUFFLE[3]) == (
        "{1} moved a small pyramid from e4 to e5; "
        "the same position has occurred a third time, so the game is drawn"
    )
    state = position({"a1": "r1", "e5": "b1"}, plies_without_sinking=99)
    assert state.describe("a1-a2") == (
        "{0} moved a small pyramid from a1 to a2; "
        "100 plies have passed without a sinking, so the game is drawn"
    )


def test_describe_refuses_as_play_does() -> None:
    state = new()
    for move, error in [
        ("zz", InvalidMove),
        ("f1-a1", InvalidMove),
        ("b1-b3", IllegalMove),
        ("c3-c4", IllegalMove),
        ("b5-b4", IllegalMove),
    ]:
        with pytest.raises(error) as by_play:
            state.play(move)
        with pytest.raises(error) as by_describe:
            state.describe(move)
        assert str(by_describe.value) == str(by_play.value)
    over = position({"c3": "r1"}, to_move=1)
    with pytest.raises(IllegalMove, match="over"):
        over.describe("c3-c4")


# -- describe_outcome ---------------------------------------------------------------------------


def test_no_outcome_sentence_while_the_game_runs() -> None:
    assert new().describe_outcome() is None


@pytest.mark.parametrize(
    ("squares", "to_move", "moves", "sentence"),
    [
        (
            {"c3": "b1", "b2": "r3", "a1": "r1"},
            0,
            ["b2-c3"],
            "{1} could not move; {0} wins with 2 pyramids on the board to 1",
        ),
        (
            {"c3": "r1", "b2": "b3", "e5": "b1"},
            1,
            ["b2-c3"],
            "{0} could not move; {1} wins with 2 pyramids on the board to 1",
        ),
        ({"c3": "b1 r1", "b2": "r1"}, 0, ["b2-c3"], "Neither player could move, so both lose"),
        (
            {"a1": "r1", "e5": "b1"},
            0,
            SHUFFLE * 2,
            "Draw: the same position occurred a third time",
        ),
    ],
)
def test_the_outcome_sentence(
    squares: dict[str, str], to_move: int, moves: list[str], sentence: str
) -> None:
    state = play_all(position(squares, to_move=to_move), *moves)
    assert state.describe_outcome() == sentence
    assert GAME.from_json(state.to_json()).describe_outcome() == sentence


def test_the_no_sinking_draw_sentence() -> None:
    state = position({"a1": "r1", "e5": "b1"}, plies_without_sinking=99).play("a1-a2")
    assert state.describe_outcome() == "Draw: 100 plies passed without a stack sinking"


def test_a_position_set_up_over_has_an_outcome_sentence() -> None:
    assert position({"c3": "r1"}, to_move=1).describe_outcome() == (
        "{1} could not move; {0} wins with 1 pyramid on the board to 0"
    )


# -- mid_turn, summary, board_assets ------------------------------------------------------------


def test_never_mid_turn() -> None:
    state = new()
    for _ in range(20):
        assert state.mid_turn is False
        state = state.play(state.legal_moves()[0])


def test_summary_is_pyramids_by_size_and_sunk() -> None:
    assert new().summary(0) == Summary(
        score_label="pyramids on the board",
        seats=[
            SeatSummary("red", "small 5, medium 5, large 5 · sunk 0"),
            SeatSummary("blue", "small 5, medium 5, large 5 · sunk 0"),
        ],
        hand="",
        notes="",
    )
    state = position({"c3": "b1 r1", "b2": "r1", "b4": "b3", "a1": "r3", "e5": "b2"})
    after = state.play("b2-c3")
    assert [line.supplies for line in after.summary(None).seats] == [
        "small 0, medium 0, large 1 · sunk 14",
        "small 0, medium 1, large 1 · sunk 13",
    ]
    with pytest.raises(ValueError, match="seat"):
        after.summary(2)


def test_no_board_assets() -> None:
    assert GAME.board_assets(new(), 1) == {}


# -- names in the drawings ----------------------------------------------------------------------


def test_without_names_the_drawings_are_unchanged() -> None:
    state = new().play("b1-c2")
    assert GAME.render_svg(state, 1, None) == GAME.render_svg(state, 1)
    assert GAME.render_text(state, 0, names=None) == GAME.render_text(state, 0)


def test_names_label_the_players_in_the_svg_escaped() -> None:
    state = new()
    svg = GAME.render_svg(state, 0, names=["Ann <ann@x.org>", 'Bob & "Co"'])
    ElementTree.fromstring(svg)
    assert ">Ann &lt;ann@x.org&gt; to move</text>" in svg
    assert ">Ann &lt;ann@x.org&gt;</text>" in svg and ">Bob &amp; &quot;Co&quot;</text>" in svg
    assert svg.count(">15 left, 0 sunk</text>") == 2
    assert "Red" not in svg and "Blue" not in svg


def test_long_names_are_shortened_under_the_board() -> None:
    long = "someone.with.a.rather.long.address@example.com"
    svg = GAME.render_svg(new(), names=[long, "b"])
    assert f">{long[:21]}…</text>" in svg
    assert f">{long[:29]}… to move</text>" in svg


def test_names_in_the_result_and_the_text_board() -> None:
    state = position({"c3": "b1", "b2": "r3", "a1": "r1"}).play("b2-c3")
    names = ["Ann", "Bob"]
    assert "Game over: Ann wins</text>" in GAME.render_svg(state, names=names)
    text = GAME.render_text(state, names=names)
    assert "game over: Ann wins (Bob could not move)" in text and "no-move" not in text
    assert "Ann (red, seat 0): 2 on the board, 13 sunk" in text
    assert "Bob (blue, seat 1): 1 on the board, 14 sunk" in text
    assert "Martian Mud Wrestling: Ann to move;" in GAME.render_text(new(), names=names)
