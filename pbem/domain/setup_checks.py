"""A new game's clock and timeout policy, checked before anything is stored: a refusal
(SetupError) says what is allowed."""

from __future__ import annotations

from pbem.config import Settings
from pbem.domain import clocks
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
        allowed = " or ".join(TIMEOUT_POLICIES)
        raise SetupError(
            f"{policy.strip()[:20]!r} is not a timeout policy: choose {allowed} (what becomes "
            "of a player who runs out of time in a game of three or four)."
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
            f"A clock of {clock.describe()} is too short: each move must have at least "
            f"{_duration(shortest)}."
        )
    return clock


def _duration(seconds: float) -> str:
    for unit, size in (("day", 86_400), ("hour", 3_600), ("minute", 60)):
        if seconds >= size:
            amount = round(seconds / size, 2)
            return f"{amount:g} {unit}{'' if amount == 1 else 's'}"
    return f"{seconds:g} seconds"
