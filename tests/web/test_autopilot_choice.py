"""Autopilot through the pages and the API: the game page and the games page offer the bot
(`bot`: greedy, the default, or mcts), an unknown one is a 400 saying what to choose, and a move
the bot made for a seat is marked on the game page, the replay and the API's move lists (as
the OpenAPI document says)."""

from __future__ import annotations

import json
from html import unescape
from typing import Any

from flask.testing import FlaskClient

from pbem import links, resources
from pbem.extensions import settings
from pbem.models import Game, Seat
from tests.web.flow import EMAILS, fresh_game, start

ALICE = EMAILS[0]


def _seats(game: Game) -> tuple[Seat, Seat]:
    alice = next(s for s in game.seats if s.player.email == ALICE)
    return alice, next(s for s in game.seats if s.seat != alice.seat)


def _page_of(seat: Seat) -> str:
    return f"/play/{links.token_for(settings().signing_key, seat, links.SEAT)}"


def _home_of(seat: Seat) -> str:
    url = links.player_url(settings(), seat.player.id, seat.player.nonce)
    return url.removeprefix("http://pbem.test")


def test_both_pages_offer_the_bot_with_greedy_first(client: FlaskClient) -> None:
    game = start(client)
    alice, _ = _seats(fresh_game(game.id))
    for page in (client.get(_page_of(alice)).text, client.get(_home_of(alice)).text):
        assert 'name="bot"' in page
        assert '<option value="greedy" selected>' in page and '<option value="mcts">' in page
    home = client.get(_home_of(alice)).text
    assert 'id="digest-reminders"' in home and "reminders before a deadline still come" in home


def test_the_game_page_hands_the_seat_to_the_bot_chosen(client: FlaskClient) -> None:
    game = start(client)
    alice, bob = _seats(fresh_game(game.id))
    page = _page_of(alice)
    wrong = client.post(f"{page}/autopilot", data={"autopilot": "on", "bot": "deep-blue"})
    assert wrong.status_code == 400
    assert "'deep-blue' is not a bot autopilot can hand your seat to" in unescape(wrong.text)
    assert "choose greedy" in wrong.text and "or mcts" in wrong.text
    assert _seats(fresh_game(game.id))[0].autopilot_since is None, "nothing handed over"
    done = client.post(f"{page}/autopilot", data={"autopilot": "on", "bot": "mcts"})
    assert done.status_code == 303
    game = fresh_game(game.id)
    alice, bob = _seats(game)
    assert alice.autopilot_bot == "mcts"
    assert "pbem MCTS, pbem's computer player, makes your moves" in client.get(page).text
    assert "on autopilot: pbem MCTS plays their seat" in client.get(_page_of(bob)).text
    for token in (_page_of(alice), _page_of(bob)):
        answer = client.get(
            f"/api/games/{game.id}", headers={"Authorization": f"Bearer {token[6:]}"}
        ).get_json()
        players = {p["seat"]: p for p in answer["players"]}
        assert players[alice.seat]["autopilot"] and players[alice.seat]["autopilot_bot"] == "mcts"
        assert not players[bob.seat]["autopilot"] and players[bob.seat]["autopilot_bot"] is None


def test_the_games_page_hands_the_seat_to_the_bot_chosen(client: FlaskClient) -> None:
    game = start(client)
    alice, _ = _seats(fresh_game(game.id))
    path = _home_of(alice)
    form = {"game": game.id, "seat": str(alice.seat), "autopilot": "on"}
    wrong = client.post(f"{path}/autopilot", data={**form, "bot": "random"})
    assert wrong.status_code == 400 and 'id="autopilot-error"' in wrong.text
    assert "choose greedy" in wrong.text
    done = client.post(f"{path}/autopilot", data={**form, "bot": "mcts"})
    assert done.status_code == 303
    assert _seats(fresh_game(game.id))[0].autopilot_bot == "mcts"
    assert "on autopilot: pbem MCTS plays your seat" in client.get(done.headers["Location"]).text


def test_a_move_on_autopilot_is_marked_on_the_pages_and_in_the_api(client: FlaskClient) -> None:
    game = start(client)
    alice, bob = _seats(fresh_game(game.id))
    # Whoever is to move, Alice's seat goes to the bot; Bob plays his turns himself.
    assert client.post(f"{_page_of(alice)}/autopilot", data={"autopilot": "on"}).status_code == 303
    game = fresh_game(game.id)
    if game.to_move == bob.seat:
        client.post(_page_of(bob), data={"move": "1", "ply": str(game.ply)})
    game = fresh_game(game.id)
    alice, bob = _seats(game)
    made = [m for m in game_moves(client, bob) if m["seat"] == alice.seat]
    assert made and all(m["autopilot"] and m["autopilot_bot"] == "greedy" for m in made)
    assert all(
        not m["autopilot"] and m["autopilot_bot"] is None
        for m in game_moves(client, bob)
        if m["seat"] == bob.seat
    )
    name = next(p["name"] for p in _api(client, bob, "")["players"] if p["seat"] == alice.seat)
    page = client.get(_page_of(bob)).text
    assert page.count("data-autopilot>played by autopilot for") == len(made)
    assert f"played by autopilot for {name}" in page
    replay = client.get(f"{_page_of(bob)}/replay/{made[0]['ply'] + 1}")
    assert replay.status_code == 200 and f"(played by autopilot for {name})" in replay.text
    record = _api(client, bob, "/record")["moves"]
    assert [m["autopilot"] for m in record] == [m["autopilot"] for m in game_moves(client, bob)]
    # The OpenAPI document names exactly these fields, all of them required.
    document = json.loads((resources.static_dir() / "openapi.json").read_text())
    played = document["components"]["schemas"]["PlayedMove"]
    assert set(played["required"]) == set(played["properties"]) == set(record[0])


def _api(client: FlaskClient, seat: Seat, tail: str) -> dict[str, Any]:
    token = _page_of(seat)[len("/play/") :]
    answer = client.get(
        f"/api/games/{seat.game_id}{tail}", headers={"Authorization": f"Bearer {token}"}
    )
    assert answer.status_code == 200, answer.text
    body = answer.get_json()
    assert isinstance(body, dict)
    return body


def game_moves(client: FlaskClient, seat: Seat) -> list[dict[str, Any]]:
    moves = _api(client, seat, "/history")["moves"]
    assert isinstance(moves, list)
    return moves
