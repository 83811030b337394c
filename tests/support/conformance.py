"""Seeded random games of every registered engine, checked at every ply against the engine
contract: the play-outs of tests/games/test_conformance.py and of bench/conformance.py (which
plays them by the thousand).

A case is an engine and one value of one of its options (or the engine alone when it has none);
the seed picks the other options and the number of players, cycling, so that enough seeds of a
case play every combination."""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from typing import Any

from pbem import games
from pbem.games import Outcome

MAX_PLIES = 20_000


def cases() -> Iterator[tuple[str, str | None, Any]]:
    """(engine, option, value) for every option value of every engine; (engine, None, None)
    for an engine without options."""
    for name in games.names():
        game = games.get(name)
        if not game.options:
            yield name, None, None
        for option, values in game.options.items():
            for value in values:
                yield name, option, value


def setup(name: str, option: str | None, value: Any, seed: int) -> tuple[int, dict[str, Any]]:
    """Players and options for one game: the fixed option, the rest cycling with the seed."""
    game = games.get(name)
    counts = list(range(game.min_players, game.max_players + 1))
    options: dict[str, Any] = {}
    cycle = seed
    for other, values in game.options.items():
        if other == option:
            options[other] = value
        else:
            options[other] = list(values)[cycle % len(values)]
            cycle //= len(values)
    return counts[cycle % len(counts)], options


def roundtrip(name: str, state: games.State) -> None:
    data = state.to_json()
    text = json.dumps(data)
    again = games.get(name).from_json(json.loads(text))
    assert again.to_json() == data
    assert again.legal_moves() == state.legal_moves()
    assert again.to_move == state.to_move
    assert again.history == state.history


def check_state(state: games.State) -> list[str]:
    moves = state.legal_moves()
    if state.outcome is None:
        assert state.to_move is not None
        assert 0 <= state.to_move < state.players
        assert moves, "a running game must offer a move"
        assert moves == sorted(moves)
        assert len(set(moves)) == len(moves)
    else:
        assert state.to_move is None
        assert moves == []
        assert isinstance(state.outcome, Outcome)
        assert all(0 <= w < state.players for w in state.outcome.winners)
        assert len(state.outcome.scores) == state.players
        assert state.outcome.reason
    scores = state.scores()
    assert len(scores) == state.players
    assert all(isinstance(s, int) for s in scores)
    return moves


def play_out(name: str, players: int, options: dict[str, Any], seed: int) -> games.State:
    """A seeded random game to its end, every position checked and sent through JSON."""
    game = games.get(name)
    rng = random.Random(seed)
    state = game.new(players=players, options=options, seed=seed)
    plies = 0
    while state.outcome is None:
        moves = check_state(state)
        roundtrip(name, state)
        move = rng.choice(moves)
        before = state.to_json()
        nxt = state.play(move)
        assert state.to_json() == before, "play must not change the old state"
        assert nxt.history == [*state.history, move]
        state = nxt
        plies += 1
        assert plies < MAX_PLIES, "game does not end"
    check_state(state)
    roundtrip(name, state)
    return state


def play_case_game(name: str, option: str | None, value: Any, seed: int) -> games.State:
    """Game `seed` of a case, played twice: the same seed and moves give the same game."""
    players, options = setup(name, option, value, seed)
    final = play_out(name, players, options, seed)
    again = play_out(name, players, options, seed)
    assert again.to_json() == final.to_json(), "same seed and moves must give the same game"
    return final
