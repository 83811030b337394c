"""The bots that do not search: one plays at random, one greedily for its score."""

from __future__ import annotations

import random

from pbem.bots.budget import Budget
from pbem.bots.observation import Observation
from pbem.bots.standing import after_turn, standing


class RandomBot:
    """Any legal move, equally likely."""

    kind = "random"
    name = "pbem Random"

    def choose(self, seen: Observation, rng: random.Random, budget: Budget) -> str:
        state = seen.sample(rng)
        return rng.choice(state.legal_moves())

    def rate(self, seen: Observation, rng: random.Random, budget: Budget) -> float:
        return standing(seen.sample(rng))[seen.seat]


class GreedyBot:
    """The move that leaves its own score furthest ahead of the best other seat's once its whole
    turn is played (both actions of a turn of two), ties broken by its seed. A game won by the
    turn counts above any score, a game lost below any."""

    kind = "greedy"
    name = "pbem Greedy"

    def choose(self, seen: Observation, rng: random.Random, budget: Budget) -> str:
        state = seen.sample(rng)
        seat = seen.seat
        moves = state.legal_moves()
        rng.shuffle(moves)  # max() keeps the first of equals: the seed breaks ties
        best, best_value = moves[0], float("-inf")
        for move in moves:
            value = after_turn(state.play(move), seat)
            if value > best_value:
                best, best_value = move, value
        return best

    def rate(self, seen: Observation, rng: random.Random, budget: Budget) -> float:
        return standing(seen.sample(rng))[seen.seat]
