"""The Marram state: turns of two actions, claims and bets, scoring, dead tiles and the end.

Every public method leaves the state alone; `play` validates on the old state, then builds the new
one by copying the (small, flat) containers it changes in place and sharing the others, which are
replaced rather than changed (see `_clone`). Random playouts and searches call `legal_moves()` and
then `play` one of them: a listed move is played without being read again, and a second action's
legal moves are the first action's, brought up to date (`_regenerate`).
"""

from __future__ import annotations

import random
from bisect import bisect_left
from collections.abc import KeysView, Mapping
from dataclasses import dataclass, field, replace
from functools import cached_property
from typing import Any, NamedTuple

from pbem.games.base import JSON, SAID, IllegalMove, Outcome, Summary, check_unsettled, shorten
from pbem.games.marram import board as bd
from pbem.games.marram import words
from pbem.games.marram import worth as fitted
from pbem.games.marram.board import Laid, Pos, Req
from pbem.games.marram.features import (
    Creature,
    Region,
    complete_creatures_on,
    complete_regions_at,
    creature_at,
    majority,
    region_at,
)
from pbem.games.marram.notation import ROTATION_WORDS, Move, parse
from pbem.games.marram.tiles import (
    QUADRANT_INDEX,
    QUADRANTS,
    SPOKE_INDEX,
    SPOKES,
    Face,
    Tile,
    parse_tile,
    parse_tiles,
    standard_start,
    standard_tiles,
)
from pbem.games.messages import Message

VARIANTS = ("classic", "pitchfork", "animals")
LENGTHS = ("short", "long")
HAND_SIZE = 3
ACTIONS_PER_TURN = 2
BOOT, FORK, SHOVEL, BET = 0, 1, 2, 3
SUPPLY_NAMES = ("boots", "forks", "shovels", "bets")
KIND_INDEX = {"boot": BOOT, "fork": FORK, "bet": BET}
# boots, forks, shovels, bets (rules section 4).
SUPPLIES = {"classic": (7, 0, 3, 0), "pitchfork": (5, 3, 3, 0), "animals": (5, 3, 3, 2)}
# Short-game thresholds for 2, 3 and 4 players (rules section 6).
THRESHOLDS = {"classic": (80, 60, 50), "pitchfork": (120, 90, 60), "animals": (120, 90, 60)}
PREY_POINTS = {"fly": 5, "frog": 7}
VARIANT_NAMES = {"classic": "Classic", "pitchfork": "Pitchfork", "animals": "Animals"}


# What a seat's legal moves depend on besides the board and its hand: whether it has boots,
# forks, bets and shovels left.
Flags = tuple[bool, bool, bool, bool]
# The legal moves of the position a second action is played from, with that seat's flags and
# the tile it placed (-1 for a flip): see MarramState._regenerate.
Base = tuple[list[str], Flags, int]


# NamedTuple(...) goes through a generated Python __new__; tuple.__new__(cls, values) makes the
# same object without it, on the paths every action takes.
_new = tuple.__new__


class Token(NamedTuple):
    seat: int
    kind: str  # "boot", "fork" or "bet"
    pos: Pos
    loc: str  # quadrant or spoke name in board orientation


@dataclass(frozen=True, eq=False)
class Setup:
    """What stays fixed for a whole game."""

    players: int
    variant: str
    length: str
    seed: int
    start: dict[str, Any] | None  # canonical description when given as an option
    deck: list[dict[str, Any]] | None
    tiles: tuple[Tile, ...]  # index = tile id; 0 is the start tile
    # By tile id: the requirements its front meets (its Face.fit_cache keys), for the hot paths.
    fronts: tuple[KeysView[int], ...] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "fronts", tuple(t.front.fit_cache.keys() for t in self.tiles))

    @cached_property
    def seedless(self) -> Setup:
        """This setup without its seed, for positions sampled from a seat's view."""
        return self if self.seed == 0 else replace(self, seed=0)

    @property
    def threshold(self) -> int | None:
        if self.length == "long":
            return None
        return THRESHOLDS[self.variant][self.players - 2]


def make_setup(
    players: int,
    variant: str,
    length: str,
    seed: int,
    start: Any = None,
    deck: Any = None,
) -> Setup:
    start_tile = standard_start() if start is None else parse_tile(start, "start", start=True)
    deck_tiles = list(standard_tiles()) if deck is None else parse_tiles(deck, "deck")
    return Setup(
        players=players,
        variant=variant,
        length=length,
        seed=seed,
        start=None if start is None else start_tile.description(),
        deck=None if deck is None else [t.description() for t in deck_tiles],
        tiles=(start_tile, *deck_tiles),
    )


class MarramState:
    """A Marram position (see the engine contract in pbem.games.base)."""

    __slots__ = (
        "_base",
        "_flip_cache",
        "_flipped",
        "_legal",
        "_opened",
        "_removed",
        "actions_left",
        "bag",
        "board",
        "discarded",
        "dropped_list",
        "flippable",
        "flips",
        "frontier",
        "frontier_groups",
        "hands",
        "history_list",
        "log",
        "lost",
        "outcome_value",
        "score_list",
        "setup",
        "supplies",
        "to_move_seat",
        "tokens",
    )

    setup: Setup
    board: dict[Pos, Laid]
    frontier: dict[Pos, Req]
    frontier_groups: bd.Groups  # the frontier by requirement, kept with it
    flippable: frozenset[Pos]
    # The flippable tiles whose back fits, with its fitting rotations; kept up to date by every
    # action (see _refresh_flips), shared until it changes.
    flips: dict[Pos, tuple[int, ...]]
    tokens: list[Token]
    supplies: list[list[int]]
    lost: list[list[int]]
    score_list: list[int]
    hands: list[list[int]]
    bag: list[int]
    discarded: list[int]
    dropped_list: list[int]  # seats that left the game, in the order they left
    to_move_seat: int | None
    actions_left: int
    history_list: list[str]
    log: list[dict[str, Any]]
    outcome_value: Outcome | None
    _legal: list[str] | None
    _base: Base | None
    # (flips, supply flags, the flip moves): see _flip_moves. Never changed, shared by children.
    _flip_cache: tuple[dict[Pos, tuple[int, ...]], tuple[bool, bool, bool], list[str]] | None
    # What the action that made this state changed: open positions (with the requirement each
    # had before, None when it was not open) and flips (with the rotations before, () for none).
    _opened: list[tuple[Pos, Req | None]]
    _flipped: list[tuple[Pos, tuple[int, ...]]]
    _removed: list[tuple[Pos, int]]  # board spokes whose pieces the action being played removed

    # -- construction -------------------------------------------------------------------------

    @classmethod
    def new(cls, setup: Setup) -> MarramState:
        state = cls.__new__(cls)
        state.setup = setup
        start = setup.tiles[0]
        state.board = {(0, 0): Laid(0, 0, 0, 0, start.front)}
        state.frontier = bd.build_frontier(state.board)
        state.frontier_groups = bd.group_frontier(state.frontier)
        state.flippable = frozenset()
        state.flips = {}
        state.tokens = []
        supply = SUPPLIES[setup.variant]
        state.supplies = [list(supply) for _ in range(setup.players)]
        state.lost = [[0, 0, 0, 0] for _ in range(setup.players)]
        state.score_list = [0] * setup.players
        bag = list(range(1, len(setup.tiles)))
        if setup.deck is None:
            random.Random(setup.seed).shuffle(bag)
        state.bag = bag
        state.hands = []
        for _ in range(setup.players):
            state.hands.append(bag[:HAND_SIZE])
            del bag[:HAND_SIZE]
        state.discarded = []
        state.dropped_list = []
        state.to_move_seat = 0
        state.actions_left = ACTIONS_PER_TURN
        state.history_list = []
        state.log = []
        state.outcome_value = None
        state._base = None
        state._flip_cache = None
        state._reset_caches()
        state._prepare()
        return state

    def _reset_caches(self) -> None:
        self._legal = None

    def _clone(self) -> MarramState:
        new = MarramState.__new__(MarramState)
        new.setup = self.setup
        # dict.copy, not dict(): it clones the table even after deletions (dict() then
        # inserts key by key).
        new.board = self.board.copy()
        new.frontier = self.frontier.copy()
        new.frontier_groups = self.frontier_groups.copy()
        new.flippable = self.flippable
        # Tokens, lost, bag, discarded, dropped, each hand and each seat's supply are shared until
        # replaced (never changed in place); the rest changes in place and is copied.
        new.tokens = self.tokens
        new.supplies = list(self.supplies)
        new.lost = self.lost
        new.score_list = list(self.score_list)
        new.hands = list(self.hands)
        new.bag = self.bag
        new.discarded = self.discarded
        new.dropped_list = self.dropped_list
        new.flips = self.flips
        new.to_move_seat = self.to_move_seat
        new.actions_left = self.actions_left
        new.history_list = list(self.history_list)
        new.log = list(self.log)
        new.outcome_value = self.outcome_value
        new._base = None
        new._flip_cache = self._flip_cache
        new._opened = []
        new._flipped = []
        new._reset_caches()
        return new

    # -- the contract ---------------------------------------------------------------------------

    @property
    def to_move(self) -> int | None:
        return self.to_move_seat

    @property
    def outcome(self) -> Outcome | None:
        return self.outcome_value

    @property
    def history(self) -> list[str]:
        return list(self.history_list)

    @property
    def players(self) -> int:
        return self.setup.players

    @property
    def variant(self) -> str:
        return self.setup.variant

    def scores(self) -> list[int]:
        return list(self.score_list)

    def worth(self) -> list[float]:
        if self.outcome_value is not None:
            return [float(score) for score in self.score_list]
        return fitted.worth(self.score_list, self.supplies, self._progress(), self._ladder())

    def point_weight(self) -> float:
        return fitted.point_weight(self._progress(), self._ladder())

    def _ladder(self) -> fitted.Ladder:
        return fitted.ladder_for(self.setup.players, self.setup.length)

    def _progress(self) -> float:
        dealt = len(self.setup.tiles) - 1 - HAND_SIZE * self.setup.players
        return fitted.progress(len(self.bag), max(dealt, 0))

    @property
    def dropped(self) -> list[int]:
        """Seats that have left the game, in the order they left (rules section 9)."""
        return list(self.dropped_list)

    def playing(self) -> list[int]:
        """The seats still in the game, in seat order."""
        return [s for s in range(self.setup.players) if s not in self.dropped_list]

    @property
    def mid_turn(self) -> bool:
        """True between the two actions of a turn: the seat to move has acted once already."""
        return self.to_move_seat is not None and self.actions_left < ACTIONS_PER_TURN

    @property
    def turn_number(self) -> int:
        """Turns so far, from the log's actions (a seat's consecutive actions, two to a turn, as
        turns.turns reads them), and one more unless the seat to move is between its two."""
        started, seat, actions = 0, None, 0
        for event in self.log:
            if event.get("type") not in ("place", "flip", "pass"):
                continue
            if event.get("seat") == seat and actions < ACTIONS_PER_TURN:
                actions += 1
            else:
                started, seat, actions = started + 1, event.get("seat"), 1
        return started if self.mid_turn else started + 1

    def play_described(self, move: str) -> tuple[MarramState, str]:
        """`play` and `describe` at once, the move played once: the service stores the sentence
        with the move it applies."""
        after = self.play(move)
        return after, words.sentence(self, after)

    def describe(self, move: str) -> str:
        """`move` in a sentence with what it caused (see words.py); raises as `play` does."""
        return self.play_described(move)[1]

    def describe_choice(self, move: str) -> str:
        """`move` as a choice: without the dead tiles the turn's end would draw and discard,
        which the bag (hidden) decides."""
        return words.sentence(self, self.play(move), with_discards=False)

    def describe_outcome(self) -> str | None:
        return words.describe_outcome(self)

    def summary(self, seat: int | None) -> Summary:
        return words.summary(self, seat)

    def tile(self, tile_id: int) -> Tile:
        return self.setup.tiles[tile_id]

    # -- caches of the current position ---------------------------------------------------------

    def groups(self) -> bd.Groups:
        """Open positions grouped by what they require (written "x,y ")."""
        return self.frontier_groups

    def flip_options(self) -> dict[Pos, tuple[int, ...]]:
        """Laid tiles showing a shovel whose back fits, with the fitting rotation indices."""
        return self.flips

    def _find_flips(self) -> dict[Pos, tuple[int, ...]]:
        flips: dict[Pos, tuple[int, ...]] = {}
        for pos in self.flippable:
            back = self.setup.tiles[self.board[pos].tile].back
            assert back is not None
            rots = bd.fits(back, bd.requirement(self.board, pos))
            if rots:
                flips[pos] = rots
        return flips

    def can_place(self, seat: int) -> bool:
        groups = self.frontier_groups
        return any(bd.fits_anywhere(self.setup.tiles[t].front, groups) for t in self.hands[seat])

    def can_flip(self, seat: int) -> bool:
        return self.supplies[seat][SHOVEL] > 0 and bool(self.flip_options())

    def can_act(self, seat: int) -> bool:
        return self.can_place(seat) or self.can_flip(seat)

    # -- legal moves ----------------------------------------------------------------------------

    def legal_moves(self) -> list[str]:
        if self.outcome_value is not None or self.to_move_seat is None:
            return []
        if self._legal is None:
            legal = None if self._base is None else self._regenerate(self._base)
            self._legal = self._generate() if legal is None else legal
            self._base = None
        return list(self._legal)

    def _flags(self, seat: int) -> Flags:
        sup = self.supplies[seat]
        return sup[BOOT] > 0, sup[FORK] > 0, sup[BET] > 0, sup[SHOVEL] > 0

    def _generate(self) -> list[str]:
        """The legal moves from scratch.

        The moves laying one face at one position share a prefix ("place 7 1,-2 ", "flip 0,3 ")
        and differ in what follows, the face's `tails`; no prefix is a proper prefix of
        another, so the moves in the order of their prefixes, each prefix's tails in order, are
        sorted.
        """
        assert self.to_move_seat is not None
        seat = self.to_move_seat
        setup = self.setup
        variant = setup.variant
        tiles = setup.tiles
        fronts = setup.fronts
        sup = self.supplies[seat]
        boots, forks, bets, shovels = sup[BOOT] > 0, sup[FORK] > 0, sup[BET] > 0, sup[SHOVEL] > 0
        groups = self.frontier_groups
        reqs = groups.keys()
        tails_at: dict[str, tuple[str, ...]] = {}
        for tid in self.hands[seat]:
            by_req = tiles[tid].front.tails_by_requirement(variant, boots, forks, bets)
            head = f"place {tid} "
            # What the face meets of what open positions ask (a set operation over the smaller).
            for req in fronts[tid] & reqs:
                tails = by_req[req]
                for text in groups[req]:
                    tails_at[head + text] = tails
        moves = []
        if shovels:
            moves = self._flip_moves(boots, forks, bets)
        if not tails_at and not moves:
            return ["pass"]
        # Flips sort before placements.
        return moves + [prefix + tail for prefix in sorted(tails_at) for tail in tails_at[prefix]]

    def _flip_moves(self, boots: bool, forks: bool, bets: bool) -> list[str]:
        """The flips, sorted; the same list as the position played from when its flips are this
        position's (the dict is shared until an action changes it) for the same supply."""
        cached = self._flip_cache
        if cached is not None and cached[0] is self.flips and cached[1] == (boots, forks, bets):
            return cached[2]
        variant = self.setup.variant
        tiles = self.setup.tiles
        tails_at: dict[str, tuple[str, ...]] = {}
        for pos, rots in self.flips.items():
            back = tiles[self.board[pos].tile].back
            assert back is not None
            tails_at["flip " + bd.where(pos)] = back.tails(rots, variant, boots, forks, bets)
        moves = [prefix + tail for prefix in sorted(tails_at) for tail in tails_at[prefix]]
        self._flip_cache = (self.flips, (boots, forks, bets), moves)
        return moves

    def _regenerate(self, base: Base) -> list[str] | None:
        """The legal moves of a second action, from those of the first: only the placed tile,
        the positions and flips the first action changed, and the moves needing what it spent
        differ (None when more did: something came back to the seat's supply).

        `play` gives the base only when the hand lost nothing but the placed tile (no dead tile
        was discarded in between).
        """
        legal, was_flags, placed = base
        assert self.to_move_seat is not None
        seat = self.to_move_seat
        flags = self._flags(seat)
        if legal == ["pass"] or (
            flags != was_flags
            and any(now and not was for was, now in zip(was_flags, flags, strict=True))
        ):
            return None  # moves the first action could not make, all over the board
        boots, forks, bets, shovels = flags
        variant = self.setup.variant
        tiles = self.setup.tiles
        if flags == was_flags:
            moves = list(legal)
        else:
            # The first action spent the seat's last boot, fork or bet, or its last shovel.
            moves = legal
            for word, had, has in zip(_SPENT, was_flags, flags, strict=True):
                if had and not has:
                    moves = [m for m in moves if word not in m]
        if placed >= 0:
            _cut(moves, f"place {placed} ")
        faces = [
            (
                f"place {t} ",
                tiles[t].front.fit_cache,
                tiles[t].front.tails_by_requirement(variant, boots, forks, bets),
            )
            for t in self.hands[seat]
        ]
        frontier = self.frontier
        for pos, was in self._opened:
            now = frontier.get(pos)
            where = bd.where(pos)
            for head, table, by_req in faces:
                if was in table:
                    _cut(moves, head + where)
                if now in table:
                    _put(moves, head + where, by_req[now])
        if shovels:
            for (x, y), was_rots in self._flipped:
                prefix = f"flip {x},{y} "
                if was_rots:
                    _cut(moves, prefix)
                rots = self.flips.get((x, y))
                if rots:
                    back = tiles[self.board[(x, y)].tile].back
                    assert back is not None
                    _put(moves, prefix, back.tails(rots, variant, boots, forks, bets))
        return moves or ["pass"]

    # -- playing --------------------------------------------------------------------------------

    def play(self, move: str) -> MarramState:
        legal = self._legal
        if legal is not None and type(move) is str:
            # One of the listed moves as listed (canonical): legal, so read it without checks.
            i = bisect_left(legal, move)
            if i < len(legal) and legal[i] == move:
                return self._play_listed(move, legal)
        shown = move.strip() if isinstance(move, str) else str(move)
        if self.outcome_value is not None or self.to_move_seat is None:
            raise IllegalMove(
                Message("'%(move)s' cannot be played: the game is over", move=shorten(shown))
            )
        parsed = parse(move)
        face, k = self._check(parsed, shown)
        new = self._clone()
        new._apply(parsed, face, k)
        return new

    def _play_listed(self, move: str, legal: list[str]) -> MarramState:
        """`play` of `move`, one of `legal` (this state's legal moves) as written there."""
        words = move.split(" ")
        action = words[0]
        tiles = self.setup.tiles
        face: Face | None
        if action == "pass":
            m = Move("pass")
            face = None
        else:
            if action == "place":
                tid = int(words[1])
                x, y = words[2].split(",")
                rest = words[3:]
                face = tiles[tid].front
            else:
                tid = -1
                x, y = words[1].split(",")
                rest = words[2:]
            pos = (int(x), int(y))
            claim = loc = bet = ""
            if len(rest) > 2:
                if rest[1] != "bet":
                    claim, loc = rest[1], rest[2]
                if rest[-2] == "bet":
                    bet = rest[-1]
            if tid < 0:
                face = tiles[self.board[pos].tile].back
            m = _new(Move, (action, tid, pos, ROTATION_WORDS[rest[0]], claim, loc, bet))
        seat = self.to_move_seat
        assert seat is not None
        flags = self._flags(seat)
        new = self._clone()
        new._apply(m, face, m.k, move)
        if (
            new.to_move_seat == seat
            and new.actions_left == 1
            and new.discarded is self.discarded  # no dead tile left the hand
        ):
            new._base = (legal, flags, m.tile if action == "place" else -1)
        return new

    def drop(self, seat: int) -> MarramState:
        """The position once `seat` leaves the game (rules section 9): its hand is discarded, its
        tokens leave the board, and if it was to move its turn ends there."""
        players = self.setup.players
        if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < players:
            raise ValueError(f"seat {seat!r} is not in this {players}-player game")
        if self.outcome_value is not None or self.to_move_seat is None:
            raise ValueError(f"seat {seat} cannot leave: the game is over")
        if players == 2:
            raise ValueError(
                "a two-player game of Marram cannot go on without a player: "
                "the service decides the result itself"
            )
        if seat in self.dropped_list:
            raise ValueError(f"seat {seat} has already left the game")
        new = self._clone()
        new._drop(seat)
        return new

    def settled(self, outcome: Outcome) -> MarramState:
        """This position with the game ended by the service: nobody to move, no action left."""
        check_unsettled(self.outcome_value)
        new = self._clone()
        new.to_move_seat = None
        new.actions_left = 0
        new.outcome_value = outcome
        new._reset_caches()
        return new

    def sample(self, seat: int | None, rng: random.Random) -> MarramState:
        """A position `seat` cannot tell from this one: the tiles it cannot see (the other hands
        and the bag) dealt again at random, each hand keeping its size.

        The hand of a seat about to act holds no dead tile (rules 5.7 discards them first), and
        everyone sees that: when the seat to move is one whose hand is drawn, it is dealt live
        tiles only. There are always enough, since its true hand is among them.
        """
        players = self.setup.players
        if seat is not None and (
            isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < players
        ):
            raise ValueError(f"seat {seat!r} is not in this {players}-player game")
        hidden = [s for s in range(players) if s != seat and self.hands[s]]
        if not hidden:
            return self
        # Sorted before the shuffle: the true order of the bag and the hands must not steer the
        # draw, or two positions the seat cannot tell apart would give different samples.
        pool = sorted([*self.bag, *(t for s in hidden for t in self.hands[s])])
        rng.shuffle(pool)
        new = self._clone()
        # The seed orders the true bag: a sample never carries it.
        new.setup = self.setup.seedless
        to_move = self.to_move_seat
        if to_move in hidden:
            groups = self.frontier_groups
            tiles = self.setup.tiles
            size = len(self.hands[to_move])
            live = [t for t in pool if bd.fits_anywhere(tiles[t].front, groups)][:size]
            for t in live:
                pool.remove(t)
            new.hands[to_move] = live + pool[: size - len(live)]
            del pool[: size - len(live)]
        for s in hidden:
            if s != to_move:
                size = len(self.hands[s])
                new.hands[s] = pool[:size]
                del pool[:size]
        new.bag = pool
        return new

    def _illegal(self, shown: str, problem: Message) -> IllegalMove:
        return IllegalMove(
            Message("'%(move)s' is not allowed: %(problem)s", move=shorten(shown), problem=problem)
        )

    def _check(self, m: Move, shown: str) -> tuple[Face | None, int]:
        """Raise IllegalMove unless `m` is legal here; return the face laid and its rotation."""
        assert self.to_move_seat is not None
        seat = self.to_move_seat
        if m.action == "pass":
            if self.can_act(seat):
                raise self._illegal(
                    shown,
                    Message("you may only pass when you can neither place a tile nor flip one"),
                )
            return None, 0
        if m.action == "place":
            hand = self.hands[seat]
            if m.tile not in hand:
                problem = (
                    Message(
                        "tile %(tile)s is not in your hand (your hand: %(hand)s)",
                        tile=m.tile,
                        hand=", ".join(map(str, hand)),
                    )
                    if hand
                    else Message(
                        "tile %(tile)s is not in your hand (your hand: empty)", tile=m.tile
                    )
                )
                raise self._illegal(shown, problem)
            face = self.setup.tiles[m.tile].front
            if m.pos in self.board:
                raise self._illegal(
                    shown,
                    Message("position %(x)s,%(y)s already holds a tile", x=m.pos[0], y=m.pos[1]),
                )
            req = self.frontier.get(m.pos)
            if req is None:
                raise self._illegal(
                    shown,
                    Message(
                        "position %(x)s,%(y)s does not share a side with any laid tile",
                        x=m.pos[0],
                        y=m.pos[1],
                    ),
                )
            self._check_fit(shown, face, m.k, req, m.tile)
        else:
            if self.supplies[seat][SHOVEL] <= 0:
                raise self._illegal(shown, Message("you have no shovel left, so you cannot flip"))
            laid = self.board.get(m.pos)
            if laid is None:
                raise self._illegal(
                    shown,
                    Message("there is no tile at %(x)s,%(y)s to flip", x=m.pos[0], y=m.pos[1]),
                )
            back = self.setup.tiles[laid.tile].back
            if back is None or laid.face_index != 0:
                raise self._illegal(
                    shown,
                    Message(
                        "tile %(tile)s at %(x)s,%(y)s shows no shovel, so it cannot be flipped",
                        tile=laid.tile,
                        x=m.pos[0],
                        y=m.pos[1],
                    ),
                )
            face = back
            self._check_fit(shown, face, m.k, bd.requirement(self.board, m.pos), None)
        self._check_extras(m, shown, face)
        return face, m.k

    def _check_fit(self, shown: str, face: Face, k: int, req: Req, tile: int | None) -> None:
        """Refuse `face` in rotation `k` unless it matches `req`: of tile `tile` when placed,
        the back when flipped (`tile` None)."""
        rots = bd.fits(face, req)
        if k in rots:
            return
        what = Message("the back") if tile is None else Message("tile %(tile)s", tile=tile)
        if rots:
            hint = Message(
                "rotations that fit here: %(rotations)s",
                rotations=", ".join(str(r * 90) for r in rots),
            )
        else:
            hint = Message("no rotation of %(what)s fits here", what=what)
        problems = words.chained(words.THEN, bd.mismatches(face, k, req))
        raise self._illegal(
            shown,
            Message(
                "%(what)s does not match in rotation %(rotation)s: %(problems)s (%(hint)s)",
                what=what,
                rotation=k * 90,
                problems=problems,
                hint=hint,
            ),
        )

    def _check_extras(self, m: Move, shown: str, face: Face) -> None:
        assert self.to_move_seat is not None
        sup = self.supplies[self.to_move_seat]
        variant = self.setup.variant
        name = Message(VARIANT_NAMES[variant])
        if m.claim == "fork":
            if variant == "classic":
                raise self._illegal(
                    shown, Message("there are no pitchforks in Classic; claim with a boot instead")
                )
            if sup[FORK] <= 0:
                raise self._illegal(shown, Message("you have no pitchforks left"))
            if m.loc not in SPOKE_INDEX:
                raise self._illegal(
                    shown,
                    Message(
                        "a pitchfork goes on a spoke carrying a creature, not on %(place)s",
                        place=m.loc,
                    ),
                )
        elif m.claim == "boot":
            if sup[BOOT] <= 0:
                raise self._illegal(shown, Message("you have no boots left"))
            if m.loc in SPOKE_INDEX and variant != "classic":
                raise self._illegal(
                    shown,
                    Message(
                        "in %(variant)s a boot goes on a quadrant; claim a creature with a fork",
                        variant=name,
                    ),
                )
        if m.claim and m.loc in SPOKE_INDEX and face.piece_at[m.k][SPOKE_INDEX[m.loc]] < 0:
            raise self._illegal(
                shown,
                Message(
                    "spoke %(spoke)s of this tile carries no creature, so there is no feature",
                    spoke=m.loc,
                ),
            )
        if m.bet:
            if variant != "animals":
                raise self._illegal(
                    shown,
                    Message("bets are only used in Animals, not in %(variant)s", variant=name),
                )
            if sup[BET] <= 0:
                raise self._illegal(shown, Message("you have no bet tokens left"))
            if not face.prey_at[m.k][SPOKE_INDEX[m.bet]]:
                raise self._illegal(
                    shown,
                    Message("there is no prey on spoke %(spoke)s of this tile", spoke=m.bet),
                )

    def _apply(self, m: Move, face: Face | None, k: int, text: str | None = None) -> None:
        """Play the checked move `m` (its canonical form `text`, when the caller has it)."""
        assert self.to_move_seat is not None
        seat = self.to_move_seat
        ply = len(self.history_list)
        if m.action == "pass":
            self.log.append({"ply": ply, "type": "pass", "seat": seat})
        else:
            assert face is not None
            pos = m.pos
            if m.action == "place":
                self._place(m, face, k, seat, ply)
            else:
                self._flip(pos, face, k, seat, ply)
            bd.refresh_frontier(self.board, self.frontier, self.frontier_groups, pos, self._opened)
            self._put_tokens(m, face, k, seat, ply)
            self._removed = []
            self._score_action(pos, ply)
            self._refresh_flips(pos, self._removed)
        self.history_list.append(m.canonical() if text is None else text)
        self._end_action(seat)

    def _place(self, m: Move, face: Face, k: int, seat: int, ply: int) -> None:
        """`seat` lays tile `m.tile` from its hand at `m.pos`, turned `k` quarters."""
        pos = x, y = m.pos
        hand = list(self.hands[seat])
        hand.remove(m.tile)
        self.hands[seat] = hand
        self.board[pos] = _new(Laid, (m.tile, k, 0, 0, face))
        if self.setup.tiles[m.tile].back is not None:
            self.flippable = self.flippable | {pos}
        self.log.append(
            {
                "ply": ply,
                "type": "place",
                "seat": seat,
                "tile": m.tile,
                "x": x,
                "y": y,
                "rotation": k * 90,
            }
        )

    def _flip(self, pos: Pos, face: Face, k: int, seat: int, ply: int) -> None:
        """`seat` spends a shovel to turn the tile at `pos` over; the tokens on it are lost."""
        x, y = pos
        old = self.board[pos]
        self._own_supply(seat)[SHOVEL] -= 1
        lost = self._own_lost()
        lost[seat][SHOVEL] += 1
        gone = [t for t in self.tokens if t.pos == pos]
        self.tokens = [t for t in self.tokens if t.pos != pos]
        for t in gone:
            lost[t.seat][KIND_INDEX[t.kind]] += 1
        self.board[pos] = Laid(old.tile, k, 1, 0, face)
        self.flippable = self.flippable - {pos}
        self.log.append(
            {
                "ply": ply,
                "type": "flip",
                "seat": seat,
                "tile": old.tile,
                "lost": [{"seat": t.seat, "kind": t.kind, "loc": t.loc} for t in gone],
                "x": x,
                "y": y,
                "rotation": k * 90,
            }
        )
        for t in gone:
            if t.kind == "bet":
                self.log.append(
                    {
                        "ply": ply,
                        "type": "bet-lost",
                        "seat": t.seat,
                        "x": x,
                        "y": y,
                        "loc": t.loc,
                        "why": "flip",
                    }
                )

    def _put_tokens(self, m: Move, face: Face, k: int, seat: int, ply: int) -> None:
        """`seat` puts the move's claim and bet on the tile it just laid or flipped."""
        pos = x, y = m.pos
        if m.claim:
            self._own_supply(seat)[KIND_INDEX[m.claim]] -= 1
            self.tokens = [*self.tokens, _new(Token, (seat, m.claim, pos, m.loc))]
            self.log.append(
                {
                    "ply": ply,
                    "type": "claim",
                    "seat": seat,
                    "kind": m.claim,
                    "x": x,
                    "y": y,
                    "loc": m.loc,
                }
            )
        if m.bet:
            self._own_supply(seat)[BET] -= 1
            self.tokens = [*self.tokens, _new(Token, (seat, "bet", pos, m.bet))]
            animal = face.prey_at[k][SPOKE_INDEX[m.bet]]
            self.log.append(
                {
                    "ply": ply,
                    "type": "bet",
                    "seat": seat,
                    "x": x,
                    "y": y,
                    "loc": m.bet,
                    "prey": animal,
                }
            )

    def _own_supply(self, seat: int) -> list[int]:
        """`seat`'s supply, copied for this state before it changes (states share each seat's
        until then)."""
        row = self.supplies[seat] = list(self.supplies[seat])
        return row

    def _own_lost(self) -> list[list[int]]:
        """`lost`, copied for this state before it changes (states share it until then)."""
        self.lost = [list(row) for row in self.lost]
        return self.lost

    def _refresh_flips(self, pos: Pos, removed: list[tuple[Pos, int]]) -> None:
        """Bring the flips up to date after an action at `pos` that took the pieces off the
        board spokes `removed`: only a flippable tile beside a changed side can have changed."""
        flippable = self.flippable
        old = self.flips
        if not flippable and not old:
            return
        board = self.board
        x, y = pos
        near = [(x, y), (x, y + 1), (x + 1, y), (x, y - 1), (x - 1, y)]
        for p, b in removed:
            dx, dy = bd.DELTAS[b]
            near.append((p[0] + dx, p[1] + dy))
        flips: dict[Pos, tuple[int, ...]] | None = None
        tiles = self.setup.tiles
        for p in near:
            if p not in flippable and p not in old:
                continue
            if p in flippable:
                back = tiles[board[p].tile].back
                assert back is not None
                rots = bd.fits(back, bd.requirement(board, p))
            else:
                rots = ()
            # `near` may name a position twice: compare with the flips as already updated.
            was = self.flips.get(p, ())
            if was != rots:
                self._flipped.append((p, was))
                if flips is None:
                    flips = self.flips = old.copy()
                if rots:
                    flips[p] = rots
                else:
                    del flips[p]

    # -- scoring --------------------------------------------------------------------------------

    def _score_action(self, pos: Pos, ply: int) -> None:
        """Score every complete feature with a part on the acted tile, creatures first."""
        board = self.board
        freed: list[tuple[Pos, int]] = []
        if board[pos].face.pieces:
            for creature in complete_creatures_on(board, pos):
                self._score_creature(creature, ply)
                if self.setup.variant != "classic":
                    self._remove(creature, ply)
                    for p, b in sorted(creature.spokes):
                        freed += [(p, b), (p, (b + 1) % 4)]
        # A quadrant of the acted tile beside an empty position or a piece is in an incomplete
        # region (rules 3.1): only the others are searched. Quadrant q lies on sides and
        # spokes q and q - 1.
        laid = board[pos]
        x, y = pos
        # Side d and spoke d share their index: the sides with a neighbour and no piece on their
        # spoke, as a mask, name the enclosed quadrants (see _ENCLOSED).
        clear = (
            ((x, y + 1) in board)
            | ((x + 1, y) in board) << 1
            | ((x, y - 1) in board) << 2
            | ((x - 1, y) in board) << 3
        ) & ~(laid.face.piece_mask[laid.k] & ~laid.removed)
        nodes = [(pos, q) for q in _ENCLOSED[clear]] if clear else []
        nodes += freed
        if nodes:
            for region in complete_regions_at(board, nodes):
                self._score_region(region, ply)

    def _take_claims(self, on: set[tuple[Pos, str]]) -> list[int]:
        """Return claim tokens standing on `on` to their owners; count them by seat."""
        counts = [0] * self.setup.players
        keep: list[Token] = []
        for t in self.tokens:
            if t.kind != "bet" and (t.pos, t.loc) in on:
                counts[t.seat] += 1
                self._own_supply(t.seat)[KIND_INDEX[t.kind]] += 1
            else:
                keep.append(t)
        self.tokens = keep
        return counts

    def _score_creature(self, c: Creature, ply: int) -> None:
        locs = {(p, SPOKES[b]) for p, b in c.spokes}
        valid = c.valid
        self._award(
            locs,
            c.value(),
            ply,
            {"feature": "creature", "species": c.species, "valid": valid},
            {"tiles": c.tiles, "pieces": c.pieces},
        )
        bets = [t for t in self.tokens if t.kind == "bet" and (t.pos, t.loc) in locs]
        if not bets:
            return
        self.tokens = [t for t in self.tokens if not (t.kind == "bet" and (t.pos, t.loc) in locs)]
        for t in bets:
            where = {"x": t.pos[0], "y": t.pos[1], "loc": t.loc}
            if valid:
                laid = self.board[t.pos]
                animal = laid.face.prey_at[laid.k][SPOKE_INDEX[t.loc]]
                points = PREY_POINTS.get(animal, 0)
                self.score_list[t.seat] += points
                self._own_supply(t.seat)[BET] += 1
                self.log.append(
                    {
                        "ply": ply,
                        "type": "eaten",
                        "seat": t.seat,
                        "prey": animal,
                        "points": points,
                        **where,
                    }
                )
            else:
                self._own_lost()[t.seat][BET] += 1
                self.log.append(
                    {"ply": ply, "type": "bet-lost", "seat": t.seat, **where, "why": "freak"}
                )

    def _remove(self, c: Creature, ply: int) -> None:
        masks: dict[Pos, int] = {}
        for p, b in c.spokes:
            masks[p] = masks.get(p, 0) | 1 << b
        self._removed.extend(c.spokes)
        for p, mask in masks.items():
            laid = self.board[p]
            self.board[p] = laid._replace(removed=laid.removed | mask)
        self.log.append(
            {
                "ply": ply,
                "type": "removed",
                "species": c.species,
                "valid": c.valid,
                "pieces": c.pieces,
                "tiles": c.tiles,
            }
        )

    def _score_region(self, r: Region, ply: int) -> None:
        locs = {(p, QUADRANTS[q]) for p, q in r.nodes}
        self._award(
            locs,
            r.value(self.setup.variant),
            ply,
            {"feature": "region", "terrain": r.terrain},
            {"tiles": r.tiles},
        )

    def _award(
        self,
        locs: set[tuple[Pos, str]],
        value: int,
        ply: int,
        what: dict[str, Any],
        size: dict[str, Any],
    ) -> None:
        """Score a complete feature for its majority holders and log it (claims go back)."""
        winners = majority(self._take_claims(locs))
        for w in winners:
            self.score_list[w] += value
        self.log.append(
            {"ply": ply, "type": "score", **what, "value": value, "winners": winners, **size}
        )

    # -- turn structure -------------------------------------------------------------------------

    def _draw(self, seat: int, count: int) -> None:
        # Bag and hands are shared with the state this one was played from: replaced, not changed.
        take = self.bag[:count]
        self.bag = self.bag[count:]
        self.hands[seat] = self.hands[seat] + take

    def _end_action(self, seat: int) -> None:
        self.actions_left -= 1
        if self.actions_left == 0:
            self._draw(seat, HAND_SIZE - len(self.hands[seat]))
            if self._end_turn(seat):
                return
        self._reset_caches()
        self._prepare()

    def _end_turn(self, seat: int) -> bool:
        """The threshold check at the end of `seat`'s turn (after its draw), then the turn passes
        to the next seat still playing. True when the game ended."""
        threshold = self.setup.threshold
        if (
            threshold is not None
            and max(
                self.score_list
                if not self.dropped_list
                else [self.score_list[s] for s in self.playing()]
            )
            >= threshold
        ):
            self._finish("threshold", bonus=False, threshold=threshold, turn_of=seat)
            return True
        self.to_move_seat = self._next_seat(seat)
        self.actions_left = ACTIONS_PER_TURN
        return False

    def _next_seat(self, seat: int) -> int:
        """The seat after `seat` in turn order, skipping those that left."""
        players = self.setup.players
        nxt = (seat + 1) % players
        while nxt in self.dropped_list:
            nxt = (nxt + 1) % players
        return nxt

    def _drop(self, seat: int) -> None:
        """Rules section 9: the hand is discarded face up, every token of the seat leaves the
        game, and the seat's turn, if it was its turn, ends there."""
        ply = len(self.history_list)
        self.dropped_list = [*self.dropped_list, seat]
        tiles = self.hands[seat]
        self.hands[seat] = []
        self.discarded = self.discarded + tiles
        gone = [t for t in self.tokens if t.seat == seat]
        self.tokens = [t for t in self.tokens if t.seat != seat]
        lost = self._own_lost()
        for t in gone:
            lost[seat][KIND_INDEX[t.kind]] += 1
        self.log.append(
            {
                "ply": ply,
                "type": "dropped",
                "seat": seat,
                "tiles": list(tiles),
                "lost": [
                    {"kind": t.kind, "x": t.pos[0], "y": t.pos[1], "loc": t.loc} for t in gone
                ],
            }
        )
        self._reset_caches()
        left = self.playing()
        if len(left) < 2:
            self._finish("others-left", bonus=False)
            return
        if self.to_move_seat == seat:
            if self._end_turn(seat):
                return
            self._reset_caches()
            self._prepare()
        else:
            self._check_end()

    def _prepare(self) -> None:
        """Dead-tile step for the player about to act, then the end-of-game check."""
        assert self.to_move_seat is not None
        seat = self.to_move_seat
        ply = len(self.history_list)
        hand = self.hands[seat]
        fronts = self.setup.fronts
        reqs = self.frontier_groups.keys()
        while True:
            for t in hand:
                if reqs.isdisjoint(fronts[t]):
                    break
            else:
                break  # the common case: no dead tile
            dead = [t for t in hand if reqs.isdisjoint(fronts[t])]
            hand = [t for t in hand if t not in dead]
            self.hands[seat] = hand
            self.discarded = self.discarded + dead
            for t in dead:
                self.log.append({"ply": ply, "type": "discard", "seat": seat, "tile": t})
            self._draw(seat, len(dead))
            hand = self.hands[seat]
        self._check_end()

    def _check_end(self) -> None:
        """The end of the game just before an action (rules section 6): the tiles are out, or
        nobody still playing can act."""
        assert self.to_move_seat is not None
        seat = self.to_move_seat
        if not self.bag and not any(self.hands):
            self._finish("tiles-out", bonus=True)
        elif not self.hands[seat] and not self.can_flip(seat):
            others = (s for s in self.playing() if s != seat)
            if not any(self.can_act(s) for s in others):
                self._finish("no-action", bonus=True, seat=seat)

    def _finish(self, reason: str, bonus: bool, **details: Any) -> None:
        """End the game. `details` go into the outcome: the threshold and whose turn reached
        it, or the seat that could not act, and the seats that left (`dropped`, when any did);
        words.describe_outcome reads them. Seats that left never win (rules section 9)."""
        if bonus:
            self._end_bonus()
        self.to_move_seat = None
        self.actions_left = 0
        left = self.playing()
        best = max(self.score_list[s] for s in left)
        winners = [s for s in left if self.score_list[s] == best]
        if self.dropped_list:
            details["dropped"] = list(self.dropped_list)
        self.outcome_value = Outcome(winners, list(self.score_list), reason, details)
        self._reset_caches()

    def _end_bonus(self) -> None:
        """Incomplete claimed features score for their majority holders (rules section 6)."""
        ply = len(self.history_list)
        bonus = [0] * self.setup.players
        # Claims on quadrants as region nodes (pos, quadrant), on spokes as (pos, spoke).
        on_quadrants: list[tuple[int, Pos, int]] = []
        on_spokes: list[tuple[int, Pos, int]] = []
        for t in self.tokens:
            if t.kind != "bet":
                if t.loc in QUADRANT_INDEX:
                    on_quadrants.append((t.seat, t.pos, QUADRANT_INDEX[t.loc]))
                else:
                    on_spokes.append((t.seat, t.pos, SPOKE_INDEX[t.loc]))
        seen_regions: set[tuple[Pos, int]] = set()
        seen_creatures: set[tuple[Pos, int]] = set()
        for t in self.tokens:
            if t.kind == "bet":
                continue
            if t.loc in QUADRANT_INDEX:
                q = QUADRANT_INDEX[t.loc]
                if (t.pos, q) in seen_regions:
                    continue
                region = region_at(self.board, t.pos, q)
                seen_regions |= region.nodes
                if region.complete:
                    continue
                held, claims, value = region.nodes, on_quadrants, region.end_bonus()
            else:
                piece = self.board[t.pos].piece_at(SPOKE_INDEX[t.loc])
                if piece < 0 or (t.pos, piece) in seen_creatures:
                    continue
                creature = creature_at(self.board, t.pos, piece)
                seen_creatures |= creature.nodes
                if creature.complete:
                    continue
                held, claims, value = creature.spokes, on_spokes, creature.pieces
            counts = [0] * self.setup.players
            for seat, p, i in claims:
                if (p, i) in held:
                    counts[seat] += 1
            for w in majority(counts):
                bonus[w] += value
        for seat, points in enumerate(bonus):
            if points:
                self.score_list[seat] += points
                self.log.append({"ply": ply, "type": "end-bonus", "seat": seat, "points": points})

    # -- views and JSON -------------------------------------------------------------------------

    def view(self, seat: int | None) -> JSON:
        if seat is not None and (
            isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < self.players
        ):
            raise ValueError(f"seat {seat!r} is not in this {self.players}-player game")
        tiles = self.setup.tiles
        shown = [laid.tile for laid in self.board.values()] + list(self.discarded)
        if seat is not None:
            shown += self.hands[seat]
        tokens_at: dict[Pos, list[JSON]] = {}
        for t in self.tokens:
            tokens_at.setdefault(t.pos, []).append({"seat": t.seat, "kind": t.kind, "loc": t.loc})
        board = [
            {
                "x": pos[0],
                "y": pos[1],
                "tile": laid.tile,
                "rotation": laid.k * 90,
                "face": "back" if laid.face_index else "front",
                "tokens": tokens_at.get(pos, []),
                "removed": [SPOKES[b] for b in range(4) if laid.removed >> b & 1],
            }
            for pos, laid in self.board.items()
        ]
        return {
            "game": "marram",
            "players": self.players,
            "variant": self.setup.variant,
            "length": self.setup.length,
            "threshold": self.setup.threshold,
            "seat": seat,
            "hand": None if seat is None else list(self.hands[seat]),
            "hand_sizes": [len(h) for h in self.hands],
            "bag": len(self.bag),
            "discarded": list(self.discarded),
            "supplies": [dict(zip(SUPPLY_NAMES, s, strict=True)) for s in self.supplies],
            "scores": list(self.score_list),
            "actions_left": self.actions_left,
            "to_move": self.to_move_seat,
            "dropped": list(self.dropped_list),
            "board": board,
            "tiles": {str(t): tiles[t].description() for t in sorted(set(shown))},
            "history": list(self.history_list),
            "outcome": None if self.outcome_value is None else self._outcome_json(),
            "log": [dict(e) for e in self.log],
        }

    def _outcome_json(self) -> JSON:
        assert self.outcome_value is not None
        o = self.outcome_value
        said = {} if o.said is None else {SAID: o.said}
        return {"winners": list(o.winners), "scores": list(o.scores), "reason": o.reason, **said}

    def to_json(self) -> JSON:
        s = self.setup
        return {
            "game": "marram",
            "players": s.players,
            "variant": s.variant,
            "length": s.length,
            "seed": s.seed,
            "start": s.start,
            "deck": s.deck,
            "bag": list(self.bag),
            "hands": [list(h) for h in self.hands],
            "discarded": list(self.discarded),
            "board": [
                [p[0], p[1], laid.tile, laid.k * 90, laid.face_index, laid.removed]
                for p, laid in self.board.items()
            ],
            "tokens": [[t.seat, t.kind, t.pos[0], t.pos[1], t.loc] for t in self.tokens],
            "supplies": [list(x) for x in self.supplies],
            "lost": [list(x) for x in self.lost],
            "scores": list(self.score_list),
            "to_move": self.to_move_seat,
            "actions_left": self.actions_left,
            "dropped": list(self.dropped_list),
            "history": list(self.history_list),
            "log": [dict(e) for e in self.log],
            "outcome": None if self.outcome_value is None else self.outcome_value.to_json(),
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> MarramState:
        setup = make_setup(
            int(data["players"]),
            str(data["variant"]),
            str(data["length"]),
            int(data["seed"]),
            data.get("start"),
            data.get("deck"),
        )
        state = cls.__new__(cls)
        state.setup = setup
        state.board = {}
        flippable = set()
        for x, y, tile, rotation, face_index, removed in data["board"]:
            t = setup.tiles[tile]
            face = t.back if face_index else t.front
            assert face is not None
            state.board[(x, y)] = Laid(tile, rotation // 90, face_index, removed, face)
            if t.back is not None and not face_index:
                flippable.add((x, y))
        state.frontier = bd.build_frontier(state.board)
        state.frontier_groups = bd.group_frontier(state.frontier)
        state.flippable = frozenset(flippable)
        state.flips = state._find_flips()
        state.tokens = [Token(s, k, (x, y), loc) for s, k, x, y, loc in data["tokens"]]
        state.supplies = [list(x) for x in data["supplies"]]
        state.lost = [list(x) for x in data["lost"]]
        state.score_list = list(data["scores"])
        state.hands = [list(h) for h in data["hands"]]
        state.bag = list(data["bag"])
        state.discarded = list(data["discarded"])
        state.dropped_list = [int(s) for s in data.get("dropped", [])]
        state.to_move_seat = data["to_move"]
        state.actions_left = int(data["actions_left"])
        state.history_list = list(data["history"])
        state.log = [dict(e) for e in data["log"]]
        outcome = data.get("outcome")
        state.outcome_value = None if outcome is None else Outcome.from_json(outcome)
        state._base = None
        state._flip_cache = None
        state._reset_caches()
        return state


# By mask of the sides of a tile that have a neighbour and no piece on their spoke: the quadrants
# both of whose sides are such (quadrant q lies on sides and spokes q and q - 1).
_ENCLOSED = tuple(
    tuple(q for q in range(4) if mask >> q & 1 and mask >> (q + 3) % 4 & 1) for mask in range(16)
)

# What marks a move that needs a boot, a fork, a bet or a shovel (see Flags).
_SPENT = (" boot ", " fork ", " bet ", "flip ")


def _cut(moves: list[str], prefix: str) -> None:
    """Take the moves starting with `prefix` out of the sorted `moves`."""
    start = bisect_left(moves, prefix)
    # Past every move starting with the prefix (a space) and before the next prefix.
    end = bisect_left(moves, prefix[:-1] + "!", start)
    del moves[start:end]


def _put(moves: list[str], prefix: str, tails: tuple[str, ...]) -> None:
    """Put the moves `prefix` + each of `tails` (sorted) into the sorted `moves`."""
    start = bisect_left(moves, prefix)
    moves[start:start] = [prefix + tail for tail in tails]
