"""The settings of correspondence clocks: defaults, parsing, and bad values refused by name."""

from __future__ import annotations

import pytest

from pbem.config import SETTING_NAMES, ClockSettings, ConfigError, load_settings

BASE = {"PBEM_ENV": "test", "DATABASE_URL": "sqlite:///:memory:"}
CLOCK_SETTINGS = (
    "PBEM_DEFAULT_CLOCK",
    "PBEM_CLOCK_SECONDS",
    "PBEM_CLOCK_DOWNTIME_SECONDS",
    "PBEM_CLOCK_MIN_SECONDS",
    "PBEM_REMINDER_HOURS",
    "PBEM_VACATION_DAYS_PER_YEAR",
    "PBEM_INVITATION_DAYS",
)


def _clocks(**env: str) -> ClockSettings:
    return load_settings({**BASE, **env}).clocks


def test_every_clock_setting_is_a_known_setting() -> None:
    assert set(CLOCK_SETTINGS) <= set(SETTING_NAMES)


def test_the_defaults() -> None:
    assert _clocks() == ClockSettings(
        default_clock="days:3",
        period_seconds=60,
        downtime_seconds=600,
        min_move_seconds=3600.0,
        reminder_hours=(24.0, 2.0),
        vacation_days_per_year=14.0,
        invitation_days=7.0,
    )


def test_blank_settings_are_the_defaults() -> None:
    assert _clocks(**dict.fromkeys(CLOCK_SETTINGS, "  ")) == _clocks()


@pytest.mark.parametrize("clock", ["none", "days:1", "days:0.5", "fischer:7+1", "fischer:7+1/14"])
def test_the_default_clock(clock: str) -> None:
    assert _clocks(PBEM_DEFAULT_CLOCK=clock).default_clock == clock


def test_the_period_and_downtime_of_the_clock_task() -> None:
    clocks = _clocks(PBEM_CLOCK_SECONDS="30", PBEM_CLOCK_DOWNTIME_SECONDS="120")
    assert (clocks.period_seconds, clocks.downtime_seconds) == (30, 120)


def test_the_shortest_move() -> None:
    assert _clocks(PBEM_CLOCK_MIN_SECONDS="90.5").min_move_seconds == 90.5


@pytest.mark.parametrize(
    ("value", "hours"),
    [
        ("24,2", (24.0, 2.0)),
        ("2, 24", (24.0, 2.0)),
        ("48,24,24,1.5", (48.0, 24.0, 1.5)),
        ("6", (6.0,)),
        ("none", ()),
        ("None", ()),
    ],
)
def test_the_reminder_hours(value: str, hours: tuple[float, ...]) -> None:
    assert _clocks(PBEM_REMINDER_HOURS=value).reminder_hours == hours


def test_the_vacation_days_and_invitation_days() -> None:
    clocks = _clocks(PBEM_VACATION_DAYS_PER_YEAR="21", PBEM_INVITATION_DAYS="3.5")
    assert (clocks.vacation_days_per_year, clocks.invitation_days) == (21.0, 3.5)


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("PBEM_DEFAULT_CLOCK", "weekly"),
        ("PBEM_DEFAULT_CLOCK", "days:0"),
        ("PBEM_DEFAULT_CLOCK", "fischer:7+1/3"),
        ("PBEM_CLOCK_SECONDS", "0"),
        ("PBEM_CLOCK_SECONDS", "often"),
        ("PBEM_CLOCK_SECONDS", "1.5"),
        ("PBEM_CLOCK_DOWNTIME_SECONDS", "-5"),
        ("PBEM_CLOCK_DOWNTIME_SECONDS", "ten minutes"),
        ("PBEM_CLOCK_MIN_SECONDS", "0"),
        ("PBEM_CLOCK_MIN_SECONDS", "inf"),
        ("PBEM_CLOCK_MIN_SECONDS", "nan"),
        ("PBEM_REMINDER_HOURS", "24,,2"),
        ("PBEM_REMINDER_HOURS", "24,0"),
        ("PBEM_REMINDER_HOURS", "a day"),
        ("PBEM_REMINDER_HOURS", "-2"),
        ("PBEM_VACATION_DAYS_PER_YEAR", "0"),
        ("PBEM_VACATION_DAYS_PER_YEAR", "two weeks"),
        ("PBEM_INVITATION_DAYS", "-1"),
        ("PBEM_INVITATION_DAYS", "week"),
    ],
)
def test_bad_values_are_refused_by_name(name: str, value: str) -> None:
    with pytest.raises(ConfigError, match=name):
        _clocks(**{name: value})


def test_a_bad_default_clock_says_which_clocks_are_accepted() -> None:
    with pytest.raises(ConfigError, match="Accepted clocks: none"):
        _clocks(PBEM_DEFAULT_CLOCK="weekly")


def test_downtime_must_be_longer_than_the_period_of_the_clock_task() -> None:
    with pytest.raises(
        ConfigError,
        match=r"PBEM_CLOCK_DOWNTIME_SECONDS \(600\) must be more than PBEM_CLOCK_SECONDS",
    ):
        _clocks(PBEM_CLOCK_SECONDS="600")
    with pytest.raises(ConfigError, match="PBEM_CLOCK_DOWNTIME_SECONDS"):
        _clocks(PBEM_CLOCK_SECONDS="60", PBEM_CLOCK_DOWNTIME_SECONDS="30")
    assert _clocks(PBEM_CLOCK_SECONDS="599").downtime_seconds == 600


def test_the_default_clock_must_allow_the_shortest_move() -> None:
    with pytest.raises(ConfigError, match=r"PBEM_DEFAULT_CLOCK='days:0\.01' is shorter than"):
        _clocks(PBEM_DEFAULT_CLOCK="days:0.01")
    assert _clocks(PBEM_DEFAULT_CLOCK="days:0.01", PBEM_CLOCK_MIN_SECONDS="60").default_clock
    assert _clocks(PBEM_DEFAULT_CLOCK="none", PBEM_CLOCK_MIN_SECONDS="1e9").default_clock
