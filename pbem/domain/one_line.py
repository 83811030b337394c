"""Short plain text people type for others to read (a player's name, a game's name): one line,
NFC, nothing hidden, spaces collapsed, bounded — with a message saying what is wrong."""

from __future__ import annotations

import unicodedata

from pbem.domain.errors import SetupError

# Line breaks of every kind (str.splitlines' set): the text is one line of a page or a subject.
_LINE_BREAKS = frozenset("\n\r\v\f\x1c\x1d\x1e\x85\u2028\u2029")
# Joiners that real words need (Persian and Indic scripts, emoji sequences); every other format
# character (bidi controls, invisible marks) is refused.
_JOINERS = frozenset("\u200c\u200d")
_REFUSED_CATEGORIES = {
    "Cc": "a control character",
    "Cf": "an invisible formatting character (such as a right-to-left mark)",
    "Cs": "a character no text may hold",
    "Co": "a private-use character",
    "Cn": "a character Unicode has not assigned",
}
# Far over any limit: refused before the characters are looked at one by one.
_TYPED_FACTOR = 10


def tidy(text: str, what: str, max_length: int, empty: str, error: type[SetupError]) -> str:
    """`text` NFC, trimmed, inner whitespace one space; `error` naming `what` ("A name") and
    saying what to do when it holds a line break or a hidden character, has no visible
    character (the `empty` message) or more than `max_length` characters."""
    if len(text) > max_length * _TYPED_FACTOR:
        raise error(too_long(what, max_length, len(text)))
    text = unicodedata.normalize("NFC", text)
    for character in text:
        if character in _LINE_BREAKS:
            raise error(f"{what} is one line: remove the line break from it.")
        if character.isspace() or character in _JOINERS:
            continue  # tabs and odd spaces collapse below
        category = unicodedata.category(character)
        if category in _REFUSED_CATEGORIES:
            raise error(
                f"{what} cannot hold {_REFUSED_CATEGORIES[category]} ({_code(character)}): "
                "type it again rather than pasting it."
            )
    tidied = " ".join(text.split())
    if not "".join(c for c in tidied if c not in _JOINERS).strip():
        raise error(empty)
    if len(tidied) > max_length:
        raise error(too_long(what, max_length, len(tidied)))
    return tidied


def too_long(what: str, max_length: int, length: int) -> str:
    return f"{what} has at most {max_length} characters; this one has {length}. Shorten it."


def _code(character: str) -> str:
    name = unicodedata.name(character, "")
    return f"U+{ord(character):04X} {name}".strip()
