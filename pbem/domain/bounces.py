"""Addresses whose mail bounces: marked once, told to the organisers, cleared by a sign-in.

Mail to an address comes back permanently (a 5xx answer when sending, `pbem.domain.delivery`, or
a delivery report arriving at its bounce address, `pbem.mailin.handle`): `mark_bouncing` records
it on the player, and from then on no game letter is written to them (`letters._about` makes
them unwanted) until the player signs in again, which proves the address works
(`access.use_signin` calls `clear_bounce`). Sign-in mail still goes, so that they can.

The organisers of the player's games are told once, by name (`letters.bounced`): the address
itself is never in the letter (an address is shown only to its owner), nor in the server's
answer quoted in it.
"""

from __future__ import annotations

import re
from typing import Any

from sqlalchemy import Connection, bindparam, select, update
from sqlalchemy.orm import Session, selectinload

from pbem.config import Settings
from pbem.domain import letters
from pbem.domain.outbox import Letter, write_letters
from pbem.models import ACTIVE, INVITING, RUNNING, Game, OutboxMessage, Player, Seat, utcnow

# What is kept of a mail server's answer, and how much of it a letter quotes.
REASON_CHARS = 1000
QUOTED_CHARS = 300
# Where the address stood in a quoted answer ("550 5.1.1 <bob@…>: user unknown").
HIDDEN_ADDRESS = "[their address]"

_RECIPIENT = (
    select(Player.id, Player.email, Player.name)
    .join(OutboxMessage, OutboxMessage.to == Player.email)
    .where(OutboxMessage.id == bindparam("outbox_id"))
)
# Only the first bounce is recorded: the UPDATE of a second finds nothing to change, so the
# organisers are told once even when two workers mark the same address at once.
_MARK = (
    update(Player)
    .where(Player.id == bindparam("player_id"), Player.bounced_at.is_(None))
    .values(bounced_at=bindparam("at"), bounce_reason=bindparam("reason"))
)
# The games whose organiser hears of it: running, or inviting once the organiser confirmed, where
# the player still holds a seat (not one they left, nor an invitation that lapsed).
_GAMES = (
    select(Game.id, Game.organiser_id)
    .join(Seat, Seat.game_id == Game.id)
    .where(
        Seat.player_id == bindparam("player_id"),
        Seat.state == ACTIVE,
        Seat.expired_at.is_(None),
        Game.status.in_([RUNNING, INVITING]),
        Game.confirmed_at.is_not(None),
        Game.organiser_id.is_not(None),
        Game.organiser_id != bindparam("player_id"),
    )
    .order_by(Game.created_at, Game.id)
)


def mark_bouncing(
    conn: Connection, config: Settings, outbox_id: int, reason: str, notify: bool = True
) -> list[int]:
    """Mark the recipient of outbox row `outbox_id` as bouncing, with `reason` (the server's
    answer), in the caller's transaction, which the caller commits.

    The first bounce wins: an address already marked changes nothing and tells nobody. When
    `notify`, each organiser of the player's running or inviting games (the player excepted,
    and organisers whose own mail bounces) gets one `bounced` letter. Returns the ids of the
    letters written, for the caller to send after its commit. A row whose address belongs to no
    player (or a row that is gone) marks nothing.
    """
    recipient = conn.execute(_RECIPIENT, {"outbox_id": outbox_id}).one_or_none()
    if recipient is None:
        return []
    kept = one_line(reason)[:REASON_CHARS] or "the mail server refused it"
    marked = conn.execute(
        _MARK, {"player_id": recipient.id, "at": utcnow(), "reason": kept}
    ).rowcount
    if marked != 1 or not notify:
        return []
    return write_letters(conn, config, _letters(conn, config, recipient, kept))


def clear_bounce(player: Player) -> None:
    """The address works again (a sign-in link sent to it was used): mail to it resumes. The
    caller commits."""
    player.bounced_at = None
    player.bounce_reason = None


def one_line(text: str) -> str:
    """`text` on one line, without control characters: it came from a stranger's server."""
    return " ".join("".join(c if c.isprintable() else " " for c in text).split())


def quoted_reason(reason: str, address: str) -> str:
    """The server's answer as an organiser may read it: the address taken out, shortened."""
    hidden = re.sub(re.escape(address), HIDDEN_ADDRESS, one_line(reason), flags=re.IGNORECASE)
    if len(hidden) > QUOTED_CHARS:
        hidden = hidden[: QUOTED_CHARS - 1] + "…"
    return hidden


def _letters(conn: Connection, config: Settings, recipient: Any, reason: str) -> list[Letter]:
    rows = conn.execute(_GAMES, {"player_id": recipient.id}).all()
    if not rows:
        return []
    by_organiser: dict[int, list[str]] = {}
    for row in rows:
        by_organiser.setdefault(row.organiser_id, []).append(row.id)
    # Read through the ORM on the caller's connection and transaction, so that the player is
    # called exactly as every page and email calls them (views.names).
    with Session(bind=conn) as session:
        found = session.execute(
            select(Game)
            .where(Game.id.in_([row.id for row in rows]))
            .options(selectinload(Game.seats).joinedload(Seat.player))
        ).scalars()
        games = {game.id: game for game in found}
        organisers = session.execute(
            select(Player).where(Player.id.in_(list(by_organiser)), Player.bounced_at.is_(None))
        ).scalars()
        quoted = quoted_reason(reason, recipient.email)
        return [
            letters.bounced(
                config, organiser, recipient, quoted, [games[g] for g in by_organiser[organiser.id]]
            )
            for organiser in organisers
        ]
