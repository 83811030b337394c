"""Martian Mud Wrestling: the position, the move rules and the end of the game.

Internal representation (chosen for copy-on-play speed):

- The board is a tuple of 25 stacks indexed ``file * 5 + rank`` so that index order is the
  sorted order of square names (``a1 < a2 < … < e5``); legal moves then come out sorted for free.
- A stack is a ``str``, bottom first, one character per pyramid: ``abc``/``def`` are red
  (seat 0) sizes 1–3 touching/resting, ``ABC``/``DEF`` the same for blue (seat 1).

A pyramid's touching status is fixed when it arrives (strictly larger than everything already
there) and the pyramids below it are exactly those that were there when it arrived (only tops
leave), so the status is a function of the stack below it. The engine still stores it per
pyramid because it makes sinking a constant-time sum; `position()` and `from_json` derive it.

Repetition: a sinking removes pyramids for good, so no position from before the last sinking can
recur. The window of positions since the last sinking (at most 101) is all we keep, as a tuple
of hashes beside a tuple of the positions themselves (to confirm a hash match exactly).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, NamedTuple

from pbem.games.base import JSON, IllegalMove, InvalidMove, Outcome

NAME = "mmw"
TITLE = "Martian Mud Wrestling"
COLOURS = ("red", "blue")
SIZE_NAMES = ("small", "medium", "large")
FILES = "abcde"
SIZE = 5
CELLS = SIZE * SIZE
PER_KIND = 5  # pyramids of each size per player
PER_PLAYER = PER_KIND * 3
NO_SINKING_LIMIT = 100
REPETITIONS = 3

Board = tuple[str, ...]


class Pyramid(NamedTuple):
    """One pyramid as the rules see it."""

    seat: int
    size: int
    touching: bool

    @property
    def colour(self) -> str:
        return COLOURS[self.seat]

    @property
    def points(self) -> int:
        return self.size

    def token(self) -> str:
        """Text form: `r3`, `b1'` (the mark means it rests and does not touch the board)."""
        mark = "" if self.touching else "'"
        return f"{COLOURS[self.seat][0]}{self.size}{mark}"


# --- squares and adjacency -------------------------------------------------------------------

SQUARE_NAMES: tuple[str, ...] = tuple(f"{f}{r}" for f in FILES for r in range(1, SIZE + 1))
SQUARE_INDEX: dict[str, int] = {name: i for i, name in enumerate(SQUARE_NAMES)}


def _neighbours(index: int) -> tuple[int, ...]:
    f, r = divmod(index, SIZE)
    out = [
        (f + df) * SIZE + (r + dr)
        for df in (-1, 0, 1)
        for dr in (-1, 0, 1)
        if (df or dr) and 0 <= f + df < SIZE and 0 <= r + dr < SIZE
    ]
    return tuple(sorted(out))


NEIGHBOURS: tuple[tuple[int, ...], ...] = tuple(_neighbours(i) for i in range(CELLS))
# Moves out of each square, already in sorted order.
MOVES_FROM: tuple[tuple[str, ...], ...] = tuple(
    tuple(f"{SQUARE_NAMES[i]}-{SQUARE_NAMES[j]}" for j in NEIGHBOURS[i]) for i in range(CELLS)
)
MOVE_SQUARES: dict[str, tuple[int, int]] = {
    f"{SQUARE_NAMES[i]}-{SQUARE_NAMES[j]}": (i, j) for i in range(CELLS) for j in NEIGHBOURS[i]
}


def square_index(file: int, rank: int) -> int:
    """Index of the square on file 0–4 (a–e) and rank 0–4 (1–5)."""
    return file * SIZE + rank


# --- pyramid characters ----------------------------------------------------------------------

_CHARS = {
    (0, 1, True): "a",
    (0, 2, True): "b",
    (0, 3, True): "c",
    (0, 1, False): "d",
    (0, 2, False): "e",
    (0, 3, False): "f",
    (1, 1, True): "A",
    (1, 2, True): "B",
    (1, 3, True): "C",
    (1, 1, False): "D",
    (1, 2, False): "E",
    (1, 3, False): "F",
}
_PYRAMIDS: dict[str, Pyramid] = {ch: Pyramid(*key) for key, ch in _CHARS.items()}
_SEAT: dict[str, int] = {ch: p.seat for ch, p in _PYRAMIDS.items()}
_SIZE: dict[str, int] = {ch: p.size for ch, p in _PYRAMIDS.items()}
_AS_TOUCHING: dict[str, str] = {ch: _CHARS[(p.seat, p.size, True)] for ch, p in _PYRAMIDS.items()}
_AS_RESTING: dict[str, str] = {ch: _CHARS[(p.seat, p.size, False)] for ch, p in _PYRAMIDS.items()}

NEST = ("abc", "ABC")  # small, medium, large: each drops over the ones below, so all touch


def _char(seat: int, size: int, touching: bool) -> str:
    return _CHARS[(seat, size, touching)]


# stack -> (largest size, touching points, resting points). A memo, not game state: the same
# few hundred stacks come up again and again and the answer never depends on anything else.
_INFO: dict[str, tuple[int, int, int]] = {"": (0, 0, 0)}
_INFO_LIMIT = 200_000


def _info(stack: str) -> tuple[int, int, int]:
    found = _INFO.get(stack)
    if found is not None:
        return found
    largest = touching = resting = 0
    for ch in stack:
        size = _SIZE[ch]
        largest = max(largest, size)
        if ch in "abcABC":
            touching += size
        else:
            resting += size
    if len(_INFO) > _INFO_LIMIT:
        _INFO.clear()
        _INFO[""] = (0, 0, 0)
    found = _INFO[stack] = (largest, touching, resting)
    return found


def build_stack(pieces: Iterable[tuple[int, int]]) -> str:
    """A stack from (seat, size) pairs bottom first, touching status by the arrival rule."""
    out = []
    largest = 0
    for seat, size in pieces:
        out.append(_char(seat, size, size > largest))
        largest = max(largest, size)
    return "".join(out)


def stack_pyramids(stack: str) -> list[Pyramid]:
    return [_PYRAMIDS[ch] for ch in stack]


def stack_text(stack: str) -> str:
    """`r1r2r3`, `b1b1'`: the stack bottom first, `'` after each resting pyramid."""
    return "".join(_PYRAMIDS[ch].token() for ch in stack)


_TOKEN = re.compile(r"([rb])([123])(')?")


def parse_stack(text: str | Sequence[str], where: str = "stack") -> str:
    """Parse `r1 r2 b3'` (or a list of such tokens) into a stack, checking any `'` marks."""
    joined = text if isinstance(text, str) else " ".join(text)
    squeezed = re.sub(r"[\s,]+", "", joined.lower())
    pos = 0
    pieces: list[tuple[int, int]] = []
    marks: list[bool | None] = []
    while pos < len(squeezed):
        m = _TOKEN.match(squeezed, pos)
        if m is None:
            raise ValueError(f"{where}: cannot read {joined!r}; write pyramids like r1 b3 r2'")
        pieces.append((0 if m.group(1) == "r" else 1, int(m.group(2))))
        marks.append(False if m.group(3) else None)
        pos = m.end()
    stack = build_stack(pieces)
    for i, (ch, mark) in enumerate(zip(stack, marks, strict=True)):
        if mark is False and ch in "abcABC":
            raise ValueError(
                f"{where}: pyramid {i + 1} of {joined!r} is marked resting, "
                "but it is larger than everything below it, so it touches the board"
            )
    return stack


def initial_board() -> Board:
    board = [""] * CELLS
    for f in range(SIZE):
        board[square_index(f, 0)] = NEST[0]
        board[square_index(f, SIZE - 1)] = NEST[1]
    return tuple(board)


# --- move parsing ----------------------------------------------------------------------------

_MOVE_RE = re.compile(r"([a-z])(\d{1,3})\s*[-–—]?\s*([a-z])(\d{1,3})")
FORMAT_HINT = "write a move as <from>-<to>, for example b1-c2"


def _square(name: str, raw: str) -> int:
    index = SQUARE_INDEX.get(name)
    if index is None:
        raise InvalidMove(
            f"'{raw}' is not a move on this board: there is no square {name} "
            "(files a to e, ranks 1 to 5)"
        )
    return index


def parse_move(raw: str) -> tuple[int, int]:
    """Squares (from, to) of a move; raises InvalidMove when the text is not a move."""
    if not isinstance(raw, str):
        raise InvalidMove(f"'{raw!r}' is not a move: {FORMAT_HINT}")
    shown = " ".join(raw.split())
    found = MOVE_SQUARES.get(shown.lower())
    if found is not None:
        return found
    m = _MOVE_RE.fullmatch(shown.lower())
    if m is None:
        if not shown:
            raise InvalidMove(f"'{shown}' (nothing) is not a move: {FORMAT_HINT}")
        raise InvalidMove(f"'{shown}' is not a move: {FORMAT_HINT}")
    return _square(m.group(1) + m.group(2), shown), _square(m.group(3) + m.group(4), shown)


# --- the state -------------------------------------------------------------------------------


class MMWState:
    """An immutable Martian Mud Wrestling position (see the module docstring)."""

    __slots__ = (
        "_board",
        "_history",
        "_keys",
        "_outcome",
        "_pws",
        "_seed",
        "_sunk",
        "_turn",
        "_window",
    )

    _board: Board
    _turn: int
    _pws: int
    _sunk: tuple[int, ...]
    _history: tuple[str, ...]
    _keys: tuple[int, ...]
    _window: tuple[tuple[Board, int], ...]
    _outcome: Outcome | None
    _seed: int

    # -- construction

    @classmethod
    def _make(
        cls,
        board: Board,
        turn: int,
        pws: int,
        sunk: tuple[int, ...],
        history: tuple[str, ...],
        keys: tuple[int, ...],
        window: tuple[tuple[Board, int], ...],
        outcome: Outcome | None,
        seed: int,
    ) -> MMWState:
        self = object.__new__(cls)
        self._board = board
        self._turn = turn
        self._pws = pws
        self._sunk = sunk
        self._history = history
        self._keys = keys
        self._window = window
        self._outcome = outcome
        self._seed = seed
        return self

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
        for stack in board:
            for ch in stack:
                p = _PYRAMIDS[ch]
                on_board[p.seat * 3 + p.size - 1] += 1
        for kind, count in enumerate(on_board):
            if count > PER_KIND:
                seat, size = divmod(kind, 3)
                raise ValueError(
                    f"mmw: {count} {COLOURS[seat]} {SIZE_NAMES[size]} pyramids on the board; "
                    f"each player has only {PER_KIND}"
                )
        sunk = tuple(PER_KIND - n for n in on_board)
        key = (board, turn)
        state = cls._make(
            board,
            turn,
            plies_without_sinking,
            sunk,
            tuple(history),
            (hash(key),),
            (key,),
            None,
            seed,
        )
        state._outcome = state._judge(sank=False)
        return state

    # -- the contract

    @property
    def to_move(self) -> int | None:
        return None if self._outcome is not None else self._turn

    @property
    def outcome(self) -> Outcome | None:
        return self._outcome

    @property
    def history(self) -> list[str]:
        return list(self._history)

    @property
    def players(self) -> int:
        return 2

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
        turn = self._turn
        out: list[str] = []
        for i, stack in enumerate(self._board):
            if stack and _SEAT[stack[-1]] == turn:
                out.extend(MOVES_FROM[i])
        return out

    def play(self, move: str) -> MMWState:
        found = MOVE_SQUARES.get(move)
        shown = move
        if found is None:
            found = parse_move(move)
            shown = " ".join(move.split())
            if self._outcome is not None:
                raise IllegalMove(self._over_message(shown))
            self._check_geometry(shown, *found)
            move = f"{SQUARE_NAMES[found[0]]}-{SQUARE_NAMES[found[1]]}"
        elif self._outcome is not None:
            raise IllegalMove(self._over_message(move))
        frm, to = found
        board = self._board
        src = board[frm]
        turn = self._turn
        if not src or _SEAT[src[-1]] != turn:
            raise IllegalMove(self._origin_message(shown, frm))

        piece = src[-1]
        dst = board[to]
        largest, touching, resting = _info(dst)
        size = _SIZE[piece]
        if size > largest:
            piece = _AS_TOUCHING[piece]
            touching += size
        else:
            piece = _AS_RESTING[piece]
            resting += size
        new = list(board)
        new[frm] = src[:-1]
        sank = touching < resting
        sunk = self._sunk
        if sank:
            new[to] = ""
            counts = list(sunk)
            for ch in dst + piece:
                p = _PYRAMIDS[ch]
                counts[p.seat * 3 + p.size - 1] += 1
            sunk = tuple(counts)
        else:
            new[to] = dst + piece
        nboard = tuple(new)
        nturn = 1 - turn
        key = (nboard, nturn)
        h = hash(key)
        if sank:
            keys: tuple[int, ...] = (h,)
            window: tuple[tuple[Board, int], ...] = (key,)
            pws = 0
        else:
            keys = (*self._keys, h)
            window = (*self._window, key)
            pws = self._pws + 1
        state = MMWState._make(
            nboard,
            nturn,
            pws,
            sunk,
            (*self._history, move),
            keys,
            window,
            None,
            self._seed,
        )
        state._outcome = state._judge(sank)
        return state

    def scores(self) -> list[int]:
        sunk = self._sunk
        return [PER_PLAYER - sum(sunk[0:3]), PER_PLAYER - sum(sunk[3:6])]

    # -- end of game

    def _has_move(self, seat: int) -> bool:
        return any(stack and _SEAT[stack[-1]] == seat for stack in self._board)

    def occurrences(self) -> int:
        """How often the current position has occurred (this one included)."""
        key = (self._board, self._turn)
        h = self._keys[-1]
        if self._keys.count(h) == 1:
            return 1
        return sum(
            1 for kh, k in zip(self._keys, self._window, strict=True) if kh == h and k == key
        )

    def _judge(self, sank: bool) -> Outcome | None:
        """The outcome of the position just reached, checked in the order of the rules page."""
        turn = self._turn
        if not self._has_move(turn):
            other = 1 - turn
            if not self._has_move(other):
                return Outcome([], self.scores(), "both-stuck", {"stuck": [0, 1]})
            return Outcome([other], self.scores(), "no-move", {"stuck": [turn]})
        if not sank and len(self._keys) >= REPETITIONS and self.occurrences() >= REPETITIONS:
            return Outcome([], self.scores(), "repetition", {"occurrences": REPETITIONS})
        if self._pws >= NO_SINKING_LIMIT:
            return Outcome(
                [], self.scores(), "no-sinking-100", {"plies_without_sinking": self._pws}
            )
        return None

    # -- messages

    def _over_message(self, shown: str) -> str:
        outcome = self._outcome
        assert outcome is not None
        return f"'{shown}' cannot be played: the game is over ({_describe(outcome)})"

    def _check_geometry(self, shown: str, frm: int, to: int) -> None:
        if frm == to:
            raise IllegalMove(
                f"'{shown}' is not allowed: a pyramid must move to another square, "
                "one step in any of the eight directions"
            )
        if to not in NEIGHBOURS[frm]:
            near = ", ".join(SQUARE_NAMES[j] for j in NEIGHBOURS[frm])
            raise IllegalMove(
                f"'{shown}' is not allowed: {SQUARE_NAMES[to]} is not next to "
                f"{SQUARE_NAMES[frm]}; a pyramid moves one square in any of the eight "
                f"directions (from {SQUARE_NAMES[frm]}: {near})"
            )

    def _origin_message(self, shown: str, frm: int) -> str:
        turn = self._turn
        mine = [SQUARE_NAMES[i] for i, s in enumerate(self._board) if s and _SEAT[s[-1]] == turn]
        allowed = f"you ({COLOURS[turn]}) can move the top pyramid of {', '.join(mine)}"
        stack = self._board[frm]
        name = SQUARE_NAMES[frm]
        if not stack:
            return f"'{shown}' is not allowed: there is no pyramid on {name}; {allowed}"
        top = _PYRAMIDS[stack[-1]]
        return (
            f"'{shown}' is not allowed: the top pyramid on {name} is {top.colour}, and you "
            f"may only move a stack whose top pyramid is yours; {allowed}"
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
            "history": list(self._history),
            "outcome": None if self._outcome is None else self._outcome.to_json(),
        }

    def view(self, seat: int | None) -> JSON:
        if seat is not None and (not isinstance(seat, int) or not 0 <= seat < 2):
            raise ValueError(f"mmw: seat must be 0, 1 or None (a spectator), not {seat!r}")
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
            "last_move": self._history[-1] if self._history else None,
            "history": list(self._history),
            "legal_moves": self.legal_moves(),
            "outcome": None if self._outcome is None else self._outcome.to_json(),
        }


def _describe(outcome: Outcome) -> str:
    if outcome.reason == "no-move":
        (winner,) = outcome.winners
        return f"{COLOURS[1 - winner]} had no move, {COLOURS[winner]} won"
    if outcome.reason == "both-stuck":
        return "neither player had a move, both lost"
    if outcome.reason == "repetition":
        return "drawn: the same position occurred a third time"
    if outcome.reason == "no-sinking-100":
        return f"drawn: {NO_SINKING_LIMIT} plies passed without a stack sinking"
    return outcome.reason


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
    if not dst or _SEAT[dst[-1]] != mover:
        raise ValueError(f"mmw: history does not fit the board at {move!r}")
    below = board[frm]
    piece = dst[-1]
    piece = _AS_TOUCHING[piece] if _SIZE[piece] > _info(below)[0] else _AS_RESTING[piece]
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
    state._window = tuple(window)
    state._keys = tuple(hash(k) for k in window)
    outcome = data.get("outcome")
    state._outcome = None if outcome is None else Outcome.from_json(outcome)
    return state
