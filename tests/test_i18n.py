"""The catalogs, the service's and each game's: every string marked for translation, extracted
as `scripts/catalogs.sh` does, is in French, Dutch and Danish, none fuzzy, each with the
original's placeholders; each game's glossary is complete in every language and its terms are
translated the same way wherever they appear; and the templates, the rules pages among them,
hold no text outside gettext."""

from __future__ import annotations

import ast
import json
import re
from collections.abc import Iterator
from datetime import datetime
from functools import cache
from pathlib import Path

import pytest
from babel.messages.catalog import Catalog
from babel.messages.extract import extract_from_dir
from babel.messages.frontend import parse_mapping_cfg
from babel.messages.pofile import read_po

from pbem import i18n
from pbem.domain import glossary, when

REPO = Path(__file__).resolve().parents[1]
KEYWORDS = {
    "_": None,
    "gettext": None,
    "ngettext": (1, 2),
    "pgettext": ((1, "c"), 2),
    "npgettext": ((1, "c"), 2, 3),
    "lazy_gettext": None,
    "lazy_ngettext": (1, 2),
    "N_": None,
    "Message": None,
    "counted": (1, 2),
    "lang": None,
    "t": None,
    "tn": (1, 2),
}
TRANSLATED = [lang for lang in i18n.LANGUAGES if lang != i18n.ENGLISH]
PLACEHOLDER = re.compile(r"%\((\w+)\)[sdif]|%[sdif]")


# The service's catalog, and each game's: those with a rules page.
GAMES = sorted(path.parent.name for path in (REPO / "pbem/games").glob("*/guide.html"))
DOMAINS = [i18n.SERVICE_DOMAIN, *GAMES]


@cache
def _extracted(domain: str = i18n.SERVICE_DOMAIN) -> dict[tuple[str | None, str], tuple[str, ...]]:
    """(context, msgid) -> the message's forms (singular, plural), as in the code."""
    service = domain == i18n.SERVICE_DOMAIN
    config = REPO / "pbem/translations" / ("babel.cfg" if service else "games.cfg")
    with config.open() as cfg:
        method_map, options_map = parse_mapping_cfg(cfg)
    found: dict[tuple[str | None, str], tuple[str, ...]] = {}
    folder = REPO if service else REPO / "pbem/games" / domain
    for _, _, message, _, context in extract_from_dir(
        str(folder), method_map, options_map, keywords=KEYWORDS
    ):
        forms = (message,) if isinstance(message, str) else tuple(message)
        if forms[0]:
            found[(context, forms[0])] = forms
    return found


def _catalog(language: str, domain: str = i18n.SERVICE_DOMAIN) -> Catalog:
    with i18n.catalog_path(domain, language).open("rb") as po:
        return read_po(po, locale=language)


@pytest.mark.parametrize("domain", DOMAINS)
def test_something_is_marked(domain: str) -> None:
    assert len(_extracted(domain)) >= 5


def _marked_calls(path: Path) -> Iterator[tuple[int, str, tuple[str, ...]]]:
    """Each call of a game's marking names (`lang`, `Message`, `counted`, `N_`) whose text is
    written out: its line, its name and that text (singular and plural for `counted`)."""
    for node in ast.walk(ast.parse(path.read_text())):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        name = func.id if isinstance(func, ast.Name) else getattr(func, "attr", "")
        wanted = 2 if name == "counted" else 1
        if name not in ("lang", "Message", "counted", "N_") or len(node.args) < wanted:
            continue
        texts = [a.value for a in node.args[:wanted] if isinstance(a, ast.Constant)]
        if len(texts) == wanted and all(isinstance(t, str) for t in texts):
            yield node.lineno, name, tuple(texts)


@pytest.mark.parametrize("game", GAMES)
def test_every_text_a_game_marks_is_extracted_whole(game: str) -> None:
    """Babel reads a call's text until another of its keywords appears inside the call (as in
    `lang("…", seat=who(…, lang=lang))`): a plural then loses its plural, and the catalog's
    translation is never found. Every marked call's text is extracted as it is written, in a
    module the game's extraction reads."""
    extracted = _extracted(game)
    problems = []
    for path in sorted((REPO / "pbem/games" / game).glob("*.py")):
        for line, name, texts in _marked_calls(path):
            if extracted.get((None, texts[0])) != texts and (
                len(texts) > 1 or (None, texts[0]) not in extracted
            ):
                problems.append(f"{path.name}:{line}: {name}({texts[0][:50]!r})")
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("domain", DOMAINS)
@pytest.mark.parametrize("language", TRANSLATED)
def test_every_string_is_translated_with_its_placeholders(language: str, domain: str) -> None:
    catalog = _catalog(language, domain)
    problems = []
    for (context, msgid), forms in sorted(_extracted(domain).items(), key=lambda x: x[0][1]):
        message = catalog.get(msgid, context=context)
        if message is None:
            problems.append(f"missing: {msgid!r}")
            continue
        if message.fuzzy:
            problems.append(f"fuzzy: {msgid!r}")
        strings = message.string if isinstance(message.string, tuple) else (message.string,)
        if not all(strings):
            problems.append(f"untranslated: {msgid!r}")
            continue
        # A translation's first form is its singular, with the singular's placeholders ("a
        # small" may leave out the number that "%(count)s smalls" says); the others are plural.
        for index, string in enumerate(strings):
            form = forms[min(index, len(forms) - 1)]
            if set(PLACEHOLDER.findall(string)) != set(PLACEHOLDER.findall(form)):
                problems.append(f"placeholders differ: {msgid!r} -> {string!r}")
    assert not problems, f"{domain}, {language}: run scripts/catalogs.sh, translate:\n" + (
        "\n".join(problems)
    )


@pytest.mark.parametrize("language", TRANSLATED)
def test_each_catalog_compiles_and_is_read(language: str) -> None:
    po = i18n.catalog_path(i18n.SERVICE_DOMAIN, language)
    assert i18n.compile_catalog(po)
    with i18n.using(language):
        assert i18n.gettext("Language") != "Language"


def test_the_current_language_is_the_blocks() -> None:
    assert i18n.language() == "en"
    with i18n.using("nl"):
        assert i18n.gettext("Language") == "Taal"
        with i18n.using("FR-be"):
            assert i18n.language() == "fr" and i18n.gettext("Language") == "Langue"
        with i18n.using("xx"):
            assert i18n.language() == "en" and i18n.gettext("Language") == "Language"
    assert i18n.language() == "en"
    assert [i18n.valid(x) for x in ("da", "DA", "da-DK", "de", "", None)] == [
        "da",
        "da",
        "da",
        None,
        None,
        None,
    ]


# --- text outside gettext in the templates --------------------------------------------------------

_JINJA = re.compile(r"\{#.*?#\}|\{%-?\s*trans\b.*?endtrans\s*-?%\}|\{%.*?%\}|\{\{.*?\}\}", re.S)
_MARKUP = re.compile(r"<!--.*?-->|<script\b.*?</script>|<style\b.*?</style>|<[^>]*>", re.S)
_WORD = re.compile(r"[^\W\d_]{2,}")
# Written once in every language, or no language at all: the service's name.
_NOT_WORDS = {"pbem"}


def untranslated(source: str) -> list[str]:
    """The words a template shows as written, outside gettext."""
    text = _MARKUP.sub(" ", _JINJA.sub(" ", source))
    text = re.sub(r"&[#\w]+;", " ", text)
    return [w for w in _WORD.findall(text) if w.lower() not in _NOT_WORDS]


# Not yet translated: each is taken off when its text goes through gettext (issue 34).
PENDING: frozenset[str] = frozenset()


def test_templates_say_nothing_outside_gettext_but_those_pending() -> None:
    paths = [p for p in sorted((REPO / "templates").glob("**/*")) if p.is_file()]
    paths += sorted((REPO / "pbem/games").glob("*/guide.html"))  # the rules pages
    shown = {}
    for path in paths:
        name = path.relative_to(REPO).as_posix()
        words = untranslated(path.read_text(encoding="utf-8"))
        if words and name not in PENDING:
            shown[name] = words[:8]
    assert not shown, f"text outside gettext: {shown}"
    done = sorted(name for name in PENDING if not untranslated((REPO / name).read_text()))
    assert not done, f"translated now: take these off PENDING: {done}"


# --- each game's glossary ----------------------------------------------------------------------

_TAG = re.compile(r"<[^>]*>")


def _says(text: str, forms: tuple[str, ...] | list[str]) -> bool:
    """`text` (its markup aside) holds one of `forms` as whole words, case-blind."""
    plain = PLACEHOLDER.sub(" ", _TAG.sub(" ", text))
    return any(
        re.search(rf"(?<![\w-]){re.escape(form)}(?![\w-])", plain, re.IGNORECASE) for form in forms
    )


@pytest.mark.parametrize("game", GAMES)
@pytest.mark.parametrize("language", TRANSLATED)
def test_each_glossary_has_every_term_of_its_game(game: str, language: str) -> None:
    english = glossary.guide(game)
    assert english is not None
    path = REPO / "pbem/games" / game / "glossary" / f"{language}.json"
    words = json.loads(path.read_text(encoding="utf-8"))
    assert sorted(words) == sorted(t.key for t in english.terms)
    for key, entry in words.items():
        assert set(entry) <= {"forms", "meaning", "headword"}, key
        forms = entry["forms"]
        assert forms and all(isinstance(f, str) and f and f.strip() == f for f in forms), key
        assert isinstance(entry["meaning"], str) and entry["meaning"].strip(), key
        assert entry.get("headword", forms[0]), key


@pytest.mark.parametrize("game", GAMES)
@pytest.mark.parametrize("language", TRANSLATED)
def test_each_term_is_translated_as_its_glossary_says_wherever_it_appears(
    game: str, language: str
) -> None:
    """Wherever the English of the game's catalog or glossary says a term, the translation says
    the term as the language's glossary gives it, so that pages, mail and rules agree and the
    game page can explain it."""
    english = glossary.guide(game)
    assert english is not None
    words = glossary.glossary_words(game, language)
    pairs = [(m.id, m.string) for m in _catalog(language, game) if m.id and m.string]
    pairs += [(t.meaning, words[t.key]["meaning"]) for t in english.terms if t.key in words]
    problems = []
    for original, translated in pairs:
        originals = original if isinstance(original, tuple) else (original,)
        translations = translated if isinstance(translated, tuple) else (translated,)
        for term in english.terms:
            local = words.get(term.key)
            if local is None or not any(_says(o, term.forms) for o in originals):
                continue
            missing = [t for t in translations if not _says(t, local["forms"])]
            if missing:
                problems.append(f"{term.key} ({'/'.join(local['forms'])}): {missing[0][:90]!r}")
    assert not problems, f"{game}, {language}:\n" + "\n".join(problems)


def test_the_scan_sees_text_and_skips_gettext() -> None:
    assert untranslated('<p class="x">Hello {{ name }}</p>') == ["Hello"]
    assert untranslated('<p>{{ _("Hello %(n)s", n=name) }}</p>{% if a %}{% endif %}') == []
    assert untranslated("{% trans %}Hello{% endtrans %} &mdash; pbem") == []


@pytest.mark.parametrize(
    ("language", "words"),
    [
        ("en", "Thursday 3 December, 19:00 CET (18:00 UTC)"),
        ("fr", "jeudi 3 décembre, 19:00 CET (18:00 UTC)"),
        ("nl", "donderdag 3 december, 19:00 CET (18:00 UTC)"),
        ("da", "torsdag den 3. december, 19:00 CET (18:00 UTC)"),
    ],
)
def test_deadlines_are_written_in_the_readers_language_and_zone(language: str, words: str) -> None:
    with i18n.using(language):
        assert when.in_words(datetime(2026, 12, 3, 18, 0), "Europe/Copenhagen") == words
