"""Revision 0010 on a database that kept messages with their pictures: the stored bytes go (the
message is put together when it is sent), and so do the pictures no pending email names, while
a pending email keeps its own; the downgrade brings the column back, empty. On SQLite and on
PostgreSQL."""

from __future__ import annotations

from pathlib import Path

from flask import Flask
from flask_migrate import downgrade, upgrade
from sqlalchemy import inspect, text

from pbem.extensions import db
from tests.conftest import make_app
from tests.support.needs import missing

AT = "2026-11-01 10:00:00"
PNG = b"\x89PNG\r\n\x1a\n" + b"\0" * 64


def _fill_at_0009() -> None:
    """A game with a sent turn email that stored its picture, and a pending reminder."""
    with db.engine.begin() as conn:
        conn.execute(
            text(
                "insert into games (id, engine, options, seed, ply, status, thread_message_id,"
                " created_at) values ('g1', 'countdown', '{}', 7, 1, 'running', '<t@x>', :t)"
            ),
            {"t": AT},
        )
        for number, (status, key, raw) in enumerate(
            (("sent", "g1/1/0", b"From: x\r\n\r\n" + PNG), ("pending", "g1/1/1", None))
        ):
            conn.execute(
                text(
                    'insert into outbox (game_id, kind, "to", subject, text, html, message_id,'
                    " status, attempts, next_attempt_at, created_at, picture, raw)"
                    " values ('g1', 'turn', 'a@example.org', 's', 't', 'h', :mid, :status, 0,"
                    " :t, :t, :key, :raw)"
                ),
                {"mid": f"<m{number}@x>", "status": status, "t": AT, "key": key, "raw": raw},
            )
            conn.execute(
                text(
                    "insert into pictures (key, png, alt, created_at) values (:key, :png, 'a', :t)"
                ),
                {"key": key, "png": PNG, "t": AT},
            )


def _upgrade_strips_pictures(app: Flask) -> None:
    with app.app_context():
        upgrade(revision="0009_outbox_without_picture")
        _fill_at_0009()
        upgrade(revision="0010_messages_without_pictures")
        columns = {c["name"] for c in inspect(db.engine).get_columns("outbox")}
        assert "raw" not in columns
        with db.engine.connect() as conn:
            kept = conn.execute(text("select key from pictures")).scalars().all()
            emails = conn.execute(text("select status, picture from outbox order by id")).all()
        assert kept == ["g1/1/1"], "only the pending email's picture is kept"
        assert [tuple(row) for row in emails] == [("sent", "g1/1/0"), ("pending", "g1/1/1")]
        downgrade(revision="0009_outbox_without_picture")
        with db.engine.connect() as conn:
            assert conn.execute(text("select raw from outbox")).scalars().all() == [None, None]
        db.engine.dispose()


def test_upgrade_to_0010_strips_the_pictures_stored_in_messages(tmp_path: Path) -> None:
    _upgrade_strips_pictures(make_app(tmp_path))


def test_upgrade_to_0010_strips_the_pictures_stored_in_messages_on_postgresql(
    tmp_path: Path,
) -> None:
    from tests.support.pg import TempDatabase, server_available

    if (why := server_available()) is not None:
        missing(f"PostgreSQL unavailable: {why}")
    database = TempDatabase(prefix="pbem_pictures").create()
    try:
        _upgrade_strips_pictures(make_app(tmp_path, DATABASE_URL=database.url))
    finally:
        database.drop()
