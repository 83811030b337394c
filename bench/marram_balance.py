"""Balance of the Marram standard tile set, measured by simulated two-player games.

Rules section 8 asks that the set be judged by games between simple greedy players, not guessed.
This plays N games per variant (classic, pitchfork, animals), long by default, and reports per game
averages and distributions, then the section-8 targets as PASS/FAIL lines. Everything is counted
from the public `log` of the final `view(None)`, so it measures what players would see.

The greedy player, per action:
1. groups the legal moves by their tile action (`place <id> <x>,<y> <rot>` or `flip <x>,<y> <rot>`)
   and plays each bare action once; its value is own score gain minus the best opponent gain;
2. only an action that completes a feature (a `score` event in the log) can make a claim or bet
   pay at once, so only then are all its claim/bet endings played and valued the same way;
3. takes the best value; a flip must beat the best placement strictly (shovels are not spent
   for nothing); ties are broken by a seeded RNG;
4. on a tied bare action it adds, with probability `--claim-rate` (default 0.5), a random
   claim on the tile just laid, keeping one token of that kind back for claims that score at
   once; in Animals it likewise adds a bet when the tile shows prey.
It never passes unless `pass` is the only move.

Usage:
    .venv/bin/python bench/marram_balance.py                 # 1000 long games per variant
    .venv/bin/python bench/marram_balance.py --games 50 --variants classic
    .venv/bin/python bench/marram_balance.py --short         # how often short games reach the
                                                             # threshold before the tiles run out
    --seed S (first game seed), --workers W (default 2), --json out.json, --md out.md,
    --set candidate.json (try a tile set laid out like data/standard.json without installing it)
"""

from __future__ import annotations

import argparse
import json
import math
import multiprocessing
import random
import re
import statistics
import sys
import time
from collections import Counter
from collections.abc import Iterable, Sequence
from typing import Any

from pbem import games

VARIANTS = ("classic", "pitchfork", "animals")
SUFFIX = re.compile(r" (?:boot|fork|bet) ")
MAX_PLIES = 2000


# ---------------------------------------------------------------------------------------------
# The greedy player


def _log(state: Any) -> list[dict[str, Any]]:
    """The public log; the engine's own list when it exposes one (much cheaper than a view)."""
    log = getattr(state, "log", None)
    if isinstance(log, list):
        return log
    return list(state.view(None)["log"])


def _value(state: Any, after: Any, seat: int) -> int:
    before, now = state.scores(), after.scores()
    own = now[seat] - before[seat]
    others = [now[s] - before[s] for s in range(len(now)) if s != seat]
    return int(own - max(others, default=0))


def _supply(state: Any, seat: int) -> dict[str, int]:
    return dict(state.view(seat)["supplies"][seat])


def greedy_move(state: Any, rng: random.Random, claim_rate: float = 0.5) -> str:
    moves = state.legal_moves()
    if len(moves) == 1:
        return str(moves[0])
    seat = state.to_move
    groups: dict[str, list[str]] = {}
    for move in moves:
        groups.setdefault(SUFFIX.split(move, maxsplit=1)[0], []).append(move)
    log_len = len(_log(state))
    scored: list[tuple[int, int, float, str, bool]] = []  # (value, is-place, tie, move, bare)
    for base, family in groups.items():
        after = state.play(base)
        value = _value(state, after, seat)
        is_place = 0 if base.startswith("flip") else 1
        scored.append((value, is_place, rng.random(), base, True))
        new_events = _log(after)[log_len:]
        if any(e.get("type") == "score" for e in new_events):
            for move in family:
                if move != base:
                    scored.append(
                        (_value(state, state.play(move), seat), is_place, rng.random(), move, False)
                    )
    best_value = max(v for v, *_ in scored)
    best_place = max((v for v, p, *_ in scored if p), default=None)
    candidates = [
        s
        for s in scored
        if s[0] == best_value and (s[1] == 1 or best_place is None or s[0] > best_place)
    ]
    if not candidates:  # only flips beat nothing: take the best placement
        candidates = [s for s in scored if s[1] == 1 and s[0] == best_place]
    value, _, _, move, bare = max(candidates, key=lambda s: (s[0], s[2]))
    if not bare or rng.random() >= claim_rate:
        return move
    # A tied bare action: claim something on it now and then (and bet on prey in Animals).
    family = groups[move]
    supply = _supply(state, seat)
    claims = [
        m
        for m in family
        if " bet " not in m
        and any(f" {kind} " in m and supply.get(kind + "s", 0) >= 2 for kind in ("boot", "fork"))
    ]
    choice = rng.choice(claims) if claims else move
    if supply.get("bets", 0) >= 1:
        bets = [m for m in family if " bet " in m and SUFFIX.split(m)[0] == move]
        with_claim = [m for m in bets if m.startswith(choice + " bet ")]
        if with_claim:
            choice = rng.choice(with_claim)
    return choice


# ---------------------------------------------------------------------------------------------
# One game


# A candidate tile set ({"start": ..., "tiles": [...]}, the layout of standard.json) given with
# --set; None plays the engine's standard set. Set before the pool forks, so workers inherit it.
CANDIDATE: dict[str, Any] | None = None


def play_game(task: tuple[str, str, int, float]) -> dict[str, Any]:
    variant, length, seed, claim_rate = task
    game = games.get("marram")
    options: dict[str, Any] = {"variant": variant, "length": length}
    if CANDIDATE is not None:
        # The deck option is drawn in order, so shuffle it here from the game's seed.
        deck = list(CANDIDATE["tiles"])
        random.Random(seed).shuffle(deck)
        options.update(start=CANDIDATE["start"], deck=deck)
    state = game.new(2, options, seed=seed)
    rng = random.Random(seed * 7919 + 17)
    started = time.perf_counter()
    while state.outcome is None and len(state.history) < MAX_PLIES:
        state = state.play(greedy_move(state, rng, claim_rate))
    view = state.view(None)
    return summarise(view, state, variant, length, seed, time.perf_counter() - started)


def summarise(
    view: dict[str, Any], state: Any, variant: str, length: str, seed: int, seconds: float
) -> dict[str, Any]:
    log = view["log"]
    record: dict[str, Any] = {
        "variant": variant,
        "length": length,
        "seed": seed,
        "seconds": round(seconds, 3),
        "actions": len(view["history"]),
        "passes": sum(1 for e in log if e["type"] == "pass"),
        "placements": sum(1 for e in log if e["type"] == "place"),
        "flips": sum(1 for e in log if e["type"] == "flip"),
        "claims": sum(1 for e in log if e["type"] == "claim"),
        "bets": sum(1 for e in log if e["type"] == "bet"),
        "eaten": sum(1 for e in log if e["type"] == "eaten"),
        "bets_lost": sum(1 for e in log if e["type"] == "bet-lost"),
        "discards": sum(1 for e in log if e["type"] == "discard"),
        "end_bonus": sum(
            int(e.get("points", e.get("value", 0))) for e in log if e["type"] == "end-bonus"
        ),
        "reason": (view.get("outcome") or {}).get("reason"),
        "scores": list(view["scores"]),
        "unfinished": view.get("outcome") is None,
    }
    creatures: Counter[str] = Counter()
    regions: Counter[str] = Counter()
    creature_points = region_points = unclaimed = 0
    # A flip can complete again a feature that already scored (rules 5.4), so count what flips
    # score apart: it shows how much of the game the shovels decide.
    flip_plies = {e["ply"] for e in log if e["type"] == "flip"}
    record["flip_scores"] = record["flip_points"] = 0
    for e in log:
        if e["type"] != "score":
            continue
        if e["ply"] in flip_plies:
            record["flip_scores"] += 1
            record["flip_points"] += int(e.get("value", 0)) * len(e.get("winners") or [])
        if not e.get("winners"):
            unclaimed += 1
        if e.get("feature") == "creature":
            key = f"{e['species']}_{'valid' if e.get('valid') else 'freak'}"
            creatures[key] += 1
            creature_points += int(e.get("value", 0)) * len(e.get("winners") or [])
        else:
            regions[str(e.get("terrain"))] += 1
            region_points += int(e.get("value", 0)) * len(e.get("winners") or [])
    for species in "obw":
        for validity in ("valid", "freak"):
            record[f"creatures_{species}_{validity}"] = creatures[f"{species}_{validity}"]
    record["creatures"] = sum(creatures.values())
    record["freaks"] = sum(v for k, v in creatures.items() if k.endswith("freak"))
    record["regions_g"] = regions["g"]
    record["regions_s"] = regions["s"]
    record["regions"] = regions["g"] + regions["s"]
    record["scored_unclaimed"] = unclaimed
    record["creature_points"] = creature_points
    record["region_points"] = region_points
    setup = getattr(state, "setup", None)
    record["tiles_in_set"] = len(setup.tiles) - 1 if setup is not None else 84
    return record


# ---------------------------------------------------------------------------------------------
# Reporting


def _stats(values: Sequence[float]) -> dict[str, float]:
    ordered = sorted(values)
    n = len(ordered)

    def pct(p: float) -> float:
        return ordered[min(n - 1, max(0, math.ceil(p * n) - 1))]

    return {
        "mean": statistics.fmean(ordered),
        "sd": statistics.pstdev(ordered) if n > 1 else 0.0,
        "min": ordered[0],
        "p10": pct(0.10),
        "median": statistics.median(ordered),
        "p90": pct(0.90),
        "max": ordered[-1],
    }


ROWS = [
    ("creatures", "creatures completed"),
    ("creatures_o_valid", "  orange snakes, valid"),
    ("creatures_o_freak", "  orange snakes, freak"),
    ("creatures_b_valid", "  blue snakes, valid"),
    ("creatures_b_freak", "  blue snakes, freak"),
    ("creatures_w_valid", "  worms, valid"),
    ("creatures_w_freak", "  worms, freak"),
    ("regions", "regions completed"),
    ("regions_g", "  grass tufts"),
    ("regions_s", "  sand mounds"),
    ("score_winner", "winner's score"),
    ("score_loser", "loser's score"),
    ("score_total", "both scores"),
    ("creature_points", "points from creatures"),
    ("region_points", "points from regions"),
    ("end_bonus", "end bonus points"),
    ("actions", "actions"),
    ("placements", "placements"),
    ("flips", "flips"),
    ("flip_scores", "features scored by flips"),
    ("flip_points", "points scored by flips"),
    ("passes", "passes"),
    ("claims", "claims"),
    ("bets", "bets"),
    ("eaten", "prey eaten (bets won)"),
    ("bets_lost", "bets lost"),
    ("discards", "dead-tile discards"),
    ("seconds", "seconds per game"),
]


def _enrich(record: dict[str, Any]) -> dict[str, Any]:
    scores = record["scores"]
    record["score_winner"] = max(scores)
    record["score_loser"] = min(scores)
    record["score_total"] = sum(scores)
    return record


def targets(by_variant: dict[str, list[dict[str, Any]]]) -> list[tuple[str, bool | None, str]]:
    """The rules section 8 targets as (name, passed, measured)."""
    out: list[tuple[str, bool | None, str]] = []
    mean = {
        v: {k: statistics.fmean(r[k] for r in rs) for k in ("creatures", "freaks", "regions")}
        for v, rs in by_variant.items()
        if rs and rs[0]["length"] == "long"
    }
    for v, m in mean.items():
        out.append(
            (
                f"{v}: creatures completed per game >= 8",
                m["creatures"] >= 8,
                f"{m['creatures']:.2f}",
            )
        )
        share = m["freaks"] / m["creatures"] if m["creatures"] else 0.0
        out.append(
            (
                f"{v}: freak beasts 10-35 % of completed creatures",
                0.10 <= share <= 0.35,
                f"{share:.1%}",
            )
        )
    if "classic" in mean:
        c = mean["classic"]["regions"]
        out.append(("classic: regions completed per game >= 2", c >= 2, f"{c:.2f}"))
        if "pitchfork" in mean:
            p = mean["pitchfork"]["regions"]
            ratio = p / c if c else math.inf
            out.append(
                ("pitchfork: regions per game >= 2x classic", p >= 2 * c, f"{p:.2f} ({ratio:.2f}x)")
            )
    for v, rs in by_variant.items():
        if not rs:
            continue
        laid_or_dead = sum(r["tiles_in_set"] for r in rs)
        dead = sum(r["discards"] for r in rs) / laid_or_dead
        out.append(
            (
                f"{v} {rs[0]['length']}: dead tiles discarded < 5 % of tiles",
                dead < 0.05,
                f"{dead:.2%}",
            )
        )
        flips = statistics.fmean(r["flips"] for r in rs)
        out.append((f"{v} {rs[0]['length']}: flips per game >= 1", flips >= 1, f"{flips:.2f}"))
        if rs[0]["length"] == "short":
            reached = sum(1 for r in rs if r["reason"] == "threshold") / len(rs)
            out.append(
                (
                    f"{v} short: threshold reached in >= 80 % of games",
                    reached >= 0.8,
                    f"{reached:.1%}",
                )
            )
    return out


def markdown(
    by_variant: dict[str, list[dict[str, Any]]], args: argparse.Namespace, wall: float
) -> str:
    variants = [v for v, rs in by_variant.items() if rs]
    length = "short" if args.short else "long"
    n = {v: len(by_variant[v]) for v in variants}
    lines = [
        f"## Marram balance: {length} two-player games between greedy players",
        "",
        f"`.venv/bin/python bench/marram_balance.py --games {args.games} --seed {args.seed}"
        + (" --short" if args.short else "")
        + (f" --claim-rate {args.claim_rate}" if args.claim_rate != 0.5 else "")
        + (f" --set {args.set}" if args.set else "")
        + f"` — games per variant: {', '.join(f'{v} {n[v]}' for v in variants)}; "
        + (
            f"{wall:.0f} s wall on {args.workers} worker(s)."
            if not args.report
            else f"merged with `--report` from {len(args.report)} saved run(s)."
        ),
        "",
        "Per game: mean (sd) and min / p10 / median / p90 / max.",
        "",
        "| | " + " | ".join(variants) + " |",
        "|---|" + "---|" * len(variants),
    ]
    for key, label in ROWS:
        cells = []
        for v in variants:
            if any(key not in r for r in by_variant[v]):  # saved by an older version
                cells.append("n/a")
                continue
            values = [r[key] for r in by_variant[v]]
            if not any(values) and key not in ("creatures", "regions", "flips", "discards"):
                cells.append("–")
                continue
            s = _stats(values)
            cells.append(
                f"{s['mean']:.2f} ({s['sd']:.2f}) · {s['min']:g}/{s['p10']:g}/{s['median']:g}/"
                f"{s['p90']:g}/{s['max']:g}"
            )
        shown = ("&nbsp;&nbsp;" if label.startswith("  ") else "") + label.strip()
        lines.append(f"| {shown} | " + " | ".join(cells) + " |")
    lines.append("")
    for v in variants:
        reasons = Counter(r["reason"] for r in by_variant[v])
        freak = sum(r["freaks"] for r in by_variant[v])
        total = sum(r["creatures"] for r in by_variant[v])
        hist = Counter(min(r["creatures"], 20) for r in by_variant[v])
        lines.append(
            f"- {v}: endings {dict(reasons)}; freak share {freak / total if total else 0:.1%}; "
            f"creatures-per-game histogram "
            + ", ".join(f"{k}{'+' if k == 20 else ''}: {hist[k]}" for k in sorted(hist))
        )
    lines += ["", "Targets (rules section 8):", "", "```"]
    for name, passed, measured in targets(by_variant):
        mark = "PASS" if passed else "FAIL"
        lines.append(f"{mark}  {name}: {measured}")
    lines.append("```")
    return "\n".join(lines) + "\n"


def run(tasks: Iterable[tuple[str, str, int, float]], workers: int) -> list[dict[str, Any]]:
    tasks = list(tasks)
    out: list[dict[str, Any]] = []
    started = time.perf_counter()

    def progress(record: dict[str, Any]) -> None:
        out.append(record)
        if len(out) % 100 == 0 or len(out) == len(tasks):
            elapsed = time.perf_counter() - started
            print(f"  {len(out)}/{len(tasks)} games, {elapsed:.0f} s", file=sys.stderr, flush=True)

    if workers <= 1:
        for task in tasks:
            progress(play_game(task))
        return out
    with multiprocessing.get_context("fork").Pool(workers) as pool:
        for record in pool.imap_unordered(play_game, tasks, chunksize=4):
            progress(record)
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Marram standard-set balance (rules section 8)")
    parser.add_argument("--games", type=int, default=1000, help="games per variant")
    parser.add_argument("--seed", type=int, default=1, help="seed of the first game")
    parser.add_argument("--variants", default=",".join(VARIANTS))
    parser.add_argument("--short", action="store_true", help="play short games instead of long")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--claim-rate", type=float, default=0.5)
    parser.add_argument(
        "--set", help="play a candidate tile set (JSON laid out like data/standard.json)"
    )
    parser.add_argument("--json", help="write every game's record and the summary here")
    parser.add_argument(
        "--report",
        nargs="+",
        metavar="JSON",
        help="play nothing: report on the games saved by earlier --json runs (same length)",
    )
    parser.add_argument("--md", help="also write the Markdown block here")
    args = parser.parse_args(argv)
    variants = [v.strip() for v in args.variants.split(",") if v.strip()]
    if args.set:
        global CANDIDATE
        with open(args.set, encoding="utf-8") as fh:
            CANDIDATE = json.load(fh)
    length = "short" if args.short else "long"
    if args.report:
        records = []
        for name in args.report:
            with open(name, encoding="utf-8") as fh:
                records += json.load(fh)["games"]
        variants = [v for v in VARIANTS if any(r["variant"] == v for r in records)]
        args.games = max(Counter(r["variant"] for r in records).values())
        args.short = records[0]["length"] == "short"
        records = [_enrich(r) for r in records]
        wall = sum(r["seconds"] for r in records) / max(1, args.workers)
    else:
        tasks = [
            (v, length, args.seed + i, args.claim_rate) for v in variants for i in range(args.games)
        ]
        started = time.perf_counter()
        records = [_enrich(r) for r in run(tasks, args.workers)]
        wall = time.perf_counter() - started
    by_variant: dict[str, list[dict[str, Any]]] = {v: [] for v in variants}
    for r in sorted(records, key=lambda r: (r["variant"], r["seed"])):
        by_variant[r["variant"]].append(r)
    text = markdown(by_variant, args, wall)
    sys.stdout.write(text)
    if args.md:
        with open(args.md, "w", encoding="utf-8") as fh:
            fh.write(text)
    if args.json:
        with open(args.json, "w", encoding="utf-8") as fh:
            json.dump(
                {
                    "args": vars(args),
                    "targets": [
                        {"target": name, "pass": passed, "measured": measured}
                        for name, passed, measured in targets(by_variant)
                    ],
                    "games": records,
                },
                fh,
                indent=1,
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
