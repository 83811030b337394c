"""Who the request is: one module decides it for pages and API alike (pbem.web.access)."""

from __future__ import annotations

from flask.testing import FlaskClient

from pbem.domain import rotation
from pbem.extensions import settings
from tests.web.flow import confirmation_link, create, start, turn_link


def _token(link: str) -> str:
    return link.split("/play/")[1]


def test_a_token_from_path_header_or_query_speaks_for_the_same_seat(client: FlaskClient) -> None:
    game = start(client)
    token = _token(turn_link(game))
    by_header = client.get(f"/api/games/{game.id}", headers={"Authorization": f"Bearer {token}"})
    by_query = client.get(f"/api/games/{game.id}?token={token}")
    assert by_header.status_code == by_query.status_code == 200
    assert by_header.get_json()["seat"] == by_query.get_json()["seat"]
    assert client.get(f"/play/{token}").status_code == 200
    # A bearer scheme in any case; other schemes carry no token: the API asks for one.
    lower = client.get(f"/api/games/{game.id}", headers={"Authorization": f"bearer {token}"})
    assert lower.status_code == 200
    basic = client.get(f"/api/games/{game.id}", headers={"Authorization": f"Basic {token}"})
    assert basic.status_code == 401 and basic.get_json()["error"] == "no_token"
    assert basic.headers["WWW-Authenticate"] == 'Bearer realm="pbem"'


def test_missing_tokens_are_401_and_bad_ones_403_on_every_endpoint(client: FlaskClient) -> None:
    game = start(client)
    paths = [
        f"/api/games/{game.id}",
        f"/api/games/{game.id}/legal",
        f"/api/games/{game.id}/history",
        f"/api/games/{game.id}/record",
        f"/api/games/{game.id}/board.svg",
        f"/api/games/{game.id}/positions/0",
        "/api/submissions/1",
    ]
    for path in paths:
        missing = client.get(path)
        assert missing.status_code == 401 and missing.get_json()["error"] == "no_token", path
        assert missing.headers["WWW-Authenticate"] == 'Bearer realm="pbem"', path
        for forged in ("?token=forged", "?token=a%00b", "?token=a%20b"):
            response = client.get(path + forged)
            assert response.status_code == 403, path
            assert response.get_json()["error"] == "bad_token", path
            assert "WWW-Authenticate" not in response.headers
    resign = client.post(f"/api/games/{game.id}/resign")
    assert resign.status_code == 401 and resign.get_json()["error"] == "no_token"
    token = _token(turn_link(game))
    rotation.rotate_seat_links(settings(), game.id, game.to_move)
    revoked = client.get(paths[0], headers={"Authorization": f"Bearer {token}"})
    assert revoked.status_code == 403 and revoked.get_json()["error"] == "revoked_token"
    # Pages name no authentication scheme: a page without its token is a 403 saying so.
    page = client.get("/submission/1")
    assert page.status_code == 403 and "No token was sent" in page.text
    assert "WWW-Authenticate" not in page.headers
    page = client.get("/submission/1?token=forged")
    assert page.status_code == 403 and "This link is not valid" in page.text


def test_a_seat_belongs_to_the_game_in_the_url(client: FlaskClient) -> None:
    first, second = start(client), start(client)
    token = _token(turn_link(first))
    for path in ("", "/legal", "/history", "/record", "/board.svg", "/positions/0"):
        response = client.get(f"/api/games/{second.id}{path}?token={token}")
        assert response.status_code == 403 and response.get_json()["error"] == "wrong_token"
    moved = client.post(f"/api/games/{second.id}/moves?token={token}", json={"move": "1", "ply": 0})
    assert moved.status_code == 403 and moved.get_json()["error"] == "wrong_token"


def test_an_invitation_link_opens_no_game(client: FlaskClient) -> None:
    game = create(client)
    invite = confirmation_link(game).split("/invite/")[1]
    response = client.get(f"/api/games/{game.id}?token={invite}")
    assert response.status_code == 403 and response.get_json()["error"] == "wrong_token"
    assert client.get(f"/play/{invite}").status_code == 403


def test_a_submission_belongs_to_its_seat(client: FlaskClient) -> None:
    game = start(client)
    mover = _token(turn_link(game))
    made = client.post(f"/api/games/{game.id}/moves?token={mover}", json={"move": "1", "ply": 0})
    submission = made.get_json()["submission"]
    assert client.get(f"/api/submissions/{submission}?token={mover}").status_code == 200
    other = _token(turn_link(game))  # the seat to move now is the other one
    assert other != mover
    refused = client.get(f"/api/submissions/{submission}?token={other}")
    assert refused.status_code == 404 and refused.get_json()["error"] == "not_found"
    page = client.get(f"/submission/{submission}?token={other}")
    assert page.status_code == 404


def test_one_game_record_and_the_old_address_redirects_to_it(client: FlaskClient) -> None:
    game = start(client)
    token = _token(turn_link(game))
    old = client.get(f"/games/{game.id}/record.json?token={token}")
    assert old.status_code == 308
    assert old.headers["Location"] == f"/api/games/{game.id}/record?token={token}"
    record = client.get(old.headers["Location"])
    assert record.status_code == 200 and record.get_json()["game"] == game.id
    page = client.get(f"/play/{token}").text
    assert f'href="/api/games/{game.id}/record?token={token}"' in page
