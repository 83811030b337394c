"""The Marram renderer on hand-made views: SVG structure, data attributes, text layout."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pbem.games.marram import render

SVG = "{http://www.w3.org/2000/svg}"

# Hand-made views, valid per rules section 7.
TILES: dict[str, Any] = {
    "0": {
        "q": "ggss",
        "pieces": ["b:mid:E-W"],
        "coins": [["NW", "gold"], ["NE", "silver"]],
        "flowers": ["SE"],
    },
    "5": {
        "q": "ggss",
        "pieces": ["b:head:W", "o:end:N"],
        "prey": [["W", "frog"]],
        "back": {"q": "ggss", "pieces": ["b:mid:N-W"]},
    },
    "7": {"q": "gsss", "pieces": ["b:tail:N"], "flowers": ["SE", "SW"]},
    "3": {
        "q": "sggg",
        "pieces": ["w:saddle:N-E", "o:end:W"],
        "coins": [["SE", "gold"], ["SW", "silver"]],
        "flowers": ["NW", "NW"],
    },
    "9": {
        "q": "gggg",
        "coins": [["NE", "gold"]],
        "back": {"q": "gggg", "pieces": ["w:end:E"]},
    },
    "12": {
        "q": "gsgs",
        "pieces": ["o:mid:N-S", "w:end:E"],
        "prey": [["N", "fly"]],
        "back": {"q": "gsgs", "pieces": ["o:end:N", "o:end:S"]},
    },
    "20": {"q": "sssg", "pieces": ["b:tail:E", "b:head:W"], "flowers": ["NE"]},
    "33": {"q": "gggg", "coins": [["NW", "gold"], ["NW", "gold"], ["SE", "silver"]]},
}


def sample_view(seat: int | None = 0, variant: str = "animals") -> dict[str, Any]:
    """A small mid-game position: five tiles, tokens of both seats, a removed piece, a flip."""
    hand = [12, 20, 33] if seat == 0 else ([] if seat == 1 else None)
    tiles = {k: v for k, v in TILES.items() if k in {"0", "5", "7", "3", "9"}}
    if hand:
        tiles.update({str(t): TILES[str(t)] for t in hand})
    return {
        "hand": hand,
        "hand_sizes": [3, 3],
        "bag": 61,
        "discarded": [44],
        "supplies": [
            {"boots": 4, "forks": 3, "shovels": 2, "bets": 1},
            {"boots": 4, "forks": 2, "shovels": 3, "bets": 2},
        ],
        "scores": [17, 9],
        "actions_left": 2,
        "to_move": 0,
        "players": 2,
        "variant": variant,
        "length": "long",
        "threshold": None,
        "board": [
            {
                "x": 0,
                "y": 0,
                "tile": 0,
                "rotation": 0,
                "face": "front",
                "tokens": [{"seat": 0, "kind": "boot", "loc": "NW"}],
                "removed": [],
            },
            {
                "x": 1,
                "y": 0,
                "tile": 5,
                "rotation": 0,
                "face": "front",
                "tokens": [
                    {"seat": 1, "kind": "fork", "loc": "W"},
                    {"seat": 0, "kind": "bet", "loc": "W"},
                ],
                "removed": [],
            },
            {
                "x": -1,
                "y": 0,
                "tile": 7,
                "rotation": 90,
                "face": "front",
                "tokens": [{"seat": 0, "kind": "fork", "loc": "E"}],
                "removed": [],
            },
            {
                "x": 0,
                "y": 1,
                "tile": 3,
                "rotation": 0,
                "face": "front",
                "tokens": [
                    {"seat": 1, "kind": "boot", "loc": "SE"},
                    {"seat": 0, "kind": "boot", "loc": "SE"},
                ],
                "removed": ["W"],
            },
            {
                "x": 1,
                "y": 1,
                "tile": 9,
                "rotation": 180,
                "face": "back",
                "tokens": [],
                "removed": [],
            },
        ],
        "tiles": tiles,
        "history": [],
        "outcome": None,
        "log": [
            {"ply": 0, "type": "place", "seat": 0, "tile": 7, "x": -1, "y": 0, "rotation": 90},
            {
                "ply": 0,
                "type": "score",
                "feature": "creature",
                "species": "o",
                "valid": True,
                "value": 2,
                "winners": [0],
                "tiles": [3, 8],
                "pieces": 2,
            },
            {"ply": 1, "type": "flip", "seat": 1, "x": 1, "y": 1, "rotation": 180},
            {"ply": 2, "type": "discard", "seat": 0, "tile": 44},
        ],
    }


def parse(svg: str) -> ET.Element:
    root = ET.fromstring(svg)
    assert root.tag == f"{SVG}svg"
    return root


def by_attr(root: ET.Element, name: str, value: str | None = None) -> list[ET.Element]:
    return [e for e in root.iter() if name in e.attrib and (value is None or e.get(name) == value)]


def tile_at(root: ET.Element, pos: str) -> ET.Element:
    found = [e for e in by_attr(root, "data-pos", pos) if "tile" in (e.get("class") or "")]
    assert len(found) == 1, pos
    return found[0]


def pieces_in(element: ET.Element) -> set[str]:
    return {e.get("data-piece", "") for e in element.iter() if "data-piece" in e.attrib}


@pytest.mark.parametrize("variant", ["classic", "pitchfork", "animals"])
@pytest.mark.parametrize("seat", [0, 1, None])
def test_svg_is_well_formed_for_every_viewer(variant: str, seat: int | None) -> None:
    view = sample_view(seat, variant)
    root = parse(render.render_svg(view))
    for t in view["board"]:
        tile_at(root, f"{t['x']},{t['y']}")


def test_laid_tiles_frontier_and_hand_carry_data_attributes() -> None:
    root = parse(render.render_svg(sample_view(0)))
    laid = {
        e.get("data-pos")
        for e in root.iter()
        if e.get("class") == "tile" and "data-pos" in e.attrib
    }
    assert laid == {"0,0", "1,0", "-1,0", "0,1", "1,1"}
    frontier = {e.get("data-pos") for e in root.iter() if e.get("class") == "frontier"}
    assert {"2,0", "-2,0", "0,-1", "0,2", "-1,1"} <= frontier
    assert not frontier & laid
    hand = [e.get("data-tile") for e in root.iter() if e.get("data-hand") == "1"]
    assert hand == ["12", "20", "33"]
    quads = {
        e.get("data-loc") for e in tile_at(root, "0,0").iter() if e.get("class") == "quad grass"
    }
    assert quads == {"NW", "NE"}
    spokes = {e.get("data-loc") for e in tile_at(root, "0,0").iter() if e.get("class") == "spoke"}
    assert spokes == {"E", "W"}


def test_rotation_and_back_face_are_drawn_in_board_orientation() -> None:
    root = parse(render.render_svg(sample_view(0)))
    # Tile 7 holds a tail on N, laid at 90 degrees: the tail points east on the board.
    assert pieces_in(tile_at(root, "-1,0")) == {"b:tail:E"}
    sand = {
        e.get("data-loc") for e in tile_at(root, "-1,0").iter() if e.get("class") == "quad sand"
    }
    assert sand == {"NW", "SE", "SW"}
    # Tile 9 lies on its back (a worm end on E) at 180 degrees.
    assert pieces_in(tile_at(root, "1,1")) == {"w:end:W"}


def test_removed_pieces_are_not_drawn() -> None:
    root = parse(render.render_svg(sample_view(0)))
    assert pieces_in(tile_at(root, "0,1")) == {"w:saddle:N-E"}


def test_shovel_marks_only_tiles_that_can_still_be_flipped() -> None:
    root = parse(render.render_svg(sample_view(0)))

    def shovels(pos: str) -> int:
        return sum(1 for e in tile_at(root, pos).iter() if e.get("class") == "shovel")

    assert shovels("1,0") == 1  # front with a back
    assert shovels("1,1") == 0  # already flipped
    assert shovels("0,0") == 0  # no back


def test_tokens_are_drawn_at_their_location_in_owner_colours() -> None:
    view = sample_view(0)
    root = parse(render.render_svg(view))
    for t in view["board"]:
        tile = tile_at(root, f"{t['x']},{t['y']}")
        drawn = sorted(
            (e.get("data-seat"), e.get("class", "").split()[1])
            for e in tile.iter()
            if (e.get("class") or "").startswith("token ")
        )
        expected = sorted((str(k["seat"]), f"token-{k['kind']}") for k in t["tokens"])
        assert drawn == expected
    for seat in (0, 1):
        colour = render.SEAT_COLOURS[seat]
        boots = [
            e
            for e in root.iter()
            if e.get("class") == f"token token-boot seat-{seat}" and e.get("data-seat") == str(seat)
        ]
        assert boots
        for boot in boots:
            assert any(child.get("fill") == colour for child in boot)


def test_prey_is_drawn_in_animals_only() -> None:
    animals = parse(render.render_svg(sample_view(0, "animals")))
    assert by_attr(tile_at(animals, "1,0"), "data-prey") != []
    classic = parse(render.render_svg(sample_view(0, "classic")))
    assert by_attr(tile_at(classic, "1,0"), "data-prey") == []


def test_coins_and_flowers_are_counted_on_their_quadrants() -> None:
    root = parse(render.render_svg(sample_view(0)))
    tile = tile_at(root, "0,1")
    classes = [e.get("class") for e in tile.iter()]
    assert classes.count("coin coin-gold") == 1
    assert classes.count("coin coin-silver") == 1
    assert classes.count("flower") == 2


def test_spectator_and_other_seats_see_no_hand() -> None:
    spectator = render.render_svg(sample_view(None))
    assert "Your hand" not in spectator
    assert not by_attr(parse(spectator), "data-hand")
    empty = render.render_svg(sample_view(1))
    assert "Your hand" in empty
    assert not by_attr(parse(empty), "data-hand")


def test_panel_shows_scores_supplies_bag_and_turn() -> None:
    svg = render.render_svg(sample_view(0))
    for text in ("17", "9", "Bag: 61 tiles", "Red to move, 2 actions left", "shovels 2"):
        assert text in svg


def test_finished_game_names_the_winner_and_drops_the_frontier() -> None:
    view = sample_view(0)
    view.update(
        to_move=None,
        actions_left=0,
        outcome={"winners": [0], "scores": [17, 9], "reason": "tiles-out"},
    )
    root = parse(render.render_svg(view))
    assert not [e for e in root.iter() if e.get("class") == "frontier"]
    svg = render.render_svg(view)
    assert "Game over: Red wins" in svg and "tiles-out" not in svg
    # The text board (in result emails) says why in words, not the outcome's code.
    text = render.render_text(view)
    assert "Game over: the tiles ran out; Red won." in text and "tiles-out" not in text


def test_player_names_are_escaped() -> None:
    view = sample_view(0)
    view["players"] = ["<Ann & Bob>", "Cy"]
    svg = render.render_svg(view)
    parse(svg)
    assert "&lt;Ann &amp; Bob&gt;" in svg


def test_names_passed_in_win_over_the_view_and_are_cleaned() -> None:
    view = sample_view(0)
    view["players"] = ["Ann", "Bob"]
    svg = render.render_svg(view, names=["Zoë <z>", "\x00\x1f "])
    parse(svg)
    assert "Zoë &lt;z&gt; to move" in svg
    assert "Ann" not in svg and "Violet" in svg  # a blank name falls back to the colour word
    text = render.render_text(view, names=["Zoë", "Bo\nb"])
    assert "> Zoë" in text and "Bob" in text


def test_without_names_seats_are_colour_words() -> None:
    assert [render.seat_word(s) for s in range(5)] == ["Red", "Violet", "White", "Black", "Red"]
    svg = render.render_svg(sample_view(0))
    assert "Seat" not in svg and "Violet" in svg
    assert "Seat" not in render.render_text(sample_view(0))


def test_empty_board_still_renders() -> None:
    view = sample_view(None)
    view["board"] = []
    root = parse(render.render_svg(view))
    assert by_attr(root, "data-pos", "0,0")


@pytest.mark.parametrize("face", ["front", "back"])
@pytest.mark.parametrize("rotation", [0, 90, 180, 270])
def test_single_tile_document(face: str, rotation: int) -> None:
    root = parse(render.render_tile_svg(TILES["12"], rotation, face, tile_id=12))
    drawn = pieces_in(root)
    expected = {"o:mid:N-S", "w:end:E"} if face == "front" else {"o:end:N", "o:end:S"}
    expected = {
        p.rsplit(":", 1)[0]
        + ":"
        + "-".join(
            sorted(
                (render.rotate_spoke(s, rotation) for s in p.rsplit(":", 1)[1].split("-")),
                key="NESW".index,
            )
        )
        for p in expected
    }
    assert drawn == expected
    assert (sum(1 for e in root.iter() if e.get("class") == "shovel") == 1) == (face == "front")


def test_rotation_maps_spokes_and_quadrants_clockwise() -> None:
    assert [render.rotate_spoke(s, 90) for s in "NESW"] == ["E", "S", "W", "N"]
    assert [render.rotate_quad(q, 90) for q in ("NW", "NE", "SE", "SW")] == [
        "NE",
        "SE",
        "SW",
        "NW",
    ]
    assert render.rotate_spoke("N", 270) == "W"


def test_text_board_blocks_and_panel() -> None:
    text = render.render_text(sample_view(0))
    lines = text.splitlines()
    assert lines[0].startswith("Marram Animals")
    assert any("b───b" in line for line in lines)  # the blue mid running E-W across tile 0
    assert "> Red" in text
    assert "Bag 61" in text
    assert "Your hand:" in text
    assert "12 ^" in text  # tile 12 has a shovel
    assert "fork at 1,0 W" in text


def test_text_spectator_has_no_hand() -> None:
    assert "Your hand" not in render.render_text(sample_view(None))


def test_tile_text_rotates() -> None:
    block = render.tile_text(TILES["7"], 90)
    assert block[1][4] == "T"  # tail now on the east side
    assert [block[0][0], block[0][4], block[2][4], block[2][0]] == ["s", "g", "s", "s"]
    assert (
        render.tile_text(TILES["5"], 0, tokens=[{"seat": 0, "kind": "boot", "loc": "NE"}])[0][4]
        == "G"
    )


# Random descriptions: any valid tile draws as well-formed SVG and text.
_TWO = ["N-E", "N-S", "N-W", "E-S", "E-W", "S-W"]


@st.composite
def descriptions(draw: Any) -> dict[str, Any]:
    q = "".join(draw(st.lists(st.sampled_from("gs"), min_size=4, max_size=4)))
    free = ["N", "E", "S", "W"]
    pieces: list[str] = []
    for _ in range(draw(st.integers(0, 3))):
        species = draw(st.sampled_from("obw"))
        kinds = {"o": ["end", "mid"], "w": ["end", "mid", "saddle"], "b": ["head", "tail", "mid"]}
        kind = draw(st.sampled_from(kinds[species]))
        if kind in ("mid", "saddle"):
            options = [s for s in _TWO if all(p in free for p in s.split("-"))]
            if not options:
                continue
            spokes = draw(st.sampled_from(options))
        else:
            if not free:
                continue
            spokes = draw(st.sampled_from(free))
        for s in spokes.split("-"):
            free.remove(s)
        pieces.append(f"{species}:{kind}:{spokes}")
    quads = ["NW", "NE", "SE", "SW"]
    grass = [quads[i] for i in range(4) if q[i] == "g"]
    sand = [quads[i] for i in range(4) if q[i] == "s"]
    desc: dict[str, Any] = {"q": q, "pieces": pieces}
    if grass:
        desc["coins"] = draw(
            st.lists(
                st.tuples(st.sampled_from(grass), st.sampled_from(["gold", "silver"])), max_size=6
            )
        )
    if sand:
        desc["flowers"] = draw(st.lists(st.sampled_from(sand), max_size=6))
    snakes = [p.split(":")[2].split("-")[0] for p in pieces if p[0] in "ob"]
    if snakes:
        desc["prey"] = [[s, draw(st.sampled_from(["fly", "frog"]))] for s in snakes]
    return desc


@given(descriptions(), st.sampled_from([0, 90, 180, 270]))
def test_any_description_renders(desc: dict[str, Any], rotation: int) -> None:
    root = parse(render.render_tile_svg(desc, rotation))
    assert len(pieces_in(root)) == len(desc["pieces"])
    block = render.tile_text(desc, rotation)
    assert [len(line) for line in block] == [5, 5, 5]
