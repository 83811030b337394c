"""GORami board geometry, derived from a triangular grid (rules: docs/rules/gorami.md).

Each board is given only by its row lengths; everything else (orientation, neighbours, stripes,
interior cells) follows from placing the rows centred on a grid of equilateral triangles, the way
the boards are drawn in the rules. The tests check the result against every table of the rules page.

Grid model: a lattice vertex is (X, Y) with Y the grid line counted from the top and X in half
edge lengths, so X + Y is always even. The cell in row r at half-column m points up when m - r is
even (apex (m, r), base (m-1, r+1)-(m+1, r+1)) and down otherwise (top edge (m-1, r)-(m+1, r),
bottom vertex (m, r+1)). The three line families are Y = const (horizontal), X + Y = const (rising
to the right) and X - Y = const (falling to the right); a stripe is the set of cells between two
neighbouring lines of one family.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache

DIRECTIONS = ("horizontal", "rising", "falling")
ROW_LETTERS = "abcdefghijklmnopqrstuvwxyz"

# Board size -> row lengths, top to bottom (see the rules page, "The boards").
ROW_LENGTHS: dict[int, tuple[int, ...]] = {
    22: (3, 5, 7, 7),
    16: (3, 5, 5, 3),
    24: (5, 7, 7, 5),
}

Vertex = tuple[int, int]


@dataclass(frozen=True)
class Cell:
    """One triangular cell; `index` is its position in the board's cell order (row by row)."""

    index: int
    name: str
    row: int  # 0 = top row (letter a)
    col: int  # 1-based position in the row, left to right
    half_col: int  # m in the grid model: the centroid lies at x = m / 2 edge lengths
    up: bool
    vertices: tuple[Vertex, Vertex, Vertex]

    @property
    def orientation(self) -> str:
        return "up" if self.up else "down"


@dataclass(frozen=True)
class Stripe:
    direction: str  # one of DIRECTIONS
    cells: tuple[int, ...]  # cell indices, in board order
    mask: int


@dataclass(frozen=True)
class Board:
    """Everything the engine and the renderer need to know about one board, precomputed."""

    size: int
    rows: tuple[tuple[int, ...], ...]  # cell indices per row
    cells: tuple[Cell, ...]
    by_name: dict[str, int]
    neighbours: tuple[tuple[int, ...], ...]  # edge neighbours per cell, in board order
    neighbour_masks: tuple[int, ...]
    stripes: tuple[Stripe, ...]  # horizontal (top to bottom), rising, falling (left to right)
    interior: tuple[int, ...]
    interior_mask: int
    full_mask: int
    discs_per_number: int

    def mask_of(self, names: Sequence[str]) -> int:
        mask = 0
        for name in names:
            mask |= 1 << self.by_name[name]
        return mask

    def names_of(self, mask: int) -> list[str]:
        return [cell.name for cell in self.cells if mask >> cell.index & 1]

    def describe_cells(self) -> str:
        """A compact list of the board's cells for error messages, e.g. "a1-a3, b1-b5"."""
        parts = []
        for row in self.rows:
            first, last = self.cells[row[0]], self.cells[row[-1]]
            parts.append(f"{first.name}-{last.name}")
        return ", ".join(parts)


def _cell_vertices(m: int, r: int, up: bool) -> tuple[Vertex, Vertex, Vertex]:
    if up:
        return ((m, r), (m - 1, r + 1), (m + 1, r + 1))
    return ((m - 1, r), (m + 1, r), (m, r + 1))


def _stripe_keys(cell: Cell) -> tuple[int, int, int]:
    """The stripe a cell lies in, per direction: the lower of its two bounding lines."""
    ys = [y for _, y in cell.vertices]
    rising = [x + y for x, y in cell.vertices]
    falling = [x - y for x, y in cell.vertices]
    return min(ys), min(rising) // 2, min(falling) // 2


def build_board(size: int) -> Board:
    """Lay the rows centred on the grid, the top row starting with an upward cell."""
    lengths = ROW_LENGTHS[size]
    widest = max(lengths)
    # Centre every row on the same half-column; pick its parity so a1 points up.
    centre = (widest - 1) // 2 + 1
    if (centre - (lengths[0] - 1) // 2) % 2:
        centre += 1
    cells: list[Cell] = []
    rows: list[tuple[int, ...]] = []
    for r, length in enumerate(lengths):
        first = centre - (length - 1) // 2
        row: list[int] = []
        for k in range(length):
            m = first + k
            up = (m - r) % 2 == 0
            name = f"{ROW_LETTERS[r]}{k + 1}"
            cells.append(Cell(len(cells), name, r, k + 1, m, up, _cell_vertices(m, r, up)))
            row.append(len(cells) - 1)
        rows.append(tuple(row))

    # Neighbours share an edge, i.e. two vertices; cells meeting at one corner are not neighbours.
    neighbours = tuple(
        tuple(
            other.index
            for other in cells
            if other is not cell and len(set(cell.vertices) & set(other.vertices)) == 2
        )
        for cell in cells
    )
    neighbour_masks = tuple(sum(1 << n for n in nbrs) for nbrs in neighbours)

    # The outer border is made of the edges that belong to one cell only.
    edge_count: dict[frozenset[Vertex], int] = {}
    for cell in cells:
        a, b, c = cell.vertices
        for edge in (frozenset((a, b)), frozenset((b, c)), frozenset((a, c))):
            edge_count[edge] = edge_count.get(edge, 0) + 1
    border: set[Vertex] = set()
    for edge, count in edge_count.items():
        if count == 1:
            border |= edge
    interior = tuple(cell.index for cell in cells if not set(cell.vertices) & border)

    stripes: list[Stripe] = []
    for d, direction in enumerate(DIRECTIONS):
        groups: dict[int, list[int]] = {}
        for cell in cells:
            groups.setdefault(_stripe_keys(cell)[d], []).append(cell.index)
        for key in sorted(groups):
            members = tuple(groups[key])
            stripes.append(Stripe(direction, members, sum(1 << i for i in members)))

    return Board(
        size=size,
        rows=tuple(rows),
        cells=tuple(cells),
        by_name={cell.name: cell.index for cell in cells},
        neighbours=neighbours,
        neighbour_masks=neighbour_masks,
        stripes=tuple(stripes),
        interior=interior,
        interior_mask=sum(1 << i for i in interior),
        full_mask=(1 << len(cells)) - 1,
        discs_per_number=3 if size == 16 else 4,
    )


@cache
def board(size: int) -> Board:
    """The shared, immutable geometry of the board with `size` cells."""
    if size not in ROW_LENGTHS:
        raise ValueError(f"gorami: there is no {size}-cell board; choose 22, 16 or 24")
    return build_board(size)
