"""languages: the player's, the game's (its invitations), each email's

Revision ID: 0015_languages
Revises: 0014_erased_players
Create Date: 2026-12-07 07:00:00

Pages and mail speak English, French, Dutch or Danish (pbem.i18n). A player's language is None
until they choose one or first act on a page; a game's is the organiser's choice, English for
the games made before; an email's is its Content-Language.
"""

import sqlalchemy as sa
from alembic import op

revision = "0015_languages"
down_revision = "0014_erased_players"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("players") as batch:
        batch.add_column(sa.Column("language", sa.String(length=8), nullable=True))
    with op.batch_alter_table("games") as batch:
        batch.add_column(
            sa.Column("language", sa.String(length=8), server_default="en", nullable=False)
        )
    with op.batch_alter_table("outbox") as batch:
        batch.add_column(sa.Column("language", sa.String(length=8), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("outbox") as batch:
        batch.drop_column("language")
    with op.batch_alter_table("games") as batch:
        batch.drop_column("language")
    with op.batch_alter_table("players") as batch:
        batch.drop_column("language")
