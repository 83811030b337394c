"""A game's name, as its organiser may give it ("Friday Club"): what a typed name must be.

The name heads the game's pages and every email of it, subjects included, and goes to every
player. So it is plain text on one line, of printable characters, short enough for a subject,
and carries no address or link: a game started from the web form must not turn pbem into a way
to mail strangers someone's advertisement.
"""

from __future__ import annotations

import re
import unicodedata

from pbem import i18n
from pbem.domain import one_line
from pbem.domain.errors import SetupError
from pbem.games.base import shorten

MAX_LENGTH = 60
# What mail clients turn into a link: a scheme, or a host starting with "www.".
_LINK = re.compile(r"[a-z][a-z0-9+.-]*://|\bwww\.", re.IGNORECASE)


class BadTitle(SetupError):
    code = "bad_title"


def clean_title(text: str) -> str:
    """The name as pbem stores it: NFC, trimmed, inner whitespace one space; BadTitle saying
    what is wrong and what to do otherwise."""
    empty = i18n.gettext("A game's name needs at least one visible character, or leave it out.")
    title = one_line.tidy(text, one_line.TITLE, MAX_LENGTH, empty, BadTitle)
    # NFKC also finds the full-width and small at signs and colons (＠ ﹫ ：).
    folded = unicodedata.normalize("NFKC", title)
    if "@" in folded or _LINK.search(folded):
        raise BadTitle(
            i18n.gettext(
                "%(title)s holds an address or a link: a game's name goes into every email of the "
                "game, so it may not carry either. Leave out the '@' or the link.",
                title=repr(shorten(title)),
            )
        )
    return title


def game_named(name: str | None, engine_title: str, game_id: str) -> str:
    """How a sentence names a game: "Friday Club (Chess game wv7WthzljTw0)", or "Chess game
    wv7WthzljTw0" when it has no name (as the mail's `game_named` does)."""
    if name:
        return i18n.gettext(
            "%(name)s (%(game)s game %(id)s)", name=name, game=engine_title, id=game_id
        )
    return i18n.gettext("%(game)s game %(id)s", game=engine_title, id=game_id)


def optional_title(text: str | None) -> str | None:
    """A name field of a form: None when left empty, else the cleaned name (BadTitle when it
    cannot be one)."""
    if text is None or not text.strip():
        return None
    return clean_title(text)
