"""The claim buttons say what a claim takes, not a compass point (issue 31): `board_assets`
gives, per action, each claim it may carry in words, read from the board with the tile laid."""

from __future__ import annotations

from pbem.games.marram.claims import split
from tests.games.marram.scenario import GAME, SAND, deck_for, new
from tests.games.marram.test_marram_describe import ORANGE_START, one


def test_each_claim_names_its_feature_its_size_and_where_it_stands() -> None:
    deck, ids = deck_for([one(["o:end:W"]), one(["o:end:E"])], SAND)
    state = new(deck, start=ORANGE_START)
    claims = GAME.board_assets(state, 0)["claims"]
    action = f"place {ids[0]} 1,0 0"
    assert claims[action] == {
        "boot NE": "boot: the grass tuft of 2 tiles (north-east quarter)",
        "boot NW": "boot: the grass tuft of 2 tiles (north-west quarter)",
        "boot SE": "boot: the sand mound of 2 tiles (south-east quarter)",
        "boot SW": "boot: the sand mound of 2 tiles (south-west quarter)",
        "boot W": "boot: the orange snake of 2 pieces (west side)",
    }
    legal = state.legal_moves()
    # Every claim of every legal action is labelled, and nothing else.
    wanted = {split(m) for m in legal if split(m)[1] is not None}
    assert {(a, c) for a, by in claims.items() for c in by} == wanted


def test_a_claim_on_a_feature_the_tile_completes_says_so() -> None:
    deck, ids = deck_for([one(["o:end:W"]), one(["o:end:E"])], SAND)
    state = new(deck, start=ORANGE_START)
    state = state.play(f"place {ids[0]} 1,0 0")
    claims = GAME.board_assets(state, 0)["claims"]
    assert claims[f"place {ids[1]} -1,0 0"]["boot E"] == (
        "boot: the orange snake of 3 pieces, which this completes (east side)"
    )


def test_split_keeps_the_claim_and_drops_the_bet() -> None:
    assert split("place 5 0,-1 0 boot NE bet E") == ("place 5 0,-1 0", "boot NE")
    assert split("flip 1,0 180 bet N") == ("flip 1,0 180", None)
    assert split("pass") == ("pass", None)
