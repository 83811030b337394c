"""A player's dashboard: all their games, those waiting for them first.

There are no accounts: any seat link of a player opens it (`/me/<seat token>`), and so does a
sign-in link asked for by email (`/signin`), which lives a short time instead of the seat links'
months (`pbem.domain.access.SIGNIN_MAX_AGE_DAYS`).
"""

from __future__ import annotations

from flask import Blueprint, render_template, request

from pbem import dispatch
from pbem.domain import dashboard
from pbem.domain.errors import SetupError
from pbem.domain.starting import normalise_email
from pbem.extensions import settings
from pbem.web.access import player_for, request_token

bp = Blueprint("dashboard", __name__)


@bp.get("/me/<token>")
def mine(token: str) -> str:
    player = player_for(token)
    lines = dashboard.game_lines(settings(), player)
    return render_template(
        "pages/_dashboard.html",
        player=player,
        lines=lines,
        waiting=sum(1 for line in lines if line.your_turn or line.invited),
    )


@bp.get("/me")
def from_seat() -> str:
    """`/me?token=<seat token>`: the 'your games' link of a game page."""
    return mine(request_token())


@bp.get("/signin")
def signin_form() -> str:
    return render_template("pages/_signin.html", sent=False, email="")


@bp.post("/signin")
def signin() -> tuple[str, int]:
    email = request.form.get("email", "").strip()
    try:
        address = normalise_email(email)
    except SetupError as exc:
        page = render_template("pages/_signin.html", sent=False, email=email, error=exc.message)
        return page, 400
    dispatch.send_emails_later(dashboard.request_signin(settings(), address))
    # The same answer either way: the page must not tell who plays here.
    return render_template("pages/_signin.html", sent=True, email=address), 200
