"""The `<meta name="description">` of every page: what a search result or a shared link shows.

The layout (`templates/pages/base.html`) asks `page_description()`, which answers by the view
that made the page, so no page's own template needs a block for it.
"""

from __future__ import annotations

from collections.abc import Callable

from flask import Flask, request

from pbem import games, i18n
from pbem.domain import glossary, wording

# Translated when shown.
GENERAL = i18n.lazy_gettext(
    "pbem: slow board games played by email. Each turn arrives as a link; no account, no "
    "password, no app."
)


def _listing(names: list[str]) -> str:
    titles = []
    for name in names:
        try:
            titles.append(games.get(name).title)
        except (KeyError, ImportError):
            continue
    return wording.and_list(titles)


def _home(_: dict[str, object]) -> str:
    return i18n.gettext(
        "Play %(games)s with friends by email, a turn a day or a week. Start a game here: each "
        "player gets a link, no account or password needed.",
        games=_listing(games.names()),
    )


def _rules_index(_: dict[str, object]) -> str:
    return i18n.gettext(
        "The rules of %(games)s, as played on pbem, with pictures of real positions and worked "
        "examples.",
        games=_listing(glossary.guided()),
    )


def _rules_page(args: dict[str, object]) -> str:
    try:
        title = games.get(str(args.get("name"))).title
    except (KeyError, ImportError):
        return str(GENERAL)
    return i18n.gettext(
        "How to play %(game)s: the complete rules, every variant, with pictures of real "
        "positions and worked examples. Play it by email on pbem.",
        game=title,
    )


def _signin(_: dict[str, object]) -> str:
    return i18n.gettext("Get a link to all your pbem games by email: no password to remember.")


def _created(_: dict[str, object]) -> str:
    return i18n.gettext("A new pbem game is set up; its invitations go out by email.")


BY_ENDPOINT: dict[str, Callable[[dict[str, object]], str]] = {
    "start.index": _home,
    "start.create": _home,
    "rules.index": _rules_index,
    "rules.page": _rules_page,
    "dashboard.signin_form": _signin,
    "dashboard.signin": _signin,
    "start.created": _created,
}


def page_description() -> str:
    """The description of the page being made; a general one for pages not listed."""
    describe = BY_ENDPOINT.get(request.endpoint or "")
    return describe(dict(request.view_args or {})) if describe is not None else str(GENERAL)


def register(app: Flask) -> None:
    app.add_template_global(page_description, "page_description")
