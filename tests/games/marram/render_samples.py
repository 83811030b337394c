"""Hand-made Marram views for the renderer tests (valid per rules section 7)."""

from __future__ import annotations

from typing import Any

TILES: dict[str, Any] = {
    "0": {
        "q": "ggss",
        "pieces": ["b:mid:E-W"],
        "coins": [["NW", "gold"], ["NE", "silver"]],
        "flowers": ["SE"],
    },
    "5": {
        "q": "ggss",
        "pieces": ["b:head:W", "o:end:N"],
        "prey": [["W", "frog"]],
        "back": {"q": "ggss", "pieces": ["b:mid:N-W"]},
    },
    "7": {"q": "gsss", "pieces": ["b:tail:N"], "flowers": ["SE", "SW"]},
    "3": {
        "q": "sggg",
        "pieces": ["w:saddle:N-E", "o:end:W"],
        "coins": [["SE", "gold"], ["SW", "silver"]],
        "flowers": ["NW", "NW"],
    },
    "9": {
        "q": "gggg",
        "coins": [["NE", "gold"]],
        "back": {"q": "gggg", "pieces": ["w:end:E"]},
    },
    "12": {
        "q": "gsgs",
        "pieces": ["o:mid:N-S", "w:end:E"],
        "prey": [["N", "fly"]],
        "back": {"q": "gsgs", "pieces": ["o:end:N", "o:end:S"]},
    },
    "20": {"q": "sssg", "pieces": ["b:tail:E", "b:head:W"], "flowers": ["NE"]},
    "33": {"q": "gggg", "coins": [["NW", "gold"], ["NW", "gold"], ["SE", "silver"]]},
}


def sample_view(seat: int | None = 0, variant: str = "animals") -> dict[str, Any]:
    """A small mid-game position: five tiles, tokens of both seats, a removed piece, a flip."""
    hand = [12, 20, 33] if seat == 0 else ([] if seat == 1 else None)
    tiles = {k: v for k, v in TILES.items() if k in {"0", "5", "7", "3", "9"}}
    if hand:
        tiles.update({str(t): TILES[str(t)] for t in hand})
    return {
        "hand": hand,
        "hand_sizes": [3, 3],
        "bag": 61,
        "discarded": [44],
        "supplies": [
            {"boots": 4, "forks": 3, "shovels": 2, "bets": 1},
            {"boots": 4, "forks": 2, "shovels": 3, "bets": 2},
        ],
        "scores": [17, 9],
        "actions_left": 2,
        "to_move": 0,
        "players": 2,
        "variant": variant,
        "length": "long",
        "threshold": None,
        "board": [
            {
                "x": 0,
                "y": 0,
                "tile": 0,
                "rotation": 0,
                "face": "front",
                "tokens": [{"seat": 0, "kind": "boot", "loc": "NW"}],
                "removed": [],
            },
            {
                "x": 1,
                "y": 0,
                "tile": 5,
                "rotation": 0,
                "face": "front",
                "tokens": [
                    {"seat": 1, "kind": "fork", "loc": "W"},
                    {"seat": 0, "kind": "bet", "loc": "W"},
                ],
                "removed": [],
            },
            {
                "x": -1,
                "y": 0,
                "tile": 7,
                "rotation": 90,
                "face": "front",
                "tokens": [{"seat": 0, "kind": "fork", "loc": "E"}],
                "removed": [],
            },
            {
                "x": 0,
                "y": 1,
                "tile": 3,
                "rotation": 0,
                "face": "front",
                "tokens": [
                    {"seat": 1, "kind": "boot", "loc": "SE"},
                    {"seat": 0, "kind": "boot", "loc": "SE"},
                ],
                "removed": ["W"],
            },
            {
                "x": 1,
                "y": 1,
                "tile": 9,
                "rotation": 180,
                "face": "back",
                "tokens": [],
                "removed": [],
            },
        ],
        "tiles": tiles,
        "history": [],
        "outcome": None,
        "log": [
            {"ply": 0, "type": "place", "seat": 0, "tile": 7, "x": -1, "y": 0, "rotation": 90},
            {
                "ply": 0,
                "type": "score",
                "feature": "creature",
                "species": "o",
                "valid": True,
                "value": 2,
                "winners": [0],
                "tiles": [3, 8],
                "pieces": 2,
            },
            {"ply": 1, "type": "flip", "seat": 1, "x": 1, "y": 1, "rotation": 180},
            {"ply": 2, "type": "discard", "seat": 0, "tile": 44},
        ],
    }
