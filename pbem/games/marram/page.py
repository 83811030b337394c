"""Marram's board for the game page: the tiles, the last turns' marks and the side panel."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from html import escape
from typing import Any

from pbem.games import drawing as d
from pbem.games.base import fill_names
from pbem.games.drawing import attr
from pbem.games.drawing import fine as _f
from pbem.games.marram import words
from pbem.games.marram.geometry import C, Grid, T, frontier, parse_piece, tile_desc
from pbem.games.marram.glyphs import boot_glyph, coin, flower, fly, frog, shovel
from pbem.games.marram.palette import PAPER, seat_colour, seat_outline
from pbem.games.marram.pieces import piece_svg
from pbem.games.marram.seats import dropped, player_names, settled_words, who
from pbem.games.marram.tile_svg import svg_open, tile_group
from pbem.games.marram.turns import (
    VARIANT_TITLE,
    action_pos,
    action_positions,
    action_words,
    departures,
    describe_event,
    last_tile,
    marked_turns,
    placed_actions,
    tile_name,
    turn_label,
)
from pbem.games.messages import ENGLISH, N_, Language, Listing, Message

# Longest names on the panel's lines that cannot wrap: the status line, a seat's row.
STATUS_NAME = 20
SEAT_NAME = 24
PANEL_W = 340.0
MARGIN = 24.0
AXIS = 16.0  # room for the coordinates above and left of the board
LEGEND_H = 112.0


def _turn_marks(
    view: Mapping[str, Any],
    marked: list[d.Turn],
    sentences: Mapping[int, str],
    names: Sequence[str],
    grid: Grid,
    laid: set[tuple[int, int]],
    lang: Language,
) -> list[str]:
    """Each marked turn as a group (`g.last-turn`): every tile it laid or flipped outlined in
    the seat's colour, with a badge of the seat's letter and the action's number ("V2") in a
    corner. A tile marked twice (laid, then flipped) gets the second mark inside the first, its
    badge in the opposite corner."""
    out: list[str] = []
    slots: dict[tuple[int, int], int] = {}
    positions = action_positions(view)
    for turn in marked:
        seat = turn.seat
        steps = ". ".join(f"{i + 1}. {sentences[ply]}" for i, ply in enumerate(turn.plies))
        title = lang("%(seat)s's last turn: %(steps)s", seat=who(names, seat), steps=steps)
        plies = " ".join(str(p) for p in turn.plies)
        group = [
            f'<g class="last-turn" data-seat="{seat}" data-plies="{plies}" '
            f'data-name="{attr(title)}" pointer-events="none"><title>{escape(title)}</title>'
        ]
        for index, pos, slot in placed_actions(positions, turn, laid, slots):
            ply = turn.plies[index]
            ox, oy = grid.origin(*pos)
            inset = 3.5 + 7 * slot
            label = turn_label(turn, index)
            bx, by = (ox + T - 17, oy + 11) if slot % 2 == 0 else (ox + 17, oy + T - 11)
            group.append(
                f'<g class="last-action" data-ply="{ply}" data-pos="{pos[0]},{pos[1]}" '
                f'data-label="{label}"><title>{escape(sentences[ply])}</title>'
                + d.outline(
                    d.rect_d(ox + inset, oy + inset, T - 2 * inset, T - 2 * inset),
                    seat_colour(seat),
                    seat_outline(seat),
                    3.5,
                )
                + d.badge(bx, by, label, seat_colour(seat), seat_outline(seat), 12)
                + "</g>"
            )
        group.append("</g>")
        out.append("".join(group))
    return out


def _focus(view: Mapping[str, Any], marked: list[d.Turn], laid: set[tuple[int, int]]) -> Grid:
    """The board cells a small screen should show first: the tiles of the marked turns, else
    the last tile laid or flipped, else the start."""
    spots = [
        pos
        for turn in marked
        for ply in turn.plies
        if (pos := action_pos(view, ply)) is not None and pos in laid
    ]
    if not spots:
        last = last_tile(view)
        spots = [last if last is not None and last in laid else (0, 0)]
    return Grid.around(spots)


def _axes(grid: Grid, size: str) -> list[str]:
    """The coordinates moves are typed in, above and left of the board."""
    # What the labels share is said once, on their group: a long game's page is large, and a
    # phone reads all of it before it shows any.
    out = [f'<g class="axes" font-size="{size}" fill="#868e96" text-anchor="middle">']
    for x in range(grid.min_x, grid.max_x + 1):
        cx = grid.x0 + (x - grid.min_x + 0.5) * T
        out.append(f'<text x="{_f(cx)}" y="{_f(grid.y0 - 5)}">x={x}</text>')
    for y in range(grid.min_y, grid.max_y + 1):
        cy = grid.y0 + (grid.max_y - y + 0.5) * T
        out.append(
            f'<text x="{_f(grid.x0 - 5)}" y="{_f(cy)}" '
            f'transform="rotate(-90 {_f(grid.x0 - 5)} {_f(cy)})">y={y}</text>'
        )
    out.append("</g>")
    return out


def _open_places(grid: Grid, open_cells: set[tuple[int, int]], lang: Language) -> list[str]:
    if not open_cells:
        return []
    # The dashed frame's paint is inherited from the group (a board has scores of open places);
    # the label sets its own.
    out = [
        '<g class="open-places" fill="#ffffff" fill-opacity="0.35" stroke="#adb5bd" '
        'stroke-width="1.2" stroke-dasharray="5 4" font-size="11" text-anchor="middle">'
    ]
    side = _f(T - 6)
    for x, y in sorted(open_cells):
        ox, oy = grid.origin(x, y)
        name = attr(lang("open place at (%(x)s,%(y)s)", x=x, y=y))
        out.append(
            f'<g class="frontier" data-pos="{x},{y}" data-name="{name}">'
            f'<rect x="{_f(ox + 3)}" y="{_f(oy + 3)}" width="{side}" height="{side}" rx="6"/>'
            f'<text x="{_f(ox + C)}" y="{_f(oy + C + 4)}" fill="#adb5bd" fill-opacity="1" '
            f'stroke="none">{x},{y}</text></g>'
        )
    out.append("</g>")
    return out


def _tiles(view: Mapping[str, Any], names: Sequence[str], grid: Grid, lang: Language) -> list[str]:
    out = []
    for laid in view.get("board") or []:
        if not isinstance(laid, Mapping):
            continue
        x, y = int(laid["x"]), int(laid["y"])
        ox, oy = grid.origin(x, y)
        tid = laid.get("tile")
        title = tile_name(view, laid, names, lang)
        out.append(
            tile_group(
                tile_desc(view, tid),
                x=ox,
                y=oy,
                rotation=int(laid.get("rotation") or 0),
                face=str(laid.get("face") or "front"),
                tile_id=tid,
                removed=[str(s) for s in laid.get("removed") or []],
                tokens=[k for k in laid.get("tokens") or [] if isinstance(k, Mapping)],
                show_prey=view.get("variant") == "animals",
                attrs=f' data-pos="{x},{y}" data-tile="{attr(tid)}" data-name="{attr(title)}"',
                title=title,
                lang=lang,
            )
        )
    return out


def _status(view: Mapping[str, Any], names: Sequence[str], lang: Language) -> str:
    """The panel's status line: who is to move, or how the game ended."""
    outcome = view.get("outcome")
    to_move = view.get("to_move")
    settled = settled_words(outcome, names, STATUS_NAME)
    if settled is not None:
        return lang("Game over: %(result)s", result=settled)
    if isinstance(outcome, Mapping):
        winners = [int(w) for w in outcome.get("winners") or []]
        if not winners:
            return lang("Game over: no winner")
        if len(winners) == 1:
            return lang("Game over: %(seat)s wins", seat=who(names, winners[0], STATUS_NAME))
        players = Listing(who(names, w, STATUS_NAME // 2) for w in winners)
        return lang("Game over: %(seats)s share the win", seats=players)
    if isinstance(to_move, int):
        return lang.counted(
            "%(seat)s to move, %(n)s action left",
            "%(seat)s to move, %(n)s actions left",
            int(view.get("actions_left") or 0),
            seat=who(names, to_move, STATUS_NAME),
        )
    return ""


_LENGTHS = {"short": N_("short"), "long": N_("long")}


def _panel_head(
    view: Mapping[str, Any], status: str, py: float, lang: Language
) -> tuple[list[str], float]:
    """The panel's title, status line and bag."""
    variant = str(view.get("variant") or "classic")
    title = f"Marram · {lang(VARIANT_TITLE[variant]) if variant in VARIANT_TITLE else variant}"
    length = str(view.get("length") or "")
    if length:
        title += f" · {lang(_LENGTHS[length]) if length in _LENGTHS else length}"
    out = [
        f'<text x="0" y="{_f(py + 18)}" font-size="20" font-weight="bold" '
        f'fill="#343a40">{escape(title)}</text>'
    ]
    py += 30
    outcome, to_move = view.get("outcome"), view.get("to_move")
    if status:
        colour = seat_colour(to_move) if isinstance(to_move, int) and not outcome else "#343a40"
        out.append(
            f'<text class="status" x="0" y="{_f(py + 12)}" font-size="14" '
            f'fill="#212529"><tspan fill="{colour}" stroke="#495057" stroke-width="0.4">●</tspan>'
            f" {escape(status)}</text>"
        )
        py += 22
    info = lang.counted("Bag: %(n)s tile", "Bag: %(n)s tiles", int(view.get("bag") or 0))
    # The race is told while it runs; once over, the status line says who won.
    if view.get("threshold") and not outcome:
        first = lang("first to %(n)s wins", n=str(view.get("threshold")))
        info = lang("%(first)s · %(then)s", first=info, then=first)
    discarded = view.get("discarded") or []
    if discarded:
        dead = lang("dead tiles discarded: %(n)s", n=len(discarded))
        info = lang("%(first)s · %(then)s", first=info, then=dead)
    out.append(
        f'<text x="0" y="{_f(py + 12)}" font-size="12.5" fill="#495057">{escape(info)}</text>'
    )
    return out, py + 24


def _supply_words(variant: str, sup: Mapping[str, Any], lang: Language) -> str:
    bits = [Message("boots %(n)s", n=str(sup.get("boots", 0)))]
    if variant != "classic" or sup.get("forks"):
        bits.append(Message("forks %(n)s", n=str(sup.get("forks", 0))))
    bits.append(Message("shovels %(n)s", n=str(sup.get("shovels", 0))))
    if variant == "animals" or sup.get("bets"):
        bits.append(Message("bets %(n)s", n=str(sup.get("bets", 0))))
    return words.chained(words.DOT, bits).say(lang)


def _seat_rows(
    view: Mapping[str, Any], names: Sequence[str], py: float, lang: Language
) -> tuple[list[str], float]:
    """A row per seat: its boot, name, what it holds and its score, the seat to move lit."""
    seats = len(names)
    variant = str(view.get("variant") or "classic")
    outcome, to_move = view.get("outcome"), view.get("to_move")
    scores = list(view.get("scores") or [0] * seats)
    supplies = list(view.get("supplies") or [{}] * seats)
    sizes = list(view.get("hand_sizes") or [0] * seats)
    won = {int(w) for w in outcome.get("winners") or []} if isinstance(outcome, Mapping) else set()
    left = dropped(view)
    out = []
    row_h = 50.0
    for seat in range(seats):
        active = seat == to_move and not outcome
        out.append(
            f'<g class="seat" data-seat="{seat}"><rect x="0" y="{_f(py)}" '
            f'width="{_f(PANEL_W - 10)}" height="{_f(row_h - 6)}" rx="6" '
            f'fill="{"#fff3bf" if active else "#f8f9fa"}" '
            f'stroke="{"#f59f00" if active else "#dee2e6"}" stroke-width="{2 if active else 1}"/>'
        )
        out.append(boot_glyph(18, py + 22, seat, size=24))
        name = who(names, seat, SEAT_NAME) + ("  ★" if seat in won else "")
        in_hand = sizes[seat] if seat < len(sizes) else 0
        aside = lang("left the game") if seat in left else lang("%(n)s in hand", n=in_hand)
        out.append(
            f'<text x="36" y="{_f(py + 18)}" font-size="14" font-weight="bold" '
            f'fill="#212529">{escape(name)}<tspan font-size="11.5" font-weight="normal" '
            f'fill="#868e96" dx="8">{escape(aside)}</tspan></text>'
        )
        sup = supplies[seat] if seat < len(supplies) and isinstance(supplies[seat], Mapping) else {}
        out.append(
            f'<text x="36" y="{_f(py + 35)}" font-size="11.5" fill="#495057">'
            f"{escape(_supply_words(variant, sup, lang))}</text>"
        )
        score = scores[seat] if seat < len(scores) else 0
        out.append(
            f'<text x="{_f(PANEL_W - 20)}" y="{_f(py + 30)}" font-size="24" '
            f'font-weight="bold" text-anchor="end" fill="#212529">{escape(str(score))}</text></g>'
        )
        py += row_h
    return out, py


def _hand(view: Mapping[str, Any], py: float, lang: Language) -> tuple[list[str], float]:
    """The viewer's tiles, when the view has a hand."""
    hand = view.get("hand")
    if not isinstance(hand, Sequence) or isinstance(hand, str):
        return [], py
    py += 6
    heading = escape(lang("Your hand"))
    out = [
        f'<text x="0" y="{_f(py + 12)}" font-size="14" font-weight="bold" '
        f'fill="#343a40">{heading}</text>'
    ]
    py += 20
    hx = 0.0
    for tid in hand:
        named = lang("tile %(id)s in your hand", id=str(tid))
        out.append(
            tile_group(
                tile_desc(view, tid),
                x=hx,
                y=py,
                tile_id=tid,
                show_prey=view.get("variant") == "animals",
                attrs=f' data-tile="{attr(tid)}" data-hand="1" data-name="{attr(named)}"',
                title=named,
                lang=lang,
            )
        )
        hx += T + 10
    if hand:
        return out, py + T + 10
    empty = escape(lang("(empty)"))
    out.append(f'<text x="0" y="{_f(py + 14)}" font-size="12" fill="#868e96">{empty}</text>')
    return out, py + 24


def _last_turns(
    view: Mapping[str, Any],
    names: Sequence[str],
    marked: list[d.Turn],
    sentences: Mapping[int, str],
    py: float,
    lang: Language,
) -> tuple[list[str], float]:
    """The seats that left and the marked turns, a line of words per action under its badge."""
    gone = departures(view)
    if not marked and not gone:
        return [], py
    py += 8
    heading = escape(lang("Last turns"))
    out = [
        f'<text x="0" y="{_f(py + 12)}" font-size="14" font-weight="bold" '
        f'fill="#343a40">{heading}</text>'
    ]
    py += 18
    for event in gone:
        said = describe_event(event, names, lang=lang)
        out.append(
            f'<text class="departure" x="32" y="{_f(py + 12)}" '
            f'font-size="11.5" fill="#343a40">{escape(said)}</text>'
        )
        py += 19
    for turn in marked:
        colour, edge = seat_colour(turn.seat), seat_outline(turn.seat)
        for index, ply in enumerate(turn.plies):
            out.append(
                f'<g class="turn-line" data-seat="{turn.seat}" data-ply="{ply}">'
                + d.badge(13, py + 8, turn_label(turn, index), colour, edge, 11)
            )
            for line in d.wrap(sentences[ply], 46, 3):
                out.append(
                    f'<text x="32" y="{_f(py + 12)}" font-size="11.5" '
                    f'fill="#343a40">{escape(line)}</text>'
                )
                py += 15
            out.append("</g>")
            py += 4
    return out, py


_SAMPLES = (
    ("b:head:S", N_("head")),
    ("b:tail:S", N_("tail")),
    ("o:end:S", N_("end")),
    ("w:saddle:N-S", N_("saddle")),
    ("b:mid:N-S", N_("mid")),
)


def _legend(y: float, variant: str, lang: Language) -> str:
    """A strip of small samples naming the creature parts, for first-time readers."""
    heading = escape(lang("Key"))
    parts = [
        f'<g class="legend"><text x="0" y="{_f(y + 12)}" font-size="14" '
        f'font-weight="bold" fill="#343a40">{heading}</text>'
    ]
    for i, (piece, key) in enumerate(_SAMPLES):
        label = escape(lang(key))
        gx, gy = i * 64.0, y + 20
        parts.append(
            f'<g transform="translate({_f(gx)} {_f(gy)}) scale(0.52)">'
            f'<rect width="100" height="100" rx="8" fill="#f1f3f5"/>'
            f"{piece_svg(*parse_piece(piece), lang=lang)}</g>"
        )
        parts.append(
            f'<text x="{_f(gx + 26)}" y="{_f(gy + 66)}" font-size="11" fill="#495057" '
            f'text-anchor="middle">{label}</text>'
        )
    gy = y + 102
    parts += [coin(6, gy - 4, "gold"), coin(22, gy - 4, "silver"), flower(78, gy - 4)]
    parts.append(shovel(134, gy - 12, 0.9, lang))
    labels = [(32, lang("coins")), (88, lang("flower")), (150, lang("flippable"))]
    if variant == "animals":
        parts += [fly(222, gy - 4), frog(240, gy - 4)]
        labels.append((250, lang("prey")))
    for lx, label in labels:
        parts.append(
            f'<text x="{_f(lx)}" y="{_f(gy)}" font-size="11" fill="#495057">{escape(label)}</text>'
        )
    parts.append("</g>")
    return "".join(parts)


def _panel(
    view: Mapping[str, Any],
    names: Sequence[str],
    status: str,
    marked: list[d.Turn],
    sentences: Mapping[int, str],
    top: float,
    lang: Language,
) -> tuple[list[str], float]:
    """The side panel, drawn at the origin from `top` down; returns its parts and its height."""
    head, py = _panel_head(view, status, top, lang)
    rows, py = _seat_rows(view, names, py, lang)
    hand, py = _hand(view, py, lang)
    lines, py = _last_turns(view, names, marked, sentences, py, lang)
    legend = _legend(py + 8, str(view.get("variant") or "classic"), lang)
    return [*head, *rows, *hand, *lines, legend], py + 8 + LEGEND_H


def render_svg(
    view: Mapping[str, Any], names: Sequence[str] | None = None, lang: Language = ENGLISH
) -> str:
    """The board, the viewer's hand and a score panel as one SVG document, its words in `lang`.

    `names` are the seats' display names (escaped here); colour words when None.
    """
    names = player_names(view, names, lang)
    laid = {
        (int(tile["x"]), int(tile["y"]))
        for tile in view.get("board") or []
        if isinstance(tile, Mapping)
    }
    running = view.get("outcome") is None
    open_cells = frontier(laid) if running else set()
    if not laid and running:
        open_cells = {(0, 0)}
    grid = Grid.around(laid | open_cells or {(0, 0)})
    grid = replace(grid, x0=MARGIN + AXIS, y0=MARGIN + AXIS)
    board_w, board_h = grid.cols * T, grid.rows * T
    zoom = min(2.0, max(1.0, (board_h + 2 * MARGIN) / 900.0))
    marked = marked_turns(view)
    sentences = {
        ply: fill_names(action_words(view, ply).say(lang), names)
        for turn in marked
        for ply in turn.plies
    }
    focus = _focus(view, marked, laid)
    fx0, fy0 = grid.origin(focus.min_x, focus.max_y)
    focus_box = f"{_f(fx0)} {_f(fy0)} {_f(focus.cols * T)} {_f(focus.rows * T)}"
    status = _status(view, names, lang)
    # The panel is drawn at the origin and then placed right of the board, scaled up with a big
    # board so its text stays legible when the whole picture is shrunk to fit a page.
    panel, py = _panel(view, names, status, marked, sentences, MARGIN / zoom, lang)
    panel_x = grid.x0 + board_w + 6 + MARGIN
    width = panel_x + PANEL_W * zoom + MARGIN
    height = max(grid.y0 + board_h + 6 + MARGIN, py * zoom + MARGIN)
    label = lang("Marram board: %(status)s", status=status) if status else lang("Marram board")
    return "".join(
        [
            svg_open(
                width,
                height,
                f' class="marram-board" role="group" aria-label="{attr(label)}" '
                f'data-focus="{focus_box}"',
            ),
            f'<rect width="{_f(width)}" height="{_f(height)}" fill="{PAPER}"/>',
            f'<rect class="board-bg" x="{_f(grid.x0 - 6)}" y="{_f(grid.y0 - 6)}" '
            f'width="{_f(board_w + 12)}" height="{_f(board_h + 12)}" rx="8" fill="#e9e4d8"/>',
            *_axes(grid, _f(11 * zoom)),
            *_open_places(grid, open_cells, lang),
            *_tiles(view, names, grid, lang),
            *_turn_marks(view, marked, sentences, names, grid, laid, lang),
            f'<g class="panel" transform="translate({_f(panel_x)} 0) scale({_f(zoom)})">',
            *panel,
            "</g></svg>",
        ]
    )
