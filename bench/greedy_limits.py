"""How far a one-turn greedy player can get against random play (a benchmark, not a test).

Issue 15 defines the greedy bot exactly (the move that leaves its score furthest ahead of the best
other seat's after its whole turn, ties broken by its seed) and also asks that it beat random
play in 90 % of games. In GORami and Martian Mud Wrestling it does not (`bench/bots.py`). This
script plays the defined bot and three changes to it against the random bot, to show whether the
shortfall lies in the tie-break or in looking only one turn ahead:

- `greedy`: `pbem.bots`' greedy bot, as the issue defines it;
- `ties: fewest replies`: the same score, ties broken by the fewest legal replies left to the
  other seat, then the seed;
- `ties: lowest disc` (GORami only): ties broken by keeping the higher discs, then the seed;
- `ties: the game's tie-break` (GORami only): the score read as the game ranks players, fish
  and then the interior sums, then the seed;
- `reply look-ahead`: the move whose worst reply leaves the best margin (a two-ply minimax,
  no longer greedy).

    .venv/bin/python bench/greedy_limits.py [--games 400]

Each game has its own seed and the seats alternate; a draw is no win.
"""

from __future__ import annotations

import argparse
import random
from collections.abc import Callable
from typing import Any

from pbem import bots, games
from pbem.bots import Budget, Observation
from pbem.bots.standing import after_turn, margin
from pbem.games.base import State

Key = Callable[[State, int], Any]


def _fewest_replies(after: State, seat: int) -> Any:
    if after.outcome is not None or after.to_move == seat:
        return (after_turn(after, seat), 0)
    return (after_turn(after, seat), -len(after.legal_moves()))


def _lowest_disc(after: State, seat: int) -> Any:
    # GORami moves start with the disc's number ("2b3").
    return (after_turn(after, seat), -int(after.history[-1][0]))


def _game_tie_break(after: State, seat: int) -> Any:
    # GORami's view carries each seat's sum on the interior cells, which decides equal fish.
    interior = after.view(seat)["interior"]
    return (after_turn(after, seat), interior[seat] - interior[1 - seat])


def _reply_look_ahead(after: State, seat: int) -> Any:
    if after.outcome is not None or after.to_move == seat:
        return after_turn(after, seat)
    return min(margin(after.play(reply), seat) for reply in after.legal_moves())


def _chooser(key: Key) -> Callable[[State, random.Random], str]:
    def choose(state: State, rng: random.Random) -> str:
        seat = state.to_move
        assert seat is not None
        moves = state.legal_moves()
        rng.shuffle(moves)  # the first of equals wins: the seed breaks the remaining ties
        best, best_value = moves[0], None
        for move in moves:
            value = key(state.play(move), seat)
            if best_value is None or value > best_value:
                best, best_value = move, value
        return best

    return choose


def _defined_bot(state: State, rng: random.Random) -> str:
    seat = state.to_move
    assert seat is not None
    return bots.get("greedy").choose(Observation.of(state, seat, True), rng, Budget(iterations=1))


def _random_bot(state: State, rng: random.Random) -> str:
    return rng.choice(state.legal_moves())


def win_rate(
    name: str, options: dict[str, Any], player: Callable[[State, random.Random], str], count: int
) -> tuple[int, int, int]:
    """Wins, losses and draws of `player` against random play over `count` games."""
    wins = losses = 0
    for index in range(count):
        state = games.get(name).new(2, options, 10_000 + index)
        rng = random.Random(f"greedy-limits:{index}")
        mine = index % 2  # the seat `player` takes, alternating
        while state.outcome is None:
            chooser = player if state.to_move == mine else _random_bot
            state = state.play(chooser(state, random.Random(rng.getrandbits(64))))
        winners = state.outcome.winners
        wins += winners == [mine]
        losses += winners == [1 - mine]
    return wins, losses, count - wins - losses


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=400)
    args = parser.parse_args()
    players: list[tuple[str, Callable[[State, random.Random], str], set[str]]] = [
        ("greedy", _defined_bot, {"gorami", "mmw"}),
        ("ties: fewest replies", _chooser(_fewest_replies), {"gorami", "mmw"}),
        ("ties: lowest disc", _chooser(_lowest_disc), {"gorami"}),
        ("ties: the game's tie-break", _chooser(_game_tie_break), {"gorami"}),
        ("reply look-ahead", _chooser(_reply_look_ahead), {"gorami", "mmw"}),
    ]
    setups = [("gorami", {"board": board}) for board in (16, 22, 24)] + [("mmw", {})]
    print("| game | player | games | wins | losses | draws | win rate |")
    print("|---|---|---:|---:|---:|---:|---:|")
    for name, options in setups:
        shown = f"{name} {options['board']}" if options else name
        for label, player, where in players:
            if name not in where:
                continue
            wins, losses, draws = win_rate(name, options, player, args.games)
            print(
                f"| {shown} | {label} | {args.games} | {wins} | {losses} | {draws} "
                f"| {wins / args.games:.1%} |",
                flush=True,
            )


if __name__ == "__main__":
    main()
