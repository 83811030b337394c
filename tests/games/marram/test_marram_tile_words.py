"""Marram names a tile by what it shows, as the picture and the rules' tile sheet do, with its
number for the notation beside it: in a move's words, the text board and the page summary
(issue 31: "discarded 38" said nothing of the tile)."""

from __future__ import annotations

from pbem.games.marram import render
from pbem.games.marram.words import tile_named, tile_words
from tests.games.marram.scenario import GRASS, new, play
from tests.games.marram.test_marram_describe import said


def test_a_tile_is_named_by_its_terrain_and_what_lies_on_it() -> None:
    assert tile_words({"q": "ssss", "flowers": ["NW", "SE"]}) == "sand tile with 2 flowers"
    assert tile_words({"q": "gggg"}) == "grass tile"
    shovel = {
        "q": "ggss",
        "pieces": ["b:mid:N-S", "o:end:E"],
        "coins": [["NW", "gold"]],
        "back": {"q": "ggss", "flowers": ["SE"]},
    }
    assert tile_words(shovel) == (
        "grass-and-sand tile with an orange snake plus a blue snake plus a gold coin plus a shovel"
    )
    assert tile_words(shovel, "back") == "grass-and-sand tile with a flower"
    assert tile_named(38, {"q": "ssss", "flowers": ["SW"]}) == "a sand tile with a flower (#38)"


def _dead_tile_game():
    # As in test_marram_describe: seat 1's sand tile 4 dies when seat 0 covers the only sand
    # it could meet.
    dead = {"q": "ssss", "pieces": ["w:end:S"]}
    lid = {"q": "ggss", "pieces": ["w:end:S"]}
    start = {"q": "ssgg", "pieces": ["w:end:N"]}
    deck = [lid, GRASS, GRASS, dead, GRASS, GRASS, GRASS, GRASS, GRASS, GRASS]
    return new(deck, start=start)


def test_a_discarded_tile_is_told_by_what_it_shows() -> None:
    state = _dead_tile_game().play("place 2 0,-1 0")
    assert said(state, "place 1 0,1 0").endswith(
        "; Bob discarded a sand tile with a worm (#4), which fits nowhere"
    )
    state = play(state, "place 1 0,1 0")
    text = render.render_text(state.view(0), ["Ann", "Bob"])
    assert "discarded, as they fit nowhere: a sand tile with a worm (#4)" in text
    assert "discarded 4" not in text
    assert "placed a grass-and-sand tile with a worm (#1) at (0,1)" in text


def test_the_summary_names_the_hand_by_what_it_shows() -> None:
    coins = {"q": "gggg", "coins": [["NE", "gold"], ["SW", "silver"], ["SE", "silver"]]}
    state = new([GRASS, coins, GRASS, GRASS, GRASS, GRASS], start={"q": "gggg"})
    assert state.summary(0).hand == (
        "your tiles: a grass tile (#1); a grass tile with a gold coin plus 2 silver coins (#2); "
        "a grass tile (#3)"
    )
