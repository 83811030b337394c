"""Playing on after `pbem restore`: the seat links of every game read from the players' fresh
emails and games pages, and each game played to its end through the JSON API (a Flask test
client of an app on the restored database)."""

from __future__ import annotations

import re

import pytest
from flask.testing import FlaskClient
from sqlalchemy import select

from pbem.extensions import db
from pbem.models import Game, OutboxMessage


def fresh_letters() -> list[OutboxMessage]:
    """The emails the restore wrote: one per player, with their games page's new link."""
    return list(
        db.session.execute(select(OutboxMessage).where(OutboxMessage.kind == "signedout")).scalars()
    )


def seat_links(client: FlaskClient, base_url: str) -> dict[str, list[str]]:
    """Each game's seat links, from the games pages the fresh emails link to."""
    seats: dict[str, list[str]] = {}
    for letter in fresh_letters():
        (dashboard,) = re.findall(re.escape(base_url) + r"(/me/[^\s\"<]+)", letter.text)
        page = client.get(dashboard)
        assert page.status_code == 200
        for link in set(re.findall(r'href="(/play/[^"]+)"', page.get_data(as_text=True))):
            found = re.search(r"/api/games/([\w-]+)/", client.get(link).get_data(as_text=True))
            assert found, link
            seats.setdefault(found[1], []).append(link)
    return seats


def move(client: FlaskClient, game_id: str, link: str) -> None:
    """The first legal move of the seat whose link this is."""
    auth = {"Authorization": f"Bearer {link.split('/play/')[1]}"}
    legal = client.get(f"/api/games/{game_id}/legal", headers=auth).get_json()
    assert legal["your_turn"], legal
    made = client.post(
        f"/api/games/{game_id}/moves",
        json={"move": legal["moves"][0], "ply": legal["ply"]},
        headers=auth,
    )
    assert made.status_code == 202, made.get_json()


def play_to_end(client: FlaskClient, game_id: str, links: list[str], plies: int = 400) -> None:
    """Each turn by the seat whose turn it is, until the game is over."""
    for _ in range(plies):
        db.session.expire_all()
        game = db.session.get(Game, game_id)
        assert game is not None
        if game.status != "running":
            return
        for link in links:
            auth = {"Authorization": f"Bearer {link.split('/play/')[1]}"}
            if client.get(f"/api/games/{game_id}/legal", headers=auth).get_json()["your_turn"]:
                move(client, game_id, link)
                break
        else:
            pytest.fail(f"no seat of game {game_id} may move: {links}")
    pytest.fail(f"game {game_id} did not end in {plies} plies")
