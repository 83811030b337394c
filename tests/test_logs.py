"""pbem's logs: one JSON object a line with PBEM_LOG_FORMAT=json, each about its request, game,
seat and submission; never a token, a link with one or a whole address."""

from __future__ import annotations

import io
import json
import logging
from collections.abc import Iterator

import pytest
from flask import Flask
from flask.testing import FlaskClient

from pbem import logs
from tests.web.flow import start, turn_link

TOKEN = "eyJnIjoiQWJjIiwicyI6MX0.aW5fYV9saW5r.c2lnbmF0dXJlX29mX3RoZV9saW5rXzEyMzQ"


@pytest.fixture
def lines() -> Iterator[io.StringIO]:
    """What pbem's JSON handler writes, while the test runs."""
    out = io.StringIO()
    handler = logs.handler("json", "web", out)
    root = logging.getLogger()
    level = root.level
    root.addHandler(handler)
    root.setLevel(logging.INFO)
    yield out
    root.removeHandler(handler)
    root.setLevel(level)


def _records(out: io.StringIO) -> list[dict[str, object]]:
    return [json.loads(line) for line in out.getvalue().splitlines()]


def test_a_line_is_one_json_object_with_its_context(lines: io.StringIO) -> None:
    with logs.bound(request_id="r-0123456789", game_id="Abc", seat=1):
        logging.getLogger("pbem.test").warning("something about %s", "it")
    logging.getLogger("pbem.test").info("outside")
    inside, outside = _records(lines)
    assert inside["message"] == "something about it"
    assert inside["level"] == "WARNING" and inside["logger"] == "pbem.test"
    assert inside["process"] == "web" and "time" in inside
    assert (inside["request_id"], inside["game_id"], inside["seat"]) == ("r-0123456789", "Abc", 1)
    assert "request_id" not in outside and "game_id" not in outside


def test_no_token_link_or_address_reaches_a_line(lines: io.StringIO) -> None:
    log = logging.getLogger("pbem.test")
    log.warning("GET /play/%s from ann.smith@example.org", TOKEN)
    log.warning("reply to play+%s@pbem.test", TOKEN)
    try:
        raise ValueError(f"bad link http://pbem.test/me/{TOKEN} for bob@example.org")
    except ValueError:
        log.exception("failed")
    # Another library's logger, never set up by pbem: the handler masks it too.
    logging.getLogger("some.library").warning("Bearer %s", TOKEN)
    text = lines.getvalue()
    assert TOKEN not in text and TOKEN[:20] not in text
    assert "ann.smith@" not in text and "bob@" not in text and "a…@example.org" in text
    assert "/play/eyJnIj…" in text and "Bearer eyJnIj…" in text
    assert len(_records(lines)) == 4


def test_a_request_id_follows_the_move_into_its_task(
    client: FlaskClient, app: Flask, lines: io.StringIO
) -> None:
    game = start(client)
    token = turn_link(game).split("/play/")[1]
    lines.truncate(0)
    lines.seek(0)
    response = client.post(
        f"/api/games/{game.id}/moves",
        json={"move": "2", "ply": 0},
        headers={"Authorization": f"Bearer {token}", "X-Request-ID": "proxy-given-0001"},
    )
    assert response.status_code == 202
    assert response.headers["X-Request-ID"] == "proxy-given-0001"
    (applied,) = [r for r in _records(lines) if str(r["message"]).startswith("move for ply")]
    assert applied["message"] == "move for ply 0: applied"
    assert applied["request_id"] == "proxy-given-0001"
    assert applied["game_id"] == game.id and applied["seat"] == 0
    assert applied["submission_id"] == response.get_json()["submission"]


def test_an_id_that_does_not_look_like_one_is_replaced(client: FlaskClient) -> None:
    made = client.get("/", headers={"X-Request-ID": "<script> forged line"}).headers
    assert made["X-Request-ID"] != "<script> forged line"
    assert len(made["X-Request-ID"]) == 16
    assert client.get("/").headers["X-Request-ID"] != made["X-Request-ID"]
