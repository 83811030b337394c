"""A finished Marram board says who won once: the race to the threshold ("first to 80 wins")
is told while the game runs, not beside "Game over: Ann wins" (issue 31)."""

from __future__ import annotations

import random

from tests.games.marram.scenario import GAME


def test_the_threshold_is_told_only_while_the_game_runs() -> None:
    state = GAME.new(2, {"variant": "classic", "length": "short"}, seed=3)
    assert "first to 80 wins" in GAME.render_svg(state, 0, ["Ann", "Bob"])
    assert "first to 80 wins" in state.summary(0).notes
    rng = random.Random(1)
    while state.outcome is None:
        state = state.play(rng.choice(state.legal_moves()))
    svg = GAME.render_svg(state, 0, ["Ann", "Bob"])
    assert "Game over: " in svg and "first to" not in svg
    assert "first to" not in state.summary(0).notes
