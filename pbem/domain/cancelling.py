"""Cancelling a game by every player's agreement, once it has started.

Before the start nobody has seen a hand, and the organiser cancels alone
(`pbem.domain.endings.cancel`). Once every seat has accepted and the deal is made, one player
alone could cancel a game whose deal they do not like; so a started game is cancelled only when
every player still in it agrees, and, as before, only while nobody has moved. As with a draw
offer: a player proposes it (`cancel_offered`), which emails the others; each agrees
(`cancel_agreed`) or declines (`cancel_declined`, which ends the proposal, and emails those who
had agreed); the last agreement cancels the game and everyone is told. The first move ends a
proposal, as it ends the chance to cancel. A bot's seat counts as agreeing: a bot has nothing at
stake. A seat on autopilot does not: its player, who still gets the game's news, answers.

Each step takes the game's row lock, as the draws of `pbem.domain.endings` do, and is a game
event; the agreements standing are read back from those events (`agreed`), so they need no
column of their own.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import Connection, bindparam, select

from pbem import i18n, links
from pbem.config import Settings
from pbem.domain import endings, letters
from pbem.domain.endings import Refused
from pbem.domain.errors import Conflict, ServiceError
from pbem.domain.outbox import Letter
from pbem.domain.turn_ending import read_seats
from pbem.domain.views import SeatInfo, seat_names
from pbem.extensions import db
from pbem.models import ACTIVE, RUNNING, Game, GameEvent, utcnow

# Event kinds.
OFFERED, AGREED, DECLINED = "cancel_offered", "cancel_agreed", "cancel_declined"
KINDS = (OFFERED, AGREED, DECLINED)

_EVENTS = (
    select(GameEvent.kind, GameEvent.seat)
    .where(GameEvent.game_id == bindparam("game_id"), GameEvent.kind.in_(KINDS))
    .order_by(GameEvent.id)
)
MOVED = i18n.lazy_gettext(
    "A move has been made: the game can no longer be cancelled. You may resign."
)


def agreed(events: Iterable[tuple[str, int | None]]) -> set[int]:
    """The seats agreeing to cancel, from the game's events (kind, seat) in order: a decline
    ends the proposal, and the next agreement starts another."""
    seats: set[int] = set()
    for kind, seat in events:
        if kind == DECLINED:
            seats.clear()
        elif kind in (OFFERED, AGREED) and seat is not None:
            seats.add(seat)
    return seats


@dataclass(frozen=True)
class Proposal:
    """Where a proposal to cancel stands: the seats still in the game that agreed, and the
    players still to answer (a bot's seat is never among them), both in seat order."""

    agreed: tuple[int, ...]
    waiting: tuple[int, ...]

    @property
    def standing(self) -> bool:
        return bool(self.agreed)


def proposal(
    events: Iterable[tuple[str, int | None]], seat_states: Sequence[str], bots: Sequence[bool]
) -> Proposal:
    """The proposal standing after `events`, in a game whose seats are in `seat_states` and
    are bots' where `bots` says so."""
    yes = agreed(events)
    staying = [s for s, state in enumerate(seat_states) if state == ACTIVE]
    return Proposal(
        tuple(s for s in staying if s in yes),
        tuple(s for s in staying if s not in yes and not bots[s]),
    )


def of_game(game: Game) -> Proposal:
    """The proposal standing in a game read by the ORM (its page, the API); none once anybody
    has moved or the game is not under way."""
    if game.status != RUNNING or game.ply > 0:
        return Proposal((), ())
    events = [(e.kind, e.seat) for e in db.session.execute(_EVENTS, {"game_id": game.id})]
    seats = game.seats
    return proposal(events, [s.state for s in seats], [s.player.bot is not None for s in seats])


def agree(config: Settings, seat: links.SeatKey, now: datetime | None = None) -> list[int]:
    """The seat agrees to cancel its game; the outbox ids to send. Before the start, that is
    the organiser cancelling (`endings.cancel`). Once started: the first agreement proposes it
    and emails the players still to answer; the last one cancels the game."""
    now = now or utcnow()
    conn = db.session.connection()
    try:
        game = endings.lock(conn, seat.game_id, seat)
        if game.row.status != RUNNING:
            return endings.cancel(config, seat, now)
        endings.check_running(game, seat.seat)
        if game.row.ply > 0:
            raise Refused(str(MOVED))
        endings.check_in_time(game, seat.seat, now)
        infos = _seats(conn, game)
        before = _standing(conn, game, infos)
        if seat.seat in before.agreed:
            raise Refused(
                i18n.gettext(
                    "You have agreed to cancel the game already; it is cancelled when the others "
                    "agree too."
                )
            )
    except (ServiceError, links.LinkError):
        db.session.rollback()
        raise
    endings.record_event(conn, game, AGREED if before.standing else OFFERED, seat.seat, now)
    waiting = [s for s in before.waiting if s != seat.seat]
    written: list[Letter]
    if not waiting:
        written = endings.cancel_locked(
            conn, config, game, seat.seat, now, by_organiser=False, agreed=True
        )
    elif not before.standing:
        who = seat_names(game.facts, infos)
        written = [
            letters.cancel_offer(config, game.facts, infos[s], who, seat.seat, "cancel_offer")
            for s in waiting
        ]
    else:
        written = []
    return endings.commit_letters(conn, config, game.row.id, written)


def decline(config: Settings, seat: links.SeatKey, now: datetime | None = None) -> list[int]:
    """The seat declines the proposal standing (or withdraws its own agreement): the proposal
    ends, and those who had agreed are told. The outbox ids to send."""
    now = now or utcnow()
    conn = db.session.connection()
    try:
        game = endings.lock(conn, seat.game_id, seat)
        endings.check_running(game, seat.seat)
        infos = _seats(conn, game)
        before = _standing(conn, game, infos)
        if game.row.ply > 0 or not before.standing:
            raise Conflict(
                i18n.gettext(
                    "There is no proposal to cancel the game to answer: it was declined already, "
                    "or ended by a move. Reload the game page."
                )
            )
    except (ServiceError, links.LinkError):
        db.session.rollback()
        raise
    endings.record_event(conn, game, DECLINED, seat.seat, now)
    who = seat_names(game.facts, infos)
    written = [
        letters.cancel_offer(config, game.facts, infos[s], who, seat.seat, "cancel_declined")
        for s in before.agreed
        if s != seat.seat
    ]
    return endings.commit_letters(conn, config, game.row.id, written)


def _seats(conn: Connection, game: endings.Locked) -> list[SeatInfo]:
    seats, _, _ = read_seats(conn, [game.row.id])
    return seats[game.row.id]


def _standing(conn: Connection, game: endings.Locked, infos: Sequence[SeatInfo]) -> Proposal:
    events = [(e.kind, e.seat) for e in conn.execute(_EVENTS, {"game_id": game.row.id})]
    return proposal(events, game.seat_states, [info.bot is not None for info in infos])
