"""The two-player base (`pbem.games.two_player`) as GORami and Martian Mud Wrestling use it."""

from __future__ import annotations

import random

import pytest

from pbem import games
from pbem.games.base import SAID, Outcome
from pbem.games.two_player import TwoPlayerGame, TwoPlayerState, colour_words, seat_word

TWO_PLAYER = ["gorami", "mmw"]


@pytest.mark.parametrize("name", TWO_PLAYER)
def test_the_adapter_lives_in_the_engines_package(name: str) -> None:
    # The service finds an engine's board script, about.json and guide by its class's package.
    game = games.get(name)
    assert isinstance(game, TwoPlayerGame)
    assert type(game).__module__ == f"pbem.games.{name}"
    assert (game.min_players, game.max_players, game.perfect_information) == (2, 2, True)


@pytest.mark.parametrize("name", TWO_PLAYER)
def test_the_adapter_draws_only_its_own_states(name: str) -> None:
    game = games.get(name)
    other = games.get("mmw" if name == "gorami" else "gorami").new(2)
    with pytest.raises(TypeError, match=f"^{name} cannot draw a "):
        game.render_svg(other)
    with pytest.raises(TypeError, match=f"^{name} cannot draw a "):
        game.board_assets(other, 0)
    assert game.board_assets(game.new(2), 0) == {}


@pytest.mark.parametrize("name", TWO_PLAYER)
def test_the_state_defaults(name: str) -> None:
    state = games.get(name).new(2, seed=3)
    assert isinstance(state, TwoPlayerState)
    assert (state.players, state.mid_turn, state.actions_left, state.dropped) == (2, False, 1, [])
    assert state.sample(1, random.Random(0)) is state
    assert state.worth() == [float(s) for s in state.scores()]
    with pytest.raises(ValueError, match="two-player game"):
        state.drop(0)
    with pytest.raises(ValueError, match=f"^{name}: seat"):
        state.view(2)
    move = state.legal_moves()[0]
    after, words = state.play_described(move)
    assert words == state.describe(move)
    assert after.history == [move]


@pytest.mark.parametrize("name", TWO_PLAYER)
def test_a_settled_game_is_over_and_says_so(name: str) -> None:
    state = games.get(name).new(2)
    over = state.settled(Outcome([1], state.scores(), "resigned", {SAID: "{0} resigned"}))
    assert (over.to_move, over.legal_moves(), over.actions_left) == (None, [], 0)
    assert over.describe_outcome() == "{0} resigned"
    assert state.outcome is None  # the position settled is left alone
    with pytest.raises(ValueError, match="already over"):
        over.settled(Outcome([], state.scores(), "agreed"))


def test_seat_words() -> None:
    colours = ("red", "blue")
    assert seat_word(None, 1, colours) == "Blue"
    assert seat_word(None, 1, colours, capital=False) == "blue"
    assert seat_word(["Ann", "Bartholomew"], 1, colours, limit=5) == "Bart…"
    assert colour_words("{0} moved; {1} waits", colours) == "Red moved; Blue waits"
