"""Every engine refuses over-long move text before any pattern reads it, and quotes it short.

Found: a Marram move of 80,000 spaces took 12.6 s to refuse (`\\s*,\\s*` retried every run of
spaces from each of its starts) and a legal move padded to 350,000 characters took 480 s and was
applied. Timing is not asserted here: the patterns are replaced by ones that fail when used, so
a parser that reads long input at all fails the test.
"""

from __future__ import annotations

import importlib
import re
from types import ModuleType
from typing import Any

import pytest

from pbem import games

ENGINES = ["gorami", "marram", "mmw"]
# Where each notation tolerates a run of spaces inside a move ("2   b3", "place   1 0,0 0",
# "a1   -b2").
PAD_AT = {"gorami": 1, "marram": 5, "mmw": 2}


class Unreadable:
    """Stands for a compiled pattern or the `re` module: any use fails the test."""

    def __getattr__(self, name: str) -> Any:
        raise AssertionError(f"a pattern was used ({name}) on input that is too long to be a move")


def _notation(name: str) -> ModuleType:
    return importlib.import_module(f"pbem.games.{name}.notation")


def _unreadable_patterns(monkeypatch: pytest.MonkeyPatch, name: str) -> None:
    module = _notation(name)
    monkeypatch.setattr(module, "re", Unreadable())
    for attr, value in list(vars(module).items()):
        if isinstance(value, re.Pattern):
            monkeypatch.setattr(module, attr, Unreadable())


def _first_state(name: str) -> games.State:
    return games.get(name).new(2, {}, seed=7)


@pytest.mark.parametrize("name", ENGINES)
@pytest.mark.parametrize(
    "text",
    [
        "1" + " " * 80_000 + "2",
        "place 1 " + " " * 80_000 + "0,0 0",
        "a1" + " " * 80_000 + "b2",
        "x" * 80_000,
    ],
    ids=["spaces", "marram-spaces", "mmw-spaces", "letters"],
)
def test_over_long_moves_are_refused_before_any_pattern_reads_them(
    monkeypatch: pytest.MonkeyPatch, name: str, text: str
) -> None:
    state = _first_state(name)
    _unreadable_patterns(monkeypatch, name)
    with pytest.raises(games.InvalidMove):
        state.play(text)


@pytest.mark.parametrize("name", ENGINES)
def test_a_padded_legal_move_is_refused_not_applied(name: str) -> None:
    state = _first_state(name)
    legal = state.legal_moves()[0]
    cut = PAD_AT[name]
    padded = legal[:cut] + " " * 350_000 + legal[cut:]
    assert state.play(legal[:cut] + "  " + legal[cut:]).history  # padding is tolerated
    with pytest.raises(games.InvalidMove, match="characters long") as refused:
        state.play(padded)
    assert len(str(refused.value)) < 400


@pytest.mark.parametrize("name", ENGINES)
@pytest.mark.parametrize("length", [50, 99, 5_000])
def test_refusals_quote_a_short_prefix_of_the_input(name: str, length: int) -> None:
    text = "q" + "z" * (length - 1)
    with pytest.raises(games.MoveError) as refused:
        _first_state(name).play(text)
    message = str(refused.value)
    assert "qzz" in message, "the message still shows what was typed"
    assert "z" * 41 not in message, message


def test_a_finished_game_quotes_short_too() -> None:
    import random

    for name in ENGINES:
        state = _first_state(name)
        pick = random.Random(3)
        while state.outcome is None:
            state = state.play(pick.choice(state.legal_moves()))
        with pytest.raises(games.MoveError) as refused:
            state.play("q" + "z" * 90)
        assert "z" * 41 not in str(refused.value)
