"""Who a token speaks for: its claims checked against the seat or player as stored.

The signature and age are checked by `pbem.links`; here the seat it names must exist, belong to
the player it names, and carry the nonce it was signed with (a rotation revokes older links).
Every kind of link is read here: seat and invitation links, player links (the dashboard),
sign-in links (one hour, one use), erase links (a day), and the two that name an address
("never email me again", the mail settings).
"""

from __future__ import annotations

import secrets
from typing import Protocol

from sqlalchemy import select
from sqlalchemy.orm import joinedload

from pbem import i18n, links
from pbem.config import Settings
from pbem.domain import bounces
from pbem.extensions import db
from pbem.links import SIGNIN_MAX_AGE_SECONDS
from pbem.models import Player, Seat, new_nonce, utcnow


def read_claims(config: Settings, token: str, purpose: str) -> links.LinkClaims:
    """The claims of a genuine, unexpired token for `purpose`; revocation is checked later."""
    return links.read_token(
        config.signing_key, token, purpose, max_age_seconds=config.link_max_age_days * 86400
    )


class StoredSeat(Protocol):
    @property
    def player_id(self) -> int: ...

    @property
    def nonce(self) -> str: ...


def check_claims(claims: links.LinkClaims, seat: StoredSeat | None) -> None:
    """Refuse claims naming a seat that is not there, or issued before its links were rotated."""
    if seat is None or seat.player_id != claims.player_id:
        raise links.ForgedLink(i18n.gettext("This link names a game or seat that does not exist."))
    if not secrets.compare_digest(seat.nonce, claims.nonce):
        raise links.RevokedLink(
            i18n.gettext(
                "This link has been withdrawn: newer links were sent for your seat. Use the link "
                "in your most recent email from this game."
            )
        )


def seat_for_claims(claims: links.LinkClaims) -> Seat:
    """The stored seat genuine claims speak for; links.LinkError when it is gone or rotated."""
    seat = db.session.execute(
        select(Seat)
        .options(joinedload(Seat.game))  # every caller goes on to the game: one round trip
        .where(Seat.game_id == claims.game_id, Seat.seat == claims.seat)
        # The nonce must be read fresh: a seat cached in this session may predate a rotation.
        .execution_options(populate_existing=True)
    ).scalar_one_or_none()
    check_claims(claims, seat)
    assert seat is not None
    return seat


def seat_for_token(config: Settings, token: str, purpose: str) -> Seat:
    """The seat a genuine, current token speaks for; links.LinkError otherwise."""
    return seat_for_claims(read_claims(config, token, purpose))


def signin_token(config: Settings, player: Player) -> str:
    """A fresh sign-in link's token; it replaces any earlier one of the player's."""
    player.signin_nonce = new_nonce()
    return links.player_token(config.signing_key, player.id, player.signin_nonce, links.SIGNIN)


def _player(claims: links.LinkClaims, nonce_of: str) -> Player:
    player = db.session.get(Player, claims.player_id, populate_existing=True)
    if player is None:
        raise links.ForgedLink(i18n.gettext("This link names a player who does not exist."))
    nonce = getattr(player, nonce_of)
    if nonce is None or not secrets.compare_digest(nonce, claims.nonce):
        raise links.RevokedLink(
            i18n.gettext(
                "This link has been withdrawn: it was used already, or you signed out everywhere. "
                "Ask for a fresh link to your games by email."
            )
        )
    return player


def player_for_token(config: Settings, token: str) -> Player:
    """The player a player link (the dashboard's) speaks for; links.LinkError otherwise."""
    return _player(read_claims(config, token, links.PLAYER), "nonce")


def signin_player(config: Settings, token: str) -> Player:
    """The player a sign-in link speaks for, without using it up (its page's GET)."""
    claims = links.read_token(
        config.signing_key, token, links.SIGNIN, max_age_seconds=SIGNIN_MAX_AGE_SECONDS
    )
    return _player(claims, "signin_nonce")


def use_signin(config: Settings, token: str) -> str:
    """Use up a sign-in link (its page's POST) and return a player link's token. The link came
    by mail to the player's address, so the address works: a bounce recorded on it is cleared."""
    player = signin_player(config, token)
    player.signin_nonce = None
    bounces.clear_bounce(player)
    db.session.commit()
    return links.player_token(config.signing_key, player.id, player.nonce)


def erasing_player(config: Settings, token: str) -> Player:
    """The player an erase link speaks for: a day old at most, withdrawn with their player
    links (signing out everywhere, or the erasure itself)."""
    claims = links.read_token(
        config.signing_key, token, links.ERASE, max_age_seconds=links.ERASE_MAX_AGE_SECONDS
    )
    return _player(claims, "nonce")


def blocked_player(config: Settings, token: str) -> Player:
    """The player a "never email me again" link names."""
    return _addressee(config, token, links.BLOCK)


def mail_player(config: Settings, token: str) -> Player:
    """The player a mail settings link (`/mail/<token>`, List-Unsubscribe) names."""
    return _addressee(config, token, links.MAIL)


def _addressee(config: Settings, token: str, purpose: str) -> Player:
    """The player a link about their address names. Such a link never expires and is never
    withdrawn: a mail client keeps List-Unsubscribe, and a reader the block link, as long as the
    email, and neither opens a game."""
    claims = links.read_token(config.signing_key, token, purpose, max_age_seconds=None)
    player = db.session.get(Player, claims.player_id, populate_existing=True)
    if player is None:
        raise links.ForgedLink(i18n.gettext("This link names an address pbem does not know."))
    return player


def block_address(config: Settings, token: str) -> Player:
    """ "Never email me again": the address gets no invitation from now on."""
    player = blocked_player(config, token)
    if player.blocked_at is None:
        player.blocked_at = utcnow()
    db.session.commit()
    return player
