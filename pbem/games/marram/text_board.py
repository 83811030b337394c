"""Marram's board as plain text, for a terminal: tiles as blocks of characters, then the scores."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from pbem.games.base import fill_names
from pbem.games.marram.geometry import (
    QUADS,
    SPOKES,
    Grid,
    board_pieces,
    face_of,
    frontier,
    laid_face,
    rotate_quad,
    rotate_spoke,
    tile_desc,
)
from pbem.games.marram.seats import dropped, player_names, settled_words, who
from pbem.games.marram.turns import (
    VARIANT_TITLE,
    action_words,
    departures,
    describe_event,
    marked_turns,
    turn_label,
    view_tile_named,
)
from pbem.games.marram.words import TOKEN_NAMES, prey_name
from pbem.games.messages import ENGLISH, N_, Language, Listing

_KIND_CHAR = {
    ("o", "end"): "O",
    ("o", "mid"): "o",
    ("b", "head"): "H",
    ("b", "tail"): "T",
    ("b", "mid"): "b",
    ("w", "end"): "W",
    ("w", "mid"): "w",
    ("w", "saddle"): "=",
}
_BEND_CHAR = {
    frozenset(("N", "S")): "│",
    frozenset(("E", "W")): "─",
    frozenset(("N", "E")): "└",
    frozenset(("E", "S")): "┌",
    frozenset(("S", "W")): "┐",
    frozenset(("W", "N")): "┘",
}


def _deco_char(items: list[str]) -> str:
    if not items:
        return " "
    if len(items) > 1:
        return str(min(len(items), 9))
    return {"gold": "$", "silver": "c", "flower": "*"}.get(items[0], "?")


def tile_text(
    desc: Mapping[str, Any],
    rotation: int = 0,
    face: str = "front",
    removed: Iterable[str] = (),
    tokens: Sequence[Mapping[str, Any]] = (),
) -> list[str]:
    """A tile as three lines of five characters.

    ```
    g$O g     corners: terrain (upper case = a claim token stands there)
    T─┘ .     sides: the piece on that spoke (see the key); centre: how two-spoke pieces run
    s * s     between: $ gold, c silver, * flower, a digit for several
    ```
    """
    f = face_of(desc, face)
    q = str(f.get("q", "gggg"))
    grid = [[" "] * 5 for _ in range(3)]
    spot = {"NW": (0, 0), "NE": (0, 4), "SE": (2, 4), "SW": (2, 0)}
    deco_spot = {"NW": (0, 1), "NE": (0, 3), "SE": (2, 3), "SW": (2, 1)}
    spoke_spot = {"N": (0, 2), "E": (1, 4), "S": (2, 2), "W": (1, 0)}
    claimed = {str(t.get("loc")) for t in tokens if t.get("kind") in ("boot", "fork")}
    for i, quad in enumerate(QUADS):
        bq = rotate_quad(quad, rotation)
        r, c = spot[bq]
        letter = q[i] if i < len(q) else "?"
        grid[r][c] = letter.upper() if bq in claimed else letter
    items: dict[str, list[str]] = {quad: [] for quad in QUADS}
    for entry in f.get("coins", []):
        items[rotate_quad(entry[0], rotation)].append(str(entry[1]))
    for quad in f.get("flowers", []):
        items[rotate_quad(quad, rotation)].append("flower")
    for quad, found in items.items():
        r, c = deco_spot[quad]
        grid[r][c] = _deco_char(found)
    for spoke in SPOKES:
        r, c = spoke_spot[spoke]
        grid[r][c] = "."
    bends: list[frozenset[str]] = []
    for species, kind, bs in board_pieces(f, rotation, set(removed)):
        for s in bs:
            r, c = spoke_spot[s]
            grid[r][c] = _KIND_CHAR.get((species, kind), "?")
        if len(bs) == 2:
            bends.append(frozenset(bs))
    centre = " "
    if len(bends) == 1:
        centre = _BEND_CHAR.get(bends[0], "+")
    elif len(bends) > 1:
        centre = "┼"
    grid[1][2] = centre
    # Connectors between the centre and the E/W sides show whether the piece reaches the middle.
    for bend in bends:
        if "W" in bend:
            grid[1][1] = "─"
        if "E" in bend:
            grid[1][3] = "─"
    return ["".join(row) for row in grid]


def _tokens_text(view: Mapping[str, Any], names: Sequence[str], lang: Language) -> list[str]:
    lines = []
    for laid in view.get("board") or []:
        for token in laid.get("tokens") or []:
            owner = who(names, token.get("seat"), lang=lang)
            kind = str(token.get("kind"))
            said = lang(TOKEN_NAMES[kind]) if kind in TOKEN_NAMES else kind
            lines.append(
                "  "
                + lang(
                    "%(seat)s: %(token)s at %(x)s,%(y)s %(place)s",
                    seat=owner,
                    token=said,
                    x=str(laid["x"]),
                    y=str(laid["y"]),
                    place=str(token.get("loc")),
                )
            )
    return lines


def _prey_text(view: Mapping[str, Any], lang: Language) -> list[str]:
    """Prey still on the board, in board orientation (the text blocks have no room for them)."""
    out = []
    for laid in view.get("board") or []:
        rotation = int(laid.get("rotation") or 0)
        f = laid_face(view, laid)
        gone = set(laid.get("removed") or [])
        for spoke, animal in f.get("prey", []):
            board_spoke = rotate_spoke(str(spoke), rotation)
            if board_spoke not in gone:
                prey = prey_name(animal, lang)
                out.append(
                    lang(
                        "%(prey)s at %(x)s,%(y)s %(spoke)s",
                        prey=prey,
                        x=str(laid["x"]),
                        y=str(laid["y"]),
                        spoke=board_spoke,
                    )
                )
    return out


# Why a game ended, for the text board (words.describe_outcome says it whole, from the state).
ENDED_WORDS = {
    "threshold": N_("the threshold was reached"),
    "tiles-out": N_("the tiles ran out"),
    "no-action": N_("nobody could act"),
    "others-left": N_("the others left"),
}
_LENGTHS = {"short": N_("short game"), "long": N_("long game")}
_EMPTY = ["     "] * 3
_OPEN = ["     ", "  ·  ", "     "]


def _board_lines(view: Mapping[str, Any], names: Sequence[str], lang: Language) -> list[str]:
    """The title, the board as blocks under their column numbers, rows numbered, then the prey
    and the tokens on it."""
    variant = str(view.get("variant") or "classic")
    by_pos = {
        (int(laid["x"]), int(laid["y"])): laid
        for laid in view.get("board") or []
        if isinstance(laid, Mapping)
    }
    open_cells = frontier(set(by_pos)) if view.get("outcome") is None else set()
    grid = Grid.around(set(by_pos) | open_cells or {(0, 0)})
    title = f"Marram {lang(VARIANT_TITLE[variant]) if variant in VARIANT_TITLE else variant}"
    length = str(view.get("length") or "")
    if length:
        title += f", {lang(_LENGTHS[length]) if length in _LENGTHS else length}"
    if view.get("threshold"):
        title = lang("%(game)s to %(n)s", game=title, n=str(view.get("threshold")))
    header = " " * 5 + "".join(f"{x:^5} " for x in range(grid.min_x, grid.max_x + 1))
    lines = [title, header.rstrip()]
    for y in range(grid.max_y, grid.min_y - 1, -1):
        rows = ["", "", ""]
        for x in range(grid.min_x, grid.max_x + 1):
            laid = by_pos.get((x, y))
            if laid is not None:
                block = tile_text(
                    tile_desc(view, laid.get("tile")),
                    int(laid.get("rotation") or 0),
                    str(laid.get("face") or "front"),
                    [str(s) for s in laid.get("removed") or []],
                    [k for k in laid.get("tokens") or [] if isinstance(k, Mapping)],
                )
            else:
                block = _OPEN if (x, y) in open_cells else _EMPTY
            for i in range(3):
                rows[i] += block[i] + " "
        lines += [" " * 5 + rows[0].rstrip(), f"{y:>3}  " + rows[1].rstrip()]
        lines.append(" " * 5 + rows[2].rstrip())
    prey = _prey_text(view, lang) if variant == "animals" else []
    if prey:
        lines.append(lang("Prey: %(prey)s", prey="; ".join(prey)))
    tokens = _tokens_text(view, names, lang)
    if tokens:
        lines += [lang("Tokens:"), *tokens]
    return lines


def _seat_lines(view: Mapping[str, Any], names: Sequence[str], lang: Language) -> list[str]:
    """A line per seat: the one to move marked, its score and what it holds."""
    variant = str(view.get("variant") or "classic")
    scores = list(view.get("scores") or [])
    supplies = list(view.get("supplies") or [])
    sizes = list(view.get("hand_sizes") or [])
    left = dropped(view)
    lines = []
    for seat, name in enumerate(names):
        sup = supplies[seat] if seat < len(supplies) else {}
        mark = ">" if seat == view.get("to_move") else " "
        score = scores[seat] if seat < len(scores) else 0
        if seat in left:
            lines.append(f"{mark} {name:<12} {score:>4}   {lang('left the game')}")
            continue
        bits = [lang("boots %(n)s", n=str(sup.get("boots", 0)))]
        if variant != "classic":
            bits.append(lang("forks %(n)s", n=str(sup.get("forks", 0))))
        bits.append(lang("shovels %(n)s", n=str(sup.get("shovels", 0))))
        if variant == "animals":
            bits.append(lang("bets %(n)s", n=str(sup.get("bets", 0))))
        bits.append(lang("hand %(n)s", n=str(sizes[seat] if seat < len(sizes) else 0)))
        lines.append(f"{mark} {name:<12} {score:>4}   {', '.join(bits)}")
    return lines


def _status_line(view: Mapping[str, Any], names: Sequence[str], lang: Language) -> str:
    """The bag, the dead tiles, and who is to move or how the game ended."""
    status = lang("Bag %(n)s", n=str(view.get("bag", 0)))
    discarded = view.get("discarded") or []
    if discarded:
        dead = "; ".join(view_tile_named(view, t).say(lang) for t in discarded)
        status = lang(
            "%(status)s; discarded, as they fit nowhere: %(tiles)s", status=status, tiles=dead
        )
    outcome, to_move = view.get("outcome"), view.get("to_move")
    settled = settled_words(outcome, names)
    if settled is not None:
        return lang("%(status)s. Game over: %(result)s.", status=status, result=settled)
    if isinstance(outcome, Mapping):
        winners = Listing(who(names, int(w), lang=lang) for w in outcome.get("winners") or [])
        won = lang("%(seats)s won", seats=winners) if winners else lang("nobody won")
        why = ENDED_WORDS.get(str(outcome.get("reason")))
        if why:
            reason = lang(why)
            return lang(
                "%(status)s. Game over: %(why)s; %(won)s.", status=status, why=reason, won=won
            )
        return lang("%(status)s. Game over; %(won)s.", status=status, won=won)
    if isinstance(to_move, int):
        mover = who(names, to_move, lang=lang)
        return lang.counted(
            "%(status)s. %(seat)s to move, %(n)s action left.",
            "%(status)s. %(seat)s to move, %(n)s actions left.",
            int(view.get("actions_left") or 0),
            status=status,
            seat=mover,
        )
    return status


def _hand_lines(view: Mapping[str, Any], lang: Language) -> list[str]:
    """The viewer's tiles side by side, each under its number ("^": it can be flipped)."""
    hand = view.get("hand")
    if not isinstance(hand, Sequence) or isinstance(hand, str):
        return []
    if not hand:
        return [lang("Your hand is empty.")]
    blocks = [tile_text(tile_desc(view, tid)) for tid in hand]
    marks = [f"{tid!s}{' ^' if tile_desc(view, tid).get('back') else ''}" for tid in hand]
    lines = [lang("Your hand:"), "  " + "".join(f"{m:<9}" for m in marks).rstrip()]
    for i in range(3):
        lines.append("  " + "".join(f"{b[i]:<9}" for b in blocks).rstrip())
    return lines


def render_text(
    view: Mapping[str, Any], names: Sequence[str] | None = None, lang: Language = ENGLISH
) -> str:
    """The board, scores and the viewer's hand for a terminal (`names` as for `render_svg`),
    its words in `lang`."""
    names = player_names(view, names, lang)
    lines = [
        *_board_lines(view, names, lang),
        "",
        *_seat_lines(view, names, lang),
        _status_line(view, names, lang),
    ]
    for turn in marked_turns(view):
        for index, ply in enumerate(turn.plies):
            said = fill_names(action_words(view, ply).say(lang), names)
            lines.append(f"[{turn_label(turn, index)}] {said}")
    lines.extend(describe_event(e, names, lang=lang) for e in departures(view))
    lines.extend(_hand_lines(view, lang))
    lines.append(
        lang(
            "Key: O/W end, H head, T tail, o/b/w mid, = saddle; $ gold, c silver, * flower, "
            "^ shovel; G/S claimed quadrant."
        )
    )
    return "\n".join(lines) + "\n"
