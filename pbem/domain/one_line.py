"""Short plain text people type for others to read (a player's name, a game's name): one line,
NFC, nothing hidden, spaces collapsed, bounded — with a message saying what is wrong."""

from __future__ import annotations

import unicodedata

from pbem import i18n
from pbem.domain.errors import SetupError

# Line breaks of every kind (str.splitlines' set): the text is one line of a page or a subject.
_LINE_BREAKS = frozenset("\n\r\v\f\x1c\x1d\x1e\x85\u2028\u2029")
# Joiners that real words need (Persian and Indic scripts, emoji sequences); every other format
# character (bidi controls, invisible marks) is refused.
_JOINERS = frozenset("\u200c\u200d")
# The two kinds of text: each message is written out whole for each (a translator may need to
# change every word of it).
NAME, TITLE = "name", "title"
_REFUSED_CATEGORIES = ("Cc", "Cf", "Cs", "Co", "Cn")
# Far over any limit: refused before the characters are looked at one by one.
_TYPED_FACTOR = 10


def tidy(text: str, what: str, max_length: int, empty: str, error: type[SetupError]) -> str:
    """`text` NFC, trimmed, inner whitespace one space; `error` naming `what` (NAME: "A name",
    TITLE: "A game's name") and saying what to do when it holds a line break or a hidden
    character, has no visible character (the `empty` message) or more than `max_length`
    characters."""
    if len(text) > max_length * _TYPED_FACTOR:
        raise error(too_long(what, max_length, len(text)))
    text = unicodedata.normalize("NFC", text)
    for character in text:
        if character in _LINE_BREAKS:
            raise error(_one_line(what))
        if character.isspace() or character in _JOINERS:
            continue  # tabs and odd spaces collapse below
        category = unicodedata.category(character)
        if category in _REFUSED_CATEGORIES:
            raise error(_hidden(what, category, _code(character)))
    tidied = " ".join(text.split())
    if not "".join(c for c in tidied if c not in _JOINERS).strip():
        raise error(empty)
    if len(tidied) > max_length:
        raise error(too_long(what, max_length, len(tidied)))
    return tidied


def too_long(what: str, max_length: int, length: int) -> str:
    if what == TITLE:
        return i18n.gettext(
            "A game's name has at most %(most)d characters; this one has %(length)d. Shorten it.",
            most=max_length,
            length=length,
        )
    return i18n.gettext(
        "A name has at most %(most)d characters; this one has %(length)d. Shorten it.",
        most=max_length,
        length=length,
    )


def _one_line(what: str) -> str:
    if what == TITLE:
        return i18n.gettext("A game's name is one line: remove the line break from it.")
    return i18n.gettext("A name is one line: remove the line break from it.")


def _hidden(what: str, category: str, code: str) -> str:
    """The refusal of a character of `category` (one of _REFUSED_CATEGORIES), `code` its
    number and name."""
    return str(_HIDDEN[what, category]) % {"code": code}


# Each refusal of a hidden character, by the kind of text and the character's category.
_HIDDEN = {
    (NAME, "Cc"): i18n.lazy_gettext(
        "A name cannot hold a control character (%(code)s): type it again rather than pasting it."
    ),
    (NAME, "Cf"): i18n.lazy_gettext(
        "A name cannot hold an invisible formatting character (such as a right-to-left mark) "
        "(%(code)s): type it again rather than pasting it."
    ),
    (NAME, "Cs"): i18n.lazy_gettext(
        "A name cannot hold a character no text may hold (%(code)s): type it again rather than "
        "pasting it."
    ),
    (NAME, "Co"): i18n.lazy_gettext(
        "A name cannot hold a private-use character (%(code)s): type it again rather than "
        "pasting it."
    ),
    (NAME, "Cn"): i18n.lazy_gettext(
        "A name cannot hold a character Unicode has not assigned (%(code)s): type it again "
        "rather than pasting it."
    ),
    (TITLE, "Cc"): i18n.lazy_gettext(
        "A game's name cannot hold a control character (%(code)s): type it again rather than "
        "pasting it."
    ),
    (TITLE, "Cf"): i18n.lazy_gettext(
        "A game's name cannot hold an invisible formatting character (such as a right-to-left "
        "mark) (%(code)s): type it again rather than pasting it."
    ),
    (TITLE, "Cs"): i18n.lazy_gettext(
        "A game's name cannot hold a character no text may hold (%(code)s): type it again "
        "rather than pasting it."
    ),
    (TITLE, "Co"): i18n.lazy_gettext(
        "A game's name cannot hold a private-use character (%(code)s): type it again rather "
        "than pasting it."
    ),
    (TITLE, "Cn"): i18n.lazy_gettext(
        "A game's name cannot hold a character Unicode has not assigned (%(code)s): type it "
        "again rather than pasting it."
    ),
}


def _code(character: str) -> str:
    name = unicodedata.name(character, "")
    return f"U+{ord(character):04X} {name}".strip()
