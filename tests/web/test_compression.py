"""Text answers are compressed as the client accepts; already-compressed pictures and anything a
link's token opened (BREACH: secrets beside text others choose) are sent as they are."""

from __future__ import annotations

import gzip
from pathlib import Path

import brotli
import pytest
from flask import Flask, Response
from flask.testing import FlaskClient

import pbem
from tests.conftest import make_app
from tests.web.flow import start, turn_link

BOTH = {"Accept-Encoding": "gzip, deflate, br"}


def decoded(response: Response) -> bytes:
    encoding = response.headers.get("Content-Encoding")
    if encoding == "br":
        return bytes(brotli.decompress(response.data))
    if encoding == "gzip":
        return gzip.decompress(response.data)
    assert encoding is None, encoding
    return bytes(response.data)


@pytest.mark.parametrize(
    ("path", "mimetype"),
    [
        ("/", "text/html"),
        ("/rules/gorami", "text/html"),
        ("/static/pbem.css", "text/css"),
        ("/static/play.js", "text/javascript"),
        ("/api/openapi.json", "application/json"),
        ("/picture/gorami.svg", "image/svg+xml"),
    ],
)
def test_text_is_compressed_as_the_client_accepts(
    client: FlaskClient, path: str, mimetype: str
) -> None:
    plain = client.get(path, headers={"Accept-Encoding": "identity"})
    assert plain.status_code == 200 and "Content-Encoding" not in plain.headers
    assert plain.mimetype in (mimetype, "application/javascript")
    for accepted, expected in (("gzip", "gzip"), ("gzip, br", "br"), ("br;q=0.5, gzip", "gzip")):
        response = client.get(path, headers={"Accept-Encoding": accepted})
        assert response.headers.get("Content-Encoding") == expected, (path, accepted)
        assert "Accept-Encoding" in response.headers["Vary"]
        assert len(response.data) < len(plain.data)
        assert decoded(response) == plain.data


def test_a_png_is_not_compressed_again(tmp_path: Path) -> None:
    app: Flask = make_app(tmp_path)
    # A real PNG: the icon's first picture inside favicon.ico, served as image/png.
    icon = (Path(pbem.__file__).resolve().parent / "static" / "favicon.ico").read_bytes()
    png = icon[icon.index(b"\x89PNG") :]
    app.add_url_rule("/test-picture.png", "test_picture", lambda: Response(png * 4, "image/png"))
    client = app.test_client()
    assert "Content-Encoding" not in client.get("/test-picture.png", headers=BOTH).headers
    assert "Content-Encoding" not in client.get("/favicon.ico", headers=BOTH).headers
    # A drawing is text, and is compressed.
    svg = client.get("/picture/gorami.svg", headers=BOTH)
    assert svg.headers.get("Content-Encoding") == "br"


def test_nothing_a_token_opened_is_compressed(client: FlaskClient) -> None:
    game = start(client, "gorami", board="16")
    link = turn_link(game)
    token = link.split("/play/")[1]
    bearer = {**BOTH, "Authorization": f"Bearer {token}"}
    answers = {
        "game page": client.get(link, headers=BOTH),
        "replay": client.get(f"{link}/replay/0", headers=BOTH),
        "api, header": client.get(f"/api/games/{game.id}", headers=bearer),
        "board, header": client.get(f"/api/games/{game.id}/board.svg", headers=bearer),
        "board, query": client.get(f"/api/games/{game.id}/board.svg?token={token}", headers=BOTH),
    }
    for name, response in answers.items():
        assert response.status_code == 200, name
        assert len(response.data) > 500, name  # large enough to be compressed otherwise
        assert "Content-Encoding" not in response.headers, name
    # The page carries the token itself: the secret a compressed length would leak.
    assert token in answers["game page"].text
    # The same kinds of answer without a token are compressed.
    assert client.get("/rules/gorami", headers=BOTH).headers.get("Content-Encoding") == "br"
    assert client.get("/picture/gorami.svg", headers=BOTH).headers.get("Content-Encoding") == "br"
