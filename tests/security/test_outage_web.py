"""A request that meets a lost database connection is tried again once when nothing can have been
recorded, and is otherwise answered 503 with Retry-After and a page or JSON saying the move was
not recorded: never a bare "Internal Server Error" (a PostgreSQL restart under load made two
move POSTs a 500).

The lost connection is the one SQLAlchemy sees when PostgreSQL is restarted under a busy
connection: the statement fails and the dialect calls it a disconnect (psycopg's AdminShutdown),
so the connection and the pool's older ones are invalidated."""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import psycopg
import pytest
from flask import Flask
from flask.testing import FlaskClient
from psycopg import errors
from sqlalchemy import select, text
from sqlalchemy.exc import DBAPIError, IntegrityError

from pbem.extensions import db
from pbem.models import Game, Submission
from pbem.pool import lost_connection
from pbem.web import outages
from tests.conftest import make_app
from tests.web.flow import mails, start, turn_link

LOST = "server closed the connection unexpectedly"


@dataclass
class LostConnection:
    """Makes chosen statements fail as on a connection the server dropped."""

    when: Callable[[str], bool] = lambda statement: False
    # How many times more; None: every time.
    times: int | None = None
    failed: list[str] = field(default_factory=list)
    executed: list[str] = field(default_factory=list)

    def check(self, statement: str) -> None:
        self.executed.append(statement)
        if self.when(statement) and (self.times is None or self.times > 0):
            if self.times is not None:
                self.times -= 1
            self.failed.append(statement)
            raise sqlite3.OperationalError(LOST)

    def on(self, when: Callable[[str], bool], times: int | None = None) -> LostConnection:
        self.when, self.times = when, times
        return self


@pytest.fixture
def lost(app: Flask, monkeypatch: pytest.MonkeyPatch) -> Iterator[LostConnection]:
    dialect = db.engine.dialect
    injector = LostConnection()
    do_execute, do_execute_no_params = dialect.do_execute, dialect.do_execute_no_params
    is_disconnect = dialect.is_disconnect

    def execute(cursor: Any, statement: str, parameters: Any, context: Any = None) -> None:
        injector.check(statement)
        do_execute(cursor, statement, parameters, context)

    def execute_no_params(cursor: Any, statement: str, context: Any = None) -> None:
        injector.check(statement)
        do_execute_no_params(cursor, statement, context)

    def disconnect(e: Exception, connection: Any, cursor: Any) -> bool:
        return LOST in str(e) or is_disconnect(e, connection, cursor)

    monkeypatch.setattr(dialect, "do_execute", execute)
    monkeypatch.setattr(dialect, "do_execute_no_params", execute_no_params)
    monkeypatch.setattr(dialect, "is_disconnect", disconnect)
    yield injector


def _game(client: FlaskClient) -> tuple[Game, str, dict[str, str]]:
    game = start(client)
    link = turn_link(game)
    return game, link, {"Authorization": f"Bearer {link.split('/play/')[1]}"}


def _reads_seat(statement: str) -> bool:
    return statement.lstrip().upper().startswith("SELECT") and "seats" in statement


def _inserts_submission(statement: str) -> bool:
    return statement.lstrip().upper().startswith("INSERT INTO SUBMISSIONS")


def _submissions() -> list[Submission]:
    db.session.expire_all()
    return list(db.session.execute(select(Submission)).scalars())


def _assert_unavailable(response: Any) -> None:
    assert response.status_code == 503, response.text
    assert 1 <= int(response.headers["Retry-After"]) <= 30


def test_a_get_that_loses_its_connection_is_tried_again_and_answers(
    client: FlaskClient, lost: LostConnection
) -> None:
    game, link, headers = _game(client)
    lost.on(_reads_seat, times=1)

    response = client.get(f"/api/games/{game.id}", headers=headers)

    assert response.status_code == 200, response.text
    assert response.get_json()["ply"] == 0
    assert len(lost.failed) == 1
    lost.on(_reads_seat, times=1)
    page = client.get(link)
    assert page.status_code == 200 and 'id="move-form"' in page.text
    assert len(lost.failed) == 2


def test_a_get_whose_database_stays_away_is_a_503_page(
    client: FlaskClient, lost: LostConnection
) -> None:
    _started, link, _headers = _game(client)
    lost.on(lambda statement: True)

    response = client.get(link)

    _assert_unavailable(response)
    assert 'data-error="database_unavailable"' in response.text
    assert "Nothing was changed" in response.text and "reload" in response.text
    assert "Internal Server Error" not in response.text
    assert len(lost.failed) == 2  # the request, and its one second attempt


def test_a_move_whose_read_loses_the_connection_is_tried_again_and_stored_once(
    client: FlaskClient, lost: LostConnection
) -> None:
    game, _link, headers = _game(client)
    lost.on(_reads_seat, times=1)

    response = client.post(
        f"/api/games/{game.id}/moves", json={"move": "2", "ply": 0}, headers=headers
    )

    assert response.status_code == 202, response.text
    assert len(lost.failed) == 1
    rows = _submissions()
    assert [(s.ply, s.move, s.status) for s in rows] == [(0, "2", "applied")]


def test_a_move_whose_insert_loses_the_connection_is_a_503_saying_it_was_not_recorded(
    client: FlaskClient, lost: LostConnection
) -> None:
    game, _link, headers = _game(client)
    lost.on(_inserts_submission, times=1)

    response = client.post(
        f"/api/games/{game.id}/moves", json={"move": "2", "ply": 0}, headers=headers
    )

    _assert_unavailable(response)
    body = response.get_json()
    assert body["error"] == "database_unavailable"
    assert "move was NOT recorded" in body["message"] and "send it again" in body["message"]
    # Not tried a second time: the insert might have reached the server.
    assert len(lost.failed) == 1
    assert sum(_inserts_submission(s) for s in lost.executed) == 1
    assert _submissions() == []
    # Sent again, as the answer says, it is taken.
    again = client.post(
        f"/api/games/{game.id}/moves", json={"move": "2", "ply": 0}, headers=headers
    )
    assert again.status_code == 202, again.text
    assert [(s.ply, s.move, s.status) for s in _submissions()] == [(0, "2", "applied")]


def test_the_game_page_form_gets_a_503_page_with_the_way_back(
    client: FlaskClient, lost: LostConnection
) -> None:
    _started, link, _headers = _game(client)
    lost.on(_inserts_submission, times=1)

    response = client.post(link, data={"move": "2", "ply": "0"})

    _assert_unavailable(response)
    assert 'data-error="database_unavailable"' in response.text
    assert "Your move was NOT recorded" in response.text
    assert f'href="{link}"' in response.text
    assert _submissions() == []


def test_a_move_whose_database_stays_away_is_a_503_and_stores_nothing(
    client: FlaskClient, lost: LostConnection
) -> None:
    game, _link, headers = _game(client)
    lost.on(lambda statement: True)

    response = client.post(
        f"/api/games/{game.id}/moves", json={"move": "2", "ply": 0}, headers=headers
    )

    _assert_unavailable(response)
    assert "NOT recorded" in response.get_json()["message"]
    lost.on(lambda statement: False)
    assert _submissions() == []


def test_after_a_commit_the_request_is_not_tried_again_and_says_it_may_be_recorded(
    app: Flask, client: FlaskClient, lost: LostConnection
) -> None:
    runs: list[int] = []

    def commit_then_read() -> str:
        runs.append(1)
        db.session.execute(text("select 1"))
        db.session.commit()
        db.session.execute(text("select 2 as after_commit")).all()
        return "done"

    app.add_url_rule("/commit-then-read", "commit_then_read", commit_then_read, methods=["POST"])
    outages.install(app)
    lost.on(lambda statement: "after_commit" in statement)

    response = client.post("/commit-then-read")

    _assert_unavailable(response)
    assert "may have been recorded" in response.text and "Look before" in response.text
    assert runs == [1]


def test_other_database_errors_are_left_alone(app: Flask, client: FlaskClient) -> None:
    def duplicate() -> str:
        raise IntegrityError("insert", {}, sqlite3.IntegrityError("UNIQUE constraint failed"))

    app.add_url_rule("/duplicate", "duplicate", duplicate)
    outages.install(app)

    with pytest.raises(IntegrityError):
        client.get("/duplicate")


def _tokens() -> dict[str, str]:
    """A token for each kind of link in the mail sent so far: invite, block, me, play."""
    found: dict[str, str] = {}
    for row in mails():
        for kind, token in re.findall(r"http://pbem\.test/([a-z]+)/([^\s\"<]+)", row.text):
            found.setdefault(kind, token)
    return found


def _every_request(app: Flask, game_id: str, submission_id: int) -> list[tuple[str, str]]:
    """(method, path) for every rule of the app, its arguments taken from a running game and
    the links in its mail."""
    tokens = _tokens()
    values: dict[str, Any] = {
        "game_id": game_id,
        "submission_id": submission_id,
        "ply": 0,
        "name": "countdown",
        "filename": "pbem.css",
    }
    adapter = app.url_map.bind("pbem.test")
    found = []
    for rule in app.url_map.iter_rules():
        kind = rule.rule.split("/")[1]
        token = tokens.get(kind, tokens["play"])
        path = adapter.build(
            rule.endpoint, {name: values.get(name, token) for name in rule.arguments}
        )
        for method in sorted((rule.methods or set()) & {"GET", "POST"}):
            found.append((method, f"{path}?token={tokens['play']}" if method == "GET" else path))
    return found


def test_no_request_is_a_500_while_the_database_is_away(
    app: Flask, client: FlaskClient, lost: LostConnection
) -> None:
    game, _link, headers = _game(client)
    game_id = game.id
    token = headers["Authorization"].removeprefix("Bearer ")
    moved = client.post(
        f"/api/games/{game_id}/moves", json={"move": "1", "ply": 0}, headers=headers
    )
    assert moved.status_code == 202
    requests = _every_request(app, game_id, moved.get_json()["submission"])
    assert len(requests) > 20
    lost.on(lambda statement: True)

    statuses = {}
    for method, path in requests:
        if method == "GET":
            response = client.get(path, headers=headers)
        elif path.startswith("/api/"):
            response = client.post(path, json={"move": "1", "ply": 1}, headers=headers)
        else:
            form = {"move": "1", "ply": "1", "game": "countdown", "email": "x@example.org"}
            response = client.post(path, data={**form, "emails": "x@example.org\ny@example.org"})
        statuses[method, path.split("?")[0]] = response.status_code
        if response.status_code == 503:
            assert "Retry-After" in response.headers

    assert 500 not in statuses.values(), statuses
    # Every request that needs the database got the clear answer.
    for path in (f"/api/games/{game_id}", f"/play/{token}", f"/api/games/{game_id}/moves"):
        assert 503 in {status for (_, p), status in statuses.items() if p == path}, statuses


def test_a_request_whose_closing_rollback_loses_the_connection_still_answers(
    tmp_path: Path, countdown_engine: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    # An app context per request, as in production: the session ends at each request's end.
    app = make_app(tmp_path)
    client = app.test_client()
    with app.app_context():
        db.create_all()
        game, _link, headers = _game(client)
        game_id = game.id
        dialect = db.engine.dialect
    do_rollback = dialect.do_rollback
    failed: list[int] = []

    def rollback(dbapi_connection: Any) -> None:
        if not failed:
            failed.append(1)
            raise sqlite3.OperationalError(LOST)
        do_rollback(dbapi_connection)

    monkeypatch.setattr(dialect, "do_rollback", rollback)
    monkeypatch.setattr(dialect, "is_disconnect", lambda e, *_: LOST in str(e))
    # The answer is made; the server goes away before the session's transaction is ended.
    response = client.get(f"/api/games/{game_id}", headers=headers)

    assert failed == [1]
    assert response.status_code == 200, response.text
    assert client.get(f"/api/games/{game_id}", headers=headers).status_code == 200
    with app.app_context():
        db.engine.dispose()


def test_what_counts_as_a_lost_connection() -> None:
    def wrapped(orig: Exception, invalidated: bool = False) -> DBAPIError:
        return DBAPIError("select 1", {}, orig, connection_invalidated=invalidated)

    refused = psycopg.OperationalError("connection failed: Connection refused")
    assert lost_connection(wrapped(refused))
    assert lost_connection(wrapped(errors.AdminShutdown("terminating connection")))
    assert lost_connection(wrapped(errors.CannotConnectNow("the database system is starting up")))
    assert lost_connection(wrapped(sqlite3.OperationalError(LOST), invalidated=True))
    assert not lost_connection(wrapped(errors.UniqueViolation("duplicate key")))
    assert not lost_connection(wrapped(errors.QueryCanceled("statement timeout")))
    assert not lost_connection(wrapped(sqlite3.OperationalError("database is locked")))
