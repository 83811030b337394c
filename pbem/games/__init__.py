"""The registry of game engines: `get(name)` and `names()`.

Engines are pure (no I/O, clock or database) and follow the contract in `base.py`.
An engine joins by adding its module here; the conformance suite picks it up.
"""

from __future__ import annotations

import importlib

from pbem.games.base import Game, IllegalMove, InvalidMove, MoveError, Outcome, State

__all__ = [
    "Game",
    "IllegalMove",
    "InvalidMove",
    "MoveError",
    "Outcome",
    "State",
    "get",
    "names",
]

# name -> module exposing `GAME`; imported on first use so one engine's import cost is paid only
# by code that plays it.
_MODULES: dict[str, str] = {
    "gorami": "pbem.games.gorami",
    "marram": "pbem.games.marram",
    "mmw": "pbem.games.mmw",
}
_loaded: dict[str, Game] = {}


def names() -> list[str]:
    """The registered game names, sorted."""
    return sorted(_MODULES)


def get(name: str) -> Game:
    """The engine registered as `name` (case-insensitive)."""
    key = name.strip().lower() if isinstance(name, str) else name
    if key not in _MODULES:
        known = ", ".join(names())
        raise KeyError(f"unknown game {name!r}; known games: {known}")
    if key not in _loaded:
        game: Game = importlib.import_module(_MODULES[key]).GAME
        _loaded[key] = game
    return _loaded[key]
