"""The turn on the clock: what a game row keeps of it (`turn_started_at`, `deadline`,
`paused_at`, `reminder_at`), worked out when a turn starts, when a clock stops for a vacation
and when it runs again, and when a seat is taken back from the bot; and whether a turn's time
has run out. Pure, like `pbem.domain.clocks`, whose arithmetic it applies."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from pbem.domain import clocks
from pbem.domain.clocks import NO_CLOCK, Clock


def game_clock(data: Mapping[str, Any] | None) -> Clock:
    """A game's stored clock; games made before clocks have none."""
    return NO_CLOCK if data is None else Clock.from_json(data)


@dataclass(frozen=True)
class TurnClock:
    turn_started_at: datetime | None = None
    deadline: datetime | None = None
    paused_at: datetime | None = None  # the player to move is away: their clock stopped then
    reminder_at: datetime | None = None

    def columns(self) -> dict[str, datetime | None]:
        return {
            "turn_started_at": self.turn_started_at,
            "deadline": self.deadline,
            "paused_at": self.paused_at,
            "reminder_at": self.reminder_at,
        }

    @classmethod
    def of(cls, row: Any) -> TurnClock:
        """From a row or object with the four columns."""
        return cls(row.turn_started_at, row.deadline, row.paused_at, row.reminder_at)


# A finished (or not yet started) game has no turn on the clock.
NO_TURN = TurnClock()


def start_turn(
    clock: Clock,
    at: datetime,
    bank_seconds: float | None,
    away: bool,
    reminder_hours: Sequence[float],
) -> TurnClock:
    """A turn starting at `at` for a seat with `bank_seconds` (Fischer). A turn whose player is
    away starts paused: it runs from their return with the whole allowance."""
    deadline = clocks.deadline(clock, at, bank_seconds)
    if deadline is None:
        return TurnClock(at)
    if away:
        return TurnClock(at, deadline, paused_at=at)
    return TurnClock(at, deadline, reminder_at=next_reminder(reminder_hours, at, deadline, at))


def next_reminder(
    reminder_hours: Sequence[float], turn_started: datetime, deadline: datetime, after: datetime
) -> datetime | None:
    """The earliest reminder due after `after` that fits in the turn (a 24-hour reminder does
    not fit in a turn of 12 hours); None when none is left."""
    due = sorted(deadline - timedelta(hours=hours) for hours in reminder_hours)
    return next((at for at in due if at > after and at > turn_started), None)


def pause(turn: TurnClock, at: datetime) -> TurnClock:
    """The clock stopped at `at` (the player to move went away); no reminders while it is."""
    if turn.deadline is None or turn.paused_at is not None:
        return turn
    return TurnClock(turn.turn_started_at, turn.deadline, paused_at=at)


def resume(
    clock: Clock, turn: TurnClock, at: datetime, reminder_hours: Sequence[float]
) -> TurnClock:
    """The clock of a paused turn running again from `at`, with the time it had left."""
    if turn.paused_at is None or turn.deadline is None:
        return turn
    deadline = clocks.resumed(clock, turn.deadline, turn.paused_at, at)
    assert deadline is not None
    started = turn.turn_started_at or turn.paused_at
    return TurnClock(
        started, deadline, reminder_at=next_reminder(reminder_hours, started, deadline, at)
    )


def late(turn: TurnClock, now: datetime) -> bool:
    """Whether the turn's time has run out by `now`. A paused turn is judged at the instant its
    clock stopped: a vacation taken in time keeps it in time, and none can save a turn already
    out of time."""
    if turn.deadline is None:
        return False
    return not clocks.in_time(turn.deadline, turn.paused_at or now)


def taken_back(
    turn: TurnClock, now: datetime, away: bool, reminder_hours: Sequence[float]
) -> TurnClock:
    """A turn its player takes back from the bot at `now`: the start and deadline it had, the
    reminders still ahead, and the clock stopped at once while its player is away."""
    if turn.deadline is None:
        return TurnClock(turn.turn_started_at)
    started = turn.turn_started_at or now
    back = TurnClock(
        started,
        turn.deadline,
        reminder_at=next_reminder(reminder_hours, started, turn.deadline, now),
    )
    return pause(back, now) if away else back


def shifted(turn: TurnClock, gap_seconds: float) -> TurnClock:
    """The turn's deadline and reminder moved later by downtime of `gap_seconds`."""
    gap = timedelta(seconds=gap_seconds)
    return TurnClock(
        turn.turn_started_at,
        clocks.extended(turn.deadline, gap_seconds),
        turn.paused_at,
        turn.reminder_at + gap if turn.reminder_at is not None else None,
    )


def shown_deadline(
    clock: Clock, turn: TurnClock, now: datetime, back_at: datetime | None
) -> datetime | None:
    """The deadline to show: while paused, the one the turn will have if its player comes back
    at `back_at` (the end of their vacation), as things stand at `now`."""
    if turn.deadline is None or turn.paused_at is None:
        return turn.deadline
    return clocks.resumed(clock, turn.deadline, turn.paused_at, max(now, back_at or now))


def seconds_left(clock: Clock, turn: TurnClock, now: datetime) -> float | None:
    """The counted seconds the player to move has left: frozen while the clock is paused."""
    if turn.deadline is None:
        return None
    at = turn.paused_at if turn.paused_at is not None else now
    return clocks.time_left(clock, turn.deadline, at)
