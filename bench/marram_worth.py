"""Fit what a Marram position is worth beyond the score (the numbers in pbem/games/marram/worth.py).

Plays Classic games between greedy bots (two-player short games unless `--players` and
`--length` say otherwise; each game from seed 50,000 + its number) and records, at the start of
every turn, features of each seat: its score, whether it has a first, second and third boot in
hand, its shovels, and the value of the incomplete features it holds the majority on, by how many
sides are still open (regions hemmed in by a creature apart). A logistic regression of who won
on the differences between the seat to move and the best placed other seat (a point of score
weighing more as the bag empties) gives each feature's weight; divided by a point's weight at
the middle of the game, those are the points `worth.py` uses; that weight itself (the log-odds
of winning a point of lead adds at the middle of the game) is the ladder's `point`.

    .venv/bin/python bench/marram_worth.py [--games 141] [--workers 2] [--players 2]
        [--length short]

The ladders shipped come from `--games 141` for two and three players' short games and
`--games 100 --length long` for two players' long ones; a short game takes about 12 CPU seconds,
a long one about 25. The regression is Newton's method with a little ridge, written out: a
dozen weights need no numerical library.
"""

from __future__ import annotations

import argparse
import functools
import math
import random
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from typing import Any

from pbem import bots, games
from pbem.bots import Budget, Observation
from pbem.games.marram.board import DELTAS
from pbem.games.marram.features import creature_at, region_at
from pbem.games.marram.rules import QUADRANT_INDEX, SPOKE_INDEX, MarramState, Token

REGION_BUCKETS = 5  # hemmed in by a creature, 1, 2, 3, 4 or more open sides
CREATURE_BUCKETS = 3  # 1, 2, 3 or more open ends
NAMES = (
    ["score", "boot 1", "boot 2", "boot 3", "shovels", "region hemmed in"]
    + [f"region {n} open" for n in ("1", "2", "3", "4+")]
    + [f"creature {n} open" for n in ("1", "2", "3+")]
)
SEED = 50_000
Row = tuple[list[float], float, float]  # differences, progress, result for the seat to move


def _holders(
    claims: list[Token], players: int, index: dict[str, int], places: frozenset[Any]
) -> list[int]:
    """Each seat's claims standing on a feature: those whose (tile, location) is one of its
    `places` (quadrants of a region, spokes of a creature)."""
    counts = [0] * players
    for claim in claims:
        if claim.loc in index and (claim.pos, index[claim.loc]) in places:
            counts[claim.seat] += 1
    return counts


def features(state: MarramState) -> list[list[float]]:
    """One list per seat, in the order of NAMES."""
    players = state.players
    rows = [[0.0] * len(NAMES) for _ in range(players)]
    for seat, supply in enumerate(state.supplies):
        boots = supply[0]
        rows[seat][:5] = [state.score_list[seat], boots >= 1, boots >= 2, boots >= 3, supply[2]]
    board = state.board
    claims = [t for t in state.tokens if t.kind != "bet"]
    seen_regions: set[tuple[tuple[int, int], int]] = set()
    seen_creatures: set[tuple[tuple[int, int], int]] = set()
    for token in claims:
        if token.loc in QUADRANT_INDEX:
            quadrant = QUADRANT_INDEX[token.loc]
            if (token.pos, quadrant) in seen_regions:
                continue
            region = region_at(board, token.pos, quadrant)
            seen_regions |= region.nodes
            if region.complete:
                continue
            counts = _holders(claims, players, QUADRANT_INDEX, region.nodes)
            open_sides = set()
            for pos, q in region.nodes:
                for side in (q, (q + 3) % 4):
                    dx, dy = DELTAS[side]
                    if (pos[0] + dx, pos[1] + dy) not in board:
                        open_sides.add((pos, side))
            bucket = min(len(open_sides), 4) if region.surrounded else 0
            column, value = 5 + bucket, region.value(state.setup.variant)
        else:
            piece = board[token.pos].piece_at(SPOKE_INDEX[token.loc])
            if piece < 0 or (token.pos, piece) in seen_creatures:
                continue
            creature = creature_at(board, token.pos, piece)
            seen_creatures |= creature.nodes
            if creature.complete:
                continue
            counts = _holders(claims, players, SPOKE_INDEX, creature.spokes)
            ends = sum(
                (pos[0] + DELTAS[b][0], pos[1] + DELTAS[b][1]) not in board
                for pos, b in creature.spokes
            )
            per_piece = {"o": 1, "w": 2, "b": 3}[creature.species]
            column = 5 + REGION_BUCKETS + min(max(ends, 1), 3) - 1
            value = max(3, per_piece * (creature.pieces + ends))
        top = max(counts)
        for seat in range(players):
            if counts[seat] == top:
                rows[seat][column] += value
    return rows


def play(number: int, players: int = 2, length: str = "short") -> list[Row]:
    """One greedy game's positions, each from the side of the seat to move against the best
    placed other seat (the highest score; of those, one with a boot in hand)."""
    seed = SEED + number
    state = games.get("marram").new(players, {"length": length}, seed)
    assert isinstance(state, MarramState)
    bag_at_start = len(state.bag)
    rng = random.Random(f"data:{seed}")
    budget = Budget(iterations=1)
    positions: list[tuple[int, list[list[float]], int]] = []
    while state.outcome is None:
        seat = state.to_move
        assert seat is not None
        if not state.mid_turn:
            positions.append((seat, features(state), len(state.bag)))
        seen = Observation.of(state, seat, False)
        move = bots.get("greedy").choose(seen, random.Random(rng.getrandbits(64)), budget)
        state = state.play(move)
        assert isinstance(state, MarramState)
    winners = state.outcome.winners
    rows: list[Row] = []
    for seat, seats, bag in positions:
        won = 1.0 if winners == [seat] else 0.5 if seat in winners else 0.0
        rival = max((s for s in range(players) if s != seat), key=lambda s: seats[s][:2])
        difference = [a - b for a, b in zip(seats[seat], seats[rival], strict=True)]
        rows.append((difference, 1 - bag / bag_at_start, won))
    return rows


def _solve(matrix: list[list[float]], vector: list[float]) -> list[float]:
    """Gaussian elimination with partial pivoting."""
    n = len(vector)
    rows = [[*row, vector[i]] for i, row in enumerate(matrix)]
    for col in range(n):
        pivot = max(range(col, n), key=lambda r: abs(rows[r][col]))
        rows[col], rows[pivot] = rows[pivot], rows[col]
        for r in range(n):
            if r != col:
                k = rows[r][col] / rows[col][col]
                for j in range(col, n + 1):
                    rows[r][j] -= k * rows[col][j]
    return [rows[i][n] / rows[i][i] for i in range(n)]


def fit(
    xs: Sequence[Sequence[float]], ys: Sequence[float], ridge: float = 1.0, steps: int = 25
) -> tuple[list[float], float]:
    """Logistic regression weights by Newton's method, and the mean log loss."""
    k = len(xs[0])
    weights = [0.0] * k
    loss = 0.0
    for _ in range(steps):
        gradient = [ridge * w for w in weights]
        hessian = [[ridge * (i == j) for j in range(k)] for i in range(k)]
        loss = 0.0
        for x, y in zip(xs, ys, strict=True):
            z = max(-30.0, min(30.0, sum(w * v for w, v in zip(weights, x, strict=True))))
            p = 1 / (1 + math.exp(-z))
            loss -= y * math.log(max(p, 1e-12)) + (1 - y) * math.log(max(1 - p, 1e-12))
            for i in range(k):
                if x[i]:
                    gradient[i] += (p - y) * x[i]
                    for j in range(k):
                        if x[j]:
                            hessian[i][j] += p * (1 - p) * x[i] * x[j]
        step = _solve(hessian, gradient)
        weights = [w - s for w, s in zip(weights, step, strict=True)]
    return weights, loss / len(xs)


def standard_errors(
    xs: Sequence[Sequence[float]], weights: Sequence[float], ridge: float = 1.0
) -> list[float]:
    """Each weight's standard error: the root of the diagonal of the inverse Hessian of the
    penalised log loss at `weights` (its curvature says how sharply the data pin each down)."""
    k = len(weights)
    hessian = [[ridge * (i == j) for j in range(k)] for i in range(k)]
    for x in xs:
        z = max(-30.0, min(30.0, sum(w * v for w, v in zip(weights, x, strict=True))))
        p = 1 / (1 + math.exp(-z))
        for i in range(k):
            if x[i]:
                for j in range(k):
                    hessian[i][j] += p * (1 - p) * x[i] * x[j]
    return [
        math.sqrt(max(_solve(hessian, [float(i == j) for j in range(k)])[i], 0.0)) for i in range(k)
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=141)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--players", type=int, default=2, choices=(2, 3, 4))
    parser.add_argument("--length", default="short", choices=("short", "long"))
    args = parser.parse_args()
    rows: list[Row] = []
    one_game = functools.partial(play, players=args.players, length=args.length)
    with ProcessPoolExecutor(max_workers=args.workers) as pool:
        for played in pool.map(one_game, range(args.games)):
            rows += played
    # A constant (the seat to move), the differences, and the score's difference times progress.
    xs = [[1.0, *difference, difference[0] * progress] for difference, progress, _ in rows]
    weights, loss = fit(xs, [won for _, _, won in rows])
    errors = standard_errors(xs, weights)
    print(
        f"{args.games} {args.players}-player {args.length} greedy games, {len(rows)} positions, "
        f"mean log loss {loss:.4f}"
    )
    print("weight and standard error:")
    for name, weight, error in zip(
        ["the seat to move", *NAMES, "score x progress"], weights, errors, strict=True
    ):
        print(f"{name:20s} {weight:+.4f} ± {error:.4f}")
    growth = 1 + weights[-1] / weights[1]
    print(f"a point weighs {growth:.1f} times as much at the end of the game as at its start")
    middle = weights[1] + weights[-1] * 0.5
    print("in points at the middle of the game (± a standard error, the score's weight fixed):")
    for name, weight, error in zip(NAMES[1:], weights[2:-1], errors[2:-1], strict=True):
        print(f"  {name:18s} {weight / middle:+6.2f} ± {error / middle:.2f}")
    first, second, third, shovel = (w / middle for w in weights[2:6])
    print(
        f"for worth.py: Ladder(first={first:.1f}, second={second:.1f}, third={third:.1f}, "
        f"shovel={shovel:.1f}, late={growth - 1:.1f}, point={middle:.4f})"
    )


if __name__ == "__main__":
    main()
