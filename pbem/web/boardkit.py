"""The interactive board: static assets, the data click-to-move reads, and the template globals
that draw a seat's board, summary and history.

The game page embeds the seat's SVG and its legal moves as JSON, and fetches the engine's
`board_assets` from the move API once drawn (a long game's are the larger part of a page);
`pbem/static/play.js` (with the helpers of `kit.js`) loads the game's own controller,
`pbem/games/<name>/board.js` served by `board_scripts`, which builds moves from them by clicking
and posts them to the move API. Every
endpoint here is read-only and speaks for one seat, so it never shows what the seat may not see:
past positions are replayed from the seed and drawn from the seat's own view at that ply.
"""

from __future__ import annotations

import json
from typing import Any

from flask import g, render_template, request, url_for
from markupsafe import Markup

from pbem import games, i18n, resources
from pbem.domain import turns, views, wording
from pbem.domain.errors import GameNotStarted
from pbem.games.base import seat_mark
from pbem.models import Game, Seat
from pbem.web import assets, board_scripts
from pbem.web.access import seat_for

# Its static folder answers fingerprinted names too (pbem.web.assets).
bp = assets.FingerprintedStatic(
    "boardkit", __name__, static_folder=str(resources.static_dir()), static_url_path="/static"
)


def _your_turn(seat: Seat, state: games.State | None) -> bool:
    """The seat's player may move now (`turns.may_act`)."""
    return state is not None and bool(views.may_move(seat))


def page_data(
    seat: Seat, token: str, state: games.State | None, legal: list[str]
) -> dict[str, Any]:
    """Everything play.js needs, for the `game-data` JSON island of the game page."""
    game = seat.game
    your_turn = _your_turn(seat, state)
    data: dict[str, Any] = {
        "game_id": game.id,
        "engine": game.engine,
        "seat": seat.seat,
        "ply": game.ply,
        "status": game.status,
        "to_move": turns.waiting_on(game),
        "your_turn": your_turn,
        "token": token,
        "view": (
            views.seat_view(game.status, state, seat.seat, your_turn) if state is not None else None
        ),
        "urls": {
            # The move API's paths are fixed by the service contract.
            "game": f"/api/games/{game.id}",
            "moves": f"/api/games/{game.id}/moves",
            "submission": "/api/submissions/",
            "board": url_for("api.board_svg", game_id=game.id),
            "assets": url_for("api.board_assets", game_id=game.id),
            "position": url_for("api.position", game_id=game.id, ply=0)[:-1],
            "record": url_for("api.record", game_id=game.id),
            "page": request.path,
            "controller": board_scripts.script_url(game.engine),
        },
    }
    return data


def json_island(value: object) -> Markup:
    """JSON safe inside a <script> element: no '<', '>' or '&' survive unescaped."""
    text = json.dumps(value, separators=(",", ":"))
    text = text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
    return Markup(text)


@bp.app_template_global("pbem_board")
def pbem_board(seat: Seat, token: str, svg: Markup | None = None) -> dict[str, Any]:
    """Context for `pages/_board.html`: `{% set kit = pbem_board(seat, token, board) %}`.

    `svg` is the board the page has already drawn (a long game takes a while to draw).
    """
    game = seat.game
    state = views.load_state(game)
    your_turn = _your_turn(seat, state)
    legal = state.legal_moves() if your_turn and state is not None else []
    if svg is None and state is not None:
        svg = Markup(
            views.engine(game).render_svg(
                state, seat.seat, views.names(game), wording.game_language(game.engine)
            )
        )
    return {
        "svg": svg or Markup(""),
        "legal": legal,
        "legal_json": json_island(legal),
        "data_json": json_island(page_data(seat, token, state, legal)),
        "engine": game.engine,
        "your_turn": your_turn,
        "script": url_for("boardkit.static", filename="play.js"),
        "css": url_for("boardkit.static", filename="pbem.css"),
    }


def seat_colours(game: Game) -> list[str]:
    """Each seat's colour word ("red"), as the engine's summary gives it; "" before the start.
    Kept for the request: the page's summary and its history both ask."""
    key = (game.id, game.ply, game.status)
    cached = getattr(g, "pbem_seat_colours", None)
    if cached is not None and cached[0] == key:
        colours: list[str] = cached[1]
        return colours
    state = views.load_state(game)
    colours = [line.colour for line in state.summary(None).seats] if state is not None else []
    g.pbem_seat_colours = (key, colours)
    return colours


@bp.app_template_global("pbem_summary")
def pbem_summary(seat: Seat) -> dict[str, Any]:
    """Whose turn, and per seat its score and supplies; the hand only for the viewer's own seat:
    briefly on its turn (the board's hand buttons picture it, and the board must start within
    the first screen), else in full words, as mail says it."""
    game = seat.game
    state = views.load_state(game)
    names = views.names(game)
    summary = state.summary(seat.seat) if state is not None else None

    def said(words: str) -> str:
        return wording.game_words(words, game.engine)

    scores = state.scores() if state is not None else [0] * len(names)
    rows = []
    for index, name in enumerate(names):
        line = summary.seats[index] if summary is not None else None
        rows.append(
            {
                "seat": index,
                "name": name,
                "you": index == seat.seat,
                "to_move": turns.waiting_on(game) == index,
                "colour": line.colour if line is not None else "",
                "colour_name": (
                    wording.colour_word(line.colour, game.engine) if line is not None else ""
                ),
                "mark": seat_mark(line.colour) if line is not None else str(index + 1),
                "score": scores[index] if index < len(scores) else 0,
                "score_label": said(summary.score_label) if summary is not None else "points",
                "supplies": said(line.supplies) if line is not None else "",
            }
        )
    return {
        "rows": rows,
        "hand": (
            ""
            if summary is None
            else said(summary.hand_brief or summary.hand)
            if turns.waiting_on(game) == seat.seat
            else said(summary.hand)
        ),
        "notes": said(summary.notes) if summary is not None else "",
    }


@bp.get("/play/<token>/replay/<int:ply>")
def replay_page(token: str, ply: int) -> str:
    """The replay without JavaScript: one position per page, with links to step through."""
    seat = seat_for(token=token)
    game = seat.game
    if views.load_state(game) is None:
        raise GameNotStarted(i18n.gettext("The game has not started yet."))
    ply = max(0, min(ply, game.ply))
    state = views.position_after(game, ply)
    assert state is not None
    moves = views.history(game)
    names = views.names(game)
    last = moves[ply - 1] if ply else None
    return render_template(
        "pages/_replay.html",
        game=game,
        seat=seat,
        token=token,
        title=views.engine(game).title,
        ply=ply,
        plies=game.ply,
        last=last,
        who=names[last.seat] if last else None,
        said=views.said(last.ply, last.seat, last.move, last.words, names, last.autopilot)
        if last
        else None,
        svg=Markup(
            views.engine(game).render_svg(
                state, seat.seat, names, wording.game_language(game.engine)
            )
        ),
    )
