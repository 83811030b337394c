"""GORami's page contract: move and outcome sentences, the summary, names in the drawings."""

from __future__ import annotations

import re
from xml.etree import ElementTree

import pytest

from pbem import games
from pbem.games import IllegalMove, InvalidMove, SeatSummary, Summary, fill_names
from pbem.games.gorami import GoramiState, setup
from tests.games.test_gorami import BLOCKED_16, TRIPLE

GAME = games.get("gorami")

# BLOCKED_16 (from the rules tests): blue holds only 1s and no empty cell takes a 1; yellow holds
# a 2 and a 3.
BLOCKED_HANDS = [[0, 1, 1], [2, 0, 0]]

# Recorded games (also in test_gorami.py), each ending one way.
GAME_16_FISH = "1d3 3c2 3c4 1c1 2a2 3a3 2d1 3b5 1b3 2b4 1a1 2c3 2c5 2b1 3b2 3d2"
GAME_16_NO_MOVE_DRAW = "1c2 2a1 3b4 1b5 3c4 2b1 2d3 2a3 1b2 3c1 2d1 1a2 2c5 1d2"
GAME_22_INTERIOR = (
    "2d5 1c2 2c1 3c4 1b2 1c5 3d3 1d2 2b1 3a1 1a3 3c7 1d7 1b5 2a2 2c6 3d6 2b3 1d4 2c3 3d1 3b4"
)
GAME_22_DRAW = (
    "2b3 3c1 2d3 1c7 3d6 2c5 2c2 3c6 1b2 3a1 1c4 1a2 1d5 1d2 1b4 3c3 2d1 2a3 3b1 2d7 3d4 2b5"
)


def new(size: int = 22) -> GoramiState:
    state = GAME.new(2, {"board": size})
    assert isinstance(state, GoramiState)
    return state


def replay(size: int, moves: str) -> GoramiState:
    state = new(size)
    for move in moves.split():
        state = state.play(move)
    return state


# -- describe -----------------------------------------------------------------------------------


def test_a_placement_names_the_mover_by_placeholder_the_disc_and_the_cell() -> None:
    state = new()
    assert state.describe("2b3") == "{0} placed a 2 on b3"
    assert state.describe(" 2 B3 ") == "{0} placed a 2 on b3"
    assert state.play("2b3").describe("3a1") == "{1} placed a 3 on a1"
    assert fill_names(state.describe("2b3"), ["Ann", "Bob"]) == "Ann placed a 2 on b3"


def test_describe_leaves_the_state_alone() -> None:
    state = new()
    before = state.to_json()
    state.describe("2b3")
    assert state.to_json() == before


def test_captures_are_listed_with_their_numbers() -> None:
    state = setup(22, TRIPLE, to_move=0)
    assert state.describe("3c4") == (
        "{0} placed a 3 on c4 and captured the 1 on b3, the 1 on c3 and the 1 on c5"
    )
    two = setup(22, {**TRIPLE, "c5": "y1"}, to_move=0)
    assert two.describe("3c4") == "{0} placed a 3 on c4 and captured the 1 on b3 and the 1 on c3"


def test_a_skipped_opponent_is_said_and_the_turn_is_not_mid_turn() -> None:
    state = setup(16, BLOCKED_16, to_move=0, hands=BLOCKED_HANDS)
    assert state.describe("2c3") == (
        "{0} placed a 2 on c3 and captured the 3 on b3 and the 3 on c4; "
        "{1} cannot place, so {0} places again"
    )
    after = state.play("2c3")
    assert after.to_move == 0
    assert after.mid_turn is False, "placing again because blue cannot is a new turn"


def test_the_move_that_ends_the_game_says_why() -> None:
    state = setup(16, BLOCKED_16, to_move=0, hands=BLOCKED_HANDS)
    assert state.play("2c3").describe("3a2") == (
        "{0} placed a 3 on a2 and captured the 1 on a1; the board is full, so the game ends"
    )
    assert state.describe("2a2") == (
        "{0} placed a 2 on a2 and captured the 1 on a1; neither player can place, so the game ends"
    )


def test_describe_refuses_as_play_does() -> None:
    state = new().play("2b3")
    for move, error in [("zz", InvalidMove), ("4a1", InvalidMove), ("1b3", IllegalMove)]:
        with pytest.raises(error) as by_play:
            state.play(move)
        with pytest.raises(error) as by_describe:
            state.describe(move)
        assert str(by_describe.value) == str(by_play.value)
    over = replay(16, GAME_16_FISH)
    with pytest.raises(IllegalMove, match="over"):
        over.describe("1a1")


# -- describe_outcome ---------------------------------------------------------------------------


def test_no_outcome_sentence_while_the_game_runs() -> None:
    assert new().describe_outcome() is None
    assert new().play("2b3").describe_outcome() is None


@pytest.mark.parametrize(
    ("size", "moves", "sentence"),
    [
        (16, GAME_16_FISH, "The board is full; {0} wins 7 fish to 2"),
        (
            22,
            GAME_22_INTERIOR,
            "The board is full; 6 fish each, so the interior cells decide: {1} wins 8 to 0",
        ),
        (
            16,
            GAME_16_NO_MOVE_DRAW,
            "Draw: neither player could place; 4 fish each and the interior cells tied at 0",
        ),
        (22, GAME_22_DRAW, "Draw: the board is full; 6 fish each and the interior cells tied at 4"),
    ],
)
def test_the_outcome_sentence_keeps_the_facts(size: int, moves: str, sentence: str) -> None:
    state = replay(size, moves)
    assert state.describe_outcome() == sentence
    assert GAME.from_json(state.to_json()).describe_outcome() == sentence


def test_a_win_when_neither_can_place() -> None:
    state = setup(16, BLOCKED_16, to_move=0, hands=BLOCKED_HANDS).play("2a2")
    assert state.describe_outcome() == "Neither player could place; {0} wins 5 fish to 3"


# -- mid_turn, summary, board_assets ------------------------------------------------------------


def test_never_mid_turn() -> None:
    state = new()
    while state.outcome is None:
        assert state.mid_turn is False
        state = state.play(state.legal_moves()[0])
    assert state.mid_turn is False


def test_summary_is_fish_colours_and_discs_left() -> None:
    assert new().summary(None) == Summary(
        score_label="fish",
        seats=[
            SeatSummary("yellow", "discs left: 1×4 · 2×4 · 3×4"),
            SeatSummary("blue", "discs left: 1×4 · 2×4 · 3×4"),
        ],
        hand="",
        notes="",
    )
    state = setup(16, BLOCKED_16, to_move=0, hands=BLOCKED_HANDS)
    assert [line.supplies for line in state.summary(1).seats] == [
        "discs left: 1×0 · 2×1 · 3×1",
        "discs left: 1×2 · 2×0 · 3×0",
    ]
    assert state.summary(0) == state.summary(1), "GORami hides nothing"
    with pytest.raises(ValueError, match="seat"):
        state.summary(2)


def test_no_board_assets() -> None:
    assert GAME.board_assets(new(), 0) == {}


# -- names in the drawings ----------------------------------------------------------------------


def test_without_names_the_drawings_are_unchanged() -> None:
    state = new().play("2b3")
    assert GAME.render_svg(state, 0, None) == GAME.render_svg(state, 0)
    assert GAME.render_text(state, 1, names=None) == GAME.render_text(state, 1)
    assert "Blue to move" in GAME.render_svg(state)


def test_names_label_the_players_in_the_svg_escaped() -> None:
    state = new().play("2b3")
    svg = GAME.render_svg(state, 0, names=["Ann <ann@x.org>", 'Bob & "Co"'])
    ElementTree.fromstring(svg)
    assert "Bob &amp; &quot;Co&quot; to move" in svg
    # Each name on a line of its own, what goes with it on the next.
    assert ">Ann &lt;ann@x.org&gt;</text>" in svg and ">you</text>" in svg
    assert ">Bob &amp; &quot;Co&quot;</text>" in svg and ">◀ to move</text>" in svg
    assert "Blue to move" not in svg and ">Yellow" not in svg
    titles = re.findall(r'<g class="stripe"[^>]*><title>([^<]*)</title>', svg)
    assert titles and all("Ann &lt;ann@x.org&gt; " in t for t in titles)
    assert 'data-name="Ann &lt;ann@x.org&gt; placed a 2 on b3"' in svg


def test_long_names_are_shortened_above_the_hands() -> None:
    long = "someone.with.a.rather.long.address@example.com"
    svg = GAME.render_svg(new(), None, names=[long, "b"])
    assert f">{long[:17]}…</text>" in svg
    assert f"{long[:15]}… to move" in svg


def test_names_in_the_result_and_the_text_board() -> None:
    state = replay(16, GAME_16_FISH)
    names = ["Ann", "Bob"]
    assert "Board full: Ann wins with 7 fish to 2" in GAME.render_svg(state, names=names)
    text = GAME.render_text(state, 0, names=names)
    assert "Board full: Ann wins with 7 fish to 2" in text
    assert "Ann (yellow) seat 0 (you): hand" in text
    assert "Bob (blue) seat 1: hand" in text
    running = GAME.render_text(new(), names=names)
    assert running.splitlines()[0] == "GORami, 22-cell board: Ann to move"
    assert running.isascii(), "plain ASCII, as a mail's text part is cheapest"
