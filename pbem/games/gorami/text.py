"""GORami's board for the terminal and a mail's text part (`render_text`)."""

from __future__ import annotations

from pbem.games.base import display_name
from pbem.games.gorami.look import status
from pbem.games.gorami.rules import COLOURS, GoramiState
from pbem.games.two_player import Names


def render_text(state: GoramiState, seat: int | None = None, names: Names = None) -> str:
    """A terminal board shaped like the rules diagrams: each row of cell names, and under it the
    discs on those cells (Y2 = yellow 2, B3 = blue 3, . = empty). `names` call the seats."""
    geo = state.board
    widest = max(len(row) for row in geo.rows)
    last = state.history[-1][1:] if state.history else None
    captured = set(state.captured())
    # ASCII only, as the rest of the drawing: a mail's text part in plain ASCII costs less to send.
    head, words = status(state, names)
    lines = [f"{head.replace(' · ', ', ')}: {words.replace(' · ', '; ')}", ""]
    for row in geo.rows:
        # As in the rules diagrams: two spaces per missing cell, so rows look centred.
        indent = " " * (2 * (widest - len(row)))
        cell_names = []
        discs = []
        for index in row:
            cell = geo.cells[index]
            cell_names.append(f"{cell.name}{'^' if cell.up else 'v'}".ljust(5))
            disc = state.disc(cell.name)
            mark = "*" if cell.name == last else "!" if cell.name in captured else " "
            text = "." if disc is None else f"{'YB'[disc[1]]}{disc[0]}"
            discs.append(f"{text}{mark}".ljust(5))
        lines.append((indent + "".join(cell_names)).rstrip())
        lines.append((indent + "".join(discs)).rstrip())
    lines.append("")
    lines.append("Y2 = yellow 2, B3 = blue 3; * last move, ! changed colour on the last move")
    interior = ", ".join(geo.cells[i].name for i in geo.interior)
    lines.append(f"interior cells (tie-break): {interior}")
    lines.extend(_seats(state, seat, names))
    lines.extend(_stripes(state))
    if state.outcome is None:
        lines.append("A move is a disc number and a cell, e.g. 2b3.")
    return "\n".join(lines) + "\n"


def _seats(state: GoramiState, seat: int | None, names: Names) -> list[str]:
    """A line per seat: its hand, fish and interior sum."""
    fish = state.fish()
    inner = state.interior()
    lines = []
    for s in range(2):
        hand = state.hand(s)
        held = "  ".join(f"{n + 1}x{hand[n]}" for n in range(3))
        you = " (you)" if seat == s else ""
        turn = "  <- to move" if state.to_move == s else ""
        name = display_name(names, s)
        who = f"{COLOURS[s].capitalize():6}" if name is None else f"{name} ({COLOURS[s]})"
        lines.append(
            f"{who} seat {s}{you}: hand {held}   fish {fish[s]}   interior {inner[s]}{turn}"
        )
    return lines


def _stripes(state: GoramiState) -> list[str]:
    """The stripes' sums and who wins each, a line per direction."""
    geo = state.board
    lines = ["stripes, yellow:blue sums (Y or B wins the fish, = nobody):"]
    sums = state.stripe_sums()
    for direction, label in (("horizontal", "rows"), ("rising", "rising"), ("falling", "falling")):
        parts = []
        for stripe, (ys, bs) in zip(geo.stripes, sums, strict=True):
            if stripe.direction != direction:
                continue
            first = geo.cells[stripe.cells[0]].name
            last_name = geo.cells[stripe.cells[-1]].name
            name = first[0] if direction == "horizontal" else f"{first}-{last_name}"
            won = "Y" if ys > bs else "B" if bs > ys else "="
            parts.append(f"{name} {ys}:{bs}{won}")
        lines.append(f"  {label + ':':9}" + "   ".join(parts))
    return lines
