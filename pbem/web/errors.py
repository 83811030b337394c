"""Refusals, rendered in one place: JSON `{"error": code, "message": text}` under `/api/`, a page
that says what happened and what to do everywhere else.

Under `/api/` a request without a token is 401 with `WWW-Authenticate: Bearer` and a wrong token
403; werkzeug's own refusals keep their headers (`Allow` on a 405).
"""

from __future__ import annotations

from flask import Flask, Response, current_app, jsonify, render_template, request
from werkzeug.exceptions import HTTPException, MethodNotAllowed, RequestEntityTooLarge

from pbem.domain.errors import ServiceError
from pbem.links import LinkError, NoToken

TITLES = {
    "no_token": "This link is incomplete",
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
    "method_not_allowed": "This cannot be done here",
}
# Messages quote what was sent only in short (pbem.web.limits.shorten); this bounds a refusal
# even where some message quotes more.
MESSAGE_LENGTH = 1000
# The API's answer to a request without credentials (RFC 6750): the scheme that would do.
BEARER_CHALLENGE = 'Bearer realm="pbem"'


def error_page(code: str, message: str, status: int, **context: object) -> tuple[str, int]:
    title = TITLES.get(code, "This did not work")
    message = _bounded(message)
    html = render_template("pages/error.html", title=title, code=code, message=message, **context)
    return html, status


def refusal(code: str, message: str, status: int) -> tuple[Response | str, int]:
    """The answer to a refused request: JSON for the API, a page otherwise."""
    if _api():
        return jsonify(error=code, message=_bounded(message)), status
    return error_page(code, message, status)


def _api() -> bool:
    return request.path.startswith("/api/")


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


def _not_allowed(exc: MethodNotAllowed) -> str:
    methods = ", ".join(exc.valid_methods or ())
    taken = f", only {methods}" if methods else ""
    where = (
        "The API's operations and their methods are listed in /api/openapi.json."
        if _api()
        else "Use the links and buttons of pbem's pages."
    )
    return f"This address does not take {request.method} requests{taken}. {where}"


Refusal = tuple[Response | str, int, list[tuple[str, str]]]


def register(app: Flask) -> None:
    @app.errorhandler(LinkError)
    @app.errorhandler(ServiceError)
    def refused(exc: LinkError | ServiceError) -> Refusal:
        # Pages have no authentication scheme to name: a missing link stays a 403 there.
        if isinstance(exc, NoToken) and _api():
            body, status = refusal(exc.code, exc.message, 401)
            return body, status, [("WWW-Authenticate", BEARER_CHALLENGE)]
        return (*refusal(exc.code, exc.message, exc.status), [])

    @app.errorhandler(HTTPException)
    def http_error(exc: HTTPException) -> Refusal:
        status = exc.code or 500
        if isinstance(exc, RequestEntityTooLarge):
            body, status = refusal("too_large", _too_large(exc), status)
        elif isinstance(exc, MethodNotAllowed):
            body, status = refusal("method_not_allowed", _not_allowed(exc), status)
        else:
            code = exc.name.lower().replace(" ", "_")
            body, status = refusal(code, exc.description or exc.name, status)
        # The exception's own headers (Allow on a 405) belong to the answer; its Content-Type
        # does not: the body is ours.
        headers = [(k, v) for k, v in exc.get_headers() if k.lower() != "content-type"]
        return body, status, headers
