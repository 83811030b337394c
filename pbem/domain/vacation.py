"""Vacation: a player away stops their clocks in every game.

Each player has a balance of vacation time, accrued monthly (a twelfth of the yearly allowance
a month) and capped at a year's worth; a new player starts with the year's worth, so that a
holiday booked before joining is covered. Going away sets `vacation_since` and
`vacation_until` (at most the balance ahead); coming back, by the switch or when the clock task
finds `vacation_until` passed, spends the time away from the balance. While away, every game in
which it is the player's turn and the turn is still in time is paused (`games.paused_at`): the
clock task passes them by, and on return each deadline moves on by the time away
(`pbem.domain.turns.resume`). A turn already out of time is not paused: a vacation cannot save
it. A turn that starts while the player is away starts paused.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy import Connection, bindparam, select, update

from pbem import i18n
from pbem.config import Settings
from pbem.domain import turns
from pbem.domain.errors import ServiceError
from pbem.extensions import db
from pbem.models import RUNNING, Game, Player, Seat, utcnow

SECONDS_PER_DAY = 86_400
# A month of accrual: a twelfth of an average Gregorian year.
MONTH = timedelta(days=365.2425 / 12)


class VacationRefused(ServiceError):
    code = "vacation_refused"
    status = 409


@dataclass(frozen=True)
class Balance:
    seconds: float  # what is left, as of `at`, counting the time away so far as spent
    accrued_at: datetime  # the last monthly accrual included
    at: datetime

    @property
    def days(self) -> float:
        return self.seconds / SECONDS_PER_DAY


def balance(config: Settings, player: Player, now: datetime) -> Balance:
    """The player's vacation balance at `now` (accrued to the last whole month)."""
    yearly = config.clocks.vacation_days_per_year * SECONDS_PER_DAY
    if player.vacation_seconds is None or player.vacation_accrued_at is None:
        seconds, accrued_at = yearly, now
    else:
        seconds, accrued_at = player.vacation_seconds, player.vacation_accrued_at
        months = max(0, math.floor((now - accrued_at) / MONTH))
        if months:
            seconds = min(yearly, seconds + months * yearly / 12)
            accrued_at += months * MONTH
    if player.vacation_since is not None:
        seconds -= max(0.0, (min(now, _until(player)) - player.vacation_since).total_seconds())
    return Balance(max(0.0, seconds), accrued_at, now)


def _until(player: Player) -> datetime:
    assert player.vacation_until is not None
    return player.vacation_until


def start(config: Settings, player_id: int, days: float, now: datetime | None = None) -> Player:
    """Go away for `days` (at most the balance): every game awaiting the player pauses, but for
    a turn whose time has run out already."""
    now = now or utcnow()
    player = _lock_player(player_id)
    if player.vacation_since is not None:
        db.session.rollback()
        raise VacationRefused(
            i18n.gettext("You are on vacation already; come back first to change it.")
        )
    if not math.isfinite(days) or days <= 0:
        db.session.rollback()
        raise VacationRefused(
            i18n.gettext("Give the number of days you will be away: more than 0.")
        )
    left = balance(config, player, now)
    if left.seconds < 60:
        db.session.rollback()
        raise VacationRefused(
            i18n.gettext("You have no vacation days left; more accrue every month.")
        )
    player.vacation_seconds, player.vacation_accrued_at = left.seconds, left.accrued_at
    player.vacation_since = now
    player.vacation_until = now + timedelta(seconds=min(days * SECONDS_PER_DAY, left.seconds))
    conn = db.session.connection()
    # A turn whose time has run out already stays out of time: the clock task settles it.
    games = [
        g
        for g in conn.execute(_AWAITING, {"player_id": player_id, "paused": False})
        if not turns.late(turns.TurnClock.of(g), now)
    ]
    if games:
        paused = [
            {"game_id": g.id, **turns.pause(turns.TurnClock.of(g), now).columns()} for g in games
        ]
        conn.execute(_SET_TURN, paused)
    db.session.commit()
    return player


def end(
    config: Settings,
    player_id: int,
    now: datetime | None = None,
    resume_from: datetime | None = None,
) -> Player:
    """Come back (the switch, or the clock task at `vacation_until`): the balance pays for the
    time away, and every paused game of the player's runs again from the return, or from
    `resume_from` (the clock task's present, when the vacation ran out while pbem was down)."""
    now = now or utcnow()
    player = _lock_player(player_id)
    if player.vacation_since is None:
        db.session.commit()
        return player
    back_at = min(now, _until(player))
    left = balance(config, player, back_at)
    player.vacation_seconds, player.vacation_accrued_at = left.seconds, left.accrued_at
    player.vacation_since = player.vacation_until = None
    resume_games(db.session.connection(), config, player_id, max(back_at, resume_from or back_at))
    db.session.commit()
    return player


def resume_games(conn: Connection, config: Settings, player_id: int, at: datetime) -> None:
    hours = config.clocks.reminder_hours
    games = conn.execute(_AWAITING, {"player_id": player_id, "paused": True}).all()
    if games:
        conn.execute(
            _SET_TURN,
            [
                {
                    "game_id": g.id,
                    **turns.resume(
                        turns.game_clock(g.clock), turns.TurnClock.of(g), at, hours
                    ).columns(),
                }
                for g in games
            ],
        )


def due(now: datetime, limit: int = 500) -> list[int]:
    """Players whose vacation has run out by `now` (the clock task ends them)."""
    return list(
        db.session.execute(
            select(Player.id)
            .where(Player.vacation_until <= now)
            .order_by(Player.vacation_until)
            .limit(limit)
        ).scalars()
    )


def _lock_player(player_id: int) -> Player:
    player = db.session.execute(
        select(Player).where(Player.id == player_id).with_for_update()
    ).scalar_one_or_none()
    if player is None:
        raise VacationRefused(i18n.gettext("There is no such player."))
    return player


# The running games whose turn is the player's, paused or not; locked, in a fixed order.
_AWAITING = (
    select(
        Game.id,
        Game.clock,
        Game.turn_started_at,
        Game.deadline,
        Game.paused_at,
        Game.reminder_at,
    )
    .join(Seat, (Seat.game_id == Game.id) & (Seat.seat == Game.to_move))
    .where(
        Seat.player_id == bindparam("player_id"),
        Game.status == RUNNING,
        Game.deadline.is_not(None),
        (Game.paused_at.is_not(None)) == bindparam("paused"),
    )
    .order_by(Game.id)
    .with_for_update(of=Game)
)
# Executed with each game's TurnClock columns as the parameters (the SET clause).
_SET_TURN = update(Game).where(Game.id == bindparam("game_id"))
