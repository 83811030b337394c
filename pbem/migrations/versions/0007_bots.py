"""bots: seats played by the computer, and autopilot

Revision ID: 0007_bots
Revises: 0006_game_titles
Create Date: 2026-12-03 09:00:00

A bot is a player without an address: `players.email` becomes nullable, and `players.bot` names
the bot's kind (one row per kind, unique). `seats.autopilot_since` is set while pbem's search bot
plays a seat for its player. Existing rows keep their addresses and get no bot.
"""

import sqlalchemy as sa
from alembic import op

revision = "0007_bots"
down_revision = "0006_game_titles"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("players", schema=None) as batch_op:
        batch_op.alter_column("email", existing_type=sa.String(length=320), nullable=True)
        batch_op.add_column(sa.Column("bot", sa.String(length=16), nullable=True))
        batch_op.create_unique_constraint(batch_op.f("uq_players_bot"), ["bot"])
    with op.batch_alter_table("seats", schema=None) as batch_op:
        batch_op.add_column(sa.Column("autopilot_since", sa.DateTime(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("seats", schema=None) as batch_op:
        batch_op.drop_column("autopilot_since")
    op.execute("DELETE FROM players WHERE bot IS NOT NULL")
    with op.batch_alter_table("players", schema=None) as batch_op:
        batch_op.drop_constraint(batch_op.f("uq_players_bot"), type_="unique")
        batch_op.drop_column("bot")
        batch_op.alter_column("email", existing_type=sa.String(length=320), nullable=False)
