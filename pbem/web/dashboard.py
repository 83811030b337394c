"""A player's dashboard: all their games, those waiting for them first.

There are no accounts. The dashboard opens with a player link (`/me/<token>`, purpose `player`),
which every email carries; a seat or invitation link opens its own game only. A player without
an email at hand asks for a sign-in link (`/signin`): it works once, within an hour, and its
POST hands out a player link. "Sign out everywhere" withdraws every link the player holds.
"""

from __future__ import annotations

import time

from flask import Blueprint, redirect, render_template, request, url_for
from werkzeug.wrappers import Response

from pbem import dispatch, games
from pbem.domain import access, dashboard, rotation, starting
from pbem.domain.addresses import normalise_address
from pbem.domain.errors import SetupError
from pbem.extensions import settings
from pbem.web import ratelimits
from pbem.web.access import player_for
from pbem.web.start import available_games, form_addresses, form_options

bp = Blueprint("dashboard", __name__)

# The sign-in POST answers no sooner than this, so its time does not tell whether the address
# plays here (the work for a known address is done within it).
SIGNIN_ANSWER_SECONDS = 0.25


@bp.get("/me/<token>")
def mine(token: str) -> str:
    player = player_for(token)
    lines = dashboard.game_lines(settings(), player)
    return render_template(
        "pages/_dashboard.html",
        player=player,
        lines=lines,
        token=token,
        waiting=sum(1 for line in lines if line.your_turn or line.invited),
    )


@bp.post("/me/<token>/signout")
def sign_out(token: str) -> str:
    rotation.sign_out_everywhere(settings(), player_for(token))
    return render_template("pages/signed_out.html")


@bp.get("/me/<token>/new")
def new_game(token: str) -> str:
    player = player_for(token)
    return _new_game_form(player.email, token, request.args.get("game"))


@bp.post("/me/<token>/new")
def create_game(token: str) -> Response | tuple[str, int]:
    """A game started from the organiser's own player link: their address is proven already."""
    player = player_for(token)
    name = request.form.get("game", "")
    try:
        game = games.get(name)
        options = form_options(game)
        others = form_addresses()
        ratelimits.check_game_creation(player.email, invited=others)
        created = starting.create_game(
            settings(),
            game.name,
            options,
            [player.email, *others],
            started_by=starting.BY_PLAYER,
        )
    except KeyError as exc:
        return _new_game_form(player.email, token, None, str(exc.args[0])), 400
    except SetupError as exc:
        return _new_game_form(player.email, token, name, exc.message), 400
    dispatch.send_emails_later(created.outbox_ids)
    return redirect(url_for("dashboard.mine", token=token), 303)


def _new_game_form(email: str, token: str, chosen: str | None, error: str | None = None) -> str:
    catalogue = available_games()
    return render_template(
        "pages/index.html",
        games=catalogue,
        game=next((g for g in catalogue if g.name == chosen), None),
        error=error,
        values=request.form,
        organiser=email,
        action=url_for("dashboard.create_game", token=token),
        choose_action=url_for("dashboard.new_game", token=token),
        embedded=False,
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
    player = access.signin_player(settings(), token)
    return render_template("pages/signin_link.html", email=player.email)


@bp.post("/signin/<token>")
def use_signin_link(token: str) -> Response:
    player_token = access.use_signin(settings(), token)
    return redirect(url_for("dashboard.mine", token=player_token), 303)


@bp.get("/block/<token>")
def block_form(token: str) -> str:
    player = access.blocked_player(settings(), token)
    return render_template("pages/block.html", email=player.email, blocked=False)


@bp.post("/block/<token>")
def block(token: str) -> str:
    player = access.block_address(settings(), token)
    return render_template("pages/block.html", email=player.email, blocked=True)
