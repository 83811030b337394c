"""Drawing GORami positions: the page's SVG board (`page`), the mail picture (`mail`) and the
terminal's text board (`text`); what they share is in `look`."""

from __future__ import annotations

from pbem.games.gorami.look import DISC_FILL, DISC_STROKE, DISC_TEXT, INK, MARKS, TURN_EDGE
from pbem.games.gorami.mail import mail_drawing, render_mail_svg
from pbem.games.gorami.page import render_svg
from pbem.games.gorami.text import render_text

__all__ = [
    "DISC_FILL",
    "DISC_STROKE",
    "DISC_TEXT",
    "INK",
    "MARKS",
    "TURN_EDGE",
    "mail_drawing",
    "render_mail_svg",
    "render_svg",
    "render_text",
]
