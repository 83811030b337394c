"""The JSON API: same seat tokens, JSON errors with proper statuses."""

from __future__ import annotations

from datetime import timedelta

import pytest
from flask.testing import FlaskClient

from pbem import links
from pbem.domain import clock_task, moves
from pbem.extensions import db, settings
from pbem.models import Game, Submission, utcnow
from tests.web.flow import EMAILS, links_in, mails, start, turn_link


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
    bare = client.get(f"/api/games/{game.id}")
    assert error(bare) == (401, "no_token")
    assert bare.headers["WWW-Authenticate"] == 'Bearer realm="pbem"'
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


def test_cancelling_a_started_game_through_the_api_takes_every_player(
    client: FlaskClient,
) -> None:
    game = start(client)
    mover = _auth(turn_link(game))
    waiting = next(s for s in game.seats if s.seat != game.to_move)
    other = {
        "Authorization": f"Bearer {links.token_for(settings().signing_key, waiting, links.SEAT)}"
    }
    proposed = client.post(f"/api/games/{game.id}/cancel", headers=other).get_json()
    assert proposed["status"] == "running" and proposed["cancel_agreed_by"] == [
        1 - proposed["to_move"]
    ]
    declined = client.post(f"/api/games/{game.id}/cancel/decline", headers=mover).get_json()
    assert declined["status"] == "running" and declined["cancel_agreed_by"] == []
    again = client.post(f"/api/games/{game.id}/cancel/decline", headers=mover)
    assert again.status_code == 409 and again.get_json()["error"] == "conflict"
    client.post(f"/api/games/{game.id}/cancel", headers=other)
    done = client.post(f"/api/games/{game.id}/cancel", headers=mover).get_json()
    assert done["status"] == "cancelled" and done["cancel_agreed_by"] == []


# --- a finished game ----------------------------------------------------------------------------


def _seats(game: Game) -> list[str]:
    """Every seat's token, in seat order."""
    db.session.expire_all()
    fresh = db.session.get(Game, game.id)
    assert fresh is not None
    return [links.token_for(settings().signing_key, s, links.SEAT) for s in fresh.seats]


def _end(client: FlaskClient, game: Game, how: str) -> str:
    """End a running game by the service's means; the words the refusal must carry."""
    db.session.expire_all()
    mover = db.session.get(Game, game.id).to_move
    tokens = _seats(game)
    if how == "resigned":
        assert client.post(f"/api/games/{game.id}/resign?token={tokens[mover]}").status_code == 200
        return "resigned;"
    if how == "drawn":
        for seat in (mover, 1 - mover):
            assert client.post(f"/api/games/{game.id}/draw?token={tokens[seat]}").status_code == 200
        return "Drawn by agreement"
    clock_task.run_clock(settings(), utcnow() + timedelta(days=4))
    return "ran out of time;"


@pytest.mark.parametrize("engine", ["gorami", "mmw"])
@pytest.mark.parametrize("how", ["resigned", "drawn", "timeout"])
def test_a_finished_game_offers_no_move_anywhere(
    client: FlaskClient, engine: str, how: str
) -> None:
    """The engine's state does not know the service ended the game: its view would still list
    the moves of the player who was to move (48 in GORami, 21 in MMW)."""
    game = start(client, engine)
    ply = db.session.get(Game, game.id).ply
    words = _end(client, game, how)
    for token in _seats(game):
        auth = {"Authorization": f"Bearer {token}"}
        shown = client.get(f"/api/games/{game.id}", headers=auth).get_json()
        assert shown["status"] == "finished" and shown["outcome"] is not None
        assert shown["to_move"] is None and not shown["your_turn"]
        assert shown["view"]["legal_moves"] == [] and shown["view"]["to_move"] is None
        legal = client.get(f"/api/games/{game.id}/legal", headers=auth).get_json()
        assert legal == {"ply": ply, "to_move": None, "your_turn": False, "moves": []}
        last = client.get(f"/api/games/{game.id}/positions/{ply}", headers=auth).get_json()
        assert last["to_move"] is None
        refusals = [
            client.post(
                f"/api/games/{game.id}/moves", json={"move": "1", "ply": ply}, headers=auth
            ),
            client.post(f"/api/games/{game.id}/draw", headers=auth),
            client.post(f"/api/games/{game.id}/resign", headers=auth),
        ]
        for refused in refusals:
            body = refused.get_json()
            assert refused.status_code == 409 and body["error"] == "game_over"
            assert body["message"].startswith("The game is over.") and words in body["message"]
            assert "open the game page" in body["message"]


def test_a_seat_that_left_a_running_game_is_told_so_at_any_ply(client: FlaskClient) -> None:
    game = start(client, emails=[*EMAILS, "carol@example.org"])
    quitter = db.session.get(Game, game.id).to_move
    token = _seats(game)[quitter]
    assert client.post(f"/api/games/{game.id}/resign?token={token}").status_code == 200
    ply = db.session.get(Game, game.id).ply
    for sent in (ply, ply + 3):
        refused = client.post(
            f"/api/games/{game.id}/moves?token={token}", json={"move": "1", "ply": sent}
        )
        body = refused.get_json()
        assert refused.status_code == 409 and body["error"] == "not_your_turn"
        assert body["message"] == moves.LEFT_THE_GAME


def test_a_move_request_takes_no_other_key(client: FlaskClient) -> None:
    game = start(client)
    headers = _auth(turn_link(game))
    refused = client.post(
        f"/api/games/{game.id}/moves", json={"move": "1", "ply": 0, "plies": 0}, headers=headers
    )
    assert refused.status_code == 400 and refused.get_json()["error"] == "bad_request"
    assert "'plies'" in refused.get_json()["message"]
    assert Submission.query.count() == 0
