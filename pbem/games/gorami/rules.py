"""GORami's position and rules: placing, capturing, skipping, the end and the fish count.

Rules: docs/rules/gorami.md. Geometry lives in `board`, move notation in `notation`, drawing in
`render`; the package's `__init__` is the registry entry.

The state is a handful of ints so that copy-on-play stays cheap: bit masks over the board's cells
for the filled cells and the yellow cells; the cells holding each number, and for each number the
empty cells it may still go on (no edge neighbour holds that number), each as three masks packed
into one int (`notation.FIELD`); the hands as six counts in one int; the tally, the stripes'
yellow-minus-blue sums and the interior sums packed into one int, so that the fish of a finished
game cost a few operations. A state also keeps where its seat to move may place each number (the
same packing): legal moves are read off it and a move is checked against it with one test. The
history is a chain of (earlier, move) pairs, so a play adds a pair instead of copying a tuple.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pbem.games.base import JSON, IllegalMove, Outcome, Past
from pbem.games.gorami.board import Board
from pbem.games.gorami.notation import (
    FIELD,
    HAND_BITS,
    HAND_MASK,
    HOLDING,
    NUMBERS,
    REPEAT,
    SEAT_HAND_BITS,
    SEAT_HAND_MASK,
    TALLY_BITS,
    MoveTables,
    Step,
    disc_code,
    parse_disc,
    parse_move,
    tables,
)
from pbem.games.messages import N_, Listing, Message, Param, seat_ref
from pbem.games.two_player import TwoPlayerState

NAME = "gorami"
COLOURS = ("yellow", "blue")
# A colour and a number are said together: some languages agree one with the other.
COLOUR_DISC = (N_("yellow %(n)s"), N_("blue %(n)s"))
# How the rules ended a game, by whether the board is full (else neither player could place).
DRAWN = {
    True: N_(
        "Draw: the board is full; %(fish)s fish each and the interior cells tied at %(interior)s"
    ),
    False: N_(
        "Draw: neither player could place; %(fish)s fish each and the interior cells tied at "
        "%(interior)s"
    ),
}
WON_ON_FISH = {
    True: N_("The board is full; %(winner)s wins %(fish)s fish to %(other)s"),
    False: N_("Neither player could place; %(winner)s wins %(fish)s fish to %(other)s"),
}
WON_ON_INTERIOR = {
    True: N_(
        "The board is full; %(fish)s fish each, so the interior cells decide: %(winner)s wins "
        "%(cells)s to %(other)s"
    ),
    False: N_(
        "Neither player could place; %(fish)s fish each, so the interior cells decide: "
        "%(winner)s wins %(cells)s to %(other)s"
    ),
}
COLOUR_HAS_NONE = (
    N_("%(move)s: yellow has no %(number)s left; %(hold)s"),
    N_("%(move)s: blue has no %(number)s left; %(hold)s"),
)


class GoramiState(TwoPlayerState):
    """One GORami position. Immutable: `play` returns a new state."""

    TITLE = "GORami"
    COLOURS = COLOURS
    SCORE_LABEL = Message("fish")
    NO_SUCH_SEAT = "gorami: seat {seat!r} does not exist; seats are 0 (yellow), 1 (blue)"

    __slots__ = (
        "_allowed",
        "_captured",
        "_hands",
        "_nums",
        "_occ",
        "_open",
        "_outcome",
        "_past",
        "_seed",
        "_t",
        "_tally",
        "_to_move",
        "_yellow",
    )

    _t: MoveTables
    _seed: int
    _occ: int  # filled cells
    _yellow: int  # filled cells holding a yellow disc; the rest of _occ is blue
    _nums: int  # cells holding a 1, a 2, a 3, packed
    _open: int  # empty cells with no edge neighbour holding a 1, a 2, a 3, packed
    _hands: int  # discs left, a count per seat * 3 + (number - 1), HAND_BITS each
    _tally: int  # per stripe yellow's sum minus blue's, then the interior sums (notation)
    _allowed: int  # _open where to_move holds the number; 0 once the game is over
    _to_move: int | None
    _captured: int  # discs that changed colour on the last move

    # -- construction -------------------------------------------------------------------------

    @classmethod
    def _make(
        cls,
        t: MoveTables,
        seed: int,
        occ: int,
        yellow: int,
        nums: int,
        open_: int,
        hands: int,
        tally: int,
        last_mover: int,
        past: Past,
        captured: int = 0,
    ) -> GoramiState:
        """A state with the turn settled: the other seat if it can place, else the same seat.

        `play` settles the turn inline (it is the hot path); the rule there is the same."""
        state = object.__new__(cls)
        state._t = t
        state._seed = seed
        state._occ = occ
        state._yellow = yellow
        state._nums = nums
        state._open = open_
        state._hands = hands
        state._tally = tally
        state._past = past
        state._captured = captured
        state._outcome = None
        for seat in (1 - last_mover, last_mover):
            allowed = open_ & HOLDING[hands >> SEAT_HAND_BITS * seat & SEAT_HAND_MASK]
            if allowed:
                state._to_move = seat
                state._allowed = allowed
                return state
        state._to_move = None
        state._allowed = 0
        state._outcome = state._final_outcome()
        return state

    @classmethod
    def initial(cls, size: int, seed: int) -> GoramiState:
        t = tables(size)
        # Seat 1 "moved last", so yellow (seat 0) opens.
        return cls._make(t, seed, 0, 0, 0, t.full * REPEAT, t.full_hands, t.tally_start, 1, None)

    # -- the State protocol -------------------------------------------------------------------

    @property
    def board(self) -> Board:
        return self._t.geo

    @property
    def seed(self) -> int:
        return self._seed

    @property
    def to_move(self) -> int | None:
        return self._to_move

    def _ended(self, outcome: Outcome) -> GoramiState:
        """A copy for `settled`: `outcome` its outcome, nobody to move, nothing allowed."""
        state = object.__new__(GoramiState)
        for slot in GoramiState.__slots__:
            setattr(state, slot, getattr(self, slot))
        state._to_move = None
        state._allowed = 0
        state._outcome = outcome
        return state

    def legal_moves(self) -> list[str]:
        allowed = self._allowed
        if not allowed:
            return []
        t = self._t
        half = t.half
        mask = (1 << half) - 1
        ones, ones_high, twos, twos_high, threes, threes_high = t.listing
        return [
            *ones[allowed & mask],
            *ones_high[(allowed >> half) & mask],
            *twos[(allowed >> FIELD) & mask],
            *twos_high[(allowed >> (FIELD + half)) & mask],
            *threes[(allowed >> 2 * FIELD) & mask],
            *threes_high[allowed >> (2 * FIELD + half)],
        ]

    def play(self, move: str) -> GoramiState:
        t = self._t
        try:
            step: Step | None = t.steps[move]
        except (KeyError, TypeError):  # not canonical, or unhashable junk
            step = None
        if step is None:
            parse_move(t, move)  # raises unless the move is canonical once squeezed
            text = "".join(move.split()).lower()
            step = t.steps[text]
        else:
            text = move
        seat = self._to_move
        if seat is None:
            raise IllegalMove(
                Message(
                    "%(move)s: the game is over (%(why)s); no more moves",
                    move=move.strip(),
                    why=self._over_words(),
                )
            )
        n, cell, bit, placed, near, keep, neighbours, spent, change = step
        if not self._allowed & placed:
            raise IllegalMove(self._why_illegal(move.strip(), n, cell, seat))

        occ = self._occ | bit
        yellow = self._yellow
        tally = self._tally + change[seat]
        # Capture: an opponent disc next to the new one with no empty neighbour left turns over.
        flips = 0
        candidates = near & (occ & ~yellow if seat == 0 else yellow)
        if candidates:
            nmasks = t.neighbour_masks
            nums = self._nums
            for other in neighbours:
                if candidates >> other & 1 and not nmasks[other] & ~occ:
                    flips |= 1 << other
                    turned = t.turned[other][nums >> other & REPEAT]
                    tally += turned if seat == 0 else -turned
        open_ = self._open & keep
        hands = self._hands - spent[seat]

        state = object.__new__(GoramiState)
        state._t = t
        state._seed = self._seed
        state._occ = occ
        state._yellow = yellow | bit | flips if seat == 0 else yellow & ~flips
        state._nums = self._nums | placed
        state._open = open_
        state._hands = hands
        state._tally = tally
        state._past = (self._past, text)
        state._captured = flips
        state._outcome = None
        # The turn, as in _make: the other seat if it can place, else the same seat, else the end.
        if seat:
            allowed = open_ & HOLDING[hands & SEAT_HAND_MASK]
            if allowed:
                state._to_move = 0
            else:
                allowed = open_ & HOLDING[hands >> SEAT_HAND_BITS]
                state._to_move = 1
        else:
            allowed = open_ & HOLDING[hands >> SEAT_HAND_BITS]
            if allowed:
                state._to_move = 1
            else:
                allowed = open_ & HOLDING[hands & SEAT_HAND_MASK]
                state._to_move = 0
        state._allowed = allowed
        if not allowed:
            state._to_move = None
            state._outcome = state._final_outcome()
        return state

    # -- parsing and messages -----------------------------------------------------------------

    def _why_illegal(self, shown: str, n: int, cell: int, seat: int) -> Message:
        geo = self._t.geo
        name = geo.cells[cell].name
        number = n + 1
        bit = 1 << cell
        if self._occ & bit:
            disc = self._disc(cell)
            assert disc is not None
            return Message(
                "%(move)s: %(cell)s already holds a disc (%(disc)s); place on an empty cell",
                move=shown,
                cell=name,
                disc=Message(COLOUR_DISC[disc[1]], n=disc[0]),
            )
        if self._held(seat, n) == 0:
            left = [str(k + 1) for k in range(3) if self._held(seat, k)]
            hold = (
                Message("you still hold %(numbers)s", numbers=", ".join(left))
                if left
                else Message("you hold no discs")
            )
            return Message(COLOUR_HAS_NONE[seat], move=shown, number=number, hold=hold)
        touching = [
            geo.cells[other].name
            for other in geo.neighbours[cell]
            if self._numbered(n) >> other & 1
        ]
        free = self._open >> FIELD * n & geo.full_mask
        allowed = geo.names_of(free)
        where = (
            Message("a %(number)s may go on %(cells)s", number=number, cells=", ".join(allowed))
            if allowed
            else Message("no cell takes a %(number)s now", number=number)
        )
        return Message.counted(
            "%(move)s: %(cells)s already holds a %(number)s; a disc may not touch an equal "
            "number along an edge (%(where)s)",
            "%(move)s: %(cells)s already hold a %(number)s; a disc may not touch an equal "
            "number along an edge (%(where)s)",
            len(touching),
            move=shown,
            cells=Listing(touching),
            number=number,
            where=where,
        )

    def _over_words(self) -> Message:
        outcome = self._outcome
        if outcome is None:
            return Message("running")
        if outcome.said is not None:
            return Message("the game is over")
        if outcome.reason == "board-full":
            return Message("the board is full")
        return Message("neither player can place")

    # -- describing moves and the end (seats as {0}/{1} for games.fill_names) -----------------

    def _sentence(self, after: GoramiState) -> Message:
        """The sentence for the move that led from this position to `after`: `{0} placed a 2 on
        b3 and captured the 1 on c4`, then whether the opponent is skipped or the game ends."""
        seat = self._to_move
        assert seat is not None  # play refuses moves once the game is over
        geo = self._t.geo
        assert after._past is not None  # after is a play from this position
        n, cell = self._t.moves[after._past[1]]
        words = Message(
            "%(seat)s placed a %(number)s on %(cell)s",
            seat=seat_ref(seat),
            number=n + 1,
            cell=geo.cells[cell].name,
        )
        captured: list[Param] = []
        for name in after.captured():
            disc = after.disc(name)
            assert disc is not None
            captured.append(Message("the %(number)s on %(cell)s", number=disc[0], cell=name))
        if captured:
            words = Message("%(move)s and captured %(discs)s", move=words, discs=Listing(captured))
        outcome = after._outcome
        if outcome is not None:
            if outcome.reason == "board-full":
                return Message("%(move)s; the board is full, so the game ends", move=words)
            return Message("%(move)s; neither player can place, so the game ends", move=words)
        if after._to_move == seat:
            return Message(
                "%(move)s; %(other)s cannot place, so %(seat)s places again",
                move=words,
                other=seat_ref(1 - seat),
                seat=seat_ref(seat),
            )
        return words

    def _result(self, outcome: Outcome) -> Message:
        """How the rules ended the game, e.g. `The board is full; {0} wins 7 fish to 2`."""
        full = outcome.reason == "board-full"
        fish = self.fish()
        interior = self.interior()
        if not outcome.winners:
            return Message(DRAWN[full], fish=fish[0], interior=interior[0])
        win = outcome.winners[0]
        if fish[0] != fish[1]:
            return Message(
                WON_ON_FISH[full], winner=seat_ref(win), fish=fish[win], other=fish[1 - win]
            )
        return Message(
            WON_ON_INTERIOR[full],
            fish=fish[0],
            winner=seat_ref(win),
            cells=interior[win],
            other=interior[1 - win],
        )

    def _supplies(self, seat: int) -> Message:
        """A seat's discs left, by number, for its line in the summary."""
        left = " · ".join(f"{n}×{self._held(seat, n - 1)}" for n in NUMBERS)
        return Message("discs left: %(discs)s", discs=left)

    # -- position queries ---------------------------------------------------------------------

    def _held(self, seat: int, n: int) -> int:
        """Discs numbered n + 1 left to `seat`."""
        return self._hands >> HAND_BITS * (3 * seat + n) & HAND_MASK

    def _numbered(self, n: int) -> int:
        """The cells holding a disc numbered n + 1."""
        return self._nums >> FIELD * n & self._t.geo.full_mask

    def _disc(self, cell: int) -> tuple[int, int] | None:
        """(number, seat) of the disc on `cell`, or None when empty."""
        bit = 1 << cell
        if not self._occ & bit:
            return None
        nums = self._nums
        number = 1 if nums & bit else 2 if nums >> FIELD & bit else 3
        return number, 0 if self._yellow & bit else 1

    def disc(self, name: str) -> tuple[int, int] | None:
        """(number, seat) of the disc on the cell called `name`, or None when empty."""
        return self._disc(self._t.geo.by_name[name])

    def captured(self) -> list[str]:
        """Cells whose discs changed colour on the last move."""
        return self._t.geo.names_of(self._captured)

    def hand(self, seat: int) -> list[int]:
        """Discs left to `seat`, for numbers 1, 2, 3."""
        return [self._held(seat, n) for n in range(3)]

    def _sums(self, mask: int) -> list[int]:
        """Each seat's sum of numbers on the cells of `mask`."""
        out = []
        for colour in (self._yellow, self._occ & ~self._yellow):
            # The count over all three fields, plus over the 2s and 3s, plus over the 3s.
            held = self._nums & (colour & mask) * REPEAT
            out.append(
                held.bit_count() + (held >> FIELD).bit_count() + (held >> 2 * FIELD).bit_count()
            )
        return out

    def stripe_sums(self) -> list[list[int]]:
        """[yellow sum, blue sum] for every stripe, in board order."""
        return [self._sums(stripe.mask) for stripe in self._t.geo.stripes]

    def fish(self) -> list[int]:
        """Stripes won by yellow and by blue, read off the packed stripe sums at once."""
        t = self._t
        tally, tops = self._tally, t.stripe_tops
        yellow = ((tally + t.stripe_ahead) & tops).bit_count()
        blue = t.stripe_count - ((tally + t.stripe_level) & tops).bit_count()
        return [yellow, blue]

    def interior(self) -> list[int]:
        """Yellow's and blue's sums on the interior cells, from the tally."""
        interior = self._tally >> self._t.interior_shift
        return [interior & (1 << TALLY_BITS) - 1, interior >> TALLY_BITS]

    def scores(self) -> list[int]:
        return self.fish()

    def _final_outcome(self) -> Outcome:
        fish = self.fish()
        interior = self.interior()
        if fish[0] != fish[1]:
            winners, tiebreak = [0 if fish[0] > fish[1] else 1], "fish"
        elif interior[0] != interior[1]:
            winners, tiebreak = [0 if interior[0] > interior[1] else 1], "interior"
        else:
            winners, tiebreak = [], "draw"
        reason = "board-full" if self._occ == self._t.geo.full_mask else "no-move"
        details = {"fish": fish, "interior": interior, "tiebreak": tiebreak}
        return Outcome(winners, list(fish), reason, details)

    # -- serialisation ------------------------------------------------------------------------

    def to_json(self) -> JSON:
        geo = self._t.geo
        discs: dict[str, str] = {}
        for cell in geo.cells:
            disc = self._disc(cell.index)
            if disc is not None:
                discs[cell.name] = disc_code(disc[0], disc[1])
        return {
            "game": NAME,
            "board": geo.size,
            "seed": self._seed,
            "to_move": self._to_move,
            "discs": discs,
            "hands": [self.hand(0), self.hand(1)],
            "captured": self.captured(),
            "history": self.history,
        }

    def view(self, seat: int | None) -> JSON:
        self.check_seat(seat)
        geo = self._t.geo
        cells = []
        for cell in geo.cells:
            disc = self._disc(cell.index)
            cells.append(
                {
                    "name": cell.name,
                    "row": cell.row,
                    "col": cell.col,
                    "orientation": cell.orientation,
                    "interior": bool(geo.interior_mask >> cell.index & 1),
                    "neighbours": [geo.cells[o].name for o in geo.neighbours[cell.index]],
                    "disc": None
                    if disc is None
                    else {"number": disc[0], "colour": COLOURS[disc[1]], "seat": disc[1]},
                }
            )
        stripes = []
        for stripe, sums in zip(geo.stripes, self.stripe_sums(), strict=True):
            winner = 0 if sums[0] > sums[1] else 1 if sums[1] > sums[0] else None
            stripes.append(
                {
                    "direction": stripe.direction,
                    "cells": [geo.cells[i].name for i in stripe.cells],
                    "sums": sums,
                    "fish": winner,
                }
            )
        fish = self.fish()
        return {
            "game": NAME,
            "board": geo.size,
            "seat": seat,
            "players": 2,
            "colours": list(COLOURS),
            "to_move": self._to_move,
            "cells": cells,
            "rows": [[geo.cells[i].name for i in row] for row in geo.rows],
            "hands": [{str(n): self._held(s, n - 1) for n in NUMBERS} for s in range(2)],
            "scores": fish,
            "fish": fish,
            "interior": self.interior(),
            "interior_cells": [geo.cells[i].name for i in geo.interior],
            "stripes": stripes,
            "legal_moves": self.legal_moves(),
            "last_move": None if self._past is None else self._past[1],
            "captured": self.captured(),
            "history": self.history,
            "dropped": [],
            "outcome": None if self._outcome is None else self._outcome.to_json(),
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> GoramiState:
        if data.get("game", NAME) != NAME:
            raise ValueError(f"gorami: this state belongs to {data.get('game')!r}")
        try:
            size = int(data["board"])
            seed = int(data.get("seed", 0))
            discs = {str(k): str(v) for k, v in dict(data["discs"]).items()}
            hands = [[int(x) for x in hand] for hand in data["hands"]]
            to_move = data["to_move"]
            history = [str(m) for m in data.get("history", [])]
            captured = [str(c) for c in data.get("captured", [])]
        except (KeyError, TypeError, ValueError) as exc:
            raise ValueError(f"gorami: malformed state ({exc})") from exc
        state = setup(
            size, discs, to_move=to_move, hands=hands, seed=seed, history=history, captured=captured
        )
        if state.to_move != to_move:
            raise ValueError(
                f"gorami: the state says seat {to_move} is to move, but it cannot place"
            )
        return state


def setup(
    size: int,
    discs: Mapping[str, str],
    to_move: int | None = 0,
    hands: list[list[int]] | None = None,
    seed: int = 0,
    history: list[str] | None = None,
    captured: list[str] | None = None,
) -> GoramiState:
    """A position from its parts: `discs` maps cell names to "y2"/"b3", hands default to the rest.

    Used by `from_json`, and by tests to set up positions. The position is checked (disc counts,
    whose turn) and the turn is settled by the same rule as in play: if `to_move` cannot place
    the other seat moves, and if neither can the game is over. `to_move=None` asserts it is over.
    """
    if size not in (16, 22, 24):
        raise ValueError(f"gorami: there is no {size}-cell board; choose 22, 16 or 24")
    t = tables(size)
    geo = t.geo
    occ, yellow, nums, blocked, placed = _discs(geo, discs)
    packed_hands = _hands(geo.discs_per_number, placed, hands)
    flipped = 0
    for name in captured or ():
        cell = geo.by_name.get(name)
        if cell is None or not occ >> cell & 1:
            raise ValueError(f"gorami: captured cell {name!r} holds no disc")
        flipped |= 1 << cell
    if to_move not in (0, 1, None):
        raise ValueError(f"gorami: to_move must be 0, 1 or null, not {to_move!r}")
    past: Past = None
    for move in history or ():
        past = (past, move)
    # The tally from the masks, counted as _sums counts them.
    tally = t.tally_start
    for cell in range(len(geo.cells)):
        if occ >> cell & 1:
            seat = 0 if yellow >> cell & 1 else 1
            for n in range(3):
                if nums[n] >> cell & 1:
                    tally += t.placed[cell][n][seat]
    state = GoramiState._make(
        t,
        seed,
        occ,
        yellow,
        nums[0] | nums[1] << FIELD | nums[2] << 2 * FIELD,
        (geo.full_mask & ~occ) * REPEAT
        & ~(blocked[0] | blocked[1] << FIELD | blocked[2] << 2 * FIELD),
        packed_hands,
        tally,
        1 - (to_move or 0),
        past,
        flipped,
    )
    if to_move is None and state.to_move is not None:
        raise ValueError("gorami: the state says the game is over, but a player can still place")
    if to_move is not None and state.to_move is None:
        raise ValueError("gorami: the state says a player is to move, but the game is over")
    return state


def _discs(
    geo: Board, discs: Mapping[str, str]
) -> tuple[int, int, list[int], list[int], list[list[int]]]:
    """`setup`'s discs read and checked: the filled cells, the yellow ones, the cells holding
    each number, the cells each number may no longer go on, and each seat's discs by number."""
    occ = yellow = 0
    nums = [0, 0, 0]
    blocked = [0, 0, 0]
    placed = [[0, 0, 0], [0, 0, 0]]
    for name, code in discs.items():
        cell = geo.by_name.get(name.strip().lower())
        parsed = parse_disc(code)
        if cell is None or parsed is None:
            raise ValueError(f"gorami: bad disc {name!r}: {code!r}")
        n, seat = parsed
        bit = 1 << cell
        if blocked[n] & bit:
            raise ValueError(f"gorami: {name} touches another {n + 1} along an edge")
        occ |= bit
        if seat == 0:
            yellow |= bit
        nums[n] |= bit
        blocked[n] |= geo.neighbour_masks[cell]
        placed[seat][n] += 1
    return occ, yellow, nums, blocked, placed


def _hands(k: int, placed: list[list[int]], hands: list[list[int]] | None) -> int:
    """`setup`'s hands checked against the discs on the board (`k` of each number per seat),
    packed as a state keeps them."""
    if hands is None:
        # Without captures each colour's discs came from its own hand.
        hands = [[k - placed[s][n] for n in range(3)] for s in range(2)]
    if len(hands) != 2 or any(len(h) != 3 for h in hands):
        raise ValueError("gorami: hands must list discs 1, 2, 3 for both seats")
    for n in range(3):
        total = placed[0][n] + placed[1][n] + hands[0][n] + hands[1][n]
        if min(hands[0][n], hands[1][n]) < 0 or total != 2 * k:
            raise ValueError(f"gorami: there must be {2 * k} discs numbered {n + 1} in all")
    return sum(count << HAND_BITS * i for i, count in enumerate((*hands[0], *hands[1])))
