"""A link is a capability: each opens what it was made for and no more, and every one of them
can be withdrawn."""

from __future__ import annotations

import re
import time

import itsdangerous.timed
import pytest
from flask import Flask
from flask.testing import FlaskClient

from pbem import links
from pbem.domain import access, rotation
from pbem.extensions import db, settings
from pbem.models import Player
from tests.web.flow import EMAILS, confirmed, mails, start, turn_link


def _links_to(address: str, kind: str) -> list[str]:
    found: list[str] = []
    for row in mails(to=address):
        found += re.findall(rf"http://pbem\.test(/{kind}/[^\s\"<]+)", row.text)
    return found


def test_an_invitation_link_of_one_game_lists_no_other_game(client: FlaskClient) -> None:
    # Finding: /me/<invite token of game A> listed working seat links of the player's other
    # games.
    playing = start(client, "gorami", board="16")
    confirmed(client, "mmw", emails=[EMAILS[1], EMAILS[0]])
    token = _links_to(EMAILS[0], "invite")[-1].rsplit("/", 1)[1]
    page = client.get(f"/me/{token}")
    assert page.status_code == 403
    assert playing.id not in page.text and "/play/" not in page.text


def test_a_seat_link_opens_its_own_game_only(client: FlaskClient) -> None:
    first, second = start(client), start(client)
    token = turn_link(first).rsplit("/", 1)[1]
    assert client.get(f"/me/{token}").status_code == 403
    assert client.get(f"/api/games/{second.id}?token={token}").status_code == 403


def test_revoking_a_player_withdraws_links_in_every_game(client: FlaskClient) -> None:
    # Finding: after `pbem rotate-links A 0` a link to game C harvested through game A still
    # worked. Now the player's links are withdrawn everywhere at once.
    start(client), start(client)
    seat_links = _links_to(EMAILS[0], "play")
    assert len(seat_links) >= 2
    assert {client.get(p).status_code for p in seat_links} == {200}
    rotation.rotate_player_links(settings(), EMAILS[0], notify=False)
    assert {client.get(p).status_code for p in seat_links} == {403}
    assert {client.get(p).status_code for p in _links_to(EMAILS[0], "me")} == {403}
    # The other player's links are untouched.
    assert {client.get(p).status_code for p in _links_to(EMAILS[1], "play")} == {200}


def test_a_signin_link_lives_an_hour_and_works_once(
    app: Flask, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Finding: sign-in links could not be revoked for 7 days.
    config = settings()
    player = start(app.test_client()).seats[0].player
    token = access.signin_token(config, player)
    db.session.commit()
    issued = time.time()
    monkeypatch.setattr(itsdangerous.timed.time, "time", lambda: issued + 3590)
    assert access.signin_player(config, token).id == player.id
    monkeypatch.setattr(itsdangerous.timed.time, "time", lambda: issued + 3700)
    with pytest.raises(links.ExpiredLink, match="works for 60 minutes"):
        access.signin_player(config, token)
    monkeypatch.undo()
    access.use_signin(config, token)
    with pytest.raises(links.RevokedLink):
        access.use_signin(config, token)


def test_signing_out_everywhere_withdraws_the_links_a_signin_handed_out(app: Flask) -> None:
    # Finding: the links a sign-in handed out lasted 90 days with no way to withdraw them.
    config = settings()
    client = app.test_client()
    start(client)
    player = Player.query.filter_by(email=EMAILS[0]).one()
    signin = access.signin_token(config, player)
    db.session.commit()
    used = client.post(f"/signin/{signin}")
    dashboard = used.headers["Location"]
    assert client.get(dashboard).status_code == 200
    assert client.post(f"{dashboard}/signout").status_code == 200
    assert client.get(dashboard).status_code == 403
