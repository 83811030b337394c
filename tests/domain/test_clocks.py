"""Correspondence clocks: parsing, the API's JSON, counted time with free weekends, and the
bookkeeping of a turn (deadlines, banks, time left). Pure functions: no app, no database."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta, timezone

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pbem.domain.clocks import (
    ACCEPTED,
    DEFAULT,
    MAX_DAYS,
    NO_CLOCK,
    Clock,
    ClockError,
    add_counted,
    after_move,
    allowance,
    counted_seconds,
    deadline,
    extended,
    in_time,
    initial_bank,
    parse_clock,
    resumed,
    time_left,
)

DAY = 86_400.0
HOUR = 3_600.0
US = timedelta(microseconds=1)

# 2024-05-03 is a Friday; 2024-05-04/05 the weekend after it.
FRIDAY = datetime(2024, 5, 3, tzinfo=UTC)
SATURDAY = FRIDAY + timedelta(days=1)
MONDAY = FRIDAY + timedelta(days=3)


def at(day: int, hour: int = 0, minute: int = 0) -> datetime:
    """An instant in May 2024, UTC."""
    return datetime(2024, 5, day, hour, minute, tzinfo=UTC)


# Parsing


@pytest.mark.parametrize(
    ("text", "weekends_free", "expected"),
    [
        ("none", False, Clock("none")),
        ("none", True, Clock("none")),  # no clock to stop: the flag is ignored
        (" NONE ", False, Clock("none")),
        ("days:3", False, Clock("days", days=3)),
        ("days:3", True, Clock("days", days=3, weekends_free=True)),
        ("days:0.5", False, Clock("days", days=0.5)),
        ("Days:60", False, Clock("days", days=60)),
        ("fischer:7+1", False, Clock("fischer", initial=7, increment=1)),
        (
            "fischer:7+1/14",
            True,
            Clock("fischer", initial=7, increment=1, maximum=14, weekends_free=True),
        ),
        ("fischer:7+0/7", False, Clock("fischer", initial=7, increment=0, maximum=7)),
        ("fischer:0.5+0.25/1.5", False, Clock("fischer", initial=0.5, increment=0.25, maximum=1.5)),
    ],
)
def test_the_accepted_forms(text: str, weekends_free: bool, expected: Clock) -> None:
    assert parse_clock(text, weekends_free) == expected


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("", "Unknown clock ''."),
        ("3", "Unknown clock '3'."),
        ("hours:3", "Unknown clock 'hours:3'."),
        ("days", "Unknown clock 'days'."),
        ("days:", "after days: comes the number of days per move"),
        ("days:three", "after days: comes the number of days per move"),
        ("days:-1", "after days: comes the number of days per move"),
        ("days:1e3", "after days: comes the number of days per move"),
        ("days:nan", "after days: comes the number of days per move"),
        ("days:inf", "after days: comes the number of days per move"),
        ("days:.5", "after days: comes the number of days per move"),
        ("days:0", "The days per move must be more than 0 and at most 60, not 0."),
        ("days:0.0", "The days per move must be more than 0 and at most 60, not 0."),
        ("days:61", "The days per move must be more than 0 and at most 60, not 61."),
        ("days:60.5", "The days per move must be more than 0 and at most 60, not 60.5."),
        ("fischer:7", "after fischer: comes INITIAL+INCREMENT or INITIAL+INCREMENT/MAX"),
        ("fischer:7+", "after fischer: comes INITIAL+INCREMENT or INITIAL+INCREMENT/MAX"),
        ("fischer:7+1/", "after fischer: comes INITIAL+INCREMENT or INITIAL+INCREMENT/MAX"),
        ("fischer:7-1", "after fischer: comes INITIAL+INCREMENT or INITIAL+INCREMENT/MAX"),
        ("fischer:0+1", "initial bank must be more than 0 and at most 60 days, not 0."),
        ("fischer:61+1", "initial bank must be more than 0 and at most 60 days, not 61."),
        ("fischer:7+61", "increment must be from 0 to 60 days, not 61."),
        ("fischer:7+1/61", "maximum must be at most 60 days, not 61."),
        ("fischer:7+1/3", "maximum (3) must be at least its initial bank (7)."),
    ],
)
def test_every_error_says_what_is_wrong_and_what_is_accepted(text: str, problem: str) -> None:
    with pytest.raises(ClockError) as caught:
        parse_clock(text)
    message = str(caught.value)
    assert problem in message
    assert message.endswith(str(ACCEPTED))
    assert "days:N" in message and "fischer:INITIAL+INCREMENT[/MAX]" in message
    assert "none" in message
    assert isinstance(caught.value, ValueError)


@pytest.mark.parametrize(
    ("kwargs", "problem"),
    [
        ({"kind": "hours"}, "Unknown kind of clock 'hours'."),
        ({"kind": "days"}, "A days clock needs days."),
        ({"kind": "days", "days": 3, "initial": 1}, "A days clock has no initial."),
        ({"kind": "none", "days": 3}, "A none clock has no days."),
        ({"kind": "fischer", "initial": 7}, "A fischer clock needs increment."),
        ({"kind": "fischer", "initial": 7, "increment": 1, "days": 3}, "has no days"),
        ({"kind": "days", "days": True}, "must be a number of days, not True."),
        ({"kind": "days", "days": "3"}, "must be a number of days, not '3'."),
        ({"kind": "days", "days": float("nan")}, "more than 0 and at most 60"),
        ({"kind": "none", "weekends_free": True}, "Free weekends need a clock"),
    ],
)
def test_the_constructor_checks_too(kwargs: dict[str, object], problem: str) -> None:
    with pytest.raises(ClockError, match=problem.replace("(", r"\(").replace(")", r"\)")):
        Clock(**kwargs)  # type: ignore[arg-type]


def test_the_default_is_three_days_per_move() -> None:
    assert parse_clock("days:3") == DEFAULT
    assert DEFAULT.describe() == "3 days per move"
    assert parse_clock("none") == NO_CLOCK


@pytest.mark.parametrize(
    ("clock", "words"),
    [
        (parse_clock("none"), "no time limit"),
        (parse_clock("days:3"), "3 days per move"),
        (parse_clock("days:1"), "1 day per move"),
        (parse_clock("days:1.5"), "1.5 days per move"),
        (parse_clock("days:0.5"), "12 hours per move"),
        (parse_clock("days:3", weekends_free=True), "3 days per move, weekends free"),
        (parse_clock("fischer:7+1/14"), "Fischer: 7 days, +1 per move, at most 14"),
        (parse_clock("fischer:1+0.5"), "Fischer: 1 day, +0.5 per move"),
        (
            parse_clock("fischer:7+1/14", weekends_free=True),
            "Fischer: 7 days, +1 per move, at most 14, weekends free",
        ),
    ],
)
def test_describe(clock: Clock, words: str) -> None:
    assert clock.describe() == words


# JSON


@pytest.mark.parametrize(
    ("text", "weekends_free", "shape"),
    [
        ("none", False, '{"kind": "none", "weekends_free": false}'),
        ("days:3", False, '{"kind": "days", "days": 3, "weekends_free": false}'),
        ("days:0.5", True, '{"kind": "days", "days": 0.5, "weekends_free": true}'),
        (
            "fischer:7+1/14",
            False,
            '{"kind": "fischer", "initial": 7, "increment": 1, "max": 14, "weekends_free": false}',
        ),
        (
            "fischer:7+1",
            False,
            '{"kind": "fischer", "initial": 7, "increment": 1, "max": null, '
            '"weekends_free": false}',
        ),
    ],
)
def test_the_api_shape(text: str, weekends_free: bool, shape: str) -> None:
    clock = parse_clock(text, weekends_free)
    assert json.dumps(clock.to_json()) == shape
    assert Clock.from_json(json.loads(shape)) == clock


def test_from_json_lets_weekends_and_the_cap_be_left_out() -> None:
    assert Clock.from_json({"kind": "days", "days": 2}) == parse_clock("days:2")
    assert Clock.from_json({"kind": "fischer", "initial": 7, "increment": 1}) == parse_clock(
        "fischer:7+1"
    )


@pytest.mark.parametrize(
    ("data", "problem"),
    [
        ({}, "Unknown kind of clock None."),
        ({"kind": "hours"}, "Unknown kind of clock 'hours'."),
        ({"kind": "days"}, "A days clock needs days."),
        ({"kind": "days", "days": 3, "max": 4}, "A days clock has no max."),
        ({"kind": "none", "days": 3}, "A none clock has no days."),
        ({"kind": "days", "days": "3"}, "must be a number of days, not '3'."),
        ({"kind": "days", "days": True}, "must be a number of days, not True."),
        ({"kind": "days", "days": 0}, "more than 0 and at most 60"),
        ({"kind": "days", "days": 3, "weekends_free": "yes"}, "must be true or false"),
        ({"kind": "none", "weekends_free": True}, "Free weekends need a clock"),
        ({"kind": "fischer", "initial": 7}, "A fischer clock needs increment."),
        ({"kind": "fischer", "initial": 7, "increment": 1, "max": 6}, "at least its initial"),
    ],
)
def test_from_json_refuses_anything_else(data: dict[str, object], problem: str) -> None:
    with pytest.raises(ClockError) as caught:
        Clock.from_json(data)
    assert problem in str(caught.value)


numbers = st.integers(min_value=1, max_value=60 * 1000).map(lambda n: n / 1000)
clocks = st.one_of(
    st.just(NO_CLOCK),
    st.builds(lambda d, w: Clock("days", days=d, weekends_free=w), numbers, st.booleans()),
    st.builds(
        lambda i, inc, extra, capped, w: Clock(
            "fischer",
            initial=i,
            increment=inc - 0.001,
            maximum=min(MAX_DAYS, i + extra) if capped else None,
            weekends_free=w,
        ),
        numbers,
        numbers,
        st.floats(min_value=0, max_value=60),
        st.booleans(),
        st.booleans(),
    ),
    st.builds(
        lambda d, w: Clock("days", days=d, weekends_free=w),
        st.floats(min_value=1e-9, max_value=60, exclude_min=False),
        st.booleans(),
    ),
)


@given(clocks)
def test_json_and_text_round_trip(clock: Clock) -> None:
    assert Clock.from_json(json.loads(json.dumps(clock.to_json()))) == clock
    assert parse_clock(clock.text(), clock.weekends_free) == clock
    assert clock.describe()


# Counted time


def test_friday_23h_plus_2h_with_weekends_free_is_monday_1h() -> None:
    friday_23 = at(3, 23)
    assert add_counted(friday_23, 2 * HOUR, weekends_free=True) == at(6, 1)
    assert add_counted(friday_23, 2 * HOUR, weekends_free=False) == at(4, 1)
    assert counted_seconds(friday_23, at(6, 1), weekends_free=True) == 2 * HOUR


def test_time_running_out_at_the_end_of_friday_stays_friday_24h() -> None:
    assert add_counted(at(3, 23), HOUR, weekends_free=True) == SATURDAY
    assert add_counted(at(1), 3 * DAY, weekends_free=True) == SATURDAY  # Wednesday + 3 days
    assert add_counted(at(3, 23), HOUR + 1e-6, weekends_free=True) == MONDAY + US


def test_a_span_across_three_weekends() -> None:
    thursday = at(2, 12)
    tuesday = at(21, 12)  # 19 days later, across the weekends of the 4th, the 11th, the 18th
    assert counted_seconds(thursday, tuesday, weekends_free=True) == 13 * DAY
    assert counted_seconds(thursday, tuesday, weekends_free=False) == 19 * DAY
    assert add_counted(thursday, 13 * DAY, weekends_free=True) == tuesday
    assert counted_seconds(tuesday, thursday, weekends_free=True) == -13 * DAY


def test_starting_inside_a_weekend() -> None:
    saturday_10 = at(4, 10)
    assert add_counted(saturday_10, HOUR, weekends_free=True) == at(6, 1)
    assert add_counted(saturday_10, 0, weekends_free=True) == saturday_10
    assert counted_seconds(saturday_10, at(5, 20), weekends_free=True) == 0
    assert counted_seconds(saturday_10, at(6, 1), weekends_free=True) == HOUR
    assert counted_seconds(at(3, 22), saturday_10, weekends_free=True) == 2 * HOUR
    # A days clock started on a Saturday: 3 working days from Monday 00:00.
    assert add_counted(saturday_10, 3 * DAY, weekends_free=True) == at(9)


def test_long_spans_by_whole_weeks() -> None:
    monday = datetime(2000, 1, 3, tzinfo=UTC)
    later = monday + timedelta(weeks=52 * 50)
    assert counted_seconds(monday, later, weekends_free=True) == 52 * 50 * 5 * DAY
    assert add_counted(monday, 52 * 50 * 5 * DAY, weekends_free=True) == later - timedelta(days=2)


def test_exact_to_the_microsecond() -> None:
    last = SATURDAY - US
    assert add_counted(last, 2e-6, weekends_free=True) == MONDAY + US
    assert counted_seconds(last, MONDAY + US, weekends_free=True) == 2e-6
    assert add_counted(FRIDAY, 0.1234564, weekends_free=False) == FRIDAY + timedelta(
        microseconds=123456
    )


def test_weekends_are_utc_weekends_and_naive_means_utc() -> None:
    # Saturday 09:00 at UTC+14 is Friday 19:00 UTC: it counts.
    kiribati = timezone(timedelta(hours=14))
    saturday_there = datetime(2024, 5, 4, 9, tzinfo=kiribati)
    assert counted_seconds(saturday_there, SATURDAY, weekends_free=True) == 5 * HOUR
    # The result is in UTC, whatever the start's zone.
    assert add_counted(saturday_there, HOUR, True).tzinfo is UTC
    # Naive in, naive (UTC) out, as the database keeps them.
    naive = at(3, 23).replace(tzinfo=None)
    assert add_counted(naive, 2 * HOUR, weekends_free=True) == datetime(2024, 5, 6, 1)
    assert counted_seconds(naive, at(6, 1), weekends_free=True) == 2 * HOUR


def test_no_negative_or_endless_times() -> None:
    for seconds in (-1.0, float("nan"), float("inf")):
        with pytest.raises(ValueError):
            add_counted(FRIDAY, seconds, weekends_free=True)


moments = st.datetimes(
    min_value=datetime(1990, 1, 1), max_value=datetime(2090, 1, 1), timezones=st.just(UTC)
)
# Times that are whole microseconds, up to 120 days: x / 1e6 of these is exact.
micros = st.integers(min_value=0, max_value=120 * 86_400 * 1_000_000)


def in_a_weekend(moment: datetime) -> bool:
    """Strictly after a Saturday's 00:00 and before Monday's."""
    return moment.weekday() == 6 or (moment.weekday() == 5 and moment.time() != datetime.min.time())


@given(moments, micros, st.booleans())
def test_counted_undoes_add_counted(start: datetime, amount: int, weekends_free: bool) -> None:
    seconds = amount / 1_000_000
    end = add_counted(start, seconds, weekends_free)
    assert counted_seconds(start, end, weekends_free) == seconds
    assert end >= start


@given(moments, st.floats(min_value=0, max_value=1e7), st.booleans())
def test_counted_undoes_add_counted_to_the_microsecond(
    start: datetime, seconds: float, weekends_free: bool
) -> None:
    end = add_counted(start, seconds, weekends_free)
    assert abs(counted_seconds(start, end, weekends_free) - seconds) <= 5e-7 + seconds * 1e-15


@given(moments, micros.filter(bool), st.booleans())
def test_add_counted_gives_the_earliest_instant_never_inside_a_weekend(
    start: datetime, amount: int, weekends_free: bool
) -> None:
    seconds = amount / 1_000_000
    end = add_counted(start, seconds, weekends_free)
    assert counted_seconds(start, end - US, weekends_free) < seconds
    if weekends_free:
        assert not in_a_weekend(end)


@given(moments, micros, micros, st.booleans())
def test_add_counted_is_monotonic(start: datetime, a: int, b: int, weekends_free: bool) -> None:
    low, high = sorted((a, b))
    assert add_counted(start, low / 1e6, weekends_free) <= add_counted(
        start, high / 1e6, weekends_free
    )


@given(moments, moments, moments, st.booleans())
def test_counted_seconds_is_monotonic_and_at_most_the_wall_clock(
    start: datetime, a: datetime, b: datetime, weekends_free: bool
) -> None:
    early, late = sorted((a, b))
    assert counted_seconds(start, early, weekends_free) <= counted_seconds(
        start, late, weekends_free
    )
    span = counted_seconds(early, late, weekends_free)
    wall = (late - early).total_seconds()
    assert 0 <= span <= wall
    if not weekends_free:
        assert span == wall
    assert counted_seconds(late, early, weekends_free) == -span


@given(moments, st.integers(min_value=0, max_value=200))
def test_any_whole_week_counts_five_days(start: datetime, weeks: int) -> None:
    assert counted_seconds(start, start + timedelta(weeks=weeks), True) == weeks * 5 * DAY


@given(moments, moments, st.booleans())
def test_add_counted_reaches_back_to_the_end(a: datetime, b: datetime, weekends_free: bool) -> None:
    start, end = sorted((a, b))
    counted = counted_seconds(start, end, weekends_free)
    back = add_counted(start, counted, weekends_free)
    assert back <= end
    assert counted_seconds(start, back, weekends_free) == counted
    # Saturday 00:00 to Monday 00:00 all count the same: add_counted gives the first of them.
    monday_midnight = end.weekday() == 0 and end.time() == datetime.min.time()
    if not weekends_free or not (in_a_weekend(end) or monday_midnight):
        assert back == end
    else:
        weekend_began = datetime.combine(
            (end - timedelta(days=1, microseconds=1)).date(), datetime.min.time(), UTC
        )
        weekend_began -= timedelta(days=weekend_began.weekday() - 5)
        assert back == max(start, weekend_began)


# A turn on the clock

DAYS3 = parse_clock("days:3")
DAYS3_FREE = parse_clock("days:3", weekends_free=True)
FISCHER = parse_clock("fischer:7+1/14")


def test_initial_banks_and_allowances() -> None:
    assert initial_bank(FISCHER) == 7 * DAY
    assert initial_bank(DAYS3) is None
    assert initial_bank(NO_CLOCK) is None
    assert allowance(DAYS3, None) == 3 * DAY
    assert allowance(FISCHER, 2 * DAY) == 2 * DAY
    assert allowance(FISCHER, -5.0) == 0
    assert allowance(NO_CLOCK, None) is None
    with pytest.raises(ValueError):
        allowance(FISCHER, None)


def test_days_deadlines() -> None:
    monday_9 = at(6, 9)
    assert deadline(DAYS3, monday_9, None) == at(9, 9)
    assert deadline(DAYS3, at(9, 9), None) == at(12, 9)
    assert deadline(DAYS3_FREE, at(9, 9), None) == at(14, 9)  # Thursday → Tuesday
    assert deadline(parse_clock("days:0.5"), monday_9, None) == at(6, 21)
    assert deadline(NO_CLOCK, monday_9, None) is None
    assert after_move(DAYS3, at(9, 9), at(7)) is None
    assert after_move(NO_CLOCK, None, at(7)) is None


def test_a_fischer_bank_spends_the_time_taken_and_gains_the_increment() -> None:
    start = at(6, 9)
    bank = initial_bank(FISCHER)
    due = deadline(FISCHER, start, bank)
    assert due == at(13, 9)
    # Two days taken: 7 - 2 + 1 = 6 days.
    assert after_move(FISCHER, due, at(8, 9)) == 6 * DAY
    # Half an hour taken, the bank is full: capped at 14 days, never more.
    full = parse_clock("fischer:14+1/14")
    assert after_move(full, deadline(full, start, 14 * DAY), at(6, 9, 30)) == 14 * DAY
    # Without a cap, the bank grows.
    uncapped = parse_clock("fischer:7+1")
    assert after_move(uncapped, deadline(uncapped, start, 7 * DAY), start) == 8 * DAY
    # A late move keeps only the increment.
    assert after_move(FISCHER, due, at(20)) == DAY


def test_a_fischer_bank_over_many_quick_moves_stops_at_the_cap() -> None:
    clock = parse_clock("fischer:7+1/10")
    bank = initial_bank(clock)
    start = at(6)
    for _ in range(6):
        due = deadline(clock, start, bank)
        moved = start + timedelta(hours=1)
        bank = after_move(clock, due, moved)
        start = moved
    assert bank == 10 * DAY


def test_weekends_free_are_not_taken_from_the_bank() -> None:
    clock = parse_clock("fischer:2+0", weekends_free=True)
    start = at(3, 12)  # Friday noon: the bank runs out Tuesday noon
    due = deadline(clock, start, initial_bank(clock))
    assert due == at(7, 12)
    assert after_move(clock, due, at(6, 12)) == DAY  # moved Monday noon: one day spent
    assert time_left(clock, due, at(5, 12)) == 1.5 * DAY  # Sunday: Friday afternoon only spent


@given(st.integers(min_value=1, max_value=14 * 86_400), moments, micros, micros)
def test_after_move_is_bank_minus_time_taken_plus_increment(
    bank_s: int, start: datetime, taken: int, weekend_start: int
) -> None:
    for clock in (FISCHER, parse_clock("fischer:7+1/14", weekends_free=True)):
        bank = float(bank_s)
        moved = start + timedelta(microseconds=taken)
        expected = min(
            14 * DAY,
            max(0.0, bank - counted_seconds(start, moved, clock.weekends_free)) + DAY,
        )
        got = after_move(clock, deadline(clock, start, bank), moved)
        assert got is not None and abs(got - expected) <= 1e-6


@given(moments, moments, st.sampled_from([DAYS3, DAYS3_FREE, FISCHER]))
def test_time_left_is_never_negative_and_positive_exactly_while_in_time(
    start: datetime, now: datetime, clock: Clock
) -> None:
    due = deadline(clock, start, initial_bank(clock))
    left = time_left(clock, due, now)
    assert left is not None and left >= 0
    assert (left > 0) == in_time(due, now)
    if now >= start:
        assert left <= (allowance(clock, initial_bank(clock)) or 0)


def test_time_left_and_in_time() -> None:
    due = deadline(DAYS3, at(6, 9), None)
    assert time_left(DAYS3, due, at(6, 9)) == 3 * DAY
    assert time_left(DAYS3, due, at(9, 8)) == HOUR
    assert time_left(DAYS3, due, at(9, 9)) == 0
    assert time_left(DAYS3, due, at(20)) == 0
    assert time_left(NO_CLOCK, None, at(20)) is None
    assert in_time(due, at(9, 9) - US)
    assert not in_time(due, at(9, 9))  # stored at the deadline: too late
    assert in_time(None, at(31))
    assert in_time(due, datetime(2024, 5, 9, 8))  # naive UTC


def test_downtime_extends_deadlines_by_the_gap() -> None:
    due = at(9, 9)
    assert extended(due, 5 * HOUR) == at(9, 14)
    assert extended(None, 5 * HOUR) is None
    with pytest.raises(ValueError):
        extended(due, -1.0)
    # Without free weekends, stopping and resuming the clock is the same shift.
    assert resumed(DAYS3, due, at(8), at(8, 5)) == at(9, 14)


def test_a_vacation_stops_the_clock() -> None:
    due = at(13, 10)  # Monday 10:00, weekends free
    # Away from Friday 10:00 to Tuesday 10:00: one working day was left (Friday 10:00 to 24:00,
    # Monday 00:00 to 10:00), so the deadline is Wednesday 10:00.
    assert resumed(DAYS3_FREE, due, at(10, 10), at(14, 10)) == at(15, 10)
    # A plain shift by the 4 days of the vacation would give Friday 10:00.
    assert extended(due, 4 * DAY) == at(17, 10)
    # A deadline passed before the clock stopped stays passed; no clock, no deadline.
    assert resumed(DAYS3_FREE, due, at(14), at(20)) == due
    assert resumed(NO_CLOCK, None, at(14), at(20)) is None
    # Naive stays naive.
    naive = due.replace(tzinfo=None)
    assert resumed(DAYS3_FREE, naive, at(10, 10), at(14, 10)) == datetime(2024, 5, 15, 10)
