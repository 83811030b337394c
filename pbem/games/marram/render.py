"""Drawing Marram from a view dict: an SVG board for the web and mail, plain text for a terminal.

Everything works from `state.view(seat)` alone (rules section 7), so it can never show what the
viewer may not see. This module names what the rest of the service and the tests use; the
drawing itself is split by what it draws: `geometry` (where things sit), `palette` (colours),
`seats` (names), `glyphs` (symbols and tokens), `pieces` (creatures), `tile_svg` (one tile,
previews), `turns` (captions and the last turns), `page` (the game page's board), `text_board`
(plain text) and `mail_board` (the turn email's picture).
"""

from __future__ import annotations

from pbem.games.marram.geometry import rotate_quad, rotate_spoke
from pbem.games.marram.glyphs import bet_glyph, bet_mark, boot_glyph, fork_glyph
from pbem.games.marram.mail_board import mail_drawing, render_mail_svg
from pbem.games.marram.page import render_svg
from pbem.games.marram.palette import SEAT_COLOURS, SEAT_HALOS, SEAT_OUTLINES
from pbem.games.marram.seats import SEAT_WORDS, clean_name, seat_letter, seat_word
from pbem.games.marram.text_board import render_text, tile_text
from pbem.games.marram.tile_svg import flips, previews, render_tile_svg, tile_group
from pbem.games.marram.turns import (
    action_words,
    describe_event,
    marked_turns,
    tile_name,
    turns,
)

__all__ = [
    "SEAT_COLOURS",
    "SEAT_HALOS",
    "SEAT_OUTLINES",
    "SEAT_WORDS",
    "action_words",
    "bet_glyph",
    "bet_mark",
    "boot_glyph",
    "clean_name",
    "describe_event",
    "flips",
    "fork_glyph",
    "mail_drawing",
    "marked_turns",
    "previews",
    "render_mail_svg",
    "render_svg",
    "render_text",
    "render_tile_svg",
    "rotate_quad",
    "rotate_spoke",
    "seat_letter",
    "seat_word",
    "tile_group",
    "tile_name",
    "tile_text",
    "turns",
]
