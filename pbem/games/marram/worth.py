"""What a Marram position is worth to each seat beyond its score, in points: `State.worth`.

A claim token in hand is what lets a seat score a feature it completes (a boot laid with the
completing tile scores at once and comes back), and a shovel what lets it re-score or free one;
a token left on a feature that never completes is worth nothing. Searching bots that count only
the score spend their tokens on claims that never pay.

The numbers are logistic regressions of who won on the differences between the seat to move and
the best placed other seat, fitted on the positions at the start of every turn of Classic games
between greedy bots (`bench/marram_worth.py`, which prints them), one ladder per number of
players and length of game. A point of score counts for more as the bag empties, so what is in
hand is worth more points early and fewer late. Claims standing on incomplete features, fitted
beside them, came out worth next to nothing in short games and are left out everywhere.
Pitchfork and Animals were not fitted: their boots and forks each count as Classic's boots do,
for the kind of feature each claims.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class Ladder:
    """Points, at the middle of the game, for the first, second and third claim token of a kind
    in hand (the fourth and later add nothing) and for each shovel; and `late`, how much more a
    point of score weighs at the end of the game than at its start, less one."""

    first: float
    second: float
    third: float
    shovel: float
    late: float

    def in_hand(self, tokens: int) -> float:
        """Points for `tokens` claim tokens of one kind in hand, at the middle of the game."""
        return self.first * (tokens >= 1) + self.second * (tokens >= 2) + self.third * (tokens >= 3)


# Fitted by `bench/marram_worth.py --players P --length L`, rounded to whole points.
LADDERS: dict[tuple[int, str], Ladder] = {
    # 141 games, 3,554 positions.
    (2, "short"): Ladder(first=22.0, second=4.0, third=17.0, shovel=7.0, late=6.0),
    # 141 games, 2,422 positions. The shovel came out at -0.8 points; it is 0 because a seat
    # that holds a shovel need never use it.
    (3, "short"): Ladder(first=16.0, second=4.0, third=5.0, shovel=0.0, late=2.1),
    # 100 games, 4,482 positions. Claims held on incomplete regions with two or three open
    # sides came out at 0.6 to 1 point a point of their value (such claims score at the end of
    # a long game); they are left out all the same, not yet tried in the search, where
    # weighing them means tracing the features at every position a play-out ends on.
    (2, "long"): Ladder(first=19.0, second=3.0, third=12.0, shovel=4.0, late=4.3),
}


@functools.cache
def ladder_for(players: int, length: str) -> Ladder:
    """The ladder fitted for this many players and this length of game, or else for the nearest
    count fitted at that length (four players take three's; long games two players')."""
    fitted = [count for count, kind in LADDERS if kind == length]
    return LADDERS[min(fitted, key=lambda count: abs(count - players)), length]


def worth(
    scores: Sequence[int],
    supplies: Sequence[Sequence[int]],
    bag: int,
    bag_at_start: int,
    ladder: Ladder,
) -> list[float]:
    """Each seat's score plus its tokens and shovels in hand, in points as the game stands
    (`bag` tiles left of `bag_at_start`). Supplies are boots, forks, shovels, bets."""
    progress = 1.0 - bag / bag_at_start if bag_at_start > 0 else 1.0
    scale = (1 + ladder.late * 0.5) / (1 + ladder.late * progress)
    return [
        score
        + (ladder.in_hand(supply[0]) + ladder.in_hand(supply[1]) + ladder.shovel * supply[2])
        * scale
        for score, supply in zip(scores, supplies, strict=True)
    ]
