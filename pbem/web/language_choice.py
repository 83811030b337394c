"""A player's choice of language: `POST /me/<token>/language` on the games page and `POST
/play/<token>/language` on a seat's page, form field `language` (`en`, `fr`, `nl` or `da`).
Pages and mail speak it from then on (`pbem.web.language`, `pbem.domain.outbox`)."""

from __future__ import annotations

from flask import Blueprint, redirect, request, url_for
from werkzeug.wrappers import Response

from pbem import i18n
from pbem.extensions import db
from pbem.models import Player
from pbem.web import language
from pbem.web.access import player_for, seat_for
from pbem.web.errors import refusal

bp = Blueprint("language_choice", __name__)


@bp.post("/me/<token>/language")
def games_page(token: str) -> Response:
    return _choose(player_for(token), url_for("dashboard.mine", token=token))


@bp.post("/play/<token>/language")
def seat_page(token: str) -> Response:
    return _choose(seat_for(token=token).player, url_for("play.page", token=token))


def _choose(player: Player, back: str) -> Response:
    asked = request.form.get("language", "")
    chosen = i18n.valid(asked)
    if chosen is None or asked.strip().lower() != chosen:
        message = i18n.gettext(
            "pbem speaks %(choices)s: choose one of them.",
            choices=", ".join(i18n.NAMES.values()),
        )
        return refusal("bad_language", message, 400)
    player.language = chosen
    db.session.commit()
    language.speaks_for(player.id, chosen, loaded=True)
    return redirect(back, 303)
