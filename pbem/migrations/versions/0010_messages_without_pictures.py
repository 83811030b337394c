"""messages are put together when they are sent; pictures kept only while an email needs them

Revision ID: 0010_messages_without_pictures
Revises: 0009_outbox_without_picture
Create Date: 2026-12-06 16:20:00

`outbox.raw` held every message as first built, the board picture inside it (some 99 kB a turn
email): it goes. A row holds its parts (subject, text, HTML, headers, the key of its picture) and
the message is put together, and signed, at each attempt. Pictures no pending email names are
deleted: a later email at the same position draws its picture again from the game's record.

The space comes back to the operating system only after a VACUUM (docs/operations.md,
"Upgrading"): `VACUUM FULL outbox, pictures;` on PostgreSQL, `VACUUM;` on SQLite.
"""

import sqlalchemy as sa
from alembic import op

revision = "0010_messages_without_pictures"
down_revision = "0009_outbox_without_picture"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("outbox", schema=None) as batch_op:
        batch_op.drop_column("raw")
    op.execute(
        "DELETE FROM pictures WHERE NOT EXISTS (SELECT 1 FROM outbox WHERE outbox.status = "
        "'pending' AND outbox.picture = pictures.key)"
    )


def downgrade() -> None:
    # The messages sent are not restored: a row without `raw` was simply built anew by the
    # earlier version too.
    with op.batch_alter_table("outbox", schema=None) as batch_op:
        batch_op.add_column(sa.Column("raw", sa.LargeBinary(), nullable=True))
