"""Martian Mud Wrestling for new players: the words its pages use, and the positions the rules
page draws (`guide.html` beside this module; rules in docs/rules/mmw.md)."""

from __future__ import annotations

from typing import Any

from pbem.games.guide import N_, Examples, Guide, Section, Term
from pbem.games.mmw.board import COLOURS, Pyramid
from pbem.games.mmw.rules import NO_SINKING_LIMIT, new_state, position
from pbem.games.two_player import colour_words

# The words the examples show for a pyramid, marked so that the page can translate them.
SIZE_WORDS = {1: N_("small"), 2: N_("medium"), 3: N_("large")}
COLOUR_WORDS = {"red": N_("red"), "blue": N_("blue")}
# The three stacks of the rules' own examples of touching and resting, side by side.
STACKS = {"b3": "r1 b3", "c3": "b1 r1", "d3": "r1 b1 r3", "a1": "r1 r2 r3", "e5": "b1 b2 b3"}
# Blue to move: the stack on c3 is level (3 touching, 3 resting); one more small sinks it.
SINKING = {
    "a1": "r1 r2 r3",
    "b1": "r1 r2",
    "e1": "r1 r2 r3",
    "c3": "r3 b2 r1",
    "d4": "b1",
    "a5": "b1 b2 b3",
    "e5": "b1 b2 b3",
    "c5": "b3",
}
SINKING_MOVE = "d4-c3"
# Blue to move: covering red's last top leaves red without a move.
STUCK = {"c3": "r1", "d4": "b2", "a5": "b1 b2 b3", "b2": "r2 b3"}
STUCK_MOVE = "d4-c3"
FIRST_MOVE = "b1-b2"
# The engine writes its sentences in English only; these are its words for the moves and the
# ending above, marked so that the page can quote them translated. `_words` holds the engine
# to them, so that a change of its wording is caught here rather than left untranslated.
SAID = (
    N_("Red moved a large pyramid from b1 to b2"),
    N_(
        "Blue moved a small pyramid from d4 onto the stack on c3, where it rests on the pile; "
        "the stack on c3 sank into the mud (touching 3 < resting 4): Red lost a small and a "
        "large and Blue lost a small and a medium"
    ),
    N_(
        "Blue moved a medium pyramid from d4 onto the stack on c3, where it drops over and "
        "touches the board; Red has no move, so the game ends"
    ),
    N_("Red could not move; Blue wins with 5 pyramids on the board to 2"),
)


def _pyramids(stack: list[Pyramid]) -> dict[str, Any]:
    """A stack as the examples read it: its pyramids bottom first, and the two sums."""
    return {
        "pyramids": [
            {
                "colour": COLOUR_WORDS[p.colour],
                "size": SIZE_WORDS[p.size],
                "points": p.points,
                "touching": p.touching,
            }
            for p in stack
        ],
        "touching": sum(p.points for p in stack if p.touching),
        "resting": sum(p.points for p in stack if not p.touching),
    }


def _words(sentence: str | None) -> str:
    words = colour_words(sentence or "", COLOURS)
    if words not in SAID:
        raise ValueError(f"the engine now says {words!r}: mark it in SAID to translate it")
    return words


def examples() -> Examples:
    start = new_state(0)
    stacks = position(STACKS, to_move=0)
    before = position(SINKING, to_move=1)
    after = before.play(SINKING_MOVE)
    origin, target = SINKING_MOVE.split("-")
    # The stack as it stands once the pyramid has arrived, before the mud takes it: the engine
    # decides which of its pyramids touch (a position is never sunk when it is set up).
    moving = [*before.stack(target), before.stack(origin)[-1]]
    arrived = " ".join(p.token().rstrip("'") for p in moving)
    landed = position({target: arrived}, to_move=0)
    stuck = position(STUCK, to_move=1)
    over = stuck.play(STUCK_MOVE)
    facts: dict[str, Any] = {
        "stacks": {square: _pyramids(stacks.stack(square)) for square in ("b3", "c3", "d3")},
        "first_move": FIRST_MOVE,
        "first_words": _words(start.describe(FIRST_MOVE)),
        "sinking_move": SINKING_MOVE,
        "sinking_square": target,
        "sinking_before": _pyramids(before.stack(target)),
        "sinking_landed": _pyramids(landed.stack(target)),
        "sinking_words": _words(before.describe(SINKING_MOVE)),
        "sinking_scores": after.scores(),
        "stuck_move": STUCK_MOVE,
        "stuck_words": _words(stuck.describe(STUCK_MOVE)),
        "stuck_ending": _words(over.describe_outcome()),
        "limit": NO_SINKING_LIMIT,
    }
    figures = {
        "start": start,
        "first": start.play(FIRST_MOVE),
        "stacks": stacks,
        "sinking-before": before,
        "sinking-after": after,
        "stuck": over,
    }
    return Examples.of(figures, facts)


GUIDE = Guide(
    # two_player.PLAYERS, written out here so that the game's catalog has it.
    players=N_("2 players"),
    length=N_("no fixed length: until a player is left without a move"),
    summary=N_(
        "Two players move pyramids on a 5 by 5 board of mud. Any pyramid can climb onto any "
        "stack next to it, but a stack whose pyramids resting on the pile outweigh those "
        "touching the board sinks, taking everything in it, of both colours. Leave your "
        "opponent without a pyramid on top of any stack and you win."
    ),
    sections=(
        Section("goal", N_("The goal")),
        Section("setup", N_("The pieces and the start")),
        Section(
            "stacks", N_("Stacks: touching and resting"), (("touching", N_("Touching the board")),)
        ),
        Section("turn", N_("A turn"), (("sinking", N_("Sinking")),)),
        Section(
            "scoring",
            N_("Points and sinking: examples"),
            (("example-stacks", N_("Three stacks")), ("example-sinking", N_("A stack sinks"))),
        ),
        Section("end", N_("The end of the game"), (("draws", N_("Draws")),)),
        Section("notation", N_("Writing a move")),
    ),
    terms=(
        Term(
            "touching",
            ("touching", "touches the board", "touches"),
            "A pyramid touches the board when it arrived on a square larger than every pyramid "
            "already there and dropped over them all. It keeps that for as long as it stays.",
            "touching",
        ),
        Term(
            "resting",
            ("resting", "rests on the pile", "rests"),
            "A pyramid rests when it arrived on a square holding a pyramid as large or larger: "
            "it sits on the pile and does not touch the board (drawn hatched).",
            "touching",
        ),
        Term(
            "sinking",
            ("sinking", "sinks", "sank", "sink", "sunk"),
            "After a move, if the points of the pyramids resting on the stack it landed on are "
            "more than the points of those touching the board, the whole stack sinks into the "
            "mud: every pyramid in it leaves the game.",
            "sinking",
        ),
        Term(
            "stack",
            ("stack", "stacks"),
            "All the pyramids on one square, in the order they arrived. Only the top one, the "
            "last to arrive, can move.",
            "stacks",
        ),
        Term(
            "nest",
            ("nest", "nests"),
            "A small, a medium and a large stacked on one square of your home row at the "
            "start, all three touching the board.",
            "setup",
        ),
        Term(
            "sizes",
            ("small", "medium", "large"),
            "Pyramid sizes: a small is worth 1 point, a medium 2 and a large 3. Each player "
            "starts with five of each.",
            "setup",
            headword="small, medium, large",
        ),
        Term(
            "on-the-board",
            ("pyramids on the board",),
            "The score shown: your pyramids still on the board, buried ones included. It does "
            "not decide the game: leaving your opponent without a move does.",
            "end",
        ),
    ),
    examples=examples,
)
