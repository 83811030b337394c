"""Marram's worth: the score and what a seat holds in hand, in points that fall as the bag
empties (pbem/games/marram/worth.py)."""

from __future__ import annotations

import random

from pbem import games
from pbem.games.marram import worth as marram_worth
from pbem.games.marram.worth import FIRST, SECOND, SHOVEL, THIRD, in_hand, worth


def test_tokens_in_hand_are_worth_less_and_less_after_the_third() -> None:
    assert in_hand(0) == 0
    assert in_hand(1) == FIRST
    assert in_hand(2) == FIRST + SECOND
    assert in_hand(3) == in_hand(7) == FIRST + SECOND + THIRD


def test_a_seat_that_kept_its_tokens_is_worth_more_at_the_same_score() -> None:
    kept, spent = worth([30, 30], [[3, 0, 1, 0], [0, 0, 1, 0]], bag=39, bag_at_start=78)
    assert kept - spent == in_hand(3)  # at the middle of the game, points as fitted
    assert worth([30], [[0, 0, 0, 0]], bag=10, bag_at_start=78) == [30.0]
    one_shovel = worth([0], [[0, 0, 1, 0]], bag=39, bag_at_start=78)[0]
    assert one_shovel == SHOVEL


def test_what_is_in_hand_counts_for_fewer_points_as_the_bag_empties() -> None:
    hand = [[7, 0, 3, 0]]
    early, middle, late = (worth([0], hand, bag, 78)[0] for bag in (78, 39, 0))
    assert early > middle > late > 0
    assert early == middle * (1 + marram_worth.LATE * 0.5)
    assert worth([0], hand, bag=0, bag_at_start=0) == [late], "a deck dealt out: the end"


def test_forks_count_as_boots_do_for_the_creatures_they_claim() -> None:
    boots_only, both = worth([0, 0], [[5, 0, 0, 0], [5, 3, 0, 0]], bag=39, bag_at_start=78)
    assert both - boots_only == in_hand(3)


def test_the_state_weighs_its_scores_supplies_and_bag_and_ends_at_its_scores() -> None:
    rng = random.Random(4)
    state = games.get("marram").new(2, {"variant": "pitchfork"}, 4)
    while state.outcome is None:
        view = state.view(0)
        supplies = [[s["boots"], s["forks"], s["shovels"], s["bets"]] for s in view["supplies"]]
        dealt = 84 - 3 * 2
        assert state.worth() == worth(view["scores"], supplies, view["bag"], dealt)
        state = state.play(rng.choice(state.legal_moves()))
    assert state.worth() == [float(s) for s in state.scores()]
