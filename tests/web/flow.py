"""Helpers for the page tests: start games through the web and read links from the outbox."""

from __future__ import annotations

import re

from flask.testing import FlaskClient
from sqlalchemy import select

from pbem.extensions import db
from pbem.models import Game, OutboxMessage

EMAILS = ["alice@example.org", "bob@example.org"]


def links_in(row: OutboxMessage, kind: str) -> list[str]:
    """Paths (without the BASE_URL) of one kind, e.g. 'play' or 'invite', in a message."""
    return re.findall(rf"http://pbem\.test(/{kind}/[^\s\"<]+)", row.text)


def mails(to: str | None = None, kind: str | None = None) -> list[OutboxMessage]:
    db.session.expire_all()
    query = select(OutboxMessage).order_by(OutboxMessage.id)
    if to:
        query = query.where(OutboxMessage.to == to)
    if kind:
        query = query.where(OutboxMessage.kind == kind)
    return list(db.session.execute(query).scalars())


def fresh_game(game_id: str) -> Game:
    """The game's row as the database holds it now, not as this session last saw it."""
    db.session.expire_all()
    game = db.session.get(Game, game_id)
    assert game is not None
    return game


def create(client: FlaskClient, game: str = "countdown", emails=EMAILS, **options: str) -> Game:
    response = client.post("/", data={"game": game, "emails": "\n".join(emails), **options})
    assert response.status_code == 303, response.text
    game_id = response.headers["Location"].rsplit("/", 1)[1]
    found = db.session.get(Game, game_id)
    assert found is not None
    return found


def confirmation_link(game: Game) -> str:
    """The organiser's link in the one email a game started from the form sends."""
    (row,) = [m for m in mails(kind="confirm") if m.game_id == game.id]
    return links_in(row, "invite")[0]


def confirmed(client: FlaskClient, game: str = "countdown", emails=EMAILS, **options: str) -> Game:
    """A game whose organiser has confirmed (and so taken their seat): the others invited."""
    created = create(client, game, emails, **options)
    assert client.post(confirmation_link(created)).status_code == 200
    db.session.expire_all()
    found = db.session.get(Game, created.id)
    assert found is not None and found.confirmed_at is not None
    return found


def start(client: FlaskClient, game: str = "countdown", emails=EMAILS, **options: str) -> Game:
    """A running game: the organiser's confirmation, then every invitation, accepted by POST
    through its emailed link."""
    created = create(client, game, emails, **options)
    for kind in ("confirm", "invite"):
        for row in mails(kind=kind):
            if row.game_id == created.id:
                (path,) = links_in(row, "invite")
                assert client.post(path).status_code == 200
    db.session.expire_all()
    found = db.session.get(Game, created.id)
    assert found is not None and found.status == "running"
    return found


def turn_link(game: Game) -> str:
    """The game page link from the latest email to the seat to move."""
    db.session.expire_all()
    fresh = db.session.get(Game, game.id)
    assert fresh is not None and fresh.to_move is not None
    address = fresh.seats[fresh.to_move].player.email
    rows = [m for m in mails(to=address) if m.game_id == game.id and links_in(m, "play")]
    return links_in(rows[-1], "play")[0]
