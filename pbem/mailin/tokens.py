"""Reply addresses: `play+<token>@<MAIL_FROM's domain>`, one per seat and ply.

The token is 32 characters of lowercase base32 (RFC 4648, no padding), so a mail server that
changes the case of the local part does no harm. It packs 20 bytes:

- 9: the game id, which is 12 characters of base64url (`pbem.models.new_game_id`), decoded;
- 3: the seat (3 bits) and the ply (21 bits);
- 8: the first 8 bytes of HMAC-SHA256, keyed with SECRET_KEY, over the game id, seat, ply and
  the seat's nonce.

The game id and seat find the seat; the MAC is checked against the seat's current nonce, so
replacing the nonce (`pbem.domain.rotation`) withdraws the seat's reply addresses with its links.
A forger must guess 64 bits, one email per guess.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import re
from collections.abc import Iterable

import idna
from sqlalchemy import select

from pbem import links, mail
from pbem.config import Settings
from pbem.extensions import db
from pbem.models import Seat

LOCAL_PART = "play"
TOKEN_CHARS = 32
_GAME_ID_BYTES = 9
_MAC_BYTES = 8
_SEAT_BITS = 3
_PLY_BITS = 21
_SALT = b"pbem.mailin.reply.v1\x00"
# The address anywhere in a header value or envelope recipient: any case, with or without <>,
# with a display name or not.
ADDRESS_RE = re.compile(rf"\b{LOCAL_PART}\+([a-z2-7]{{{TOKEN_CHARS}}})@", re.IGNORECASE)


def _mac(secret: str, game_id: str, seat: int, ply: int, nonce: str) -> bytes:
    message = _SALT + "\x00".join((game_id, str(seat), str(ply), nonce)).encode()
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


def make_token(secret: str, game_id: str, seat: int, ply: int, nonce: str) -> str | None:
    """The token of a seat's reply address at `ply`; None when the seat cannot have one (a game
    id pbem did not make, a seat or ply beyond what the token holds)."""
    packed = _game_id_bytes(game_id)
    if packed is None or not 0 <= seat < 1 << _SEAT_BITS or not 0 <= ply < 1 << _PLY_BITS:
        return None
    where = (seat << _PLY_BITS | ply).to_bytes(3, "big")
    raw = packed + where + _mac(secret, game_id, seat, ply, nonce)
    return base64.b32encode(raw).decode().lower()


def unpack_token(token: str) -> tuple[str, int, int, bytes] | None:
    """(game id, seat, ply, MAC) as a token claims them, unchecked; None when malformed."""
    if len(token) != TOKEN_CHARS:
        return None
    try:
        raw = base64.b32decode(token.upper())
    except (binascii.Error, ValueError):
        return None
    game_id = base64.urlsafe_b64encode(raw[:_GAME_ID_BYTES]).decode()
    where = int.from_bytes(raw[_GAME_ID_BYTES : _GAME_ID_BYTES + 3], "big")
    return game_id, where >> _PLY_BITS, where & ((1 << _PLY_BITS) - 1), raw[-_MAC_BYTES:]


def reply_address(config: Settings, seat: links.SeatKey, ply: int) -> str | None:
    """Where a reply to the seat's email about `ply` goes: `play+<token>@<domain>`.

    None only for a seat no token can name (see `make_token`): its mail then has no Reply-To.
    """
    token = make_token(config.signing_key, seat.game_id, seat.seat, ply, seat.nonce)
    if token is None:
        return None
    return f"{LOCAL_PART}+{token}@{reply_domain(config)}"


def reply_domain(config: Settings) -> str:
    """MAIL_FROM's domain, lowercase ASCII (IDNA), so a Reply-To never needs SMTPUTF8."""
    domain = mail.mail_domain(config.mail_from).strip().rstrip(".").lower()
    if domain.isascii():
        return domain
    try:
        return idna.encode(domain, uts46=True).decode("ascii")
    except idna.IDNAError:
        return domain


def read_reply_address(config: Settings, address: str) -> tuple[str, int, int] | None:
    """(game id, seat, ply) of a genuine, current reply address; None otherwise.

    `address` may be in any case, bare or in <>, or a whole header value holding it. Reads the
    seat's nonce: a forged token, an unknown seat and a withdrawn address (the nonce replaced
    since) are all None.
    """
    match = ADDRESS_RE.search(address)
    if match is None:
        return None
    claims = unpack_token(match.group(1))
    if claims is None:
        return None
    game_id, seat, ply, mac = claims
    nonce = db.session.execute(
        select(Seat.nonce).where(Seat.game_id == game_id, Seat.seat == seat)
    ).scalar_one_or_none()
    if nonce is None:
        return None
    if not hmac.compare_digest(mac, _mac(config.signing_key, game_id, seat, ply, nonce)):
        return None
    return game_id, seat, ply


def find_reply_address(
    config: Settings, candidates: Iterable[str], limit: int = 8
) -> tuple[str, int, int] | None:
    """The first genuine reply address among `candidates` (envelope recipients, then the To,
    Cc, Delivered-To and X-Original-To values); at most `limit` tokens are checked."""
    checked = 0
    for value in candidates:
        for match in ADDRESS_RE.finditer(value):
            if checked >= limit:
                return None
            checked += 1
            found = read_reply_address(config, match.group(0))
            if found is not None:
                return found
    return None


# -- bounce addresses (VERP) ------------------------------------------------------------------

BOUNCE_LOCAL_PART = "bounce"
_BOUNCE_SALT = b"pbem.mailin.bounce.v1\x00"
_OUTBOX_ID_BYTES = 6
BOUNCE_RE = re.compile(rf"\b{BOUNCE_LOCAL_PART}\+([a-z2-7]{{{TOKEN_CHARS}}})@", re.IGNORECASE)


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


def read_bounce_address(config: Settings, address: str) -> int | None:
    """The outbox row id a genuine bounce address names (`address` in any case, bare, in <>,
    or inside a header value); None when there is none or it is forged."""
    match = BOUNCE_RE.search(address)
    if match is None:
        return None
    try:
        raw = base64.b32decode(match.group(1).upper())
    except (binascii.Error, ValueError):
        return None
    outbox_id = int.from_bytes(raw[:_OUTBOX_ID_BYTES], "big")
    if not hmac.compare_digest(raw[_OUTBOX_ID_BYTES:], _bounce_mac(config.signing_key, outbox_id)):
        return None
    return outbox_id
