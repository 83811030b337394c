"""The JSON API: same seat tokens, JSON errors with proper statuses."""

from __future__ import annotations

from flask.testing import FlaskClient

from pbem.models import Submission
from tests.web.flow import links_in, mails, start, turn_link


def _auth(link: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {link.split('/play/')[1]}"}


def test_view_legal_submit_history(client: FlaskClient) -> None:
    game = start(client)
    headers = _auth(turn_link(game))
    view = client.get(f"/api/games/{game.id}", headers=headers).get_json()
    assert view["ply"] == 0 and view["status"] == "running" and view["your_turn"]
    assert view["seat"] == view["to_move"] and view["view"]["pile"] == 10
    assert len(view["players"]) == 2
    legal = client.get(f"/api/games/{game.id}/legal", headers=headers).get_json()
    assert legal["moves"] == ["1", "2", "3"]
    response = client.post(
        f"/api/games/{game.id}/moves", json={"move": "2", "ply": 0}, headers=headers
    )
    assert response.status_code == 202
    body = response.get_json()
    assert body["status"] == "pending"
    status = client.get(f"/api/submissions/{body['submission']}", headers=headers).get_json()
    assert status["status"] == "applied" and status["move"] == "2"
    history = client.get(f"/api/games/{game.id}/history", headers=headers).get_json()
    assert [m["move"] for m in history["moves"]] == ["2"]
    # After the move it is not this seat's turn: no legal moves offered.
    legal = client.get(f"/api/games/{game.id}/legal", headers=headers).get_json()
    assert legal == {"ply": 1, "to_move": legal["to_move"], "your_turn": False, "moves": []}


def test_the_token_may_come_as_a_query_parameter(client: FlaskClient) -> None:
    game = start(client)
    token = turn_link(game).split("/play/")[1]
    assert client.get(f"/api/games/{game.id}?token={token}").status_code == 200


def test_errors_are_json_with_proper_statuses(client: FlaskClient) -> None:
    game = start(client)
    link = turn_link(game)
    headers = _auth(link)
    url = f"/api/games/{game.id}/moves"

    def error(response) -> tuple[int, str]:
        body = response.get_json()
        assert set(body) == {"error", "message"} and body["message"]
        return response.status_code, body["error"]

    assert error(client.post(url, json={"move": "1", "ply": 4}, headers=headers)) == (
        409,
        "stale_ply",
    )
    assert error(client.post(url, json={"move": "x", "ply": 0}, headers=headers)) == (
        422,
        "invalid_move",
    )
    assert error(client.post(url, json={"move": "4", "ply": 0}, headers=headers)) == (
        422,
        "illegal_move",
    )
    assert error(client.post(url, json={"move": "1"}, headers=headers)) == (400, "bad_request")
    assert error(client.post(url, data="nope", headers=headers)) == (400, "bad_request")
    assert error(client.get(f"/api/games/{game.id}")) == (403, "bad_token")
    assert error(client.get(f"/api/games/{game.id}", headers={"Authorization": "Bearer x"})) == (
        403,
        "bad_token",
    )
    assert error(client.get("/api/games/nosuchgame", headers=headers)) == (403, "wrong_token")
    invite = links_in(mails(kind="invite")[0], "invite")[0].split("/invite/")[1]
    assert error(
        client.get(f"/api/games/{game.id}", headers={"Authorization": f"Bearer {invite}"})
    ) == (403, "wrong_token")
    assert error(client.get("/api/submissions/999", headers=headers)) == (404, "not_found")
    assert error(client.get("/api/nothing-here")) == (404, "not_found")
    assert Submission.query.count() == 0


def test_other_seat_cannot_move(client: FlaskClient) -> None:
    game = start(client)
    mover = turn_link(game)
    client.post(f"/api/games/{game.id}/moves", json={"move": "1", "ply": 0}, headers=_auth(mover))
    response = client.post(
        f"/api/games/{game.id}/moves", json={"move": "1", "ply": 1}, headers=_auth(mover)
    )
    assert response.status_code == 409 and response.get_json()["error"] == "not_your_turn"
