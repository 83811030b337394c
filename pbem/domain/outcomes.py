"""Endings the service decides, not the rules: a timeout, a resignation, a draw agreed.

Their outcome has the engines' shape (`pbem.games.Outcome`: winners, scores, reason, details),
with `details["seat"]` the seat that lost on time or resigned. Sentences follow the engines'
`describe_outcome` style: seats as `{0}`… placeholders, no full stop; in the language of the page
or letter being written (a list of winners joined as the language joins one).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from babel.lists import format_list

from pbem import i18n

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
        return i18n.gettext("Drawn by agreement")
    if reason == CANCELLED:
        return i18n.gettext("Cancelled before anyone moved")
    if reason not in (TIMEOUT, RESIGNATION) or not isinstance(seat, int):
        return None
    loser = f"{{{seat}}}"
    if not winners:
        if reason == TIMEOUT:
            return i18n.gettext("%(seat)s ran out of time", seat=loser)
        return i18n.gettext("%(seat)s resigned", seat=loser)
    won = format_list([f"{{{winner}}}" for winner in winners], locale=i18n.language())
    if reason == TIMEOUT:
        return i18n.ngettext(
            "%(seat)s ran out of time; %(winners)s wins",
            "%(seat)s ran out of time; %(winners)s share the win",
            len(winners),
            seat=loser,
            winners=won,
        )
    return i18n.ngettext(
        "%(seat)s resigned; %(winners)s wins",
        "%(seat)s resigned; %(winners)s share the win",
        len(winners),
        seat=loser,
        winners=won,
    )
