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
from pbem.games.marram.tiles import QUADRANT_INDEX, SPOKE_INDEX
from pbem.games.marram.words import TOKEN_NAMES, creature_message
from pbem.games.messages import ENGLISH, N_, Language

# Where on the tile a claim stands, as the rules page's pictures call it.
PLACE_WORDS = {
    "NW": N_("north-west quarter"),
    "NE": N_("north-east quarter"),
    "SE": N_("south-east quarter"),
    "SW": N_("south-west quarter"),
    "N": N_("north side"),
    "E": N_("east side"),
    "S": N_("south side"),
    "W": N_("west side"),
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


def claim_labels(
    state: MarramState, legal: Iterable[str], lang: Language = ENGLISH
) -> dict[str, dict[str, str]]:
    """For each action of `legal` that may carry a claim, each claim in words (in `lang`), keyed
    by the action and then by the claim as the notation writes it."""
    out: dict[str, dict[str, str]] = {}
    boards: dict[str, tuple[dict[Pos, Laid], Pos]] = {}
    for move in legal:
        action, claim = split(move)
        if claim is None or claim in out.get(action, {}):
            continue
        if action not in boards:
            boards[action] = _laid(state, action)
        board, pos = boards[action]
        out.setdefault(action, {})[claim] = label(board, pos, claim, lang)
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


def label(board: dict[Pos, Laid], pos: Pos, claim: str, lang: Language = ENGLISH) -> str:
    """One claim in words: the token, the feature it takes with its size, and where it stands;
    "completes it" when laying the tile completes that feature (the claim then scores at once)."""
    kind, loc = claim.split()
    token = lang(TOKEN_NAMES[kind]) if kind in TOKEN_NAMES else kind
    where = lang(PLACE_WORDS[loc]) if loc in PLACE_WORDS else loc
    if loc in QUADRANT_INDEX:
        region = region_at(board, pos, QUADRANT_INDEX[loc])
        if region.terrain == "g":
            feature = lang.counted(
                "the grass tuft of %(n)s tile", "the grass tuft of %(n)s tiles", region.tiles
            )
        else:
            feature = lang.counted(
                "the sand mound of %(n)s tile", "the sand mound of %(n)s tiles", region.tiles
            )
        complete = region.complete
    else:
        piece = board[pos].piece_at(SPOKE_INDEX[loc])
        if piece < 0:
            return lang("%(token)s on the %(place)s", token=token, place=where)
        creature = creature_at(board, pos, piece)
        species = creature_message(creature.species, article="the").say(lang)
        feature = lang.counted(
            "%(creature)s of %(n)s piece",
            "%(creature)s of %(n)s pieces",
            creature.pieces,
            creature=species,
        )
        complete = creature.complete
    if complete:
        return lang(
            "%(token)s: %(feature)s, which this completes (%(place)s)",
            token=token,
            feature=feature,
            place=where,
        )
    return lang("%(token)s: %(feature)s (%(place)s)", token=token, feature=feature, place=where)
