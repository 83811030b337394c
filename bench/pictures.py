"""CPU cost of a board picture for mail, per engine: the page's SVG against the mail drawing.

Plays random games with each engine (Marram 2, 3 and 4 players, the 4-player game long, its late
positions also reported alone as the worst case), takes positions along each game, and times with
the process's CPU clock, one thread:

- draw: the engine writing the SVG (`render_svg` for the page, `render_mail_svg` for mail);
- png: pbem.pictures.render_png turning it into a PNG 600 pixels wide;
- total: both, which is what a picture costs the mail worker.

Prints median and 95th percentile in milliseconds, and the PNG size. A benchmark, not a test.

    .venv/bin/python bench/pictures.py [--games 4] [--every 3] [--repeat 3]
"""

from __future__ import annotations

import argparse
import platform
import random
import statistics
import time
from collections.abc import Callable, Iterator
from typing import Any

from pbem import games, pictures
from pbem.games.base import State

NAMES = ["Alice Ångström", "Bob <b> & co", 'Chloé "C"', "Dmitri Дмитрий"]

# (label, engine, players, options): every engine, every player count, the largest boards.
CASES: list[tuple[str, str, int, dict[str, Any]]] = [
    ("GORami 16", "gorami", 2, {"board": 16}),
    ("GORami 22", "gorami", 2, {"board": 22}),
    ("GORami 24", "gorami", 2, {"board": 24}),
    ("MMW", "mmw", 2, {}),
    ("Marram 2p", "marram", 2, {}),
    ("Marram 3p", "marram", 3, {}),
    ("Marram 4p long", "marram", 4, {"length": "long"}),
]


def played(engine: str, players: int, options: dict[str, Any], seed: int) -> list[State]:
    """Every position of one random game, the start and the end included."""
    game = games.get(engine)
    rng = random.Random(seed)
    state = game.new(players, options, seed=seed)
    states = [state]
    while state.outcome is None:
        state = state.play(rng.choice(state.legal_moves()))
        states.append(state)
    return states


def positions(
    engine: str, players: int, options: dict[str, Any], n_games: int, every: int
) -> Iterator[tuple[State, int, bool]]:
    """(position, seat to draw for, late in the game?) along `n_games` games."""
    for seed in range(n_games):
        states = played(engine, players, options, 1000 + seed)
        last = len(states) - 1
        for ply in [*range(0, last, every), last]:
            yield states[ply], ply % players, ply >= 0.8 * last


def cpu_ms(call: Callable[[], Any], repeat: int) -> tuple[float, Any]:
    """The least CPU time of `repeat` calls, in ms (the least is the cost without interference)."""
    best = float("inf")
    out: Any = None
    for _ in range(repeat):
        started = time.process_time()
        out = call()
        best = min(best, time.process_time() - started)
    return best * 1000, out


def p95(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]


def measure(
    engine: str, players: int, options: dict[str, Any], n_games: int, every: int, repeat: int
) -> tuple[dict[str, dict[str, list[float]]], dict[str, dict[str, list[float]]]]:
    """Per drawing ("page", "mail"): lists of draw, png, total ms and PNG kB; all positions, and
    the late ones."""
    game = games.get(engine)
    names = NAMES[:players]
    every_position: dict[str, dict[str, list[float]]] = {}
    late_only: dict[str, dict[str, list[float]]] = {}
    for state, seat, late in positions(engine, players, options, n_games, every):
        drawings: dict[str, Callable[[], str]] = {
            "page": lambda s=state, t=seat: game.render_svg(s, t, names),
            "mail": lambda s=state, t=seat: game.render_mail_svg(s, t, names),
        }
        for kind, draw in drawings.items():
            draw_ms, svg = cpu_ms(draw, repeat)
            png_ms, png = cpu_ms(lambda svg=svg: pictures.render_png(svg), repeat)
            for bucket in (every_position, late_only) if late else (every_position,):
                row = bucket.setdefault(kind, {"draw": [], "png": [], "total": [], "kB": []})
                row["draw"].append(draw_ms)
                row["png"].append(png_ms)
                row["total"].append(draw_ms + png_ms)
                row["kB"].append(len(png) / 1024)
    return every_position, late_only


def line(label: str, kind: str, row: dict[str, list[float]]) -> str:
    return (
        f"| {label} | {kind} | {len(row['total'])} | "
        f"{statistics.median(row['draw']):.1f} / {p95(row['draw']):.1f} | "
        f"{statistics.median(row['png']):.1f} / {p95(row['png']):.1f} | "
        f"**{statistics.median(row['total']):.1f}** / **{p95(row['total']):.1f}** | "
        f"{max(row['total']):.1f} | {statistics.median(row['kB']):.0f} |"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=4, help="random games per case")
    parser.add_argument("--every", type=int, default=3, help="take every n-th position")
    parser.add_argument("--repeat", type=int, default=3, help="timings per drawing (least kept)")
    args = parser.parse_args()
    # The first picture pays for loading libvips, librsvg and the fonts: not a picture's cost.
    pictures.render_png(games.get("mmw").render_mail_svg(games.get("mmw").new(2), 0, NAMES[:2]))
    print(f"{platform.python_implementation()} {platform.python_version()}, {platform.machine()}")
    print(
        f"{args.games} games per case, one position in {args.every} and the last, "
        f"least of {args.repeat} CPU timings each; PNG {pictures.MAIL_WIDTH_PX} px wide\n"
    )
    print(
        "| case | drawing | positions | draw ms median / p95 | png ms median / p95 "
        "| total ms median / p95 | total max | PNG kB |"
    )
    print("|---|---|---|---|---|---|---|---|")
    for label, engine, players, options in CASES:
        every_position, late_only = measure(
            engine, players, options, args.games, args.every, args.repeat
        )
        for kind in ("page", "mail"):
            print(line(label, kind, every_position[kind]))
        if engine == "marram" and players == 4:
            for kind in ("page", "mail"):
                print(line(f"{label}, last 20% of plies", kind, late_only[kind]))


if __name__ == "__main__":
    main()
