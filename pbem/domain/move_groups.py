"""The legal moves as a player reads them in mail: in the engine's words, the moves that do the
same thing (one tile on one spot, turned four ways, with or without a token) in one line, and
only the first few lines (the answer to a "moves" reply, `pbem.mailin.handle`; the game page
lists them all).

The words are the engine's own (`State.describe`), as the game's record will say them, with the
reader called "you"; moves are grouped by the sentence's first clause, which names what moves
and where ("You placed a sand tile with 2 flowers (#38) at (0,-1)"), so the list stays short
whatever the game.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from pbem import games

# Lines in one answer, and moves spelt out on each line; the rest are counted.
GROUPS_SHOWN = 10
MOVES_PER_GROUP = 4
# Where a sentence's first clause ends: what a move adds to it ("and captured...", ", leaving 3").
_CLAUSE_END = re.compile(r",\s|;\s|\s+and\s")


@dataclass(frozen=True)
class MoveGroup:
    """Moves that do the same thing: `words` says what, `moves` are the first few in notation,
    `more` how many others there are."""

    words: str
    moves: list[str]
    more: int = 0


@dataclass(frozen=True)
class MoveList:
    """The groups shown, and how many legal moves are not in them."""

    groups: list[MoveGroup]
    left_out: int
    total: int


def listed(state: games.State, seat: int, names: list[str], shown: int = GROUPS_SHOWN) -> MoveList:
    """The first `shown` groups of `seat`'s legal moves in `state` (the engine's sorted order),
    words filled with `names`, the seat's own name as "you"."""
    legal = state.legal_moves()
    readers = [("you" if index == seat else name) for index, name in enumerate(names)]
    # [first clause, the first move's whole sentence, the moves]
    groups: list[tuple[str, str, list[str]]] = []
    counted = 0
    for move in legal:
        sentence = _words(state, move, readers)
        clause = _first_clause(sentence)
        if groups and groups[-1][0] == clause:
            groups[-1][2].append(move)
        elif len(groups) == shown:
            break
        else:
            groups.append((clause, sentence, [move]))
        counted += 1
    made = [
        # A move alone in its group is said whole ("...and captured the 2 on b3").
        MoveGroup(
            sentence if len(moves) == 1 else clause,
            moves[:MOVES_PER_GROUP],
            max(0, len(moves) - MOVES_PER_GROUP),
        )
        for clause, sentence, moves in groups
    ]
    return MoveList(made, len(legal) - counted, len(legal))


_YOURS = re.compile(r"\b[Yy]ou's\b")


def _words(state: games.State, move: str, readers: list[str]) -> str:
    try:
        # A choice, not a record: nothing the bag decides may show (a tile drawn and discarded).
        sentence = games.fill_names(state.describe_choice(move), readers)
    except Exception:
        # An engine that cannot say a legal move in words still lists it.
        return move
    # The reader's own seat is "you": its possessive is "your", not "you's".
    sentence = _YOURS.sub(lambda m: "Your" if m.group(0)[0] == "Y" else "your", sentence)
    return sentence[:1].upper() + sentence[1:]


def _first_clause(sentence: str) -> str:
    return _CLAUSE_END.split(sentence, maxsplit=1)[0].rstrip(".")
