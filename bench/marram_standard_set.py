"""Generator of the Marram standard tile set (pbem/games/marram/data/standard.json).

The set was tuned by simulated games (bench/marram_balance.py --set candidate.json) against the
targets of rules section 8; this script rebuilds exactly the committed file from a seed and counts,
so a change to the set is a change to these numbers, measured again.

Design (rules 1.1 geometry): the terrain of a tile side, read clockwise, and the species of its
spoke must equal the facing side read the other way. So the terrain on both sides of a creature
spoke is a "type" the other tile must mirror: looking outward along the spoke, X = grass left and
sand right, Y = sand left and grass right (X only meets Y), G = grass both sides (meets G).
- Worms: end X, mid {X,Y}, saddle {Y,Y}. The polarity flips once at the saddle, so every worm
  built from these pieces has exactly one saddle and is valid; two "wild" ends of type Y make
  the occasional freak.
- Blue snakes: head X and tail X never meet each other directly; mids {Y,Y} join two of them
  (head-mid-tail valid, head-mid-head freak); {Y,G} and {G,G} mids make longer snakes.
- Orange snakes: spokes X or Y at random (any two ends make a valid snake; loops are freaks).
- Terrain: tiles lean towards the checkered pattern gsgs, so most grid corners are their own
  small region; these close often (and score their coins and flowers) when no creature lies on
  the four sides around them. In Classic creatures stay and block them; in Pitchfork completed
  creatures leave, which roughly doubles the regions completed.
- 28 tiles show a shovel; a back keeps the terrain and the spokes (same side profile in rotation
  0) and changes the inside: an orange mid becomes two ends, a blue head a tail (and back), a head
  and tail on one tile a mid joining them, otherwise the decorations.

Usage: .venv/bin/python bench/marram_standard_set.py [--out FILE] [--check] [name=value ...]
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

OUT = Path(__file__).resolve().parents[1] / "pbem" / "games" / "marram" / "data" / "standard.json"
SPOKES = "NESW"
QUADRANTS = ["NW", "NE", "SE", "SW"]
TYPES = {"X": ("g", "s"), "Y": ("s", "g"), "G": ("g", "g"), "S": ("s", "s")}
START = {"q": "gsgs", "pieces": ["b:mid:E-W"]}
PARAMS: dict[str, Any] = {
    "seed": 7,
    "tiles": 84,
    "terrain": 29,  # terrain-only tiles
    "diag": 0.5,  # share of them laid out gsgs
    "pg": 0.4,  # chance of grass for a free quadrant
    "checker": 0.7,  # chance a creature tile's free quadrants complete the gsgs pattern
    "orange_end": 9,
    "orange_mid": 3,
    "orange_bend": 2,
    "orange_2end": 5,
    "blue_head": 4,
    "blue_tail": 4,
    "blue_mid": 3,
    "blue_m1": 2,
    "blue_m2": 1,
    "blue_bend": 0,
    "blue_ht": 2,
    "worm_end": 6,
    "worm_mid": 2,
    "worm_bend": 1,
    "worm_saddle": 3,
    "worm_2end": 2,
    "wild_worm_end": 2,
    "wild_blue": 0,
    "mixed": 4,
    "deco": 0.4,  # decoration rate on creature tiles
    "deco_t": 1.0,  # decoration rate on terrain-only tiles
    "sand_deco": 1.0,
    "prey": 10,
    "backs": 28,
}
MIXED: list[tuple[list[str], dict[str, str]]] = [
    (["b:head:N", "o:end:S"], {"N": "X"}),
    (["b:tail:N", "o:mid:E-S"], {"N": "X"}),
    (["w:end:N", "o:mid:E-W"], {"N": "X"}),
    (["b:tail:N", "w:end:S"], {"N": "X", "S": "X"}),
    (["o:end:N", "w:saddle:E-W"], {"E": "Y", "W": "Y"}),
    (["b:mid:N-S", "o:end:E"], {"N": "Y", "S": "Y"}),
    (["w:mid:N-S", "b:head:E"], {"N": "X", "S": "Y", "E": "X"}),
]


def build(p: dict[str, Any]) -> dict[str, Any]:
    rng = random.Random(p["seed"])

    def make(pieces: list[str], types: dict[str, str] | None = None) -> dict[str, Any]:
        q = ["?"] * 4
        for spoke, kind in (types or {}).items():
            i = SPOKES.index(spoke)
            for j, want in zip((i, (i + 1) % 4), TYPES[kind], strict=True):
                if q[j] not in ("?", want):
                    raise SystemExit(f"terrain conflict in {pieces} {types}")
                q[j] = want
        if rng.random() < p["checker"]:
            for pattern in ("gsgs", "sgsg"):
                if all(c in ("?", w) for c, w in zip(q, pattern, strict=True)):
                    q = list(pattern)
                    break
        q = [c if c != "?" else ("g" if rng.random() < p["pg"] else "s") for c in q]
        return {"q": "".join(q), "pieces": list(pieces)}

    tiles: list[dict[str, Any]] = []

    def add(count: int, one: Callable[[], dict[str, Any]]) -> None:
        tiles.extend(one() for _ in range(count))

    def free_q() -> str:
        return "".join("g" if rng.random() < p["pg"] else "s" for _ in range(4))

    def xy() -> str:
        return rng.choice("XY")

    add(p["terrain"], lambda: {"q": "gsgs"} if rng.random() < p["diag"] else {"q": free_q()})
    add(p["orange_end"], lambda: make(["o:end:N"], {"N": xy()}))
    add(p["orange_mid"], lambda: make(["o:mid:N-S"], {"N": xy(), "S": xy()}))
    add(
        p["orange_bend"],
        lambda: make(
            ["o:mid:N-E"], {"N": "X", "E": "Y"} if rng.random() < 0.5 else {"N": "Y", "E": "X"}
        ),
    )
    add(p["orange_2end"], lambda: make(["o:end:N", "o:end:S"], {"N": xy(), "S": xy()}))
    add(p["blue_head"], lambda: make(["b:head:N"], {"N": "X"}))
    add(p["blue_tail"], lambda: make(["b:tail:N"], {"N": "X"}))
    add(p["blue_mid"], lambda: make(["b:mid:N-S"], {"N": "Y", "S": "Y"}))
    add(p["blue_m1"], lambda: make(["b:mid:N-S"], {"N": "Y", "S": "G"}))
    add(p["blue_m2"], lambda: make(["b:mid:N-S"], {"N": "G", "S": "G"}))
    add(p["blue_bend"], lambda: make(["b:mid:N-E"], {"N": "G", "E": "G"}))
    add(p["blue_ht"], lambda: make(["b:head:N", "b:tail:S"], {"N": "X", "S": "X"}))
    add(p["worm_end"], lambda: make(["w:end:N"], {"N": "X"}))
    add(p["worm_mid"], lambda: make(["w:mid:N-S"], {"N": "X", "S": "Y"}))
    add(p["worm_bend"], lambda: make(["w:mid:N-E"], {"N": "X", "E": "Y"}))
    add(p["worm_saddle"], lambda: make(["w:saddle:N-S"], {"N": "Y", "S": "Y"}))
    add(p["worm_2end"], lambda: make(["w:end:N", "w:end:S"], {"N": "X", "S": "X"}))
    add(p["wild_worm_end"], lambda: make(["w:end:N"], {"N": "Y"}))
    add(p["wild_blue"], lambda: make(["b:mid:N-S"], {"N": "Y", "S": "Y"}))
    for i in range(p["mixed"]):
        pieces, types = MIXED[i % len(MIXED)]
        tiles.append(make(pieces, types))
    while len(tiles) < p["tiles"]:
        tiles.append({"q": "".join(rng.choice("gs") for _ in range(4))})
    if len(tiles) > p["tiles"]:
        raise SystemExit(f"{len(tiles)} tiles, more than {p['tiles']}")

    def decorate(tile: dict[str, Any], rate: float) -> None:
        coins, flowers = [], []
        for i in range(4):
            grass = tile["q"][i] == "g"
            while rng.random() < rate / 2 * (1 if grass else p["sand_deco"]):
                if grass:
                    coins.append([QUADRANTS[i], rng.choice(["gold", "silver", "silver"])])
                else:
                    flowers.append(QUADRANTS[i])
                if rng.random() < 0.7:
                    break
        if coins:
            tile["coins"] = coins
        if flowers:
            tile["flowers"] = flowers

    for tile in tiles:
        decorate(tile, p["deco_t"] if "pieces" not in tile else p["deco"])

    snakes = [t for t in tiles if any(x[0] in "ob" for x in t.get("pieces", []))]
    for tile in rng.sample(snakes, min(p["prey"], len(snakes))):
        piece = next(x for x in tile["pieces"] if x[0] in "ob")
        spoke = piece.split(":")[2].split("-")[0]
        tile["prey"] = [[spoke, rng.choice(["fly", "fly", "frog"])]]

    def back_of(tile: dict[str, Any]) -> dict[str, Any]:
        pieces = tile.get("pieces", [])
        heads = [x for x in pieces if x.startswith("b:head")]
        tails = [x for x in pieces if x.startswith("b:tail")]
        new: list[str] = []
        if heads and tails:
            h, t = heads[0].split(":")[2], tails[0].split(":")[2]
            new = [x for x in pieces if x not in (heads[0], tails[0])] + [f"b:mid:{h}-{t}"]
        else:
            for piece in pieces:
                species, kind, spokes = piece.split(":")
                if species == "o" and kind == "mid":
                    new += [f"o:end:{s}" for s in spokes.split("-")]
                elif species == "b" and kind in ("head", "tail"):
                    new.append(f"b:{'tail' if kind == 'head' else 'head'}:{spokes}")
                else:
                    new.append(piece)
        back: dict[str, Any] = {"q": tile["q"]}
        if new:
            back["pieces"] = new
        front = {k: v for k, v in tile.items() if k not in ("back", "prey")}
        for _ in range(100):
            candidate = dict(back)
            decorate(candidate, p["deco_t"] if not new else p["deco"])
            if candidate != front:
                return candidate
        raise SystemExit(f"no back differs from {tile}")

    order = list(range(len(tiles)))
    rng.shuffle(order)

    def changes_inside(tile: dict[str, Any]) -> bool:
        return any(
            (x[0] == "o" and x.split(":")[1] == "mid") or x.split(":")[1] in ("head", "tail")
            for x in tile.get("pieces", [])
        )

    changing = [i for i in order if changes_inside(tiles[i])]
    rest = [i for i in order if i not in changing]
    for i in (changing + rest)[: p["backs"]]:
        tiles[i]["back"] = back_of(tiles[i])
    rng.shuffle(tiles)
    return {"start": dict(START), "tiles": tiles}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=str(OUT))
    parser.add_argument("--check", action="store_true", help="compare with --out, write nothing")
    parser.add_argument("params", nargs="*", help="name=value overrides of PARAMS")
    args = parser.parse_args(argv)
    params = dict(PARAMS)
    for item in args.params:
        name, value = item.split("=", 1)
        if name not in params:
            raise SystemExit(f"unknown parameter {name}; known: {', '.join(params)}")
        params[name] = type(params[name])(float(value) if "." in value else int(value))
    data = build(params)
    text = json.dumps(data, indent=1) + "\n"
    if args.check:
        same = Path(args.out).read_text("utf-8") == text
        print("the committed set matches the generator" if same else "the set differs")
        return 0 if same else 1
    Path(args.out).write_text(text, "utf-8")
    print(f"wrote {args.out}: {len(data['tiles'])} tiles", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
