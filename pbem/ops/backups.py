"""Backups: `pbem backup FILE` writes the whole database to a file while the service runs, and
`pbem restore FILE` puts it back into an empty database (or over the embedded one, asked to).

SQLite is copied with its online backup API (a consistent copy, page by page, while others
write); PostgreSQL with `pg_dump --format=custom` (one snapshot of every table) and
`pg_restore`. The connection's password goes to pg_dump in its environment, never on a command
line others can read.

A restored database is the service as it was when the backup began: moves, games and emails
after that are lost. So that no link revoked after the backup opens a seat again, `renew_links`
withdraws every link and emails each player a fresh one; the emails the backup still had to send
carry the withdrawn links and are not sent.
"""

from __future__ import annotations

import os
import shutil
import sqlite3
import subprocess
from dataclasses import dataclass, replace
from datetime import datetime
from pathlib import Path

from sqlalchemy import func, inspect, select, update
from sqlalchemy.engine import Engine, make_url

from pbem.config import Settings
from pbem.domain import player_letters
from pbem.domain.outbox import write_letters
from pbem.domain.rotation import sign_out_everywhere
from pbem.extensions import db
from pbem.models import FAILED, PENDING, Game, GameEvent, Move, OutboxMessage, Player

# What a pending email of the backup says once the restore has withdrawn its links.
SUPERSEDED = "written before the database was restored from a backup: its links were withdrawn"


class BackupError(Exception):
    """A backup or restore that cannot be done, said in words."""


@dataclass(frozen=True)
class Written:
    path: Path
    size: int


def backup(config: Settings, engine: Engine, path: Path) -> Written:
    """Write the database to `path` (made or replaced whole: a failed backup leaves no half
    file behind)."""
    partial = path.with_name(path.name + ".partial")
    if config.is_sqlite:
        _sqlite_copy(_sqlite_file(config), str(partial))
    else:
        _run_pg(
            config,
            ["pg_dump", "--format=custom", "--no-owner", "--no-privileges", f"--file={partial}"],
        )
    partial.replace(path)
    return Written(path, path.stat().st_size)


def restore(config: Settings, engine: Engine, path: Path, replace: bool) -> None:
    """Put the backup at `path` into the database: an empty one, or over what is there when
    `replace` says so. The caller upgrades it to the code's migrations and renews the links."""
    if not path.is_file():
        raise BackupError(f"{path} is not a file")
    if not replace and inspect(engine).get_table_names():
        raise BackupError(
            "the database is not empty: restore into an empty database (create one and point "
            "DATABASE_URL at it), or give --replace to overwrite this one"
        )
    engine.dispose()
    if config.is_sqlite:
        try:
            sound = _sqlite_check(str(path))
        except sqlite3.DatabaseError:
            sound = False
        if not sound:
            raise BackupError(f"{path} is not a backup of a SQLite database")
        _sqlite_copy(str(path), _sqlite_file(config))
        return
    command = [
        "pg_restore",
        "--no-owner",
        "--no-privileges",
        "--exit-on-error",
        "--single-transaction",
    ]
    if replace:
        command += ["--clean", "--if-exists"]
    _run_pg(config, [*command, str(path)], database_option=True)


def renew_links(config: Settings, backup_taken: datetime | None) -> list[int]:
    """Withdraw every link (every seat's, every player's) and email each player a fresh one;
    the emails the backup had yet to send are given up, since their links no longer work.
    The ids of the letters written, for the caller to send."""
    conn = db.session.connection()
    conn.execute(
        update(OutboxMessage)
        .where(OutboxMessage.status == PENDING)
        .values(status=FAILED, last_error=SUPERSEDED)
    )
    people = list(db.session.execute(select(Player).where(Player.email.is_not(None))).scalars())
    written = []
    for player in people:
        sign_out_everywhere(config, player)
        if player.blocked_at is not None:
            continue
        letter = player_letters.new_player_link(config, player)
        # The same letter as "sign out everywhere", saying why (templates/mail/signedout.*).
        letter = replace(letter, context={**letter.context, "restored_from": backup_taken})
        written += write_letters(db.session.connection(), config, [letter])
    db.session.commit()
    return written


def last_activity() -> datetime | None:
    """The last thing the restored database saw happen (a move, a game's event, a new game):
    what came after it is lost."""
    latest = [
        db.session.execute(select(func.max(column))).scalar_one_or_none()
        for column in (Move.created_at, GameEvent.created_at, Game.created_at)
    ]
    return max((moment for moment in latest if moment is not None), default=None)


def _sqlite_copy(source: str, target: str) -> None:
    """SQLite's online backup API: a consistent copy while others write."""
    live = sqlite3.connect(source)
    try:
        copy = sqlite3.connect(target)
        try:
            live.backup(copy)
        finally:
            copy.close()
    finally:
        live.close()


def _sqlite_check(path: str) -> bool:
    connection = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        ok = connection.execute("pragma integrity_check").fetchone() == ("ok",)
        tables = {row[0] for row in connection.execute("select name from sqlite_master")}
    finally:
        connection.close()
    return ok and "games" in tables


def _sqlite_file(config: Settings) -> str:
    database = make_url(config.database_url).database
    if not database or database == ":memory:":
        raise BackupError("this SQLite database lives in memory: there is no file to back up")
    return database


def _run_pg(config: Settings, command: list[str], database_option: bool = False) -> None:
    """Run a PostgreSQL client on the service's database, its connection given in the
    environment (PGHOST, PGPASSWORD, …)."""
    if shutil.which(command[0]) is None:
        raise BackupError(
            f"{command[0]} is not installed: install PostgreSQL's client programs "
            "(Debian: postgresql-client), at least the server's version"
        )
    url = make_url(config.database_url)
    env = dict(os.environ)
    for name, value in (
        ("PGHOST", url.host),
        ("PGPORT", url.port),
        ("PGUSER", url.username),
        ("PGPASSWORD", url.password),
        ("PGDATABASE", url.database),
        ("PGSSLMODE", url.query.get("sslmode")),
    ):
        if value is not None:
            env[name] = str(value)
    if database_option:
        command = [command[0], f"--dbname={url.database}", *command[1:]]
    done = subprocess.run(command, env=env, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        problem = " ".join((done.stderr or done.stdout).split())[:500]
        raise BackupError(f"{command[0]} failed: {problem}")
