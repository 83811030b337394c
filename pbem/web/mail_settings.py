"""The mail settings page, `/mail/<token>`: which turn mail the player wants, and RFC 8058's
one-click unsubscribe.

The link is in every turn and digest email, and in their `List-Unsubscribe` header. Like the
"never email me again" link it never expires (`pbem.domain.access.mail_player`), and the
token in the path is the only credential: no cookie, no session, hence no cross-site request to
forge without it. GET shows the setting and changes nothing (mail scanners open links). A POST
with `preference` sets it; a POST whose body is `List-Unsubscribe=One-Click`, as a mail provider
sends it from its servers when the reader clicks "Unsubscribe", turns turn mail off and answers
200. Neither sends mail, so neither is rate-limited (as the block link is not).
"""

from __future__ import annotations

from flask import Blueprint, Response, render_template, request

from pbem import i18n
from pbem.domain import preferences
from pbem.domain.errors import ServiceError
from pbem.extensions import settings
from pbem.models import Player
from pbem.web.access import mail_player_for

bp = Blueprint("mail_settings", __name__)

# RFC 8058: the body a mail provider POSTs to the List-Unsubscribe address.
ONE_CLICK_FIELD = "List-Unsubscribe"
ONE_CLICK_VALUE = "One-Click"


@bp.after_request
def _private(response: Response) -> Response:
    # The token in the URL opens the player's settings: never cached, never indexed.
    response.headers["Cache-Control"] = "no-store"
    response.headers["X-Robots-Tag"] = "noindex, nofollow"
    return response


@bp.get("/mail/<token>")
def show(token: str) -> str:
    return _page(mail_player_for(token))


@bp.post("/mail/<token>")
def change(token: str) -> str | tuple[str, int]:
    player = mail_player_for(token)
    if request.form.get(ONE_CLICK_FIELD, "").strip().lower() == ONE_CLICK_VALUE.lower():
        return _page(preferences.unsubscribe(player), done="unsubscribed")
    if "preference" not in request.form:
        return _page(
            player, error=i18n.gettext("Choose which turn emails you want, then save.")
        ), 400
    try:
        preferences.set_preference(player, request.form["preference"])
    except ServiceError as exc:
        return _page(player, error=exc.message), exc.status
    return _page(player, done="saved")


def _page(player: Player, done: str = "", error: str = "") -> str:
    config = settings()
    return render_template(
        "pages/mail_settings.html",
        player=player,
        choices=preferences.CHOICES,
        current=player.mail_preference,
        label=preferences.LABELS.get(player.mail_preference, player.mail_preference),
        always=preferences.ALWAYS_SENT,
        hour=config.mail.digest_hour,
        zone=player.time_zone or "UTC",
        done=done,
        error=error,
        signin=f"{config.base_url}/signin",
    )
