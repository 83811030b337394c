"""The languages pbem speaks, and the one a piece of text is being written in.

English is the language the strings are written in; French, Dutch and Danish come from gettext
catalogs: the service's in `pbem/translations/<lang>/LC_MESSAGES/messages.po`, each game's in
its own package, `pbem/games/<name>/translations/<lang>/LC_MESSAGES/<name>.po` (the domain is
the game's name). The build compiles them to `.mo` (setup.py); a checkout compiles a catalog
whose `.mo` is missing or older than its `.po` when it is first read.

The language of what is being written is a context variable: a web request sets it from the
player or the browser (`pbem.web.language`), the outbox from each letter's recipient
(`pbem.domain.outbox`). Pages, mail and Python code then ask `gettext` here alike; nothing in
this module needs Flask.
"""

from __future__ import annotations

import gettext as gettext_module
import io
import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar, Token
from functools import cache
from pathlib import Path
from typing import Any

from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po
from babel.support import LazyProxy
from jinja2 import pass_context
from markupsafe import Markup

ENGLISH = "en"
LANGUAGES = ("en", "fr", "nl", "da")
# Each language in its own words, as the language switch offers it.
NAMES = {"en": "English", "fr": "Français", "nl": "Nederlands", "da": "Dansk"}
SERVICE_DOMAIN = "messages"

_PACKAGE = Path(__file__).resolve().parent
SERVICE_CATALOGS = _PACKAGE / "translations"
GAMES = _PACKAGE / "games"

# The language, or what settles it when first asked (a web request's: pbem.web.language).
_current: ContextVar[str | Callable[[], str]] = ContextVar("pbem_language", default=ENGLISH)


def valid(language: str | None) -> str | None:
    """`language` when pbem speaks it ("fr", "FR", "fr-BE" read as "fr"), else None."""
    if not language:
        return None
    base = language.strip().lower().replace("_", "-").split("-")[0]
    return base if base in LANGUAGES else None


def language() -> str:
    """The language of what is being written now."""
    current = _current.get()
    return current() if callable(current) else current


def speak(resolver: Callable[[], str]) -> Token[str | Callable[[], str]]:
    """Write in the language `resolver` settles (asked each time; it may cache); undone by
    `stop` with the token returned."""
    return _current.set(resolver)


def stop(token: Token[str | Callable[[], str]]) -> None:
    _current.reset(token)


@contextmanager
def using(language: str | None) -> Iterator[str]:
    """Write in `language` (English when pbem does not speak it) within the block."""
    chosen = valid(language) or ENGLISH
    token: Token[str | Callable[[], str]] = _current.set(chosen)
    try:
        yield chosen
    finally:
        _current.reset(token)


def catalog_dir(domain: str) -> Path:
    """Where a domain's catalogs are: the service's, or a game's own package's."""
    return SERVICE_CATALOGS if domain == SERVICE_DOMAIN else GAMES / domain / "translations"


def catalog_path(domain: str, language: str) -> Path:
    return catalog_dir(domain) / language / "LC_MESSAGES" / f"{domain}.po"


def compile_catalog(po: Path, mo: Path | None = None) -> bytes:
    """A `.po` file compiled to `.mo` bytes (written to `mo` when given)."""
    with po.open("rb") as source:
        catalog = read_po(source)
    out = io.BytesIO()
    write_mo(out, catalog, use_fuzzy=False)
    if mo is not None:
        # Whole or not at all: another process may be reading it (tests run in parallel).
        partial = mo.with_name(f"{mo.name}.{os.getpid()}.tmp")
        partial.write_bytes(out.getvalue())
        os.replace(partial, mo)
    return out.getvalue()


@cache
def translations(language: str, domain: str = SERVICE_DOMAIN) -> gettext_module.NullTranslations:
    """The catalog of `domain` in `language`; English (and a catalog not there) translates
    nothing, so the strings are shown as written."""
    if language == ENGLISH:
        return gettext_module.NullTranslations()
    po = catalog_path(domain, language)
    if not po.exists():
        return gettext_module.NullTranslations()
    mo = po.with_suffix(".mo")
    if mo.exists() and mo.stat().st_mtime >= po.stat().st_mtime:
        data = mo.read_bytes()
    else:
        try:
            data = compile_catalog(po, mo)
        except OSError:
            # A read-only install without its .mo: compiled in memory, each process.
            data = compile_catalog(po)
    return gettext_module.GNUTranslations(io.BytesIO(data))


def _fill(text: str, params: dict[str, Any]) -> str:
    return text % params if params else text


def gettext(message: str, **params: Any) -> str:
    """`message` in the current language, `%(name)s` placeholders filled from `params`."""
    return _fill(translations(language()).gettext(message), params)


def ngettext(singular: str, plural: str, n: int, **params: Any) -> str:
    """The form of `singular`/`plural` for `n` in the current language; `%(num)s` is `n`."""
    params.setdefault("num", n)
    return _fill(translations(language()).ngettext(singular, plural, n), params)


def pgettext(context: str, message: str, **params: Any) -> str:
    """`message` in the current language where the same English has several meanings."""
    return _fill(translations(language()).pgettext(context, message), params)


def lazy_gettext(message: str, **params: Any) -> LazyProxy:
    """A module-level string, translated each time it is shown (in the language of then)."""
    return LazyProxy(gettext, message, enable_cache=False, **params)


def lazy_ngettext(singular: str, plural: str, n: int, **params: Any) -> LazyProxy:
    """`ngettext` when shown, in the language of then (a letter made before its recipient's
    language is known)."""
    return LazyProxy(ngettext, singular, plural, n, enable_cache=False, **params)


def game_gettext(game: str, message: str, **params: Any) -> str:
    """`message` from a game's own catalog (text about a game lives in its package)."""
    return _fill(translations(language(), game).gettext(message), params)


def game_ngettext(game: str, singular: str, plural: str, n: int, **params: Any) -> str:
    params.setdefault("num", n)
    return _fill(translations(language(), game).ngettext(singular, plural, n), params)


def game_template_words(game: str) -> dict[str, Any]:
    """`_`, `gettext`, `ngettext` and `pgettext` from a game's own catalog, new style like
    `install`'s, for rendering one of the game's templates (its rules page): passed to `render`,
    they stand in for the service's for that template alone, `{% trans %}` blocks included."""

    def catalog() -> gettext_module.NullTranslations:
        return translations(language(), game)

    @pass_context
    def gettext_(context: Any, text: str, **params: Any) -> str:
        found = catalog().gettext(text)
        return (Markup(found) if context.eval_ctx.autoescape else found) % params

    @pass_context
    def ngettext_(context: Any, singular: str, plural: str, n: int, **params: Any) -> str:
        params.setdefault("num", n)
        found = catalog().ngettext(singular, plural, n)
        return (Markup(found) if context.eval_ctx.autoescape else found) % params

    @pass_context
    def pgettext_(context: Any, where: str, text: str, **params: Any) -> str:
        found = catalog().pgettext(where, text)
        return (Markup(found) if context.eval_ctx.autoescape else found) % params

    return {"_": gettext_, "gettext": gettext_, "ngettext": ngettext_, "pgettext": pgettext_}


def extract_about(
    fileobj: Any, keywords: Any, comment_tags: Any, options: Any
) -> Iterator[tuple[int, None, str, list[str]]]:
    """Babel's extraction method for a game's about.json (pbem/translations/games.cfg): its
    `about`, which the home page shows in the game's words (pbem.web.game_cards)."""
    import json

    about = json.loads(fileobj.read().decode("utf-8")).get("about")
    if isinstance(about, str) and about:
        yield 1, None, about, []


def install(env: Any) -> None:
    """Give a Jinja environment `_`, `gettext`, `ngettext` and `pgettext` in the current
    language, new style (`{{ _("Hello %(name)s", name=name) }}`, escaped like any value), the
    same for pages and mail."""
    env.add_extension("jinja2.ext.i18n")
    # `{% trans %}` blocks (the rules pages' paragraphs) are one msgid however they are wrapped.
    env.policies["ext.i18n.trimmed"] = True
    env.install_gettext_callables(
        gettext=lambda s: translations(language()).gettext(s),
        ngettext=lambda s, p, n: translations(language()).ngettext(s, p, n),
        pgettext=lambda c, s: translations(language()).pgettext(c, s),
        npgettext=lambda c, s, p, n: translations(language()).npgettext(c, s, p, n),
        newstyle=True,
    )
    env.globals["current_language"] = language
