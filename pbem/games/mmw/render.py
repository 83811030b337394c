"""Drawing Martian Mud Wrestling positions: the page's SVG board (`page`), the mail picture
(`mail`) and the terminal's text board (`text`); what they share is in `look`."""

from __future__ import annotations

from pbem.games.mmw.look import DARK, FILL, MARKS, TINT
from pbem.games.mmw.mail import mail_drawing, render_mail_svg
from pbem.games.mmw.page import render_svg
from pbem.games.mmw.text import render_text

__all__ = [
    "DARK",
    "FILL",
    "MARKS",
    "TINT",
    "mail_drawing",
    "render_mail_svg",
    "render_svg",
    "render_text",
]
