"""What a claim takes, in words, for the interactive board's claim buttons: "boot: the grass
tuft of 3 tiles (north-east quarter)" rather than the bare location "boot NE".

A claim names a location on the tile just laid or flipped (rules 5.3); what it takes is the
feature through that location once the tile lies there: a quadrant's region, a spoke's
creature. So each label is read from the board with that tile laid, before any scoring.
"""

from __future__ import annotations

from collections.abc import Iterable

from pbem.games.marram.board import Laid, Pos
from pbem.games.marram.features import creature_at, region_at
from pbem.games.marram.rules import MarramState
from pbem.games.marram.tiles import QUADRANT_INDEX, SPECIES_NAMES, SPOKE_INDEX
from pbem.games.marram.words import REGION_WORDS, TOKEN_WORDS, plural

# Where on the tile a claim stands, as the rules page's pictures call it.
PLACE_WORDS = {
    "NW": "north-west quarter",
    "NE": "north-east quarter",
    "SE": "south-east quarter",
    "SW": "south-west quarter",
    "N": "north side",
    "E": "east side",
    "S": "south side",
    "W": "west side",
}
_CLAIMS = ("boot", "fork")


def split(move: str) -> tuple[str, str | None]:
    """A move as its action ("place 17 1,0 90", "flip 1,0 180") and its claim ("boot NE"), if
    any; a bet is left out."""
    words = move.split()
    for i, word in enumerate(words):
        if word in _CLAIMS and i + 1 < len(words):
            return " ".join(words[:i]), f"{word} {words[i + 1]}"
    action = words[: words.index("bet")] if "bet" in words else words
    return " ".join(action), None


def claim_labels(state: MarramState, legal: Iterable[str]) -> dict[str, dict[str, str]]:
    """For each action of `legal` that may carry a claim, each claim in words, keyed by the
    action and then by the claim as the notation writes it."""
    out: dict[str, dict[str, str]] = {}
    boards: dict[str, tuple[dict[Pos, Laid], Pos]] = {}
    for move in legal:
        action, claim = split(move)
        if claim is None or claim in out.get(action, {}):
            continue
        if action not in boards:
            boards[action] = _laid(state, action)
        board, pos = boards[action]
        out.setdefault(action, {})[claim] = label(board, pos, claim)
    return out


def _laid(state: MarramState, action: str) -> tuple[dict[Pos, Laid], Pos]:
    """The board with the action's tile laid as the action lays it (nothing scored yet)."""
    words = action.split()
    if words[0] == "place":
        tile, at, rotation = int(words[1]), words[2], int(words[3])
        face, face_index = state.tile(tile).front, 0
    else:
        at, rotation = words[1], int(words[2])
        tile = state.board[_pos(at)].tile
        back = state.tile(tile).back
        assert back is not None, "a legal flip turns a tile with a back"
        face, face_index = back, 1
    pos = _pos(at)
    board = dict(state.board)
    board[pos] = Laid(tile, rotation // 90, face_index, 0, face)
    return board, pos


def _pos(text: str) -> Pos:
    x, y = text.split(",")
    return int(x), int(y)


def label(board: dict[Pos, Laid], pos: Pos, claim: str) -> str:
    """One claim in words: the token, the feature it takes with its size, and where it stands;
    "completes it" when laying the tile completes that feature (the claim then scores at once)."""
    kind, loc = claim.split()
    token = TOKEN_WORDS.get(kind, kind)
    where = PLACE_WORDS.get(loc, loc)
    if loc in QUADRANT_INDEX:
        region = region_at(board, pos, QUADRANT_INDEX[loc])
        feature = f"the {REGION_WORDS[region.terrain]} of {plural(region.tiles, 'tile')}"
        complete = region.complete
    else:
        piece = board[pos].piece_at(SPOKE_INDEX[loc])
        if piece < 0:
            return f"{token} on the {where}"
        creature = creature_at(board, pos, piece)
        species = SPECIES_NAMES.get(creature.species, "creature")
        feature = f"the {species} of {plural(creature.pieces, 'piece')}"
        complete = creature.complete
    done = ", which this completes" if complete else ""
    return f"{token}: {feature}{done} ({where})"
