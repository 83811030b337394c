"""Starting a game: `/` picks a game (GET), then its options and the players' addresses (POST)."""

from __future__ import annotations

import re

from flask import Blueprint, redirect, render_template, request, url_for
from werkzeug.wrappers import Response

from pbem import dispatch, games
from pbem.domain import starting, views
from pbem.domain.clocks import ACCEPTED, Clock, ClockError, parse_clock
from pbem.domain.errors import SetupError
from pbem.extensions import db, settings
from pbem.models import Game
from pbem.web import ratelimits

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
        **clock_choices(),
    ), status


def form_options(game: games.Game) -> dict[str, str]:
    """The engine's options the form filled in."""
    return {option: request.form[option] for option in game.options if request.form.get(option)}


# The clocks the form offers by name; "custom" takes any clock `pbem new-game --clock` takes.
CLOCK_PRESETS = (
    ("days:1", "1 day per move"),
    ("days:3", "3 days per move"),
    ("days:7", "7 days per move"),
    ("fischer:7+1/14", "Fischer: a 7-day bank, +1 day per move, at most 14"),
    ("none", "No time limit"),
)
MAX_CLOCK_TEXT = 64


def clock_choices() -> dict[str, object]:
    """What the form needs to offer clocks: the presets, and the one chosen by default."""
    default = settings().clocks.default_clock
    presets = list(CLOCK_PRESETS)
    if default not in {value for value, _ in presets}:
        presets.insert(0, (default, parse_clock(default).describe()))
    return {"clock_presets": presets, "default_clock": default}


def form_clock() -> Clock:
    """The clock the form chose: a preset (`clock`), or `clock_custom` when `clock` is
    "custom"; `weekends_free` a checkbox. SetupError, saying what is accepted, otherwise."""
    choice = request.form.get("clock", "").strip()
    if choice == "custom":
        choice = request.form.get("clock_custom", "").strip()
    text = choice or settings().clocks.default_clock
    if len(text) > MAX_CLOCK_TEXT:
        raise SetupError(f"The clock is longer than {MAX_CLOCK_TEXT} characters. {ACCEPTED}")
    try:
        return parse_clock(text, weekends_free=bool(request.form.get("weekends_free")))
    except ClockError as exc:
        raise SetupError(str(exc)) from exc


def form_addresses() -> list[str]:
    """The `emails` field: addresses one per line (or separated by commas, semicolons, spaces)."""
    return [e for e in re.split(r"[\s,;]+", request.form.get("emails", "")) if e]


@bp.post("/")
def create() -> Response | tuple[str, int]:
    """A game started by someone pbem does not know yet: its organiser must confirm first."""
    ratelimits.check_game_creation((form_addresses() or [""])[0])
    name = request.form.get("game", "")
    try:
        game = games.get(name)
    except KeyError as exc:
        return _form(None, str(exc.args[0]), 400)
    try:
        created = starting.create_game(
            settings(),
            game.name,
            form_options(game),
            form_addresses(),
            started_by=starting.BY_STRANGER,
            clock=form_clock(),
        )
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
        confirming=game.confirmed_at is None,
        embedded=settings().mail_to_files,
    )
