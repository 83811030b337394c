"""outbox rows say where a reply goes

Revision ID: 0004_outbox_reply_to
Revises: 0003_clocks_and_game_events
Create Date: 2026-12-01 03:15:00

A turn email's replies go to an address of its own (`play+<token>@`, pbem.mailin), kept on its
row for the message's Reply-To. Rows written before this revision have none: replies to them go
to MAIL_FROM, as before.
"""

import sqlalchemy as sa
from alembic import op

revision = "0004_outbox_reply_to"
down_revision = "0003_clocks_and_game_events"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("outbox", schema=None) as batch_op:
        batch_op.add_column(sa.Column("reply_to", sa.String(length=320), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("outbox", schema=None) as batch_op:
        batch_op.drop_column("reply_to")
