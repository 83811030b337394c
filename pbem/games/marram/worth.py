"""What a Marram position is worth to each seat beyond its score, in points: `State.worth`.

A claim token in hand is what lets a seat score a feature it completes (a boot laid with the
completing tile scores at once and comes back), and a shovel what lets it re-score or free one;
a token left on a feature that never completes is worth nothing. Searching bots that count only
the score spend their tokens on claims that never pay.

The numbers are a logistic regression of who won on the differences between the two seats, fitted
on the positions at the start of every turn of 141 two-player Classic short games between greedy
bots (`bench/marram_worth.py`, which prints them): 22 points for having a claim token, 4 more for
a second, 17 more for a third, none beyond, and 7 a shovel, rounded, at the middle of the game.
A point of score counts for more as the bag empties (the fitted weight of a point grows sevenfold
from the first turn to the last), so what is in hand is worth more points early and fewer late.
Claims standing on incomplete features, fitted beside them, came out worth next to nothing and
are left out. Pitchfork and Animals were not fitted: their boots and forks each count as
Classic's boots do, for the kind of feature each claims.
"""

from __future__ import annotations

from collections.abc import Sequence

# Points, at the middle of the game, for the first, second and third claim token of a kind in
# hand (the fourth and later add nothing) and for each shovel.
FIRST, SECOND, THIRD = 22.0, 4.0, 17.0
SHOVEL = 7.0
# How much more a point of score weighs at the end of the game than at its start, less one.
LATE = 6.0


def in_hand(tokens: int) -> float:
    """Points for `tokens` claim tokens of one kind in hand, at the middle of the game."""
    return FIRST * (tokens >= 1) + SECOND * (tokens >= 2) + THIRD * (tokens >= 3)


def worth(
    scores: Sequence[int], supplies: Sequence[Sequence[int]], bag: int, bag_at_start: int
) -> list[float]:
    """Each seat's score plus its tokens and shovels in hand, in points as the game stands
    (`bag` tiles left of `bag_at_start`). Supplies are boots, forks, shovels, bets."""
    progress = 1.0 - bag / bag_at_start if bag_at_start > 0 else 1.0
    scale = (1 + LATE * 0.5) / (1 + LATE * progress)
    return [
        score + (in_hand(supply[0]) + in_hand(supply[1]) + SHOVEL * supply[2]) * scale
        for score, supply in zip(scores, supplies, strict=True)
    ]
