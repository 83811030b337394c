"""autopilot made visible: which bot plays a seat, and which moves it made

Revision ID: 0008_autopilot_marks
Revises: 0007_bots
Create Date: 2026-12-10 09:00:00

`seats.autopilot_bot` is the bot (`greedy` or `mcts`) a seat on autopilot was handed to; seats on
autopilot before this revision were handed to the search bot, so they keep `mcts`. A bot's
submission for a person's seat carries that bot in `submissions.autopilot`, and the move it
became keeps it in `moves.autopilot`. Nullable: every move stored before reads as made by its
player, as it was shown then.
"""

import sqlalchemy as sa
from alembic import op

revision = "0008_autopilot_marks"
down_revision = "0007_bots"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("seats", schema=None) as batch_op:
        batch_op.add_column(sa.Column("autopilot_bot", sa.String(length=16), nullable=True))
    op.execute("UPDATE seats SET autopilot_bot = 'mcts' WHERE autopilot_since IS NOT NULL")
    with op.batch_alter_table("submissions", schema=None) as batch_op:
        batch_op.add_column(sa.Column("autopilot", sa.String(length=16), nullable=True))
    with op.batch_alter_table("moves", schema=None) as batch_op:
        batch_op.add_column(sa.Column("autopilot", sa.String(length=16), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("moves", schema=None) as batch_op:
        batch_op.drop_column("autopilot")
    with op.batch_alter_table("submissions", schema=None) as batch_op:
        batch_op.drop_column("autopilot")
    with op.batch_alter_table("seats", schema=None) as batch_op:
        batch_op.drop_column("autopilot_bot")
