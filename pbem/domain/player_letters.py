"""The emails about a player's own links and data rather than a game: a sign-in link, their
games page's new link after the old ones were withdrawn, and the confirmation that they want
their data erased.

Like `pbem.domain.letters`, each function gathers one kind's template context.
"""

from __future__ import annotations

from pbem import links
from pbem.config import Settings
from pbem.domain import glossary
from pbem.domain.letters import unsubscribe
from pbem.domain.outbox import Letter
from pbem.models import Player


def signin(config: Settings, to: str, link: str, player_id: int | None = None) -> Letter:
    """A sign-in link to `to`; with the player's id, their one-click unsubscribe too."""
    context = {
        "link": link,
        "minutes": links.SIGNIN_MAX_AGE_SECONDS // 60,
        "rules_index": glossary.rules_index_url(config),
    }
    found = unsubscribe(config, player_id) if player_id is not None else None
    return Letter(to, "signin", None, context, list_unsubscribe=found)


def new_player_link(config: Settings, player: Player) -> Letter:
    link = links.player_url(config, player.id, player.nonce)
    context = {
        "link": link,
        "to": player.address,
        "name": player.name,
        "rules_index": glossary.rules_index_url(config),
    }
    return Letter(
        player.address, "signedout", None, context, list_unsubscribe=unsubscribe(config, player.id)
    )


def erase_request(config: Settings, player: Player, running: int, gathering: int) -> Letter:
    """The link that erases the player's data, asked for on their games page: the button alone
    does not erase, since whoever was forwarded a games link could press it. `running` and
    `gathering` count the games the erasure would resign and cancel."""
    context = {
        "link": links.erase_url(config, player.id, player.nonce),
        "to": player.address,
        "name": player.name,
        "hours": links.ERASE_MAX_AGE_SECONDS // 3600,
        "running": running,
        "gathering": gathering,
    }
    return Letter(
        player.address, "erase", None, context, list_unsubscribe=unsubscribe(config, player.id)
    )
