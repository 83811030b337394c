"""The registry of game engines: `get(name)`, `names()` and `register(name, engine)`.

Engines are pure (no I/O, clock or database) and follow the contract in `base.py`, described in
docs/design.md. The built-in engines are registered below by module path, imported on first use;
a new engine (or a test's) joins with `register`, and the conformance suite picks it up.
"""

from __future__ import annotations

import importlib

from pbem.games.base import (
    SAID,
    Game,
    IllegalMove,
    InvalidMove,
    MoveError,
    Outcome,
    SeatSummary,
    State,
    Summary,
    fill_names,
    seat_mark,
)

__all__ = [
    "SAID",
    "Game",
    "IllegalMove",
    "InvalidMove",
    "MoveError",
    "Outcome",
    "SeatSummary",
    "State",
    "Summary",
    "fill_names",
    "get",
    "names",
    "register",
    "seat_mark",
    "unregister",
]

# name -> a module path exposing `GAME` (imported on first use, so one engine's import cost is
# paid only by code that plays it) or the engine itself.
_registered: dict[str, str | Game] = {}


def register(name: str, engine: str | Game) -> None:
    """Make `engine` playable as `name`: a Game, or the path of a module whose `GAME` is one."""
    key = name.strip().lower()
    if not key.isidentifier():
        raise ValueError(f"a game name is a lower-case identifier, not {name!r}")
    _registered[key] = engine


def unregister(name: str) -> None:
    """Forget a registered engine (tests that registered one of their own)."""
    _registered.pop(name.strip().lower(), None)


def names() -> list[str]:
    """The registered game names, sorted."""
    return sorted(_registered)


def get(name: str) -> Game:
    """The engine registered as `name` (case-insensitive); KeyError naming the known ones."""
    key = name.strip().lower() if isinstance(name, str) else name
    if key not in _registered:
        known = ", ".join(names())
        raise KeyError(f"unknown game {name!r}; known games: {known}")
    engine = _registered[key]
    if isinstance(engine, str):
        engine = importlib.import_module(engine).GAME
        _registered[key] = engine
    return engine


register("gorami", "pbem.games.gorami")
register("marram", "pbem.games.marram")
register("mmw", "pbem.games.mmw")
