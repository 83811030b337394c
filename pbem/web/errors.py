"""Refusals, rendered in one place: JSON `{"error": code, "message": text}` under `/api/`, a page
that says what happened and what to do everywhere else."""

from __future__ import annotations

from flask import Flask, Response, jsonify, render_template, request
from werkzeug.exceptions import HTTPException

from pbem.domain.errors import ServiceError
from pbem.links import LinkError

TITLES = {
    "bad_token": "This link is not valid",
    "expired_token": "This link has expired",
    "revoked_token": "This link was withdrawn",
    "wrong_token": "This link belongs elsewhere",
    "stale_ply": "The game has moved on",
    "not_your_turn": "It is not your turn",
    "game_over": "The game is over",
    "game_not_started": "The game has not started",
    "not_found": "Not found",
    "bad_request": "Something is missing",
}


def error_page(code: str, message: str, status: int, **context: object) -> tuple[str, int]:
    title = TITLES.get(code, "This did not work")
    html = render_template("pages/error.html", title=title, code=code, message=message, **context)
    return html, status


def refusal(code: str, message: str, status: int) -> tuple[Response | str, int]:
    """The answer to a refused request: JSON for the API, a page otherwise."""
    if request.path.startswith("/api/"):
        return jsonify(error=code, message=message), status
    return error_page(code, message, status)


def register(app: Flask) -> None:
    @app.errorhandler(LinkError)
    @app.errorhandler(ServiceError)
    def refused(exc: LinkError | ServiceError) -> tuple[Response | str, int]:
        return refusal(exc.code, exc.message, exc.status)

    @app.errorhandler(HTTPException)
    def http_error(exc: HTTPException) -> tuple[Response | str, int]:
        status = exc.code or 500
        return refusal(exc.name.lower().replace(" ", "_"), exc.description or exc.name, status)
