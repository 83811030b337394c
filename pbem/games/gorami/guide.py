"""GORami for new players: the words its pages use, and the positions the rules page draws
(`guide.html` beside this module; rules in docs/rules/gorami.md)."""

from __future__ import annotations

from typing import Any

from pbem.games.gorami.rules import COLOURS, GoramiState, setup
from pbem.games.guide import N_, Examples, Guide, Section, Term, Variant
from pbem.games.two_player import colour_words

# A whole game on the 16-cell board, chosen because it shows every rule of the scoring: stripes
# won by each colour, two tied stripes, equal fish, and the interior cells deciding.
FINAL_16 = (
    "3b5",
    "1b4",
    "2d1",
    "2c3",
    "1a1",
    "1c1",
    "1c4",
    "2a3",
    "2c5",
    "2b2",
    "3b3",
    "1d2",
    "3c2",
    "3d3",
    "3a2",
    "3b1",
)
# Before a capture on the 22-cell board: blue's 1 on c4 has one empty neighbour left, c5.
CAPTURE_BEFORE = {"c4": "b1", "b3": "y2", "c3": "y3", "d7": "b3"}
CAPTURE_MOVE = "2c5"
# The stripe the example adds up disc by disc.
ROW = "b"
DIRECTIONS = {"horizontal": N_("row"), "rising": N_("rising"), "falling": N_("falling")}
# The engine's colours (rules.COLOURS) as the table of the example shows them.
COLOUR_WORDS = (N_("yellow"), N_("blue"))


def _final() -> GoramiState:
    state = GoramiState.initial(16, 0)
    for move in FINAL_16:
        state = state.play(move)
    return state


def _empty_cells(state: GoramiState) -> list[str]:
    return [cell["name"] for cell in state.view(None)["cells"] if cell["disc"] is None]


def _row_sums(view: dict[str, Any], row: str) -> dict[str, Any]:
    """Each colour's discs in one row, and their sum: the example's addition written out (the
    page puts each disc into words, in its reader's language)."""
    discs: dict[str, list[dict[str, Any]]] = {colour: [] for colour in COLOURS}
    sums = dict.fromkeys(COLOURS, 0)
    for cell in view["cells"]:
        disc = cell["disc"]
        if cell["name"].startswith(row) and disc is not None:
            discs[disc["colour"]].append({"number": disc["number"], "cell": cell["name"]})
            sums[disc["colour"]] += disc["number"]
    return {"row": row, "discs": discs, "sums": sums}


def examples() -> Examples:
    final = _final()
    view = final.view(None)
    assert final.outcome is not None
    before = setup(22, CAPTURE_BEFORE, to_move=0)
    after = before.play(CAPTURE_MOVE)
    legal = set(before.legal_moves())
    no_two = [cell for cell in _empty_cells(before) if f"2{cell}" not in legal]
    captured = after.view(None)["captured"]
    row = _row_sums(view, ROW)
    # The page tells these positions' story in fixed sentences, translated whole (a yellow 2
    # captures one disc; the full board ends in equal fish, yellow winning on the interior, and
    # yellow wins the row it adds up): an engine that told another story must fail here.
    assert final.outcome.reason == "board-full" and final.outcome.winners == [0]
    assert view["scores"][0] == view["scores"][1] and view["interior"][0] > view["interior"][1]
    assert row["sums"][COLOURS[0]] > row["sums"][COLOURS[1]]
    assert CAPTURE_MOVE.startswith("2") and len(captured) == 1
    taken = after.disc(captured[0])
    assert taken is not None
    stripes = [
        {
            "kind": DIRECTIONS[stripe["direction"]],
            "cells": stripe["cells"],
            "yellow": stripe["sums"][0],
            "blue": stripe["sums"][1],
            "fish": None if stripe["fish"] is None else COLOUR_WORDS[stripe["fish"]],
        }
        for stripe in view["stripes"]
    ]
    facts: dict[str, Any] = {
        "capture_move": CAPTURE_MOVE,
        "capture_words": colour_words(before.describe(CAPTURE_MOVE), COLOURS),
        "captured": captured,
        # The caption names the captured disc by its number, as a player would.
        "captured_number": taken[0],
        "capture_cell": CAPTURE_MOVE[1:],
        "no_two": no_two,
        "stripes": stripes,
        "fish": view["scores"],
        "interior": view["interior"],
        "interior_cells": view["interior_cells"],
        "interior_discs": [
            {"name": c["name"], "colour": c["disc"]["colour"], "number": c["disc"]["number"]}
            for c in view["cells"]
            if c["interior"] and c["disc"] is not None
        ],
        "ending": colour_words(final.describe_outcome() or "", COLOURS),
        "winner": COLOURS[final.outcome.winners[0]] if final.outcome.winners else None,
        "tied": sum(1 for s in stripes if s["fish"] is None),
        "row": row,
    }
    boards = {f"board-{size}": GoramiState.initial(size, 0) for size in (16, 22, 24)}
    return Examples.of(
        {**boards, "capture-before": before, "capture-after": after, "final": final}, facts
    )


GUIDE = Guide(
    # two_player.PLAYERS, written out here so that the game's catalog has it.
    players=N_("2 players"),
    length=N_("at most one move per cell: 16, 22 or 24 moves"),
    summary=N_(
        "Two players take turns putting numbered discs on a board of triangles. A disc may "
        "never touch the same number along an edge, and an opponent's disc you close in turns "
        "to your colour. At the end, every stripe of cells across the board wins a fish for "
        "the colour whose numbers add up to more there; the most fish wins."
    ),
    sections=(
        Section("goal", N_("The goal")),
        Section("material", N_("The board and the discs"), (("interior", N_("Interior cells")),)),
        Section(
            "turn",
            N_("A turn"),
            (
                ("neighbours", N_("Neighbours")),
                ("capture", N_("Capture")),
                ("skipping", N_("Skipping")),
            ),
        ),
        Section(
            "scoring",
            N_("Scoring"),
            (
                ("stripes", N_("Stripes and fish")),
                ("tie-break", N_("Equal fish")),
                ("example", N_("Example")),
            ),
        ),
        Section("end", N_("The end of the game")),
        Section(
            "boards",
            N_("The three boards"),
            (
                ("board-16", N_("16 cells")),
                ("board-22", N_("22 cells")),
                ("board-24", N_("24 cells")),
            ),
        ),
        Section("notation", N_("Writing a move")),
    ),
    terms=(
        Term(
            "fish",
            ("fish",),
            "What you score: each stripe of the board gives one fish to the colour whose "
            "numbers in it add up to more. Equal sums give no fish. More fish wins.",
            "stripes",
        ),
        Term(
            "stripe",
            ("stripe", "stripes"),
            "All the cells between two neighbouring parallel lines of the grid: a row, or a "
            "line of cells rising or falling to the right.",
            "stripes",
        ),
        Term(
            "interior",
            ("interior",),
            "A cell with no corner on the outer edge of the board (shaded). With equal fish, "
            "the player whose own numbers on the interior cells add up to more wins.",
            "tie-break",
        ),
        Term(
            "neighbour",
            ("neighbour", "neighbours", "edge neighbour"),
            "A cell that shares an edge with another. Cells that meet only at a corner are not "
            "neighbours. A disc may not go next to a neighbour with the same number.",
            "neighbours",
        ),
        Term(
            "capture",
            ("capture", "captured", "captures"),
            "When your disc fills the last empty neighbour of an opponent's disc beside it, "
            "that disc turns to your colour for good.",
            "capture",
        ),
        Term(
            "discs-left",
            ("discs left",),
            "The discs a player still holds, by number: 1×4 means four discs numbered 1.",
            "material",
        ),
    ),
    examples=examples,
    variants=(
        Variant("board", "16", N_("16-cell board"), "board-16"),
        Variant("board", "22", N_("22-cell board"), "board-22"),
        Variant("board", "24", N_("24-cell board"), "board-24"),
    ),
)
