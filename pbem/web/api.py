"""The JSON API: the same operations as the pages, authenticated by the same seat tokens.

Send the seat token as `Authorization: Bearer <token>` or `?token=`. Errors are
`{"error": code, "message": text}` with a fitting status (`pbem.web.errors`). Players are named
as the pages name them; an address is given to its owner only (the token's seat), every other
is null.
"""

from __future__ import annotations

from functools import cache
from typing import Any

from flask import Blueprint, Response, jsonify

from pbem import dispatch, games, i18n, resources
from pbem.domain import bot_turns, cancelling, endings, moves, turns, views, when, wording
from pbem.domain.errors import GameNotStarted, NoSuchPosition, ServiceError
from pbem.extensions import settings
from pbem.models import INVITING, RUNNING, Game, Seat
from pbem.web.access import claims_for, seat_for, submission_for
from pbem.web.limits import json_body, shorten

bp = Blueprint("api", __name__, url_prefix="/api")


class BadRequest(ServiceError):
    code = "bad_request"


MOVE_KEYS = frozenset({"move", "ply"})


@cache
def _openapi() -> bytes:
    return (resources.static_dir() / "openapi.json").read_bytes()


@bp.get("/openapi.json")
def openapi() -> Response:
    """The OpenAPI document of this API (kept in `pbem/static/openapi.json`)."""
    return Response(_openapi(), mimetype="application/json")


@bp.get("/games/<game_id>")
def game(game_id: str) -> Response:
    seat = seat_for(game_id)
    pic = views.picture(seat)
    state = pic.state
    timing = views.timing(seat.game)
    return jsonify(
        game=pic.game.id,
        engine=pic.game.engine,
        title=pic.title,
        # The organiser's name for the game ("Friday Club"), None when it has none; `title`
        # stays the engine's, as clients have read it since the first release.
        name=seat.game.title,
        options=seat.game.options,
        status=pic.game.status,
        ply=pic.game.ply,
        to_move=turns.waiting_on(pic.game),
        seat=seat.seat,
        your_turn=pic.may_move,
        clock=timing.clock.to_json(),
        on_timeout=seat.game.timeout_policy,
        deadline=when.iso(timing.deadline),
        paused=timing.paused,
        draw_offered_by=timing.draw_offered_by,
        cancel_agreed_by=list(cancelling.of_game(seat.game).agreed),
        players=[
            _player(other, pic.names[other.seat], seat, timing.seats[other.seat])
            for other in seat.game.seats
        ],
        scores=state.scores() if state is not None else None,
        outcome=seat.game.outcome,
        view=pic.view(),
    )


def _player(other: Seat, name: str, viewer: Seat, standing: views.SeatTiming) -> dict[str, Any]:
    """A seat as `viewer` sees it: its name; its address only when it is the viewer's own."""
    player = other.player
    return {
        "seat": other.seat,
        "name": name,
        "email": player.email if other.seat == viewer.seat else None,
        **views.who_plays(other),
        "state": standing.state,
        "time_left_s": _seconds(standing.time_left_s),
        "on_vacation_until": when.iso(standing.away_until),
        "mail_bounces": player.bounced_at is not None,
    }


def _seconds(value: float | None) -> int | None:
    """Whole seconds for the API (rounded down: never promise time there is not)."""
    return None if value is None else int(value)


def _acted(outbox_ids: list[int], game_id: str) -> Response:
    dispatch.send_emails_later(outbox_ids)
    # A bot may answer a draw offer, or have the turn a player left.
    dispatch.play_bots_later(bot_turns.with_bots([game_id]))
    return game(game_id)


@bp.post("/games/<game_id>/resign")
def resign(game_id: str) -> Response:
    """Resign: a two-player game is lost; in a larger one the seat leaves and play goes on."""
    return _acted(endings.resign(settings(), claims_for(game_id)), game_id)


@bp.post("/games/<game_id>/draw")
def offer_draw(game_id: str) -> Response:
    """Offer a draw (two-player games); accepts the opponent's standing offer."""
    return _acted(endings.offer_draw(settings(), claims_for(game_id)), game_id)


@bp.post("/games/<game_id>/draw/accept")
def accept_draw(game_id: str) -> Response:
    return _acted(endings.answer_draw(settings(), claims_for(game_id), accept=True), game_id)


@bp.post("/games/<game_id>/draw/decline")
def decline_draw(game_id: str) -> Response:
    return _acted(endings.answer_draw(settings(), claims_for(game_id), accept=False), game_id)


@bp.post("/games/<game_id>/cancel")
def cancel(game_id: str) -> Response:
    """Cancel a game nobody has moved in: the organiser alone before it starts; once started,
    the seat agrees (the first agreement proposes it), and the last agreement cancels it."""
    return _acted(cancelling.agree(settings(), claims_for(game_id)), game_id)


@bp.post("/games/<game_id>/cancel/decline")
def decline_cancel(game_id: str) -> Response:
    """Decline the proposal to cancel standing, or withdraw the seat's agreement."""
    return _acted(cancelling.decline(settings(), claims_for(game_id)), game_id)


@bp.get("/games/<game_id>/legal")
def legal(game_id: str) -> Response:
    pic = views.picture(seat_for(game_id), recent=0)
    return jsonify(
        ply=pic.game.ply,
        to_move=turns.waiting_on(pic.game),
        your_turn=pic.may_move,
        moves=pic.legal_moves(),
    )


@bp.get("/games/<game_id>/board-assets")
def board_assets(game_id: str) -> Response:
    """What the interactive board draws on the seat's turn beyond the SVG (the engine's
    `board_assets`: tile previews, what a move costs, claim words), `{}` otherwise. The game
    page fetches it once drawn, so that a phone shows the board before these arrive."""
    seat = seat_for(game_id)
    pic = views.picture(seat, recent=0)
    state = pic.state if pic.may_move else None
    assets = (
        views.engine(pic.game).board_assets(
            state, seat.seat, pic.names, wording.game_language(pic.game.engine)
        )
        if state
        else {}
    )
    response = jsonify(ply=pic.game.ply, your_turn=state is not None, assets=assets)
    response.headers["Cache-Control"] = "no-store"
    return response


@bp.get("/games/<game_id>/history")
def history(game_id: str) -> Response:
    seat = seat_for(game_id)
    return jsonify(
        ply=seat.game.ply,
        moves=[views.move_json(m) for m in views.history(seat.game)],
    )


@bp.post("/games/<game_id>/moves")
def submit(game_id: str) -> tuple[Response, int]:
    # The claims only: submit_move checks them against the seat in the statement that reads the
    # game, so a move costs one read and one insert.
    claims = claims_for(game_id)
    body = json_body()
    if not isinstance(body, dict) or not isinstance(body.get("move"), str):
        raise BadRequest(i18n.gettext('Send JSON: {"move": "...", "ply": N}.'))
    # The schema says so (additionalProperties: false): a key the API does not read is a
    # mistake worth hearing about, a misspelt "ply" say.
    extra = sorted(set(body) - MOVE_KEYS)
    if extra:
        raise BadRequest(
            i18n.gettext(
                "The body has a key %(key)s, which the API does not read: send only "
                '{"move": "...", "ply": N}.',
                key=repr(shorten(extra[0], 40)),
            )
        )
    ply = body.get("ply")
    if not isinstance(ply, int) or isinstance(ply, bool):
        raise BadRequest(i18n.gettext("'ply' must be the game's ply number (GET the game for it)."))
    submission_id = moves.submit_move(claims, body["move"], ply)
    dispatch.apply_move_later(submission_id)
    return jsonify(submission=submission_id, status="pending"), 202


@bp.get("/submissions/<int:submission_id>")
def submission(submission_id: int) -> Response:
    row = submission_for(seat_for(), submission_id)
    return jsonify(
        submission=row.id,
        game=row.game_id,
        seat=row.seat,
        ply=row.ply,
        move=row.move,
        status=row.status,
        error=wording.read_words(row.error) if row.error else None,
        created_at=row.created_at.isoformat() + "Z",
        applied_at=row.applied_at.isoformat() + "Z" if row.applied_at else None,
    )


@bp.get("/games/<game_id>/record")
def record(game_id: str) -> Response:
    """The game record: everything needed to replay it elsewhere (options, seed, players, moves)."""
    seat = seat_for(game_id)
    response = jsonify(views.game_record(seat.game, viewer=seat.seat))
    response.headers["Content-Disposition"] = f'attachment; filename="pbem-{game_id}.json"'
    return response


@bp.get("/games/<game_id>/board.svg")
def board_svg(game_id: str) -> Response:
    """The seat's current board as an SVG document."""
    seat = seat_for(game_id)
    state = _started(seat.game)
    svg = views.engine(seat.game).render_svg(
        state, seat.seat, views.names(seat.game), wording.game_language(seat.game.engine)
    )
    response = Response(svg, mimetype="image/svg+xml")
    response.headers["Cache-Control"] = "no-store"
    return response


@bp.get("/games/<game_id>/positions/<int:ply>")
def position(game_id: str, ply: int) -> Response:
    """The position after `ply` moves as this seat saw it then: SVG, move, who moved, scores."""
    seat = seat_for(game_id)
    game = seat.game
    _started(game)
    state = views.position_after(game, ply) if 0 <= ply <= game.ply else None
    if state is None:
        raise NoSuchPosition(i18n.gettext("The game has no position after move %(ply)d.", ply=ply))
    last = views.history(game)[ply - 1] if ply > 0 else None
    who = views.names(game)
    response = jsonify(
        ply=ply,
        plies=game.ply,
        move=last.move if last else None,
        by=who[last.seat] if last else None,
        # The last position of a game the service ended (resigned, out of time, drawn) is no
        # one's to move, whatever its engine state says.
        to_move=state.to_move if ply < game.ply or game.status == RUNNING else None,
        scores=state.scores(),
        svg=views.engine(game).render_svg(
            state, seat.seat, who, wording.game_language(game.engine)
        ),
    )
    # A past position never changes: let the browser keep it.
    if ply < game.ply:
        response.headers["Cache-Control"] = "private, max-age=86400"
    return response


def _started(game: Game) -> games.State:
    state = views.load_state(game)
    if state is None or game.status == INVITING:
        raise GameNotStarted(
            i18n.gettext(
                "The game has not started yet: it starts when every invited player has accepted."
            )
        )
    return state
