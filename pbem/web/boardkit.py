"""The interactive board: static assets, the data click-to-move reads, the board and replay API.

The game page embeds the seat's SVG, its legal moves and (for Marram) pre-drawn tiles as JSON;
`pbem/static/play.js` builds moves from them by clicking and posts them to the move API. Every
endpoint here is read-only and speaks for one seat, authenticated by that seat's token exactly as
the move API is, so it never shows what the seat may not see: past positions are replayed from the
seed and drawn from the seat's own view at that ply.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from flask import Blueprint, Response, jsonify, request, url_for
from markupsafe import Markup

from pbem import games, links, service
from pbem.models import INVITING, Game, Seat

STATIC = Path(__file__).resolve().parent.parent / "static"

bp = Blueprint("boardkit", __name__, static_folder=str(STATIC), static_url_path="/static")


# --- authentication ------------------------------------------------------------------------------


class ApiError(Exception):
    def __init__(self, code: str, message: str, status: int) -> None:
        super().__init__(message)
        self.code, self.message, self.status = code, message, status


@bp.errorhandler(ApiError)
def _api_error(exc: ApiError) -> tuple[Response, int]:
    return jsonify(error=exc.code, message=exc.message), exc.status


def request_token() -> str | None:
    header = request.headers.get("Authorization", "")
    if header.lower().startswith("bearer "):
        return header[7:].strip() or None
    return request.args.get("token") or None


def api_seat(game_id: str) -> Seat:
    """The seat the request's token speaks for, which must belong to `game_id`."""
    token = request_token()
    if token is None:
        raise ApiError("no_token", "Send the seat's token as a Bearer token or ?token=.", 401)
    try:
        seat = service.seat_for_token(token, links.SEAT)
    except links.LinkError as exc:
        raise ApiError(exc.code, exc.message, exc.status) from exc
    if seat.game_id != game_id:
        raise ApiError("wrong_token", "This token is for another game.", 403)
    return seat


def _running_state(game: Game) -> games.State:
    state = service.load_state(game)
    if state is None or game.status == INVITING:
        raise ApiError(
            "game_not_started",
            "The game has not started yet: it starts when every invited player has accepted.",
            409,
        )
    return state


# --- positions -----------------------------------------------------------------------------------


def replay(game: Game) -> Iterator[games.State]:
    """Every position of the game from the start, replayed from its seed and recorded moves."""
    rules = service.engine(game)
    state = rules.new(len(game.seats), game.options, game.seed)
    yield state
    for move in service.history(game):
        state = state.play(move.move)
        yield state


def position_after(game: Game, ply: int) -> games.State:
    """The state after `ply` moves (0 = the start)."""
    for index, state in enumerate(replay(game)):
        if index == ply:
            return state
    raise ApiError("no_such_ply", f"The game has no position after move {ply}.", 404)


# --- the page's data -----------------------------------------------------------------------------


def marram_previews(state: games.State, seat: int, legal: list[str]) -> dict[str, str]:
    """Each tile the seat may lay or flip, drawn in every legal rotation (key face:tile:rotation).

    The page shows the chosen one in place; quadrant and spoke hit areas are drawn in board
    orientation, so the same drawing offers the boot, fork and bet locations.
    """
    from pbem.games.marram import render

    view = state.view(seat)
    show_prey = view.get("variant") == "animals"
    tiles = view.get("tiles") or {}
    at = {(int(t["x"]), int(t["y"])): t for t in view.get("board") or []}
    # Upright drawings of the hand for the picker's buttons.
    wanted: set[tuple[str, int, int]] = {("front", int(t), 0) for t in view.get("hand") or []}
    for move in legal:
        words = move.split()
        if words[0] == "place":
            wanted.add(("front", int(words[1]), int(words[3])))
        elif words[0] == "flip":
            x, y = (int(v) for v in words[1].split(","))
            laid = at.get((x, y))
            if laid is not None:
                wanted.add(("back", int(laid["tile"]), int(words[2])))
    previews = {}
    for face, tile, rotation in sorted(wanted):
        desc = tiles.get(str(tile))
        if desc is None:
            continue
        previews[f"{face}:{tile}:{rotation}"] = render.tile_group(
            desc,
            rotation=rotation,
            face=face,
            tile_id=tile,
            show_prey=show_prey,
            attrs=' data-preview="1"',
        )
    return previews


def page_data(
    seat: Seat, token: str, state: games.State | None, legal: list[str]
) -> dict[str, Any]:
    """Everything play.js needs, for the `game-data` JSON island of the game page."""
    game = seat.game
    your_turn = game.status == "running" and game.to_move == seat.seat and state is not None
    data: dict[str, Any] = {
        "game_id": game.id,
        "engine": game.engine,
        "seat": seat.seat,
        "ply": game.ply,
        "status": game.status,
        "to_move": game.to_move,
        "your_turn": your_turn,
        "token": token,
        "view": state.view(seat.seat) if state is not None else None,
        "previews": {},
        "urls": {
            # The move API's paths are fixed by the service contract.
            "game": f"/api/games/{game.id}",
            "moves": f"/api/games/{game.id}/moves",
            "submission": "/api/submissions/",
            "board": url_for("boardkit.board_svg", game_id=game.id),
            "position": url_for("boardkit.position", game_id=game.id, ply=0)[:-1],
            "record": url_for("boardkit.record", game_id=game.id),
            "page": request.path,
        },
    }
    if your_turn and state is not None and game.engine == "marram":
        from pbem.games.marram import render

        data["previews"] = marram_previews(state, seat.seat, legal)
        # The seat's own tokens, drawn on the tile in place where the player puts them.
        data["glyphs"] = {
            "boot": render.boot_glyph(0, 0, seat.seat),
            "fork": render.fork_glyph(0, 0, seat.seat),
            "bet": render.bet_glyph(0, 0, seat.seat),
        }
    return data


def board_svg_markup(seat: Seat) -> Markup:
    """The seat's board as inline SVG (trusted: drawn by our own renderers, which escape text)."""
    game = seat.game
    state = service.load_state(game)
    if state is None:
        return Markup("")
    return Markup(service.engine(game).render_svg(state, seat.seat))


def json_island(value: object) -> Markup:
    """JSON safe inside a <script> element: no '<', '>' or '&' survive unescaped."""
    text = json.dumps(value, separators=(",", ":"))
    text = text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
    return Markup(text)


@bp.app_template_global("pbem_board")
def pbem_board(seat: Seat, token: str, svg: Markup | None = None) -> dict[str, Any]:
    """Context for `pages/_board.html`: `{% set kit = pbem_board(seat, token, board) %}`.

    `svg` is the board the page has already drawn (drawing a long Marram game takes a while).
    """
    game = seat.game
    state = service.load_state(game)
    your_turn = game.status == "running" and game.to_move == seat.seat and state is not None
    legal = state.legal_moves() if your_turn and state is not None else []
    data = page_data(seat, token, state, legal)
    return {
        "svg": svg if svg is not None else board_svg_markup(seat),
        "legal": legal,
        "legal_json": json_island(legal),
        "data_json": json_island(data),
        "engine": game.engine,
        "your_turn": your_turn,
        "script": url_for("boardkit.static", filename="play.js"),
        "css": url_for("boardkit.static", filename="pbem.css"),
    }


@bp.app_template_global("pbem_summary")
def pbem_summary(seat: Seat) -> dict[str, Any]:
    """Whose turn, and per seat its score and supplies; the hand only for the viewer's own seat."""
    game = seat.game
    state = service.load_state(game)
    names = service.names(game)
    view = state.view(seat.seat) if state is not None else {}
    scores = state.scores() if state is not None else [0] * len(names)
    rows = []
    for index, name in enumerate(names):
        rows.append(
            {
                "seat": index,
                "name": name,
                "you": index == seat.seat,
                "to_move": game.status == "running" and game.to_move == index,
                "colour": _colour(game.engine, view, index),
                "score": scores[index] if index < len(scores) else 0,
                "score_label": _score_label(game.engine),
                "supplies": _supplies(game.engine, view, index),
            }
        )
    return {"rows": rows, "hand": _own_hand(game.engine, view), "notes": _notes(game.engine, view)}


def _colour(engine: str, view: dict[str, Any], seat: int) -> str:
    colours = view.get("colours")
    if isinstance(colours, list) and seat < len(colours):
        return str(colours[seat])
    if engine == "marram":
        return ("red", "violet", "white", "black")[seat % 4]
    return ""


def _score_label(engine: str) -> str:
    return {"gorami": "fish", "mmw": "pyramids on the board"}.get(engine, "points")


def _supplies(engine: str, view: dict[str, Any], seat: int) -> str:
    if engine == "gorami":
        hand = (view.get("hands") or [{}])[seat]
        return "discs left: " + " · ".join(f"{n}×{hand[n]}" for n in sorted(hand))
    if engine == "mmw":
        sizes = (view.get("pieces_left_by_size") or [[0, 0, 0]] * (seat + 1))[seat]
        sunk = (view.get("sunk") or [0] * (seat + 1))[seat]
        return f"small {sizes[0]}, medium {sizes[1]}, large {sizes[2]} · sunk {sunk}"
    if engine == "marram":
        supply = (view.get("supplies") or [{}] * (seat + 1))[seat]
        bits = [f"boots {supply.get('boots', 0)}"]
        if view.get("variant") != "classic":
            bits.append(f"forks {supply.get('forks', 0)}")
        bits.append(f"shovels {supply.get('shovels', 0)}")
        if view.get("variant") == "animals":
            bits.append(f"bets {supply.get('bets', 0)}")
        in_hand = (view.get("hand_sizes") or [0] * (seat + 1))[seat]
        return " · ".join(bits) + f" · {in_hand} tiles in hand"
    return ""


def _own_hand(engine: str, view: dict[str, Any]) -> str:
    if engine == "marram" and isinstance(view.get("hand"), list):
        hand = view["hand"]
        return "your tiles: " + (", ".join(str(t) for t in hand) if hand else "none")
    return ""


def _notes(engine: str, view: dict[str, Any]) -> str:
    if engine == "marram" and view:
        text = f"{view.get('bag', 0)} tiles in the bag"
        if view.get("threshold") and view.get("length") == "short":
            text += f" · first to {view['threshold']} wins"
        if view.get("to_move") is not None:
            left = view.get("actions_left", 0)
            text += f" · {left} action{'s' if left != 1 else ''} left this turn"
        return text
    return ""


@bp.app_template_global("pbem_history")
def pbem_history(seat: Seat, token: str) -> dict[str, Any]:
    """The moves so far, each with the link that shows the position after it."""
    game = seat.game
    names = service.names(game)
    moves = [
        {
            "number": m.ply + 1,
            "seat": m.seat,
            "who": names[m.seat] if m.seat < len(names) else str(m.seat),
            "move": m.move,
            "href": url_for("boardkit.replay_page", token=token, ply=m.ply + 1),
        }
        for m in service.history(game)
    ]
    return {
        "moves": moves,
        "plies": game.ply,
        "start_href": url_for("boardkit.replay_page", token=token, ply=0),
        "record_href": url_for("boardkit.record", game_id=game.id, token=token),
        "dashboard_href": url_for("dashboard.from_seat", token=token)
        if "dashboard" in _blueprints()
        else None,
    }


def _blueprints() -> dict[str, Any]:
    from flask import current_app

    return current_app.blueprints


@bp.get("/play/<token>/replay/<int:ply>")
def replay_page(token: str, ply: int) -> str:
    """The replay without JavaScript: one position per page, with links to step through."""
    from flask import render_template

    seat = service.seat_for_token(token, links.SEAT)
    game = seat.game
    if service.load_state(game) is None:
        raise service.GameNotStarted("The game has not started yet.")
    ply = max(0, min(ply, game.ply))
    state = position_after(game, ply)
    moves = service.history(game)
    names = service.names(game)
    last = moves[ply - 1] if ply else None
    return render_template(
        "pages/_replay.html",
        game=game,
        seat=seat,
        token=token,
        title=service.engine(game).title,
        ply=ply,
        plies=game.ply,
        last=last,
        who=names[last.seat] if last else None,
        svg=Markup(service.engine(game).render_svg(state, seat.seat)),
    )


# --- the API -------------------------------------------------------------------------------------


@bp.route("/api/games/<game_id>/board.svg")
def board_svg(game_id: str) -> Response:
    """The seat's current board as an SVG document."""
    seat = api_seat(game_id)
    state = _running_state(seat.game)
    svg = service.engine(seat.game).render_svg(state, seat.seat)
    return _svg_response(svg)


@bp.route("/api/games/<game_id>/positions/<int:ply>")
def position(game_id: str, ply: int) -> Response:
    """The position after `ply` moves as this seat saw it then: SVG, move, who moved, scores."""
    seat = api_seat(game_id)
    game = seat.game
    _running_state(game)
    if not 0 <= ply <= game.ply:
        raise ApiError("no_such_ply", f"The game has no position after move {ply}.", 404)
    state = position_after(game, ply)
    moves = service.history(game)
    who = service.names(game)
    last = moves[ply - 1] if ply > 0 else None
    body = {
        "ply": ply,
        "plies": game.ply,
        "move": last.move if last else None,
        "by": who[last.seat] if last else None,
        "to_move": state.to_move,
        "scores": state.scores(),
        "svg": service.engine(game).render_svg(state, seat.seat),
    }
    response = jsonify(body)
    # A past position never changes: let the browser keep it.
    if ply < game.ply:
        response.headers["Cache-Control"] = "private, max-age=86400"
    return response


@bp.route("/api/games/<game_id>/record")
def record(game_id: str) -> Response:
    """The game record: everything needed to replay it elsewhere (options, seed, players, moves)."""
    seat = api_seat(game_id)
    body = game_record(seat.game)
    response = jsonify(body)
    response.headers["Content-Disposition"] = f'attachment; filename="pbem-{game_id}.json"'
    return response


def game_record(game: Game) -> dict[str, Any]:
    rules = service.engine(game)
    return {
        "game": game.id,
        "engine": game.engine,
        "title": rules.title,
        "options": game.options,
        "seed": game.seed,
        "players": [
            {"seat": s.seat, "email": s.player.email, "accepted": s.accepted_at is not None}
            for s in game.seats
        ],
        "status": game.status,
        "ply": game.ply,
        "outcome": game.outcome,
        "moves": [
            {
                "ply": m.ply,
                "seat": m.seat,
                "move": m.move,
                "at": m.created_at.isoformat() + "Z",
            }
            for m in service.history(game)
        ],
        "created_at": game.created_at.isoformat() + "Z",
        "started_at": game.started_at.isoformat() + "Z" if game.started_at else None,
        "finished_at": game.finished_at.isoformat() + "Z" if game.finished_at else None,
    }


def _svg_response(svg: str) -> Response:
    response = Response(svg, mimetype="image/svg+xml")
    response.headers["Cache-Control"] = "no-store"
    return response
