"""Where Marram's drawings put things: board cells, and a tile's spokes, quadrants and tokens."""

from __future__ import annotations

from collections.abc import Collection, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

# Rules 1.1/1.4: x east, y north, rotation clockwise. A tile is drawn in a 100-unit box with screen
# y pointing down; locations are in board orientation, descriptions (rules 1.5) in the tile's own.
SPOKES = ("N", "E", "S", "W")
QUADS = ("NW", "NE", "SE", "SW")
T = 100.0  # tile side in SVG units
C = T / 2
BODY = 15.0  # creature body width

# Unit vectors from the tile centre towards each side, screen coordinates (y down).
DIR: dict[str, tuple[float, float]] = {"N": (0, -1), "E": (1, 0), "S": (0, 1), "W": (-1, 0)}
# Outer corner of each quadrant, and the direction pointing from it towards the tile centre.
CORNER: dict[str, tuple[float, float, float, float]] = {
    "NW": (0, 0, 1, 1),
    "NE": (T, 0, -1, 1),
    "SE": (T, T, -1, -1),
    "SW": (0, T, 1, -1),
}
QRECT: dict[str, tuple[float, float]] = {"NW": (0, 0), "NE": (C, 0), "SE": (C, C), "SW": (0, C)}

Piece = tuple[str, str, list[str]]  # species, kind, spokes


def rot_steps(rotation: int) -> int:
    return (int(rotation) // 90) % 4


def rotate_spoke(spoke: str, rotation: int) -> str:
    """The board name of a tile spoke after a clockwise rotation."""
    return SPOKES[(SPOKES.index(spoke) + rot_steps(rotation)) % 4]


def rotate_quad(quad: str, rotation: int) -> str:
    """The board name of a tile quadrant after a clockwise rotation."""
    return QUADS[(QUADS.index(quad) + rot_steps(rotation)) % 4]


def face_of(desc: Mapping[str, Any], face: str) -> Mapping[str, Any]:
    """The side of a description shown: its back when flipped and it has one."""
    if face == "back":
        back = desc.get("back")
        if isinstance(back, Mapping):
            return back
    return desc


def tile_desc(view: Mapping[str, Any], tile_id: object) -> Mapping[str, Any]:
    """The view's description of tile `tile_id`; a plain grass tile when the view has none."""
    tiles = view.get("tiles") or {}
    desc = tiles.get(str(tile_id))
    if desc is None and isinstance(tile_id, int):
        desc = tiles.get(tile_id)
    return desc if isinstance(desc, Mapping) else {"q": "gggg"}


def laid_face(view: Mapping[str, Any], laid: Mapping[str, Any]) -> Mapping[str, Any]:
    """The face a tile of the view's board shows."""
    return face_of(tile_desc(view, laid.get("tile")), str(laid.get("face") or "front"))


def parse_piece(text: str) -> Piece:
    species, kind, spokes = str(text).split(":")
    return species, kind, [s for s in spokes.split("-") if s]


def spoke_point(spoke: str, dist_from_side: float) -> tuple[float, float]:
    dx, dy = DIR[spoke]
    r = C - dist_from_side
    return C + dx * r, C + dy * r


def straight(a: str, b: str) -> bool:
    """Whether spokes `a` and `b` face each other, so a piece between them runs straight."""
    return DIR[a][0] == -DIR[b][0] and DIR[a][1] == -DIR[b][1]


def board_pieces(f: Mapping[str, Any], rotation: int, gone: Collection[str]) -> list[Piece]:
    """The face's pieces still on the board, their spokes turned and in board order."""
    out: list[Piece] = []
    for text in f.get("pieces", []):
        species, kind, spokes = parse_piece(text)
        turned = sorted((rotate_spoke(s, rotation) for s in spokes), key=SPOKES.index)
        if not any(s in gone for s in turned):
            out.append((species, kind, turned))
    return out


def decorations(f: Mapping[str, Any], rotation: int) -> dict[str, list[str]]:
    """The face's coins ("gold", "silver") and flowers ("flower") by board quadrant, gold before
    silver before flowers, so the most valuable sits in the clearest slot."""
    per_quad: dict[str, list[str]] = {quad: [] for quad in QUADS}
    for entry in f.get("coins", []):
        if entry[0] in QUADS:
            per_quad[rotate_quad(entry[0], rotation)].append(str(entry[1]))
    for quad in f.get("flowers", []):
        if quad in QUADS:
            per_quad[rotate_quad(quad, rotation)].append("flower")
    for items in per_quad.values():
        items.sort(key=lambda item: {"gold": 0, "silver": 1}.get(item, 2))
    return per_quad


def board_prey(
    f: Mapping[str, Any], rotation: int, carried: Collection[str]
) -> list[tuple[str, str]]:
    """The face's prey (board spoke, animal) whose creature is still there to be eaten from."""
    out = []
    for entry in f.get("prey", []):
        spoke = rotate_spoke(str(entry[0]), rotation)
        if spoke in carried:
            out.append((spoke, str(entry[1])))
    return out


def deco_slots(quad: str) -> list[tuple[float, float]]:
    ox, oy, sx, sy = CORNER[quad]
    # The SE corner holds the shovel mark, so decorations there keep clear of it.
    spots = (
        ((27, 13), (13, 27), (24, 24), (16, 16))
        if quad == "SE"
        else ((16, 17), (31, 12), (12, 31), (24, 24))
    )
    return [(ox + sx * a, oy + sy * b) for a, b in spots]


def token_point(loc: str, index: int) -> tuple[float, float]:
    """Where the index-th token standing at a location is drawn."""
    if loc in CORNER:
        ox, oy, sx, sy = CORNER[loc]
        x, y = ox + sx * 32, oy + sy * 32
        return x - sx * index * 7, y - sy * index * 3
    dx, dy = DIR[loc]
    x, y = spoke_point(loc, 31)
    return x + (-dy) * index * 8, y + dx * index * 8


def bet_point(loc: str, index: int) -> tuple[float, float]:
    dx, dy = DIR[loc]
    x, y = spoke_point(loc, 13)
    off = 16 + index * 9
    return x + (-dy) * off, y + dx * off


def placed_tokens(
    tokens: Iterable[Mapping[str, Any]], kinds: Collection[str], one_queue: bool = False
) -> Iterator[tuple[str, str, int, float, float]]:
    """Each token of a tile of one of `kinds` at a known place (kind, place, seat), with where it
    is drawn in the tile's units (x, y), in the order given: bets queue along their spoke, claims
    around their place. With `one_queue` a spoke's bets and claims share one queue, as the mail
    drawing has always counted them."""
    bets_at: dict[str, int] = {}
    claims_at: dict[str, int] = {}
    for token in tokens:
        kind, loc, seat = str(token.get("kind")), str(token.get("loc")), int(token.get("seat", 0))
        if kind not in kinds or (loc not in DIR and loc not in CORNER):
            continue
        bet = kind == "bet" and loc in DIR
        queue = bets_at if bet and not one_queue else claims_at
        index = queue.get(loc, 0)
        queue[loc] = index + 1
        x, y = bet_point(loc, index) if bet else token_point(loc, index)
        yield kind, loc, seat, x, y


def frontier(laid: set[tuple[int, int]]) -> set[tuple[int, int]]:
    out: set[tuple[int, int]] = set()
    for x, y in laid:
        for dx, dy in ((0, 1), (1, 0), (0, -1), (-1, 0)):
            p = (x + dx, y + dy)
            if p not in laid:
                out.add(p)
    return out


@dataclass(frozen=True)
class Grid:
    """The board's cells as drawn: the span of `cells`, each `size` units square, the top-left
    cell's corner at (x0, y0); north is up."""

    min_x: int
    min_y: int
    max_x: int
    max_y: int
    x0: float = 0.0
    y0: float = 0.0
    size: float = T

    @classmethod
    def around(cls, cells: Iterable[tuple[int, int]]) -> Grid:
        spots: Sequence[tuple[int, int]] = list(cells)
        return cls(
            min(p[0] for p in spots),
            min(p[1] for p in spots),
            max(p[0] for p in spots),
            max(p[1] for p in spots),
        )

    @property
    def cols(self) -> int:
        return self.max_x - self.min_x + 1

    @property
    def rows(self) -> int:
        return self.max_y - self.min_y + 1

    def origin(self, x: int, y: int) -> tuple[float, float]:
        """The top-left corner of cell (x, y)."""
        return self.x0 + (x - self.min_x) * self.size, self.y0 + (self.max_y - y) * self.size
