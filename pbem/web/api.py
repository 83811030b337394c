"""The JSON API: the same operations as the pages, authenticated by the same seat tokens.

Send the seat token as `Authorization: Bearer <token>` or `?token=`. Errors are
`{"error": code, "message": text}` with a fitting status.
"""

from __future__ import annotations

from flask import Blueprint, jsonify, request
from werkzeug.wrappers import Response

from pbem import dispatch, links, service
from pbem.extensions import db
from pbem.models import Seat, Submission
from pbem.web.pages_errors import json_error
from pbem.web.play import seat_of_game

bp = Blueprint("api", __name__, url_prefix="/api")


def _token() -> str:
    header = request.headers.get("Authorization", "")
    scheme, _, value = header.partition(" ")
    if scheme.lower() == "bearer" and value.strip():
        return value.strip()
    return request.args.get("token", "")


def _seat(game_id: str) -> Seat:
    _claims(game_id)
    return seat_of_game(_token(), game_id)


def _claims(game_id: str) -> links.LinkClaims:
    """The claims of the request's seat token for this game; revocation is checked later."""
    if not _token():
        raise links.ForgedLink(
            "No token was sent: pass your seat token as 'Authorization: Bearer <token>' or "
            "'?token=<token>'."
        )
    claims = service.read_claims(_token(), links.SEAT)
    if claims.game_id != game_id:
        raise links.WrongLink("This link belongs to another game.")
    return claims


@bp.get("/games/<game_id>")
def game(game_id: str) -> Response:
    seat = _seat(game_id)
    pic = service.picture(seat)
    state = pic.state
    return jsonify(
        game=pic.game.id,
        engine=pic.game.engine,
        title=pic.title,
        options=pic.game.options,
        status=pic.game.status,
        ply=pic.game.ply,
        to_move=pic.game.to_move,
        seat=seat.seat,
        your_turn=pic.your_turn,
        players=[{"seat": i, "email": name} for i, name in enumerate(pic.names)],
        scores=state.scores() if state is not None else None,
        outcome=pic.game.outcome,
        view=state.view(seat.seat) if state is not None else None,
    )


@bp.get("/games/<game_id>/legal")
def legal(game_id: str) -> Response:
    seat = _seat(game_id)
    pic = service.picture(seat, recent=0)
    return jsonify(
        ply=pic.game.ply, to_move=pic.game.to_move, your_turn=pic.your_turn, moves=pic.legal_moves()
    )


@bp.get("/games/<game_id>/history")
def history(game_id: str) -> Response:
    seat = _seat(game_id)
    moves = service.history(seat.game)
    return jsonify(
        ply=seat.game.ply,
        moves=[
            {"ply": m.ply, "seat": m.seat, "move": m.move, "at": m.created_at.isoformat() + "Z"}
            for m in moves
        ],
    )


@bp.post("/games/<game_id>/moves")
def submit(game_id: str) -> tuple[Response, int]:
    # The claims only: submit_move checks them against the seat in the statement that reads the
    # game, so a move costs one read and one insert.
    claims = _claims(game_id)
    body = request.get_json(silent=True)
    if not isinstance(body, dict) or not isinstance(body.get("move"), str):
        return json_error("bad_request", 'Send JSON: {"move": "...", "ply": N}.', 400)
    ply = body.get("ply")
    if not isinstance(ply, int) or isinstance(ply, bool):
        return json_error(
            "bad_request", "'ply' must be the game's ply number (GET the game for it).", 400
        )
    submission_id = service.submit_move(claims, body["move"], ply)
    dispatch.apply_move_later(submission_id)
    return jsonify(submission=submission_id, status="pending"), 202


@bp.get("/submissions/<int:submission_id>")
def submission(submission_id: int) -> Response:
    seat = service.seat_for_token(_token(), links.SEAT)
    row = db.session.get(Submission, submission_id)
    if row is None or row.game_id != seat.game_id or row.seat != seat.seat:
        raise service.NotFound("There is no such submission for your seat.")
    return jsonify(
        submission=row.id,
        game=row.game_id,
        seat=row.seat,
        ply=row.ply,
        move=row.move,
        status=row.status,
        error=row.error,
        created_at=row.created_at.isoformat() + "Z",
        applied_at=row.applied_at.isoformat() + "Z" if row.applied_at else None,
    )
