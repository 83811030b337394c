"""The bots, through the engine contract alone: only legal moves, in any position of any game;
the same move for the same seed and iterations; greedy by its definition; a search that sees
only what its seat sees."""

from __future__ import annotations

import math
import random
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pbem import bots, games
from pbem.bots import Budget, Observation
from pbem.bots.simple import GreedyBot
from pbem.bots.standing import after_turn, margin, result, standing
from tests.countdown import Countdown

FEW = Budget(iterations=30)


def _position(name: str, seed: int, plies: int) -> games.State:
    """A position `plies` random moves into a seeded game of `name`, every player count and
    option cycling with the seed."""
    game = games.get(name)
    rng = random.Random(seed)
    players = rng.randint(game.min_players, game.max_players)
    options = {option: rng.choice(list(values)) for option, values in game.options.items()}
    state = game.new(players, options, seed)
    for _ in range(plies):
        if state.outcome is not None:
            break
        state = state.play(rng.choice(state.legal_moves()))
    return state


def _seen(state: games.State, name: str) -> Observation:
    assert state.to_move is not None
    return Observation.of(state, state.to_move, games.get(name).perfect_information)


# Random positions a bot is asked about, per bot and game: a few in the default tier, many more
# in the audit tier (the search is the slow part: Marram's about 0.2 CPU-s a position).
DEFAULT_POSITIONS = 25
AUDIT_POSITIONS = 200


@pytest.mark.parametrize("kind", bots.kinds())
@pytest.mark.parametrize("name", games.names())
@settings(max_examples=DEFAULT_POSITIONS)
@given(seed=st.integers(0, 10_000), plies=st.integers(0, 120))
def test_bots_make_only_legal_moves_in_random_positions(
    kind: str, name: str, seed: int, plies: int
) -> None:
    _only_legal_moves(kind, name, seed, plies)


@pytest.mark.audit
@pytest.mark.parametrize("kind", bots.kinds())
@pytest.mark.parametrize("name", games.names())
@settings(max_examples=AUDIT_POSITIONS)
@given(seed=st.integers(0, 10_000), plies=st.integers(0, 120))
def test_bots_make_only_legal_moves_in_many_random_positions(
    kind: str, name: str, seed: int, plies: int
) -> None:
    _only_legal_moves(kind, name, seed, plies)


def _only_legal_moves(kind: str, name: str, seed: int, plies: int) -> None:
    state = _position(name, seed, plies)
    if state.outcome is not None:
        return
    before = state.to_json()
    move = bots.get(kind).choose(_seen(state, name), random.Random(seed), FEW)
    assert move in state.legal_moves()
    assert state.to_json() == before, "a bot must not change the position"
    rating = bots.get(kind).rate(_seen(state, name), random.Random(seed), FEW)
    assert 0.0 <= rating <= 1.0


@pytest.mark.parametrize("kind", bots.kinds())
@pytest.mark.parametrize("name", games.names())
def test_the_same_seed_and_iterations_give_the_same_move(kind: str, name: str) -> None:
    for seed in range(3):
        state = _position(name, seed, 6)
        if state.outcome is not None:
            continue
        chosen = {
            bots.get(kind).choose(_seen(state, name), random.Random(seed), Budget(iterations=40))
            for _ in range(3)
        }
        assert len(chosen) == 1


def test_a_time_budget_bounds_the_search() -> None:
    state = _position("marram", 1, 10)
    seen = _seen(state, "marram")
    clock = Budget(seconds=0.2).clock()
    while clock.more():
        pass
    assert clock.done >= 1
    move = bots.get("mcts").choose(seen, random.Random(1), Budget(seconds=0.3))
    assert move in state.legal_moves()


def test_budgets_are_checked() -> None:
    for wrong in ({}, {"iterations": 0}, {"seconds": 0}, {"seconds": -1.0}):
        with pytest.raises(ValueError):
            Budget(**wrong)  # type: ignore[arg-type]
    clock = Budget(iterations=3).clock()
    assert [clock.more() for _ in range(5)] == [True, True, True, False, False]


def test_bot_entries_of_a_players_list() -> None:
    assert bots.seat_kind("bot:mcts") == "mcts"
    assert bots.seat_kind("  BOT:Greedy ") == "greedy"
    assert bots.seat_kind("alice@example.org") is None
    with pytest.raises(ValueError, match="bot:random, bot:greedy, bot:mcts"):
        bots.seat_kind("bot:stockfish")
    assert [bots.get(kind).name for kind in bots.kinds()] == [
        "pbem Random",
        "pbem Greedy",
        "pbem MCTS",
    ]
    with pytest.raises(KeyError):
        bots.get("nobody")


# --- greedy, by its definition -------------------------------------------------------------------


def _countdown(pile: int, actions: int = 1, players: int = 2) -> Any:
    return Countdown().new(players, {"pile": pile, "actions": actions})


def test_greedy_takes_the_most_after_its_whole_turn() -> None:
    # Each seat takes twice a turn: 3 then 3 puts it furthest ahead of the other seat.
    state = _countdown(21, actions=2)
    seen = Observation.of(state, 0, True)
    assert GreedyBot().choose(seen, random.Random(0), FEW) == "3"
    after = state.play("3")
    assert after.mid_turn and after.to_move == 0
    assert GreedyBot().choose(Observation.of(after, 0, True), random.Random(0), FEW) == "3"


class _Level:
    """A position where every move leaves the scores level: only the seed can choose."""

    players = 2
    to_move = 0
    mid_turn = False
    actions_left = 1
    outcome = None

    def legal_moves(self) -> list[str]:
        return ["a", "b", "c", "d", "e"]

    def play(self, move: str) -> _Level:
        return self

    def scores(self) -> list[int]:
        return [4, 4]

    def point_weight(self) -> float:
        return 0.25

    def sample(self, seat: int | None, rng: random.Random) -> _Level:
        return self

    def view(self, seat: int | None) -> dict[str, Any]:
        return {}


def test_greedy_wins_when_its_turn_can_win_and_breaks_ties_by_its_seed() -> None:
    # Two left: taking both wins, though taking one would leave seat 0 as far ahead.
    state = _countdown(5).play("3")
    assert GreedyBot().choose(Observation.of(state, 1, True), random.Random(0), FEW) == "2"
    seen = Observation.of(_Level(), 0, True)
    picks = [GreedyBot().choose(seen, random.Random(seed), FEW) for seed in range(30)]
    assert len(set(picks)) > 1, "equal margins: the seed decides"
    again = [GreedyBot().choose(seen, random.Random(seed), FEW) for seed in range(30)]
    assert again == picks, "and the same seed decides the same"


@pytest.mark.parametrize("name", [n for n in games.names() if games.get(n).perfect_information])
@given(seed=st.integers(0, 10_000), plies=st.integers(0, 60))
def test_the_search_opens_first_the_move_that_begins_the_best_whole_turn(
    name: str, seed: int, plies: int
) -> None:
    # One iteration opens one move at the root: the greedy bot's choice, or one as good.
    state = _position(name, seed, plies)
    if state.outcome is not None:
        return
    seat = state.to_move
    assert seat is not None
    best = max(after_turn(state.play(move), seat) for move in state.legal_moves())
    move = bots.get("mcts").choose(_seen(state, name), random.Random(seed), Budget(iterations=1))
    assert after_turn(state.play(move), seat) == best


def test_standing_and_margin_read_the_scores_and_the_outcome() -> None:
    state = _countdown(10).play("3")
    assert margin(state, 0) == 3 and margin(state, 1) == -3
    prospects = standing(state)
    assert prospects[0] > 0.5 > prospects[1]
    done = _countdown(5).play("3").play("2")
    assert result(done) == [0.0, 1.0] and standing(done) == [0.0, 1.0]
    assert margin(done, 1) > 1e6 and margin(done, 0) < -1e6


class _Holding(_Level):
    """Level scores, but seat 1 holds what its engine reckons worth 6 points."""

    def worth(self) -> list[float]:
        return [4.0, 10.0]


def test_the_search_weighs_worth_and_greedy_only_the_score() -> None:
    state = _Holding()
    assert margin(state, 1) == 0 and margin(state, 1, by_worth=True) == 6  # type: ignore[arg-type]
    assert after_turn(state, 0, by_worth=True) == -6  # type: ignore[arg-type]
    prospects = standing(state)  # type: ignore[arg-type]
    assert prospects[1] > 0.5 > prospects[0]


class _Weighty(_Holding):
    """The same lead in a position where a point counts for twice as much."""

    def point_weight(self) -> float:
        return 0.5


def test_standing_is_the_chance_of_winning_a_lead_gives_by_the_engines_weight() -> None:
    light, heavy = standing(_Holding()), standing(_Weighty())  # type: ignore[arg-type]
    assert light[1] == pytest.approx(1 / (1 + math.exp(-0.25 * 6)))
    assert light[0] + light[1] == pytest.approx(1.0), "two seats: one's chance is the other's loss"
    assert heavy[1] > light[1] > 0.5 > light[0] > heavy[0]


# --- what the search sees ------------------------------------------------------------------------


class _OnlyViewAndSample:
    """A position that lets a bot call `view` and `sample` and nothing else: any other use of
    the true position fails the test."""

    def __init__(self, state: games.State, seat: int) -> None:
        self._state = state
        self._seat = seat
        self.samples = 0
        self.views = 0

    def view(self, seat: int | None) -> Any:
        assert seat == self._seat, "a bot may only look from its own seat"
        self.views += 1
        return self._state.view(seat)

    def sample(self, seat: int | None, rng: random.Random) -> games.State:
        assert seat == self._seat, "a bot may only sample from its own seat"
        self.samples += 1
        drawn = self._state.sample(seat, rng)
        assert drawn is not self._state, "a hidden-information sample is a position of its own"
        return drawn

    def __getattr__(self, name: str) -> Any:
        raise AssertionError(f"the bot read the true position's {name!r}")


HIDDEN = [name for name in games.names() if not games.get(name).perfect_information]


@pytest.mark.parametrize("kind", bots.kinds())
@pytest.mark.parametrize("name", HIDDEN)
def test_bots_of_a_hidden_information_game_see_only_the_view_and_samples(
    kind: str, name: str
) -> None:
    assert HIDDEN, "no engine has hidden information"
    for seed in range(4):
        state = _position(name, seed, 8 * seed)
        if state.outcome is None:
            break
    seat = state.to_move
    assert seat is not None
    spy = _OnlyViewAndSample(state, seat)
    seen = Observation.of(spy, seat, perfect_information=False)
    move = bots.get(kind).choose(seen, random.Random(3), Budget(iterations=50))
    assert move in state.legal_moves()
    assert spy.samples >= 1
    if kind == "mcts":
        # Information-set search: a new position drawn from the view for every iteration.
        assert spy.samples >= 50
    bots.get(kind).rate(seen, random.Random(3), Budget(iterations=20))


def test_every_iteration_of_the_search_of_a_hidden_game_draws_again() -> None:
    state = _position("marram", 2, 5)
    assert state.to_move is not None
    drawn: list[str] = []
    real = state.sample

    def sample(seat: int | None, rng: random.Random) -> games.State:
        one = real(seat, rng)
        drawn.append(str(sorted(one.to_json()["bag"][:5])))
        return one

    seen = Observation(
        state.to_move, lambda: state.view(state.to_move), lambda r: sample(state.to_move, r), False
    )
    bots.get("mcts").choose(seen, random.Random(0), Budget(iterations=40))
    assert len(drawn) >= 40 and len(set(drawn)) > 1, "the samples differ in what is hidden"
