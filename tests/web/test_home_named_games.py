"""A game its organiser named: the name heads its page and its dashboard line, and the API gives
it as `name` (plain text, escaped wherever a page shows it); an unnamed game reads as before."""

from __future__ import annotations

from flask.testing import FlaskClient

from pbem import links
from pbem.extensions import settings
from pbem.models import Game
from tests.web.flow import start, turn_link

SCRIPT = "<script>alert(1)</script>"


def _named(client: FlaskClient, title: str) -> Game:
    game = start(client, title=title)
    assert game.title == title
    return game


def _dashboard(game: Game, seat: int) -> str:
    player = game.seats[seat].player
    return links.player_url(settings(), player.id, player.nonce).removeprefix("http://pbem.test")


def test_the_name_heads_the_game_page(client: FlaskClient) -> None:
    game = _named(client, "Friday Club")
    page = client.get(turn_link(game)).text
    assert "<title>Friday Club (Countdown " + game.id + ") — pbem</title>" in page
    assert '<h1 id="game-name">Friday Club</h1>' in page
    assert f'<p class="pbem-game-id" id="game-id">Countdown: game {game.id}</p>' in page
    plain = start(client)
    page = client.get(turn_link(plain)).text
    assert f"<h1>Countdown: game {plain.id}</h1>" in page and 'id="game-name"' not in page


def test_the_name_heads_the_games_line_on_the_dashboard(client: FlaskClient) -> None:
    game = _named(client, "Friday Club")
    plain = start(client)
    page = client.get(_dashboard(game, 0)).text
    row = page[page.index(f'data-game="{game.id}"') :]
    row = row[: row.index("</tr>")]
    assert 'class="pbem-game-name">Friday Club</a>' in row
    assert f"<small>Countdown {game.id}</small>" in row
    row = page[page.index(f'data-game="{plain.id}"') :]
    assert f">Countdown {plain.id}</a>" in row[: row.index("</tr>")]


def test_the_api_gives_the_name_beside_the_engines_title(client: FlaskClient) -> None:
    game = _named(client, "Friday Club")
    token = turn_link(game).rsplit("/", 1)[1]
    body = client.get(f"/api/games/{game.id}?token={token}").get_json()
    assert body["title"] == "Countdown" and body["name"] == "Friday Club"
    record = client.get(f"/api/games/{game.id}/record?token={token}").get_json()
    assert record["title"] == "Countdown" and record["name"] == "Friday Club"
    plain = start(client)
    token = turn_link(plain).rsplit("/", 1)[1]
    assert client.get(f"/api/games/{plain.id}?token={token}").get_json()["name"] is None


def test_a_name_is_plain_text_on_every_page(client: FlaskClient) -> None:
    game = _named(client, SCRIPT)
    escaped = "&lt;script&gt;alert(1)&lt;/script&gt;"
    for page in (client.get(turn_link(game)).text, client.get(_dashboard(game, 1)).text):
        assert SCRIPT not in page and escaped in page
    token = turn_link(game).rsplit("/", 1)[1]
    assert client.get(f"/api/games/{game.id}?token={token}").get_json()["name"] == SCRIPT
