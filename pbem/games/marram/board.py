"""The Marram grid: laid tiles, matching, the frontier of open positions and legal rotations.

A board is a plain dict `(x, y) -> Laid`, copied shallowly on every action. The frontier maps
each empty position touching a laid tile to its requirement: for each side N, E, S, W the side
code a tile must show there (-1 when nothing is laid beyond). Requirements change only next to the
acted tile, and there only on the side facing it, so the frontier and its groups by requirement
are kept incrementally; a face's complete table of the requirements it meets (Face.fit_cache)
makes a fit one lookup, and the requirements a tile meets anywhere one set intersection.
"""

from __future__ import annotations

from typing import NamedTuple

from pbem.games.marram.tiles import SPECIES, SPOKES, TERRAINS, Face, reverse_code
from pbem.games.marram.words import CREATURE, GROUND_NAMES
from pbem.games.messages import N_, Message

Pos = tuple[int, int]
# A requirement packs, for sides N, E, S, W, (side code + 1) in 5 bits each; 0 means "no
# neighbour". An int hashes and compares faster than a tuple on the hot path.
Req = int
# Neighbour offsets for sides N, E, S, W.
DELTAS: tuple[Pos, Pos, Pos, Pos] = ((0, 1), (1, 0), (0, -1), (-1, 0))
SIDE_NAMES = (N_("north"), N_("east"), N_("south"), N_("west"))
ROTATIONS = (0, 90, 180, 270)
NO_REQ: Req = 0
# Open positions by what they require, in no particular order, each written as in a move
# ("x,y " with its space: see `where`), which is all the legal moves need of them.
Groups = dict[Req, tuple[str, ...]]


def unpack(req: Req) -> tuple[int, int, int, int]:
    """Side codes required on N, E, S, W (-1 where nothing is laid)."""
    return (
        (req & 31) - 1,
        (req >> 5 & 31) - 1,
        (req >> 10 & 31) - 1,
        (req >> 15 & 31) - 1,
    )


class Laid(NamedTuple):
    """A tile on the board: id, rotation index (0-3), face (0 front, 1 back), removed spokes."""

    tile: int
    k: int
    face_index: int
    removed: int  # board spokes whose pieces left the board, as a bit mask
    face: Face

    def side(self, d: int) -> int:
        code = self.face.sides[self.k][d]
        if self.removed >> d & 1:
            code &= ~6
        return code

    def piece_at(self, spoke: int) -> int:
        """Index of the piece on a board spoke, or -1 (also when it left the board)."""
        if self.removed >> spoke & 1:
            return -1
        return self.face.piece_at[self.k][spoke]


def neighbour(pos: Pos, d: int) -> Pos:
    dx, dy = DELTAS[d]
    return (pos[0] + dx, pos[1] + dy)


def requirement(board: dict[Pos, Laid], pos: Pos) -> Req:
    """What a tile at `pos` must show on each side to match the laid neighbours."""
    x, y = pos
    req = 0
    # A neighbour's face knows what it asks of each side (Face.facing), unless pieces of it
    # left the board: then its side is read again.
    n = board.get((x, y + 1))
    if n is not None:
        req = n.face.facing[n.k][2] if not n.removed else reverse_code(n.side(2)) + 1
    n = board.get((x + 1, y))
    if n is not None:
        req |= n.face.facing[n.k][3] if not n.removed else reverse_code(n.side(3)) + 1 << 5
    n = board.get((x, y - 1))
    if n is not None:
        req |= n.face.facing[n.k][0] if not n.removed else reverse_code(n.side(0)) + 1 << 10
    n = board.get((x - 1, y))
    if n is not None:
        req |= n.face.facing[n.k][1] if not n.removed else reverse_code(n.side(1)) + 1 << 15
    return req


def fits(face: Face, req: Req) -> tuple[int, ...]:
    """Rotation indices (0-3) in which `face` meets the requirement."""
    return face.fit_cache.get(req, ())


def mismatches(face: Face, k: int, packed: Req) -> list[Message]:
    """Plain words for every side where `face` in rotation k fails the requirement."""
    out = []
    req = unpack(packed)
    for d in range(4):
        if req[d] >= 0 and face.sides[k][d] != req[d]:
            out.append(
                Message(
                    "on the %(side)s side (%(spoke)s) the tile shows %(shows)s (read clockwise) "
                    "but must show %(needs)s to match its neighbour",
                    side=Message(SIDE_NAMES[d]),
                    spoke=SPOKES[d],
                    shows=side_words(face.sides[k][d]),
                    needs=side_words(req[d]),
                )
            )
    return out


def side_words(code: int) -> Message:
    """What a side code shows, read clockwise: "grass, blue snake, sand"."""
    species = (code >> 1) & 3
    creature = Message(N_("nothing") if species == 0 else CREATURE[SPECIES[species - 1]])
    return Message(
        "%(left)s, %(middle)s, %(right)s",
        left=Message(GROUND_NAMES[TERRAINS[code & 1]]),
        middle=creature,
        right=Message(GROUND_NAMES[TERRAINS[(code >> 3) & 1]]),
    )


def build_frontier(board: dict[Pos, Laid]) -> dict[Pos, Req]:
    frontier: dict[Pos, Req] = {}
    for pos in board:
        for d in range(4):
            n = neighbour(pos, d)
            if n not in board and n not in frontier:
                frontier[n] = requirement(board, n)
    return dict(sorted(frontier.items()))


def refresh_frontier(
    board: dict[Pos, Laid],
    frontier: dict[Pos, Req],
    groups: Groups,
    pos: Pos,
    changed: list[tuple[Pos, Req | None]],
) -> None:
    """Update `frontier` and its `groups` in place after the tile at `pos` was laid or changed;
    add to `changed` each position whose requirement changed, with the one before (None when it
    was not open).

    Both are the caller's own copies; the groups' tuples are shared with other states and
    replaced, never changed.
    """
    old = frontier.pop(pos, None)
    if old is not None:
        _ungroup(groups, old, _WHERE.get(pos) or where(pos))
        changed.append((pos, old))
    laid = board[pos]
    toward = laid.face.facing[laid.k]
    x, y = pos
    d = -1
    for n in ((x, y + 1), (x + 1, y), (x, y - 1), (x - 1, y)):
        d += 1
        if n in board:
            continue
        was = frontier.get(n)
        if laid.removed:
            req = requirement(board, n)
        elif was is None:
            req = toward[d]  # its only laid neighbour is the tile at pos
        else:
            # Only the side facing pos changed.
            req = was & _OTHER_SIDES[d] | toward[d]
        if was != req:
            changed.append((n, was))
            text = _WHERE.get(n) or where(n)
            if was is not None:
                _ungroup(groups, was, text)
            groups[req] = (*groups.get(req, ()), text)
            frontier[n] = req


# For the position beyond side d of a tile: the bits of its requirement that do not face the tile.
_OTHER_SIDES = tuple(~(31 << 5 * ((d + 2) % 4)) for d in range(4))


def where(pos: Pos) -> str:
    """A position as moves write it, with the space after it: "3,-1 "."""
    text = _WHERE.get(pos)
    if text is None:
        text = _WHERE[pos] = f"{pos[0]},{pos[1]} "
    return text


# `where` of the positions met so far: a board spans at most a tile set's width around the
# start, so this stays small.
_WHERE: dict[Pos, str] = {}


def _ungroup(groups: Groups, req: Req, text: str) -> None:
    members = groups[req]
    if len(members) == 1:
        del groups[req]
    else:
        i = members.index(text)
        groups[req] = members[:i] + members[i + 1 :]


def group_frontier(frontier: dict[Pos, Req]) -> Groups:
    groups: dict[Req, list[str]] = {}
    for pos, req in frontier.items():
        groups.setdefault(req, []).append(where(pos))
    return {req: tuple(members) for req, members in groups.items()}


def fits_anywhere(face: Face, groups: Groups) -> bool:
    return not groups.keys().isdisjoint(face.fit_cache.keys())
