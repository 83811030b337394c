"""Players' display names: what a typed name must be, how an invitee is written ("Name <addr>"),
and how each seat of a game is called in pages and mail.

A name is plain text chosen by people, shown to other people: one short line of printable
characters, never an address. A seat whose player has no name is called by its colour ("Blue"),
never by anything taken from the address, and two seats that would read alike are told apart.
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from email.utils import getaddresses
from functools import cache
from typing import cast

from pbem import games, i18n
from pbem.domain import one_line
from pbem.domain.errors import SetupError
from pbem.games.base import shorten

MAX_LENGTH = 40
_COLOUR_WORD = re.compile(r"[A-Za-z]+(?: [A-Za-z]+)*")
# Who started a game, when the game does not know (games from before organisers were recorded);
# translated in each invitation's own language, when it is written out.
SOMEONE = cast(str, i18n.lazy_gettext("Someone"))


class BadName(SetupError):
    code = "bad_name"


def clean_name(text: str) -> str:
    """The name as pbem stores it: NFC, trimmed, inner whitespace one space; BadName saying what
    is wrong otherwise."""
    empty = i18n.gettext("A name needs at least one visible character.")
    name = one_line.tidy(text, one_line.NAME, MAX_LENGTH, empty, BadName)
    # NFKC also finds the full-width and small at signs (＠ ﹫).
    if "@" in unicodedata.normalize("NFKC", name):
        raise BadName(
            i18n.gettext(
                "%(name)s looks like an email address: a name is shown to the other players, so "
                "it must not carry an address. Leave out the '@'.",
                name=repr(shorten(name)),
            )
        )
    return name


def optional_name(text: str | None) -> str | None:
    """A name field: None when left empty, else the cleaned name (BadName when it is not one)."""
    if text is None or not text.strip():
        return None
    return clean_name(text)


@dataclass(frozen=True)
class Invitee:
    """A player as the organiser writes them: an address, maybe with a name."""

    address: str
    name: str | None = None


def parse_invitee(text: str) -> Invitee:
    """`alice@example.org` or `Alice Smith <alice@example.org>` (RFC 5322, as a mail client
    writes a recipient); SetupError when it is neither. The address is checked later, by
    `pbem.domain.addresses.normalise_address`, like any other."""
    text = text.strip()
    if "<" not in text and ">" not in text:
        return Invitee(text)
    found = getaddresses([text])
    if len(found) != 1 or not found[0][1] or not text.endswith(">") or text.count("<") != 1:
        raise SetupError(
            i18n.gettext(
                "%(text)s is not one player: write an address, or a name and an address as in "
                '"Alice Smith <alice@example.org>".',
                text=repr(shorten(text)),
            )
        )
    name, address = found[0]
    return Invitee(address, optional_name(name))


def parse_invitees(texts: Sequence[str]) -> list[Invitee]:
    return [parse_invitee(text) for text in texts]


# --- how seats are called ------------------------------------------------------------------------


@cache
def seat_colours(engine_name: str, players: int) -> tuple[str, ...]:
    """Each seat's colour as a word ("Blue"), from the engine's summary; "Player 1", "Player 2"…
    for an engine whose colours are no words or not all different."""
    fallback = tuple(_player(seat) for seat in range(players))
    try:
        summary = games.get(engine_name).new(players, None, 0).summary(None)
        colours = tuple(seat.colour.strip() for seat in summary.seats)
    except (KeyError, ValueError, ImportError):
        return fallback
    words = tuple(colour[:1].upper() + colour[1:].lower() for colour in colours)
    if (
        len(words) != players
        or not all(_COLOUR_WORD.fullmatch(word) for word in words)
        or len({word.casefold() for word in words}) != players
    ):
        return fallback
    return words


def _key(name: str) -> str:
    """What a reader sees: case, compatibility forms and joiners do not tell two names apart."""
    return (
        unicodedata.normalize("NFKC", name).replace("\u200c", "").replace("\u200d", "").casefold()
    )


def said_colours(engine_name: str, players: int) -> list[str]:
    """`seat_colours` in the language being written: each colour as the game's catalog names a
    seat ("Bleu"), or "Joueur 1"."""
    language = i18n.language()
    words = seat_colours(engine_name, players)
    if words[0] == _player(0):
        return [i18n.gettext("Player %(n)s", n=seat + 1) for seat in range(players)]
    if language == i18n.ENGLISH:
        return list(words)
    catalog = i18n.translations(language, engine_name)
    return [catalog.gettext(word) for word in words]


def _player(seat: int) -> str:
    return f"Player {seat + 1}"


def display_names(engine_name: str, chosen: Sequence[str | None]) -> list[str]:
    """How each seat is called, in the language being written: its player's name, else its
    colour; named seats that would read like another seat get their colour beside ("Sam
    (Blue)"), then their seat number too."""
    colours = said_colours(engine_name, len(chosen))
    shown = [name or colours[seat] for seat, name in enumerate(chosen)]
    # A colour alone never changes (colours differ, and the longer forms end in ")"), so each
    # pass moves at least one named seat on, and the last form differs by its seat number.
    for _ in range(2 * len(chosen) + 1):
        counts = Counter(_key(text) for text in shown)
        clashing = [
            (seat, name)
            for seat, name in enumerate(chosen)
            if name is not None and counts[_key(shown[seat])] > 1
        ]
        if not clashing:
            break
        for seat, name in clashing:
            with_colour = i18n.gettext("%(name)s (%(colour)s)", name=name, colour=colours[seat])
            shown[seat] = (
                with_colour
                if shown[seat] != with_colour
                else i18n.gettext(
                    "%(name)s (%(colour)s, seat %(n)s)", name=name, colour=colours[seat], n=seat + 1
                )
            )
    return shown
