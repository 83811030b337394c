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


# A sand mound around the tile laid at 0,1 ("ssss"), open at one corner only: the cell -1,2 stays
# empty, so the sand of the tiles north (0,2) and west (-1,1) of it faces nothing there.
#
#         x=-1      x=0       x=1
#   y=2   (empty)   N ggss    NE gggs
#   y=1   W gssg    A ssss    E sggs
#   y=0   SW gsgg   S ssgg    SE sggg      (S is the start tile)
#
# Scoring after A is laid searches from each of A's quadrants. The search from NW meets the open
# corner and stops; the one from SE walks the three closed corners, and a search that shared the
# first one's visited set never looked at the fourth (test_marram_completeness.py).
RING_START = {"q": "ssgg"}
RING_TILES: list[dict[str, Any]] = [
    {"q": "sggg"},  # 1,0
    {"q": "gsgg"},  # -1,0
    {"q": "sggs"},  # 1,1
    {"q": "gssg"},  # -1,1
    {"q": "gggs"},  # 1,2
    {"q": "ggss"},  # 0,2
    {"q": "ssss"},  # 0,1: the acted tile
    {"q": "ggsg"},  # -1,2: closes the last corner
]
RING_AT = ["1,0", "-1,0", "1,1", "-1,1", "1,2", "0,2"]


def ring(tiles: list[dict[str, Any]], variant: str = "classic") -> tuple[MarramState, list[int]]:
    """The ring laid but for A (0,1) and the closing tile (-1,2), seat 0 to move; returns the
    position and seat 0's tile ids, in the order of `tiles` (a variation of RING_TILES)."""
    deck, ids = deck_for(tiles, GRASS)
    state = new(deck, start=RING_START, variant=variant)
    state = solo(state, *(f"place {t} {at} 0" for t, at in zip(ids, RING_AT, strict=False)))
    while state.to_move != 0:
        state = state.play(filler_move(state))
    return state, ids
