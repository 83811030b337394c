"""The same bounds on SQLite and on PostgreSQL: what a column cannot hold never reaches it.

Found: on PostgreSQL a NUL byte in an address and a move longer than its column raised DataError
(500); on SQLite, which enforces no length, a 1 MB address was stored though the column holds 320.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from flask import Flask
from flask.testing import FlaskClient

from pbem.extensions import db
from pbem.models import Game, Player, Submission
from pbem.web import limits
from tests.conftest import make_app
from tests.support.needs import missing
from tests.web.flow import start, turn_link


@pytest.fixture(params=["sqlite", "postgresql"])
def client(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[FlaskClient]:
    if request.param == "sqlite":
        yield from _client(make_app(tmp_path))
        return
    from tests.support.pg import TempDatabase, server_available

    if (why := server_available()) is not None:
        missing(f"PostgreSQL unavailable: {why}")
    database = TempDatabase(prefix="pbem_bounds").create()
    try:
        yield from _client(make_app(tmp_path, DATABASE_URL=database.url))
    finally:
        database.drop()


def _client(app: Flask) -> Iterator[FlaskClient]:
    with app.app_context():
        db.create_all()
        yield app.test_client()
        db.session.remove()
        db.engine.dispose()


def _stored() -> tuple[int, int]:
    db.session.expire_all()
    return Game.query.count(), Player.query.count()


@pytest.mark.parametrize(
    "emails",
    ["al\x00ice@example.org\nbob@example.org", "alice@example.org\nbob@exa\x00mple.org"],
    ids=["organiser", "invited"],
)
def test_a_nul_byte_in_an_address_is_400(client: FlaskClient, emails: str) -> None:
    response = client.post("/", data={"game": "gorami", "emails": emails})
    assert response.status_code == 400 and "control character" in response.text
    assert _stored() == (0, 0)


def test_a_nul_byte_in_the_sign_in_address_is_400(client: FlaskClient) -> None:
    response = client.post("/signin", data={"email": "alice@exa\x00mple.org"})
    assert response.status_code == 400 and "control character" in response.text
    assert _stored() == (0, 0)


@pytest.mark.parametrize("length", [limits.ADDRESS_LENGTH + 1, 4000])
def test_an_address_longer_than_its_column_is_refused(client: FlaskClient, length: int) -> None:
    address = "a" * (length - len("@example.org")) + "@example.org"
    response = client.post("/", data={"game": "gorami", "emails": f"{address}\nb@example.org"})
    assert response.status_code == 422 and "an email address has at most 320" in response.text
    assert address not in response.text
    response = client.post("/signin", data={"email": address})
    assert response.status_code == 422
    assert _stored() == (0, 0)


def test_a_1_mb_address_is_refused_and_not_stored(client: FlaskClient) -> None:
    address = "a" * 1024 * 1024 + "@example.org"
    response = client.post("/", data={"game": "gorami", "emails": f"{address}\nb@example.org"})
    assert response.status_code == 413
    assert len(response.data) < 20_000
    assert _stored() == (0, 0)


@pytest.mark.parametrize(
    "extra", [limits.MOVE_LENGTH + 1, 600, 5000], ids=["column+1", "submissions+100", "5000"]
)
def test_a_move_longer_than_its_column_is_422(client: FlaskClient, extra: int) -> None:
    game = start(client, "gorami")
    link = turn_link(game)
    # Legal once the spaces are gone: the engine alone would have accepted it.
    padded = "2" + " " * extra + "b3"
    token = link.split("/play/")[1]
    api = client.post(
        f"/api/games/{game.id}/moves",
        json={"move": padded, "ply": 0},
        headers={"Authorization": f"Bearer {token}"},
    )
    assert api.status_code == 422 and api.get_json()["error"] == "too_long"
    page = client.post(link, data={"move_text": padded, "ply": "0"})
    assert page.status_code == 422
    assert Submission.query.count() == 0


def test_a_padded_move_within_the_column_is_refused_by_the_engine(client: FlaskClient) -> None:
    game = start(client, "gorami")
    link = turn_link(game)
    padded = "2" + " " * (limits.MOVE_LENGTH - 10) + "b3"
    page = client.post(link, data={"move_text": padded, "ply": "0"})
    assert page.status_code == 422 and "characters long" in page.text
    assert Submission.query.count() == 0
    # The move as it should be written goes through.
    assert client.post(link, data={"move_text": "2 b3", "ply": "0"}).status_code == 303


def test_a_submission_id_past_its_column_is_404(client: FlaskClient) -> None:
    """Found by schemathesis on gunicorn: an id between 2^31 and 2^63 was a 500 on PostgreSQL,
    whose INTEGER column cannot be compared with it."""
    game = start(client, "gorami")
    token = turn_link(game).split("/play/")[1]
    for number in (limits.MAX_ID, limits.MAX_ID + 1, 2**63 - 2, 2**63, 2**70):
        response = client.get(
            f"/api/submissions/{number}", headers={"Authorization": f"Bearer {token}"}
        )
        assert response.status_code == 404
        assert client.get(f"/submission/{number}?token={token}").status_code == 404
