"""Each request's id, for its log lines and the tasks it queues (`pbem.logs`): the one a proxy in
front gave in `X-Request-ID`, when it looks like an id, else a new one; sent back in the
answer's `X-Request-ID`, so that a player's report can be matched with the logs."""

from __future__ import annotations

import re
import secrets

from flask import Flask, Response, g, request

from pbem import logs

HEADER = "X-Request-ID"
# What a proxy's ids look like (a UUID, a hex string); anything else is replaced, so that no
# client can write what it likes into the logs.
_ACCEPTED = re.compile(r"[A-Za-z0-9._-]{8,64}")


def register(app: Flask) -> None:
    app.before_request(_begin)
    app.after_request(_answer)
    app.teardown_request(_end)


def _begin() -> None:
    given = request.headers.get(HEADER, "")
    request_id = given if _ACCEPTED.fullmatch(given) else secrets.token_hex(8)
    g.pbem_request_id = request_id
    g.pbem_log_token = logs.bind(request_id=request_id)


def _answer(response: Response) -> Response:
    request_id = g.get("pbem_request_id")
    if request_id:
        response.headers[HEADER] = request_id
    return response


def _end(_exc: BaseException | None) -> None:
    token = g.pop("pbem_log_token", None)
    if token is not None:
        logs.unbind(token)
