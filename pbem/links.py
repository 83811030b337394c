"""Signed links and addresses: what an email carries that proves who answers it.

Links are itsdangerous tokens over (purpose, game, seat, player, nonce). A token proves who sent
a request without accounts or passwords, and its purpose bounds what it opens: a seat link its
own game, an invitation link its invitation, a player link the player's dashboard. The nonce of
the seat (or player) is part of it, so replacing the nonce (`pbem.domain.rotation`) revokes
every link issued before. Revocation needs the database and is checked by `pbem.domain.access`.

Addresses are a seat's reply address, `play+<token>@<MAIL_FROM's domain>`, one per seat and
ply, and a message's bounce address, `bounce+<token>@…` (VERP): made here for the letters and
the sending, read back by the mail-in edge (`pbem.mailin.tokens`, which finds them in incoming
mail and looks up the seat's nonce).
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
from dataclasses import dataclass
from typing import Protocol

import idna
from itsdangerous import BadSignature, SignatureExpired, URLSafeTimedSerializer

from pbem import i18n
from pbem.config import Settings
from pbem.mail.building import bare_domain, signing_domain

INVITE = "invite"  # the invitation page: GET shows, POST accepts
SEAT = "seat"  # the game page of one seat, its moves and its API calls
PLAYER = "player"  # the player's dashboard: every game of theirs, and signing out everywhere
SIGNIN = "signin"  # one use, short-lived: its POST hands out a player link
BLOCK = "block"  # "never email me again": its POST blocks the address from invitations
MAIL = "mail"  # the player's mail preference: GET shows it, a one-click POST turns turn mail off
ERASE = "erase"  # emailed when a player asks to be forgotten: GET shows, POST erases

_SALT = "pbem.links.v1"
# A sign-in link is asked for by anyone who types an address: it lives an hour, and works once
# (`pbem.domain.access`).
SIGNIN_MAX_AGE_SECONDS = 3600
# An erase link proves the mailbox is the player's now, not when some older email was sent: it
# lives a day, and goes with every player link when they sign out everywhere or are erased.
ERASE_MAX_AGE_SECONDS = 86400


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
        raise ExpiredLink(_expired(purpose, max_age_seconds)) from exc
    except BadSignature as exc:
        raise ForgedLink(
            i18n.gettext(
                "This link is not valid: it is incomplete or has been changed. Open the link "
                "from your email again, making sure it is copied in full."
            )
        ) from exc
    try:
        kind, game_id, seat, player_id, nonce = payload
        claims = LinkClaims(str(kind), str(game_id), int(seat), int(player_id), str(nonce))
    except (TypeError, ValueError) as exc:
        raise ForgedLink(
            i18n.gettext("This link is not valid: it does not name a game and seat.")
        ) from exc
    if claims.purpose != purpose:
        raise WrongLink(str(_ELSEWHERE.get(claims.purpose, _ANOTHER_PAGE)))
    return claims


def _expired(purpose: str, max_age_seconds: int) -> str:
    if purpose == SIGNIN:
        return i18n.ngettext(
            "This sign-in link has expired: it works for %(num)d minute. Ask for a fresh one on "
            "the sign-in page.",
            "This sign-in link has expired: it works for %(num)d minutes. Ask for a fresh one "
            "on the sign-in page.",
            max_age_seconds // 60,
        )
    if purpose == ERASE:
        return i18n.ngettext(
            "This link to erase your data has expired: it works for %(num)d hour. Ask for a "
            "fresh one on your games page.",
            "This link to erase your data has expired: it works for %(num)d hours. Ask for a "
            "fresh one on your games page.",
            max_age_seconds // 3600,
        )
    return i18n.ngettext(
        "This link has expired: links stay valid for %(num)d day. Your next email from this "
        "game brings a fresh one; if you are waiting for one, ask the person who started the "
        "game to send your seat new links.",
        "This link has expired: links stay valid for %(num)d days. Your next email from this "
        "game brings a fresh one; if you are waiting for one, ask the person who started the "
        "game to send your seat new links.",
        max_age_seconds // 86400,
    )


# A genuine link opened where it does not belong, by what it is for.
_ELSEWHERE = {
    INVITE: i18n.lazy_gettext(
        "This link is for an invitation, not this page. Open the link exactly as it is in "
        "your email."
    ),
    SEAT: i18n.lazy_gettext(
        "This link is for a game page, not this page. Open the link exactly as it is in your email."
    ),
    PLAYER: i18n.lazy_gettext(
        "This link is for your list of games, not this page. Open the link exactly as it is "
        "in your email."
    ),
    SIGNIN: i18n.lazy_gettext(
        "This link is for signing in, not this page. Open the link exactly as it is in your email."
    ),
    BLOCK: i18n.lazy_gettext(
        "This link is for refusing invitations, not this page. Open the link exactly as it is "
        "in your email."
    ),
    MAIL: i18n.lazy_gettext(
        "This link is for your mail settings, not this page. Open the link exactly as it is "
        "in your email."
    ),
    ERASE: i18n.lazy_gettext(
        "This link is for erasing your data, not this page. Open the link exactly as it is in "
        "your email."
    ),
}
_ANOTHER_PAGE = i18n.lazy_gettext(
    "This link is for another page, not this one. Open the link exactly as it is in your email."
)


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


def erase_url(config: Settings, player_id: int, nonce: str) -> str:
    """The link in the email that confirms a player's request to be erased."""
    return f"{config.base_url}/erase/{player_token(config.signing_key, player_id, nonce, ERASE)}"


def block_url(config: Settings, player_id: int) -> str:
    """ "Never email me again": not revocable and never expiring, so it always works."""
    return f"{config.base_url}/block/{player_token(config.signing_key, player_id, '', BLOCK)}"


def mail_settings_url(config: Settings, player_id: int) -> str:
    """The player's mail preference and one-click unsubscribe (RFC 8058), as every turn and
    digest email carries it: like the block link, never revoked and never expiring, since a
    mail client may keep the List-Unsubscribe header for years."""
    return f"{config.base_url}/mail/{player_token(config.signing_key, player_id, '', MAIL)}"


# -- reply addresses --------------------------------------------------------------------------
# The token is 32 characters of lowercase base32 (RFC 4648, no padding), so a mail server that
# changes the case of the local part does no harm. It packs 20 bytes:
#
# - 9: the game id, which is 12 characters of base64url (`pbem.models.new_game_id`), decoded;
# - 3: the seat (3 bits) and the ply (21 bits);
# - 8: the first 8 bytes of HMAC-SHA256, keyed with SECRET_KEY, over the game id, seat, ply and
#   the seat's nonce.
#
# The game id and seat find the seat; the MAC is checked against the seat's current nonce, so
# replacing the nonce (`pbem.domain.rotation`) withdraws the seat's reply addresses with its
# links. A forger must guess 64 bits, one email per guess.

REPLY_LOCAL_PART = "play"
ADDRESS_TOKEN_CHARS = 32  # a reply or bounce address's token
_GAME_ID_BYTES = 9
_MAC_BYTES = 8
_SEAT_BITS = 3
_PLY_BITS = 21
_REPLY_SALT = b"pbem.mailin.reply.v1\x00"


def _reply_mac(secret: str, game_id: str, seat: int, ply: int, nonce: str) -> bytes:
    message = _REPLY_SALT + "\x00".join((game_id, str(seat), str(ply), nonce)).encode()
    return hmac.new(secret.encode(), message, hashlib.sha256).digest()[:_MAC_BYTES]


def _game_id_bytes(game_id: str) -> bytes | None:
    """The game id decoded, when it is the 12 base64url characters pbem makes."""
    if len(game_id) != 12:
        return None
    try:
        packed = base64.urlsafe_b64decode(game_id)
    except (binascii.Error, ValueError):
        return None
    if base64.urlsafe_b64encode(packed).decode() != game_id:
        return None
    return packed


def reply_token(secret: str, game_id: str, seat: int, ply: int, nonce: str) -> str | None:
    """The token of a seat's reply address at `ply`; None when the seat cannot have one (a game
    id pbem did not make, a seat or ply beyond what the token holds)."""
    packed = _game_id_bytes(game_id)
    if packed is None or not 0 <= seat < 1 << _SEAT_BITS or not 0 <= ply < 1 << _PLY_BITS:
        return None
    where = (seat << _PLY_BITS | ply).to_bytes(3, "big")
    raw = packed + where + _reply_mac(secret, game_id, seat, ply, nonce)
    return base64.b32encode(raw).decode().lower()


def unpack_reply_token(token: str) -> tuple[str, int, int, bytes] | None:
    """(game id, seat, ply, MAC) as a token claims them, unchecked; None when malformed."""
    if len(token) != ADDRESS_TOKEN_CHARS:
        return None
    try:
        raw = base64.b32decode(token.upper())
    except (binascii.Error, ValueError):
        return None
    game_id = base64.urlsafe_b64encode(raw[:_GAME_ID_BYTES]).decode()
    where = int.from_bytes(raw[_GAME_ID_BYTES : _GAME_ID_BYTES + 3], "big")
    return game_id, where >> _PLY_BITS, where & ((1 << _PLY_BITS) - 1), raw[-_MAC_BYTES:]


def reply_mac_fits(secret: str, game_id: str, seat: int, ply: int, nonce: str, mac: bytes) -> bool:
    """Whether `mac`, from a token `unpack_reply_token` read, is the seat's with this nonce."""
    return hmac.compare_digest(mac, _reply_mac(secret, game_id, seat, ply, nonce))


def reply_address(config: Settings, seat: SeatKey, ply: int) -> str | None:
    """Where a reply to the seat's email about `ply` goes: `play+<token>@<domain>`.

    None only for a seat no token can name (see `reply_token`): its mail then has no Reply-To.
    """
    token = reply_token(config.signing_key, seat.game_id, seat.seat, ply, seat.nonce)
    if token is None:
        return None
    return f"{REPLY_LOCAL_PART}+{token}@{reply_domain(config)}"


def reply_domain(config: Settings) -> str:
    """MAIL_FROM's domain, lowercase ASCII (IDNA), so a Reply-To never needs SMTPUTF8; as it is
    when IDNA refuses it."""
    try:
        return signing_domain(config.mail_from)
    except idna.IDNAError:
        return bare_domain(config.mail_from)


# -- bounce addresses (VERP) ------------------------------------------------------------------

BOUNCE_LOCAL_PART = "bounce"
_BOUNCE_SALT = b"pbem.mailin.bounce.v1\x00"
_OUTBOX_ID_BYTES = 6


def _bounce_mac(secret: str, outbox_id: int) -> bytes:
    message = _BOUNCE_SALT + str(outbox_id).encode()
    return hmac.new(secret.encode(), message, hashlib.sha256).digest()[:14]


def bounce_address(config: Settings, outbox_id: int) -> str:
    """The envelope sender of outbox row `outbox_id`: `bounce+<token>@<domain>`, where a bounce
    of that one message comes back (VERP). The token is 32 characters of lowercase base32 over
    the row id (6 bytes) and 14 bytes of HMAC, so a forged bounce cannot mark an address."""
    raw = outbox_id.to_bytes(_OUTBOX_ID_BYTES, "big") + _bounce_mac(config.signing_key, outbox_id)
    token = base64.b32encode(raw).decode().lower()
    return f"{BOUNCE_LOCAL_PART}+{token}@{reply_domain(config)}"


def read_bounce_token(config: Settings, token: str) -> int | None:
    """The outbox row id a genuine bounce address's token names (in any case); None when it is
    forged or malformed."""
    try:
        raw = base64.b32decode(token.upper())
    except (binascii.Error, ValueError):
        return None
    outbox_id = int.from_bytes(raw[:_OUTBOX_ID_BYTES], "big")
    if not hmac.compare_digest(raw[_OUTBOX_ID_BYTES:], _bounce_mac(config.signing_key, outbox_id)):
        return None
    return outbox_id
