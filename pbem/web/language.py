"""The language of each page and API answer.

A request speaks, in this order: the language of the player its token names, when they have one;
else `?lang=` (which a cookie, `pbem_lang`, then remembers); else that cookie; else the browser's
`Accept-Language`; else English. The player's is read only when something is written for them
(a page, a message), so an API call that answers with figures alone costs no read.

A player chooses on the games page or a seat's page (`pbem.web.language_choice`). No GET
stores it, since mail scanners open links: until they choose, the page they first act on (a
POST: accepting an invitation, a move) stores the language it was shown in (`_adopt`).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from urllib.parse import urlencode

from flask import Flask, g, request, url_for
from flask_babel import Babel
from sqlalchemy import select, update
from sqlalchemy.exc import SQLAlchemyError
from werkzeug.wrappers import Response as BaseResponse

from pbem import i18n
from pbem.extensions import db
from pbem.models import Player
from pbem.web.script_words import page_script_words

log = logging.getLogger(__name__)

COOKIE = "pbem_lang"
COOKIE_MAX_AGE = 365 * 24 * 3600
# What the browser's choices decide, when no player's does: a cache keeps a copy per both.
VARY = ("Accept-Language", "Cookie")


@dataclass
class _Speaker:
    """The language of this request, settled when first asked."""

    fallback: str  # ?lang, the cookie or Accept-Language
    player_id: int | None = None
    stored: str | None = None  # the player's choice
    known: bool = False  # `stored` was read (None: they have made none)
    settled: str | None = None

    def __call__(self) -> str:
        if self.settled is None:
            self.settled = i18n.valid(self._stored()) or self.fallback
        return self.settled

    def _stored(self) -> str | None:
        if self.known or self.player_id is None:
            return self.stored
        try:
            self.stored = db.session.execute(
                select(Player.language).where(Player.id == self.player_id)
            ).scalar_one_or_none()
        except SQLAlchemyError:
            # The database is out of reach: the answer (a 503 page) is in the browser's language.
            db.session.rollback()
            return None
        self.known = True
        return self.stored


def browser_language() -> str:
    """What the browser asks for: `?lang=`, the cookie, then Accept-Language."""
    chosen = i18n.valid(request.args.get("lang")) or i18n.valid(request.cookies.get(COOKIE))
    if chosen:
        return chosen
    return request.accept_languages.best_match(i18n.LANGUAGES, default=i18n.ENGLISH)


def _start() -> None:
    speaker = _Speaker(browser_language())
    g.pbem_speaker = speaker
    g.pbem_language_token = i18n.speak(speaker)


def _end(_: BaseException | None) -> None:
    # The thread serves other requests next: nothing of this one's language stays in it.
    token = g.pop("pbem_language_token", None)
    if token is not None:
        i18n.stop(token)


def speaks_for(player_id: int, language: str | None = None, *, loaded: bool = False) -> None:
    """The request speaks for this player (their token was read): their language, if they have
    one, is the request's. `loaded`: `language` is their row's, no read needed."""
    speaker: _Speaker | None = g.get("pbem_speaker")
    if speaker is None or speaker.player_id == player_id:
        return
    speaker.player_id, speaker.settled = player_id, None
    speaker.stored, speaker.known = (language if loaded else None), loaded


def without_database() -> None:
    """The database is out of reach: the answer (a 503 page) speaks what the browser asked,
    without trying the database once more for the player's choice."""
    speaker: _Speaker | None = g.get("pbem_speaker")
    if speaker is not None and speaker.settled is None:
        speaker.settled = i18n.valid(speaker.stored) or speaker.fallback


def _finish(response: BaseResponse) -> BaseResponse:
    speaker: _Speaker | None = g.get("pbem_speaker")
    if speaker is None:
        return response
    if response.mimetype in (
        "text/html",
        "application/json",
        "application/problem+json",
        "image/svg+xml",  # a board's words are in the reader's language
    ):
        response.vary.update(VARY)
    if response.mimetype == "text/html" and speaker.settled is not None:
        response.headers["Content-Language"] = speaker.settled
    asked = i18n.valid(request.args.get("lang"))
    if asked and request.method == "GET" and asked != request.cookies.get(COOKIE):
        response.set_cookie(
            COOKIE,
            asked,
            max_age=COOKIE_MAX_AGE,
            secure=request.is_secure,
            httponly=True,
            samesite="Lax",
        )
    if (
        request.method == "POST"
        and response.status_code < 400
        and speaker.player_id is not None
        and not (speaker.known and speaker.stored is not None)
        and _acted_on_a_page()
    ):
        _adopt(speaker.player_id, speaker.fallback)
    return response


# POSTs that are no player choosing on a page: refusing all mail, being erased.
_NOT_ACTING = frozenset({"dashboard.block", "erasure.erase"})


def _acted_on_a_page() -> bool:
    """A person acted on one of pbem's pages: not a script on the API, not the games page's
    script sending the browser's time zone by itself (`if_unset`), and not a mail client
    unsubscribing by the List-Unsubscribe-Post header's one click (RFC 8058)."""
    if request.path.startswith("/api/") or request.endpoint in _NOT_ACTING:
        return False
    if request.endpoint == "dashboard.time_zone" and request.form.get("if_unset"):
        return False
    return "List-Unsubscribe" not in request.form


def _adopt(player_id: int, language: str) -> None:
    """The first page a player acts on gives them its language, unless they have one."""
    try:
        db.session.execute(
            update(Player)
            .where(Player.id == player_id, Player.language.is_(None), Player.bot.is_(None))
            .values(language=language)
        )
        db.session.commit()
    except SQLAlchemyError:
        db.session.rollback()
        log.warning("could not store player %s's language", player_id, exc_info=True)


def switch_targets() -> dict[str, object]:
    """Where the page's language switch goes: on a games page or a seat's page a POST storing
    the player's choice (`action`); elsewhere the same page with `?lang=` (`links`, language ->
    URL), which the cookie remembers."""
    token = (request.view_args or {}).get("token")
    if isinstance(token, str) and request.endpoint in _CHOOSING:
        return {"action": url_for(_CHOOSING[request.endpoint], token=token)}
    if request.method != "GET":
        # A form's answer: its address cannot be asked for again with a GET.
        return {"links": {code: f"/?lang={code}" for code in i18n.LANGUAGES}}
    # The same page (a relative link: the path is not written again), its arguments kept.
    args = [(k, v) for k, v in request.args.items(multi=True) if k != "lang"]
    return {"links": {code: "?" + urlencode([*args, ("lang", code)]) for code in i18n.LANGUAGES}}


# The pages whose switch stores the player's choice, and where it goes.
_CHOOSING = {
    "dashboard.mine": "language_choice.games_page",
    "play.page": "language_choice.seat_page",
}


def register(app: Flask) -> None:
    """The language of every request, and Flask-Babel's dates and numbers in it."""
    Babel(app, locale_selector=i18n.language, configure_jinja=True)
    # Pages translate as mail does (pbem.i18n), not through Flask-Babel's own catalog lookup.
    i18n.install(app.jinja_env)
    app.jinja_env.globals.update(
        languages=i18n.NAMES,
        language_switch=switch_targets,
        current_language=i18n.language,
        script_words=page_script_words,
    )
    app.before_request(_start)
    app.after_request(_finish)
    app.teardown_request(_end)
