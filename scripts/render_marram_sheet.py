"""Draw the Marram standard tile set and document it.

Reads `pbem/games/marram/data/standard.json` ({"start": tile, "tiles": [tile, ...]}, rules 1.5)
and writes, into `docs/rules/`:

- `marram-tiles.svg`: every tile, front and (for shovel tiles) back, with its id;
- `marram-tiles.png`: the same sheet as a picture (needs `rsvg-convert`, Debian `librsvg2-bin`);
- `marram-tiles.md`: the summary counts and a per-tile table, with the sheet embedded.

Run it again whenever the set changes:  .venv/bin/python scripts/render_marram_sheet.py
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
from collections import Counter
from pathlib import Path
from typing import Any

from pbem.games.marram.render import tile_group

REPO = Path(__file__).resolve().parent.parent
DEFAULT_JSON = REPO / "pbem/games/marram/data/standard.json"
SPECIES = {"o": "orange snake", "b": "blue snake", "w": "worm"}
KINDS = {"o": ("end", "mid"), "b": ("head", "tail", "mid"), "w": ("end", "mid", "saddle")}
COLS = 6
TILE = 100.0
GAP = 8.0
CELL_W = 2 * TILE + GAP + 26.0
CELL_H = TILE + 30.0
MARGIN = 20.0


def load(path: Path) -> list[tuple[int, dict[str, Any]]]:
    """(id, description) for the start tile (id 0) and the deck (1, 2, ...)."""
    data = json.loads(path.read_text("utf-8"))
    return [(0, data["start"]), *((i + 1, t) for i, t in enumerate(data["tiles"]))]


def sheet_svg(tiles: list[tuple[int, dict[str, Any]]]) -> str:
    rows = (len(tiles) + COLS - 1) // COLS
    width = 2 * MARGIN + COLS * CELL_W
    height = 2 * MARGIN + 40 + rows * CELL_H
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width:g} {height:g}" '
        f'width="{width:g}" height="{height:g}" font-family="sans-serif">',
        f'<rect width="{width:g}" height="{height:g}" fill="#fbfaf7"/>',
        f'<text x="{MARGIN:g}" y="{MARGIN + 20:g}" font-size="22" font-weight="bold" '
        f'fill="#343a40">Marram standard set: start tile + {len(tiles) - 1} tiles '
        f"(front | back)</text>",
    ]
    for n, (tid, desc) in enumerate(tiles):
        col, row = n % COLS, n // COLS
        x = MARGIN + col * CELL_W
        y = MARGIN + 40 + row * CELL_H
        label = "start (0)" if tid == 0 else f"#{tid}"
        if desc.get("back"):
            label += "  shovel"
        out.append(
            f'<text x="{x:g}" y="{y + 14:g}" font-size="13" font-weight="bold" '
            f'fill="#495057">{label}</text>'
        )
        out.append(tile_group(desc, x=x, y=y + 20, tile_id=tid, attrs=f' data-tile="{tid}"'))
        if desc.get("back"):
            out.append(
                tile_group(
                    desc,
                    x=x + TILE + GAP,
                    y=y + 20,
                    face="back",
                    tile_id=tid,
                    attrs=f' data-tile="{tid}" data-face="back"',
                )
            )
    out.append("</svg>")
    return "".join(out)


def face_counts(face: dict[str, Any]) -> Counter[str]:
    c: Counter[str] = Counter()
    for piece in face.get("pieces", []):
        species, kind, _ = piece.split(":")
        c[f"{species}:{kind}"] += 1
    for _, metal in face.get("coins", []):
        c[metal] += 1
    c["flower"] += len(face.get("flowers", []))
    for _, animal in face.get("prey", []):
        c[animal] += 1
    c["grass"] += face["q"].count("g")
    c["sand"] += face["q"].count("s")
    return c


def summary_table(tiles: list[tuple[int, dict[str, Any]]]) -> list[str]:
    fronts: Counter[str] = Counter()
    backs: Counter[str] = Counter()
    for _, desc in tiles:
        fronts += face_counts(desc)
        if desc.get("back"):
            backs += face_counts(desc["back"])
    lines = ["| item | fronts | backs |", "|---|---:|---:|"]
    for species, name in SPECIES.items():
        for kind in KINDS[species]:
            key = f"{species}:{kind}"
            lines.append(f"| {name} {kind}s | {fronts[key]} | {backs[key]} |")
    for key, name in (
        ("gold", "gold coins"),
        ("silver", "silver coins"),
        ("flower", "flowers"),
        ("fly", "flies (prey)"),
        ("frog", "frogs (prey)"),
        ("grass", "grass quadrants"),
        ("sand", "sand quadrants"),
    ):
        lines.append(f"| {name} | {fronts[key]} | {backs[key]} |")
    shovels = sum(1 for _, d in tiles if d.get("back"))
    lines.append(f"| tiles with a shovel | {shovels} of {len(tiles) - 1} | |")
    return lines


def _face_text(face: dict[str, Any]) -> str:
    bits = [f"`{face['q']}`"]
    if face.get("pieces"):
        bits.append(" ".join(face["pieces"]))
    deco = [f"{q} {m}" for q, m in face.get("coins", [])]
    deco += [f"{q} flower" for q in face.get("flowers", [])]
    deco += [f"{s} {a}" for s, a in face.get("prey", [])]
    if deco:
        bits.append("; ".join(deco))
    return " · ".join(bits)


def markdown(tiles: list[tuple[int, dict[str, Any]]], source: str) -> str:
    lines = [
        "# The Marram standard tile set",
        "",
        "The house standard set of rules section 8: the start tile (id 0) and "
        f"{len(tiles) - 1} tiles numbered in the order of `{source}`. Generated by "
        "`scripts/render_marram_sheet.py` from that file; do not edit by hand.",
        "",
        "![every tile, front and back](marram-tiles.png)",
        "",
        "([SVG version](marram-tiles.svg).) Reading a tile: grass is green, sand beige; "
        "orange snakes orange, blue snakes blue, worms pink. A blue snake's **head** has eyes and "
        "a tongue, its **tail** tapers to a point; an **end** (orange snake, worm) is a rounded "
        "cap; a worm's **saddle** is the dark band; a **mid** is plain body (bent pieces curve). "
        "Gold and silver discs are coins, pink blossoms are flowers, a fly or frog on a snake is "
        "prey (Animals only), and the spade in the corner marks a tile with a shovel (its back is "
        "drawn to its right).",
        "",
        "## Counts",
        "",
        *summary_table(tiles),
        "",
        "## Every tile",
        "",
        "Pieces are `species:kind:spokes` in tile orientation (rotation 0); `q` lists the "
        "terrain of NW, NE, SE, SW.",
        "",
        "| id | shovel | front | back |",
        "|---:|:---:|---|---|",
    ]
    for tid, desc in tiles:
        back = desc.get("back")
        lines.append(
            f"| {tid} | {'yes' if back else ''} | {_face_text(desc)} | "
            f"{_face_text(back) if back else ''} |"
        )
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", type=Path, default=DEFAULT_JSON)
    parser.add_argument("--out", type=Path, default=REPO / "docs" / "rules")
    parser.add_argument("--no-png", action="store_true")
    args = parser.parse_args(argv)
    tiles = load(args.json)
    args.out.mkdir(parents=True, exist_ok=True)
    svg_path = args.out / "marram-tiles.svg"
    svg_path.write_text(sheet_svg(tiles), "utf-8")
    try:
        source = str(args.json.resolve().relative_to(REPO))
    except ValueError:
        source = args.json.name
    (args.out / "marram-tiles.md").write_text(markdown(tiles, source), "utf-8")
    if not args.no_png:
        tool = shutil.which("rsvg-convert")
        if tool is None:
            print("rsvg-convert not found (apt-get install librsvg2-bin); PNG skipped")
        else:
            png = args.out / "marram-tiles.png"
            subprocess.run([tool, "-z", "0.75", str(svg_path), "-o", str(png)], check=True)
    print(f"wrote {len(tiles)} tiles to {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
