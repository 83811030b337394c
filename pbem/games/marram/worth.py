"""What a Marram position is worth to each seat beyond its score, in points: `State.worth`.

A claim token in hand is what lets a seat score a feature it completes (a boot laid with the
completing tile scores at once and comes back), and a shovel what lets it re-score or free one;
a token left on a feature that never completes is worth nothing. Searching bots that count only
the score spend their tokens on claims that never pay.

The numbers are logistic regressions of who won on the differences between the seat to move and
the best placed other seat, fitted on the positions at the start of every turn of Classic games
between greedy bots (`bench/marram_worth.py`, which prints them), one ladder per number of
players and length of game. A point of score counts for more as the bag empties, so what is in
hand is worth more points early and fewer late; the same regression says how much a point of
lead adds to the odds of winning (`point_weight`), which the search turns a lead into a chance
of winning with. Claims standing on incomplete features, fitted beside them, came out worth
next to nothing in short games and are left out everywhere. Pitchfork and Animals were not
fitted: their boots and forks each count as Classic's boots do, for the kind of feature each
claims.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class Ladder:
    """Points, at the middle of the game, for the first, second and third claim token of a kind
    in hand (the fourth and later add nothing) and for each shovel; `late`, how much more a
    point of score weighs at the end of the game than at its start, less one; and `point`, the
    log-odds of winning a point of lead adds at the middle of the game."""

    first: float
    second: float
    third: float
    shovel: float
    late: float
    point: float

    def in_hand(self, tokens: int) -> float:
        """Points for `tokens` claim tokens of one kind in hand, at the middle of the game."""
        return self.first * (tokens >= 1) + self.second * (tokens >= 2) + self.third * (tokens >= 3)


# Fitted by `bench/marram_worth.py --players P --length L`, the points rounded to whole points
# (`point` to three significant figures: 0.0476 for two players' short games is the fit's
# 0.0119 a point at the start times 1 + 6 / 2).
LADDERS: dict[tuple[int, str], Ladder] = {
    # 141 games, 3,554 positions.
    (2, "short"): Ladder(first=22.0, second=4.0, third=17.0, shovel=7.0, late=6.0, point=0.0476),
    # 141 games, 2,422 positions. The shovel came out at -0.8 points; it is 0 because a seat
    # that holds a shovel need never use it.
    (3, "short"): Ladder(first=16.0, second=4.0, third=5.0, shovel=0.0, late=2.1, point=0.074),
    # 100 games, 4,482 positions. Claims held on incomplete regions with two or three open
    # sides came out at 0.6 to 1 point a point of their value (such claims score at the end of
    # a long game); they are left out all the same, not yet tried in the search, where
    # weighing them means tracing the features at every position a play-out ends on.
    (2, "long"): Ladder(first=19.0, second=3.0, third=12.0, shovel=4.0, late=4.3, point=0.0506),
}


@functools.cache
def ladder_for(players: int, length: str) -> Ladder:
    """The ladder fitted for this many players and this length of game, or else for the nearest
    count fitted at that length (four players take three's; long games two players')."""
    fitted = [count for count, kind in LADDERS if kind == length]
    return LADDERS[min(fitted, key=lambda count: abs(count - players)), length]


def progress(bag: int, bag_at_start: int) -> float:
    """How far the game has gone, from 0 (the whole bag left) to 1 (the bag empty)."""
    return 1.0 - bag / bag_at_start if bag_at_start > 0 else 1.0


def point_weight(progress: float, ladder: Ladder) -> float:
    """The log-odds of winning a point of lead adds this far into the game."""
    return ladder.point * (1 + ladder.late * progress) / (1 + ladder.late * 0.5)


def worth(
    scores: Sequence[int],
    supplies: Sequence[Sequence[int]],
    progress: float,
    ladder: Ladder,
) -> list[float]:
    """Each seat's score plus its tokens and shovels in hand, in points as the game stands
    (`progress` as `progress` gives it). Supplies are boots, forks, shovels, bets."""
    scale = (1 + ladder.late * 0.5) / (1 + ladder.late * progress)
    return [
        score
        + (ladder.in_hand(supply[0]) + ladder.in_hand(supply[1]) + ladder.shovel * supply[2])
        * scale
        for score, supply in zip(scores, supplies, strict=True)
    ]
