"""Revision 0012 on a database whose emails kept their text and HTML as text: every body is
rewritten compressed and reads back the same through the model, a pruned (empty) body stays
empty, and the sweep's partial index still finds only the bodies it may prune; the downgrade
gives the text back. On SQLite and on PostgreSQL."""

from __future__ import annotations

from datetime import datetime, timedelta
from pathlib import Path

from flask import Flask
from flask_migrate import downgrade, upgrade
from sqlalchemy import inspect, select, text

from pbem.config import Settings
from pbem.domain import sweep
from pbem.extensions import db, settings
from pbem.models import OutboxMessage
from tests.conftest import make_app
from tests.support.needs import missing

AT = "2026-11-01 10:00:00"
HTML = "<p>It is your turn in <b>GORami</b> — Zoë’s move.</p>\n" * 80
TEXT = "It is your turn. Zoë placed a 2 on d2.\n" * 50


def _fill_at_0011() -> None:
    """A delivered email with its bodies, one whose bodies were pruned, and a pending one."""
    with db.engine.begin() as conn:
        for number, (status, body, html) in enumerate(
            (("sent", TEXT, HTML), ("sent", "", ""), ("pending", "short", "<p>short</p>"))
        ):
            conn.execute(
                text(
                    'insert into outbox (kind, "to", subject, text, html, message_id, status,'
                    " attempts, next_attempt_at, created_at, sent_at) values ('turn',"
                    " 'a@example.org', 's', :body, :html, :mid, :status, 0, :t, :t, :sent)"
                ),
                {
                    "mid": f"<m{number}@x>",
                    "status": status,
                    "body": body,
                    "html": html,
                    "t": AT,
                    "sent": AT if status == "sent" else None,
                },
            )


def _bodies() -> list[tuple[str, str]]:
    db.session.expire_all()
    # The two columns alone: the model has columns of later revisions.
    rows = db.session.execute(
        select(OutboxMessage.text, OutboxMessage.html).order_by(OutboxMessage.id)
    )
    return [(row.text, row.html) for row in rows]


def _upgrade_compresses(app: Flask) -> None:
    with app.app_context():
        upgrade(revision="0011_outbox_sent_with_body")
        _fill_at_0011()
        upgrade(revision="0012_outbox_bodies_compressed")
        assert _bodies() == [(TEXT, HTML), ("", ""), ("short", "<p>short</p>")]
        with db.engine.connect() as conn:
            stored = conn.execute(text("select length(html) from outbox order by id")).scalars()
            sizes = list(stored)
        assert sizes[0] < len(HTML.encode()) / 10 and sizes[1] == 0
        indexes = {i["name"] for i in inspect(db.engine).get_indexes("outbox")}
        assert "ix_outbox_sent_with_body" in indexes
        # The sweep prunes the delivered body, leaves the pruned and the pending alone.
        config: Settings = settings()
        later = datetime(2026, 11, 1, 10) + timedelta(days=config.mail.keep_days + 1)
        assert sweep.prune_bodies(config, later) == 1
        assert _bodies() == [("", ""), ("", ""), ("short", "<p>short</p>")]
        db.session.remove()
        downgrade(revision="0011_outbox_sent_with_body")
        with db.engine.connect() as conn:
            kept = conn.execute(text("select text, html from outbox order by id")).all()
        assert [tuple(row) for row in kept] == [("", ""), ("", ""), ("short", "<p>short</p>")]
        db.engine.dispose()


def test_upgrade_to_0012_compresses_the_bodies(tmp_path: Path) -> None:
    _upgrade_compresses(make_app(tmp_path, PBEM_MAIL_KEEP_DAYS="30"))


def test_upgrade_to_0012_compresses_the_bodies_on_postgresql(tmp_path: Path) -> None:
    from tests.support.pg import TempDatabase, server_available

    if (why := server_available()) is not None:
        missing(f"PostgreSQL unavailable: {why}")
    database = TempDatabase(prefix="pbem_bodies").create()
    try:
        _upgrade_compresses(make_app(tmp_path, DATABASE_URL=database.url, PBEM_MAIL_KEEP_DAYS="30"))
    finally:
        database.drop()
