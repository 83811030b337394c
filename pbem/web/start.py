"""Starting a game: `/` picks a game (GET), then its options and the players' addresses (POST)."""

from __future__ import annotations

import re

from flask import Blueprint, redirect, render_template, request, url_for
from werkzeug.wrappers import Response

from pbem import dispatch, games
from pbem.domain import starting, views
from pbem.domain.errors import SetupError
from pbem.extensions import db, settings
from pbem.models import Game

bp = Blueprint("start", __name__)


def available_games() -> list[games.Game]:
    """The registered engines that import; one broken engine must not take the site down."""
    found = []
    for name in games.names():
        try:
            found.append(games.get(name))
        except ImportError:
            continue
    return found


@bp.get("/")
def index() -> tuple[str, int]:
    return _form(request.args.get("game"))


def _form(chosen: str | None, error: str | None = None, status: int = 200) -> tuple[str, int]:
    catalogue = available_games()
    game = next((g for g in catalogue if g.name == chosen), None)
    return render_template(
        "pages/index.html",
        games=catalogue,
        game=game,
        error=error,
        values=request.form,
        embedded=settings().mail_to_files,
    ), status


@bp.post("/")
def create() -> Response | tuple[str, int]:
    name = request.form.get("game", "")
    try:
        game = games.get(name)
    except KeyError as exc:
        return _form(None, str(exc.args[0]), 400)
    options = {option: request.form[option] for option in game.options if request.form.get(option)}
    emails = [e for e in re.split(r"[\s,;]+", request.form.get("emails", "")) if e]
    try:
        created = starting.create_game(settings(), game.name, options, emails)
    except SetupError as exc:
        return _form(game.name, exc.message, 400)
    dispatch.send_emails_later(created.outbox_ids)
    return redirect(url_for("start.created", game_id=created.game_id), 303)


@bp.get("/created/<game_id>")
def created(game_id: str) -> str:
    game = db.get_or_404(Game, game_id)
    return render_template(
        "pages/created.html",
        game=game,
        title=views.engine(game).title,
        players=len(game.seats),
        embedded=settings().mail_to_files,
    )
