"""The game page of one seat, move confirmation by POST, submission status."""

from __future__ import annotations

import re

from flask import Blueprint, redirect, render_template, request, url_for
from markupsafe import Markup
from werkzeug.wrappers import Response

from pbem import dispatch
from pbem.domain import moves, views
from pbem.domain.errors import GameOver, MoveRefused, NotYourTurn, StalePly
from pbem.models import Seat
from pbem.web.access import claims_for, seat_for, submission_for
from pbem.web.errors import error_page
from pbem.web.limits import shorten

bp = Blueprint("play", __name__)


@bp.get("/play/<token>")
def page(token: str) -> str:
    return game_page(seat_for(token=token), token)


@bp.post("/play/<token>")
def submit(token: str) -> Response | tuple[str, int]:
    claims = claims_for(token=token)
    move = request.form.get("move_text", "").strip() or request.form.get("move", "")
    try:
        ply = int(request.form["ply"])
    except (KeyError, ValueError):
        return error_page(
            "bad_request",
            "The form did not say which move of the game it was for. Reload the game page and "
            "send the move from there.",
            400,
            back=url_for("play.page", token=token),
        )
    try:
        submission_id = moves.submit_move(claims, move, ply)
    except MoveRefused as exc:
        page = game_page(seat_for(token=token), token, error=exc.message, typed=shorten(move))
        return page, exc.status
    except (StalePly, NotYourTurn, GameOver) as exc:
        return error_page(exc.code, exc.message, exc.status, back=url_for("play.page", token=token))
    dispatch.apply_move_later(submission_id)
    return redirect(url_for("play.submission", submission_id=submission_id, token=token), 303)


@bp.get("/submission/<int:submission_id>")
def submission(submission_id: int) -> str:
    seat = seat_for()
    row = submission_for(seat, submission_id)
    return render_template(
        "pages/submission.html",
        submission=row,
        game=seat.game,
        title=views.engine(seat.game).title,
        pic=views.picture(seat),
        token=request.args.get("token", ""),
    )


@bp.get("/games/<game_id>/record.json")
def old_record(game_id: str) -> Response:
    """The game record's former address: it lives in the API now."""
    query = f"?{request.query_string.decode()}" if request.query_string else ""
    return redirect(url_for("api.record", game_id=game_id) + query, 308)


def game_page(seat: Seat, token: str, error: str | None = None, typed: str = "") -> str:
    pic = views.picture(seat)
    legal = pic.legal_moves()
    return render_template(
        "pages/play.html",
        pic=pic,
        game=pic.game,
        seat=seat,
        token=token,
        board=board_svg(pic),
        legal=legal,
        groups=group_moves(legal),
        error=error,
        typed=typed,
    )


def group_moves(moves: list[str]) -> list[tuple[str, list[str]]]:
    """Moves grouped by their first word ("place", "flip"), so a long list stays navigable.

    One group with an empty label when grouping would not help.
    """
    groups: dict[str, list[str]] = {}
    for move in moves:
        groups.setdefault(move.split(" ", 1)[0] if " " in move else "", []).append(move)
    if len(groups) < 2 or len(moves) < 20:
        return [("", moves)]
    return list(groups.items())


def board_svg(pic: views.SeatPicture) -> Markup | None:
    """The seat's board as inline SVG (trusted: drawn by our own renderers, which escape text)."""
    if pic.state is None:
        return None
    svg = views.engine(pic.game).render_svg(pic.state, pic.seat.seat, pic.names)
    # Inline SVG must not carry an XML prolog or doctype.
    svg = re.sub(r"^\s*<\?xml[^>]*\?>\s*", "", svg)
    svg = re.sub(r"^\s*<!DOCTYPE[^>]*>\s*", "", svg)
    return Markup(svg)
