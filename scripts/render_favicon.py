"""Draw `pbem/static/favicon.ico` from `pbem/static/favicon.svg`.

The pages link the SVG; the ICO is for browsers and tools that ask for /favicon.ico anyway. It
holds the icon at 16, 32 and 48 pixels, each a PNG (an ICO may carry PNGs since Windows Vista),
drawn by libvips as the mail pictures are (`pbem/pictures.py`).

Run it again whenever the SVG changes:  .venv/bin/python scripts/render_favicon.py
"""

from __future__ import annotations

import struct
from pathlib import Path

import pyvips

STATIC = Path(__file__).resolve().parents[1] / "pbem" / "static"
SIZES = (16, 32, 48)
# The SVG's own width, in pixels.
DRAWN_AT = 32


def ico(svg: bytes) -> bytes:
    """An ICO file holding the drawing at every size of SIZES, each as a PNG."""
    pngs = [
        pyvips.Image.svgload_buffer(svg, scale=size / DRAWN_AT).pngsave_buffer(compression=9)
        for size in SIZES
    ]
    header = struct.pack("<HHH", 0, 1, len(pngs))
    offset = len(header) + 16 * len(pngs)
    entries = b""
    for size, png in zip(SIZES, pngs, strict=True):
        # width, height, palette size, reserved, colour planes, bits per pixel, length, offset
        entries += struct.pack("<BBBBHHII", size, size, 0, 0, 1, 32, len(png), offset)
        offset += len(png)
    return header + entries + b"".join(pngs)


def main() -> None:
    (STATIC / "favicon.ico").write_bytes(ico((STATIC / "favicon.svg").read_bytes()))


if __name__ == "__main__":
    main()
