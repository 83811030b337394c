"""A draw offer is told once on the offerer's page: the standing offer's notice, not a second
"your offer was sent" beside it (issue 31)."""

from __future__ import annotations

from flask.testing import FlaskClient

from tests.web.flow import start
from tests.web.test_game_actions import _follow, _link, _mover


def test_the_offerer_reads_of_the_offer_once(client: FlaskClient) -> None:
    game = start(client)
    offerer = _mover(game.id)
    page = _follow(client, client.post(f"{_link(game.id, offerer)}/draw"))
    assert page.count("You offered a draw; waiting for an answer") == 1
    assert "Your draw offer was sent" not in page
    assert page.count('class="notice') == 1


def test_an_offer_accepted_by_offering_still_says_so(client: FlaskClient) -> None:
    game = start(client)
    first = _mover(game.id)
    _follow(client, client.post(f"{_link(game.id, first)}/draw"))
    page = _follow(client, client.post(f"{_link(game.id, 1 - first)}/draw"))
    assert "You accepted the draw" in page
