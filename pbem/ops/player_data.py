"""A player's data (`pbem admin player export|erase|unblock`, and the games page's download):
everything stored about a player, as JSON, and erasing it on request.

Export gives the player's row, each of their games as its record reads to their seat (so
nothing hidden during a game: no seed of a running game), their submissions and the emails
written to them (not their text, which carries their links).

Erasure ends their running games as if they resigned (a two-player game is lost; in a larger
one their seat leaves and the others play on, each game by its rules), cancels the games still
gathering players, then removes their address and name from every table: their row keeps
neither (the games others still read call them "a former player"), the emails to them go, the
others' emails, the games' events and titles lose every mention of them, and every link they
held is withdrawn. A keyed hash of the address stays (`erased_addresses`), so that nobody
invites it again unless its owner asks the operator (`unblock`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from sqlalchemy import delete, or_, select, update

from pbem.config import Settings
from pbem.domain import endings, player_letters, wording
from pbem.domain.addresses import normalise_address
from pbem.domain.erased import address_digest
from pbem.domain.errors import NotFound, ServiceError
from pbem.domain.outbox import write_letters
from pbem.domain.views import engine, game_record
from pbem.extensions import db
from pbem.links import LinkError
from pbem.models import (
    ACTIVE,
    INVITING,
    NO_TURN_MAIL,
    RUNNING,
    ErasedAddress,
    Game,
    GameEvent,
    OutboxMessage,
    Picture,
    Player,
    Seat,
    Submission,
    new_nonce,
)

EXPORT_FORMAT = "pbem-player/1"
# How an erased player is called wherever their name was.
FORMER_PLAYER = "a former player"
NOT_EXPORTED = [
    "the keys your links are signed with: they open your seats, and are no fact about you",
    "the text of the emails written to you: they carry your links",
]


def _player(config: Settings, address: str) -> Player:
    found = db.session.execute(
        select(Player).where(Player.email == normalise_address(config, address))
    ).scalar_one_or_none()
    if found is None:
        raise NotFound(f"No player has the address {address!r}.")
    return found


def _at(moment: datetime | None) -> str | None:
    return None if moment is None else moment.isoformat(timespec="seconds") + "Z"


def export(config: Settings, address: str, now: datetime) -> dict[str, Any]:
    """Everything pbem stores about the player of `address`, as JSON-ready data."""
    return export_of(_player(config, address), now)


def export_of(player: Player, now: datetime) -> dict[str, Any]:
    seats = db.session.execute(
        select(Seat).where(Seat.player_id == player.id).order_by(Seat.invited_at)
    ).scalars()
    return {
        "format": EXPORT_FORMAT,
        "exported_at": _at(now),
        "player": {
            "email": player.email,
            "name": player.name,
            "created_at": _at(player.created_at),
            "time_zone": player.time_zone,
            "mail_preference": player.mail_preference,
            "digest_sent_at": _at(player.digest_sent_at),
            "never_email_me_since": _at(player.blocked_at),
            "bouncing_since": _at(player.bounced_at),
            "bounce_reason": player.bounce_reason,
            "vacation": {
                "balance_seconds": player.vacation_seconds,
                "accrued_at": _at(player.vacation_accrued_at),
                "away_since": _at(player.vacation_since),
                "away_until": _at(player.vacation_until),
            },
        },
        "games": [_seat_data(seat) for seat in seats],
        "emails": [
            {
                "kind": row.kind,
                "game": row.game_id,
                "subject": row.subject,
                "status": row.status,
                "written_at": _at(row.created_at),
                "sent_at": _at(row.sent_at),
                "attempts": row.attempts,
                "last_error": row.last_error,
            }
            for row in db.session.execute(
                select(OutboxMessage)
                .where(OutboxMessage.to == player.email)
                .order_by(OutboxMessage.id)
            ).scalars()
        ],
        "not_included": NOT_EXPORTED,
    }


def _seat_data(seat: Seat) -> dict[str, Any]:
    submissions = db.session.execute(
        select(Submission)
        .where(Submission.game_id == seat.game_id, Submission.seat == seat.seat)
        .order_by(Submission.id)
    ).scalars()
    return {
        "game": seat.game_id,
        "seat": seat.seat,
        "invited_at": _at(seat.invited_at),
        "accepted_at": _at(seat.accepted_at),
        "state": seat.state,
        "autopilot_since": _at(seat.autopilot_since),
        "autopilot_bot": seat.autopilot_bot,
        # The game as their seat's record reads: the seed only once the game is over.
        "record": game_record(seat.game, viewer=seat.seat),
        "submissions": [
            {
                "ply": s.ply,
                "move": s.move,
                "status": s.status,
                "refused_because": wording.read_words(s.error) if s.error else None,
                "sent_at": _at(s.created_at),
                "applied_at": _at(s.applied_at),
            }
            for s in submissions
        ],
    }


@dataclass
class ErasurePlan:
    """What erasing the player would end: running games they would resign, games gathering
    players that would be cancelled (each as "Title (id)")."""

    resign: list[str]
    cancel: list[str]


def erasure_plan(player: Player) -> ErasurePlan:
    seats = db.session.execute(select(Seat).where(Seat.player_id == player.id)).scalars()
    plan = ErasurePlan([], [])
    for seat in seats:
        game = seat.game
        called = f"{engine(game).title} ({game.id})"
        if game.status == RUNNING and seat.state == ACTIVE:
            plan.resign.append(called)
        elif game.status == INVITING:
            plan.cancel.append(called)
    return plan


def request_erasure(config: Settings, player: Player) -> list[int]:
    """Email the player the link that confirms their erasure (the games page's button); the
    outbox ids to send."""
    plan = erasure_plan(player)
    letter = player_letters.erase_request(config, player, len(plan.resign), len(plan.cancel))
    outbox_ids = write_letters(db.session.connection(), config, [letter])
    db.session.commit()
    return outbox_ids


@dataclass
class Erasure:
    """What erasing a player did: games they resigned, games cancelled, and the letters
    telling the others (outbox ids to send)."""

    resigned: list[str] = field(default_factory=list)
    cancelled: list[str] = field(default_factory=list)
    outbox_ids: list[int] = field(default_factory=list)


def erase(config: Settings, address: str, now: datetime) -> Erasure:
    """Erase the player of `address` (the module's steps); commits."""
    player = _player(config, address)
    return erase_player(config, player, now)


def erase_player(config: Settings, player: Player, now: datetime) -> Erasure:
    done = Erasure()
    address, name = player.address, player.name
    seats = list(db.session.execute(select(Seat).where(Seat.player_id == player.id)).scalars())
    for seat in seats:
        _leave(config, seat, now, done)
    game_ids = [seat.game_id for seat in seats]
    _scrub(game_ids, address, name)
    conn = db.session.connection()
    conn.execute(delete(OutboxMessage).where(OutboxMessage.to == address))
    if game_ids:
        # Their alt texts name the players: drawn again, from the record, if an email needs one.
        conn.execute(delete(Picture).where(or_(*(Picture.key.like(f"{g}/%") for g in game_ids))))
    conn.execute(update(Seat).where(Seat.player_id == player.id).values(nonce=new_nonce()))
    player.email, player.name, player.erased_at = None, FORMER_PLAYER, now
    player.nonce, player.signin_nonce = new_nonce(), None
    player.time_zone = player.bounce_reason = None
    player.bounced_at = player.blocked_at = player.digest_sent_at = None
    player.vacation_seconds = None
    player.vacation_accrued_at = player.vacation_since = player.vacation_until = None
    player.mail_preference = NO_TURN_MAIL
    digest = address_digest(config, address)
    if db.session.get(ErasedAddress, digest) is None:
        db.session.add(ErasedAddress(digest=digest, erased_at=now))
    db.session.commit()
    return done


def _leave(config: Settings, seat: Seat, now: datetime, done: Erasure) -> None:
    """Resign a running game, cancel one still gathering its players."""
    game = seat.game
    try:
        if game.status == RUNNING and seat.state == ACTIVE:
            done.outbox_ids += endings.resign(config, seat, now)
            done.resigned.append(game.id)
        elif game.status == INVITING:
            conn = db.session.connection()
            locked = endings.lock(conn, game.id)
            letters = endings.cancel_locked(conn, config, locked, None, now, by_organiser=False)
            # The erased player is told nothing: they asked to be forgotten.
            letters = [x for x in letters if x.to != seat.player.email]
            done.outbox_ids += endings.commit_letters(conn, config, game.id, letters)
            done.cancelled.append(game.id)
    except (ServiceError, LinkError):
        # The game ended meanwhile: nothing of it is theirs to end.
        db.session.rollback()


def _scrub(game_ids: list[str], address: str, name: str | None) -> None:
    """Every mention of the address, or of the name as a word, in their games' emails, events
    and titles, replaced by FORMER_PLAYER."""
    words = [re.escape(address)] + ([rf"\b{re.escape(name)}\b"] if name else [])
    mention = re.compile("|".join(words))

    def clean(text: str) -> str:
        return mention.sub(FORMER_PLAYER, text)

    for row in db.session.execute(
        select(OutboxMessage).where(OutboxMessage.game_id.in_(game_ids))
    ).scalars():
        row.subject, row.text, row.html = clean(row.subject), clean(row.text), clean(row.html)
    for event in db.session.execute(
        select(GameEvent).where(GameEvent.game_id.in_(game_ids))
    ).scalars():
        if event.detail:
            event.detail = {
                k: clean(v) if isinstance(v, str) else v for k, v in event.detail.items()
            }
    for game in db.session.execute(select(Game).where(Game.id.in_(game_ids))).scalars():
        if game.title:
            game.title = clean(game.title)[:80]
    db.session.flush()


def unblock(config: Settings, address: str) -> bool:
    """The owner of an erased address asks to be invited again; whether it was blocked."""
    address = normalise_address(config, address)
    digest = address_digest(config, address)
    row = db.session.get(ErasedAddress, digest)
    player = db.session.execute(select(Player).where(Player.email == address)).scalar_one_or_none()
    if player is not None and player.blocked_at is not None:
        player.blocked_at = None
    if row is not None:
        db.session.delete(row)
    db.session.commit()
    return row is not None
