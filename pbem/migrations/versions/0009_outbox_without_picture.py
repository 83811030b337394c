"""the emails that went without their board picture

Revision ID: 0009_outbox_without_picture
Revises: 0008_autopilot_marks
Create Date: 2026-12-06 14:40:00

`outbox.without_picture` is true when the message first built for a row lacks the picture it was
to carry (its wait, `PBEM_PICTURE_TIMEOUT_SECONDS`, ran out, or the picture could not be drawn):
the sent rows that say so are the emails the operator's figure counts. Rows built before this
revision are marked from the `pictures` table, which keeps every picture drawn: a row built
(`raw`) that was to carry a picture which is not there, or failed, went without it.
"""

import sqlalchemy as sa
from alembic import op

revision = "0009_outbox_without_picture"
down_revision = "0008_autopilot_marks"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("outbox", schema=None) as batch_op:
        batch_op.add_column(
            sa.Column("without_picture", sa.Boolean(), nullable=False, server_default=sa.false())
        )
    op.execute(
        "UPDATE outbox SET without_picture = true WHERE picture IS NOT NULL AND raw IS NOT NULL "
        "AND NOT EXISTS (SELECT 1 FROM pictures WHERE pictures.key = outbox.picture "
        "AND pictures.png IS NOT NULL)"
    )


def downgrade() -> None:
    with op.batch_alter_table("outbox", schema=None) as batch_op:
        batch_op.drop_column("without_picture")
