"""delivered emails lose their bodies after PBEM_MAIL_KEEP_DAYS

Revision ID: 0011_outbox_sent_with_body
Revises: 0010_messages_without_pictures
Create Date: 2026-12-06 16:40:00

The sweep empties the text and HTML of emails delivered longer ago than PBEM_MAIL_KEEP_DAYS
(default 30), keeping the row (address, subject, Message-ID, thread, picture key, status) for
the record, bounces and threading. This partial index finds those still holding a body, so the
emails already pruned cost the sweep nothing.
"""

import sqlalchemy as sa
from alembic import op

revision = "0011_outbox_sent_with_body"
down_revision = "0010_messages_without_pictures"
branch_labels = None
depends_on = None

_SENT_WITH_BODY = "status = 'sent' AND html <> ''"


def upgrade() -> None:
    op.create_index(
        "ix_outbox_sent_with_body",
        "outbox",
        ["sent_at"],
        postgresql_where=sa.text(_SENT_WITH_BODY),
        sqlite_where=sa.text(_SENT_WITH_BODY),
    )


def downgrade() -> None:
    op.drop_index("ix_outbox_sent_with_body", table_name="outbox")
