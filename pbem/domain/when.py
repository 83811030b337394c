"""Instants in words for people: deadlines in a player's time zone, with UTC beside."""

from __future__ import annotations

from datetime import UTC, datetime
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError, available_timezones

# Zone names are bounded and known: a stranger's form field never reaches ZoneInfo unchecked.
MAX_ZONE_LENGTH = 64


def valid_zone(name: str | None) -> str | None:
    """The IANA zone `name` when it is one this machine knows ("UTC" included), else None."""
    if not name or len(name) > MAX_ZONE_LENGTH or name not in _zones():
        return None
    return name


_ZONES: frozenset[str] | None = None


def _zones() -> frozenset[str]:
    global _ZONES
    if _ZONES is None:
        _ZONES = frozenset(available_timezones() | {"UTC"})
    return _ZONES


def zone_names() -> list[str]:
    return sorted(_zones())


def _aware(at: datetime) -> datetime:
    return at.replace(tzinfo=UTC) if at.tzinfo is None else at.astimezone(UTC)


def _day(at: datetime) -> str:
    return f"{at:%A} {at.day} {at:%B}"


def in_words(at: datetime, zone: str | None = None) -> str:
    """ "Thursday 3 December, 18:00 UTC"; in a zone, "Thursday 3 December, 19:00 CET
    (18:00 UTC)", the UTC day repeated when it differs. Naive instants are UTC."""
    utc = _aware(at)
    utc_words = f"{_day(utc)}, {utc:%H:%M} UTC"
    name = valid_zone(zone)
    if name is None or name == "UTC":
        return utc_words
    try:
        local = utc.astimezone(ZoneInfo(name))
    except ZoneInfoNotFoundError:
        return utc_words
    label = local.tzname() or name
    if label.startswith(("+", "-")):
        label = f"{name} ({label})"
    beside = f"{utc:%H:%M} UTC" if local.date() == utc.date() else utc_words
    return f"{_day(local)}, {local:%H:%M} {label} ({beside})"


def iso(at: datetime | None) -> str | None:
    """ISO 8601 in UTC with a Z, as the API gives instants; None stays None."""
    if at is None:
        return None
    return _aware(at).replace(tzinfo=None).isoformat() + "Z"
