"""The board, replay and record endpoints, and the data the game page embeds for play.js."""

from __future__ import annotations

import json
import re

from flask.testing import FlaskClient

from pbem import games, links
from pbem.extensions import db, settings
from pbem.models import Game
from tests.web.flow import links_in, mails, start, turn_link


def token_of(path: str) -> str:
    return path.rsplit("/", 1)[1]


def island(html: str, name: str) -> object:
    match = re.search(rf'<script type="application/json" id="{name}">(.*?)</script>', html, re.S)
    assert match, f"no {name} island"
    return json.loads(match.group(1))


def play(client: FlaskClient, game: Game, move: str) -> None:
    path = turn_link(game)
    db.session.expire_all()
    fresh = db.session.get(Game, game.id)
    assert fresh is not None
    response = client.post(
        f"/api/games/{game.id}/moves",
        json={"move": move, "ply": fresh.ply},
        headers={"Authorization": f"Bearer {token_of(path)}"},
    )
    assert response.status_code == 202, response.text


def test_board_svg_is_the_seats_view(client: FlaskClient) -> None:
    game = start(client, "gorami", board="16")
    token = token_of(turn_link(game))
    response = client.get(f"/api/games/{game.id}/board.svg?token={token}")
    assert response.status_code == 200
    assert response.mimetype == "image/svg+xml"
    assert 'data-cell="a1"' in response.text


def test_board_svg_refuses_a_bad_token(client: FlaskClient) -> None:
    game = start(client, "gorami", board="16")
    response = client.get(f"/api/games/{game.id}/board.svg?token=nonsense")
    assert response.status_code == 403
    assert response.json is not None and response.json["error"] == "bad_token"
    # No token at all asks for one (401), as the README says.
    response = client.get(f"/api/games/{game.id}/board.svg")
    assert response.status_code == 401 and response.headers["WWW-Authenticate"].startswith("Bearer")
    assert response.json is not None and response.json["error"] == "no_token"


def test_board_svg_refuses_another_games_token(client: FlaskClient) -> None:
    one = start(client, "gorami", board="16")
    other = start(client, "mmw")
    token = token_of(turn_link(other))
    response = client.get(f"/api/games/{one.id}/board.svg?token={token}")
    assert response.status_code == 403


def test_positions_step_through_every_ply(client: FlaskClient) -> None:
    game = start(client, "mmw")
    rules = games.get("mmw")
    state = rules.new(2)
    for _ in range(3):
        move = state.legal_moves()[0]
        play(client, game, move)
        state = state.play(move)
    token = token_of(turn_link(game))
    headers = {"Authorization": f"Bearer {token}"}
    start_pos = client.get(f"/api/games/{game.id}/positions/0", headers=headers).json
    assert start_pos is not None and start_pos["move"] is None and start_pos["plies"] == 3
    for ply in range(1, 4):
        body = client.get(f"/api/games/{game.id}/positions/{ply}", headers=headers).json
        assert body is not None
        assert body["move"] == state.history[ply - 1]
        assert "<svg" in body["svg"]
    missing = client.get(f"/api/games/{game.id}/positions/4", headers=headers)
    assert missing.status_code == 404


def test_marram_positions_show_only_the_seats_own_hand(client: FlaskClient) -> None:
    game = start(client, "marram")
    db.session.expire_all()
    fresh = db.session.get(Game, game.id)
    assert fresh is not None and fresh.state is not None
    rules = games.get("marram")
    state = rules.from_json(fresh.state)
    play(client, game, state.legal_moves()[0])
    hands = [state.view(seat)["hand"] for seat in range(2)]
    for seat in range(2):
        row = next(
            m
            for m in mails()
            if m.game_id == game.id
            and links_in(m, "play")
            and m.to == fresh.seats[seat].player.email
        )
        token = token_of(links_in(row, "play")[0])
        body = client.get(f"/api/games/{game.id}/positions/0?token={token}").json
        assert body is not None
        mine = hands[seat]
        theirs = hands[1 - seat]
        hand_tiles = set(re.findall(r'data-tile="(\d+)" data-hand="1"', body["svg"]))
        assert hand_tiles == {str(t) for t in mine}
        assert not hand_tiles & {str(t) for t in theirs}


def test_record_has_options_players_and_moves_and_the_seed_once_over(client: FlaskClient) -> None:
    game = start(client, "gorami", board="16")
    db.session.expire_all()
    fresh = db.session.get(Game, game.id)
    assert fresh is not None and fresh.state is not None
    state = games.get("gorami").from_json(fresh.state)
    play(client, game, state.legal_moves()[0])
    token = token_of(turn_link(game))
    response = client.get(f"/api/games/{game.id}/record?token={token}")
    assert response.status_code == 200
    assert "attachment" in response.headers["Content-Disposition"]
    record = response.json
    assert record is not None
    assert record["format"] == "pbem-record/2"
    assert record["options"] == {"board": 16}
    assert "seed" not in record, "no seed while the game runs"
    # Names for every seat; an address only for the seat that asks (the one to move).
    assert [p["name"] for p in record["players"]] == ["Yellow", "Blue"]
    assert [p["email"] for p in record["players"]] == [
        s.player.email if s.seat == fresh.to_move else None for s in fresh.seats
    ]
    assert [m["move"] for m in record["moves"]] == [state.legal_moves()[0]]
    # Once the game is over the record gives the seed, and replays to the same position.
    assert client.post(f"/api/games/{game.id}/resign?token={token}").status_code == 200
    record = client.get(f"/api/games/{game.id}/record?token={token}").json
    assert record is not None and record["status"] == "finished"
    assert record["seed"] == fresh.seed
    replayed = games.get(record["engine"]).new(2, record["options"], record["seed"])
    for move in record["moves"]:
        replayed = replayed.play(move["move"])
    db.session.expire_all()
    fresh = db.session.get(Game, game.id)
    assert fresh is not None
    assert replayed.to_json() == fresh.state


def test_game_page_embeds_legal_moves_and_play_data(client: FlaskClient) -> None:
    game = start(client, "marram")
    page = client.get(turn_link(game))
    assert page.status_code == 200
    html = page.text
    legal = island(html, "legal-moves")
    data = island(html, "game-data")
    assert isinstance(legal, list) and legal
    assert isinstance(data, dict)
    assert data["your_turn"] is True and data["engine"] == "marram"
    assert "</script" not in json.dumps(data)
    # The engine's drawings are fetched by the page once drawn, not carried by it.
    assert "previews" not in data and "glyphs" not in data
    token = turn_link(game).rsplit("/", 1)[1]
    fetched = client.get(data["urls"]["assets"], headers={"Authorization": f"Bearer {token}"})
    assert fetched.status_code == 200 and fetched.headers["Cache-Control"] == "no-store"
    body = fetched.get_json()
    assert body["ply"] == data["ply"] and body["your_turn"] is True
    assets = body["assets"]
    # Every tile the seat may lay is drawn in each rotation the legal moves name.
    for move in legal:
        words = move.split()
        if words[0] == "place":
            assert f"front:{words[1]}:{words[3]}" in assets["previews"]
    assert set(assets["glyphs"]) == {"boot", "fork", "bet"}


def test_board_assets_are_empty_off_turn_and_for_games_without_them(client: FlaskClient) -> None:
    game = start(client, "marram")
    db.session.expire_all()
    fresh = db.session.get(Game, game.id)
    assert fresh is not None
    for seat in fresh.seats:
        token = links.token_for(settings().signing_key, seat, links.SEAT)
        body = client.get(
            f"/api/games/{game.id}/board-assets", headers={"Authorization": f"Bearer {token}"}
        ).get_json()
        mine = seat.seat == fresh.to_move
        assert body["your_turn"] is mine
        assert bool(body["assets"]) is mine
    two = start(client, "gorami", board="16")
    token = turn_link(two).rsplit("/", 1)[1]
    body = client.get(f"/api/games/{two.id}/board-assets?token={token}").get_json()
    assert body == {"ply": 0, "your_turn": True, "assets": {}}
    # Without the seat's token, nothing.
    assert client.get(f"/api/games/{game.id}/board-assets").status_code == 401


def test_replay_page_works_without_javascript(client: FlaskClient) -> None:
    game = start(client, "gorami", board="16")
    db.session.expire_all()
    fresh = db.session.get(Game, game.id)
    assert fresh is not None and fresh.state is not None
    move = games.get("gorami").from_json(fresh.state).legal_moves()[0]
    play(client, game, move)
    token = token_of(turn_link(game))
    page = client.get(f"/play/{token}/replay/1")
    assert page.status_code == 200
    assert move in page.text and 'rel="prev"' in page.text
    # The move in words, with the player's name; the step back is to the start, not "move 0".
    (said,) = re.findall(r'<p id="replay-position">(.*?)</p>', page.text, re.S)
    assert re.match(r"The position after move 1 of 1: \w+ placed a \d on \w+ ", said), said
    assert "◀ the start" in page.text and "move 0" not in page.text
    start_page = client.get(f"/play/{token}/replay/0")
    assert "The position at the start" in start_page.text
