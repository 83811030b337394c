"""Correspondence clocks: the time controls a game is created with, and the pure arithmetic of
deadlines, banks and weekends. No database, no web, no reading of the clock: `now` is always
an argument.

The three kinds (`parse_clock` reads them as the CLI and the web form write them):

- `none`: no time limit;
- `days:N`: N days (fractions allowed) for every move;
- `fischer:INITIAL+INCREMENT[/MAX]`: each seat has a bank of INITIAL days; a move spends the time
  it took and adds INCREMENT days; the bank never exceeds MAX days, when given.

With `weekends_free`, Saturdays and Sundays (UTC, 00:00 to 24:00) do not count: time passes on
them but no clock runs. "Counted time" below means the time that counts.

How the service uses this module (the state it keeps: per game `turn_started_at` and
`deadline`, per seat `bank_seconds`):

- At creation: store `clock.to_json()` (or the clock's columns) on the game, and give every seat
  `bank_seconds = initial_bank(clock)` (a float for Fischer, None otherwise).
- When a turn starts (the previous move applied, or the game started): store
  `turn_started_at = at` and `deadline = deadline(clock, at, seat.bank_seconds)`. However many
  actions an engine makes of a turn, one turn is one move on the clock.
- When a submission is stored (time is judged then, not when a worker applies it): it is in
  time if `in_time(game.deadline, submission.created_at)`, i.e. stored strictly before the
  deadline. Applying it, set the mover's `bank_seconds = after_move(clock, game.deadline,
  submission.created_at)` (Fischer: the counted time that was left, plus the increment, capped),
  then start the next turn as above.
- For display and the API: `time_left(clock, game.deadline, now)` for the seat on move (never
  negative), `allowance(clock, seat.bank_seconds)` for the others (the time their next turn will
  start with); both None without a clock. `deadline` goes out as ISO 8601 UTC, `clock.to_json()`
  as the game's `clock`.
- The time-out task compares `now` with the stored deadlines: a deadline is passed once
  `not in_time(deadline, now)`.
- Downtime: when the clock task finds it has not run since `last_run`, for longer than the
  setting allows, every running deadline becomes `extended(deadline, gap)` (a plain wall-clock
  shift by the gap) or, to the microsecond of counted time,
  `resumed(clock, deadline, last_run, now)`; the two differ only when the gap overlaps a free
  weekend (the plain shift then gives a little more).
- Vacation: the mover's clock stops while they are away: on their return the deadline becomes
  `resumed(clock, deadline, left_at, back_at)`. A turn that starts while its player is away
  starts on their return. Other seats' banks do not run anyway.

Because the deadline is stored and everything after it (time left, the bank after a move) is
computed from it, shifting it for downtime or a vacation shifts all of them alike.

Datetimes may be aware (any zone) or naive; naive ones are taken as UTC, the project's storage
convention (`pbem.models.utcnow`). A datetime computed from a start keeps the start's kind: naive
in, naive UTC out; aware in, aware UTC out. Everything is exact to the microsecond, the
resolution of `datetime`: seconds are rounded to whole microseconds once, and all sums are done
in integer microseconds.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from typing import Literal, TypeGuard

from pbem import i18n
from pbem.domain import wording

ClockKind = Literal["none", "days", "fischer"]
KINDS: tuple[ClockKind, ...] = ("none", "days", "fischer")

# The most days any one number of a clock may say: a move, a Fischer bank, its increment or its
# cap. Two months is already more than a correspondence game needs; past it, a stalled game
# would hold its players for a season.
MAX_DAYS = 60.0

JSONScalar = str | int | float | bool | None

ACCEPTED = i18n.lazy_gettext(
    "Accepted clocks: none (no time limit); days:N (N days per move, e.g. days:3 or days:0.5); "
    "fischer:INITIAL+INCREMENT[/MAX] (a bank of INITIAL days, INCREMENT days added per move, "
    "at most MAX days, e.g. fischer:7+1/14); every number in days, at most %(most)s.",
    most=format(MAX_DAYS, "g"),
)

SECONDS_PER_DAY = 86_400


def _is_number(value: object) -> TypeGuard[int | float]:
    """A JSON number: an int or a float, not a bool."""
    return isinstance(value, int | float) and not isinstance(value, bool)


class ClockError(ValueError):
    """A clock that cannot be: the message says what is wrong and lists the accepted forms."""

    def __init__(self, problem: str) -> None:
        super().__init__(f"{problem} {ACCEPTED!s}")
        self.problem = problem


@dataclass(frozen=True)
class Clock:
    """A game's time control; every instance is valid (the constructor checks)."""

    kind: ClockKind
    days: float | None = None  # days per move (days)
    initial: float | None = None  # the bank each seat starts with, in days (fischer)
    increment: float | None = None  # days added to the bank by each move (fischer)
    maximum: float | None = None  # the most the bank may hold, in days; None: no cap (fischer)
    weekends_free: bool = False

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ClockError(i18n.gettext("Unknown kind of clock %(kind)s.", kind=repr(self.kind)))
        wanted = {"none": (), "days": ("days",), "fischer": ("initial", "increment")}[self.kind]
        allowed = {*wanted, "maximum"} if self.kind == "fischer" else set(wanted)
        for name in ("days", "initial", "increment", "maximum"):
            value = getattr(self, name)
            if name in wanted and value is None:
                raise ClockError(_needs(self.kind, name))
            if name not in allowed and value is not None:
                raise ClockError(_has_no(self.kind, name))
            if value is not None and not _is_number(value):
                raise ClockError(_not_days(name, value))
        if self.kind == "none" and self.weekends_free:
            raise ClockError(i18n.gettext("Free weekends need a clock: there is none."))
        most = f"{MAX_DAYS:g}"
        if self.days is not None and not 0 < self.days <= MAX_DAYS:
            raise ClockError(
                i18n.gettext(
                    "The days per move must be more than 0 and at most %(most)s, not %(days)s.",
                    most=most,
                    days=_plain(self.days),
                )
            )
        if self.initial is not None and not 0 < self.initial <= MAX_DAYS:
            raise ClockError(
                i18n.gettext(
                    "A Fischer clock's initial bank must be more than 0 and at most %(most)s "
                    "days, not %(days)s.",
                    most=most,
                    days=_plain(self.initial),
                )
            )
        if self.increment is not None and not 0 <= self.increment <= MAX_DAYS:
            raise ClockError(
                i18n.gettext(
                    "A Fischer clock's increment must be from 0 to %(most)s days, not %(days)s.",
                    most=most,
                    days=_plain(self.increment),
                )
            )
        if self.maximum is not None:
            if not self.maximum <= MAX_DAYS:
                raise ClockError(
                    i18n.gettext(
                        "A Fischer clock's maximum must be at most %(most)s days, not %(days)s.",
                        most=most,
                        days=_plain(self.maximum),
                    )
                )
            if self.initial is not None and not self.maximum >= self.initial:
                raise ClockError(
                    i18n.gettext(
                        "A Fischer clock's maximum (%(maximum)s) must be at least its initial "
                        "bank (%(initial)s).",
                        maximum=_plain(self.maximum),
                        initial=_plain(self.initial),
                    )
                )

    def to_json(self) -> dict[str, JSONScalar]:
        """The API's shape, e.g. {"kind": "days", "days": 3, "weekends_free": false}; whole
        numbers come out as integers. A Fischer clock without a cap has "max": null."""
        out: dict[str, JSONScalar] = {"kind": self.kind}
        if self.kind == "days":
            out["days"] = _number(self.days)
        elif self.kind == "fischer":
            out["initial"] = _number(self.initial)
            out["increment"] = _number(self.increment)
            out["max"] = None if self.maximum is None else _number(self.maximum)
        out["weekends_free"] = self.weekends_free
        return out

    @classmethod
    def from_json(cls, data: Mapping[str, object]) -> Clock:
        """The clock `to_json` wrote; ClockError for anything else. `weekends_free` may be
        left out (false) and so may a Fischer clock's `max` (no cap)."""
        if not isinstance(data, Mapping):
            raise ClockError(
                i18n.gettext("A clock is a JSON object, not %(value)s.", value=repr(data))
            )
        kind = data.get("kind")
        if kind not in KINDS:
            raise ClockError(i18n.gettext("Unknown kind of clock %(kind)s.", kind=repr(kind)))
        fields = {"none": (), "days": ("days",), "fischer": ("initial", "increment", "max")}
        known = {"kind", "weekends_free", *fields[str(kind)]}
        unknown = sorted(str(key) for key in data if key not in known)
        if unknown:
            raise ClockError(_has_no(str(kind), ", ".join(unknown)))
        weekends_free = data.get("weekends_free", False)
        if not isinstance(weekends_free, bool):
            raise ClockError(
                i18n.gettext(
                    "weekends_free must be true or false, not %(value)s.",
                    value=repr(weekends_free),
                )
            )
        numbers: dict[str, float | None] = {}
        for name in fields[str(kind)]:
            value = data.get(name)
            if value is None and name == "max":
                numbers[name] = None
            elif value is None:
                raise ClockError(_needs(str(kind), name))
            elif not _is_number(value):
                raise ClockError(_not_days(name, value))
            else:
                numbers[name] = float(value)
        if kind == "days":
            return cls("days", days=numbers["days"], weekends_free=weekends_free)
        if kind == "fischer":
            return cls(
                "fischer",
                initial=numbers["initial"],
                increment=numbers["increment"],
                maximum=numbers["max"],
                weekends_free=weekends_free,
            )
        if weekends_free:
            raise ClockError(i18n.gettext("Free weekends need a clock: there is none."))
        return cls("none")

    def text(self) -> str:
        """The form `parse_clock` reads, without the weekends (a separate flag):
        `parse_clock(c.text(), c.weekends_free) == c`."""
        if self.kind == "days":
            return f"days:{_plain(self.days)}"
        if self.kind == "fischer":
            cap = "" if self.maximum is None else f"/{_plain(self.maximum)}"
            return f"fischer:{_plain(self.initial)}+{_plain(self.increment)}{cap}"
        return "none"

    def describe(self) -> str:
        """In words: "3 days per move", "Fischer: 7 days, +1 per move, at most 14",
        "no time limit"; ", weekends free" after those that have them."""
        free = self.weekends_free
        if self.kind == "days" and self.days is not None:
            span = _span(self.days)
            if free:
                return i18n.gettext("%(span)s per move, weekends free", span=span)
            return i18n.gettext("%(span)s per move", span=span)
        if self.kind == "fischer" and self.initial is not None and self.increment is not None:
            initial = wording.span(self.initial, wording.DAY, _plain(self.initial))
            increment = _plain(self.increment)
            if self.maximum is None:
                if free:
                    return i18n.gettext(
                        "Fischer: %(initial)s, +%(increment)s per move, weekends free",
                        initial=initial,
                        increment=increment,
                    )
                return i18n.gettext(
                    "Fischer: %(initial)s, +%(increment)s per move",
                    initial=initial,
                    increment=increment,
                )
            most = _plain(self.maximum)
            if free:
                return i18n.gettext(
                    "Fischer: %(initial)s, +%(increment)s per move, at most %(most)s, weekends "
                    "free",
                    initial=initial,
                    increment=increment,
                    most=most,
                )
            return i18n.gettext(
                "Fischer: %(initial)s, +%(increment)s per move, at most %(most)s",
                initial=initial,
                increment=increment,
                most=most,
            )
        return i18n.gettext("no time limit")


NO_CLOCK = Clock("none")

# The default for new games: 3 days per move is long enough for a weekend away (or a busy few
# days) without losing a game on time, and short enough that a game of 40 turns, at worst a
# move every 3 days each, ends in weeks rather than seasons; most moves come much sooner.
DEFAULT = Clock("days", days=3.0)

_NUMBER = r"\d+(?:\.\d+)?"
_DAYS = re.compile(rf"({_NUMBER})")
_FISCHER = re.compile(rf"({_NUMBER})\+({_NUMBER})(?:/({_NUMBER}))?")


def parse_clock(text: str, weekends_free: bool = False) -> Clock:
    """The clock `text` names: `none`, `days:N` or `fischer:INITIAL+INCREMENT[/MAX]`, numbers in
    days (decimal fractions allowed, no exponents), case and surrounding spaces ignored.
    `weekends_free` is ignored for `none` (there is no clock to stop). ClockError otherwise."""
    cleaned = text.strip().lower()
    if cleaned == "none":
        return NO_CLOCK
    kind, colon, rest = cleaned.partition(":")
    if not colon or kind not in ("days", "fischer"):
        raise ClockError(i18n.gettext("Unknown clock %(clock)s.", clock=repr(text)))
    if kind == "days":
        match = _DAYS.fullmatch(rest)
        if match is None:
            raise ClockError(
                i18n.gettext(
                    "Clock %(clock)s: after days: comes the number of days per move, such as "
                    "days:3.",
                    clock=repr(text),
                )
            )
        return Clock("days", days=float(match[1]), weekends_free=weekends_free)
    match = _FISCHER.fullmatch(rest)
    if match is None:
        raise ClockError(
            i18n.gettext(
                "Clock %(clock)s: after fischer: comes INITIAL+INCREMENT or INITIAL+INCREMENT/MAX, "
                "in days, such as fischer:7+1 or fischer:7+1/14.",
                clock=repr(text),
            )
        )
    return Clock(
        "fischer",
        initial=float(match[1]),
        increment=float(match[2]),
        maximum=None if match[3] is None else float(match[3]),
        weekends_free=weekends_free,
    )


# Counted time. Instants are whole microseconds after a Monday 00:00 UTC; with weekends free,
# the counted time from that Monday to an instant is 5 days per whole week plus the week's
# remainder up to 5 days. Weekdays count, Saturday 00:00 to Monday 00:00 does not.

_US = 1_000_000
_ONE_US = timedelta(microseconds=1)
_DAY_US = SECONDS_PER_DAY * _US
_WEEK_US = 7 * _DAY_US
_WORKWEEK_US = 5 * _DAY_US
_MONDAY = datetime(1970, 1, 5, tzinfo=UTC)


def _utc(moment: datetime) -> datetime:
    return moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment


def _micros(moment: datetime) -> int:
    """Microseconds from the reference Monday to `moment` (negative before it)."""
    return (_utc(moment) - _MONDAY) // _ONE_US


def _moment(micros: int, like: datetime) -> datetime:
    """The instant `micros` after the reference Monday, naive or aware as `like` is."""
    moment = _MONDAY + timedelta(microseconds=micros)
    return moment.replace(tzinfo=None) if like.tzinfo is None else moment


def _counted_to(micros: int) -> int:
    """Weekday microseconds from the reference Monday to the instant `micros`."""
    weeks, rest = divmod(micros, _WEEK_US)
    return weeks * _WORKWEEK_US + min(rest, _WORKWEEK_US)


def _first_with_count(counted: int) -> int:
    """The earliest instant (micros) whose `_counted_to` is `counted`: a whole number of
    working weeks is first reached on Saturday 00:00 (Friday 24:00), not on Monday."""
    weeks, rest = divmod(counted, _WORKWEEK_US)
    if rest == 0:
        return (weeks - 1) * _WEEK_US + _WORKWEEK_US
    return weeks * _WEEK_US + rest


def _to_micros(seconds: float, what: str) -> int:
    if not math.isfinite(seconds):
        raise ValueError(f"{what} must be a finite number of seconds, not {seconds!r}")
    return round(seconds * _US)


def counted_seconds(start: datetime, end: datetime, weekends_free: bool) -> float:
    """The seconds between `start` and `end` that count: all of them, or, with
    `weekends_free`, those not on a Saturday or Sunday (UTC). Negative when `end` is before
    `start` (the same amount, counted backwards)."""
    if not weekends_free:
        return ((_utc(end) - _utc(start)) // _ONE_US) / _US
    return (_counted_to(_micros(end)) - _counted_to(_micros(start))) / _US


def add_counted(start: datetime, seconds: float, weekends_free: bool) -> datetime:
    """The earliest instant at which `seconds` (>= 0, rounded to the microsecond) of counted
    time have passed since `start`.

    With weekends free, whole weekends are skipped, and a time that runs out exactly at the end
    of a Friday gives Saturday 00:00, never the following Monday; so for `seconds > 0` the
    result is never inside a weekend. `seconds == 0` gives `start` itself, even on a weekend.
    `counted_seconds(start, add_counted(start, x, w), w)` is `x` to the microsecond."""
    micros = _to_micros(seconds, "The time to add")
    if micros < 0:
        raise ValueError(f"The time to add must not be negative, not {seconds!r}")
    if micros == 0:
        return start if start.tzinfo is None else start.astimezone(UTC)
    if not weekends_free:
        return _moment(_micros(start) + micros, start)
    return _moment(_first_with_count(_counted_to(_micros(start)) + micros), start)


# A turn on the clock.


def initial_bank(clock: Clock) -> float | None:
    """The seconds each seat's bank starts with: Fischer's initial days; None for the other
    kinds, which keep no bank."""
    if clock.kind == "fischer" and clock.initial is not None:
        return clock.initial * SECONDS_PER_DAY
    return None


def allowance(clock: Clock, bank_seconds: float | None) -> float | None:
    """The counted seconds a turn starts with: the days per move, or the seat's bank (never
    less than 0); None without a clock."""
    if clock.kind == "days" and clock.days is not None:
        return clock.days * SECONDS_PER_DAY
    if clock.kind == "fischer":
        if bank_seconds is None:
            raise ValueError("A Fischer clock needs the seat's bank")
        return max(0.0, bank_seconds)
    return None


def deadline(clock: Clock, turn_started: datetime, bank_seconds: float | None) -> datetime | None:
    """When a turn started at `turn_started` runs out of time: the start plus the allowance
    (days per move, or the Fischer bank) of counted time; None without a clock."""
    seconds = allowance(clock, bank_seconds)
    if seconds is None:
        return None
    return add_counted(turn_started, seconds, clock.weekends_free)


def in_time(deadline: datetime | None, at: datetime) -> bool:
    """Whether something done (a submission stored) at `at` beats `deadline`: strictly before
    it. Always true without a deadline."""
    return deadline is None or _utc(at) < _utc(deadline)


def time_left(clock: Clock, deadline: datetime | None, now: datetime) -> float | None:
    """The counted seconds left at `now` before `deadline`, never negative; None without a
    clock. Positive exactly when `in_time(deadline, now)`."""
    if clock.kind == "none" or deadline is None:
        return None
    return max(0.0, counted_seconds(now, deadline, clock.weekends_free))


def after_move(clock: Clock, deadline: datetime | None, moved_at: datetime) -> float | None:
    """The mover's bank once a move stored at `moved_at` is applied (Fischer): the counted
    time that was left before `deadline`, plus the increment, capped at the maximum. A late
    move (which the service should have refused) keeps only the increment. None for the other
    kinds: they keep no bank."""
    if clock.kind != "fischer" or clock.increment is None:
        return None
    if deadline is None:
        raise ValueError("A Fischer clock's turn has a deadline")
    left = time_left(clock, deadline, moved_at) or 0.0
    bank = left + clock.increment * SECONDS_PER_DAY
    if clock.maximum is not None:
        bank = min(bank, clock.maximum * SECONDS_PER_DAY)
    return bank


def extended(deadline: datetime | None, gap_seconds: float) -> datetime | None:
    """`deadline` moved later by `gap_seconds` (>= 0) of wall-clock time, for downtime: the
    players are not to blame for it. None stays None."""
    micros = _to_micros(gap_seconds, "The gap")
    if micros < 0:
        raise ValueError(f"The gap must not be negative, not {gap_seconds!r}")
    if deadline is None:
        return None
    return deadline + timedelta(microseconds=micros)


def resumed(
    clock: Clock, deadline: datetime | None, stopped_at: datetime, resumed_at: datetime
) -> datetime | None:
    """The deadline once a clock stopped at `stopped_at` (a vacation, downtime) runs again
    from `resumed_at`, with the same counted time left. A deadline already passed at
    `stopped_at` stays as it is; None stays None."""
    if deadline is None or not in_time(deadline, stopped_at):
        return deadline
    left = counted_seconds(stopped_at, deadline, clock.weekends_free)
    moment = add_counted(max(_utc(stopped_at), _utc(resumed_at)), left, clock.weekends_free)
    return moment.replace(tzinfo=None) if deadline.tzinfo is None else moment


def _number(value: float | None) -> int | float | None:
    """A whole number as an int (3, not 3.0), for JSON."""
    if value is None:
        return None
    return int(value) if float(value).is_integer() else float(value)


def _plain(value: float | None) -> str:
    """A number as the clock's text writes it: no exponent, no trailing zeros, and read back
    by float() as the same value."""
    if value is None:
        return ""
    number = _number(value)
    if isinstance(number, int):
        return str(number)
    return format(Decimal(repr(number)), "f")


def _span(days: float) -> str:
    """A duration in words, in the largest unit it has one of: "3 days", "1 day", "1.5 days",
    "12 hours", "30 minutes"."""
    seconds = days * SECONDS_PER_DAY
    units = (
        (wording.DAY, 86_400),
        (wording.HOUR, 3_600),
        (wording.MINUTE, 60),
        (wording.SECOND, 1),
    )
    unit, size = next((u for u in units if seconds >= u[1]), units[-1])
    return wording.span(round(seconds / size, 2), unit)


def _needs(kind: str, name: str) -> str:
    """A clock of `kind` (days, fischer) given without its field `name`."""
    return i18n.gettext("A %(kind)s clock needs %(name)s.", kind=kind, name=name)


def _has_no(kind: str, names: str) -> str:
    return i18n.gettext("A %(kind)s clock has no %(names)s.", kind=kind, names=names)


def _not_days(name: str, value: object) -> str:
    return i18n.gettext(
        "The clock's %(name)s must be a number of days, not %(value)s.",
        name=name,
        value=repr(value),
    )
