"""Features on the board: terrain regions and creatures, their completion, validity and value."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from pbem.games.marram.board import DELTAS, Laid, Pos

# A region node is (pos, board quadrant); a creature node is (pos, piece index on that face).
Node = tuple[Pos, int]


@dataclass(frozen=True)
class Region:
    terrain: str  # "g" or "s"
    nodes: frozenset[Node]
    closed: bool
    surrounded: bool
    tiles: int
    gold: int
    silver: int
    flowers: int

    @property
    def complete(self) -> bool:
        return self.closed and self.surrounded

    def value(self, variant: str) -> int:
        if variant == "classic":
            if self.terrain == "g":
                return 5 * self.tiles + 5 * self.gold + 3 * self.silver
            return 5 * self.tiles + 4 * self.flowers
        if self.terrain == "g":
            return 3 * self.tiles + 4 * self.gold + 2 * self.silver
        return 3 * self.tiles + 3 * self.flowers

    def end_bonus(self) -> int:
        return self.tiles + self.gold + self.silver + self.flowers


@dataclass(frozen=True)
class Creature:
    species: str
    nodes: frozenset[Node]
    spokes: frozenset[tuple[Pos, int]]  # board spokes covered, as (pos, spoke)
    complete: bool
    kinds: dict[str, int]

    @property
    def pieces(self) -> int:
        return len(self.nodes)

    @property
    def tiles(self) -> int:
        return len({pos for pos, _ in self.nodes})

    @property
    def valid(self) -> bool:
        k = self.kinds
        if self.species == "o":
            return k.get("end", 0) == 2
        if self.species == "w":
            return k.get("end", 0) == 2 and k.get("saddle", 0) == 1
        return k.get("head", 0) == 1 and k.get("tail", 0) == 1 and k.get("mid", 0) >= 1

    def value(self) -> int:
        """Value of a complete creature: its species table, or 3 for a freak beast."""
        if not self.valid:
            return 3
        k = self.kinds
        if self.species == "o":
            return k.get("end", 0) + k.get("mid", 0)
        if self.species == "w":
            return 2 * (k.get("end", 0) + k.get("saddle", 0) + k.get("mid", 0))
        return 3 * (k.get("head", 0) + k.get("tail", 0) + k.get("mid", 0))


# For quadrant q: the quadrants after and before it, the bits of spokes q and q - 1 (the spokes
# between them), and the offsets of sides q and q - 1 with the quadrant that faces q beyond each.
_WALK = tuple(
    (
        (q + 1) % 4,
        (q + 3) % 4,
        1 << q,
        1 << (q + 3) % 4,
        *DELTAS[q],
        (q + 3) % 4,
        *DELTAS[(q + 3) % 4],
        (q + 1) % 4,
    )
    for q in range(4)
)


def region_at(board: dict[Pos, Laid], pos: Pos, quadrant: int) -> Region:
    """The region holding quadrant `quadrant` (board orientation) of the tile at `pos`."""
    start = (pos, quadrant)
    seen = {start}
    stack = [start]
    closed = surrounded = True
    terrain = board[pos].face.terr[board[pos].k][quadrant]
    gold = silver = flowers = 0
    while stack:
        node = stack.pop()
        here, q = node
        x, y = here
        laid = board[here]
        face, k = laid.face, laid.k
        g, s, f = face.deco[k][q]
        gold += g
        silver += s
        flowers += f
        after, prev, on_q, on_prev, dx, dy, facing, pdx, pdy, pfacing = _WALK[q]
        # The spokes carrying a piece still on the board (Laid.piece_at, as a mask).
        on = face.piece_mask[k] & ~laid.removed
        if on & (on_q | on_prev):
            surrounded = False
        terr = face.terr[k]
        joined: list[Node] = []
        # Inside the tile: across spoke q to quadrant q+1, across spoke q-1 to quadrant q-1.
        if not on & on_q and terr[after] == terrain:
            joined.append((here, after))
        if not on & on_prev and terr[prev] == terrain:
            joined.append((here, prev))
        # Across side q (facing quadrant q+3) and side q-1 (facing quadrant q+1).
        for npos, side in (((x + dx, y + dy), facing), ((x + pdx, y + pdy), pfacing)):
            if npos in board:
                joined.append((npos, side))
            else:
                closed = False
        for other in joined:
            if other not in seen:
                seen.add(other)
                stack.append(other)
    return Region(
        terrain="gs"[terrain],
        nodes=frozenset(seen),
        closed=closed,
        surrounded=surrounded,
        tiles=len({p for p, _ in seen}),
        gold=gold,
        silver=silver,
        flowers=flowers,
    )


def creature_at(board: dict[Pos, Laid], pos: Pos, piece: int) -> Creature:
    """The creature holding piece number `piece` of the tile at `pos`."""
    start = (pos, piece)
    seen = {start}
    stack = [start]
    complete = True
    spokes: set[tuple[Pos, int]] = set()
    kinds: dict[str, int] = {}
    species = board[pos].face.pieces[piece].species
    while stack:
        (x, y), i = stack.pop()
        laid = board[(x, y)]
        p = laid.face.pieces[i]
        kinds[p.kind] = kinds.get(p.kind, 0) + 1
        for t in p.spokes:
            b = (t + laid.k) % 4
            spokes.add(((x, y), b))
            dx, dy = DELTAS[b]
            npos = (x + dx, y + dy)
            other_laid = board.get(npos)
            if other_laid is None:
                complete = False
                continue
            facing = (b + 2) % 4
            j = (
                -1
                if other_laid.removed >> facing & 1
                else other_laid.face.piece_at[other_laid.k][facing]
            )
            if j < 0:  # cannot happen on a matched board; treat as an open end
                complete = False
                continue
            other = (npos, j)
            if other not in seen:
                seen.add(other)
                stack.append(other)
    return Creature(species, frozenset(seen), frozenset(spokes), complete, kinds)


def creatures_on(board: dict[Pos, Laid], pos: Pos) -> list[Creature]:
    """Every creature with a piece on the tile at `pos`, each once, in spoke order N, E, S, W."""
    laid = board[pos]
    out: list[Creature] = []
    seen: set[Node] = set()
    for b in range(4):
        i = laid.piece_at(b)
        if i < 0 or (pos, i) in seen:
            continue
        creature = creature_at(board, pos, i)
        seen |= creature.nodes
        out.append(creature)
    return out


def complete_creatures_on(board: dict[Pos, Laid], pos: Pos) -> list[Creature]:
    """The complete creatures among `creatures_on(board, pos)`, in the same order.

    A piece on `pos` with a spoke facing an empty position belongs to an incomplete creature, so
    it is not followed at all: most creatures are incomplete, and following them is the cost.
    """
    laid = board[pos]
    face, k = laid.face, laid.k
    x, y = pos
    out: list[Creature] = []
    seen: set[Node] = set()
    on = face.piece_at[k] if not laid.removed else [laid.piece_at(b) for b in range(4)]
    for i in on:
        if i < 0 or (pos, i) in seen:
            continue
        for t in face.pieces[i].spokes:
            dx, dy = DELTAS[(t + k) % 4]
            if (x + dx, y + dy) not in board:
                break
        else:
            creature = creature_at(board, pos, i)
            seen |= creature.nodes
            if creature.complete:
                out.append(creature)
    return out


def _is_complete(board: dict[Pos, Laid], start: Node, known_open: set[Node]) -> bool:
    """Whether the region holding `start` is complete; stops at the first open side or creature.

    The search keeps its own visited set. When it finds the region incomplete, every quadrant it
    visited is added to `known_open`: they all belong to that region, so a later search reaching
    one of them has reached the same incomplete region and stops at once. (The visited set of a
    search that stopped early must never be shared as if it were finished: a later search would
    then explore only the part not yet visited, miss the open side and call the region complete.)
    """
    seen = {start}
    stack = [start]
    terrain = board[start[0]].face.terr[board[start[0]].k][start[1]]
    while stack:
        (x, y), q = stack.pop()
        laid = board[(x, y)]
        prev = (q + 3) % 4
        if laid.piece_at(q) >= 0 or laid.piece_at(prev) >= 0:
            known_open |= seen
            return False
        terr = laid.face.terr[laid.k]
        for other in (((x, y), (q + 1) % 4), ((x, y), prev)):
            if terr[other[1]] == terrain and other not in seen:
                if other in known_open:
                    known_open |= seen
                    return False
                seen.add(other)
                stack.append(other)
        for d, facing in ((q, (q + 3) % 4), (prev, (q + 1) % 4)):
            dx, dy = DELTAS[d]
            npos = (x + dx, y + dy)
            if npos not in board:
                known_open |= seen
                return False
            other = (npos, facing)
            if other not in seen:
                if other in known_open:
                    known_open |= seen
                    return False
                seen.add(other)
                stack.append(other)
    return True


def complete_regions_at(board: dict[Pos, Laid], nodes: Iterable[Node]) -> list[Region]:
    """The distinct complete regions holding the given quadrant nodes, in the order first met.

    Each start point gets a search of its own; starts inside a region already found complete,
    or already seen to be incomplete, are skipped.
    """
    out: list[Region] = []
    done: set[Node] = set()  # quadrants of the complete regions found
    known_open: set[Node] = set()  # quadrants of regions found incomplete
    for node in nodes:
        if node in done or node in known_open or node[0] not in board:
            continue
        if _is_complete(board, node, known_open):
            region = region_at(board, node[0], node[1])
            done |= region.nodes
            out.append(region)
    return out


def majority(counts: Sequence[int]) -> list[int]:
    """Seats holding the most tokens (all tied seats); empty when nobody has any."""
    best = max(counts)
    if best <= 0:
        return []
    return [seat for seat, c in enumerate(counts) if c == best]
