"""Throwaway PostgreSQL databases: created empty, dropped (forcefully) at the end."""

from __future__ import annotations

import contextlib
import os
import pwd
import secrets
import shutil
import subprocess
import tempfile
from pathlib import Path
from typing import Any

import psycopg
from psycopg import sql

from tests.support.procs import free_port

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


def postgres_bin_dir() -> Path | None:
    """Where PostgreSQL's server programs (initdb, pg_ctl) are: on PATH, or Debian's
    /usr/lib/postgresql/<version>/bin (the newest), or None when it is not installed."""
    found = shutil.which("pg_ctl")
    if found is not None:
        return Path(found).parent
    candidates = [
        path for path in Path("/usr/lib/postgresql").glob("*/bin") if (path / "pg_ctl").exists()
    ]
    candidates.sort(key=lambda path: int(path.parent.name) if path.parent.name.isdigit() else 0)
    return candidates[-1] if candidates else None


class PrivateCluster:
    """A PostgreSQL server of one's own (initdb into a temporary folder, on a free port), for
    tests that restart or crash the server: the shared one on 5432 serves other tests meanwhile.

    PostgreSQL refuses to run as root; as root, its programs run as the `postgres` user, which
    then owns the folder. The server outlives a test run that is killed: the folder is named
    after the test process, and the next cluster stops and removes those of dead processes.
    """

    PREFIX = "pbem-pg-"

    def __init__(self, bin_dir: Path, port: int | None = None) -> None:
        self.bin_dir = bin_dir
        self.port = port or free_port()
        self._stop_orphans()
        self.root = Path(tempfile.mkdtemp(prefix=f"{self.PREFIX}{os.getpid()}-"))
        self.data = self.root / "data"
        self.log_path = self.root / "postgres.log"
        if os.geteuid() == 0:
            owner = pwd.getpwnam("postgres")
            os.chown(self.root, owner.pw_uid, owner.pw_gid)

    def _stop_orphans(self) -> None:
        for root in Path(tempfile.gettempdir()).glob(f"{self.PREFIX}*-*"):
            pid = root.name[len(self.PREFIX) :].split("-", 1)[0]
            if not pid.isdigit() or _alive(int(pid)):
                continue
            if (root / "data" / "postmaster.pid").exists():
                pg_ctl = ("pg_ctl", "stop", "-D", str(root / "data"), "-m", "immediate", "-w")
                self._run(*pg_ctl, check=False)
            shutil.rmtree(root, ignore_errors=True)

    @staticmethod
    def _as_user() -> list[str]:
        return ["runuser", "-u", "postgres", "--"] if os.geteuid() == 0 else []

    @property
    def url(self) -> str:
        """An admin URL of the server (its `postgres` database), as TempDatabase takes it."""
        return f"postgresql+psycopg://postgres@127.0.0.1:{self.port}/postgres"

    def _run(self, program: str, *args: str, check: bool = True) -> None:
        argv = [*self._as_user(), str(self.bin_dir / program), *args]
        done = subprocess.run(argv, capture_output=True, text=True, timeout=90, check=False)
        if check and done.returncode != 0:
            raise RuntimeError(
                f"{program} {' '.join(args)} failed ({done.returncode}):\n{done.stdout}\n"
                f"{done.stderr}\n{self.log_tail()}"
            )

    def _pg_ctl(self, action: str, *args: str) -> None:
        # fsync off: a crash of the server process (not of the machine) loses nothing without
        # it, and the test stays off the disk the other suites share.
        options = (
            f"-p {self.port} -k {self.root} -c listen_addresses=127.0.0.1 -c fsync=off "
            "-c max_connections=200 -c shared_buffers=32MB"
        )
        self._run(
            "pg_ctl",
            action,
            "-D",
            str(self.data),
            "-l",
            str(self.log_path),
            "-w",
            "-t",
            "60",
            "-o",
            options,
            *args,
        )

    def start(self) -> PrivateCluster:
        if not (self.data / "PG_VERSION").exists():
            self._run(
                "initdb",
                "-D",
                str(self.data),
                "-U",
                "postgres",
                "--auth=trust",
                "--encoding=UTF8",
                "--no-sync",
            )
        self._pg_ctl("start")
        return self

    def restart(self, mode: str = "fast") -> None:
        """`pg_ctl restart -m fast` disconnects every client and rolls back what is in flight;
        `-m immediate` kills the server as a crash would (recovery at start)."""
        self._pg_ctl("restart", "-m", mode)

    def stop(self, mode: str = "fast") -> None:
        self._run("pg_ctl", "stop", "-D", str(self.data), "-m", mode, "-w", "-t", "60")

    @property
    def running(self) -> bool:
        return (self.data / "postmaster.pid").exists()

    def close(self) -> None:
        if self.running:
            with contextlib.suppress(RuntimeError, subprocess.TimeoutExpired):
                self.stop("immediate")
        shutil.rmtree(self.root, ignore_errors=True)

    def log_tail(self, chars: int = 4000) -> str:
        try:
            return self.log_path.read_text(errors="replace")[-chars:]
        except OSError:
            return ""

    def __enter__(self) -> PrivateCluster:
        try:
            return self.start()
        except BaseException:
            self.close()
            raise

    def __exit__(self, *exc: object) -> None:
        self.close()
