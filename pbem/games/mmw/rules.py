"""Martian Mud Wrestling: the position, the move rules and the end of the game.

Rules: docs/rules/mmw.md. Squares, pyramids and the stack encoding live in `board` (its docstring
describes the representation), move and stack notation in `notation`, drawing in `render`; the
package's `__init__` is the registry entry.

Repetition: a sinking removes pyramids for good, so no position from before the last sinking can
recur. The window of positions since the last sinking (at most 101) is all we keep, as a chain of
nodes (hash, board, player to move, the node before) that each new position extends without
copying. Beside it, two bit filters over the positions' hashes: the bits of the positions seen
and of those seen twice. A position whose bit has not been seen twice cannot be there a third
time, so the window is walked (comparing boards exactly) only when the filter says it may be.

The history is a chain of (earlier, move) pairs for the same reason; `history` unrolls it.
Each state also keeps which squares each seat's pyramids top (`_tops`, a bit per square in one
field per seat), so legal moves, the origin check and "has a move" are bit tests.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping, Sequence
from typing import Any, NamedTuple

from pbem.games.base import JSON, IllegalMove, Outcome, Past
from pbem.games.messages import N_, Listing, Message, Param, seat_ref
from pbem.games.mmw.board import (
    ARRIVALS,
    AS_RESTING,
    AS_TOUCHING,
    CELLS,
    COLOURS,
    NEIGHBOURS,
    PER_KIND,
    PER_PLAYER,
    PYRAMIDS,
    SEAT_OF,
    SIZE_NAMES,
    SIZE_OF,
    SQUARE_INDEX,
    SQUARE_NAMES,
    TOP_FIELD,
    TOP_SEAT,
    Board,
    Pyramid,
    arrive,
    initial_board,
    stack_info,
    stack_pyramids,
)
from pbem.games.mmw.notation import (
    MOVE_SQUARES,
    MOVE_STEPS,
    MOVES_BY_FILE,
    Step,
    move_text,
    parse_move,
    parse_stack,
    stack_text,
)
from pbem.games.two_player import TwoPlayerState, colour_words

# The positions since the last sinking: (hash, board, player to move, the window before).
Window = tuple[int, Board, int, "Window"] | None
# Filter bits per window: at most 101 positions over 1024 bits, so random play walks the window
# (_count) about once in a thousand plies, mostly for real repetitions.
FILTER_MASK = 1023
SEAT_TOPS = ((1 << CELLS) - 1, ((1 << CELLS) - 1) << TOP_FIELD)

NAME = "mmw"
TITLE = "Martian Mud Wrestling"
NO_SINKING_LIMIT = 100
REPETITIONS = 3


class Ending(NamedTuple):
    """An ending of the rules in the words of each place that tells it."""

    clause: str  # added by `describe` to the move that ended the game
    refusal: str  # in the refusal of a move played after it
    sentence: str  # `describe_outcome`
    why: str  # the drawings' few words


# The endings with no seat to name; "no-move" names the seat left without one.
# Each place's words are message keys (pbem.games.messages), `%(plies)s` the limit where said.
ENDINGS = {
    "both-stuck": Ending(
        N_("neither player has a move, so the game ends"),
        N_("neither player had a move, both lost"),
        N_("Neither player could move, so both lose"),
        "neither could move",
    ),
    "repetition": Ending(
        N_("the same position has occurred a third time, so the game is drawn"),
        N_("drawn: the same position occurred a third time"),
        N_("Draw: the same position occurred a third time"),
        "the same position three times",
    ),
    "no-sinking-100": Ending(
        N_("%(plies)s plies have passed without a sinking, so the game is drawn"),
        N_("drawn: %(plies)s plies passed without a stack sinking"),
        N_("Draw: %(plies)s plies passed without a stack sinking"),
        f"{NO_SINKING_LIMIT} plies without a sinking",
    ),
}


def _ending_words(key: str) -> Message:
    """One of ENDINGS' messages, said."""
    return Message(key, plies=NO_SINKING_LIMIT) if "%(plies)s" in key else Message(key)


# A pyramid of each size as a move names it; sizes are said with their noun, which some
# languages inflect with them.
A_PYRAMID = (N_("a small pyramid"), N_("a medium pyramid"), N_("a large pyramid"))
COUNT_WORDS = {2: N_("two"), 3: N_("three"), 4: N_("four"), 5: N_("five")}
# Who may move what, by the seat to move; the colour of a stack's top pyramid, by its seat.
YOU_MAY_MOVE = (
    N_("you (red) can move the top pyramid of %(squares)s"),
    N_("you (blue) can move the top pyramid of %(squares)s"),
)
NOT_YOURS = (
    N_(
        "'%(move)s' is not allowed: the top pyramid on %(square)s is red, and you may only move "
        "a stack whose top pyramid is yours; %(allowed)s"
    ),
    N_(
        "'%(move)s' is not allowed: the top pyramid on %(square)s is blue, and you may only "
        "move a stack whose top pyramid is yours; %(allowed)s"
    ),
)
# A game won because the other had no move, in the refusal of a later move, by the winner.
NO_MOVE_WON = (N_("blue had no move, red won"), N_("red had no move, blue won"))


class MMWState(TwoPlayerState):
    """An immutable Martian Mud Wrestling position (see the docstrings of this module and of
    `board` for the representation)."""

    TITLE = TITLE
    COLOURS = COLOURS
    SCORE_LABEL = Message("pyramids on the board")
    NO_SUCH_SEAT = "mmw: seat must be 0, 1 or None (a spectator), not {seat!r}"

    __slots__ = (
        "_board",
        "_outcome",
        "_past",
        "_pws",
        "_seed",
        "_seen",
        "_seen_twice",
        "_sunk",
        "_tops",
        "_turn",
        "_window",
    )

    _board: Board
    _turn: int
    _pws: int
    _sunk: tuple[int, ...]
    _window: Window  # the positions since the last sinking, newest first
    _seen: int  # filter bits of the window's positions
    _seen_twice: int  # filter bits hit by two or more of them
    _tops: int  # squares topped by red, and TOP_FIELD bits up by blue
    _seed: int

    # -- construction

    @classmethod
    def start(
        cls,
        board: Board,
        turn: int = 0,
        plies_without_sinking: int = 0,
        history: Sequence[str] = (),
        seed: int = 0,
    ) -> MMWState:
        """A position with no earlier positions on record; pyramids not on the board are sunk."""
        if len(board) != CELLS:
            raise ValueError(f"mmw: a board has {CELLS} squares, not {len(board)}")
        if turn not in (0, 1):
            raise ValueError(f"mmw: to_move must be 0 or 1, not {turn!r}")
        if not 0 <= plies_without_sinking <= NO_SINKING_LIMIT:
            raise ValueError(
                f"mmw: plies_without_sinking must be 0 to {NO_SINKING_LIMIT}, "
                f"not {plies_without_sinking!r}"
            )
        on_board = [0] * 6
        tops = 0
        for i, stack in enumerate(board):
            for ch in stack:
                p = PYRAMIDS[ch]
                on_board[p.seat * 3 + p.size - 1] += 1
            if stack:
                tops |= 1 << (i + TOP_FIELD * SEAT_OF[stack[-1]])
        for kind, count in enumerate(on_board):
            if count > PER_KIND:
                seat, size = divmod(kind, 3)
                raise ValueError(
                    f"mmw: {count} {COLOURS[seat]} {SIZE_NAMES[size]} pyramids on the board; "
                    f"each player has only {PER_KIND}"
                )
        past: Past = None
        for move in history:
            past = (past, move)
        state = object.__new__(cls)
        state._board = board
        state._turn = turn
        state._pws = plies_without_sinking
        state._sunk = tuple(PER_KIND - n for n in on_board)
        state._past = past
        state._seed = seed
        state._tops = tops
        state._remember([(board, turn)])
        state._outcome = state._judge(repeated=False)
        return state

    def _remember(self, positions: Sequence[tuple[Board, int]]) -> None:
        """Make `positions` (oldest first, ending with this one) the window and its filters."""
        window: Window = None
        seen = twice = 0
        for board, turn in positions:
            h = _key(board, turn)
            bit = 1 << (h & FILTER_MASK)
            if seen & bit:
                twice |= bit
            seen |= bit
            window = (h, board, turn, window)
        self._window = window
        self._seen = seen
        self._seen_twice = twice

    def __getstate__(self) -> dict[str, Any]:
        """The chains unrolled for pickle and copy, which would recurse once per ply of them
        (and the hashes left out: another process hashes strings differently)."""
        positions = []
        node = self._window
        while node is not None:
            _, board, turn, node = node
            positions.append((board, turn))
        positions.reverse()
        return {
            "board": self._board,
            "turn": self._turn,
            "pws": self._pws,
            "sunk": self._sunk,
            "history": self.history,
            "window": positions,
            "tops": self._tops,
            "outcome": self._outcome,
            "seed": self._seed,
        }

    def __setstate__(self, state: dict[str, Any]) -> None:
        self._board = state["board"]
        self._turn = state["turn"]
        self._pws = state["pws"]
        self._sunk = state["sunk"]
        past: Past = None
        for move in state["history"]:
            past = (past, move)
        self._past = past
        self._remember(state["window"])
        self._tops = state["tops"]
        self._outcome = state["outcome"]
        self._seed = state["seed"]

    # -- the contract

    @property
    def to_move(self) -> int | None:
        return None if self._outcome is not None else self._turn

    def _ended(self, outcome: Outcome) -> MMWState:
        """A copy for `settled`: with an outcome nobody moves and no move is legal."""
        state = copy.copy(self)
        state._outcome = outcome
        return state

    @property
    def seed(self) -> int:
        return self._seed

    @property
    def turn(self) -> int:
        """The seat whose turn it is (or would be, once the game is over)."""
        return self._turn

    @property
    def plies_without_sinking(self) -> int:
        return self._pws

    def legal_moves(self) -> list[str]:
        if self._outcome is not None:
            return []
        tops = self._tops >> TOP_FIELD * self._turn
        a, b, c, d, e = MOVES_BY_FILE
        return [
            *a[tops & 31],
            *b[tops >> 5 & 31],
            *c[tops >> 10 & 31],
            *d[tops >> 15 & 31],
            *e[tops >> 20 & 31],
        ]

    def play(self, move: str) -> MMWState:
        step: Step | None = MOVE_STEPS.get(move)
        shown = move
        if step is None:
            found = parse_move(move)
            shown = " ".join(move.split())
            if self._outcome is not None:
                raise IllegalMove(self._over_message(shown))
            self._check_geometry(shown, *found)
            move = move_text(*found)
            step = MOVE_STEPS[move]
        elif self._outcome is not None:
            raise IllegalMove(self._over_message(move))
        frm, to, untop, from_bits, to_bits = step
        turn = self._turn
        tops = self._tops
        if not tops & from_bits[turn]:
            raise IllegalMove(self._origin_message(shown, frm))

        board = self._board
        src = board[frm]
        dst = board[to]
        arrival = dst + src[-1]
        after = ARRIVALS.get(arrival)
        if after is None:
            after = arrive(dst, src[-1])
        new = list(board)
        left = src[:-1]
        new[frm] = left
        new[to] = after
        nboard = tuple(new)
        nturn = 1 - turn
        h = hash(nboard) + nturn  # _key, inline
        tops = tops & untop | from_bits[TOP_SEAT[left[-1:]]]
        state = object.__new__(MMWState)
        if after:
            tops |= to_bits[turn]
            state._sunk = self._sunk
            window = (h, nboard, nturn, self._window)
            state._window = window
            bit = 1 << (h & FILTER_MASK)
            seen = self._seen
            if seen & bit:
                twice = self._seen_twice
                if twice & bit:
                    repeated = _count(window) >= REPETITIONS
                else:
                    repeated = False
                    twice |= bit
                state._seen = seen
                state._seen_twice = twice
            else:
                repeated = False
                state._seen = seen | bit
                state._seen_twice = self._seen_twice
            state._pws = pws = self._pws + 1
        else:
            counts = list(self._sunk)
            for ch in arrival:
                p = PYRAMIDS[ch]
                counts[p.seat * 3 + p.size - 1] += 1
            state._sunk = tuple(counts)
            # A sinking starts the window afresh: nothing before it can come back.
            state._window = (h, nboard, nturn, None)
            state._seen = 1 << (h & FILTER_MASK)
            state._seen_twice = 0
            state._pws = pws = 0
            repeated = False
        state._board = nboard
        state._turn = nturn
        state._tops = tops
        state._past = (self._past, move)
        state._seed = self._seed
        # The end, in the order of the rules page (see _judge): stuck, repetition, 100 plies.
        if not tops & SEAT_TOPS[nturn] or repeated or pws >= NO_SINKING_LIMIT:
            state._outcome = state._judge(repeated)
        else:
            state._outcome = None
        return state

    def _last_move(self) -> str | None:
        past = self._past
        return None if past is None else past[1]

    def scores(self) -> list[int]:
        sunk = self._sunk
        return [PER_PLAYER - sum(sunk[0:3]), PER_PLAYER - sum(sunk[3:6])]

    # -- end of game

    def _has_move(self, seat: int) -> bool:
        return bool(self._tops & SEAT_TOPS[seat])

    def occurrences(self) -> int:
        """How often the current position has occurred (this one included)."""
        return _count(self._window)

    def _judge(self, repeated: bool) -> Outcome | None:
        """The outcome of the position just reached, checked in the order of the rules page;
        `repeated`: the position is there for the third time since the last sinking."""
        turn = self._turn
        if not self._has_move(turn):
            other = 1 - turn
            if not self._has_move(other):
                return Outcome([], self.scores(), "both-stuck", {"stuck": [0, 1]})
            return Outcome([other], self.scores(), "no-move", {"stuck": [turn]})
        if repeated:
            return Outcome([], self.scores(), "repetition", {"occurrences": REPETITIONS})
        if self._pws >= NO_SINKING_LIMIT:
            return Outcome(
                [], self.scores(), "no-sinking-100", {"plies_without_sinking": self._pws}
            )
        return None

    # -- messages

    def _over_message(self, shown: str) -> Message:
        outcome = self._outcome
        assert outcome is not None
        return Message(
            "'%(move)s' cannot be played: the game is over (%(why)s)",
            move=shown,
            why=_describe(outcome),
        )

    def _check_geometry(self, shown: str, frm: int, to: int) -> None:
        if frm == to:
            raise IllegalMove(
                Message(
                    "'%(move)s' is not allowed: a pyramid must move to another square, one step "
                    "in any of the eight directions",
                    move=shown,
                )
            )
        if to not in NEIGHBOURS[frm]:
            near = ", ".join(SQUARE_NAMES[j] for j in NEIGHBOURS[frm])
            raise IllegalMove(
                Message(
                    "'%(move)s' is not allowed: %(to)s is not next to %(from)s; a pyramid moves "
                    "one square in any of the eight directions (from %(from)s: %(near)s)",
                    move=shown,
                    to=SQUARE_NAMES[to],
                    near=near,
                    **{"from": SQUARE_NAMES[frm]},
                )
            )

    def _origin_message(self, shown: str, frm: int) -> Message:
        turn = self._turn
        mine = [SQUARE_NAMES[i] for i, s in enumerate(self._board) if s and SEAT_OF[s[-1]] == turn]
        allowed = Message(YOU_MAY_MOVE[turn], squares=", ".join(mine))
        stack = self._board[frm]
        name = SQUARE_NAMES[frm]
        if not stack:
            return Message(
                "'%(move)s' is not allowed: there is no pyramid on %(square)s; %(allowed)s",
                move=shown,
                square=name,
                allowed=allowed,
            )
        top = SEAT_OF[stack[-1]]
        return Message(NOT_YOURS[top], move=shown, square=name, allowed=allowed)

    # -- describing moves and the end (seats as {0}/{1} for games.fill_names)

    def _sentence(self, after: MMWState) -> Message:
        """The sentence for the move that led from this position to `after`: `{0} moved a large
        pyramid from b1 onto the stack on c2, where it drops over and touches the board`, then
        any sinking (the touching and resting points that sank the stack, and which pyramids of
        whom went down with it) and the end of the game."""
        seat = self._turn
        move = after._last_move()
        assert move is not None  # after is a play from this position
        frm, to = MOVE_SQUARES[move]
        size = SIZE_OF[self._board[frm][-1]]
        below = self._board[to]
        largest, touching, resting = stack_info(below)
        drops = size > largest
        if drops:
            touching += size
        else:
            resting += size
        moved = {
            "seat": seat_ref(seat),
            "pyramid": Message(A_PYRAMID[size - 1]),
            "from": SQUARE_NAMES[frm],
            "to": SQUARE_NAMES[to],
        }
        if not below:
            words = Message("%(seat)s moved %(pyramid)s from %(from)s to %(to)s", **moved)
        elif drops:
            words = Message(
                "%(seat)s moved %(pyramid)s from %(from)s onto the stack on %(to)s, where it "
                "drops over and touches the board",
                **moved,
            )
        else:
            words = Message(
                "%(seat)s moved %(pyramid)s from %(from)s onto the stack on %(to)s, where it "
                "rests on the pile",
                **moved,
            )
        if touching < resting:
            sunk = [(SEAT_OF[ch], SIZE_OF[ch]) for ch in below] + [(seat, size)]
            losses: list[Param] = [
                Message(
                    "%(seat)s lost %(pyramids)s",
                    seat=seat_ref(s),
                    pyramids=_counted([k for owner, k in sunk if owner == s]),
                )
                for s in (0, 1)
                if any(owner == s for owner, _ in sunk)
            ]
            words = Message(
                "%(move)s; the stack on %(square)s sank into the mud (touching %(touching)s < "
                "resting %(resting)s): %(losses)s",
                move=words,
                square=SQUARE_NAMES[to],
                touching=touching,
                resting=resting,
                losses=Listing(losses),
            )
        outcome = after._outcome
        if outcome is not None:
            words = Message("%(move)s; %(ending)s", move=words, ending=_ending(outcome))
        return words

    def _result(self, outcome: Outcome) -> Message:
        """How the rules ended the game, e.g. `{1} could not move; {0} wins with 9 pyramids on
        the board to 6`."""
        scores = outcome.scores
        if outcome.reason == "no-move" and len(outcome.winners) == 1:
            (winner,) = outcome.winners
            return Message(
                "%(loser)s could not move; %(winner)s wins with %(pyramids)s on the board to "
                "%(other)s",
                loser=seat_ref(1 - winner),
                winner=seat_ref(winner),
                pyramids=_pyramids(scores[winner]),
                other=scores[1 - winner],
            )
        if outcome.reason in ENDINGS:
            return _ending_words(ENDINGS[outcome.reason].sentence)
        # Not reached by the engine's own endings; worded without the reason's code.
        if outcome.winners:
            return Message.counted(
                "%(who)s wins",
                "%(who)s win",
                len(outcome.winners),
                who=Listing(seat_ref(w) for w in outcome.winners),
            )
        return Message("The game ended without a winner")

    def _supplies(self, seat: int) -> Message:
        """A seat's pyramids left by size and how many sank, for its line in the summary."""
        small, medium, large = self.on_board_by_size()[seat]
        sunk = PER_PLAYER - self.scores()[seat]
        return Message(
            "small %(small)s, medium %(medium)s, large %(large)s · sunk %(sunk)s",
            small=small,
            medium=medium,
            large=large,
            sunk=sunk,
        )

    # -- inspection

    def stack(self, square: str | int) -> list[Pyramid]:
        """The pyramids on a square, bottom first."""
        index = square if isinstance(square, int) else SQUARE_INDEX[square.strip().lower()]
        return stack_pyramids(self._board[index])

    def stacks(self) -> dict[str, list[Pyramid]]:
        return {SQUARE_NAMES[i]: stack_pyramids(s) for i, s in enumerate(self._board)}

    def sunk_by_size(self) -> list[list[int]]:
        """Sunk pyramids per seat, counted by size (small, medium, large)."""
        return [list(self._sunk[0:3]), list(self._sunk[3:6])]

    def on_board_by_size(self) -> list[list[int]]:
        return [[PER_KIND - n for n in row] for row in self.sunk_by_size()]

    # -- JSON

    def to_json(self) -> JSON:
        return {
            "game": NAME,
            "version": 1,
            "seed": self._seed,
            "board": {SQUARE_NAMES[i]: stack_text(s) for i, s in enumerate(self._board) if s},
            "turn": self._turn,
            "plies_without_sinking": self._pws,
            "history": self.history,
            "outcome": None if self._outcome is None else self._outcome.to_json(),
        }

    def view(self, seat: int | None) -> JSON:
        self.check_seat(seat)
        squares = {
            SQUARE_NAMES[i]: [
                {
                    "colour": p.colour,
                    "seat": p.seat,
                    "size": p.size,
                    "points": p.points,
                    "touching": p.touching,
                }
                for p in stack_pyramids(s)
            ]
            for i, s in enumerate(self._board)
        }
        scores = self.scores()
        return {
            "game": NAME,
            "seat": seat,
            "squares": squares,
            "stacks": {SQUARE_NAMES[i]: stack_text(s) for i, s in enumerate(self._board)},
            "to_move": self.to_move,
            "turn": self._turn,
            "colours": list(COLOURS),
            "scores": scores,
            "pieces_left": list(scores),
            "pieces_left_by_size": self.on_board_by_size(),
            "sunk": [PER_PLAYER - s for s in scores],
            "sunk_by_size": self.sunk_by_size(),
            "plies_without_sinking": self._pws,
            "occurrences": self.occurrences(),
            "last_move": self._last_move(),
            "history": self.history,
            "legal_moves": self.legal_moves(),
            "dropped": [],
            "outcome": None if self._outcome is None else self._outcome.to_json(),
        }


def _key(board: Board, turn: int) -> int:
    """A position's hash, for the repetition filters and a quick test before comparing boards."""
    return hash(board) + turn


def _count(window: Window) -> int:
    """How often the window's newest position occurs in it, that one included."""
    assert window is not None
    h, board, turn, earlier = window
    count = 1
    while earlier is not None:
        other_h, other_board, other_turn, earlier = earlier
        if other_h == h and other_turn == turn and other_board == board:
            count += 1
    return count


def _counted(sizes: list[int]) -> Listing:
    """`a small and two larges`: pyramids counted by size, smallest first."""
    parts: list[Param] = []
    for size in (1, 2, 3):
        n = sizes.count(size)
        if n:
            count = Message(COUNT_WORDS[n]) if n in COUNT_WORDS else str(n)
            parts.append(_of_size(size, n, count))
    return Listing(parts)


def _of_size(size: int, n: int, count: Param) -> Message:
    """`n` pyramids of one size: "a small", "two mediums", "7 larges"."""
    if size == 1:
        return Message.counted("a small", "%(count)s smalls", n, count=count)
    if size == 2:
        return Message.counted("a medium", "%(count)s mediums", n, count=count)
    return Message.counted("a large", "%(count)s larges", n, count=count)


def _pyramids(count: int) -> Message:
    return Message.counted("%(n)s pyramid", "%(n)s pyramids", count)


def _ending(outcome: Outcome) -> Message:
    """The clause of `describe` for a move that ended the game."""
    if outcome.reason == "no-move":
        (stuck,) = outcome.details.get("stuck", [1 - w for w in outcome.winners])
        return Message("%(seat)s has no move, so the game ends", seat=seat_ref(stuck))
    ending = ENDINGS.get(outcome.reason)
    return Message("the game ends") if ending is None else _ending_words(ending.clause)


def _describe(outcome: Outcome) -> Param:
    """How the game ended, in the refusal of a move played after it."""
    if outcome.said is not None:
        return colour_words(outcome.said, COLOURS)
    if outcome.reason == "no-move":
        (winner,) = outcome.winners
        return Message(NO_MOVE_WON[winner])
    ending = ENDINGS.get(outcome.reason)
    return outcome.reason if ending is None else _ending_words(ending.refusal)


def new_state(seed: int = 0) -> MMWState:
    return MMWState.start(initial_board(), 0, 0, (), seed)


def position(
    squares: Mapping[str, str | Sequence[str]],
    to_move: int = 0,
    plies_without_sinking: int = 0,
    seed: int = 0,
) -> MMWState:
    """A test/problem position: square -> pyramids bottom first (`"r1 r1"` or `["b1", "r3"]`).

    Touching status follows the arrival rule in the order given (a `'` mark is checked, not
    obeyed). Pyramids not placed count as sunk. The position counts as a first occurrence.
    """
    board = [""] * CELLS
    for name, text in squares.items():
        key = name.strip().lower()
        if key not in SQUARE_INDEX:
            raise ValueError(f"mmw: there is no square {name!r}")
        board[SQUARE_INDEX[key]] = parse_stack(text, key)
    return MMWState.start(tuple(board), to_move, plies_without_sinking, (), seed)


def _undo(board: Board, move: str, mover: int) -> Board:
    """The board before a move that did not sink anything."""
    frm, to = MOVE_SQUARES[move]
    dst = board[to]
    if not dst or SEAT_OF[dst[-1]] != mover:
        raise ValueError(f"mmw: history does not fit the board at {move!r}")
    below = board[frm]
    piece = dst[-1]
    piece = AS_TOUCHING[piece] if SIZE_OF[piece] > stack_info(below)[0] else AS_RESTING[piece]
    new = list(board)
    new[to] = dst[:-1]
    new[frm] = below + piece
    return tuple(new)


def from_json(data: Mapping[str, Any]) -> MMWState:
    """Rebuild a state from `to_json`; the repetition window is recovered by undoing moves."""
    if data.get("game", NAME) != NAME:
        raise ValueError(f"mmw: this is a {data.get('game')!r} state, not mmw")
    raw_board = data["board"]
    board_list = [""] * CELLS
    for name, text in raw_board.items():
        if name not in SQUARE_INDEX:
            raise ValueError(f"mmw: there is no square {name!r}")
        board_list[SQUARE_INDEX[name]] = parse_stack(text, name)
    board = tuple(board_list)
    turn = int(data["turn"])
    pws = int(data["plies_without_sinking"])
    history = tuple(str(m) for m in data["history"])
    for move in history:
        if move not in MOVE_SQUARES:
            raise ValueError(f"mmw: {move!r} in the history is not a canonical move")
    seed = int(data.get("seed", 0))
    state = MMWState.start(board, turn, min(pws, NO_SINKING_LIMIT), history, seed)
    # Walk back over the plies since the last sinking to recover the earlier positions.
    back = min(pws, len(history))
    window = [(board, turn)]
    b, t = board, turn
    for move in reversed(history[len(history) - back :]):
        t = 1 - t
        b = _undo(b, move, t)
        window.append((b, t))
    window.reverse()
    state._remember(window)
    outcome = data.get("outcome")
    state._outcome = None if outcome is None else Outcome.from_json(outcome)
    return state
