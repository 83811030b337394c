"""Words pbem puts together from parts, in the language being written (`pbem.i18n`): lists of
names ("Alice, Bob and Carol"), amounts of time ("3 days", "1.5 hours"), and what an engine says
(`pbem.games.messages`), stored as its message and said in each reader's language.

Dates and times of day are `pbem.domain.when`'s.
"""

from __future__ import annotations

import json
from collections.abc import Sequence

from pbem import i18n
from pbem.games.messages import ENGLISH, Language, Message

DAY, HOUR, MINUTE, SECOND = "day", "hour", "minute", "second"


def and_list(items: Sequence[str]) -> str:
    """ "Alice", "Alice and Bob", "Alice, Bob and Carol"."""
    if len(items) < 2:
        return "".join(items)
    return i18n.gettext("%(items)s and %(last)s", items=", ".join(items[:-1]), last=items[-1])


def or_list(items: Sequence[str]) -> str:
    """ "drop", "drop or autopilot", "a, b or c"."""
    if len(items) < 2:
        return "".join(items)
    return i18n.gettext("%(items)s or %(last)s", items=", ".join(items[:-1]), last=items[-1])


def plural_count(amount: float) -> int:
    """The number gettext chooses a plural form by: the amount when whole, else one that every
    language writes in the plural (English says "1.5 days", and "0.5 days")."""
    return int(amount) if float(amount).is_integer() else 2


def shown(amount: float) -> str:
    """An amount as the words write it: no exponent for whole numbers, "1.5", "0.25"."""
    return str(amount) if isinstance(amount, int) else f"{amount:g}"


def span(amount: float, unit: str, text: str | None = None) -> str:
    """An amount of one unit of time (DAY, HOUR, MINUTE or SECOND): "1 day", "3 days",
    "1.5 hours" (a fraction as `:g` writes it, unless `text` says how)."""
    n, text = plural_count(amount), text or shown(amount)
    if unit == DAY:
        return i18n.ngettext("%(amount)s day", "%(amount)s days", n, amount=text)
    if unit == HOUR:
        return i18n.ngettext("%(amount)s hour", "%(amount)s hours", n, amount=text)
    if unit == MINUTE:
        return i18n.ngettext("%(amount)s minute", "%(amount)s minutes", n, amount=text)
    return i18n.ngettext("%(amount)s second", "%(amount)s seconds", n, amount=text)


def engine_said(refused: BaseException) -> str:
    """What an engine said refusing a move (a MoveError): its message, or its text."""
    said = refused.args[0] if refused.args else None
    return said if isinstance(said, str) else str(refused)


def game_language(game: str, language: str | None = None) -> Language:
    """How `game`'s messages and drawings are said in `language` (the one being written when
    None): its own catalog, and that language's way of listing things."""
    language = language or i18n.language()
    if language == i18n.ENGLISH:
        return ENGLISH
    catalog = i18n.translations(language, game)
    return Language(catalog.gettext, catalog.ngettext, and_list)


def game_words(words: str, game: str) -> str:
    """An engine's words (a `Message`, or text from an engine or a row that has none) in the
    language being written, from the game's own catalog; seat placeholders are left for
    `fill_names`."""
    if not isinstance(words, Message) or i18n.language() == i18n.ENGLISH:
        return str(words)
    return words.say(game_language(game))


def colour_word(colour: str, game: str) -> str:
    """A seat's colour word ("yellow", also its CSS colour) in the language being written, from
    the game's catalog, where its guide marks it."""
    language = i18n.language()
    if language == i18n.ENGLISH or not colour:
        return colour
    return i18n.translations(language, game).gettext(colour)


# What a stored message starts with; an English sentence starts with a capital or a seat's
# placeholder ("{0} placed…").
_STORED = '{"'


def stored_words(words: str, game: str) -> str:
    """`words` as a text column keeps them (`Move.words`, `Submission.error`): a message as JSON
    with its game, so that `read_words` can say it in any language; other text as it is."""
    if not isinstance(words, Message):
        return str(words)
    return json.dumps({"game": game, **words.to_json()}, ensure_ascii=False)


def read_words(stored: str) -> str:
    """Words `stored_words` kept, in the language being written (placeholders left): a message
    from its game's catalog; text stored before messages were (or damaged JSON), as it is."""
    if not stored.startswith(_STORED):
        return stored
    try:
        data = json.loads(stored)
        return game_words(Message.from_json(data), str(data.get("game", "")))
    except (ValueError, TypeError, KeyError, AttributeError):
        return stored


def read_english(stored: str) -> str:
    """Words `stored_words` kept, in English whatever the language being written."""
    with i18n.using(i18n.ENGLISH):
        return read_words(stored)
