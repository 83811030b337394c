"""Helpers to build Marram scenarios from hand-written tiles (`start` and `deck` options)."""

from __future__ import annotations

from typing import Any

from pbem import games
from pbem.games.marram.rules import MarramState

GAME = games.get("marram")

# Plain fillers: they fit against any side of the same terrain.
GRASS: dict[str, Any] = {"q": "gggg"}
SAND: dict[str, Any] = {"q": "ssss"}


def new(
    deck: list[dict[str, Any]],
    start: dict[str, Any] | None = None,
    variant: str = "classic",
    length: str = "long",
    players: int = 2,
) -> MarramState:
    options: dict[str, Any] = {"variant": variant, "length": length, "deck": deck}
    if start is not None:
        options["start"] = start
    state = GAME.new(players, options)
    assert isinstance(state, MarramState)
    return state


def play(state: MarramState, *moves: str) -> MarramState:
    for move in moves:
        state = state.play(move)
    return state


def edit(state: MarramState, **changes: Any) -> MarramState:
    """A copy of the state with some JSON fields replaced (for positions hard to reach)."""
    data = state.to_json()
    data.update(changes)
    return MarramState.from_json(data)


def events(state: MarramState, kind: str) -> list[dict[str, Any]]:
    return [e for e in state.view(None)["log"] if e["type"] == kind]


def scored(state: MarramState) -> list[dict[str, Any]]:
    return events(state, "score")


def removed(state: MarramState, x: int, y: int) -> list[str]:
    for laid in state.view(None)["board"]:
        if (laid["x"], laid["y"]) == (x, y):
            return list(laid["removed"])
    raise AssertionError(f"no tile at {x},{y}")


def tokens(state: MarramState) -> list[tuple[int, str, int, int, str]]:
    return [
        (t["seat"], t["kind"], b["x"], b["y"], t["loc"])
        for b in state.view(None)["board"]
        for t in b["tokens"]
    ]


def deck_for(
    mine: list[dict[str, Any]], filler: dict[str, Any], rounds: int = 8
) -> tuple[list[dict[str, Any]], list[int]]:
    """A 2-player deck giving seat 0 `mine` in order (padded with fillers); seat 1 gets fillers.

    Returns the deck and the tile ids seat 0 receives, in the order of `mine`.
    """
    wanted = list(mine)
    deck: list[dict[str, Any]] = []
    ids: list[int] = []

    def take(count: int) -> None:
        for _ in range(count):
            if wanted:
                deck.append(wanted.pop(0))
                ids.append(len(deck))
            else:
                deck.append(filler)

    take(3)
    deck.extend([filler] * 3)
    for _ in range(rounds):
        take(2)
        deck.extend([filler] * 2)
    return deck, ids[: len(mine)]


def filler_move(state: MarramState) -> str:
    """A plain placement far from the action: the lowest, then westmost open position."""
    best: tuple[int, int, str] | None = None
    for move in state.legal_moves():
        parts = move.split()
        if parts[0] != "place" or len(parts) != 4:
            continue
        x, y = (int(v) for v in parts[2].split(","))
        if best is None or (y, x) < best[:2]:
            best = (y, x, move)
    assert best is not None, "seat 1 has no plain placement"
    return best[2]


def solo(state: MarramState, *moves: str) -> MarramState:
    """Seat 0 plays `moves`; whenever seat 1 is to move it lays fillers out of the way."""
    for move in moves:
        while state.to_move == 1:
            state = state.play(filler_move(state))
        assert state.to_move == 0
        state = state.play(move)
    return state
