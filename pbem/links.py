"""Signed links: itsdangerous tokens over (purpose, game, seat, player, nonce).

A token proves who sent a request without accounts or passwords, and its purpose bounds what it
opens: a seat link its own game, an invitation link its invitation, a player link the player's
dashboard. The nonce of the seat (or player) is part of it, so replacing the nonce
(`pbem.domain.rotation`) revokes every link issued before. Revocation needs the database and is
checked by `pbem.domain.access`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from itsdangerous import BadSignature, SignatureExpired, URLSafeTimedSerializer

from pbem.config import Settings

INVITE = "invite"  # the invitation page: GET shows, POST accepts
SEAT = "seat"  # the game page of one seat, its moves and its API calls
PLAYER = "player"  # the player's dashboard: every game of theirs, and signing out everywhere
SIGNIN = "signin"  # one use, short-lived: its POST hands out a player link
BLOCK = "block"  # "never email me again": its POST blocks the address from invitations
MAIL = "mail"  # the player's mail preference: GET shows it, a one-click POST turns turn mail off

_SALT = "pbem.links.v1"


class SeatKey(Protocol):
    """A seat as links name it: an ORM seat, a row of seat columns, or a token's claims."""

    @property
    def game_id(self) -> str: ...

    @property
    def seat(self) -> int: ...

    @property
    def player_id(self) -> int: ...

    @property
    def nonce(self) -> str: ...


@dataclass(frozen=True)
class LinkClaims:
    purpose: str
    game_id: str
    seat: int
    player_id: int
    nonce: str


class LinkError(Exception):
    """A link was refused. `code` is for the API, the message for people."""

    code = "bad_token"
    status = 403

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class ForgedLink(LinkError):
    code = "bad_token"


class NoToken(LinkError):
    """A request that carried no token at all: the API answers 401 (`pbem.web.errors`)."""

    code = "no_token"


class ExpiredLink(LinkError):
    code = "expired_token"


class RevokedLink(LinkError):
    code = "revoked_token"


class WrongLink(LinkError):
    """A genuine link used where it does not belong: another seat, game or purpose."""

    code = "wrong_token"


def _serializer(secret: str) -> URLSafeTimedSerializer:
    return URLSafeTimedSerializer(secret, salt=_SALT)


def make_token(secret: str, claims: LinkClaims) -> str:
    payload = [claims.purpose, claims.game_id, claims.seat, claims.player_id, claims.nonce]
    return _serializer(secret).dumps(payload)


def read_token(secret: str, token: str, purpose: str, max_age_seconds: int | None) -> LinkClaims:
    """The claims of a genuine, unexpired token made for `purpose`; LinkError otherwise.

    Revocation needs the database and is checked by `pbem.domain.access`.
    """
    try:
        payload = _serializer(secret).loads(token, max_age=max_age_seconds)
    except SignatureExpired as exc:
        assert max_age_seconds is not None
        if purpose == SIGNIN:
            raise ExpiredLink(
                f"This sign-in link has expired: it works for {max_age_seconds // 60} minutes. "
                "Ask for a fresh one on the sign-in page."
            ) from exc
        days = max_age_seconds // 86400
        raise ExpiredLink(
            f"This link has expired: links stay valid for {days} days. Your next email from "
            "this game brings a fresh one; if you are waiting for one, ask the person who "
            "started the game to send your seat new links."
        ) from exc
    except BadSignature as exc:
        raise ForgedLink(
            "This link is not valid: it is incomplete or has been changed. Open the link from "
            "your email again, making sure it is copied in full."
        ) from exc
    try:
        kind, game_id, seat, player_id, nonce = payload
        claims = LinkClaims(str(kind), str(game_id), int(seat), int(player_id), str(nonce))
    except (TypeError, ValueError) as exc:
        raise ForgedLink("This link is not valid: it does not name a game and seat.") from exc
    if claims.purpose != purpose:
        what = {
            INVITE: "an invitation",
            SEAT: "a game page",
            PLAYER: "your list of games",
            SIGNIN: "signing in",
            BLOCK: "refusing invitations",
            MAIL: "your mail settings",
        }.get(claims.purpose, "another page")
        raise WrongLink(
            f"This link is for {what}, not this page. Open the link exactly as it is in your email."
        )
    return claims


def token_for(secret: str, seat: SeatKey, purpose: str) -> str:
    """A token for one seat of a game."""
    claims = LinkClaims(purpose, seat.game_id, seat.seat, seat.player_id, seat.nonce)
    return make_token(secret, claims)


def seat_url(config: Settings, seat: SeatKey) -> str:
    """The absolute URL of a seat's game page, as emails carry it."""
    return f"{config.base_url}/play/{token_for(config.signing_key, seat, SEAT)}"


def invite_url(config: Settings, seat: SeatKey) -> str:
    return f"{config.base_url}/invite/{token_for(config.signing_key, seat, INVITE)}"


def player_token(secret: str, player_id: int, nonce: str, purpose: str = PLAYER) -> str:
    """A token naming a player alone (no game, no seat)."""
    return make_token(secret, LinkClaims(purpose, "", -1, player_id, nonce))


def player_url(config: Settings, player_id: int, nonce: str) -> str:
    """The player's dashboard, as every email's "All your games" link carries it."""
    return f"{config.base_url}/me/{player_token(config.signing_key, player_id, nonce)}"


def block_url(config: Settings, player_id: int) -> str:
    """ "Never email me again": not revocable and never expiring, so it always works."""
    return f"{config.base_url}/block/{player_token(config.signing_key, player_id, '', BLOCK)}"


def mail_settings_url(config: Settings, player_id: int) -> str:
    """The player's mail preference and one-click unsubscribe (RFC 8058), as every turn and
    digest email carries it: like the block link, never revoked and never expiring, since a
    mail client may keep the List-Unsubscribe header for years."""
    return f"{config.base_url}/mail/{player_token(config.signing_key, player_id, '', MAIL)}"
