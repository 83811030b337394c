"""How strong the bots are: round robins at fixed iteration budgets (a benchmark, not a test).

Every two-player game (each at its default options unless `--all-options`) plays each pairing of
bots `--games` times, the seats alternated (each bot moves first in half the games), each game
from its own seed; three-player Marram rotates the three bots through every seat order. Each bot
gets the same iteration budget per decision (`--iterations`; MCTS iterations, greedy and random
need none). Win rates come with Wilson 95 % intervals; a draw, or a game nobody wins, is no win
for either side (the counts of draws are shown).

    .venv/bin/python bench/bots.py [--games 200] [--iterations 300] [--workers 2]
        [--game gorami --game mmw --game marram] [--marram-three] [--all-options]
        [--pairing mcts,greedy] [--option length=long]

`--pairing` plays only the pairings named (each game's seeds are the same in every run, so a
change to a bot can be tried on the first few dozen games of a pairing and compared game by game).
`--option KEY=VALUE` sets one of a game's options (the others keep their defaults), e.g.
`--game marram --option length=long` for long Marram games.

Runs on `--workers` processes; the CPU seconds each bot spent thinking are totalled.
"""

from __future__ import annotations

import argparse
import itertools
import math
import platform
import random
import sys
import time
from collections import Counter, defaultdict
from collections.abc import Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from typing import Any

from pbem import bots, games
from pbem.bots import Budget, Observation

PAIRINGS = (("mcts", "greedy"), ("greedy", "random"), ("mcts", "random"))


@dataclass(frozen=True)
class Task:
    game: str
    options: tuple[tuple[str, Any], ...]
    seats: tuple[str, ...]  # the bot of each seat
    seed: int
    iterations: int


@dataclass
class Played:
    task: Task
    winners: list[int]
    reason: str
    plies: int
    thinking: dict[str, float] = field(default_factory=dict)  # CPU seconds per bot kind
    decisions: dict[str, int] = field(default_factory=dict)  # moves chosen per bot kind


def play(task: Task) -> Played:
    """One game between bots, each deciding from its seat's observation alone."""
    engine = games.get(task.game)
    state = engine.new(len(task.seats), dict(task.options), task.seed)
    rng = random.Random(f"bench:{task.seed}")
    budget = Budget(iterations=task.iterations)
    thinking: Counter[str] = Counter()
    decisions: Counter[str] = Counter()
    plies = 0
    while state.outcome is None:
        seat = state.to_move
        assert seat is not None
        kind = task.seats[seat]
        seen = Observation.of(state, seat, engine.perfect_information)
        started = time.process_time()
        move = bots.get(kind).choose(seen, random.Random(rng.getrandbits(64)), budget)
        thinking[kind] += time.process_time() - started
        decisions[kind] += 1
        state = state.play(move)
        plies += 1
    outcome = state.outcome
    return Played(
        task, list(outcome.winners), outcome.reason, plies, dict(thinking), dict(decisions)
    )


def wilson(wins: int, games_played: int, z: float = 1.96) -> tuple[float, float]:
    """The Wilson score interval of a win rate (95 % by default)."""
    if games_played == 0:
        return 0.0, 1.0
    p = wins / games_played
    denominator = 1 + z * z / games_played
    centre = (p + z * z / (2 * games_played)) / denominator
    half = z * math.sqrt(p * (1 - p) / games_played + z * z / (4 * games_played**2)) / denominator
    return max(0.0, centre - half), min(1.0, centre + half)


def two_player_tasks(
    names: Sequence[str],
    count: int,
    iterations: int,
    all_options: bool,
    pairings: Sequence[tuple[str, str]] = PAIRINGS,
    chosen: dict[str, str] | None = None,
) -> Iterator[Task]:
    for name in names:
        engine = games.get(name)
        if engine.min_players > 2:
            continue
        option_sets = (
            [
                dict(zip(engine.options, values, strict=True))
                for values in itertools.product(*engine.options.values())
            ]
            if all_options
            else [
                {
                    # A chosen value as the engine spells it (GORami's boards are numbers).
                    option: {str(v): v for v in values}.get(
                        (chosen or {}).get(option, ""), values[0]
                    )
                    for option, values in engine.options.items()
                }
            ]
        )
        for options in option_sets:
            frozen = tuple(sorted(options.items()))
            for a, b in pairings:
                for index in range(count):
                    seats = (a, b) if index % 2 == 0 else (b, a)
                    yield Task(name, frozen, seats, 10_000 + index, iterations)


def three_player_tasks(count: int, iterations: int) -> Iterator[Task]:
    """Three-player Marram, the three bots in every seat order in turn."""
    orders = list(itertools.permutations(("mcts", "greedy", "random")))
    options = tuple(sorted({"variant": "classic", "length": "short"}.items()))
    for index in range(count):
        yield Task("marram", options, orders[index % len(orders)], 20_000 + index, iterations)


def report(results: list[Played], seconds: float, args: argparse.Namespace) -> str:
    lines = [
        f"Python {platform.python_version()} on {platform.machine()}, {args.workers} processes, "
        f"{seconds:,.0f} s; MCTS at {args.iterations:,} iterations a decision "
        "(greedy and random search nothing).",
    ]
    if any(len(played.task.seats) == 2 for played in results):
        lines += [
            "",
            "| game | options | pairing | games | A wins | B wins | draws "
            "| A win rate (95 % CI) | plies/game | CPU s/decision A · B |",
            "|---|---|---|---:|---:|---:|---:|---|---:|---|",
        ]
    groups: dict[tuple[str, tuple[tuple[str, Any], ...], tuple[str, str]], list[Played]] = (
        defaultdict(list)
    )
    three: list[Played] = []
    for played in results:
        if len(played.task.seats) == 2:
            pair = tuple(sorted(played.task.seats, key=["mcts", "greedy", "random"].index))
            groups[(played.task.game, played.task.options, pair)].append(played)  # type: ignore[index]
        else:
            three.append(played)
    for (name, options, (a, b)), rows in sorted(groups.items()):
        wins = Counter[str]()
        decisions = Counter[str]()
        thinking = Counter[str]()
        for played in rows:
            if len(played.winners) == 1:
                wins[played.task.seats[played.winners[0]]] += 1
            decisions.update(played.decisions)
            thinking.update(played.thinking)
        low, high = wilson(wins[a], len(rows))
        draws = len(rows) - wins[a] - wins[b]
        shown = ", ".join(f"{k}={v}" for k, v in options) or "-"
        per = " · ".join(f"{thinking[k] / max(1, decisions[k]):.3f}" for k in (a, b))
        plies = sum(p.plies for p in rows) / len(rows)
        lines.append(
            f"| {name} | {shown} | {a} vs {b} | {len(rows)} | {wins[a]} | {wins[b]} | {draws} "
            f"| {wins[a] / len(rows):.1%} ({low:.1%}–{high:.1%}) | {plies:.0f} | {per} |"
        )
    if three:
        wins = Counter[str]()
        for played in three:
            for winner in played.winners:
                # A shared win counts a share to each.
                wins[played.task.seats[winner]] += 1 / len(played.winners)
        lines += [
            "",
            f"Three-player Marram (classic, short), {len(three)} games, the bots rotated through "
            "every seat order (a shared win counted as a share):",
            "",
            "| bot | wins | win rate (95 % CI) |",
            "|---|---:|---|",
        ]
        for kind in ("mcts", "greedy", "random"):
            low, high = wilson(round(wins[kind]), len(three))
            lines.append(
                f"| {kind} | {wins[kind]:.1f} | {wins[kind] / len(three):.1%} "
                f"({low:.1%}–{high:.1%}) |"
            )
    return "\n".join(lines)


def _pairing(text: str) -> tuple[str, str]:
    a, sep, b = text.partition(",")
    pair = (a.strip(), b.strip())
    if not sep or pair not in PAIRINGS:
        known = " ".join(f"{x},{y}" for x, y in PAIRINGS)
        raise argparse.ArgumentTypeError(f"{text!r} is not a pairing; choose one of {known}")
    return pair


def _option(text: str) -> tuple[str, str]:
    key, sep, value = text.partition("=")
    if not sep or not key.strip() or not value.strip():
        raise argparse.ArgumentTypeError(f"{text!r} is not KEY=VALUE, e.g. length=long")
    return key.strip(), value.strip()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=200, help="games per pairing")
    parser.add_argument("--iterations", type=int, default=300, help="MCTS iterations a move")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--game", action="append", help="only these two-player games")
    parser.add_argument("--marram-three", action="store_true", help="three-player Marram too")
    parser.add_argument("--three-only", action="store_true", help="three-player Marram only")
    parser.add_argument("--all-options", action="store_true", help="every option combination")
    parser.add_argument(
        "--pairing",
        action="append",
        type=_pairing,
        help="only this pairing of two-player games, e.g. mcts,greedy (repeatable)",
    )
    parser.add_argument(
        "--option",
        action="append",
        type=_option,
        default=[],
        help="a game option other than its default, e.g. length=long (repeatable)",
    )
    args = parser.parse_args()
    chosen = dict(args.option)
    if chosen and args.all_options:
        parser.error("--option chooses one option set; --all-options plays them all: give one")
    for name in args.game or games.names():
        engine = games.get(name)
        for key, value in chosen.items():
            if key not in engine.options or value not in map(str, engine.options[key]):
                parser.error(f"{name} has no option {key}={value}")
    tasks: list[Task] = []
    if not args.three_only:
        names = args.game or games.names()
        pairings = args.pairing or PAIRINGS
        tasks += list(
            two_player_tasks(names, args.games, args.iterations, args.all_options, pairings, chosen)
        )
    if args.marram_three or args.three_only:
        tasks += list(three_player_tasks(args.games, args.iterations))
    started = time.perf_counter()
    results: list[Played] = []
    with ProcessPoolExecutor(max_workers=args.workers) as pool:
        for index, played in enumerate(pool.map(play, tasks, chunksize=1), 1):
            results.append(played)
            if index % 20 == 0:
                # Wins so far, so that a long run read part way says how it is going.
                wins = Counter(r.task.seats[r.winners[0]] for r in results if len(r.winners) == 1)
                tally = ", ".join(f"{kind} {count}" for kind, count in sorted(wins.items()))
                line = f"{index}/{len(tasks)} games; lone wins: {tally}"
                print(line, file=sys.stderr, flush=True)
    print(report(results, time.perf_counter() - started, args))


if __name__ == "__main__":
    main()
