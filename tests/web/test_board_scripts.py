"""Each game's click-to-move controller and stylesheet, served from its own package; the shared
scripts and styles in pbem/static name no game."""

from __future__ import annotations

import json
import re
from pathlib import Path
from urllib.parse import urljoin

import pytest
from flask.testing import FlaskClient

import pbem
from pbem import games
from tests.web.flow import start, turn_link

STATIC = Path(pbem.__file__).resolve().parent / "static"
# The games shipped with the service, as the registry lists them before any test adds its own.
BUILT_IN = games.names()


def script_path(name: str) -> str:
    return f"/static/games/{name}/board.js"


@pytest.mark.parametrize("name", BUILT_IN)
def test_each_games_controller_is_served_as_javascript(client: FlaskClient, name: str) -> None:
    response = client.get(script_path(name))
    assert response.status_code == 200
    assert response.mimetype == "text/javascript"
    assert response.headers["X-Content-Type-Options"] == "nosniff"
    assert "export default class" in response.text
    # Its imports resolve, from where it is served, to the kit play.js loads too.
    imports = re.findall(r'^import [^;]*? from "([^"]+)";', response.text, re.M)
    assert imports
    for specifier in imports:
        url = urljoin(script_path(name), specifier)
        assert url == "/static/kit.js"
        kit = client.get(url)
        assert kit.status_code == 200
        assert kit.mimetype in ("text/javascript", "application/javascript")


@pytest.mark.parametrize("name", BUILT_IN)
def test_each_games_stylesheet_is_served_as_css(client: FlaskClient, name: str) -> None:
    response = client.get(f"/static/games/{name}/board.css")
    assert response.status_code == 200
    assert response.mimetype == "text/css"


def test_scripts_are_revalidated_by_etag(client: FlaskClient) -> None:
    name = BUILT_IN[0]
    first = client.get(script_path(name))
    etag = first.headers["ETag"]
    assert "no-cache" in first.headers["Cache-Control"]
    again = client.get(script_path(name), headers={"If-None-Match": etag})
    assert again.status_code == 304


def test_an_unknown_game_has_no_script(client: FlaskClient) -> None:
    assert client.get(script_path("nosuchgame")).status_code == 404
    assert client.get("/static/games/nosuchgame/board.css").status_code == 404


def test_a_game_without_a_script_is_played_with_the_form(client: FlaskClient) -> None:
    # The test engine `countdown` (registered by the `app` fixture) ships neither file.
    assert "countdown" in games.names()
    assert client.get(script_path("countdown")).status_code == 404
    assert client.get("/static/games/countdown/board.css").status_code == 404
    game = start(client, "countdown")
    page = client.get(turn_link(game)).text
    assert data_island(page)["urls"]["controller"] is None
    assert "/static/games/" not in page


def test_the_game_page_names_its_controller_and_stylesheet(client: FlaskClient) -> None:
    game = start(client, "gorami", board="16")
    page = client.get(turn_link(game)).text
    # Named by their content's hash (pbem.web.assets), so browsers may keep them a year.
    controller = data_island(page)["urls"]["controller"]
    assert re.fullmatch(r"/static/games/gorami/board\.[0-9a-f]{10}\.js", str(controller))
    assert re.search(
        r'<link rel="stylesheet" href="/static/games/gorami/board\.[0-9a-f]{10}\.css">', page
    )


def test_nothing_in_pbem_static_names_a_game() -> None:
    words = set()
    for name in games.names():
        words.add(name.lower())
        words.add(games.get(name).title.lower())
    files = [path for path in STATIC.rglob("*") if path.is_file()]
    assert {path.name for path in files} >= {"play.js", "kit.js", "pbem.css"}
    for path in files:
        # The icon is binary (favicon.ico): whatever bytes it holds, read as text, name nothing.
        text = path.read_bytes().decode("utf-8", "replace").lower()
        for word in words:
            assert word not in text, f"{path.relative_to(STATIC)} names {word!r}"


def data_island(html: str) -> dict[str, object]:
    match = re.search(r'<script type="application/json" id="game-data">(.*?)</script>', html, re.S)
    assert match, "no game-data island"
    data: dict[str, object] = json.loads(match.group(1))
    return data
