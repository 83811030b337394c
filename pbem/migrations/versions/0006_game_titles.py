"""games named by their organiser

Revision ID: 0006_game_titles
Revises: 0005_names_and_mail
Create Date: 2026-12-02 09:00:00

A game gains `title`, the name its organiser gave it ("Friday Club"), shown at the head of its
pages and mail. Nullable: games made before this revision, and games nobody named, are called by
their engine's title and their id, as before.
"""

import sqlalchemy as sa
from alembic import op

revision = "0006_game_titles"
down_revision = "0005_names_and_mail"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("games", schema=None) as batch_op:
        batch_op.add_column(sa.Column("title", sa.String(length=80), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("games", schema=None) as batch_op:
        batch_op.drop_column("title")
