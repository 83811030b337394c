"""Reply and bounce addresses as the mail-in edge finds them in incoming mail.

`pbem.links` makes both and checks their tokens: a seat's reply address `play+<token>@…`, one
per seat and ply, and a message's bounce address `bounce+<token>@…` (VERP). This module finds
them in header values and envelope recipients (any case, bare or in <>, with a display name or
not) and, for a reply address, reads the seat's current nonce, against which its MAC is checked:
replacing the nonce (`pbem.domain.rotation`) withdraws the seat's reply addresses with its links.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from sqlalchemy import select

from pbem import links
from pbem.config import Settings
from pbem.extensions import db
from pbem.models import Seat

_TOKEN = f"([a-z2-7]{{{links.ADDRESS_TOKEN_CHARS}}})"
# The address anywhere in a header value or envelope recipient.
ADDRESS_RE = re.compile(rf"\b{links.REPLY_LOCAL_PART}\+{_TOKEN}@", re.IGNORECASE)
BOUNCE_RE = re.compile(rf"\b{links.BOUNCE_LOCAL_PART}\+{_TOKEN}@", re.IGNORECASE)


def read_reply_address(config: Settings, address: str) -> tuple[str, int, int] | None:
    """(game id, seat, ply) of a genuine, current reply address; None otherwise.

    `address` may be in any case, bare or in <>, or a whole header value holding it. Reads the
    seat's nonce: a forged token, an unknown seat and a withdrawn address (the nonce replaced
    since) are all None.
    """
    match = ADDRESS_RE.search(address)
    if match is None:
        return None
    claims = links.unpack_reply_token(match.group(1))
    if claims is None:
        return None
    game_id, seat, ply, mac = claims
    nonce = db.session.execute(
        select(Seat.nonce).where(Seat.game_id == game_id, Seat.seat == seat)
    ).scalar_one_or_none()
    if nonce is None:
        return None
    if not links.reply_mac_fits(config.signing_key, game_id, seat, ply, nonce, mac):
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


def read_bounce_address(config: Settings, address: str) -> int | None:
    """The outbox row id a genuine bounce address names (`address` in any case, bare, in <>,
    or inside a header value); None when there is none or it is forged."""
    match = BOUNCE_RE.search(address)
    return None if match is None else links.read_bounce_token(config, match.group(1))
