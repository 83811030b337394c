"""Connection pool checks: ping a pooled connection only when it has been idle for a while; tell
a lost connection from a refused statement.

`pool_pre_ping` pings on every checkout: a round trip and a statement for PostgreSQL on each
request and task, however busy the pool. A connection that has just been returned works; the ones
that do not are those left idle while the server restarted or a firewall forgot them. So a
connection is pinged at checkout only when it has been idle for longer than the threshold, and
replaced if the ping fails. A server lost while connections are in use fails the statements in
flight either way; SQLAlchemy then invalidates the whole pool.
"""

from __future__ import annotations

import time
from typing import Any

import psycopg
from sqlalchemy import event, exc
from sqlalchemy.engine import Engine

PING_AFTER_IDLE_SECONDS = 10.0
_IDLE_SINCE = "pbem_idle_since"
# SQLSTATEs of a server going away: shut down by an administrator, crashed, not accepting yet.
_GOING_AWAY = frozenset({"57P01", "57P02", "57P03"})


def ping_when_idle(engine: Engine, after_seconds: float | None = None) -> None:
    """Ping connections idle for more than `after_seconds` (PING_AFTER_IDLE_SECONDS) at
    checkout; replace dead ones."""
    threshold = PING_AFTER_IDLE_SECONDS if after_seconds is None else after_seconds

    def checked_in(_dbapi_connection: Any, record: Any) -> None:
        record.info[_IDLE_SINCE] = time.monotonic()

    def checked_out(dbapi_connection: Any, record: Any, _proxy: Any) -> None:
        idle_since = record.info.pop(_IDLE_SINCE, None)
        if idle_since is None or time.monotonic() - idle_since <= threshold:
            return
        try:
            engine.dialect.do_ping(dbapi_connection)
        except Exception as error:
            # The pool discards this connection and checks out another (a new one if need be).
            raise exc.DisconnectionError(f"pooled connection is dead: {error}") from error

    event.listen(engine, "checkin", checked_in)
    event.listen(engine, "checkout", checked_out)


def lost_connection(error: BaseException) -> bool:
    """Whether `error` says the database connection was lost or could not be made (a restart,
    a failover, a network cut), rather than a statement being refused."""
    if isinstance(error, exc.DBAPIError):
        if error.connection_invalidated:
            return True
        return error.orig is not None and lost_connection(error.orig)
    if isinstance(error, psycopg.OperationalError):
        state = error.sqlstate
        # psycopg's own connection failures ("connection failed", "the connection is lost")
        # carry no SQLSTATE.
        return state is None or state in _GOING_AWAY or state.startswith("08")
    return False
