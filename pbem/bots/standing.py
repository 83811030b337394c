"""How good a position is for each seat, from the contract alone: a finished game by its
outcome, a running one by its scores, or by its worth (`State.worth`: the scores and what the
engine reckons each seat holds beyond them) and what a point of it weighs towards winning
(`State.point_weight`). Bots search towards it."""

from __future__ import annotations

import math

from pbem.games.base import State


def result(state: State) -> list[float]:
    """Each seat's share of a finished game: the winners share 1 (1 for a lone winner, 1/2 each
    for two), the others 0; a game nobody won is even for all."""
    outcome = state.outcome
    assert outcome is not None
    players = state.players
    winners = outcome.winners
    if not winners:
        return [1.0 / players] * players
    share = 1.0 / len(winners)
    return [share if seat in winners else 0.0 for seat in range(players)]


def standing(state: State) -> list[float]:
    """Each seat's prospects in [0, 1]: the result when the game is over, else its chance of
    winning as its lead in worth over the best other seat says, a point of lead weighing what
    the engine reckons it weighs in that position (`State.point_weight`)."""
    if state.outcome is not None:
        return result(state)
    worth = state.worth()
    weight = state.point_weight()
    prospects = []
    for seat in range(len(worth)):
        best_other = max(w for other, w in enumerate(worth) if other != seat)
        # Clamped so that a lead of any size gives a number, not an overflow.
        odds = max(-60.0, min(60.0, weight * (worth[seat] - best_other)))
        prospects.append(1.0 / (1.0 + math.exp(-odds)))
    return prospects


def margin(state: State, seat: int, by_worth: bool = False) -> float:
    """`seat`'s score (or, `by_worth`, its worth) minus the best other seat's, a finished game
    counted above any when won and below any when lost (a shared win is between)."""
    if state.outcome is not None:
        won = result(state)[seat]
        return (won - 1.0 / state.players) * 1e9
    values: list[float] | list[int] = state.worth() if by_worth else state.scores()
    return values[seat] - max(v for other, v in enumerate(values) if other != seat)


def after_turn(state: State, seat: int, by_worth: bool = False) -> float:
    """`seat`'s margin once its turn is over: the best second action's when the turn goes on."""
    if state.outcome is None and state.to_move == seat and state.mid_turn:
        return max(margin(state.play(move), seat, by_worth) for move in state.legal_moves())
    return margin(state, seat, by_worth)
