"""A new game's clock and timeout policy, checked before anything is stored: a refusal
(SetupError) says what is allowed."""

from __future__ import annotations

from pbem import i18n
from pbem.config import Settings
from pbem.domain import clocks, wording
from pbem.domain.clocks import Clock, parse_clock
from pbem.domain.errors import SetupError
from pbem.models import DROP, TIMEOUT_POLICIES


def check_timeout_policy(policy: str | None, players: int) -> str:
    """What becomes of a seat out of time in a game of three or four: it leaves (`drop`, the
    default) or the greedy bot plays it (`autopilot`). A two-player game is lost on time
    whatever the policy. SetupError for any other value."""
    if policy is None or not policy.strip():
        return DROP
    chosen = policy.strip().lower()
    if chosen not in TIMEOUT_POLICIES:
        raise SetupError(
            i18n.gettext(
                "%(policy)s is not a timeout policy: choose %(choices)s (what becomes of a player "
                "who runs out of time in a game of three or four).",
                policy=repr(policy.strip()[:20]),
                choices=wording.or_list(TIMEOUT_POLICIES),
            )
        )
    return chosen


def check_language(language: str | None) -> str:
    """A game's language (English when not given); SetupError when pbem does not speak it."""
    if language is None or not language.strip():
        return i18n.ENGLISH
    chosen = i18n.valid(language)
    if chosen is None or language.strip().lower() != chosen:
        raise SetupError(
            i18n.gettext(
                "pbem speaks %(choices)s: choose one of them.", choices=", ".join(i18n.LANGUAGES)
            )
        )
    return chosen


def check_clock(config: Settings, clock: Clock | None) -> Clock:
    """The game's clock: the default when none is given; SetupError when shorter than the
    service allows (PBEM_CLOCK_MIN_SECONDS)."""
    clock = clock or parse_clock(config.clocks.default_clock)
    shortest = config.clocks.min_move_seconds
    allowed = clocks.allowance(clock, clocks.initial_bank(clock))
    if allowed is not None and allowed < shortest:
        raise SetupError(
            i18n.gettext(
                "A clock of %(clock)s is too short: each move must have at least %(shortest)s.",
                clock=clock.describe(),
                shortest=_duration(shortest),
            )
        )
    return clock


def _duration(seconds: float) -> str:
    for unit, size in ((wording.DAY, 86_400), (wording.HOUR, 3_600), (wording.MINUTE, 60)):
        if seconds >= size:
            return wording.span(round(seconds / size, 2), unit)
    return wording.span(float(seconds), wording.SECOND)
