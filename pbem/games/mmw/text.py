"""Martian Mud Wrestling's board for the terminal and a mail's text part (`render_text`)."""

from __future__ import annotations

from pbem.games import drawing as d
from pbem.games.base import display_name, ending_words
from pbem.games.mmw.board import COLOURS, FILES, SIZE, SQUARE_NAMES, square_index
from pbem.games.mmw.look import tokens, verdict, who, why
from pbem.games.mmw.rules import NO_SINKING_LIMIT, MMWState
from pbem.games.two_player import SEATS, Names


def render_text(state: MMWState, seat: int | None = None, names: Names = None) -> str:
    """A plain board: each square lists its stack bottom first, `'` marking resting pyramids.
    `names` call the seats instead of their colours."""
    texts = {name: tokens(state.stack(name)) or "." for name in SQUARE_NAMES}
    width = [
        max(6, *(len(texts[SQUARE_NAMES[square_index(f, r)]]) for r in range(SIZE))) + 2
        for f in range(SIZE)
    ]
    files = list(range(SIZE))
    ranks = list(range(SIZE - 1, -1, -1))
    if seat == 1:
        files.reverse()
        ranks.reverse()
    history = state.history
    lines = [
        f"Martian Mud Wrestling: {_status(state, names)}; {d.after_moves(len(history))}, "
        f"{state.plies_without_sinking} of {NO_SINKING_LIMIT} moves without a sinking"
    ]
    header = "    " + "".join(FILES[f].ljust(width[f]) for f in files)
    lines.append(header.rstrip())
    for r in ranks:
        row = "".join(texts[SQUARE_NAMES[square_index(f, r)]].ljust(width[f]) for f in files)
        lines.append(f" {r + 1}  {row}{r + 1}")
    lines.append(header.rstrip())
    scores = state.scores()
    seats = []
    for s, colour in enumerate(COLOURS):
        name = display_name(names, s)
        seats.append(f"{colour} (seat {s})" if name is None else f"{name} ({colour}, seat {s})")
    lines.append(
        "   ".join(f"{seats[s]}: {scores[s]} on the board, {15 - scores[s]} sunk" for s in SEATS)
    )
    if history:
        lines.append(f"last move: {history[-1]}")
    lines.append("stacks read bottom to top; ' marks a pyramid resting (not touching the board)")
    return "\n".join(lines) + "\n"


def _status(state: MMWState, names: Names) -> str:
    """Whose move it is, or how the game ended and why."""
    outcome = state.outcome
    if outcome is None:
        assert state.to_move is not None
        return f"{who(names, state.to_move, capital=False)} to move"
    if outcome.said is not None:
        return f"game over: {ending_words(outcome, [who(names, s) for s in SEATS])}"
    result = verdict(outcome, [who(names, s, capital=False) for s in SEATS])
    return f"game over: {result} ({why(outcome, names)})"
