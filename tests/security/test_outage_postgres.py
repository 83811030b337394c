"""The same outage answers against real PostgreSQL: a backend ended the way a restart ends it
(`pg_terminate_backend`, SIGTERM: psycopg's AdminShutdown) under a pooled connection, between
requests or in the middle of a move. The shared server is not restarted: only this test's
connections are ended."""

from __future__ import annotations

import time
from typing import Any

import psycopg
from flask import Flask
from sqlalchemy import event, func, select

from pbem.extensions import db
from pbem.models import Submission
from tests.support.pg import libpq_url
from tests.web.flow import start, turn_link


def _end_backends(url: str, pids: list[int]) -> None:
    """End these backends as a fast shutdown does, and wait until they are gone."""
    with psycopg.connect(libpq_url(url), autocommit=True) as admin:
        for pid in pids:
            admin.execute("select pg_terminate_backend(%s)", (pid,))
        deadline = time.monotonic() + 10
        while admin.execute(
            "select count(*) from pg_stat_activity where pid = any(%s)", (pids,)
        ).fetchone() != (0,):
            assert time.monotonic() < deadline, "the backends did not end"
            time.sleep(0.02)


def _pooled_backends(url: str) -> list[int]:
    with psycopg.connect(libpq_url(url), autocommit=True) as admin:
        rows = admin.execute(
            "select pid from pg_stat_activity where datname = current_database() "
            "and pid <> pg_backend_pid()"
        ).fetchall()
    return [pid for (pid,) in rows]


def _headers(link: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {link.split('/play/')[1]}"}


def test_a_get_on_a_pooled_connection_the_server_ended_is_answered(pg_app: Flask) -> None:
    client = pg_app.test_client()
    game = start(client)
    link = turn_link(game)
    url = pg_app.config["SQLALCHEMY_DATABASE_URI"]
    backends = _pooled_backends(url)
    assert backends
    _end_backends(url, backends)

    response = client.get(f"/api/games/{game.id}", headers=_headers(link))

    assert response.status_code == 200, response.text
    assert not set(_pooled_backends(url)) & set(backends)


def test_a_move_whose_insert_meets_the_shutdown_is_a_503_and_not_recorded(
    pg_app: Flask,
) -> None:
    client = pg_app.test_client()
    game = start(client)
    game_id = game.id
    headers = _headers(turn_link(game))
    url = pg_app.config["SQLALCHEMY_DATABASE_URI"]

    def end_own_backend(conn: Any, _cursor: Any, statement: str, *_args: Any) -> None:
        if statement.startswith("INSERT INTO submissions"):
            _end_backends(url, [conn.connection.dbapi_connection.info.backend_pid])

    event.listen(db.engine, "before_cursor_execute", end_own_backend)
    try:
        response = client.post(
            f"/api/games/{game_id}/moves", json={"move": "2", "ply": 0}, headers=headers
        )
    finally:
        event.remove(db.engine, "before_cursor_execute", end_own_backend)

    assert response.status_code == 503, response.text
    assert response.headers["Retry-After"].isdigit()
    body = response.get_json()
    assert body["error"] == "database_unavailable" and "NOT recorded" in body["message"]
    db.session.remove()
    assert db.session.execute(select(func.count()).select_from(Submission)).scalar_one() == 0
    again = client.post(
        f"/api/games/{game_id}/moves", json={"move": "2", "ply": 0}, headers=headers
    )
    assert again.status_code == 202, again.text
