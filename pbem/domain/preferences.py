"""Which turn mail a player wants: an email every turn (the default), one daily digest
(`pbem.domain.digest`), or none. Invitations, sign-in links and game results go whatever they
choose; the letters that depend on it say so with `Letter.wanted` (`pbem.domain.letters`).

It is set on the dashboard and on the mail settings page (`/mail/<token>`), whose link every email
to a player carries, also as its `List-Unsubscribe` header: a POST of
`List-Unsubscribe=One-Click` there (RFC 8058) turns turn mail off without anything else.
"""

from __future__ import annotations

from dataclasses import dataclass

from babel.support import LazyProxy

from pbem import i18n
from pbem.domain.errors import SetupError
from pbem.extensions import db
from pbem.games.base import shorten
from pbem.models import DIGEST, EVERY_TURN, MAIL_PREFERENCES, NO_TURN_MAIL, Player


@dataclass(frozen=True)
class Choice:
    value: str
    # Translated when shown (pbem.i18n.lazy_gettext).
    label: LazyProxy
    meaning: LazyProxy


CHOICES = (
    Choice(
        EVERY_TURN,
        i18n.lazy_gettext("Every turn"),
        i18n.lazy_gettext(
            "An email each time it is your move, with the board; you can reply to it with your "
            "move."
        ),
    ),
    Choice(
        DIGEST,
        i18n.lazy_gettext("One daily digest"),
        i18n.lazy_gettext(
            "One email a day listing the games where it is your move, with their deadlines; a "
            "reminder still comes as its own email before a deadline, since missing one costs "
            "the game."
        ),
    ),
    Choice(
        NO_TURN_MAIL,
        i18n.lazy_gettext("No turn emails"),
        i18n.lazy_gettext(
            "No email about your turns: your games page shows where it is your move."
        ),
    ),
)
ALWAYS_SENT = i18n.lazy_gettext(
    "Invitations, sign-in links and the results of your games always come by email."
)
LABELS = {choice.value: choice.label for choice in CHOICES}


def checked(value: str) -> str:
    """A preference as a form sends it; SetupError naming the choices for anything else."""
    choice = value.strip().lower()
    if choice not in MAIL_PREFERENCES:
        allowed = ", ".join(f"{c.value} ({str(c.label).lower()})" for c in CHOICES)
        raise SetupError(
            i18n.gettext(
                "%(value)s is not a mail setting: choose one of %(choices)s.",
                value=repr(shorten(value)),
                choices=allowed,
            )
        )
    return choice


def set_preference(player: Player, value: str) -> str:
    """Store the player's choice (`checked` first) and commit; returns it."""
    choice = checked(value)
    player.mail_preference = choice
    db.session.commit()
    return choice


def unsubscribe(player: Player) -> Player:
    """RFC 8058's one-click unsubscribe: no more turn emails for the player the link names
    (`pbem.domain.access.mail_player`). Doing it twice changes nothing more."""
    if player.mail_preference != NO_TURN_MAIL:
        player.mail_preference = NO_TURN_MAIL
    db.session.commit()
    return player
