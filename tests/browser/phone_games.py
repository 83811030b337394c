"""The games the tap tests play (tests/browser/test_play_phone.py): whole games short enough to
play through the page one tap at a time, each move chosen in advance by a seeded policy from the
engine alone, and the positions sampled at each screen size."""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, field

from pbem import games

Policy = Callable[[games.State, list[str], random.Random], str]


def anything(state: games.State, legal: list[str], rng: random.Random) -> str:
    return rng.choice(legal)


def blue_gives_up(state: games.State, legal: list[str], rng: random.Random) -> str:
    """Martian Mud Wrestling, over soon: both seats leave blue as few moves as they can (blue
    loses once it has none), ties broken at random."""

    def blue_moves(after: games.State) -> int:
        if after.outcome is not None:
            return -1
        if after.to_move == 1:
            return len(after.legal_moves())
        squares = after.view(None)["squares"]
        return sum(1 for stack in squares.values() if stack and stack[-1]["colour"] == "blue")

    return min(legal, key=lambda move: (blue_moves(state.play(move)), rng.random()))


def scores_most(state: games.State, legal: list[str], rng: random.Random) -> str:
    """Marram, over soon: the move scoring the mover most now (of at most 300 drawn)."""
    me = state.to_move
    assert me is not None
    drawn = legal if len(legal) <= 300 else rng.sample(legal, 300)
    return max(drawn, key=lambda move: (state.play(move).scores()[me], rng.random()))


@dataclass(frozen=True)
class WholeGame:
    engine: str
    options: dict[str, object]
    names: list[str]
    seed: int  # the game's, and the policy's generator's
    policy: Policy
    most: int  # plies: the plan is checked to end within them
    label: str = field(default="")


WHOLE_GAMES = [
    WholeGame("gorami", {"board": 16}, ["Ann", "Ben"], 4, anything, 16, "gorami"),
    WholeGame("mmw", {}, ["Ann", "Ben"], 1, blue_gives_up, 24, "mmw"),
    # Scoring fast, two players reach Classic's 80 points in a dozen actions, flips included.
    WholeGame(
        "marram",
        {"variant": "classic", "length": "short"},
        ["Ann", "Ben"],
        20,
        scores_most,
        20,
        "marram",
    ),
]


def plan(game: WholeGame, state: games.State) -> list[str]:
    """The moves, from `state` (the new game as stored) to its end, the policy's choices."""
    rng = random.Random(game.seed)
    moves: list[str] = []
    while state.outcome is None:
        assert len(moves) < game.most, f"{game.label}: no end within {game.most} plies"
        move = game.policy(state, state.legal_moves(), rng)
        moves.append(move)
        state = state.play(move)
    return moves


@dataclass(frozen=True)
class Sample:
    engine: str
    options: dict[str, object]
    names: list[str]
    seed: int
    plies: int


# Early and later positions of each engine, the boards fuller and Marram's larger than a phone.
SAMPLES = {
    "gorami": [
        Sample("gorami", {"board": 22}, ["Ann", "Ben"], 3, 6),
        Sample("gorami", {"board": 24}, ["Ann", "Ben"], 5, 12),
    ],
    "mmw": [
        Sample("mmw", {}, ["Ann", "Ben"], 3, 4),
        Sample("mmw", {}, ["Ann", "Ben"], 5, 30),
    ],
    "marram": [
        Sample("marram", {"variant": "classic"}, ["Ann", "Ben", "Cat"], 3, 12),
        Sample("marram", {"variant": "animals"}, ["Ann", "Ben"], 5, 40),
    ],
}


def sample_move(state: games.State) -> str:
    """A move from the middle of the legal list: claims and turns as often as not."""
    legal = state.legal_moves()
    return legal[len(legal) // 2]
