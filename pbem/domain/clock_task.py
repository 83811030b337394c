"""The clock task: what time does to games, run every minute by Celery beat (by a thread in the
embedded default) and by `pbem clock [--now ISO-8601]`, the same code once.

One run, as of `now`:

1. Downtime first. The run claims the one `clock_runs` row (a run already holding it makes
   this one stand aside). When the last run is further back than PBEM_CLOCK_DOWNTIME_SECONDS,
   pbem was down (or its beat was): every running deadline and reminder moves later by the whole
   gap before anything can time out, since the players could not move while the service was
   away. `pbem clock --now T` skips this step: it acts as of T, and a jump to T is no downtime,
   so it neither reads nor moves the last run.
2. Vacations that ran out end: their players' paused turns run again from the vacation's end.
3. Reminders due are written (each at most once per turn: the game's `reminder_at` moves on to
   the next one, or to none).
4. Games past their deadline time out (`pbem.domain.endings.time_out`).
5. Invitations still unaccepted PBEM_INVITATION_DAYS after the organiser's confirmation lapse
   (the organiser is told, and may invite someone else to the seat); a game still short of
   players as long again after that is cancelled.

Each step reads only what is due, through a partial index, and locks what it changes with
`FOR UPDATE SKIP LOCKED`, a batch per transaction: two runs at once, or a run and a worker
applying a move, never act on the same game at the same time, and whichever commits first
wins (a move stored before the deadline and not applied yet wins over the timeout).
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import Connection, and_, bindparam, exists, or_, select, text, update
from sqlalchemy.exc import IntegrityError

from pbem.config import Settings
from pbem.domain import endings, letters, turns, vacation
from pbem.domain.outbox import Letter, write_letters
from pbem.domain.turn_ending import read_seats
from pbem.domain.views import GameFacts, seat_names
from pbem.extensions import db
from pbem.models import INVITING, RUNNING, ClockRun, Game, Seat, new_nonce, utcnow

log = logging.getLogger(__name__)

BATCH = 200
_CLOCK_RUN_ID = 1


@dataclass
class ClockReport:
    ran: bool = True  # False when another run held the clock
    downtime_seconds: float = 0.0  # the gap every deadline was extended by (0: none)
    extended: int = 0
    vacations_ended: int = 0
    reminders: int = 0
    timeouts: int = 0
    invitations_expired: int = 0
    cancelled: int = 0
    outbox_ids: list[int] = field(default_factory=list)
    # The games that timed out: in one that goes on, a bot may have the turn now.
    timed_out: list[str] = field(default_factory=list)

    def summary(self) -> str:
        if not self.ran:
            return "another clock run was in progress; nothing done"
        parts = [
            _count(self.timeouts, "timeout"),
            _count(self.reminders, "reminder"),
            _count(self.vacations_ended, "vacation") + " ended",
            _count(self.invitations_expired, "invitation") + " expired",
            _count(self.cancelled, "game") + " cancelled",
        ]
        if self.downtime_seconds:
            parts.insert(
                0,
                f"{self.extended} deadlines extended by {self.downtime_seconds:.0f}s of downtime",
            )
        return ", ".join(parts)


def _count(number: int, noun: str) -> str:
    return f"{number} {noun}{'' if number == 1 else 's'}"


def run_clock(
    config: Settings,
    now: datetime | None = None,
    batch: int = BATCH,
    *,
    measure_downtime: bool = True,
) -> ClockReport:
    """One run of the clock task as of `now` (naive UTC; the present when None). Without
    `measure_downtime` (`pbem clock --now`) the last run is neither read nor recorded."""
    now = now or utcnow()
    report = ClockReport()
    gap = _claim(config, now) if measure_downtime else 0.0
    if gap is None:
        report.ran = False
        return report
    if gap > config.clocks.downtime_seconds:
        report.downtime_seconds = gap
        report.extended = _extend_deadlines(gap)
        log.warning(
            "clock: %.0f s since the last run; %d deadlines extended by it",
            gap,
            report.extended,
        )
    for player_id in vacation.due(now):
        # A vacation that ran out while pbem was down restarts its clocks now, not back then.
        vacation.end(config, player_id, now, now if report.downtime_seconds else None)
        report.vacations_ended += 1
    report.reminders = _send_reminders(config, now, batch, report.outbox_ids)
    report.timeouts = _time_out(config, now, batch, report.outbox_ids, report.timed_out)
    expired, cancelled = _lapse_invitations(config, now, batch, report.outbox_ids)
    report.invitations_expired, report.cancelled = expired, cancelled
    return report


def _claim(config: Settings, now: datetime) -> float | None:
    """Record this run; the seconds since the last one (0 for the first), or None when another
    run holds the row."""
    session = db.session
    row = session.execute(
        select(ClockRun).where(ClockRun.id == _CLOCK_RUN_ID).with_for_update(skip_locked=True)
    ).scalar_one_or_none()
    if row is None:
        if session.get(ClockRun, _CLOCK_RUN_ID) is not None:
            session.rollback()
            return None  # locked by a run in progress
        try:
            session.add(ClockRun(id=_CLOCK_RUN_ID, last_run_at=now))
            session.commit()
        except IntegrityError:
            session.rollback()
            return None
        return 0.0
    gap = (now - row.last_run_at).total_seconds()
    row.last_run_at = max(row.last_run_at, now)
    session.flush()
    # Kept in this transaction: the extension commits with the new last run, or neither does.
    return max(0.0, gap)


_RUNNING_CLOCKS = and_(Game.status == RUNNING, Game.deadline.is_not(None), Game.paused_at.is_(None))


def _extend_deadlines(gap: float) -> int:
    """Move every running deadline (and reminder) later by `gap` seconds; commits."""
    conn = db.session.connection()
    if conn.dialect.name == "postgresql":
        shift = text("make_interval(secs => :gap)").bindparams(gap=gap)
        result = conn.execute(
            update(Game)
            .where(_RUNNING_CLOCKS)
            .values(deadline=Game.deadline + shift, reminder_at=Game.reminder_at + shift)
        )
        db.session.commit()
        return int(result.rowcount)
    rows = conn.execute(
        select(
            Game.id, Game.turn_started_at, Game.deadline, Game.paused_at, Game.reminder_at
        ).where(_RUNNING_CLOCKS)
    ).all()
    if rows:
        conn.execute(
            update(Game).where(Game.id == bindparam("game_id")),
            [
                {"game_id": row.id, **turns.shifted(turns.TurnClock.of(row), gap).columns()}
                for row in rows
            ],
        )
    db.session.commit()
    return len(rows)


def _due_games(condition: Any, order: Any, exclude: Sequence[str], batch: int) -> Any:
    query = select(*endings.GAME_COLUMNS).where(condition)
    if exclude:
        query = query.where(Game.id.not_in(list(exclude)))
    return query.order_by(order).limit(batch).with_for_update(skip_locked=True)


def _write(conn: Connection, config: Settings, written: list[Letter], into: list[int]) -> None:
    game_ids = sorted({letter.game.id for letter in written if letter.game is not None})
    previous = read_seats(conn, game_ids)[2] if game_ids else {}
    into.extend(write_letters(conn, config, written, previous))


def _send_reminders(config: Settings, now: datetime, batch: int, into: list[int]) -> int:
    hours = config.clocks.reminder_hours
    sent = 0
    while True:
        conn = db.session.connection()
        due = Game.reminder_at <= now
        rows = conn.execute(
            _due_games(and_(due, Game.status == RUNNING), Game.reminder_at, (), batch)
        ).all()
        if not rows:
            db.session.commit()
            return sent
        seats, _, _ = read_seats(conn, [row.id for row in rows])
        written: list[Letter] = []
        changes: list[dict[str, Any]] = []
        for row in rows:
            turn = turns.TurnClock.of(row)
            # Past the deadline, the timeout (or a move stored in time) settles the turn.
            running = row.deadline is not None and row.deadline > now and row.paused_at is None
            if row.to_move is not None and running:
                infos = seats[row.id]
                who = seat_names(row, infos)
                facts = GameFacts.of(row)
                left = (row.deadline - now).total_seconds() / 3600
                written.append(
                    letters.reminder(
                        config, facts, infos[row.to_move], who, row.deadline, max(0.0, left)
                    )
                )
                started = turn.turn_started_at or now
                following = turns.next_reminder(hours, started, row.deadline, now)
            else:
                following = None
            changes.append({"game_id": row.id, "reminder_at": following})
        conn.execute(update(Game).where(Game.id == bindparam("game_id")), changes)
        _write(conn, config, written, into)
        db.session.commit()
        # Only the reminders written: a player without turn mail, or whose mail bounces, gets
        # none (Letter.wanted); one on the digest gets them.
        sent += sum(1 for letter in written if letter.wanted)


def _time_out(
    config: Settings, now: datetime, batch: int, into: list[int], games: list[str]
) -> int:
    done = 0
    passed_by: list[str] = []
    while True:
        conn = db.session.connection()
        condition = and_(_RUNNING_CLOCKS, Game.deadline <= now)
        rows = conn.execute(_due_games(condition, Game.deadline, passed_by, batch)).all()
        if not rows:
            db.session.commit()
            return done
        written: list[Letter] = []
        for row in rows:
            letters_of_game = endings.time_out(conn, config, row, now)
            if letters_of_game is None:
                passed_by.append(row.id)
                continue
            written += letters_of_game
            games.append(row.id)
            done += 1
        _write(conn, config, written, into)
        db.session.commit()


def _untaken(invited_by: datetime) -> Any:
    """A seat of the game still open and invited by `invited_by`: a seat the organiser gave
    someone else after the lapse (`starting.reinvite`) does not lapse again before the game's
    cancellation."""
    return exists().where(
        Seat.game_id == Game.id,
        Seat.accepted_at.is_(None),
        Seat.expired_at.is_(None),
        Seat.invited_at <= invited_by,
        # The organiser's own seat never lapses (to be told about it, and asked to hand it to
        # someone else, would make no sense): the game's cancellation bounds it.
        or_(Game.organiser_id.is_(None), Seat.player_id != Game.organiser_id),
    )


def cancel_at(config: Settings, confirmed_at: datetime) -> datetime:
    """When a game confirmed at `confirmed_at` is cancelled if still short of players."""
    return confirmed_at + 2 * timedelta(days=config.clocks.invitation_days)


def _lapse_invitations(
    config: Settings, now: datetime, batch: int, into: list[int]
) -> tuple[int, int]:
    """Expire invitations unaccepted for PBEM_INVITATION_DAYS after the confirmation, and
    cancel games still short of players as long again after that."""
    days = timedelta(days=config.clocks.invitation_days)
    expired = cancelled = 0
    inviting = and_(Game.status == INVITING, Game.confirmed_at.is_not(None))
    while True:
        conn = db.session.connection()
        condition = and_(inviting, Game.confirmed_at <= now - 2 * days)  # see cancel_at
        rows = conn.execute(_due_games(condition, Game.confirmed_at, (), batch)).all()
        if not rows:
            break
        written: list[Letter] = []
        for row in rows:
            game = endings.locked_row(conn, row)
            written += endings.cancel_locked(conn, config, game, None, now, by_organiser=False)
            cancelled += 1
        _write(conn, config, written, into)
        db.session.commit()
    while True:
        conn = db.session.connection()
        condition = and_(inviting, Game.confirmed_at <= now - days, _untaken(now - days))
        rows = conn.execute(_due_games(condition, Game.confirmed_at, (), batch)).all()
        if not rows:
            db.session.commit()
            return expired, cancelled
        written = []
        for row in rows:
            count, letter = _expire(conn, config, row, row.confirmed_at + 2 * days, now, days)
            expired += count
            if letter is not None:
                written.append(letter)
        _write(conn, config, written, into)
        db.session.commit()


_UNTAKEN_SEATS = (
    select(Seat.id, Seat.seat)
    .where(
        Seat.game_id == bindparam("game_id"),
        Seat.accepted_at.is_(None),
        Seat.expired_at.is_(None),
        Seat.invited_at <= bindparam("invited_by"),
        Seat.player_id != bindparam("organiser_id"),
    )
    .order_by(Seat.seat)
)


def _expire(
    conn: Connection,
    config: Settings,
    row: Any,
    cancel_at: datetime,
    now: datetime,
    days: timedelta,
) -> tuple[int, Letter | None]:
    """Lapse a locked game's untaken invitations (their links die with a new nonce); the
    letter telling its organiser."""
    untaken = conn.execute(
        _UNTAKEN_SEATS,
        {"game_id": row.id, "invited_by": now - days, "organiser_id": row.organiser_id or -1},
    ).all()
    if not untaken:
        return 0, None
    conn.execute(
        update(Seat).where(Seat.id == bindparam("seat_id")),
        [{"seat_id": s.id, "expired_at": now, "nonce": new_nonce()} for s in untaken],
    )
    game = endings.locked_row(conn, row)
    seats, _, _ = read_seats(conn, [row.id])
    infos = seats[row.id]
    for s in untaken:
        endings.record_event(
            conn, game, endings.INVITATION_EXPIRED, s.seat, now, {"email": infos[s.seat].email}
        )
    organiser = next((info for info in infos if info.player_id == row.organiser_id), None)
    if organiser is None:
        return len(untaken), None
    facts = GameFacts.of(row)
    who = seat_names(row, infos)
    invitees = [who[s.seat] for s in untaken]
    return len(untaken), letters.expired(config, facts, organiser, invitees, cancel_at)
