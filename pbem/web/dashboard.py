"""A player's dashboard: all their games, those waiting for them first.

There are no accounts. The dashboard opens with a player link (`/me/<token>`, purpose `player`),
which every email carries; a seat or invitation link opens its own game only. A player without
an email at hand asks for a sign-in link (`/signin`): it works once, within an hour, and its
POST hands out a player link. "Sign out everywhere" withdraws every link the player holds.

The games are listed by urgency: those waiting for the player's move first, the nearest deadline
first; then invitations; then games waiting for others, by deadline; then those gathering
players; then the finished ones. The page also holds the player's name (how the other players
see them; empty: their seat's colour), which turn mail they want (every turn, a daily digest or
none), the vacation switch and the time zone the player's emails give times in (taken from the
browser by `pbem/static/clock.js` the first time the page is seen without one).
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from datetime import datetime

from flask import Blueprint, jsonify, redirect, render_template, request, url_for
from werkzeug.wrappers import Response

from pbem import dispatch, games, i18n
from pbem.config import Settings
from pbem.domain import (
    access,
    bot_seats,
    bot_turns,
    dashboard,
    rotation,
    starting,
    vacation,
    when,
    wording,
)
from pbem.domain import autopilot as autopilot_domain
from pbem.domain.addresses import normalise_address
from pbem.domain.dashboard import GameLine
from pbem.domain.errors import ServiceError, SetupError
from pbem.domain.names import MAX_LENGTH as NAME_LENGTH
from pbem.extensions import settings
from pbem.models import DIGEST, EVERY_TURN, NO_TURN_MAIL, Player, utcnow
from pbem.ops import player_data
from pbem.web import ratelimits
from pbem.web.access import blocking_player_for, player_for, signin_player_for
from pbem.web.errors import refusal
from pbem.web.limits import TooLong, shorten
from pbem.web.play import AUTOPILOT_CHOICES, Instant, instant
from pbem.web.start import (
    available_games,
    bot_choices,
    clock_choices,
    form_clock,
    form_invitees,
    form_language,
    form_options,
    form_timeout_policy,
    form_title,
    typed_players,
    unknown_game,
)

bp = Blueprint("dashboard", __name__)

# The sign-in POST answers no sooner than this, so its time does not tell whether the address
# plays here (the work for a known address is done within it).
SIGNIN_ANSWER_SECONDS = 0.25


@bp.get("/me/<token>")
def mine(token: str) -> str:
    return _dashboard(player_for(token), token)


def _dashboard(player: Player, token: str, **context: object) -> str:
    config = settings()
    now = utcnow()
    lines = dashboard_lines(config, player, now)
    left = vacation.balance(config, player, now).seconds
    if player.vacation_until is not None and player.vacation_since is not None:
        # While away, what is left once this vacation is over.
        left -= max(0.0, (player.vacation_until - now).total_seconds())
    days = round(max(0.0, left) / vacation.SECONDS_PER_DAY, 1)
    return render_template(
        "pages/_dashboard.html",
        player=player,
        lines=lines,
        token=token,
        waiting=sum(1 for row in lines if row.line.your_turn or row.line.invited),
        away=player.vacation_since is not None,
        away_until=instant(player.vacation_until, player.time_zone),
        vacation_days=days,
        vacation_words=days_words(days),
        zones=when.zone_names(),
        mail_choices=MAIL_CHOICES,
        name_length=NAME_LENGTH,
        done=str(DONE.get(request.args.get("done", ""), "")),
        autopilot_choices=AUTOPILOT_CHOICES,
        **context,
    )


@bp.get("/me/<token>/data")
def my_data(token: str) -> Response:
    """Everything stored about the player (pbem.ops.player_data), as a JSON download; a GET
    that changes nothing."""
    player = player_for(token)
    body = json.dumps(player_data.export_of(player, utcnow()), indent=2, ensure_ascii=False)
    response = Response(body, mimetype="application/json")
    response.headers["Content-Disposition"] = 'attachment; filename="pbem-data.json"'
    return response


@bp.post("/me/<token>/autopilot")
def autopilot(token: str) -> Response | tuple[str, int]:
    """Hand one of the player's seats to one of pbem's bots, or take it back (`game`, `seat`,
    `autopilot` on or off, `bot` greedy or mcts: greedy when not given)."""
    player = player_for(token)
    choice = request.form.get("autopilot", "")
    seat = dashboard.seat_of(player, request.form.get("game", ""), request.form.get("seat", ""))
    if choice not in ("on", "off") or seat is None:
        problem = (
            i18n.gettext(
                "You have no such seat: reload the page and use the button beside the game."
            )
            if seat is None
            else i18n.gettext("The form did not say whether to hand the seat over or take it back.")
        )
        return _dashboard(player, token, autopilot_error=problem), 400
    on = choice == "on"
    try:
        bot = bot_seats.autopilot_bot(request.form.get("bot")) if on else None
        outbox_ids = autopilot_domain.hand_over(settings(), seat, on, bot=bot)
    except ServiceError as exc:
        return _dashboard(player, token, autopilot_error=exc.message), exc.status
    dispatch.send_emails_later(outbox_ids)
    dispatch.play_bots_later(bot_turns.with_bots([seat.game_id]))
    return redirect(url_for("dashboard.mine", token=token, done=f"autopilot_{choice}"), 303)


# What the page says after an action (`?done=<key>`), translated when shown.
DONE = {
    "autopilot_on": i18n.lazy_gettext(
        "Your seat is on autopilot: pbem's bot plays it until you take it back."
    ),
    "autopilot_off": i18n.lazy_gettext("You play your seat again."),
    "zone": i18n.lazy_gettext(
        "Your time zone is saved: your emails give times in it, with UTC beside."
    ),
    "name": i18n.lazy_gettext("Your name is saved: the other players see it in every game."),
    "unnamed": i18n.lazy_gettext(
        "Your name is cleared: in each game you are called by your seat's colour."
    ),
    "mail": i18n.lazy_gettext("Your mail choice is saved."),
    "erase": i18n.lazy_gettext(
        "We emailed you a link to confirm erasing your data. Nothing is erased until you open "
        "it and confirm."
    ),
}
# The turn mail a player may choose, as the dashboard offers it (translated when shown).
MAIL_CHOICES = (
    (EVERY_TURN, i18n.lazy_gettext("Every turn: an email each time it is your move")),
    (
        DIGEST,
        i18n.lazy_gettext(
            "One daily digest: one email a day listing the games waiting for your move, and a "
            "reminder of its own before a deadline"
        ),
    ),
    (
        NO_TURN_MAIL,
        i18n.lazy_gettext("No turn emails: you look at your games here (no reminders either)"),
    ),
)


def days_words(days: float) -> str:
    """ "9.5 vacation days left", "1 vacation day left"."""
    return i18n.ngettext(
        "%(days)s vacation day left",
        "%(days)s vacation days left",
        wording.plural_count(days),
        days=format(days, "g"),
    )


@dataclass(frozen=True)
class DashboardLine:
    """A game of the list, its deadline in the reader's words."""

    line: GameLine
    deadline: Instant | None

    @property
    def clock(self) -> str:
        return self.line.clock

    @property
    def paused(self) -> bool:
        return self.line.paused


def dashboard_lines(config: Settings, player: Player, now: datetime) -> list[DashboardLine]:
    """The player's games, most urgent first (`pbem.domain.dashboard.game_lines`)."""
    return [
        DashboardLine(line, instant(line.deadline, player.time_zone))
        for line in dashboard.game_lines(config, player, now)
    ]


# --- vacation and time zone -----------------------------------------------------------------------


@bp.post("/me/<token>/vacation")
def go_away(token: str) -> Response | tuple[str, int]:
    player = player_for(token)
    typed = request.form.get("days", "").strip()
    try:
        days = float(typed.replace(",", "."))  # "2,5" as many write it
    except ValueError:
        message = i18n.gettext("Give the number of days you will be away, such as 7 or 2.5.")
        return _dashboard(player, token, vacation_error=message, days_typed=shorten(typed)), 400
    try:
        vacation.start(settings(), player.id, days)
    except ServiceError as exc:
        page = _dashboard(player, token, vacation_error=exc.message, days_typed=shorten(typed))
        return page, exc.status
    return redirect(url_for("dashboard.mine", token=token), 303)


@bp.post("/me/<token>/vacation/end")
def come_back(token: str) -> Response:
    vacation.end(settings(), player_for(token).id)
    return redirect(url_for("dashboard.mine", token=token), 303)


@bp.post("/me/<token>/timezone")
def time_zone(token: str) -> Response | tuple[Response | str, int]:
    """Set the zone of the player's emails: from the form (answered by a redirect), or from the
    browser by clock.js (answered in JSON; with `if_unset`, only when the player has none)."""
    player = player_for(token)
    wants_json = (
        request.accept_mimetypes.best_match(["text/html", "application/json"]) == "application/json"
    )
    zone = request.form.get("zone", "").strip()
    if request.form.get("if_unset") and player.time_zone is not None:
        if wants_json:
            return jsonify(time_zone=player.time_zone, changed=False), 200
        return redirect(url_for("dashboard.mine", token=token), 303)
    try:
        if len(zone) > when.MAX_ZONE_LENGTH:
            raise TooLong(
                i18n.gettext(
                    "A time zone name has at most %(most)d characters; this one has "
                    "%(length)d. Choose one from the list, such as Europe/Paris.",
                    most=when.MAX_ZONE_LENGTH,
                    length=len(zone),
                )
            )
        name = dashboard.set_time_zone(player, zone)
    except ServiceError as exc:
        if wants_json:
            return refusal(exc.code, exc.message, exc.status, as_json=True)
        return _dashboard(player, token, zone_error=exc.message), exc.status
    if wants_json:
        return jsonify(time_zone=name, changed=True), 200
    return redirect(url_for("dashboard.mine", token=token, done="zone"), 303)


@bp.post("/me/<token>/name")
def set_name(token: str) -> Response | tuple[str, int]:
    """The player's own name; empty clears it (their seat's colour again)."""
    player = player_for(token)
    typed = request.form.get("name", "")
    try:
        saved = dashboard.set_name(player, typed)
    except ServiceError as exc:
        return _dashboard(player, token, name_error=exc.message, name_typed=typed), exc.status
    done = "name" if saved is not None else "unnamed"
    return redirect(url_for("dashboard.mine", token=token, done=done), 303)


@bp.post("/me/<token>/mail")
def set_mail(token: str) -> Response | tuple[str, int]:
    """Which turn mail the player wants: `preference` is every, digest or none."""
    player = player_for(token)
    try:
        dashboard.set_mail_preference(player, request.form.get("preference", ""))
    except ServiceError as exc:
        return _dashboard(player, token, mail_error=exc.message), exc.status
    return redirect(url_for("dashboard.mine", token=token, done="mail"), 303)


@bp.post("/me/<token>/signout")
def sign_out(token: str) -> str:
    rotation.sign_out_everywhere(settings(), player_for(token))
    return render_template("pages/signed_out.html")


@bp.get("/me/<token>/new")
def new_game(token: str) -> str:
    player = player_for(token)
    return _new_game_form(player, token, request.args.get("game"))


@bp.post("/me/<token>/new")
def create_game(token: str) -> Response | tuple[str, int]:
    """A game started from the organiser's own player link: their address is proven already."""
    player = player_for(token)
    name = request.form.get("game", "")
    try:
        game = games.get(name)
        options = form_options(game)
        others = form_invitees()
        addresses = [other.address for other in others]
        ratelimits.check_game_creation(player.address, invited=bot_seats.addresses(addresses))
        # The organiser's own name is theirs to set on the dashboard, not here.
        created = starting.create_game(
            settings(),
            game.name,
            options,
            [player.address, *addresses],
            started_by=starting.BY_PLAYER,
            clock=form_clock(),
            names=[None, *(other.name for other in others)],
            title=form_title(),
            timeout_policy=form_timeout_policy(),
            language=form_language(),
        )
    except KeyError as exc:
        known = name.strip().lower() in games.names()
        message = str(exc.args[0]) if known else unknown_game(name)
        return _new_game_form(player, token, None, message), 400
    except SetupError as exc:
        return _new_game_form(player, token, name, exc.message), 400
    dispatch.send_emails_later(created.outbox_ids)
    if created.started:
        # Against bots only: the game is under way, and a bot may have the first move.
        dispatch.play_bots_later([created.game_id])
    return redirect(url_for("dashboard.mine", token=token), 303)


def _new_game_form(player: Player, token: str, chosen: str | None, error: str | None = None) -> str:
    catalogue = available_games()
    return render_template(
        "pages/index.html",
        games=catalogue,
        game=next((g for g in catalogue if g.name == chosen), None),
        error=error,
        values=request.form,
        typed=typed_players(),
        organiser=player.email,
        organiser_name=player.name,
        dashboard=url_for("dashboard.mine", token=token),
        action=url_for("dashboard.create_game", token=token),
        choose_action=url_for("dashboard.new_game", token=token),
        embedded=False,
        bots_offered=bot_choices(),
        **clock_choices(),
    )


@bp.get("/signin")
def signin_form() -> str:
    return render_template("pages/_signin.html", sent=False, email="")


@bp.post("/signin")
def signin() -> tuple[str, int]:
    started = time.monotonic()
    email = request.form.get("email", "").strip()
    try:
        address = normalise_address(settings(), email)
    except SetupError as exc:
        page = render_template("pages/_signin.html", sent=False, email=email, error=exc.message)
        return page, 400
    ratelimits.check_signin(address)
    dispatch.send_emails_later(dashboard.request_signin(settings(), address))
    # The same answer, in the same time, either way: the page must not tell who plays here.
    time.sleep(max(0.0, SIGNIN_ANSWER_SECONDS - (time.monotonic() - started)))
    return render_template("pages/_signin.html", sent=True, email=address), 200


@bp.get("/signin/<token>")
def signin_link(token: str) -> str:
    """A sign-in link's page: mail scanners open every link, so only its POST uses it up."""
    player = signin_player_for(token)
    return render_template("pages/signin_link.html", email=player.email)


@bp.post("/signin/<token>")
def use_signin_link(token: str) -> Response:
    player_token = access.use_signin(settings(), token)
    return redirect(url_for("dashboard.mine", token=player_token), 303)


@bp.get("/block/<token>")
def block_form(token: str) -> str:
    player = blocking_player_for(token)
    return render_template("pages/block.html", email=player.email, blocked=False)


@bp.post("/block/<token>")
def block(token: str) -> str:
    player = access.block_address(settings(), token)
    return render_template("pages/block.html", email=player.email, blocked=True)
