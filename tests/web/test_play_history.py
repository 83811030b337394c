"""The game page's list of moves: each in the engine's words with the players' names, its
notation beside, and for a move stored before moves had words, who played what."""

from __future__ import annotations

import html
import re

from flask.testing import FlaskClient
from sqlalchemy import update

from pbem.domain import views
from pbem.extensions import db
from pbem.models import Game, Move
from tests.web.flow import start, turn_link


def _history(page: str) -> list[str]:
    """The items of the page's move list, as text."""
    found = re.search(r'<ol id="history"[^>]*>(.*?)</ol>', page, re.S)
    assert found, "no move list"
    items = re.findall(r"<li[^>]*>(.*?)</li>", found.group(1), re.S)
    # Without the number and the player's mark in front of each.
    items = [
        re.sub(r'<span class="pbem-(num|swatch)[^"]*"[^>]*>[^<]*</span>', "", i) for i in items
    ]
    return [html.unescape(re.sub(r"<[^>]+>", "", item)) for item in items]


def _move(client: FlaskClient, game: Game, move: str) -> None:
    db.session.expire_all()
    fresh = db.session.get(Game, game.id)
    assert fresh is not None
    response = client.post(turn_link(game), data={"move": move, "ply": fresh.ply})
    assert response.status_code == 303, response.text


def test_the_moves_read_in_words_with_the_notation_beside(client: FlaskClient) -> None:
    game = start(client, pile="10")
    _move(client, game, "3")
    _move(client, game, "2")
    db.session.expire_all()
    fresh = db.session.get(Game, game.id)
    assert fresh is not None
    names = views.names(fresh)
    first = views.history(fresh)[0].seat
    page = client.get(turn_link(game)).text
    assert _history(page) == [
        f"{names[first]} took 3, leaving 7 3",
        f"{names[1 - first]} took 2, leaving 5 2",
    ]
    assert '<code class="pbem-notation" title="in the game\'s notation">3</code>' in page
    assert 'data-ply="1"' in page and 'data-ply="2"' in page


def test_a_move_without_words_shows_who_and_the_notation(client: FlaskClient) -> None:
    game = start(client, pile="10")
    _move(client, game, "3")
    db.session.execute(update(Move).where(Move.game_id == game.id).values(words=None))
    db.session.commit()
    fresh = db.session.get(Game, game.id)
    assert fresh is not None
    who = views.names(fresh)[views.history(fresh)[0].seat]
    page = client.get(turn_link(game)).text
    assert _history(page) == [f"{who} 3"]
    assert f'<span class="pbem-who">{who}</span> <code>3</code>' in page
