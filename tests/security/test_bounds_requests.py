"""Requests are bounded at the edge: body size, JSON depth, field lengths, control characters,
ids, and how much of the input a refusal quotes.

Found: a 5 MB JSON body was accepted and a 5 MB move echoed back in full; JSON nested deeply,
and a submission id of 2**70 (SQLite cannot bind it), answered 500.
"""

from __future__ import annotations

import json

import pytest
from flask.testing import FlaskClient

from pbem.models import Game, Player, Submission
from pbem.web import limits
from tests.web.flow import start, turn_link

MB = 1024 * 1024


def _token(link: str) -> str:
    return link.split("/play/")[1]


def _auth(link: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {_token(link)}"}


def _error(response) -> str:
    body = response.get_json()
    assert set(body) == {"error", "message"} and body["message"], body
    return str(body["error"])


@pytest.fixture
def playing(client: FlaskClient) -> tuple[FlaskClient, Game, str]:
    """A GORami game on its first move: the client, the game, the link of the seat to move."""
    game = start(client, "gorami")
    return client, game, turn_link(game)


# --- the body ------------------------------------------------------------------------------------


def test_a_5_mb_json_body_is_refused_with_413_and_not_echoed(playing) -> None:
    client, game, link = playing
    body = json.dumps({"move": "2b3" + " " * 5 * MB, "ply": 0})
    response = client.post(
        f"/api/games/{game.id}/moves",
        data=body,
        content_type="application/json",
        headers=_auth(link),
    )
    assert response.status_code == 413 and _error(response) == "too_large"
    assert "too large" in response.get_json()["message"]
    assert len(response.data) < 1000
    assert Submission.query.count() == 0


def test_a_5_mb_form_is_refused_with_a_page(playing) -> None:
    client, _game, link = playing
    response = client.post(link, data={"move_text": "z" * 5 * MB, "ply": "0"})
    assert response.status_code == 413
    assert "The request is too large" in response.text and "64 KiB" in response.text
    assert len(response.data) < 20_000
    started = client.post("/", data={"game": "gorami", "emails": "a@example.org\n" * MB})
    assert started.status_code == 413


def test_a_json_body_over_its_own_bound_is_413(playing) -> None:
    client, game, link = playing
    body = json.dumps({"move": "2b3", "ply": 0, "padding": ["x"] * 4000})
    assert limits.JSON_BYTES < len(body) < 64 * 1024
    response = client.post(
        f"/api/games/{game.id}/moves",
        data=body,
        content_type="application/json",
        headers=_auth(link),
    )
    assert response.status_code == 413 and _error(response) == "too_large"


@pytest.mark.parametrize("depth", [100_000, 3_000, limits.JSON_DEPTH + 1])
def test_deeply_nested_json_is_refused_without_recursing(playing, depth: int) -> None:
    client, game, link = playing
    body = '{"move": "2b3", "ply": 0, "x": ' + "[" * depth + "]" * depth + "}"
    response = client.post(
        f"/api/games/{game.id}/moves",
        data=body,
        content_type="application/json",
        headers=_auth(link),
    )
    # 100,000 levels take 200 KB: over the size bound before their depth is looked at.
    assert (response.status_code, _error(response)) in {(400, "bad_request"), (413, "too_large")}
    if len(body) <= limits.JSON_BYTES:
        assert response.status_code == 400 and "nested" in response.get_json()["message"]
    assert Submission.query.count() == 0


def test_nesting_within_the_bound_is_read(playing) -> None:
    client, game, link = playing
    depth = limits.JSON_DEPTH - 1
    body = '{"move": "2b3", "ply": 0, "x": ' + "[" * depth + "]" * depth + "}"
    response = client.post(
        f"/api/games/{game.id}/moves",
        data=body,
        content_type="application/json",
        headers=_auth(link),
    )
    # Read, and refused only for its key the API does not take (the schema's
    # additionalProperties: false), not for its depth.
    assert response.status_code == 400 and _error(response) == "bad_request"
    message = response.get_json()["message"]
    assert "'x'" in message and "nested" not in message


@pytest.mark.parametrize(
    "body",
    [
        '{"move": "2b3", "ply": 1' + "0" * 30 + "}",
        '{"move": "2b3", "ply": NaN}',
        '{"move": "2b3", "ply": Infinity}',
        '{"move": "2b\\ud800", "ply": 0}',
        '{"move": "2b3\\u0000", "ply": 0}',
        '{"' + "k" * 100 + '": 1, "move": "2b3", "ply": 0}',
        '{"move": "2b3", "ply": 0',
    ],
    ids=["long-int", "nan", "infinity", "surrogate", "nul", "long-key", "truncated"],
)
def test_malformed_json_is_400(playing, body: str) -> None:
    client, game, link = playing
    response = client.post(
        f"/api/games/{game.id}/moves",
        data=body,
        content_type="application/json",
        headers=_auth(link),
    )
    assert response.status_code == 400, response.text
    assert _error(response) in {"bad_request", "bad_characters"}


def test_a_body_that_is_not_utf8_is_400(playing) -> None:
    client, game, link = playing
    response = client.post(
        f"/api/games/{game.id}/moves",
        data=b'{"move": "\xff\xfe", "ply": 0}',
        content_type="application/json",
        headers=_auth(link),
    )
    assert response.status_code == 400 and _error(response) == "bad_request"


# --- ids in paths --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "number",
    [str(2**70), str(2**63), str(2**31), "1" + "0" * 30, "9" * 2000],
    ids=["2^70", "2^63", "2^31", "1e30", "2000-digits"],
)
def test_ids_past_the_columns_range_are_404(playing, number: str) -> None:
    client, game, link = playing
    token = _token(link)
    api = client.get(f"/api/submissions/{number}", headers=_auth(link))
    assert api.status_code == 404 and _error(api) == "not_found"
    page = client.get(f"/submission/{number}?token={token}")
    assert page.status_code == 404 and "Not found" in page.text
    position = client.get(f"/api/games/{game.id}/positions/{number}", headers=_auth(link))
    assert position.status_code == 404


def test_the_largest_id_is_looked_up(playing) -> None:
    client, _game, link = playing
    response = client.get(f"/api/submissions/{limits.MAX_ID}", headers=_auth(link))
    assert response.status_code == 404 and _error(response) == "not_found"


# --- fields --------------------------------------------------------------------------------------


def test_a_move_longer_than_its_column_is_422(playing) -> None:
    client, game, link = playing
    padded = "2" + " " * limits.MOVE_LENGTH + "b3"
    api = client.post(
        f"/api/games/{game.id}/moves", json={"move": padded, "ply": 0}, headers=_auth(link)
    )
    assert api.status_code == 422 and _error(api) == "too_long"
    page = client.post(link, data={"move_text": padded, "ply": "0"})
    assert page.status_code == 422 and "move_text" in page.text
    assert Submission.query.count() == 0


@pytest.mark.parametrize("field", ["move_text", "move"])
def test_control_characters_in_a_move_are_400(playing, field: str) -> None:
    client, _game, link = playing
    response = client.post(link, data={field: "2b\x003", "ply": "0"})
    assert response.status_code == 400
    assert "control character" in response.text and field in response.text
    assert Submission.query.count() == 0


def test_control_characters_in_the_path_and_query_are_400(playing) -> None:
    client, game, link = playing
    assert client.get(f"/api/games/{game.id}%01", headers=_auth(link)).status_code == 400
    assert client.get(f"/api/games/{game.id}?x=a%00b", headers=_auth(link)).status_code == 400


def test_tokens_in_characters_no_link_has_are_bad_links(playing) -> None:
    """A token is credentials: whatever makes it no token pbem wrote, it is refused as one."""
    client, game, link = playing
    assert client.get(link + "%00").status_code == 403
    for token in ("a%00b", "a%20b", "a%2Fb", "%C3%A9"):
        response = client.get(f"/api/games/{game.id}?token={token}")
        assert response.status_code == 403 and _error(response) == "bad_token", token
    header = client.get(f"/api/games/{game.id}", headers={"Authorization": "Bearer a\x01b"})
    assert header.status_code == 403 and _error(header) == "bad_token"


def test_game_ids_outside_their_alphabet_are_404(playing) -> None:
    client, _game, link = playing
    for game_id in ("a.b", "a%20b", "%C3%A9t%C3%A9", "a~b"):
        response = client.get(f"/api/games/{game_id}", headers=_auth(link))
        assert response.status_code == 404 and _error(response) == "not_found", game_id


def test_over_long_tokens_are_bad_links(playing) -> None:
    client, game, link = playing
    long = _token(link) * 20
    assert client.get(f"/play/{long}").status_code == 403
    response = client.get(f"/api/games/{game.id}?token={long}")
    assert response.status_code == 403 and _error(response) == "bad_token"
    response = client.get(f"/api/games/{game.id}", headers={"Authorization": f"Bearer {long}"})
    assert response.status_code == 403 and _error(response) == "bad_token"


def test_over_long_game_ids_are_404(playing) -> None:
    client, _game, link = playing
    response = client.get(f"/api/games/{'g' * 200}", headers=_auth(link))
    assert response.status_code == 404 and _error(response) == "not_found"


def test_over_long_options_and_field_names_are_refused(client: FlaskClient) -> None:
    emails = "a@example.org\nb@example.org"
    response = client.post("/", data={"game": "gorami", "board": "1" * 150, "emails": emails})
    assert response.status_code == 422 and "The field &#39;board&#39; is 150" in response.text
    assert "1" * 150 not in response.text
    response = client.post("/", data={"game": "gorami", "f" * 100: "x", "emails": emails})
    assert response.status_code == 400
    assert Game.query.count() == 0 and Player.query.count() == 0


def test_the_emails_field_keeps_its_line_breaks_and_tabs(client: FlaskClient) -> None:
    emails = "a@example.org\r\nb@example.org\t"
    response = client.post("/", data={"game": "gorami", "emails": emails})
    assert response.status_code == 303


def test_an_over_long_query_string_is_414(client: FlaskClient) -> None:
    response = client.get("/?game=gorami&x=" + "y" * 5000)
    assert response.status_code == 414


# --- what a refusal quotes -----------------------------------------------------------------------


def test_a_refused_move_is_quoted_only_in_part(playing) -> None:
    client, game, link = playing
    typed = "q" + "z" * (limits.MOVE_LENGTH - 10)
    page = client.post(link, data={"move_text": typed, "ply": "0"})
    assert page.status_code == 422 and 'id="move-error"' in page.text
    assert "qzzz" in page.text
    assert "z" * (limits.QUOTED + 1) not in page.text
    api = client.post(
        f"/api/games/{game.id}/moves", json={"move": typed, "ply": 0}, headers=_auth(link)
    )
    assert api.status_code == 422 and _error(api) == "invalid_move"
    assert "qzzz" in api.get_json()["message"]
    assert "z" * (limits.QUOTED + 1) not in api.text


def test_field_refusals_name_the_field_not_its_value(playing) -> None:
    client, _game, link = playing
    response = client.post(link, data={"move_text": "w" * 5000, "ply": "0"})
    assert response.status_code == 422
    assert "move_text" in response.text and "w" * 81 not in response.text
