"""CPU cost and size of a board picture for mail, per engine, as a picture worker draws them.

For each case (every engine at its largest board, Marram with 2, 3 and 4 players, the 4-player
game long) it first plays `--warm` random games through one process's sprite cache, untimed: a
picture worker runs for days, and by then has drawn the squares, discs and tiles of many games.
Then it plays `--games` other random games and times every position's picture with the process's
CPU clock, one thread:

- layout: the engine's `mail_drawing` (sprites and where they go);
- png: pbem.sprite_pictures pasting the rasters (drawing the sprites it has not seen), mapping to
  the family's palette and writing the PNG;
- total: both, which is what a picture costs the worker (pbem.pictures.board_png).

It prints median, 95th and 99th percentile and the most, the same for the last fifth of the plies
(late positions: the fullest boards), and the PNG's median and 99th percentile in kB. With
`--cold` the warm-up is skipped: a worker's first games. `--svg` adds librsvg drawing the same
drawing as one SVG document (`render_mail_svg`, pbem.pictures.render_png), for one position in
five: what a picture cost before the sprites. A benchmark, not a test.

    .venv/bin/python bench/pictures.py [--games 3] [--warm 60] [--cold] [--svg] [--only Marram]
"""

from __future__ import annotations

import argparse
import platform
import random
import statistics
import time
from typing import Any

from pbem import games, pictures, sprite_pictures
from pbem.games.base import State

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


def quantile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(share * (len(ordered) - 1)))]


def measure(
    engine: str, players: int, options: dict[str, Any], args: argparse.Namespace
) -> dict[str, list[float]]:
    """Per picture: layout, png and total ms, PNG kB, late totals, and librsvg's ms."""
    game = games.get(engine)
    sprite_pictures.cache_clear()
    pictures.cache_clear()
    if not args.cold:
        for seed in range(100, 100 + args.warm):
            for state in played(engine, players, options, seed):
                seat = len(state.history) % players
                sprite_pictures.compose_png(game.mail_drawing(state, seat))
    out: dict[str, list[float]] = {k: [] for k in ("layout", "png", "total", "kB", "late", "svg")}
    for seed in range(1000, 1000 + args.games):
        states = played(engine, players, options, seed)
        for ply, state in enumerate(states):
            seat = ply % players
            started = time.process_time()
            drawing = game.mail_drawing(state, seat)
            laid = time.process_time()
            png = sprite_pictures.compose_png(drawing)
            done = time.process_time()
            total = (done - started) * 1000
            out["layout"].append((laid - started) * 1000)
            out["png"].append((done - laid) * 1000)
            out["total"].append(total)
            out["kB"].append(len(png) / 1024)
            if ply >= 0.8 * (len(states) - 1):
                out["late"].append(total)
            if args.svg and ply % 5 == 0:
                started = time.process_time()
                pictures.render_png(game.render_mail_svg(state, seat))
                out["svg"].append((time.process_time() - started) * 1000)
    return out


def spread(values: list[float]) -> str:
    return (
        f"{statistics.median(values):.1f} / {quantile(values, 0.95):.1f} / "
        f"{quantile(values, 0.99):.1f} / {max(values):.1f}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=3, help="timed random games per case")
    parser.add_argument("--warm", type=int, default=60, help="untimed games first, per case")
    parser.add_argument("--cold", action="store_true", help="no warm-up: a new worker")
    parser.add_argument("--svg", action="store_true", help="also time librsvg's whole drawing")
    parser.add_argument("--only", default="", help="only the cases whose label contains this")
    args = parser.parse_args()
    # The first picture pays for loading libvips, librsvg and the fonts: not a picture's cost.
    mmw = games.get("mmw")
    sprite_pictures.compose_png(mmw.mail_drawing(mmw.new(2), 0))
    print(f"{platform.python_implementation()} {platform.python_version()}, {platform.machine()}")
    warm = "no warm-up" if args.cold else f"after {args.warm} untimed games"
    print(
        f"{args.games} timed games per case, every position, {warm}; CPU ms, median / p95 / p99 "
        f"/ max; PNG {pictures.MAIL_WIDTH_PX} px wide\n"
    )
    print(
        "| case | pictures | layout | png | **total** | total, last fifth | PNG kB median / p99 "
        "| librsvg whole SVG, median |"
    )
    print("|---|---|---|---|---|---|---|---|")
    for label, engine, players, options in CASES:
        if args.only not in label:
            continue
        row = measure(engine, players, options, args)
        svg = f"{statistics.median(row['svg']):.1f}" if row["svg"] else "–"
        print(
            f"| {label} | {len(row['total'])} | {spread(row['layout'])} | {spread(row['png'])} "
            f"| **{spread(row['total'])}** | {spread(row['late'])} "
            f"| {statistics.median(row['kB']):.0f} / {quantile(row['kB'], 0.99):.0f} | {svg} |"
        )


if __name__ == "__main__":
    main()
