"""Database outages answered clearly: a request that meets a restart or a failover of the
database is tried once more on a fresh connection when that cannot do anything twice, and is
otherwise answered 503 with `Retry-After`, saying that nothing was recorded and to try again.

When is a second attempt safe? When nothing the request did can have been committed before the
connection was lost. Each request counts the statements that may commit (`COMMIT`, and any
statement but a SELECT on an autocommit connection) as they start:

- none had started: everything read is thrown away and the view runs again. This covers every
  GET, and a move whose read of the seat and game met the lost connection;
- the statement in flight was the request's first commit (a move's insert of its submission):
  PostgreSQL rolls back what it is doing when it shuts down or is shut down, so the move was not
  recorded; we answer 503 rather than try again, in case it was (below);
- something had been committed before: the request is not tried again, and the answer says
  that it may have been recorded, so that nobody sends it twice without looking.

One window is left: a server that crashes (or a network that fails) after committing the insert
and before its answer arrives. The player is told their move was not recorded when it was; that
submission was never queued, so the sweep finds it and applies it, or rejects it as stale if the
move the player sent again was applied first. Either way the game gets the move once: moves are
unique by (game, ply).

SQLAlchemy has already invalidated the connection and the pool's older ones when it recognised
a disconnect, so the second attempt checks out a new connection.
"""

from __future__ import annotations

import contextlib
import functools
import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from flask import Flask, has_request_context, request, url_for
from flask.typing import ResponseReturnValue
from sqlalchemy import event
from sqlalchemy.engine import Connection, ExceptionContext
from sqlalchemy.exc import DBAPIError, OperationalError, SQLAlchemyError

from pbem import i18n
from pbem.extensions import db
from pbem.pool import lost_connection
from pbem.web import language
from pbem.web.errors import refusal

log = logging.getLogger(__name__)

CODE = "database_unavailable"
# A restart takes a second or two; a failover, a few more.
RETRY_AFTER_SECONDS = 5
# Views whose POST is a move: their answer speaks of "your move".
MOVE_ENDPOINTS = frozenset({"play.submit", "api.submit"})
# Kept in the WSGI environ: one per request (an app context may outlive a request).
_STATE = "pbem.db_writes"
_WRAPPED = "pbem_retries_lost_connections"


@dataclass
class Writes:
    """What this request has asked the database to make permanent so far."""

    started: int = 0
    # The operation in flight is one of them (cleared when the next statement starts).
    in_flight: bool = False


def install(app: Flask) -> None:
    """Wrap every view registered so far (once), count each request's writes, and answer what
    still fails for want of the database with 503."""
    for endpoint, view in list(app.view_functions.items()):
        if not getattr(view, _WRAPPED, False):
            app.view_functions[endpoint] = _retrying(view)
    with app.app_context():
        engine = db.engine
        for name, listener in _LISTENERS.items():
            if not event.contains(engine, name, listener):
                event.listen(engine, name, listener)
    app.register_error_handler(DBAPIError, _unavailable)
    if _close_session not in app.teardown_appcontext_funcs:
        # Runs before Flask-SQLAlchemy's own (teardowns run last registered first).
        app.teardown_appcontext(_close_session)


def _before_cursor_execute(
    conn: Connection,
    _cursor: Any,
    statement: str,
    _parameters: Any,
    _context: Any,
    _executemany: bool,
) -> None:
    if not has_request_context():
        return
    writes = _writes()
    writes.in_flight = _autocommit(conn) and statement.lstrip()[:6].upper() != "SELECT"
    writes.started += writes.in_flight


def _commit(_conn: Connection) -> None:
    if has_request_context():
        writes = _writes()
        writes.in_flight = True
        writes.started += 1


def _handle_error(context: ExceptionContext) -> None:
    # A connection that could not be opened was running nothing of ours.
    if context.connection is None and has_request_context():
        _writes().in_flight = False


_LISTENERS: dict[str, Callable[..., None]] = {
    "before_cursor_execute": _before_cursor_execute,
    "commit": _commit,
    "handle_error": _handle_error,
}


def _autocommit(conn: Connection) -> bool:
    return bool(conn.get_execution_options().get("isolation_level") == "AUTOCOMMIT")


def _writes() -> Writes:
    writes: Writes | None = request.environ.get(_STATE)
    if writes is None:
        writes = request.environ[_STATE] = Writes()
    return writes


def _retrying(view: Callable[..., Any]) -> Callable[..., Any]:
    @functools.wraps(view)
    def run(**kwargs: Any) -> Any:
        try:
            return view(**kwargs)
        except SQLAlchemyError as exc:
            if not lost_connection(exc) or _writes().started:
                raise
            log.warning(
                "%s %s: database connection lost (%s); trying once more",
                request.method,
                request.endpoint,
                _first_line(exc),
            )
        _start_afresh()
        return view(**kwargs)

    setattr(run, _WRAPPED, True)
    return run


def _start_afresh() -> None:
    """Forget the failed attempt: its reads, its session, its connection."""
    _close_session(None)
    request.environ[_STATE] = Writes()


def _close_session(_exc: BaseException | None) -> None:
    """End the session, even when its connection is gone.

    A request that read through the session ends its transaction here, after the answer is
    made; a server restarting in between makes that ROLLBACK fail, and the request would turn
    into a 500 although it had done all it had to (a task would fail after its work).
    SQLAlchemy has invalidated the connection by then, which returns it to the pool.
    """
    try:
        db.session.remove()
    except SQLAlchemyError as exc:
        if not lost_connection(exc):
            raise
        log.info("database connection lost at the end of a request: %s", _first_line(exc))
        db.session.registry.clear()


def _unavailable(exc: DBAPIError) -> ResponseReturnValue:
    if not (lost_connection(exc) or isinstance(exc, OperationalError)):
        raise exc
    writes = _writes()
    recorded = writes.started > (1 if writes.in_flight else 0)
    log.warning(
        "%s %s: answered 503, the database is unavailable (%s)",
        request.method,
        request.endpoint,
        _first_line(exc),
    )
    with contextlib.suppress(SQLAlchemyError):
        db.session.rollback()
    language.without_database()
    back: str | None = None
    if request.endpoint == "play.submit" and request.view_args:
        back = url_for("play.page", token=request.view_args["token"])
    headers = {"Retry-After": str(RETRY_AFTER_SECONDS)}
    return refusal(CODE, _message(recorded), 503, headers=headers, back=back)


def _message(recorded: bool) -> str:
    seconds = RETRY_AFTER_SECONDS
    if request.method in ("GET", "HEAD"):
        return i18n.gettext(
            "This could not be shown: pbem's database was out of reach for a moment (a restart "
            "or a failover). Nothing was changed; reload it in %(seconds)d seconds or so.",
            seconds=seconds,
        )
    move = request.endpoint in MOVE_ENDPOINTS
    if recorded and move:
        return i18n.gettext(
            "Your move may have been recorded before pbem's database was out of reach for a "
            "moment (a restart or a failover). Look before you send it again in %(seconds)d "
            "seconds or so.",
            seconds=seconds,
        )
    if recorded:
        return i18n.gettext(
            "Your request may have been recorded before pbem's database was out of reach for a "
            "moment (a restart or a failover). Look before you send it again in %(seconds)d "
            "seconds or so.",
            seconds=seconds,
        )
    if move:
        return i18n.gettext(
            "Your move was NOT recorded: pbem's database was out of reach for a moment (a "
            "restart or a failover). Nothing was changed; send it again in %(seconds)d seconds "
            "or so.",
            seconds=seconds,
        )
    return i18n.gettext(
        "Your request was NOT recorded: pbem's database was out of reach for a moment (a "
        "restart or a failover). Nothing was changed; send it again in %(seconds)d seconds or "
        "so.",
        seconds=seconds,
    )


def _first_line(exc: BaseException) -> str:
    lines = str(exc).strip().splitlines()
    return lines[0] if lines else type(exc).__name__
