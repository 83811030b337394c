"""What the browser scripts say comes from the service's catalog: the msgids are their own `t` and
`tn`, found as Babel finds them, and a page in French, Dutch or Danish carries them translated as
a JSON island that the Content-Security-Policy never runs."""

from __future__ import annotations

import json
import re

import pytest
from flask import Flask
from flask.testing import FlaskClient

from pbem import games, i18n, resources
from pbem.web import script_words as words
from tests.web.flow import start, turn_link

GAMES = i18n.GAMES
ISLAND = re.compile(r'<script type="application/json" id="pbem-words">(.*?)</script>', re.S)
# A call of t or tn (not their definitions): its English must be a plain string literal, which is
# all Babel reads.
CALL = re.compile(r"(?<![\w.$])(tn?)\(\s*(.)")
COMMENT = re.compile(r"(^|\s)//.*$", re.M)
TIME_LEFT = {
    "no time left",
    "less than a minute left",
    "%(time)s left",
    ("%(amount)s day", "%(amount)s days"),
    ("%(amount)s hour", "%(amount)s hours"),
    ("%(amount)s minute", "%(amount)s minutes"),
}


def test_the_msgids_are_the_scripts_own() -> None:
    found = set(words.script_msgids())
    assert {"Confirm move", "Sending %(move)s…", "zoom in", "● Your turn · %(title)s"} <= found
    # The time left in the same words as the server's (pbem.web.play.time_left_words).
    assert found >= TIME_LEFT
    assert len(found) >= 40


def test_every_call_gives_babel_a_string_literal() -> None:
    calls = 0
    scripts = sorted(resources.static_dir().glob("*.js")) + sorted(GAMES.glob("*/board.js"))
    for path in scripts:
        source = COMMENT.sub(" ", path.read_text(encoding="utf-8"))
        for match in CALL.finditer(source):
            before = source[max(0, match.start() - 9) : match.start()]
            if before.endswith("function "):
                continue
            calls += 1
            assert match.group(2) == '"', f"{path.name}: {source[match.start() : match.end() + 40]}"
    assert calls >= len(words.script_msgids()) + sum(
        len(words.script_msgids(game)) for game in games.names()
    )


@pytest.mark.parametrize("game", games.names())
def test_each_controller_speaks_from_its_games_catalog(game: str) -> None:
    """A game's click-to-move words are its own msgids, translated in its catalog in every
    language (the catalog test fails on one left out), and read from its own island."""
    found = words.script_msgids(game)
    assert len(found) >= 10
    assert not set(found) & set(words.script_msgids()), "a game's words are its own"
    assert f'wordsFrom("pbem-words-{game}")' in (GAMES / game / "board.js").read_text()
    for language in ("fr", "nl", "da"):
        said = words.script_words(language, game)
        catalog = i18n.translations(language, game)
        for msgid in found:
            if isinstance(msgid, str):
                assert said.get(msgid, msgid) == catalog.gettext(msgid)
            else:
                assert said[msgid[0]] == [catalog.ngettext(*msgid, n) for n in (1, 2)]
        # Only what reads the same in the language ("%(action)s.") is left to the English.
        assert len(said) >= len(found) - 2, f"{game}, {language}"


def test_a_game_page_in_another_language_carries_its_games_words(client: FlaskClient) -> None:
    game = start(client, "marram")
    link = turn_link(game)
    assert client.post(f"{link}/language", data={"language": "nl"}).status_code in (302, 303)
    page = client.get(link)
    island = re.search(
        r'<script type="application/json" id="pbem-words-marram">(.*?)</script>', page.text, re.S
    )
    assert island is not None, "no island of Marram's words"
    said = json.loads(island.group(1))
    assert said == words.script_words("nl", "marram")
    assert said["Pass"] == "Passen"
    assert client.post(f"{link}/language", data={"language": "en"}).status_code in (302, 303)
    assert 'id="pbem-words-marram"' not in client.get(link).text


def test_english_pages_need_no_words() -> None:
    assert words.script_words(i18n.ENGLISH) == {}


@pytest.mark.parametrize("language", ["fr", "nl", "da"])
def test_each_language_has_every_msgid_from_its_catalog(language: str) -> None:
    said = words.script_words(language)
    catalog = i18n.translations(language)
    for msgid in words.script_msgids():
        if isinstance(msgid, str):
            assert said.get(msgid, msgid) == catalog.gettext(msgid)
        else:
            singular, plural = msgid
            forms = said.get(singular, [singular, plural])
            assert isinstance(forms, list)
            assert forms == [catalog.ngettext(singular, plural, n) for n in (1, 2)]
    assert said["Confirm move"] != "Confirm move"


def test_plurals_are_the_forms_for_one_and_for_more() -> None:
    # French has three forms (one, many, other): the scripts get one and other.
    assert words.script_words("fr")["%(amount)s day"] == ["%(amount)s jour", "%(amount)s jours"]
    assert words.script_words("da")["%(amount)s hour"] == ["%(amount)s time", "%(amount)s timer"]


def test_a_page_in_another_language_carries_the_words(client: FlaskClient) -> None:
    page = client.get("/signin?lang=fr")
    assert '<html lang="fr">' in page.text
    island = ISLAND.search(page.text)
    assert island is not None
    assert json.loads(island.group(1)) == words.script_words("fr")
    # Data, not a script: the policy still runs none but pbem's own files.
    assert "script-src 'self'" in page.headers["Content-Security-Policy"]
    assert "unsafe-inline" not in page.headers["Content-Security-Policy"]


def test_an_english_page_carries_none(client: FlaskClient) -> None:
    page = client.get("/signin?lang=en")
    assert 'id="pbem-words"' not in page.text


def test_the_island_cannot_close_its_script_element(app: Flask, client: FlaskClient) -> None:
    said = {"x": "</script><script>alert(1)</script> & 'a'"}
    app.jinja_env.globals["script_words"] = lambda domain=i18n.SERVICE_DOMAIN: said
    page = client.get("/signin?lang=fr")
    island = ISLAND.search(page.text)
    assert island is not None
    assert not re.search(r"[<>&']", island.group(1))
    assert json.loads(island.group(1)) == said
