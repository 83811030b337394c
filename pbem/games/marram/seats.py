"""How Marram's drawings name the seats: colour words, letters and the players' display names."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from pbem.games.base import SAID, fill_names, seat_mark, shorten
from pbem.games.messages import ENGLISH, N_, Language

SEAT_WORDS = (N_("Red"), N_("Violet"), N_("White"), N_("Black"))
# Characters XML 1.0 cannot hold (escaping does not help) and line breaks, which would break a row.
_UNPRINTABLE = dict.fromkeys([*range(0x20), 0x7F, 0xFFFE, 0xFFFF, *range(0xD800, 0xE000)])


def seat_word(seat: int) -> str:
    """The colour word naming a seat when no display name is given ("Red" for seat 0)."""
    return SEAT_WORDS[seat % len(SEAT_WORDS)]


def seat_letter(seat: int) -> str:
    """The letter marking a seat's tokens and turns: its colour word's initial ("V")."""
    return seat_mark(seat_word(seat))


def clean_name(name: object) -> str:
    """A display name fit for one line of SVG or text: control characters dropped, trimmed."""
    return str(name).translate(_UNPRINTABLE).strip()


def seat_count(view: Mapping[str, Any]) -> int:
    raw = view.get("players")
    if isinstance(raw, int) and not isinstance(raw, bool):
        return raw
    for key in ("scores", "hand_sizes", "supplies"):
        value = view.get(key)
        if isinstance(value, Sequence) and value:
            return len(value)
    if isinstance(raw, Sequence):
        return len(raw)
    return 0


def colour_name(seat: int, lang: Language = ENGLISH) -> str:
    """A seat's colour word in `lang`, capitalised as a name ("Red", "Rouge")."""
    return lang(seat_word(seat))


def player_names(
    view: Mapping[str, Any], given: Sequence[str] | None = None, lang: Language = ENGLISH
) -> list[str]:
    """The seats' names: `given` when passed, else names in the view's `players`, else colour
    words in `lang`. Blank names fall back to the colour word."""
    n = seat_count(view)
    raw = given if given is not None else view.get("players")
    names = [colour_name(i, lang) for i in range(n)]
    if isinstance(raw, Sequence) and not isinstance(raw, str):
        for i, entry in enumerate(raw[:n]):
            if isinstance(entry, Mapping):
                entry = entry.get("name") or ""
            text = clean_name(entry) if isinstance(entry, str) else ""
            if text:
                names[i] = text
    return names


def who(names: Sequence[str], seat: object, limit: int = 0, lang: Language = ENGLISH) -> str:
    """The seat's name, cut to `limit` characters (0: whole) where a line has no room to wrap."""
    if isinstance(seat, int) and not isinstance(seat, bool):
        name = names[seat] if 0 <= seat < len(names) else colour_name(seat, lang)
        return shorten(name, limit) if limit else name
    return lang("someone")


def settled_words(outcome: object, names: Sequence[str], limit: int = 0) -> str | None:
    """An ending the service decided (the view's outcome has its sentence), in words; None while
    the game runs or when the rules ended it."""
    said = outcome.get(SAID) if isinstance(outcome, Mapping) else None
    if not isinstance(said, str):
        return None
    return fill_names(said, [who(names, seat, limit) for seat in range(len(names))])


def dropped(view: Mapping[str, Any]) -> set[int]:
    """The seats that left the game (rules section 9); none in a view from before drops."""
    raw = view.get("dropped")
    if not isinstance(raw, Sequence) or isinstance(raw, str):
        return set()
    return {s for s in raw if isinstance(s, int) and not isinstance(s, bool)}
