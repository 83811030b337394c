"""Refusals rendered in one place (pbem.web.errors): what werkzeug decides keeps its headers."""

from __future__ import annotations

from flask.testing import FlaskClient

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
