"""Refusals, rendered in one place: JSON `{"error": code, "message": text}` under `/api/`, a page
that says what happened and what to do everywhere else.

`refusal` is the one answer to a refused request, whoever refuses it: the handlers below (domain
refusals, bad links, werkzeug's), the outage handler (`pbem.web.outages`), the rate limits
(`pbem.web.ratelimits`) and the views that refuse on their own (`pbem.web.game_actions`, the
dashboard's time zone). `error_body` is the one shape of the JSON; `error_page` the one page.

Under `/api/` a request without a token is 401 with `WWW-Authenticate: Bearer` and a wrong token
403; werkzeug's own refusals keep their headers (`Allow` on a 405).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from flask import Flask, Response, current_app, jsonify, make_response, render_template, request
from werkzeug.exceptions import HTTPException, MethodNotAllowed, RequestEntityTooLarge

from pbem import i18n
from pbem.domain.errors import ServiceError
from pbem.links import LinkError, NoToken

# A refusal page's title, by the refusal's code (translated when shown).
TITLES = {
    "no_token": i18n.lazy_gettext("This link is incomplete"),
    "bad_token": i18n.lazy_gettext("This link is not valid"),
    "expired_token": i18n.lazy_gettext("This link has expired"),
    "revoked_token": i18n.lazy_gettext("This link was withdrawn"),
    "wrong_token": i18n.lazy_gettext("This link belongs elsewhere"),
    "stale_ply": i18n.lazy_gettext("The game has moved on"),
    "not_your_turn": i18n.lazy_gettext("It is not your turn"),
    "game_over": i18n.lazy_gettext("The game is over"),
    "game_not_started": i18n.lazy_gettext("The game has not started"),
    "not_found": i18n.lazy_gettext("Not found"),
    "bad_request": i18n.lazy_gettext("Something is missing"),
    "rate_limited": i18n.lazy_gettext("Please wait a while"),
    "database_unavailable": i18n.lazy_gettext("Try again in a moment"),
    "too_large": i18n.lazy_gettext("The request is too large"),
    "too_long": i18n.lazy_gettext("Something is too long"),
    "bad_characters": i18n.lazy_gettext("Something cannot be read"),
    "method_not_allowed": i18n.lazy_gettext("This cannot be done here"),
}
UNTITLED = i18n.lazy_gettext("This did not work")
# Messages quote what was sent only in short (pbem.web.limits.shorten); this bounds a refusal
# even where some message quotes more.
MESSAGE_LENGTH = 1000
# The API's answer to a request without credentials (RFC 6750): the scheme that would do.
BEARER_CHALLENGE = 'Bearer realm="pbem"'
BEARER_HEADERS = (("WWW-Authenticate", BEARER_CHALLENGE),)


Headers = Mapping[str, str] | Iterable[tuple[str, str]]


def error_body(code: str, message: str) -> dict[str, str]:
    """The JSON of every refusal, as the API's clients read it (`pbem/static/openapi.json`)."""
    return {"error": code, "message": _bounded(message)}


def error_page(code: str, message: str, status: int, **context: object) -> tuple[str, int]:
    """The page of a refusal: a title by its code, the message, and `context` (`back`: a link)."""
    title = str(TITLES.get(code, UNTITLED))
    message = _bounded(message)
    html = render_template("pages/error.html", title=title, code=code, message=message, **context)
    return html, status


def refusal(
    code: str,
    message: str,
    status: int,
    *,
    as_json: bool | None = None,
    headers: Headers = (),
    **context: object,
) -> Response:
    """The answer to a refused request: JSON under `/api/` (or wherever `as_json` asks for it),
    else the error page with `context`; `headers` added to either."""
    if _api() if as_json is None else as_json:
        response = make_response(jsonify(error_body(code, message)), status)
    else:
        response = make_response(error_page(code, message, status, **context))
    response.headers.extend(headers)
    return response


def _api() -> bool:
    return request.path.startswith("/api/")


def _bounded(message: str) -> str:
    return message if len(message) <= MESSAGE_LENGTH else message[: MESSAGE_LENGTH - 1] + "…"


def _too_large(exc: RequestEntityTooLarge) -> str:
    if exc.description != RequestEntityTooLarge.description:
        return exc.description or ""
    limit = current_app.config.get("MAX_CONTENT_LENGTH") or 0
    return i18n.gettext(
        "The request is too large: pbem accepts at most %(kib)d KiB, far more than any move or "
        "form needs. Send less.",
        kib=limit // 1024,
    )


def _not_allowed(exc: MethodNotAllowed) -> str:
    methods = ", ".join(exc.valid_methods or ())
    refused = (
        i18n.gettext(
            "This address does not take %(method)s requests, only %(methods)s.",
            method=request.method,
            methods=methods,
        )
        if methods
        else i18n.gettext("This address does not take %(method)s requests.", method=request.method)
    )
    where = (
        i18n.gettext("The API's operations and their methods are listed in /api/openapi.json.")
        if _api()
        else i18n.gettext("Use the links and buttons of pbem's pages.")
    )
    return f"{refused} {where}"


def register(app: Flask) -> None:
    """Answer the domain's refusals, bad links and werkzeug's own refusals with `refusal`."""

    @app.errorhandler(LinkError)
    @app.errorhandler(ServiceError)
    def refused(exc: LinkError | ServiceError) -> Response:
        # Pages have no authentication scheme to name: a missing link stays a 403 there.
        if isinstance(exc, NoToken) and _api():
            return refusal(exc.code, exc.message, 401, headers=BEARER_HEADERS)
        return refusal(exc.code, exc.message, exc.status)

    @app.errorhandler(HTTPException)
    def http_error(exc: HTTPException) -> Response:
        if isinstance(exc, RequestEntityTooLarge):
            code, message = "too_large", _too_large(exc)
        elif isinstance(exc, MethodNotAllowed):
            code, message = "method_not_allowed", _not_allowed(exc)
        else:
            code, message = exc.name.lower().replace(" ", "_"), exc.description or exc.name
        # The exception's own headers (Allow on a 405) belong to the answer; its Content-Type
        # does not: the body is ours.
        headers = [(k, v) for k, v in exc.get_headers() if k.lower() != "content-type"]
        return refusal(code, message, exc.code or 500, headers=headers)
