"""Every engine's move parser, fed arbitrary text: it plays or raises MoveError, within a time
budget per call, and its message stays short whatever was typed.

The web refuses control characters and long fields before an engine sees them; the engines
must not rely on that (the terminal and the workers call them too).
"""

from __future__ import annotations

import random
from datetime import timedelta
from functools import cache

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pbem import games

# A call takes well under a millisecond, the largest inputs below included; before the parsers
# were bounded an 80,000-character move took seconds. The budget leaves room for a loaded machine.
BUDGET = timedelta(milliseconds=100)
MESSAGE_LENGTH = 600

# Every code point, surrogates and controls included.
ANY_CHARACTER = st.characters(exclude_categories=())
# Characters the notations are made of, so that examples come close to real moves.
NOTATION = st.sampled_from(list("0123456789abcdefghyr-–—,+ '\t\n\x00placeflipbootforkbetNSEW"))

TEXTS = st.one_of(
    st.text(ANY_CHARACTER, max_size=300),
    st.text(NOTATION, max_size=120),
    # Huge inputs: a short unit repeated up to 400,000 characters, between two short texts
    # (a run of spaces inside a move is what made a pattern quadratic).
    st.builds(
        lambda before, unit, times, after: before + unit * times + after,
        st.text(NOTATION, max_size=12),
        st.one_of(
            st.just(" "), st.text(st.one_of(NOTATION, ANY_CHARACTER), min_size=1, max_size=4)
        ),
        st.integers(min_value=1, max_value=100_000),
        st.text(NOTATION, max_size=12),
    ),
)
# A legal move changed: text inserted at a place, the case flipped, whitespace around it.
EDITS = st.tuples(
    st.integers(min_value=0, max_value=60),
    st.one_of(st.text(NOTATION, max_size=8), st.text(ANY_CHARACTER, max_size=3)),
    st.booleans(),
    st.sampled_from(["", " ", "\t", " " * 1000, "\n", "\u3000"]),
)


@cache
def positions(name: str) -> tuple[games.State, ...]:
    """A fresh game under every option value, one in play and one finished."""
    game = games.get(name)
    found = [game.new(game.min_players, {}, seed=11), game.new(game.max_players, {}, seed=12)]
    for option, values in game.options.items():
        found += [game.new(game.min_players, {option: value}, seed=13) for value in values[1:]]
    state = found[0]
    pick = random.Random(5)
    while state.outcome is None:
        if len(state.history) == 6:
            found.append(state)
        state = state.play(pick.choice(state.legal_moves()))
    found.append(state)
    return tuple(found)


def _edited(state: games.State, edit: tuple[int, str, bool, str]) -> str:
    at, inserted, flip_case, around = edit
    legal = state.legal_moves() or ["pass"]
    move = legal[at % len(legal)]
    cut = at % (len(move) + 1)
    move = move[:cut] + inserted + move[cut:]
    return around + (move.swapcase() if flip_case else move) + around


def _try(state: games.State, text: str) -> None:
    for call in (state.play, state.describe):
        try:
            call(text)
        except games.MoveError as refused:
            message = str(refused)
            assert message.strip(), "a refusal says why"
            assert len(message) <= MESSAGE_LENGTH, f"{len(message)} characters: {message[:200]}"


@pytest.fixture(scope="module", autouse=True)
def _positions_ready() -> None:
    # Played once, before the examples are timed.
    for name in games.names():
        positions(name)


@pytest.mark.parametrize("name", games.names())
@settings(deadline=BUDGET, max_examples=400)
@given(text=TEXTS, which=st.integers(min_value=0, max_value=99))
def test_any_text_is_played_or_refused(name: str, text: str, which: int) -> None:
    states = positions(name)
    _try(states[which % len(states)], text)


@pytest.mark.parametrize("name", games.names())
@settings(deadline=BUDGET, max_examples=300)
@given(edit=EDITS, which=st.integers(min_value=0, max_value=99))
def test_legal_moves_edited_are_played_or_refused(
    name: str, edit: tuple[int, str, bool, str], which: int
) -> None:
    states = positions(name)
    state = states[which % len(states)]
    _try(state, _edited(state, edit))
