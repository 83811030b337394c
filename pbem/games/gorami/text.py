"""GORami's board for the terminal and a mail's text part (`render_text`)."""

from __future__ import annotations

from pbem.games.base import display_name
from pbem.games.gorami.look import status
from pbem.games.gorami.rules import COLOURS, GoramiState
from pbem.games.messages import ENGLISH, N_, Language, Param
from pbem.games.two_player import Names, seat_word


def render_text(
    state: GoramiState, seat: int | None = None, names: Names = None, lang: Language = ENGLISH
) -> str:
    """A terminal board shaped like the rules diagrams: each row of cell names, and under it the
    discs on those cells (Y2 = yellow 2, B3 = blue 3, . = empty). `names` call the seats; the
    words are in `lang`."""
    geo = state.board
    widest = max(len(row) for row in geo.rows)
    last = state.history[-1][1:] if state.history else None
    captured = set(state.captured())
    head, words = status(state, names, lang=lang)
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
    lines.append(lang("Y2 = yellow 2, B3 = blue 3; * last move, ! changed colour on the last move"))
    interior = ", ".join(geo.cells[i].name for i in geo.interior)
    lines.append(lang("interior cells (tie-break): %(cells)s", cells=interior))
    lines.extend(_seats(state, seat, names, lang))
    lines.extend(_stripes(state, lang))
    if state.outcome is None:
        lines.append(lang("A move is a disc number and a cell, e.g. 2b3."))
    return "\n".join(lines) + "\n"


def _seats(state: GoramiState, seat: int | None, names: Names, lang: Language) -> list[str]:
    """A line per seat: its hand, fish and interior sum."""
    fish = state.fish()
    inner = state.interior()
    lines = []
    for s in range(2):
        hand = state.hand(s)
        held = "  ".join(f"{n + 1}x{hand[n]}" for n in range(3))
        name = display_name(names, s)
        if name is None:
            who = f"{seat_word(None, s, COLOURS, lang=lang):6}"
        else:
            who = f"{name} ({lang(COLOURS[s])})"
        said: dict[str, Param] = {
            "who": who,
            "seat": s,
            "hand": held,
            "fish": fish[s],
            "interior": inner[s],
        }
        if seat == s:
            line = lang(
                "%(who)s seat %(seat)s (you): hand %(hand)s   fish %(fish)s   "
                "interior %(interior)s",
                **said,
            )
        else:
            line = lang(
                "%(who)s seat %(seat)s: hand %(hand)s   fish %(fish)s   interior %(interior)s",
                **said,
            )
        if state.to_move == s:
            line = lang("%(line)s  <- to move", line=line)
        lines.append(line)
    return lines


_FAMILIES = (("horizontal", N_("rows")), ("rising", N_("rising")), ("falling", N_("falling")))


def _stripes(state: GoramiState, lang: Language) -> list[str]:
    """The stripes' sums and who wins each, a line per direction."""
    geo = state.board
    lines = [lang("stripes, yellow:blue sums (Y or B wins the fish, = nobody):")]
    sums = state.stripe_sums()
    for direction, key in _FAMILIES:
        label = lang(key)
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
