"""Revoking a seat's links: a new nonce refuses every older link; the player may get a fresh one."""

from __future__ import annotations

import pytest
from flask import Flask

from pbem import links
from pbem.domain import access, rotation, starting
from pbem.domain.errors import NotFound
from pbem.extensions import db, settings
from pbem.models import OutboxMessage
from tests.domain.flow import EMAILS, mails, start


def test_rotating_a_seat_revokes_its_links(app: Flask) -> None:
    config = settings()
    game = start()
    seat = game.seats[0]
    old = links.token_for(config.signing_key, seat, links.SEAT)
    assert access.seat_for_token(config, old, links.SEAT).id == seat.id
    outbox_ids = rotation.rotate_seat_links(config, game.id, 0)
    with pytest.raises(links.RevokedLink, match="withdrawn"):
        access.seat_for_token(config, old, links.SEAT)
    fresh = db.session.get(OutboxMessage, outbox_ids[0])
    assert fresh is not None and fresh.kind == "links"
    token = fresh.text.split("http://pbem.test/play/")[1].split()[0]
    assert access.seat_for_token(config, token, links.SEAT).id == seat.id
    with pytest.raises(NotFound):
        rotation.rotate_seat_links(config, game.id, 5)


def test_an_invited_seat_gets_a_fresh_invitation_and_a_silent_rotation_writes_nothing(
    app: Flask,
) -> None:
    config = settings()
    game_id = starting.create_game(config, "countdown", {}, EMAILS).game_id
    written = len(mails())
    assert rotation.rotate_seat_links(config, game_id, 1, notify=False) == []
    assert len(mails()) == written
    (row_id,) = rotation.rotate_seat_links(config, game_id, 1)
    row = db.session.get(OutboxMessage, row_id)
    assert row is not None and row.kind == "links"
    assert "http://pbem.test/invite/" in row.text and "http://pbem.test/play/" not in row.text
    token = row.text.split("http://pbem.test/invite/")[1].split()[0]
    seat = access.seat_for_token(config, token, links.INVITE)
    assert (seat.game_id, seat.seat) == (game_id, 1)
