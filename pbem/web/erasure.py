"""Being forgotten, from the games page: a button asks, an emailed link confirms.

The button (`POST /me/<token>/erase`) only emails the player: a games link can be forwarded, a
mailbox is the player's own. The emailed link (`/erase/<token>`, valid a day) shows what
erasing will end; only its POST erases, since mail scanners open every link. What erasing does
is `pbem.ops.player_data.erase_player`'s, the same as `pbem admin player erase`.
"""

from __future__ import annotations

from flask import Blueprint, redirect, render_template, url_for
from werkzeug.wrappers import Response

from pbem import dispatch
from pbem.domain import bot_turns
from pbem.extensions import settings
from pbem.links import ERASE_MAX_AGE_SECONDS
from pbem.models import utcnow
from pbem.ops import player_data
from pbem.web import ratelimits
from pbem.web.access import erasing_player_for, player_for

bp = Blueprint("erasure", __name__)


@bp.post("/me/<token>/erase")
def ask(token: str) -> Response:
    player = player_for(token)
    # The same budget as sign-in links: both are emails a page sends to the player's own box.
    ratelimits.check_signin(player.address)
    dispatch.send_emails_later(player_data.request_erasure(settings(), player))
    return redirect(url_for("dashboard.mine", token=token, done="erase"), 303)


@bp.get("/erase/<token>")
def confirm_form(token: str) -> str:
    player = erasing_player_for(token)
    return render_template(
        "pages/erase.html",
        email=player.email,
        plan=player_data.erasure_plan(player),
        hours=ERASE_MAX_AGE_SECONDS // 3600,
        erased=None,
    )


@bp.post("/erase/<token>")
def erase(token: str) -> str:
    player = erasing_player_for(token)
    email = player.email
    done = player_data.erase_player(settings(), player, utcnow())
    dispatch.send_emails_later(done.outbox_ids)
    # In a game of three or four the others play on: a bot may have the turn the player left.
    dispatch.play_bots_later(bot_turns.with_bots(done.resigned))
    return render_template("pages/erase.html", email=email, erased=done)
