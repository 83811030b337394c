"""Who a link speaks for: a genuine token's claims checked against the seat or player as stored."""

from __future__ import annotations

import time
from types import SimpleNamespace

import pytest
from flask import Flask

from pbem import links
from pbem.domain import access
from pbem.extensions import db, settings
from tests.domain.flow import start


def test_a_seat_token_speaks_for_its_seat_and_only_for_its_purpose(app: Flask) -> None:
    config = settings()
    game = start()
    seat = game.seats[1]
    token = links.token_for(config.signing_key, seat, links.SEAT)
    claims = access.read_claims(config, token, links.SEAT)
    assert (claims.game_id, claims.seat, claims.player_id) == (game.id, 1, seat.player_id)
    assert access.seat_for_token(config, token, links.SEAT).id == seat.id
    with pytest.raises(links.WrongLink):
        access.seat_for_token(config, token, links.INVITE)


def test_links_expire_after_the_configured_days(
    app: Flask, monkeypatch: pytest.MonkeyPatch
) -> None:
    config = settings()
    seat = start().seats[0]
    token = links.token_for(config.signing_key, seat, links.SEAT)
    later = time.time() + (config.link_max_age_days + 1) * 86400
    monkeypatch.setattr(time, "time", lambda: later)
    with pytest.raises(links.ExpiredLink, match=f"valid for {config.link_max_age_days} days"):
        access.read_claims(config, token, links.SEAT)


def test_claims_naming_no_such_seat_or_another_player_are_forged(app: Flask) -> None:
    config = settings()
    game = start()
    seat = game.seats[0]
    nowhere = SimpleNamespace(game_id=game.id, seat=7, player_id=seat.player_id, nonce=seat.nonce)
    other = SimpleNamespace(
        game_id=game.id, seat=0, player_id=game.seats[1].player_id, nonce=seat.nonce
    )
    for fake in (nowhere, other):
        token = links.token_for(config.signing_key, fake, links.SEAT)
        with pytest.raises(links.ForgedLink, match="does not exist"):
            access.seat_for_token(config, token, links.SEAT)


def test_check_claims_refuses_a_missing_seat_and_an_old_nonce() -> None:
    claims = links.LinkClaims(links.SEAT, "g", 0, 1, "nonce-1")
    access.check_claims(claims, SimpleNamespace(player_id=1, nonce="nonce-1"))
    with pytest.raises(links.ForgedLink):
        access.check_claims(claims, None)
    with pytest.raises(links.ForgedLink):
        access.check_claims(claims, SimpleNamespace(player_id=2, nonce="nonce-1"))
    with pytest.raises(links.RevokedLink, match="withdrawn"):
        access.check_claims(claims, SimpleNamespace(player_id=1, nonce="nonce-2"))


def test_only_a_player_link_opens_the_players_games(app: Flask) -> None:
    config = settings()
    game = start()
    seat = game.seats[0]
    player = seat.player
    # A seat or invitation link opens its own game only.
    for purpose in (links.SEAT, links.INVITE):
        token = links.token_for(config.signing_key, seat, purpose)
        with pytest.raises(links.WrongLink):
            access.player_for_token(config, token)
    token = links.player_token(config.signing_key, player.id, player.nonce)
    assert access.player_for_token(config, token).id == player.id
    gone = links.player_token(config.signing_key, 999, "x")
    with pytest.raises(links.ForgedLink, match="player who does not exist"):
        access.player_for_token(config, gone)
    with pytest.raises(links.ForgedLink):
        access.player_for_token(config, "not-a-token")


def test_a_signin_link_works_once_and_gives_a_player_link(app: Flask) -> None:
    config = settings()
    player = start().seats[0].player
    token = access.signin_token(config, player)
    db.session.commit()
    assert access.signin_player(config, token).id == player.id  # a GET uses up nothing
    assert access.signin_player(config, token).id == player.id
    player_token = access.use_signin(config, token)
    assert access.player_for_token(config, player_token).id == player.id
    with pytest.raises(links.RevokedLink):
        access.use_signin(config, token)
    # A newer sign-in link withdraws the older one.
    first = access.signin_token(config, player)
    second = access.signin_token(config, player)
    db.session.commit()
    with pytest.raises(links.RevokedLink):
        access.signin_player(config, first)
    assert access.signin_player(config, second).id == player.id
