"""Refusals rendered in one place (pbem.web.errors): what werkzeug decides keeps its headers."""

from __future__ import annotations

from flask import Flask
from flask.testing import FlaskClient

from pbem.web.errors import BEARER_CHALLENGE, MESSAGE_LENGTH, error_body, refusal
from tests.web.flow import start, turn_link


def test_a_method_an_api_address_does_not_take_is_405_with_allow(client: FlaskClient) -> None:
    game = start(client)
    for method, path, allowed in [
        ("PUT", f"/api/games/{game.id}", {"GET", "HEAD", "OPTIONS"}),
        ("DELETE", f"/api/games/{game.id}/moves", {"POST", "OPTIONS"}),
        ("TRACE", "/api/submissions/1", {"GET", "HEAD", "OPTIONS"}),
        ("POST", "/api/openapi.json", {"GET", "HEAD", "OPTIONS"}),
    ]:
        response = client.open(path, method=method)
        assert response.status_code == 405, (method, path)
        assert set(response.headers["Allow"].split(", ")) == allowed, (method, path)
        body = response.get_json()
        assert body["error"] == "method_not_allowed"
        assert f"does not take {method} requests" in body["message"]
        assert "/api/openapi.json" in body["message"]


def test_a_method_a_page_does_not_take_is_405_with_allow(client: FlaskClient) -> None:
    game = start(client)
    response = client.delete(turn_link(game))
    assert response.status_code == 405
    assert set(response.headers["Allow"].split(", ")) == {"GET", "HEAD", "OPTIONS", "POST"}
    assert response.mimetype == "text/html" and "does not take DELETE requests" in response.text


def test_every_api_refusal_has_the_one_body(client: FlaskClient) -> None:
    """The API's clients read `{"error", "message"}` and nothing else, whoever refused."""
    game = start(client)
    answers = {
        401: client.get(f"/api/games/{game.id}"),
        403: client.get(f"/api/games/{game.id}?token=nonsense"),
        404: client.get("/api/nowhere"),
        405: client.put(f"/api/games/{game.id}"),
    }
    for status, answer in answers.items():
        assert answer.status_code == status
        assert answer.mimetype == "application/json"
        assert set(answer.get_json()) == {"error", "message"}, status
    assert answers[401].headers["WWW-Authenticate"] == BEARER_CHALLENGE


def test_refusal_answers_json_under_the_api_and_a_page_elsewhere(app: Flask) -> None:
    with app.test_request_context("/api/games/x"):
        answer = refusal("stale_ply", "m" * 5000, 409, headers={"Retry-After": "5"})
        assert answer.status_code == 409 and answer.headers["Retry-After"] == "5"
        body = answer.get_json()
        assert body == error_body("stale_ply", "m" * 5000)
        # Bounded, whatever a message quotes.
        assert len(body["message"]) == MESSAGE_LENGTH and body["message"].endswith("…")
    with app.test_request_context("/play/x"):
        page = refusal("stale_ply", "The game has moved on.", 409, back="/play/x")
        assert page.status_code == 409 and page.mimetype == "text/html"
        assert "The game has moved on." in page.get_data(as_text=True)
        assert 'href="/play/x"' in page.get_data(as_text=True)
        asked = refusal("bad_setup", "No such zone.", 400, as_json=True)
        assert asked.get_json() == {"error": "bad_setup", "message": "No such zone."}
