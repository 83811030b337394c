"""Marram tiles: the description format of rules 1.5, validation, rotation and the standard set.

Indices used everywhere in the engine: spokes N=0, E=1, S=2, W=3 and quadrants NW=0, NE=1,
SE=2, SW=3. Spoke k separates quadrants k and k+1; side k of a tile holds quadrants k and k+1 with
spoke k at its middle; a 90-degree turn adds 1 to every spoke and quadrant index. Faces precompute
everything per rotation so the hot paths only index tuples.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache
from importlib import resources
from typing import Any

SPOKES = ("N", "E", "S", "W")
QUADRANTS = ("NW", "NE", "SE", "SW")
SPOKE_INDEX = {name: i for i, name in enumerate(SPOKES)}
QUADRANT_INDEX = {name: i for i, name in enumerate(QUADRANTS)}
TERRAINS = ("g", "s")
TERRAIN_NAMES = {"g": "grass", "s": "sand"}
SPECIES = ("o", "b", "w")
SPECIES_NAMES = {"o": "orange snake", "b": "blue snake", "w": "worm"}
# Species code used in side profiles: 0 means the spoke carries nothing.
SPECIES_CODE = {"o": 1, "b": 2, "w": 3}
KINDS: dict[str, tuple[str, ...]] = {
    "o": ("end", "mid"),
    "w": ("end", "mid", "saddle"),
    "b": ("head", "tail", "mid"),
}
ONE_SPOKE_KINDS = frozenset({"end", "head", "tail"})
METALS = ("gold", "silver")
ANIMALS = ("fly", "frog")
DESCRIPTION_KEYS = frozenset({"q", "pieces", "coins", "flowers", "prey", "back"})


_FIT_TABLES: dict[tuple[int, ...], dict[int, tuple[int, ...]]] = {}


def _fit_table(packed: tuple[int, ...]) -> dict[int, tuple[int, ...]]:
    """Every requirement a face with these packed sides meets, with the rotations that meet it.

    A requirement holds, for each side with a neighbour, the code that side must show, and 0
    elsewhere; so the requirements rotation k meets are its packed sides masked to each of the
    16 sets of sides that have a neighbour. Anything missing fits in no rotation.
    """
    table: dict[int, list[int]] = {}
    for present in range(16):
        mask = sum(31 << (5 * d) for d in range(4) if present >> d & 1)
        for k, row in enumerate(packed):
            table.setdefault(row & mask, []).append(k)
    return {req: tuple(rots) for req, rots in table.items()}


def side_code(t1: int, species: int, t2: int) -> int:
    """A side read clockwise: first quadrant's terrain, spoke species, second terrain."""
    return t1 | (species << 1) | (t2 << 3)


def reverse_code(code: int) -> int:
    """The code a facing side must show: the same side read from the other tile."""
    return ((code >> 3) & 1) | (code & 6) | ((code & 1) << 3)


@dataclass(frozen=True)
class Piece:
    species: str
    kind: str
    spokes: tuple[int, ...]  # tile orientation, ascending (N, E, S, W order)

    def text(self) -> str:
        return f"{self.species}:{self.kind}:{'-'.join(SPOKES[s] for s in self.spokes)}"


@dataclass(frozen=True, eq=False)
class Face:
    """One side of a tile, with per-rotation lookup tables (index k = rotation / 90)."""

    q: tuple[str, str, str, str]
    pieces: tuple[Piece, ...]
    coins: tuple[tuple[int, str], ...]
    flowers: tuple[int, ...]
    prey: tuple[tuple[int, str], ...]
    # [k][side] side code in board orientation.
    sides: tuple[tuple[int, ...], ...] = field(init=False)
    # [k][board spoke] index of the piece covering it, or -1.
    piece_at: tuple[tuple[int, ...], ...] = field(init=False)
    # [k][board quadrant] terrain code 0 grass / 1 sand.
    terr: tuple[tuple[int, ...], ...] = field(init=False)
    # [k][board quadrant] (gold, silver, flowers).
    deco: tuple[tuple[tuple[int, int, int], ...], ...] = field(init=False)
    # [k][board spoke] prey animal or "".
    prey_at: tuple[tuple[str, ...], ...] = field(init=False)
    # [k] board spokes carrying a piece, as a bit mask.
    piece_mask: tuple[int, ...] = field(init=False)
    sig: tuple[int, ...] = field(init=False)
    _suffixes: dict[tuple[int, str, bool, bool, bool], tuple[str, ...]] = field(
        init=False, repr=False
    )
    _tails: dict[tuple[tuple[int, ...], str, bool, bool, bool], tuple[str, ...]] = field(
        init=False, repr=False
    )
    _req_tails: dict[tuple[str, bool, bool, bool], _TailsByRequirement] = field(
        init=False, repr=False
    )
    # Packed requirement -> fitting rotations, complete (a requirement not in it fits in no
    # rotation); shared by every face with the same side profile.
    fit_cache: dict[int, tuple[int, ...]] = field(init=False, repr=False)
    # [k] the four side codes packed like a requirement (see board.Req).
    packed: tuple[int, ...] = field(init=False, repr=False)
    # [k][side] what this face in rotation k asks of the open position beyond that side: the
    # code the facing side must show, packed in that position's requirement (see board.Req).
    facing: tuple[tuple[int, ...], ...] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        terr0 = tuple(TERRAINS.index(t) for t in self.q)
        piece0 = [-1, -1, -1, -1]
        for i, piece in enumerate(self.pieces):
            for s in piece.spokes:
                piece0[s] = i
        prey0 = ["", "", "", ""]
        for s, animal in self.prey:
            prey0[s] = animal
        deco0 = []
        for quad in range(4):
            gold = sum(1 for q, m in self.coins if q == quad and m == "gold")
            silver = sum(1 for q, m in self.coins if q == quad and m == "silver")
            deco0.append((gold, silver, self.flowers.count(quad)))
        sides, piece_at, terr, deco, prey_at, masks = [], [], [], [], [], []
        for k in range(4):
            t = tuple(terr0[(b - k) % 4] for b in range(4))
            p = tuple(piece0[(b - k) % 4] for b in range(4))
            terr.append(t)
            piece_at.append(p)
            deco.append(tuple(deco0[(b - k) % 4] for b in range(4)))
            prey_at.append(tuple(prey0[(b - k) % 4] for b in range(4)))
            masks.append(sum(1 << b for b in range(4) if p[b] >= 0))
            sides.append(
                tuple(
                    side_code(
                        t[d],
                        SPECIES_CODE[self.pieces[p[d]].species] if p[d] >= 0 else 0,
                        t[(d + 1) % 4],
                    )
                    for d in range(4)
                )
            )
        object.__setattr__(self, "sides", tuple(sides))
        object.__setattr__(self, "piece_at", tuple(piece_at))
        object.__setattr__(self, "terr", tuple(terr))
        object.__setattr__(self, "deco", tuple(deco))
        object.__setattr__(self, "prey_at", tuple(prey_at))
        object.__setattr__(self, "piece_mask", tuple(masks))
        object.__setattr__(self, "sig", sides[0])
        object.__setattr__(self, "_suffixes", {})
        object.__setattr__(self, "_tails", {})
        object.__setattr__(self, "_req_tails", {})
        packed = tuple(sum((code + 1) << (5 * d) for d, code in enumerate(row)) for row in sides)
        object.__setattr__(self, "packed", packed)
        table = _FIT_TABLES.get(self.sig)
        if table is None:
            table = _FIT_TABLES[self.sig] = _fit_table(packed)
        object.__setattr__(self, "fit_cache", table)
        object.__setattr__(
            self,
            "facing",
            tuple(
                tuple((reverse_code(row[d]) + 1) << (5 * ((d + 2) % 4)) for d in range(4))
                for row in sides
            ),
        )

    def species_at(self, k: int, spoke: int) -> str:
        """Species carried by a board spoke in rotation k ("" when none)."""
        i = self.piece_at[k][spoke]
        return self.pieces[i].species if i >= 0 else ""

    def suffixes(
        self, k: int, variant: str, boots: bool, forks: bool, bets: bool
    ) -> tuple[str, ...]:
        """Every claim/bet ending of a move laying this face in rotation k, in move notation."""
        key = (k, variant, boots, forks, bets)
        found = self._suffixes.get(key)
        if found is not None:
            return found
        claims = [""]
        if boots:
            claims += [f" boot {q}" for q in QUADRANTS]
        spoke_kind = "boot" if variant == "classic" else "fork"
        if boots if variant == "classic" else forks:
            claims += [f" {spoke_kind} {SPOKES[b]}" for b in range(4) if self.piece_at[k][b] >= 0]
        endings = list(claims)
        if bets and variant == "animals":
            for b in range(4):
                if self.prey_at[k][b]:
                    endings += [f"{c} bet {SPOKES[b]}" for c in claims]
        result = tuple(endings)
        self._suffixes[key] = result
        return result

    def tails(
        self, rots: tuple[int, ...], variant: str, boots: bool, forks: bool, bets: bool
    ) -> tuple[str, ...]:
        """Every rotation in `rots` with every ending (see `suffixes`), sorted as the ends of
        moves sharing one prefix sort: "0", "0 boot NE", …, "90 …"."""
        key = (rots, variant, boots, forks, bets)
        found = self._tails.get(key)
        if found is None:
            found = self._tails[key] = tuple(
                sorted(
                    f"{k * 90}{e}"
                    for k in rots
                    for e in self.suffixes(k, variant, boots, forks, bets)
                )
            )
        return found

    def tails_by_requirement(
        self, variant: str, boots: bool, forks: bool, bets: bool
    ) -> dict[int, tuple[str, ...]]:
        """`tails` of the fitting rotations by requirement, for any requirement this face
        meets (see `fit_cache`); filled as they are asked for."""
        key = (variant, boots, forks, bets)
        found = self._req_tails.get(key)
        if found is None:
            found = self._req_tails[key] = _TailsByRequirement(self, key)
        return found

    def description(self) -> dict[str, Any]:
        """The canonical 1.5 description (without `back`)."""
        out: dict[str, Any] = {"q": "".join(self.q)}
        if self.pieces:
            out["pieces"] = [p.text() for p in self.pieces]
        if self.coins:
            out["coins"] = [[QUADRANTS[q], m] for q, m in self.coins]
        if self.flowers:
            out["flowers"] = [QUADRANTS[q] for q in self.flowers]
        if self.prey:
            out["prey"] = [[SPOKES[s], a] for s, a in self.prey]
        return out


class _TailsByRequirement(dict[int, tuple[str, ...]]):
    """A face's `tails` by requirement for one variant and supply: a dict, so that a lookup of
    one already found costs no call."""

    def __init__(self, face: Face, key: tuple[str, bool, bool, bool]) -> None:
        super().__init__()
        self.face = face
        self.key = key

    def __missing__(self, req: int) -> tuple[str, ...]:
        found = self[req] = self.face.tails(self.face.fit_cache[req], *self.key)
        return found


@dataclass(frozen=True, eq=False)
class Tile:
    front: Face
    back: Face | None

    def description(self) -> dict[str, Any]:
        out = self.front.description()
        if self.back is not None:
            out["back"] = self.back.description()
        return out


def _fail(where: str, problem: str) -> ValueError:
    return ValueError(f"{where}: {problem}")


def _parse_piece(text: Any, where: str) -> Piece:
    if not isinstance(text, str) or text.count(":") != 2:
        raise _fail(where, f"piece {text!r} is not written species:kind:spokes")
    species, kind, spokes_text = (part.strip() for part in text.split(":"))
    if species not in KINDS:
        raise _fail(where, f"piece {text!r} has unknown species {species!r} (use o, b or w)")
    if kind not in KINDS[species]:
        allowed = ", ".join(KINDS[species])
        raise _fail(
            where,
            f"piece {text!r}: kind {kind!r} does not belong to the {SPECIES_NAMES[species]} "
            f"(allowed: {allowed})",
        )
    names = [s.strip().upper() for s in spokes_text.split("-")] if spokes_text else []
    for name in names:
        if name not in SPOKE_INDEX:
            raise _fail(where, f"piece {text!r} names unknown spoke {name!r} (use N, E, S, W)")
    spokes = sorted(SPOKE_INDEX[n] for n in names)
    wanted = 1 if kind in ONE_SPOKE_KINDS else 2
    if len(spokes) != wanted:
        raise _fail(
            where,
            f"piece {text!r}: a {kind} covers {wanted} spoke{'s' if wanted > 1 else ''}, "
            f"not {len(spokes)}",
        )
    if len(set(spokes)) != len(spokes):
        raise _fail(where, f"piece {text!r} covers the same spoke twice")
    return Piece(species, kind, tuple(spokes))


def _as_list(data: Mapping[str, Any], key: str, where: str) -> list[Any]:
    value = data.get(key, [])
    if not isinstance(value, list | tuple):
        raise _fail(where, f"{key!r} must be a list, not {value!r}")
    return list(value)


def _quadrant(name: Any, where: str, what: str) -> int:
    key = name.strip().upper() if isinstance(name, str) else name
    if key not in QUADRANT_INDEX:
        raise _fail(where, f"{what} names unknown quadrant {name!r} (use NW, NE, SE, SW)")
    return QUADRANT_INDEX[key]


def parse_face(data: Any, where: str = "tile") -> Face:
    """One face from its description; `back` is handled by `parse_tile`."""
    if not isinstance(data, Mapping):
        raise _fail(where, f"a tile description must be a JSON object, not {data!r}")
    unknown = sorted(set(data) - DESCRIPTION_KEYS)
    if unknown:
        raise _fail(where, f"unknown key(s) {', '.join(map(repr, unknown))}")
    q = data.get("q")
    if not isinstance(q, str) or len(q) != 4 or any(c not in TERRAINS for c in q.lower()):
        raise _fail(where, f"'q' must be four letters g or s (NW, NE, SE, SW), not {q!r}")
    quads = tuple(q.lower())
    pieces = [_parse_piece(p, where) for p in _as_list(data, "pieces", where)]
    used: dict[int, Piece] = {}
    for piece in pieces:
        for s in piece.spokes:
            if s in used:
                raise _fail(
                    where,
                    f"pieces {used[s].text()!r} and {piece.text()!r} share spoke {SPOKES[s]}",
                )
            used[s] = piece
    coins = []
    for coin in _as_list(data, "coins", where):
        if not isinstance(coin, list | tuple) or len(coin) != 2:
            raise _fail(where, f"coin {coin!r} must be [quadrant, gold|silver]")
        quad = _quadrant(coin[0], where, f"coin {list(coin)!r}")
        metal = str(coin[1]).strip().lower()
        if metal not in METALS:
            raise _fail(where, f"coin {list(coin)!r} must be gold or silver")
        if quads[quad] != "g":
            raise _fail(where, f"coin {list(coin)!r} lies on sand; coins lie on grass")
        coins.append((quad, metal))
    flowers = []
    for flower in _as_list(data, "flowers", where):
        quad = _quadrant(flower, where, f"flower {flower!r}")
        if quads[quad] != "s":
            raise _fail(where, f"flower on {QUADRANTS[quad]} lies on grass; flowers lie on sand")
        flowers.append(quad)
    prey = []
    seen: set[int] = set()
    for item in _as_list(data, "prey", where):
        if not isinstance(item, list | tuple) or len(item) != 2:
            raise _fail(where, f"prey {item!r} must be [spoke, fly|frog]")
        name = item[0].strip().upper() if isinstance(item[0], str) else item[0]
        if name not in SPOKE_INDEX:
            raise _fail(where, f"prey {list(item)!r} names unknown spoke {item[0]!r}")
        spoke = SPOKE_INDEX[name]
        animal = str(item[1]).strip().lower()
        if animal not in ANIMALS:
            raise _fail(where, f"prey {list(item)!r} must be a fly or a frog")
        if spoke not in used or used[spoke].species not in ("o", "b"):
            raise _fail(
                where,
                f"prey {list(item)!r} names spoke {name}, which carries no orange or blue snake",
            )
        if spoke in seen:
            raise _fail(where, f"two prey name spoke {name}")
        seen.add(spoke)
        prey.append((spoke, animal))
    return Face(
        q=(quads[0], quads[1], quads[2], quads[3]),
        pieces=tuple(pieces),
        coins=tuple(coins),
        flowers=tuple(flowers),
        prey=tuple(prey),
    )


def parse_tile(data: Any, where: str = "tile", start: bool = False) -> Tile:
    """A tile from its 1.5 description; raises ValueError naming the problem."""
    front = parse_face(data, where)
    back = None
    if isinstance(data, Mapping) and data.get("back") is not None:
        if start:
            raise _fail(where, "the start tile cannot have a back (it shows no shovel)")
        raw = data["back"]
        if isinstance(raw, Mapping) and "back" in raw:
            raise _fail(where, "a back cannot have its own back")
        back = parse_face(raw, f"{where} (back)")
    return Tile(front, back)


def parse_tiles(data: Any, where: str = "deck") -> list[Tile]:
    if not isinstance(data, list | tuple):
        raise ValueError(f"{where}: must be a list of tile descriptions, not {data!r}")
    return [parse_tile(item, f"{where} tile {i + 1}") for i, item in enumerate(data)]


@cache
def _standard_data() -> dict[str, Any]:
    text = resources.files("pbem.games.marram").joinpath("data/standard.json").read_text("utf-8")
    data: dict[str, Any] = json.loads(text)
    return data


@cache
def standard_start() -> Tile:
    return parse_tile(_standard_data()["start"], "standard start tile", start=True)


@cache
def standard_tiles() -> tuple[Tile, ...]:
    return tuple(parse_tiles(_standard_data()["tiles"], "standard set"))


def descriptions(tiles: Sequence[Tile]) -> list[dict[str, Any]]:
    return [t.description() for t in tiles]
