"""Refusals, rendered in one place: JSON `{"error": code, "message": text}` under `/api/`, a page
that says what happened and what to do everywhere else."""

from __future__ import annotations

from flask import Flask, Response, current_app, jsonify, render_template, request
from werkzeug.exceptions import HTTPException, RequestEntityTooLarge

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
    "rate_limited": "Please wait a while",
    "database_unavailable": "Try again in a moment",
    "too_large": "The request is too large",
    "too_long": "Something is too long",
    "bad_characters": "Something cannot be read",
}
# Messages quote what was sent only in short (pbem.web.limits.shorten); this bounds a refusal
# even where some message quotes more.
MESSAGE_LENGTH = 1000


def error_page(code: str, message: str, status: int, **context: object) -> tuple[str, int]:
    title = TITLES.get(code, "This did not work")
    message = _bounded(message)
    html = render_template("pages/error.html", title=title, code=code, message=message, **context)
    return html, status


def refusal(code: str, message: str, status: int) -> tuple[Response | str, int]:
    """The answer to a refused request: JSON for the API, a page otherwise."""
    if request.path.startswith("/api/"):
        return jsonify(error=code, message=_bounded(message)), status
    return error_page(code, message, status)


def _bounded(message: str) -> str:
    return message if len(message) <= MESSAGE_LENGTH else message[: MESSAGE_LENGTH - 1] + "…"


def _too_large(exc: RequestEntityTooLarge) -> str:
    if exc.description != RequestEntityTooLarge.description:
        return exc.description or ""
    limit = current_app.config.get("MAX_CONTENT_LENGTH") or 0
    return (
        f"The request is too large: pbem accepts at most {limit // 1024} KiB, far more than "
        "any move or form needs. Send less."
    )


def register(app: Flask) -> None:
    @app.errorhandler(LinkError)
    @app.errorhandler(ServiceError)
    def refused(exc: LinkError | ServiceError) -> tuple[Response | str, int]:
        return refusal(exc.code, exc.message, exc.status)

    @app.errorhandler(HTTPException)
    def http_error(exc: HTTPException) -> tuple[Response | str, int]:
        status = exc.code or 500
        if isinstance(exc, RequestEntityTooLarge):
            return refusal("too_large", _too_large(exc), status)
        return refusal(exc.name.lower().replace(" ", "_"), exc.description or exc.name, status)
