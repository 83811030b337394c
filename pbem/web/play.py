"""The game page of one seat, move confirmation by POST, submission status, the game record."""

from __future__ import annotations

import re

from flask import Blueprint, jsonify, redirect, render_template, request, url_for
from markupsafe import Markup
from werkzeug.wrappers import Response

from pbem import dispatch, links, service
from pbem.extensions import db
from pbem.models import Seat, Submission
from pbem.web import boardkit
from pbem.web.pages_errors import error_page

bp = Blueprint("play", __name__)


@bp.get("/play/<token>")
def page(token: str) -> str:
    seat = service.seat_for_token(token, links.SEAT)
    return game_page(seat, token)


@bp.post("/play/<token>")
def submit(token: str) -> Response | tuple[str, int]:
    claims = service.read_claims(token, links.SEAT)
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
        submission_id = service.submit_move(claims, move, ply)
    except service.MoveRefused as exc:
        seat = service.seat_for_token(token, links.SEAT)
        return game_page(seat, token, error=exc.message, typed=move), exc.status
    except (service.StalePly, service.NotYourTurn, service.GameOver) as exc:
        return error_page(exc.code, exc.message, exc.status, back=url_for("play.page", token=token))
    dispatch.apply_move_later(submission_id)
    return redirect(url_for("play.submission", submission_id=submission_id, token=token), 303)


@bp.get("/submission/<int:submission_id>")
def submission(submission_id: int) -> str:
    token = request.args.get("token", "")
    seat = service.seat_for_token(token, links.SEAT)
    row = db.session.get(Submission, submission_id)
    if row is None or row.game_id != seat.game_id or row.seat != seat.seat:
        # Someone else's submission looks the same as a missing one.
        raise service.NotFound("There is no such move submission for your seat.")
    return render_template(
        "pages/submission.html",
        submission=row,
        game=seat.game,
        title=service.engine(seat.game).title,
        pic=service.picture(seat),
        token=token,
    )


@bp.get("/games/<game_id>/record.json")
def record(game_id: str) -> Response:
    seat = seat_of_game(request.args.get("token", ""), game_id)
    # One record for the page link and the API: options, seed, players and moves.
    return jsonify(boardkit.game_record(seat.game))


def seat_of_game(token: str, game_id: str) -> Seat:
    seat = service.seat_for_token(token, links.SEAT)
    if seat.game_id != game_id:
        raise links.WrongLink("This link belongs to another game.")
    return seat


def game_page(seat: Seat, token: str, error: str | None = None, typed: str = "") -> str:
    pic = service.picture(seat)
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


def board_svg(pic: service.SeatPicture) -> Markup | None:
    if pic.state is None:
        return None
    svg = service.engine(pic.game).render_svg(pic.state, pic.seat.seat)
    # Inline SVG must not carry an XML prolog or doctype.
    svg = re.sub(r"^\s*<\?xml[^>]*\?>\s*", "", svg)
    svg = re.sub(r"^\s*<!DOCTYPE[^>]*>\s*", "", svg)
    return Markup(svg)
