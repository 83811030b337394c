"""names, mail preferences, bounces, moves in words, stored messages and board pictures

Revision ID: 0005_names_and_mail
Revises: 0004_outbox_reply_to
Create Date: 2026-12-01 05:00:00

Players gain a display name, a mail preference (every turn, a daily digest, none) and a bounce
mark; moves keep their sentence in words; outbox rows keep their one-click unsubscribe link, the
picture they carry and the message's bytes as first built; `pictures` caches board pictures per
game, ply and seat; a partial index finds running games without a clock. Every new column is
nullable or has a default: rows written before this revision read as before (no name: the seat's
colour; every turn mailed; moves shown as notation).
"""

import sqlalchemy as sa
from alembic import op

revision = "0005_names_and_mail"
down_revision = "0004_outbox_reply_to"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("players", schema=None) as batch_op:
        batch_op.add_column(sa.Column("name", sa.String(length=60), nullable=True))
        batch_op.add_column(
            sa.Column(
                "mail_preference", sa.String(length=8), nullable=False, server_default="every"
            )
        )
        batch_op.add_column(sa.Column("digest_sent_at", sa.DateTime(), nullable=True))
        batch_op.add_column(sa.Column("bounced_at", sa.DateTime(), nullable=True))
        batch_op.add_column(sa.Column("bounce_reason", sa.Text(), nullable=True))
    with op.batch_alter_table("moves", schema=None) as batch_op:
        batch_op.add_column(sa.Column("words", sa.Text(), nullable=True))
    with op.batch_alter_table("outbox", schema=None) as batch_op:
        batch_op.add_column(sa.Column("list_unsubscribe", sa.String(length=512), nullable=True))
        batch_op.add_column(sa.Column("picture", sa.String(length=80), nullable=True))
        batch_op.add_column(sa.Column("raw", sa.LargeBinary(), nullable=True))
    op.create_index(
        "ix_games_running_unclocked",
        "games",
        ["id"],
        unique=False,
        postgresql_where=sa.text("status = 'running' AND deadline IS NULL"),
        sqlite_where=sa.text("status = 'running' AND deadline IS NULL"),
    )
    op.create_table(
        "pictures",
        sa.Column("key", sa.String(length=80), nullable=False),
        sa.Column("png", sa.LargeBinary(), nullable=True),
        sa.Column("alt", sa.Text(), nullable=False),
        sa.Column("error", sa.Text(), nullable=True),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.PrimaryKeyConstraint("key"),
    )


def downgrade() -> None:
    op.drop_table("pictures")
    op.drop_index("ix_games_running_unclocked", table_name="games")
    with op.batch_alter_table("outbox", schema=None) as batch_op:
        batch_op.drop_column("raw")
        batch_op.drop_column("picture")
        batch_op.drop_column("list_unsubscribe")
    with op.batch_alter_table("moves", schema=None) as batch_op:
        batch_op.drop_column("words")
    with op.batch_alter_table("players", schema=None) as batch_op:
        batch_op.drop_column("bounce_reason")
        batch_op.drop_column("bounced_at")
        batch_op.drop_column("digest_sent_at")
        batch_op.drop_column("mail_preference")
        batch_op.drop_column("name")
