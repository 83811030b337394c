"""The tile description format (rules 1.5), rotation (1.4) and the standard set (section 8)."""

from __future__ import annotations

from typing import Any

import pytest

from pbem.games.marram.board import Laid, fits, requirement
from pbem.games.marram.tiles import (
    Face,
    parse_tile,
    standard_start,
    standard_tiles,
)

EXAMPLE: dict[str, Any] = {
    "q": "ggss",
    "pieces": ["b:mid:N-S", "o:end:E"],
    "coins": [["NW", "gold"], ["NE", "silver"]],
    "flowers": ["SE", "SE"],
    "prey": [["E", "fly"]],
    "back": {"q": "ggss", "pieces": ["b:head:N", "b:tail:S"]},
}


def test_the_rules_example_parses_and_round_trips() -> None:
    tile = parse_tile(EXAMPLE)
    assert tile.back is not None
    assert tile.description() == EXAMPLE
    assert parse_tile(tile.description()).description() == EXAMPLE


def test_two_spoke_pieces_may_be_written_in_either_order() -> None:
    tile = parse_tile({"q": "gggg", "pieces": ["o:mid:E-N", "w:saddle:W-S"]})
    assert tile.description()["pieces"] == ["o:mid:N-E", "w:saddle:S-W"]


def test_a_piece_may_carry_prey_on_each_of_its_spokes() -> None:
    tile = parse_tile({"q": "gggg", "pieces": ["b:mid:N-S"], "prey": [["N", "fly"], ["S", "frog"]]})
    assert tile.front.prey == ((0, "fly"), (2, "frog"))


@pytest.mark.parametrize(
    ("description", "problem"),
    [
        ({"q": "ggss", "pieces": ["o:head:N"]}, "does not belong"),
        ({"q": "ggss", "pieces": ["o:saddle:N-S"]}, "does not belong"),
        ({"q": "ggss", "pieces": ["b:end:N"]}, "does not belong"),
        ({"q": "ggss", "pieces": ["w:tail:N"]}, "does not belong"),
        ({"q": "ggss", "pieces": ["o:end:N-S"]}, "covers 1 spoke"),
        ({"q": "ggss", "pieces": ["w:mid:N"]}, "covers 2 spokes"),
        ({"q": "ggss", "pieces": ["b:mid:N-E-S"]}, "covers 2 spokes"),
        ({"q": "ggss", "pieces": ["o:end:N", "w:end:N"]}, "share spoke N"),
        ({"q": "ggss", "pieces": ["o:mid:N-S", "b:mid:S-E"]}, "share spoke S"),
        ({"q": "ggss", "coins": [["SE", "gold"]]}, "lies on sand"),
        ({"q": "ggss", "flowers": ["NW"]}, "lies on grass"),
        ({"q": "ggss", "pieces": ["w:end:N"], "prey": [["N", "fly"]]}, "carries no orange or blue"),
        ({"q": "ggss", "prey": [["E", "frog"]]}, "carries no orange or blue"),
        (
            {"q": "ggss", "pieces": ["o:mid:N-S"], "prey": [["N", "fly"], ["N", "frog"]]},
            "two prey name spoke N",
        ),
        ({"q": "ggss", "back": {"q": "ggss", "back": {"q": "ggss"}}}, "own back"),
        ({"q": "ggsx"}, "'q'"),
        ({"q": "ggs"}, "'q'"),
        ({"pieces": []}, "'q'"),
        ({"q": "ggss", "pieces": ["x:end:N"]}, "unknown species"),
        ({"q": "ggss", "pieces": ["o:end:Q"]}, "unknown spoke"),
        ({"q": "ggss", "pieces": ["o-end-N"]}, "species:kind:spokes"),
        ({"q": "ggss", "coins": [["NW", "bronze"]]}, "gold or silver"),
        ({"q": "ggss", "pieces": ["o:end:N"], "prey": [["N", "bee"]]}, "fly or a frog"),
        ({"q": "ggss", "colour": "red"}, "unknown key"),
        ({"q": "ggss", "back": {"q": "ggss", "coins": [["SW", "gold"]]}}, "(back)"),
        ("ggss", "JSON object"),
    ],
)
def test_bad_descriptions_are_rejected_naming_the_problem(description: Any, problem: str) -> None:
    with pytest.raises(ValueError, match=problem.replace("(", r"\(").replace(")", r"\)")):
        parse_tile(description)


def test_the_start_tile_cannot_have_a_back() -> None:
    with pytest.raises(ValueError, match="start tile cannot have a back"):
        parse_tile({"q": "gggg", "back": {"q": "gggg"}}, "start", start=True)


def test_the_start_option_is_validated_by_new() -> None:
    from tests.games.marram.scenario import new

    with pytest.raises(ValueError, match="back"):
        new([{"q": "gggg"}], start={"q": "gggg", "back": {"q": "gggg"}})
    with pytest.raises(ValueError, match="deck tile 2"):
        new([{"q": "gggg"}, {"q": "gggg", "flowers": ["NW"]}])


def test_rotation_moves_spokes_and_quadrants_clockwise() -> None:
    face = parse_tile(
        {"q": "gsss", "pieces": ["o:end:N"], "coins": [["NW", "gold"]], "prey": [["N", "fly"]]}
    ).front
    # k = rotation / 90; spoke N -> E -> S -> W, quadrant NW -> NE -> SE -> SW.
    for k in range(4):
        assert face.piece_at[k][k] == 0
        assert face.terr[k][k] == 0 and sum(face.terr[k]) == 3
        assert face.deco[k][k] == (1, 0, 0)
        assert face.prey_at[k][k] == "fly"


def test_side_profiles_of_a_rotated_face() -> None:
    face: Face = parse_tile({"q": "ggss", "pieces": ["w:mid:E-W"]}).front
    # Rotation 0: the east side reads NE grass, worm, SE sand, clockwise.
    east0 = face.sides[0][1]
    # Rotation 180: the west side shows the same reading.
    assert face.sides[2][3] == east0


def _differs_inside(front: Face, back: Face, k: int) -> bool:
    """Whether the back in rotation k shows something else than the front in rotation 0."""
    for b in range(4):
        fp, bp = front.piece_at[0][b], back.piece_at[k][b]
        f_piece = front.pieces[fp] if fp >= 0 else None
        b_piece = back.pieces[bp] if bp >= 0 else None
        if (f_piece is None) != (b_piece is None):
            return True
        if f_piece is not None and b_piece is not None:
            if f_piece.kind != b_piece.kind:
                return True
            f_other = {(s - 0) % 4 for s in f_piece.spokes}
            b_other = {(s + k) % 4 for s in b_piece.spokes}
            if f_other != b_other:
                return True
        if front.prey_at[0][b] != back.prey_at[k][b]:
            return True
    return any(front.deco[0][q] != back.deco[k][q] for q in range(4))


def test_the_standard_set() -> None:
    tiles = standard_tiles()
    assert len(tiles) == 84
    assert standard_start().back is None
    backs = [t for t in tiles if t.back is not None]
    assert 24 <= len(backs) <= 32, "roughly one tile in three shows a shovel"
    for tile in backs:
        assert tile.back is not None
        same = [k for k in range(4) if tile.back.sides[k] == tile.front.sides[0]]
        assert same, f"{tile.description()} has a back with another side profile"
        assert any(_differs_inside(tile.front, tile.back, k) for k in same), tile.description()
    kinds = {
        (p.species, p.kind)
        for t in tiles
        for face in (t.front, t.back)
        if face
        for p in face.pieces
    }
    expected = {
        ("o", "end"), ("o", "mid"), ("w", "end"), ("w", "mid"), ("w", "saddle"),
        ("b", "head"), ("b", "tail"), ("b", "mid"),
    }  # fmt: skip
    assert expected <= kinds
    assert any(not t.front.pieces for t in tiles), "terrain-only tiles let regions complete"


def test_standard_tiles_fit_next_to_the_start() -> None:
    start = standard_start()
    laid = {(0, 0): Laid(0, 0, 0, 0, start.front)}
    req = requirement(laid, (1, 0))
    assert any(fits(t.front, req) for t in standard_tiles())
