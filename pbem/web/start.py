"""The home page and starting a game: `/` shows each game (a picture, who plays it, how long it
lasts, what it is like) and how pbem works, then the start form: pick a game (GET), then its
options, a name for the game if the organiser likes, and the players (POST): an address and, if
the organiser likes, a name for each."""

from __future__ import annotations

import re
from dataclasses import dataclass
from itertools import zip_longest

from flask import Blueprint, abort, redirect, render_template, request, url_for
from werkzeug.wrappers import Response

from pbem import bots, dispatch, games, i18n
from pbem.domain import starting, views
from pbem.domain.clocks import ACCEPTED, Clock, ClockError, parse_clock
from pbem.domain.errors import SetupError
from pbem.domain.names import Invitee, parse_invitee
from pbem.domain.titles import MAX_LENGTH as TITLE_LENGTH
from pbem.extensions import db, settings
from pbem.games.base import shorten
from pbem.models import Game
from pbem.web import game_cards, ratelimits

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


@bp.app_context_processor
def title_limit() -> dict[str, int]:
    """The one limit of a game's name (`pbem.domain.titles.MAX_LENGTH`) for every form that
    asks for one: the home page's and the games page's."""
    return {"title_length": TITLE_LENGTH}


@bp.get("/")
def index() -> tuple[str, int]:
    return _form(request.args.get("game"))


def _form(chosen: str | None, error: str | None = None, status: int = 200) -> tuple[str, int]:
    catalogue = available_games()
    game = next((g for g in catalogue if g.name == chosen), None)
    return render_template(
        "pages/index.html",
        games=catalogue,
        cards=[game_cards.card(g) for g in catalogue],
        game=game,
        error=error,
        values=request.form,
        typed=typed_players(),
        embedded=settings().mail_to_files,
        bots_offered=bot_choices(),
        **clock_choices(),
    ), status


@bp.get("/picture/<name>.svg")
def picture(name: str) -> Response:
    """A game's picture on the home page: the engine's drawing of a game under way."""
    if name not in games.names():
        abort(404)
    drawn = game_cards.picture(name)
    if drawn is None:
        abort(404)
    response = Response(drawn.svg, mimetype="image/svg+xml")
    # The same drawing until the next deploy: a browser need not ask again for an hour.
    response.headers["Cache-Control"] = "public, max-age=3600"
    return response


@dataclass(frozen=True)
class BotChoice:
    entry: str  # what a players list names it by: "bot:mcts"
    name: str  # "pbem MCTS"
    words: str  # what playing it is like


# The strongest first: what someone who asks for "the computer" wants (translated when shown).
_BOT_WORDS = {
    "mcts": i18n.lazy_gettext("the strongest, looks many moves ahead"),
    "greedy": i18n.lazy_gettext("middling, takes the most points each turn"),
    "random": i18n.lazy_gettext("the weakest, any legal move (to learn the rules)"),
}


def bot_choices() -> list[BotChoice]:
    """pbem's bots as the forms offer them, the strongest first."""
    return [
        BotChoice(bots.PREFIX + kind, bots.get(kind).name, str(_BOT_WORDS.get(kind, "")))
        for kind in reversed(bots.kinds())
    ]


def unknown_game(name: str) -> str:
    """The refusal of a game pbem does not have (a form changed by hand)."""
    return i18n.gettext(
        "unknown game %(game)s; known games: %(known)s",
        game=repr(name),
        known=", ".join(games.names()),
    )


def form_timeout_policy() -> str | None:
    """The form's `on_timeout`, checked by create_game."""
    return request.form.get("on_timeout") or None


def form_title() -> str | None:
    """The game's name as the form typed it; None when left empty. Checked by create_game."""
    return request.form.get("title") or None


def form_language() -> str:
    """The game's language as the form chose it (`language`); the page's when not given.
    Checked by create_game."""
    return request.form.get("language") or i18n.language()


def form_options(game: games.Game) -> dict[str, str]:
    """The engine's options the form filled in: `<option>`, or `<game>.<option>` where a form
    offers every game's options at once (the home page's "Play against the computer")."""
    chosen = {}
    for option in game.options:
        value = request.form.get(f"{game.name}.{option}") or request.form.get(option)
        if value:
            chosen[option] = value
    return chosen


# The clocks the form offers by name; "custom" takes any clock `pbem new-game --clock` takes.
# (The words are translated when shown.)
CLOCK_PRESETS = (
    ("days:1", i18n.lazy_gettext("1 day per move")),
    ("days:3", i18n.lazy_gettext("3 days per move")),
    ("days:7", i18n.lazy_gettext("7 days per move")),
    ("fischer:7+1/14", i18n.lazy_gettext("Fischer: a 7-day bank, +1 day per move, at most 14")),
    ("none", i18n.lazy_gettext("No time limit")),
)
MAX_CLOCK_TEXT = 64


def clock_choices() -> dict[str, object]:
    """What the form needs to offer clocks: the presets, and the one chosen by default."""
    default = settings().clocks.default_clock
    presets: list[tuple[str, object]] = list(CLOCK_PRESETS)
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
        too_long = i18n.gettext(
            "The clock is longer than %(most)d characters.", most=MAX_CLOCK_TEXT
        )
        raise SetupError(f"{too_long} {ACCEPTED!s}")
    try:
        return parse_clock(text, weekends_free=bool(request.form.get("weekends_free")))
    except ClockError as exc:
        raise SetupError(str(exc)) from exc


def typed_players() -> list[tuple[str, str]]:
    """The form's players as typed, (address, name): its rows of `email` and `name` fields, then
    the `emails` text, one player a line (or separated by commas or semicolons), where addresses
    alone may also be separated by spaces. An address field may hold `Name <address>` too."""
    rows = zip_longest(request.form.getlist("email"), request.form.getlist("name"), fillvalue="")
    typed = [(address.strip(), name.strip()) for address, name in rows]
    for piece in re.split(r"[\n;,]+", request.form.get("emails", "")):
        if "<" in piece or ">" in piece:
            typed.append((piece.strip(), ""))
        else:
            typed += [(address, "") for address in piece.split()]
    return typed


def form_invitees() -> list[Invitee]:
    """The players the form names, in order (rows left empty skipped); SetupError for a name
    without an address, or an address field that is not one player."""
    invitees = []
    for address, name in typed_players():
        if not address:
            if name:
                raise SetupError(
                    i18n.gettext(
                        "The name %(name)s has no email address beside it: give their address, "
                        "or clear the name.",
                        name=repr(shorten(name)),
                    )
                )
            continue
        invitee = parse_invitee(address)
        # The name field beside the address says it more plainly than `Name <address>`.
        invitees.append(Invitee(invitee.address, name) if name else invitee)
    return invitees


def _invitees() -> tuple[list[Invitee], str | None]:
    """The form's players, or none and why."""
    try:
        return form_invitees(), None
    except SetupError as exc:
        return [], exc.message


@bp.post("/")
def create() -> Response | tuple[str, int]:
    """A game started by someone pbem does not know yet: its organiser must confirm first."""
    invitees, problem = _invitees()
    ratelimits.check_game_creation(invitees[0].address if invitees else "")
    name = request.form.get("game", "")
    try:
        game = games.get(name)
    except KeyError:
        return _form(None, unknown_game(name), 400)
    if problem is not None:
        return _form(game.name, problem, 400)
    try:
        created = starting.create_game(
            settings(),
            game.name,
            form_options(game),
            [invitee.address for invitee in invitees],
            started_by=starting.BY_STRANGER,
            clock=form_clock(),
            names=[invitee.name for invitee in invitees],
            title=form_title(),
            timeout_policy=form_timeout_policy(),
            language=form_language(),
        )
    except SetupError as exc:
        return _form(game.name, exc.message, 400)
    dispatch.send_emails_later(created.outbox_ids)
    return redirect(url_for("start.created", game_id=created.game_id), 303)


@bp.get("/created/<game_id>")
def created(game_id: str) -> str:
    game = db.get_or_404(Game, game_id)
    # pbem's bots take their seats at once and are never invited: the page names them.
    computers = [bots.get(s.player.bot).name for s in game.seats if s.player.bot is not None]
    return render_template(
        "pages/created.html",
        game=game,
        title=views.engine(game).title,
        players=len(game.seats) - len(computers),
        computers=computers,
        confirming=game.confirmed_at is None,
        embedded=settings().mail_to_files,
    )
