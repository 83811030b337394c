"""Words pbem puts together from parts, in the language being written (`pbem.i18n`): lists of
names ("Alice, Bob and Carol") and amounts of time ("3 days", "1.5 hours").

Dates and times of day are `pbem.domain.when`'s.
"""

from __future__ import annotations

from collections.abc import Sequence

from pbem import i18n

DAY, HOUR, MINUTE, SECOND = "day", "hour", "minute", "second"


def and_list(items: Sequence[str]) -> str:
    """ "Alice", "Alice and Bob", "Alice, Bob and Carol"."""
    if len(items) < 2:
        return "".join(items)
    return i18n.gettext("%(items)s and %(last)s", items=", ".join(items[:-1]), last=items[-1])


def or_list(items: Sequence[str]) -> str:
    """ "drop", "drop or autopilot", "a, b or c"."""
    if len(items) < 2:
        return "".join(items)
    return i18n.gettext("%(items)s or %(last)s", items=", ".join(items[:-1]), last=items[-1])


def plural_count(amount: float) -> int:
    """The number gettext chooses a plural form by: the amount when whole, else one that every
    language writes in the plural (English says "1.5 days", and "0.5 days")."""
    return int(amount) if float(amount).is_integer() else 2


def shown(amount: float) -> str:
    """An amount as the words write it: no exponent for whole numbers, "1.5", "0.25"."""
    return str(amount) if isinstance(amount, int) else f"{amount:g}"


def span(amount: float, unit: str, text: str | None = None) -> str:
    """An amount of one unit of time (DAY, HOUR, MINUTE or SECOND): "1 day", "3 days",
    "1.5 hours" (a fraction as `:g` writes it, unless `text` says how)."""
    n, text = plural_count(amount), text or shown(amount)
    if unit == DAY:
        return i18n.ngettext("%(amount)s day", "%(amount)s days", n, amount=text)
    if unit == HOUR:
        return i18n.ngettext("%(amount)s hour", "%(amount)s hours", n, amount=text)
    if unit == MINUTE:
        return i18n.ngettext("%(amount)s minute", "%(amount)s minutes", n, amount=text)
    return i18n.ngettext("%(amount)s second", "%(amount)s seconds", n, amount=text)
