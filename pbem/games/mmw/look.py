"""What Martian Mud Wrestling's drawings (`page`, `mail`, `text`) share: the seats' colours and
letters, the moves they mark, the board turned to the reader, and the words of a result.

Players are called by their colour ("Red to move") unless the seats' display names are given, in
which case the names label them (escaped in the SVG, shortened where space is tight).
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache

from pbem.games import drawing as d
from pbem.games.base import MoveError, Outcome, seat_mark
from pbem.games.messages import ENGLISH, N_, Language, Message, seat_ref
from pbem.games.mmw.board import COLOURS, SIZE, Pyramid
from pbem.games.mmw.rules import ENDINGS, NO_SINKING_LIMIT, MMWState, new_state
from pbem.games.two_player import Names, seat_word

FILL = {"red": "#c62828", "blue": "#1f5fbf"}
DARK = {"red": "#6d1010", "blue": "#0d2f66"}
MARKS = tuple(seat_mark(c) for c in COLOURS)  # "R", "B": on pyramids and last-move badges
TINT = {"red": "#f3c9c4", "blue": "#c9d8f1"}  # a last move's squares, in the mover's colour
# The seats named by their colours when the drawing has no names (`two_player.seat_word`).
SEAT_NAMES = (N_("Red"), N_("Blue"))

# A marked move: the turn, its notation and its sentence (seats as placeholders).
Marked = tuple[d.Turn, str, str]
Point = tuple[float, float]
Points = list[Point]


@lru_cache(maxsize=32)
def _sentences(
    seed: int, history: tuple[str, ...], board: tuple[tuple[str, str], ...]
) -> tuple[str, ...] | None:
    """The sentence of each of the last two moves (seats as placeholders), replayed from the
    start; None when the game did not start from the usual position (set up by hand)."""
    state = new_state(seed)
    words: list[str] = []
    try:
        for ply, move in enumerate(history):
            if ply >= len(history) - 2:
                state, sentence = state.play_described(move)
                words.append(sentence)
            else:
                state = state.play(move)
    except MoveError:
        return None
    return tuple(words) if tuple(sorted(state.to_json()["board"].items())) == board else None


def marked_moves(state: MMWState, viewer: int | None) -> list[tuple[d.Turn, str]]:
    """The moves marked for `viewer` (`drawing.marked_turns`), oldest first, with their
    notation: `marked` without its sentences, which replay the game (the mail picture needs
    none). Turns alternate, so the last two moves are one of each seat."""
    history = state.history
    count = len(history)
    turns = [
        d.Turn((state.turn + count - ply) % 2, (ply,)) for ply in range(max(0, count - 2), count)
    ]
    return [(turn, history[turn.plies[0]]) for turn in d.marked_turns(turns, viewer)]


def marked(state: MMWState, viewer: int | None) -> list[Marked]:
    """`marked_moves` with each move's sentence (seats as placeholders), oldest first."""
    history = state.history
    count = len(history)
    board = tuple(sorted(state.to_json()["board"].items()))
    words = _sentences(state.seed, tuple(history), board)
    out = []
    for turn, move in marked_moves(state, viewer):
        ply = turn.plies[0]
        if words is not None:
            sentence = words[ply - (count - len(words))]
        else:
            frm, to = move.split("-")
            sentence = Message(
                "%(seat)s moved the top pyramid of %(from)s to %(to)s",
                seat=seat_ref(turn.seat),
                **{"from": frm},
                to=to,
            )
        out.append((turn, move, sentence))
    return out


def who(
    names: Names, seat: int, limit: int = 0, capital: bool = True, lang: Language = ENGLISH
) -> str:
    """The name of `seat`, or its colour word in `lang` ("Red", or "red") when no names are
    given."""
    return seat_word(names, seat, COLOURS, limit, capital, lang)


def verdict(outcome: Outcome, seats: Sequence[str], lang: Language = ENGLISH) -> str:
    """Who won an ending of the rules, `seats` naming them: "Red wins", "both lose", "drawn"."""
    if outcome.winners:
        return lang("%(seat)s wins", seat=seats[outcome.winners[0]])
    return lang("both lose") if outcome.reason == "both-stuck" else lang("drawn")


def why(outcome: Outcome, names: Names, lang: Language = ENGLISH) -> str:
    """Why the game ended, in a few words (never the outcome's reason code)."""
    if outcome.reason == "no-move" and outcome.winners:
        stuck = who(names, 1 - outcome.winners[0], lang=lang)
        return lang("%(seat)s could not move", seat=stuck)
    ending = ENDINGS.get(outcome.reason)
    return "" if ending is None else lang(ending.why, plies=NO_SINKING_LIMIT)


def after_moves(plies: int, lang: Language = ENGLISH) -> str:
    """How far the game is, as a board's caption says it: the position after that many moves
    (a turn asks for the next one, "move 22", under a board "after move 21")."""
    return lang("after move %(n)s", n=plies) if plies else lang("the start")


def square(index: int, seat: int | None) -> tuple[int, int]:
    """Column and row of a square as drawn: seat 1 sees the board turned round, each seat its
    home rank at the bottom."""
    f, r = divmod(index, SIZE)
    return (SIZE - 1 - f, r) if seat == 1 else (f, SIZE - 1 - r)


def tokens(pyramids: list[Pyramid]) -> str:
    return "".join(p.token() for p in pyramids)


def points(pyramids: list[Pyramid]) -> tuple[int, int]:
    """A stack's touching and resting points."""
    touching = sum(p.size for p in pyramids if p.touching)
    return touching, sum(p.size for p in pyramids) - touching


def arrow(start: Point, end: Point, stop: float, long: float, wide: float) -> tuple[Point, Points]:
    """A move's arrow from `start` towards `end`, the tip of its head `stop` short of `end`, the
    head `long` and twice `wide`: where the shaft ends, and the head's corners, tip first."""
    (fx, fy), (tx, ty) = start, end
    dx, dy = tx - fx, ty - fy
    length = max((dx * dx + dy * dy) ** 0.5, 1.0)
    ux, uy = dx / length, dy / length
    hx, hy = tx - ux * stop, ty - uy * stop
    bx, by = hx - ux * long, hy - uy * long
    return (bx, by), [(hx, hy), (bx - uy * wide, by + ux * wide), (bx + uy * wide, by - ux * wide)]
