"""Instants in words for people: deadlines in a player's time zone and language, with UTC
beside."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from html import escape
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError, available_timezones

from babel.dates import format_date

from pbem import i18n

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


# How each language writes a day: "Thursday 3 December", "jeudi 3 décembre", "donderdag 3
# december", "torsdag den 3. december" (Babel's names of days and months).
_DAY_PATTERNS = {"en": "EEEE d MMMM", "fr": "EEEE d MMMM", "nl": "EEEE d MMMM"}
_DAY_PATTERNS["da"] = "EEEE 'den' d. MMMM"
_LOCALES = {"en": "en_GB"}


def _day(at: datetime) -> str:
    language = i18n.language()
    return format_date(at, _DAY_PATTERNS[language], locale=_LOCALES.get(language, language))


def in_words(at: datetime, zone: str | None = None) -> str:
    """ "Thursday 3 December, 18:00 UTC"; in a zone, "Thursday 3 December, 19:00 CET
    (18:00 UTC)", the UTC day repeated when it differs. Naive instants are UTC. The day is
    written in the current language (pbem.i18n)."""
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


@dataclass(frozen=True)
class Later:
    """An instant written in words (`in_words`) only when it is shown, in the language of
    what is being written then: a letter is made before its recipient's language is known."""

    at: datetime
    zone: str | None = None

    def __str__(self) -> str:
        return in_words(self.at, self.zone)

    def __html__(self) -> str:
        return escape(str(self), quote=False)


def later(at: datetime | None, zone: str | None = None) -> Later | str:
    """`at` in words when shown; "" for no instant."""
    return Later(at, zone) if at is not None else ""


def iso(at: datetime | None) -> str | None:
    """ISO 8601 in UTC with a Z, as the API gives instants; None stays None."""
    if at is None:
        return None
    return _aware(at).replace(tzinfo=None).isoformat() + "Z"
