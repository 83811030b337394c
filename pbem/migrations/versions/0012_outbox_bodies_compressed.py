"""emails' text and HTML are kept zlib-compressed

Revision ID: 0012_outbox_bodies_compressed
Revises: 0011_outbox_sent_with_body
Create Date: 2026-12-06 21:30:00

`outbox.text` and `outbox.html` become bytes, zlib-compressed (pbem.compressed_text): in the
embedded SQLite file they were most of what a move leaves (10.1 kB a move held, bench/RESULTS.md).
Every row is rewritten, 500 at a time; the partial index of the bodies the sweep may prune says
"has a body" as `length(html) > 0`, which both column types answer. The space comes back to the
operating system after a VACUUM (docs/operations.md, "Upgrading").
"""

import zlib
from collections.abc import Callable
from typing import Any

import sqlalchemy as sa
from alembic import op

revision = "0012_outbox_bodies_compressed"
down_revision = "0011_outbox_sent_with_body"
branch_labels = None
depends_on = None

BATCH = 500


def _pack(value: str | None) -> bytes:
    return zlib.compress(value.encode("utf-8"), 6) if value else b""


def _unpack(value: bytes | None) -> str:
    return zlib.decompress(bytes(value)).decode("utf-8") if value else ""


def _rewrite(kind: Callable[[], Any], convert: Callable[[Any], Any], where: str) -> None:
    """Add text_new/html_new of `kind`, fill them from text/html through `convert`, swap."""
    with op.batch_alter_table("outbox", schema=None) as batch_op:
        batch_op.add_column(sa.Column("text_new", kind(), nullable=True))
        batch_op.add_column(sa.Column("html_new", kind(), nullable=True))
    conn = op.get_bind()
    last = 0
    while True:
        rows = conn.execute(
            sa.text("SELECT id, text, html FROM outbox WHERE id > :last ORDER BY id LIMIT :n"),
            {"last": last, "n": BATCH},
        ).all()
        if not rows:
            break
        conn.execute(
            sa.text("UPDATE outbox SET text_new = :text, html_new = :html WHERE id = :id"),
            [{"id": r.id, "text": convert(r.text), "html": convert(r.html)} for r in rows],
        )
        last = rows[-1].id
    op.drop_index("ix_outbox_sent_with_body", table_name="outbox")
    with op.batch_alter_table("outbox", schema=None) as batch_op:
        batch_op.drop_column("text")
        batch_op.drop_column("html")
    with op.batch_alter_table("outbox", schema=None) as batch_op:
        batch_op.alter_column(
            "text_new", new_column_name="text", nullable=False, existing_type=kind()
        )
        batch_op.alter_column(
            "html_new", new_column_name="html", nullable=False, existing_type=kind()
        )
    op.create_index(
        "ix_outbox_sent_with_body",
        "outbox",
        ["sent_at"],
        postgresql_where=sa.text(where),
        sqlite_where=sa.text(where),
    )


def upgrade() -> None:
    _rewrite(sa.LargeBinary, _pack, "status = 'sent' AND length(html) > 0")


def downgrade() -> None:
    _rewrite(sa.Text, _unpack, "status = 'sent' AND html <> ''")
