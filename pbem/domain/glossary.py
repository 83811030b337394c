"""The words of each game that its pages explain, and where its rules for players live.

A game says which words a newcomer may not know in its guide (`pbem.games.guide`, the module
`guide` of the game's package, found through the registry so that nothing here names a game).
The guide is written in English; in another language its text comes from the game's catalog
and its terms from the game's glossary, `glossary/<language>.json` in its package: each term's
key with its `forms` (every spelling the pages show), `meaning` and optional `headword`.
Pages wrap those words in a button that shows a short explanation on hover, tap or Enter, with a
link to the rule on /rules/<game>; mail links to the rules page.
"""

from __future__ import annotations

import importlib
import importlib.resources
import itertools
import json
import re
import sys
from collections.abc import Iterator, Mapping
from contextvars import ContextVar
from dataclasses import replace
from functools import cache
from html import escape
from typing import Any

from markupsafe import Markup

from pbem import games, i18n
from pbem.config import Settings
from pbem.games.guide import Guide, Term

RULES_PATH = "/rules"
# Each explanation on a page needs an id of its own for its button to open it. The web layer
# starts the count afresh for each page (`number_afresh`), so that a page is the same bytes
# whenever it is asked for; outside a request one counter over the process keeps them unique.
_process_ids = itertools.count(1)
_ids: ContextVar[Iterator[int] | None] = ContextVar("pbem_term_ids", default=None)


def number_afresh() -> None:
    """Number the explanations of the page being made from 1."""
    _ids.set(itertools.count(1))


def _package(name: str) -> str | None:
    """The package of the game registered as `name`, where its guide and glossary are."""
    try:
        game = games.get(name)
    except KeyError:
        return None
    module = sys.modules.get(type(game).__module__)
    if module is None:
        return None
    return (module.__name__ if hasattr(module, "__path__") else module.__package__) or None


@cache
def guide(name: str) -> Guide | None:
    """The guide of the game registered as `name`, or None when it has none (or no such game)."""
    package = _package(name)
    if package is None:
        return None
    try:
        found = importlib.import_module(f"{package}.guide")
    except ModuleNotFoundError:
        return None
    value = getattr(found, "GUIDE", None)
    return value if isinstance(value, Guide) else None


def local_guide(name: str) -> Guide | None:
    """The game's guide in the current language (pbem.i18n)."""
    return _guide_in(name, i18n.language())


@cache
def _guide_in(name: str, language: str) -> Guide | None:
    found = guide(name)
    if found is None or language == i18n.ENGLISH:
        return found
    catalog = i18n.translations(language, name)
    words = glossary_words(name, language)

    def said(text: str) -> str:
        return catalog.gettext(text) if text else text

    def term(english: Term) -> Term:
        local = words.get(english.key)
        if local is None:
            return english
        return replace(
            english,
            forms=tuple(local["forms"]),
            meaning=local["meaning"],
            headword=local.get("headword", ""),
        )

    return replace(
        found,
        players=said(found.players),
        length=said(found.length),
        summary=said(found.summary),
        sections=tuple(
            replace(s, title=said(s.title), parts=tuple((a, said(t)) for a, t in s.parts))
            for s in found.sections
        ),
        terms=tuple(term(t) for t in found.terms),
        variants=tuple(replace(v, title=said(v.title)) for v in found.variants),
    )


@cache
def glossary_words(name: str, language: str) -> Mapping[str, Mapping[str, Any]]:
    """The game's glossary in `language` (`glossary/<language>.json` in its package), by term
    key; empty when it has none."""
    package = _package(name)
    if package is None:
        return {}
    try:
        text = (
            importlib.resources.files(package)
            .joinpath("glossary", f"{language}.json")
            .read_text(encoding="utf-8")
        )
    except (ModuleNotFoundError, OSError):
        return {}
    found = json.loads(text)
    return found if isinstance(found, dict) else {}


def guided() -> list[str]:
    """The registered games that have rules for players, by name."""
    return [name for name in games.names() if guide(name) is not None]


def rules_path(name: str, anchor: str | None = None) -> str | None:
    """The path of the game's rules page (at `anchor` when given); None when it has none."""
    if guide(name) is None:
        return None
    return f"{RULES_PATH}/{name}" + (f"#{anchor}" if anchor else "")


def rules_url(config: Settings, name: str) -> str | None:
    """The absolute URL of the game's rules page, as emails carry it."""
    path = rules_path(name)
    return f"{config.base_url}{path}" if path else None


def rules_index_url(config: Settings) -> str | None:
    """The absolute URL of the page listing every game's rules, for mail about no one game (a
    sign-in, a digest); None when no game has rules for players."""
    return f"{config.base_url}{RULES_PATH}" if guided() else None


def terms(name: str) -> tuple[Term, ...]:
    """The game's words that its pages explain, in the current language (none for a game
    without a guide)."""
    found = local_guide(name)
    return found.terms if found else ()


def explain(term: Term, name: str, text: str | None = None) -> Markup:
    """`text` (the term's headword by default) as a button that shows what the term means, with
    a link to its rule. A popover: tap, click, Enter or Space opens it, Escape or a tap elsewhere
    closes it, without script; pbem/static/glossary.js adds hover."""
    uid = f"pbem-term-{next(_ids.get() or _process_ids)}"
    link = rules_path(name, term.anchor) or RULES_PATH
    return Markup(
        '<span class="pbem-term" data-term="{key}">'
        '<button type="button" class="pbem-term-word" popovertarget="{uid}" '
        'aria-describedby="{uid}">{text}</button>'
        '<span class="pbem-term-tip" id="{uid}" popover role="note">'
        '<b class="pbem-term-head">{word}</b> {meaning} '
        '<a class="pbem-term-rule" href="{link}">{rule}</a></span></span>'
    ).format(
        key=term.key,
        uid=uid,
        text=text if text is not None else term.word,
        word=term.word,
        meaning=term.meaning,
        link=link,
        rule=i18n.gettext("The rule"),
    )


def gloss(text: str, name: str) -> Markup:
    """`text`, escaped, with every word of the game's glossary in it explained (`explain`)."""
    pattern, by_form = _matcher(name, i18n.language())
    if pattern is None:
        return Markup(escape(text, quote=False))
    out: list[str] = []
    last = 0
    for match in pattern.finditer(text):
        out.append(escape(text[last : match.start()], quote=False))
        out.append(explain(by_form[match.group(0).lower()], name, match.group(0)))
        last = match.end()
    out.append(escape(text[last:], quote=False))
    return Markup("".join(out))


@cache
def _matcher(name: str, language: str) -> tuple[re.Pattern[str] | None, dict[str, Term]]:
    """One pattern for every form of every term, longest first so that "dead tiles" wins over
    "tiles"; whole words only, case-blind."""
    by_form: dict[str, Term] = {}
    found = _guide_in(name, language)
    for term in found.terms if found else ():
        for form in term.forms:
            by_form.setdefault(form.lower(), term)
    if not by_form:
        return None, by_form
    forms = sorted(by_form, key=lambda form: (-len(form), form))
    alternatives = "|".join(re.escape(form) for form in forms)
    return re.compile(rf"(?<![\w-])(?:{alternatives})(?![\w-])", re.IGNORECASE), by_form
