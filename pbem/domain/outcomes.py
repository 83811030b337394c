"""Endings the service decides, not the rules: a timeout, a resignation, a draw agreed.

Their outcome has the engines' shape (`pbem.games.Outcome`: winners, scores, reason, details),
with `details["seat"]` the seat that lost on time or resigned. Sentences follow the engines'
`describe_outcome` style: seats as `{0}`… placeholders, no full stop.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

TIMEOUT = "timeout"
RESIGNATION = "resignation"
DRAW_AGREED = "draw_agreed"
CANCELLED = "cancelled"

SERVICE_REASONS = (TIMEOUT, RESIGNATION, DRAW_AGREED, CANCELLED)


def ended_by(reason: str, seat: int | None, players: int, scores: Sequence[int]) -> dict[str, Any]:
    """The outcome of a two-player game ended by `reason`; `seat` lost (timeout, resignation)."""
    winners = [] if seat is None else [other for other in range(players) if other != seat]
    details = {} if seat is None else {"seat": seat}
    return {"winners": winners, "scores": list(scores), "reason": reason, "details": details}


def sentence(outcome: Mapping[str, Any] | None) -> str | None:
    """How a game the service ended ended, with placeholders; None for the engines' endings."""
    if not outcome:
        return None
    reason = outcome.get("reason")
    seat = (outcome.get("details") or {}).get("seat")
    winners = outcome.get("winners") or []
    if reason == DRAW_AGREED:
        return "Drawn by agreement"
    if reason == CANCELLED:
        return "Cancelled before anyone moved"
    if reason not in (TIMEOUT, RESIGNATION) or not isinstance(seat, int):
        return None
    won = " and ".join(f"{{{winner}}}" for winner in winners)
    verb = "wins" if len(winners) == 1 else "share the win"
    what = "ran out of time" if reason == TIMEOUT else "resigned"
    return f"{{{seat}}} {what}; {won} {verb}" if winners else f"{{{seat}}} {what}"
