"""The home page's "Play against the computer" offers each game's options as the start form
does, from the engine registry, and the page after it says who plays: no other player is
invited (issue 31)."""

from __future__ import annotations

import re

from flask.testing import FlaskClient

from pbem import games
from tests.web.flow import confirmation_link, fresh_game
from tests.web.test_bots_pages import ALICE


def _computer_form(page: str) -> str:
    found = re.search(r'<form[^>]*id="computer-form".*?</form>', page, re.S)
    assert found is not None
    return found.group(0)


def test_the_form_offers_every_game_s_options_from_the_registry(client: FlaskClient) -> None:
    form = _computer_form(client.get("/").text)
    for name in games.names():
        game = games.get(name)
        for option, choices in game.options.items():
            select = re.search(rf'<select[^>]*name="{name}\.{option}">(.*?)</select>', form, re.S)
            assert select is not None, (name, option)
            offered = re.findall(r'<option value="([^"]*)"', select.group(1))
            assert offered == [str(value) for value in choices]
            # The engine's default is the one chosen.
            assert f'<option value="{choices[0]}" selected>' in select.group(1)


def test_the_chosen_game_s_options_are_the_game_s(client: FlaskClient) -> None:
    response = client.post(
        "/",
        data={
            "game": "marram",
            "email": [ALICE, "bot:greedy"],
            "name": "",
            "marram.variant": "pitchfork",
            "marram.length": "long",
            "gorami.board": "16",
        },
    )
    assert response.status_code == 303, response.text
    game = fresh_game(response.headers["Location"].rsplit("/", 1)[1])
    assert game.options == {"variant": "pitchfork", "length": "long"}
    page = client.get(response.headers["Location"]).text
    text = " ".join(re.sub(r"<[^>]+>", " ", page).split())
    assert "against pbem Greedy" in text and "nobody else is invited" in text
    assert "other players" not in text
    assert client.post(confirmation_link(game)).status_code == 200
    assert fresh_game(game.id).status == "running"


def test_a_game_with_people_still_says_they_are_invited(client: FlaskClient) -> None:
    response = client.post(
        "/",
        data={"game": "countdown", "email": [ALICE, "bob@example.org", "bot:random"], "name": ""},
    )
    assert response.status_code == 303, response.text
    text = " ".join(re.sub(r"<[^>]+>", " ", client.get(response.headers["Location"]).text).split())
    assert "Only then are the other players invited" in text
    assert "pbem Random takes its seat by itself" in text
