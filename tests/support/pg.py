"""Throwaway PostgreSQL databases: created empty, dropped (forcefully) at the end."""

from __future__ import annotations

import os
import secrets
from typing import Any

import psycopg
from psycopg import sql

DEFAULT_ADMIN_URL = "postgresql+psycopg://postgres@127.0.0.1:5432/test"


def admin_url() -> str:
    return os.environ.get("PBEM_TEST_DATABASE_URL", DEFAULT_ADMIN_URL)


def libpq_url(url: str) -> str:
    """SQLAlchemy's `postgresql+psycopg://` spelling as libpq understands it."""
    for prefix in ("postgresql+psycopg://", "postgresql+psycopg2://", "postgres://"):
        if url.startswith(prefix):
            return "postgresql://" + url[len(prefix) :]
    return url


def with_database(url: str, name: str) -> str:
    base, _, _ = url.rpartition("/")
    return f"{base}/{name}"


def server_available(url: str | None = None) -> str | None:
    """None when the server answers; otherwise why not."""
    try:
        with psycopg.connect(libpq_url(url or admin_url()), connect_timeout=5) as conn:
            conn.execute("select 1")
    except psycopg.Error as exc:
        return str(exc).strip()
    return None


class TempDatabase:
    """`pbem_it_<pid>_<random>` on the server of PBEM_TEST_DATABASE_URL.

    The creator's process id is in the name, so a later session can drop the databases of
    sessions that were killed before they could clean up.
    """

    def __init__(self, prefix: str = "pbem_it", url: str | None = None) -> None:
        self.admin = url or admin_url()
        self.prefix = prefix
        self.name = f"{prefix}_{os.getpid()}_{secrets.token_hex(4)}"
        self.url = with_database(self.admin, self.name)

    def create(self) -> TempDatabase:
        with psycopg.connect(libpq_url(self.admin), autocommit=True) as conn:
            self._drop_orphans(conn)
            conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(self.name)))
        return self

    def _drop_orphans(self, conn: psycopg.Connection[Any]) -> None:
        names = conn.execute(
            "SELECT datname FROM pg_database WHERE datname LIKE %s", (f"{self.prefix}\\_%",)
        ).fetchall()
        for (name,) in names:
            pid = name[len(self.prefix) + 1 :].split("_", 1)[0]
            if pid.isdigit() and not _alive(int(pid)):
                conn.execute(
                    sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name))
                )

    def drop(self) -> None:
        with psycopg.connect(libpq_url(self.admin), autocommit=True) as conn:
            conn.execute(
                sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(self.name))
            )

    def connect(self, **kwargs: Any) -> psycopg.Connection[Any]:
        return psycopg.connect(libpq_url(self.url), autocommit=True, **kwargs)

    def query(self, text: str, *params: Any) -> list[tuple[Any, ...]]:
        """Rows of one read-only query, in its own autocommit connection."""
        with self.connect() as conn:
            return list(conn.execute(text, params or None).fetchall())

    def scalar(self, text: str, *params: Any) -> Any:
        rows = self.query(text, *params)
        return rows[0][0] if rows else None


class RowLock:
    """Holds a row lock from outside the service, until released.

    A worker that needs the row (`SELECT … FOR UPDATE`) waits inside its task: the test knows the
    task is running, and can make several run at once or kill the worker in the middle of one.
    The default mode, NO KEY UPDATE, still lets other rows reference this one (a foreign key
    check takes KEY SHARE), so the web keeps storing submissions meanwhile.
    """

    def __init__(
        self, db: TempDatabase, table: str, key: str, value: Any, mode: str = "NO KEY UPDATE"
    ) -> None:
        assert mode in ("UPDATE", "NO KEY UPDATE")
        self.conn = psycopg.connect(libpq_url(db.url))
        query = sql.SQL("SELECT 1 FROM {} WHERE {} = %s FOR " + mode).format(
            sql.Identifier(table), sql.Identifier(key)
        )
        found = self.conn.execute(query, (value,)).fetchone()
        assert found is not None, f"no {table} row with {key}={value!r}"

    def release(self) -> None:
        if not self.conn.closed:
            self.conn.rollback()
            self.conn.close()

    def __enter__(self) -> RowLock:
        return self

    def __exit__(self, *exc: object) -> None:
        self.release()


def lock_waiters(db: TempDatabase) -> int:
    """How many sessions of this database are waiting for a lock right now."""
    value = db.scalar(
        "SELECT count(*) FROM pg_stat_activity "
        "WHERE datname = current_database() AND wait_event_type = 'Lock'"
    )
    return int(value or 0)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True
