"""A game's name, as its organiser may give it ("Friday Club"): what a typed name must be.

The name heads the game's pages and every email of it, subjects included, and goes to every
player. So it is plain text on one line, of printable characters, short enough for a subject,
and carries no address or link: a game started from the web form must not turn pbem into a way
to mail strangers someone's advertisement.
"""

from __future__ import annotations

import re
import unicodedata

from pbem.domain.errors import SetupError
from pbem.games.base import shorten

MIN_LENGTH = 1
MAX_LENGTH = 60
# Far over any name: refused before the characters are looked at one by one.
_MAX_TYPED = 600

# Line breaks of every kind (str.splitlines' set): a name is one line of a subject.
_LINE_BREAKS = frozenset("\n\r\v\f\x1c\x1d\x1e\x85\u2028\u2029")
# Joiners that real words need (Persian and Indic scripts, emoji sequences); every other
# format character (bidi controls, invisible marks) is refused.
_JOINERS = frozenset("\u200c\u200d")
_REFUSED_CATEGORIES = {
    "Cc": "a control character",
    "Cf": "an invisible formatting character (such as a right-to-left mark)",
    "Cs": "a character no text may hold",
    "Co": "a private-use character",
    "Cn": "a character Unicode has not assigned",
}
# What mail clients turn into a link: a scheme, or a host starting with "www.".
_LINK = re.compile(r"[a-z][a-z0-9+.-]*://|\bwww\.", re.IGNORECASE)


class BadTitle(SetupError):
    code = "bad_title"


def clean_title(text: str) -> str:
    """The name as pbem stores it: NFC, trimmed, inner whitespace one space; BadTitle saying
    what is wrong and what to do otherwise."""
    if len(text) > _MAX_TYPED:
        raise BadTitle(_too_long(len(text)))
    text = unicodedata.normalize("NFC", text)
    for character in text:
        if character in _LINE_BREAKS:
            raise BadTitle("A game's name is one line: remove the line break from it.")
        if character.isspace() or character in _JOINERS:
            continue  # tabs and odd spaces collapse below
        category = unicodedata.category(character)
        if category in _REFUSED_CATEGORIES:
            raise BadTitle(
                f"A game's name cannot hold {_REFUSED_CATEGORIES[category]} "
                f"({_code(character)}): type it again rather than pasting it."
            )
    title = " ".join(text.split())
    if len(title.replace("\u200c", "").replace("\u200d", "").strip()) < MIN_LENGTH:
        raise BadTitle("A game's name needs at least one visible character, or leave it out.")
    if len(title) > MAX_LENGTH:
        raise BadTitle(_too_long(len(title)))
    # NFKC also finds the full-width and small at signs and colons (＠ ﹫ ：).
    folded = unicodedata.normalize("NFKC", title)
    if "@" in folded or _LINK.search(folded):
        raise BadTitle(
            f"{shorten(title)!r} holds an address or a link: a game's name goes into every "
            "email of the game, so it may not carry either. Leave out the '@' or the link."
        )
    return title


def optional_title(text: str | None) -> str | None:
    """A name field of a form: None when left empty, else the cleaned name (BadTitle when it
    cannot be one)."""
    if text is None or not text.strip():
        return None
    return clean_title(text)


def _too_long(length: int) -> str:
    return f"A game's name has at most {MAX_LENGTH} characters; this one has {length}. Shorten it."


def _code(character: str) -> str:
    name = unicodedata.name(character, "")
    return f"U+{ord(character):04X} {name}".strip()
