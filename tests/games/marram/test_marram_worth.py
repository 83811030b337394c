"""Marram's worth: the score and what a seat holds in hand, in points that fall as the bag
empties, on a ladder fitted per number of players and length (pbem/games/marram/worth.py)."""

from __future__ import annotations

import random

import pytest

from pbem import games
from pbem.games.marram.worth import LADDERS, Ladder, ladder_for, point_weight, progress, worth

TWO = LADDERS[(2, "short")]


@pytest.mark.parametrize("ladder", list(LADDERS.values()))
def test_tokens_in_hand_are_worth_nothing_more_after_the_third(ladder: Ladder) -> None:
    assert ladder.in_hand(0) == 0
    assert ladder.in_hand(1) == ladder.first > 0
    assert ladder.in_hand(2) == ladder.first + ladder.second
    assert ladder.in_hand(3) == ladder.in_hand(7) == ladder.first + ladder.second + ladder.third
    assert ladder.shovel >= 0 and ladder.late >= 0 and ladder.point > 0


def test_a_seat_that_kept_its_tokens_is_worth_more_at_the_same_score() -> None:
    kept, spent = worth([30, 30], [[3, 0, 1, 0], [0, 0, 1, 0]], 0.5, TWO)
    assert kept - spent == TWO.in_hand(3)  # at the middle of the game, points as fitted
    assert worth([30], [[0, 0, 0, 0]], progress=0.9, ladder=TWO) == [30.0]
    assert worth([0], [[0, 0, 1, 0]], progress=0.5, ladder=TWO) == [TWO.shovel]


def test_what_is_in_hand_counts_for_fewer_points_as_the_bag_empties() -> None:
    hand = [[7, 0, 3, 0]]
    early, middle, late = (worth([0], hand, progress(bag, 78), TWO)[0] for bag in (78, 39, 0))
    assert early > middle > late > 0
    assert early == middle * (1 + TWO.late * 0.5)
    assert progress(0, 0) == 1.0, "dealt out: the end"


@pytest.mark.parametrize("ladder", list(LADDERS.values()))
def test_a_point_of_lead_weighs_more_as_the_bag_empties_and_tokens_the_same(
    ladder: Ladder,
) -> None:
    early, middle, late = (point_weight(done, ladder) for done in (0.0, 0.5, 1.0))
    assert 0 < early < middle < late
    assert middle == pytest.approx(ladder.point)
    assert late == pytest.approx(early * (1 + ladder.late))
    # A token's points fall as a point's weight rises: what it adds to the odds of winning
    # is the same all game long.
    hand = [[1, 0, 0, 0]]
    odds = [point_weight(done, ladder) * worth([0], hand, done, ladder)[0] for done in (0, 0.5, 1)]
    assert odds == pytest.approx([ladder.point * ladder.first] * 3)


def test_forks_count_as_boots_do_for_the_creatures_they_claim() -> None:
    boots_only, both = worth([0, 0], [[5, 0, 0, 0], [5, 3, 0, 0]], 0.5, TWO)
    assert both - boots_only == TWO.in_hand(3)


def test_each_count_of_players_takes_its_own_ladder_or_the_nearest_fitted() -> None:
    assert ladder_for(2, "short") is TWO
    assert ladder_for(3, "short") is LADDERS[(3, "short")]
    assert ladder_for(4, "short") is LADDERS[(3, "short")], "four players: three's, not fitted"
    for players in (2, 3, 4):
        assert ladder_for(players, "long") in LADDERS.values()


@pytest.mark.parametrize("players", [2, 3, 4])
def test_the_state_weighs_its_scores_supplies_and_bag_and_ends_at_its_scores(
    players: int,
) -> None:
    rng = random.Random(4)
    options = {"variant": "pitchfork", "length": "long"} if players == 2 else {}
    state = games.get("marram").new(players, options, 4)
    ladder = ladder_for(players, "long" if players == 2 else "short")
    while state.outcome is None:
        view = state.view(0)
        supplies = [[s["boots"], s["forks"], s["shovels"], s["bets"]] for s in view["supplies"]]
        done = progress(view["bag"], 84 - 3 * players)
        assert state.worth() == worth(view["scores"], supplies, done, ladder)
        assert state.point_weight() == point_weight(done, ladder)
        state = state.play(rng.choice(state.legal_moves()))
    assert state.worth() == [float(s) for s in state.scores()]
