"""What the browser scripts say, in the page's language.

The scripts are written in English and mark what they show with `t("…")` and `tn("…", "…", n)`
(pbem/static/kit.js); Babel extracts those into the service's catalog like any other string
(pbem/translations/babel.cfg). A page in another language carries their translations as a JSON
island, `<script type="application/json" id="pbem-words">` (pages/base.html), which `t` and `tn`
read: a msgid's translation, or a plural's two forms, [the singular's, the plural's].

A game's controller speaks from the game's own catalog the same way: `script_words(language, game)`
reads the `t` and `tn` of the game package's scripts, for an island of its own on the game page,
`pbem-words-<game>` (pages/_board.html), which `wordsFrom` reads.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import cache
from pathlib import Path

from babel.messages.extract import extract

from pbem import i18n, resources

# As scripts/catalogs.sh extracts them.
KEYWORDS = {"t": None, "tn": (1, 2)}

Msgid = str | tuple[str, str]  # a message, or a plural's singular and plural
Words = Mapping[str, str | list[str]]  # a msgid -> its translation, or a plural's two forms


def _scripts(domain: str) -> list[Path]:
    folder = resources.static_dir() if domain == i18n.SERVICE_DOMAIN else i18n.GAMES / domain
    return sorted(folder.glob("*.js"))


@cache
def script_msgids(domain: str = i18n.SERVICE_DOMAIN) -> tuple[Msgid, ...]:
    """Every msgid the scripts of `domain` use, found as Babel finds them for the catalog."""
    found: dict[Msgid, None] = {}
    for path in _scripts(domain):
        with path.open("rb") as source:
            for _, message, _, _ in extract("javascript", source, keywords=KEYWORDS):
                if isinstance(message, str):
                    found[message] = None
                elif len(message) >= 2 and message[0] and message[1]:
                    found[(message[0], message[1])] = None
    return tuple(found)


@cache
def script_words(language: str, domain: str = i18n.SERVICE_DOMAIN) -> Words:
    """The scripts' msgids in `language`: a plural's forms as its catalog writes them for one and
    for two (what the browser's `Intl.PluralRules` calls "one" and the rest). What the catalog
    does not translate, or translates as the English, is left out: the scripts show the English."""
    catalog = i18n.translations(language, domain)
    words: dict[str, str | list[str]] = {}
    for msgid in script_msgids(domain):
        if isinstance(msgid, str):
            found = catalog.gettext(msgid)
            if found != msgid:
                words[msgid] = found
            continue
        singular, plural = msgid
        forms = [catalog.ngettext(singular, plural, 1), catalog.ngettext(singular, plural, 2)]
        if forms != [singular, plural]:
            words[singular] = forms
    return words


def page_script_words(domain: str = i18n.SERVICE_DOMAIN) -> Words:
    """The scripts' words in the language of the page being written ({} in English)."""
    return script_words(i18n.language(), domain)
