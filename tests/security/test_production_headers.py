"""Every response carries the security headers; whatever a link's token opened is never cached;
HSTS behind https. The pages need no inline script to work under that policy."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from flask.testing import FlaskClient
from werkzeug.test import TestResponse

from pbem.models import Game
from tests.conftest import make_app
from tests.web.flow import links_in, mails, start, turn_link

ROOT = Path(__file__).resolve().parents[2]
FORGED = "WyJzZWF0IiwiZm9yZ2VkIiwwLDEsIm4iXQ.ZmFrZQ.c2lnbmF0dXJlLWZvcmdlZA"


def _auth(link: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {link.split('/play/')[1]}"}


def _directives(response: TestResponse) -> dict[str, list[str]]:
    policy = response.headers.get("Content-Security-Policy", "")
    found: dict[str, list[str]] = {}
    for part in policy.split(";"):
        name, *values = part.split()
        found[name] = values
    return found


def assert_secured(response: TestResponse) -> None:
    csp = _directives(response)
    assert csp.get("script-src") == ["'self'"], response.headers
    assert "'unsafe-inline'" not in csp["default-src"] and "'unsafe-eval'" not in str(csp)
    assert csp.get("frame-ancestors") == ["'none'"]
    assert csp.get("object-src") == ["'none'"] and csp.get("base-uri") == ["'none'"]
    assert response.headers.get("X-Content-Type-Options") == "nosniff"
    assert response.headers.get("Referrer-Policy") == "no-referrer"
    assert response.headers.get("X-Frame-Options") == "DENY"


@pytest.fixture
def game(client: FlaskClient) -> Game:
    return start(client)


def test_every_kind_of_response_carries_the_headers(client: FlaskClient, game: Game) -> None:
    headers = _auth(turn_link(game))
    answers = {
        "page": client.get("/"),
        "game page": client.get(turn_link(game)),
        "api json": client.get(f"/api/games/{game.id}", headers=headers),
        "api svg": client.get(f"/api/games/{game.id}/board.svg", headers=headers),
        "api error": client.get(f"/api/games/{game.id}"),
        "refused link page": client.get(f"/play/{FORGED}"),
        "404 page": client.get("/no/such/page"),
        "405 page": client.delete("/"),
        "static file": client.get("/static/pbem.css"),
        "static module": client.get("/static/play.js"),
        "game controller": client.get("/static/games/gorami/board.js"),
        "missing static": client.get("/static/nothing.js"),
    }
    statuses = {name: response.status_code for name, response in answers.items()}
    assert statuses == {
        "page": 200,
        "game page": 200,
        "api json": 200,
        "api svg": 200,
        "api error": 401,
        "refused link page": 403,
        "404 page": 404,
        "405 page": 405,
        "static file": 200,
        "static module": 200,
        "game controller": 200,
        "missing static": 404,
    }
    for response in answers.values():
        assert_secured(response)


def test_an_unexpected_error_page_carries_the_headers(
    tmp_path: Path, countdown_engine: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    from pbem.web import start as start_view

    app = make_app(tmp_path, PROPAGATE_EXCEPTIONS=False)

    def broken(*_: object) -> object:
        raise RuntimeError("broken on purpose")

    monkeypatch.setattr(start_view, "available_games", broken)
    response = app.test_client().get("/")
    assert response.status_code == 500
    assert_secured(response)


def test_what_a_token_opened_is_never_stored(client: FlaskClient, game: Game) -> None:
    link = turn_link(game)
    token = link.split("/play/")[1]
    headers = _auth(link)
    invitation = links_in(mails(kind="invite")[0], "invite")[0]
    submitted = client.post(link, data={"move": "1", "ply": "0"})
    answers = {
        "game page": client.get(link),
        "move form": submitted,
        "stale move form": client.post(link, data={"move": "1", "ply": "0"}),
        "replay": client.get(f"{link}/replay/0"),
        "invitation": client.get(invitation),
        "submission page": client.get(f"/submission/1?token={token}"),
        "dashboard": client.get(f"/me/{FORGED}"),
        "sign-in link": client.get(f"/signin/{FORGED}"),
        "block link": client.get(f"/block/{FORGED}"),
        "api, header": client.get(f"/api/games/{game.id}", headers=headers),
        "api, query": client.get(f"/api/games/{game.id}/legal?token={token}"),
        "api refusal": client.get(f"/api/games/{game.id}/history"),
        "old record address": client.get(f"/games/{game.id}/record.json?token={token}"),
        # The view lets the browser keep a past position, but not under a URL holding the key.
        "past position, query": client.get(f"/api/games/{game.id}/positions/0?token={token}"),
        "refused link": client.get(f"/play/{FORGED}"),
    }
    assert submitted.status_code == 303
    for name, response in answers.items():
        assert response.headers.get("Cache-Control") == "no-store", name
    # Pages without a token keep the default caching.
    assert "no-store" not in client.get("/").headers.get("Cache-Control", "")


def test_a_past_position_may_be_kept_by_the_browser_that_sent_its_key(
    client: FlaskClient, game: Game
) -> None:
    headers = _auth(turn_link(game))
    client.post(f"/api/games/{game.id}/moves", json={"move": "1", "ply": 0}, headers=headers)
    past = client.get(f"/api/games/{game.id}/positions/0", headers=headers)
    assert past.status_code == 200
    assert past.headers["Cache-Control"] == "private, max-age=86400"
    # Another seat's key gets its own copy: the view of the board differs by seat.
    assert "Authorization" in past.headers.get("Vary", "")
    now = client.get(f"/api/games/{game.id}/positions/1", headers=headers)
    assert now.headers["Cache-Control"] == "no-store"


@pytest.mark.parametrize(
    ("base_url", "hsts"),
    [("https://pbem.example.org", True), ("http://pbem.test", False)],
)
def test_hsts_only_behind_https(tmp_path: Path, base_url: str, hsts: bool) -> None:
    client = make_app(tmp_path, BASE_URL=base_url).test_client()
    for response in (client.get("/"), client.get("/no/such/page"), client.get("/static/kit.js")):
        value = response.headers.get("Strict-Transport-Security")
        assert value == ("max-age=31536000; includeSubDomains" if hsts else None)


# Markup that runs script without a file of its own: what the policy refuses.
INLINE_SCRIPT = re.compile(r"<script(?![^>]*\bsrc=)(?![^>]*type=\"application/json\")[^>]*>")
HANDLER = re.compile(r"<[^>]*\son[a-z]+\s*=", re.IGNORECASE)
JAVASCRIPT_URL = re.compile(r"javascript:", re.IGNORECASE)


def test_no_page_needs_an_inline_script() -> None:
    sources = sorted((ROOT / "templates" / "pages").glob("*.html"))
    scripts = sorted((ROOT / "pbem" / "static").glob("*.js"))
    scripts += sorted((ROOT / "pbem" / "games").glob("*/board.js"))
    assert sources and scripts
    for path in sources:
        text = path.read_text()
        assert not INLINE_SCRIPT.search(text), path
        assert not HANDLER.search(text), path
        assert not JAVASCRIPT_URL.search(text), path
    for path in scripts:
        text = path.read_text()
        # Markup built as text must not bring handlers or script URLs either.
        assert not re.search(r"""["'`][^"'`]*<[^>]*\son[a-z]+=""", text), path
        assert not JAVASCRIPT_URL.search(text), path
        assert "eval(" not in text and "new Function" not in text, path
