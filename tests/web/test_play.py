"""The game page and move confirmation: the happy path and every refusal."""

from __future__ import annotations

import html
import json
import re
import time

import pytest
from flask.testing import FlaskClient

from pbem import dispatch, links
from pbem.extensions import db, settings
from pbem.models import Game, Move, Submission
from tests.web.flow import links_in, mails, start, turn_link


def _ply(game: Game) -> int:
    db.session.expire_all()
    fresh = db.session.get(Game, game.id)
    assert fresh is not None
    return fresh.ply


def test_the_game_page_shows_board_turn_and_the_legal_moves(client: FlaskClient) -> None:
    game = start(client)
    page = client.get(turn_link(game))
    assert page.status_code == 200
    assert "It is your turn" in page.text
    assert '<svg xmlns="http://www.w3.org/2000/svg">' in page.text and "<?xml" not in page.text
    assert "<option>1</option>" in page.text and "<option>3</option>" in page.text
    assert 'name="ply" value="0"' in page.text and 'name="move_text"' in page.text


def test_moves_through_the_form_until_the_end(client: FlaskClient) -> None:
    game = start(client, pile="5")
    for ply, move in enumerate(["2", "2"]):
        response = client.post(turn_link(game), data={"move": move, "ply": ply})
        assert response.status_code == 303
        status = client.get(response.headers["Location"])
        assert "was played" in status.text and 'data-status="applied"' in status.text
    # Free text wins over the list, in any case and spacing the engine accepts.
    link = turn_link(game)
    response = client.post(link, data={"move": "3", "move_text": " 1 ", "ply": 2})
    assert response.status_code == 303
    assert [m.move for m in Move.query.order_by(Move.ply)] == ["2", "2", "1"]
    page = client.get(link)
    assert "The game is over" in page.text and 'id="move-form"' not in page.text
    assert len(mails(kind="result")) == 2


def test_get_never_changes_anything(client: FlaskClient) -> None:
    game = start(client)
    link = turn_link(game)
    client.get(link + "?move=1&ply=0")
    assert _ply(game) == 0 and Submission.query.count() == 0


def test_a_stale_ply_gets_a_clear_page(client: FlaskClient) -> None:
    game = start(client)
    first = turn_link(game)
    assert client.post(first, data={"move": "1", "ply": 0}).status_code == 303
    second = turn_link(game)
    assert client.post(second, data={"move": "1", "ply": 1}).status_code == 303
    response = client.post(first, data={"move": "1", "ply": 0})
    assert response.status_code == 409
    assert "This move was for move 1; the game is at move 3" in response.text
    assert _ply(game) == 2


def test_not_your_turn(client: FlaskClient) -> None:
    game = start(client)
    mover = turn_link(game)
    client.post(mover, data={"move": "1", "ply": 0})
    response = client.post(mover, data={"move": "1", "ply": 1})
    assert response.status_code == 409 and "It is not your turn" in response.text
    assert _ply(game) == 1


@pytest.mark.parametrize(
    ("move", "message"),
    [("seven", "&#39;seven&#39; is not a number"), ("5", "take 1 to 3"), ("", "No move was given")],
)
def test_a_bad_move_shows_the_page_again_with_the_reason(
    client: FlaskClient, move: str, message: str
) -> None:
    game = start(client)
    response = client.post(turn_link(game), data={"move_text": move, "ply": 0})
    assert response.status_code == 422
    assert message in response.text and 'id="move-form"' in response.text
    assert Submission.query.count() == 0


def test_a_form_without_ply_is_refused(client: FlaskClient) -> None:
    game = start(client)
    response = client.post(turn_link(game), data={"move": "1"})
    assert response.status_code == 400 and "Reload the game page" in response.text
    assert Submission.query.count() == 0


def test_forged_revoked_and_expired_links(client: FlaskClient, monkeypatch) -> None:
    from pbem.domain import rotation
    from pbem.extensions import settings

    game = start(client)
    link = turn_link(game)
    forged = client.post(link[:-3] + "xyz", data={"move": "1", "ply": 0})
    assert forged.status_code == 403 and "not valid" in forged.text

    later = time.time() + 91 * 86400
    with monkeypatch.context() as clock:
        clock.setattr(time, "time", lambda: later)
        expired = client.get(link)
    assert expired.status_code == 403 and "This link has expired" in expired.text

    rotation.rotate_seat_links(settings(), game.id, _to_move(game))
    revoked = client.post(link, data={"move": "1", "ply": 0})
    assert revoked.status_code == 403 and "withdrawn" in revoked.text
    assert _ply(game) == 0 and Submission.query.count() == 0
    assert client.get(turn_link(game)).status_code == 200  # the fresh link works


def _to_move(game: Game) -> int:
    db.session.expire_all()
    fresh = db.session.get(Game, game.id)
    assert fresh is not None and fresh.to_move is not None
    return fresh.to_move


def test_an_invitation_link_is_not_a_game_page(client: FlaskClient) -> None:
    start(client)
    invite = links_in(mails(kind="invite")[0], "invite")[0]
    response = client.get(invite.replace("/invite/", "/play/"))
    assert response.status_code == 403 and "for an invitation, not this page" in response.text


def test_another_seats_submission_is_hidden(client: FlaskClient) -> None:
    game = start(client)
    mover = turn_link(game)
    response = client.post(mover, data={"move": "1", "ply": 0})
    status_path = response.headers["Location"]
    other = turn_link(game)  # now the other seat's link
    submission_id = status_path.split("/submission/")[1].split("?")[0]
    response = client.get(f"/submission/{submission_id}?token={other.split('/play/')[1]}")
    assert response.status_code == 404


def test_a_move_is_kept_when_the_queue_is_down(client: FlaskClient, monkeypatch) -> None:
    game = start(client)
    monkeypatch.setattr(dispatch, "_enqueue", lambda name, args: False)
    response = client.post(turn_link(game), data={"move": "2", "ply": 0})
    assert response.status_code == 303
    page = client.get(response.headers["Location"])
    assert "will be applied shortly" in page.text
    assert [s.status for s in Submission.query] == ["pending"]
    assert _ply(game) == 0


def test_the_game_record(client: FlaskClient) -> None:
    game = start(client)
    link = turn_link(game)
    client.post(link, data={"move": "3", "ply": 0})
    token = link.split("/play/")[1]
    record = client.get(f"/api/games/{game.id}/record?token={token}").get_json()
    assert record["game"] == game.id and record["engine"] == "countdown"
    assert [m["move"] for m in record["moves"]] == ["3"]
    assert client.get(f"/api/games/other/record?token={token}").status_code == 403


@pytest.mark.parametrize("engine", ["gorami", "mmw"])
def test_a_game_ended_by_resignation_offers_no_move_on_its_page(
    client: FlaskClient, engine: str
) -> None:
    """The engine's state goes on after a resignation; the page must not."""
    game = start(client, engine)
    mover = turn_link(game)
    assert client.post(f"{mover}/resign").status_code == 303
    db.session.expire_all()
    fresh = db.session.get(Game, game.id)
    assert fresh is not None
    for seat in fresh.seats:
        link = f"/play/{links.token_for(settings().signing_key, seat, links.SEAT)}"
        page = client.get(link).text
        assert 'id="outcome"' in page and "resigned;" in page and "wins" in page
        assert 'id="move-form"' not in page and 'id="resign"' not in page
        island = re.search(r'<script type="application/json" id="game-data">(.*?)</script>', page)
        assert island is not None
        data = json.loads(island.group(1))
        assert not data["your_turn"] and data["to_move"] is None
        assert data["view"]["legal_moves"] == [] and data["view"]["to_move"] is None
        # The board is drawn as the game ended, on the page and wherever else it is fetched.
        board = re.search(r'<svg xmlns="http://www.w3.org/2000/svg".*?</svg>', page, re.S)
        assert board is not None
        token = link.split("/play/")[1]
        svg = client.get(f"/api/games/{game.id}/board.svg?token={token}")
        assert svg.status_code == 200
        for drawing in (board.group(0), svg.text):
            assert "resigned;" in html.unescape(drawing) and "to move" not in drawing
        api = client.get(f"/api/games/{game.id}?token={token}").get_json()
        assert api["to_move"] is None and api["view"]["legal_moves"] == []
        refused = client.post(link, data={"move": "1", "ply": str(fresh.ply)})
        assert refused.status_code == 409
        assert "The game is over." in refused.text and "resigned;" in refused.text
    assert Submission.query.count() == 0
