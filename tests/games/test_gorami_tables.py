"""GORami boards and rules against the tables of the rules page, and against a reference model.

RULES_TABLES is a literal copy of the "Board 16/22/24" sections of docs/rules/gorami.md, and a
test keeps the two equal. The geometry tests parse it and require the engine's boards to reproduce
every table exactly. The reference model below is a deliberately plain implementation of the
rules written from those tables (dicts, no bit masks); hypothesis plays random games on both and
requires them to agree on every ply: legal moves, discs, turn, captures, stripe sums, fish and
the outcome.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pbem import games
from pbem.games.gorami import GoramiState
from pbem.games.gorami.board import board

SIZES = (16, 22, 24)
RULES_PAGE = Path(__file__).resolve().parents[2] / "docs" / "rules" / "gorami.md"

RULES_TABLES = r"""
### Board 16

Rows, top to bottom (`^` points up, `v` points down); each row is drawn centred, as on the board:

```
    a1^  a2v  a3^
b1^  b2v  b3^  b4v  b5^
c1v  c2^  c3v  c4^  c5v
    d1v  d2^  d3v
```

Interior cells (no corner on the outer border): b3, c3

Stripes (every stripe, by direction):

- horizontal (the rows): d1 d2 d3; c1 c2 c3 c4 c5; b1 b2 b3 b4 b5; a1 a2 a3
- rising to the right: a1 a2 b1 b2 c1; a3 b3 b4 c2 c3 d1; b5 c4 c5 d2 d3
- falling to the right: b1 c1 c2 d1 d2; a1 b2 b3 c3 c4 d3; a2 a3 b4 b5 c5

Neighbours (cells sharing an edge):

```
a1: a2 b2
a2: a1 a3
a3: a2 b4
b1: b2 c1
b2: a1 b1 b3
b3: b2 b4 c3
b4: a3 b3 b5
b5: b4 c5
c1: b1 c2
c2: c1 c3 d1
c3: b3 c2 c4
c4: c3 c5 d3
c5: b5 c4
d1: c2 d2
d2: d1 d3
d3: c4 d2
```

### Board 22

Rows, top to bottom (`^` points up, `v` points down); each row is drawn centred, as on the board:

```
        a1^  a2v  a3^
    b1^  b2v  b3^  b4v  b5^
c1^  c2v  c3^  c4v  c5^  c6v  c7^
d1v  d2^  d3v  d4^  d5v  d6^  d7v
```

Interior cells (no corner on the outer border): b3, c3, c4, c5

Stripes (every stripe, by direction):

- horizontal (the rows): d1 d2 d3 d4 d5 d6 d7; c1 c2 c3 c4 c5 c6 c7; b1 b2 b3 b4 b5; a1 a2 a3
- rising to the right: a1 a2 b1 b2 c1 c2 d1; a3 b3 b4 c3 c4 d2 d3; b5 c5 c6 d4 d5; c7 d6 d7
- falling to the right: c1 d1 d2; b1 c2 c3 d3 d4; a1 b2 b3 c4 c5 d5 d6; a2 a3 b4 b5 c6 c7 d7

Neighbours (cells sharing an edge):

```
a1: a2 b2
a2: a1 a3
a3: a2 b4
b1: b2 c2
b2: a1 b1 b3
b3: b2 b4 c4
b4: a3 b3 b5
b5: b4 c6
c1: c2 d1
c2: b1 c1 c3
c3: c2 c4 d3
c4: b3 c3 c5
c5: c4 c6 d5
c6: b5 c5 c7
c7: c6 d7
d1: c1 d2
d2: d1 d3
d3: c3 d2 d4
d4: d3 d5
d5: c5 d4 d6
d6: d5 d7
d7: c7 d6
```

### Board 24

Rows, top to bottom (`^` points up, `v` points down); each row is drawn centred, as on the board:

```
    a1^  a2v  a3^  a4v  a5^
b1^  b2v  b3^  b4v  b5^  b6v  b7^
c1v  c2^  c3v  c4^  c5v  c6^  c7v
    d1v  d2^  d3v  d4^  d5v
```

Interior cells (no corner on the outer border): b3, b4, b5, c3, c4, c5

Stripes (every stripe, by direction):

- horizontal (the rows): d1 d2 d3 d4 d5; c1 c2 c3 c4 c5 c6 c7; b1 b2 b3 b4 b5 b6 b7; a1 a2 a3 a4 a5
- rising to the right: a1 a2 b1 b2 c1; a3 a4 b3 b4 c2 c3 d1; a5 b5 b6 c4 c5 d2 d3; b7 c6 c7 d4 d5
- falling to the right: b1 c1 c2 d1 d2; a1 b2 b3 c3 c4 d3 d4; a2 a3 b4 b5 c5 c6 d5; a4 a5 b6 b7 c7

Neighbours (cells sharing an edge):

```
a1: a2 b2
a2: a1 a3
a3: a2 a4 b4
a4: a3 a5
a5: a4 b6
b1: b2 c1
b2: a1 b1 b3
b3: b2 b4 c3
b4: a3 b3 b5
b5: b4 b6 c5
b6: a5 b5 b7
b7: b6 c7
c1: b1 c2
c2: c1 c3 d1
c3: b3 c2 c4
c4: c3 c5 d3
c5: b5 c4 c6
c6: c5 c7 d5
c7: b7 c6
d1: c2 d2
d2: d1 d3
d3: c4 d2 d4
d4: d3 d5
d5: c6 d4
```
"""


@dataclass(frozen=True)
class Tables:
    """One board's tables as the rules page states them."""

    rows: list[list[tuple[str, str]]]  # (name, "^" or "v") per row, top to bottom
    interior: list[str]
    stripes: dict[str, list[list[str]]]  # direction -> stripes, each a list of cell names
    neighbours: dict[str, list[str]]

    @property
    def cells(self) -> list[str]:
        return [name for row in self.rows for name, _ in row]


def parse_tables(text: str) -> dict[int, Tables]:
    parsed: dict[int, Tables] = {}
    sections = re.split(r"^### Board (\d+)\n", text, flags=re.MULTILINE)
    for size_text, body in zip(sections[1::2], sections[2::2], strict=True):
        diagram, neighbour_block = re.findall(r"```\n(.*?)```", body, re.DOTALL)
        rows = [
            re.findall(r"([a-z]\d)([\^v])", line) for line in diagram.splitlines() if line.strip()
        ]
        interior_line = re.search(r"^Interior cells[^:]*: (.*)$", body, re.MULTILINE)
        assert interior_line is not None
        stripes = {}
        for direction, words in (
            ("horizontal", "horizontal"),
            ("rising", "rising to the right"),
            ("falling", "falling to the right"),
        ):
            line = re.search(rf"^- {words}[^:]*: (.*)$", body, re.MULTILINE)
            assert line is not None
            stripes[direction] = [part.split() for part in line.group(1).split(";")]
        neighbours = {}
        for line in neighbour_block.splitlines():
            name, _, rest = line.partition(":")
            neighbours[name.strip()] = rest.split()
        parsed[int(size_text)] = Tables(
            rows=rows,
            interior=interior_line.group(1).replace(",", " ").split(),
            stripes=stripes,
            neighbours=neighbours,
        )
    return parsed


TABLES = parse_tables(RULES_TABLES)


def test_the_copy_holds_all_three_boards() -> None:
    assert sorted(TABLES) == sorted(SIZES)
    for size, tables in TABLES.items():
        assert len(tables.cells) == size
        assert len(set(tables.cells)) == size
        assert sorted(tables.neighbours) == sorted(tables.cells)


def test_the_copy_matches_the_rules_page() -> None:
    """The page is the authority: change it and this copy together."""
    page = RULES_PAGE.read_text(encoding="utf-8")
    assert RULES_TABLES.strip() in page


# -- geometry ---------------------------------------------------------------------------------


@pytest.mark.parametrize("size", SIZES)
def test_rows_and_orientations(size: int) -> None:
    geo = board(size)
    ours = [[(geo.cells[i].name, "^" if geo.cells[i].up else "v") for i in row] for row in geo.rows]
    assert ours == TABLES[size].rows
    assert [cell.name for cell in geo.cells] == TABLES[size].cells


@pytest.mark.parametrize("size", SIZES)
def test_neighbours(size: int) -> None:
    geo = board(size)
    ours = {
        cell.name: [geo.cells[other].name for other in geo.neighbours[cell.index]]
        for cell in geo.cells
    }
    assert ours == TABLES[size].neighbours
    for cell in geo.cells:
        assert geo.neighbour_masks[cell.index] == geo.mask_of(TABLES[size].neighbours[cell.name])


@pytest.mark.parametrize("size", SIZES)
def test_interior_cells(size: int) -> None:
    geo = board(size)
    assert [geo.cells[i].name for i in geo.interior] == TABLES[size].interior
    assert geo.interior_mask == geo.mask_of(TABLES[size].interior)


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("direction", ["horizontal", "rising", "falling"])
def test_stripes(size: int, direction: str) -> None:
    """Every stripe, cell for cell. The page lists the rows bottom to top and the engine top to
    bottom, so stripes are compared as a set (each stripe keeps its cell order)."""
    geo = board(size)
    ours = [
        tuple(geo.cells[i].name for i in stripe.cells)
        for stripe in geo.stripes
        if stripe.direction == direction
    ]
    theirs = [tuple(stripe) for stripe in TABLES[size].stripes[direction]]
    assert len(ours) == len(theirs)
    assert set(ours) == set(theirs)
    for stripe in geo.stripes:
        assert stripe.mask == geo.mask_of([geo.cells[i].name for i in stripe.cells])


@pytest.mark.parametrize("size", SIZES)
def test_every_cell_lies_in_one_stripe_per_direction(size: int) -> None:
    for direction, stripes in TABLES[size].stripes.items():
        members = sorted(name for stripe in stripes for name in stripe)
        assert members == sorted(TABLES[size].cells), direction


@pytest.mark.parametrize("size", SIZES)
def test_neighbourhood_is_symmetric_and_alternates_orientation(size: int) -> None:
    geo = board(size)
    for cell in geo.cells:
        assert 1 <= len(geo.neighbours[cell.index]) <= 3
        for other in geo.neighbours[cell.index]:
            assert cell.index in geo.neighbours[other]
            assert geo.cells[other].up != cell.up


def test_corner_touching_cells_are_not_neighbours() -> None:
    """On the 22 board b2 meets a2, a3, b4, c2, c3 and c4 only at a corner."""
    corner_only = ["a2", "a3", "b4", "c2", "c3", "c4"]
    assert not set(corner_only) & set(TABLES[22].neighbours["b2"])
    geo = board(22)
    b2 = geo.cells[geo.by_name["b2"]]
    touching = [c.name for c in geo.cells if len(set(b2.vertices) & set(c.vertices)) == 1]
    assert touching == corner_only
    assert not geo.mask_of(corner_only) & geo.neighbour_masks[b2.index]


def test_unknown_board_is_refused() -> None:
    with pytest.raises(ValueError, match="18"):
        board(18)


@pytest.mark.parametrize("size", SIZES)
def test_text_board_draws_the_rows_as_the_rules_diagrams(size: int) -> None:
    diagram = re.search(rf"### Board {size}\n.*?```\n(.*?)```", RULES_TABLES, re.DOTALL)
    assert diagram is not None
    text = games.get("gorami").render_text(games.get("gorami").new(2, {"board": size}))
    lines = text.splitlines()
    for line in diagram.group(1).splitlines():
        assert line in lines


# -- a reference model written from the tables ------------------------------------------------


class Reference:
    """The rules as written, in plain dicts: slow, obvious, independent of the engine."""

    def __init__(self, size: int) -> None:
        self.t = TABLES[size]
        k = 3 if size == 16 else 4
        self.discs: dict[str, tuple[int, int] | None] = dict.fromkeys(self.t.cells)
        self.hands = [{1: k, 2: k, 3: k}, {1: k, 2: k, 3: k}]
        self.to_move: int | None = 0
        self.over = False

    def legal(self, seat: int) -> list[str]:
        moves = []
        for number in (1, 2, 3):
            if self.hands[seat][number] == 0:
                continue
            for cell in self.t.cells:
                if self.discs[cell] is not None:
                    continue
                touching = [self.discs[n] for n in self.t.neighbours[cell]]
                if any(d is not None and d[0] == number for d in touching):
                    continue
                moves.append(f"{number}{cell}")
        return sorted(moves)

    def play(self, move: str) -> list[str]:
        seat = self.to_move
        assert seat is not None and move in self.legal(seat)
        number, cell = int(move[0]), move[1:]
        self.discs[cell] = (number, seat)
        self.hands[seat][number] -= 1
        captured = []
        for other in self.t.neighbours[cell]:
            disc = self.discs[other]
            if disc is None or disc[1] == seat:
                continue
            if all(self.discs[n] is not None for n in self.t.neighbours[other]):
                self.discs[other] = (disc[0], seat)
                captured.append(other)
        if self.legal(1 - seat):
            self.to_move = 1 - seat
        elif self.legal(seat):
            self.to_move = seat
        else:
            self.to_move = None
        return captured

    def sums(self, cells: list[str]) -> list[int]:
        totals = [0, 0]
        for cell in cells:
            disc = self.discs[cell]
            if disc is not None:
                totals[disc[1]] += disc[0]
        return totals

    def fish(self) -> list[int]:
        fish = [0, 0]
        for stripes in self.t.stripes.values():
            for stripe in stripes:
                y, b = self.sums(stripe)
                if y != b:
                    fish[0 if y > b else 1] += 1
        return fish

    def winners(self) -> list[int]:
        fish, interior = self.fish(), self.sums(self.t.interior)
        if fish[0] != fish[1]:
            return [0 if fish[0] > fish[1] else 1]
        if interior[0] != interior[1]:
            return [0 if interior[0] > interior[1] else 1]
        return []


def _agree(state: GoramiState, ref: Reference) -> None:
    assert state.to_move == ref.to_move
    assert state.legal_moves() == ([] if ref.to_move is None else ref.legal(ref.to_move))
    for cell in ref.t.cells:
        assert state.disc(cell) == ref.discs[cell], cell
    assert [state.hand(s) for s in (0, 1)] == [[h[1], h[2], h[3]] for h in ref.hands]
    assert state.scores() == ref.fish()
    assert state.interior() == ref.sums(ref.t.interior)
    view_sums = {tuple(s["cells"]): s["sums"] for s in state.view(None)["stripes"]}
    for stripes in ref.t.stripes.values():
        for stripe in stripes:
            assert view_sums[tuple(stripe)] == ref.sums(stripe)


@settings(max_examples=150)
@given(size=st.sampled_from(SIZES), data=st.data())
def test_engine_agrees_with_the_reference_model(size: int, data: st.DataObject) -> None:
    state = games.get("gorami").new(2, {"board": size})
    assert isinstance(state, GoramiState)
    ref = Reference(size)
    _agree(state, ref)
    while state.outcome is None:
        move = data.draw(st.sampled_from(state.legal_moves()))
        captured = ref.play(move)
        state = state.play(move)
        assert state.captured() == sorted(captured)
        _agree(state, ref)
    assert ref.to_move is None
    outcome = state.outcome
    assert outcome.winners == ref.winners()
    assert outcome.scores == ref.fish()
    assert outcome.details["fish"] == ref.fish()
    assert outcome.details["interior"] == ref.sums(ref.t.interior)
    full = all(d is not None for d in ref.discs.values())
    assert outcome.reason == ("board-full" if full else "no-move")
