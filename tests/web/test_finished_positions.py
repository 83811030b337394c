"""The last position of a game the service ended, as the page's replay fetches it
(`/api/games/<id>/positions/<ply>`): its board says the game is over, never whose turn it was
(issue 31); the position before still names the seat to move."""

from __future__ import annotations

import re

import pytest
from flask.testing import FlaskClient

from tests.web.flow import fresh_game, start
from tests.web.test_game_actions import _follow, _link, _mover


def _board_words(svg: str) -> str:
    return " ".join(re.sub(r"<[^>]+>", " ", svg).split())


@pytest.mark.parametrize(
    ("engine", "options"), [("gorami", {"board": "16"}), ("marram", {}), ("mmw", {})]
)
def test_the_last_position_of_a_resigned_game_is_over(
    client: FlaskClient, engine: str, options: dict[str, str]
) -> None:
    game = start(client, engine, **options)
    loser = _mover(game.id)
    link = _link(game.id, loser)
    _follow(client, client.post(f"{link}/resign"))
    auth = {"Authorization": "Bearer " + link.rsplit("/", 1)[1]}
    last = client.get(
        f"/api/games/{game.id}/positions/{fresh_game(game.id).ply}", headers=auth
    ).json
    assert last["to_move"] is None
    words = _board_words(last["svg"])
    assert "to move" not in words
    assert "resigned" in words
