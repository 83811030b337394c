"""Addresses whose mail bounces: marked once, told to the organisers, cleared by a sign-in.

Mail to an address comes back permanently (a 5xx answer when sending, `pbem.domain.delivery`, or
a delivery report arriving at its bounce address, `pbem.mailin.handle`): `mark_bouncing` records
it on the player, and from then on no game letter is written to them (`letters._about` makes
them unwanted) until the player signs in again, which proves the address works
(`access.use_signin` calls `clear_bounce`). Sign-in mail still goes, so that they can.

The organisers of the player's games are told once, by name: the address itself is never in the
letter (an address is shown only to its owner), nor in the server's answer quoted in it.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Connection, bindparam, select, update
from sqlalchemy.orm import Session, selectinload

from pbem import links
from pbem.config import Settings
from pbem.domain import glossary
from pbem.domain.outbox import Letter, write_letters
from pbem.domain.views import GameFacts, engine, names
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


@dataclass(frozen=True)
class BouncedGame:
    """A game of the bouncing player's, as their organiser's letter lists it."""

    id: str
    title: str
    player: str  # how the bouncing player is called in it
    link: str  # the organiser's game page (their dashboard when they hold no seat)
    name: str | None = None  # the organiser's name for the game (Game.title)


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
        return [
            bounced_letter(
                config, organiser, recipient, reason, [games[g] for g in by_organiser[organiser.id]]
            )
            for organiser in organisers
        ]


def bounced_letter(
    config: Settings, organiser: Player, player: Any, reason: str, games: Sequence[Game]
) -> Letter:
    """To an organiser: mail to `player` (a player's id, email and name) bounces; `games` are
    the organiser's games it holds a seat in (ORM games with their seats and players). Threaded
    under the game when there is one, else a letter of its own."""
    listed = []
    for game in games:
        seats = {seat.player_id: seat for seat in game.seats}
        called = names(game)[seats[player.id].seat]
        mine = seats.get(organiser.id)
        link = (
            links.seat_url(config, mine)
            if mine is not None
            else links.player_url(config, organiser.id, organiser.nonce)
        )
        listed.append(BouncedGame(game.id, engine(game).title, called, link, game.title))
    who = player.name or listed[0].player
    only = games[0] if len(games) == 1 else None
    thread = (
        GameFacts(
            only.id,
            only.engine,
            only.status,
            only.ply,
            only.to_move,
            only.thread_message_id,
            title=only.title,
        )
        if only is not None
        else None
    )
    context = {
        "to": organiser.email,
        "name": organiser.name,
        "who": who,
        "reason": quoted_reason(reason, player.email),
        "games": listed,
        "game": thread,
        "title": listed[0].title,
        "link": listed[0].link,
        "games_link": links.player_url(config, organiser.id, organiser.nonce),
        "signin_link": f"{config.base_url}/signin",
        # One game: its rules; several: the page of every game's.
        "rules_link": glossary.rules_url(config, only.engine) if only is not None else None,
        "rules_index": glossary.rules_index_url(config),
    }
    return Letter(organiser.address, "bounced", thread, context)
