"""Martian Mud Wrestling's board for the terminal and a mail's text part (`render_text`)."""

from __future__ import annotations

from pbem.games.base import display_name, ending_words
from pbem.games.messages import ENGLISH, Language
from pbem.games.mmw.board import COLOURS, FILES, SIZE, SQUARE_NAMES, square_index
from pbem.games.mmw.look import after_moves, tokens, verdict, who, why
from pbem.games.mmw.rules import NO_SINKING_LIMIT, MMWState
from pbem.games.two_player import SEATS, Names


def render_text(
    state: MMWState, seat: int | None = None, names: Names = None, lang: Language = ENGLISH
) -> str:
    """A plain board: each square lists its stack bottom first, `'` marking resting pyramids.
    `names` call the seats instead of their colours; the words are in `lang`."""
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
    status, after = _status(state, names, lang), after_moves(len(history), lang)
    lines = [
        lang(
            "Martian Mud Wrestling: %(status)s; %(after)s, %(moves)s of %(limit)s moves without a "
            "sinking",
            status=status,
            after=after,
            moves=state.plies_without_sinking,
            limit=NO_SINKING_LIMIT,
        )
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
        word = lang(colour)
        seats.append(
            lang("%(colour)s (seat %(seat)s)", colour=word, seat=s)
            if name is None
            else lang("%(name)s (%(colour)s, seat %(seat)s)", name=name, colour=word, seat=s)
        )
    lines.append(
        "   ".join(
            lang(
                "%(seat)s: %(left)s on the board, %(sunk)s sunk",
                seat=seats[s],
                left=scores[s],
                sunk=15 - scores[s],
            )
            for s in SEATS
        )
    )
    if history:
        lines.append(lang("last move: %(move)s", move=history[-1]))
    lines.append(
        lang("stacks read bottom to top; ' marks a pyramid resting (not touching the board)")
    )
    return "\n".join(lines) + "\n"


def _status(state: MMWState, names: Names, lang: Language) -> str:
    """Whose move it is, or how the game ended and why."""
    outcome = state.outcome
    if outcome is None:
        assert state.to_move is not None
        mover = who(names, state.to_move, capital=False, lang=lang)
        return lang("%(seat)s to move", seat=mover)
    if outcome.said is not None:
        settled = ending_words(outcome, [who(names, s, lang=lang) for s in SEATS])
        return lang("game over: %(result)s", result=settled or "")
    result = verdict(outcome, [who(names, s, capital=False, lang=lang) for s in SEATS], lang)
    reason = why(outcome, names, lang)
    return lang("game over: %(result)s (%(why)s)", result=result, why=reason)
