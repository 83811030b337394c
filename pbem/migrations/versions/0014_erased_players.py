"""players erased on request, and the addresses they left

Revision ID: 0014_erased_players
Revises: 0013_worker_heartbeats
Create Date: 2026-12-07 04:00:00

`pbem admin player erase` (or the games page's button, confirmed by email) keeps the player's row
for the games others still read, without address or name (`players.erased_at`), and a keyed
hash of the address in `erased_addresses`, so that the address is not invited again unless its
owner asks (pbem.ops.player_data).
"""

import sqlalchemy as sa
from alembic import op

revision = "0014_erased_players"
down_revision = "0013_worker_heartbeats"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("players") as batch:
        batch.add_column(sa.Column("erased_at", sa.DateTime(), nullable=True))
    op.create_table(
        "erased_addresses",
        sa.Column("digest", sa.String(length=64), nullable=False),
        sa.Column("erased_at", sa.DateTime(), nullable=False),
        sa.PrimaryKeyConstraint("digest", name=op.f("pk_erased_addresses")),
    )


def downgrade() -> None:
    op.drop_table("erased_addresses")
    with op.batch_alter_table("players") as batch:
        batch.drop_column("erased_at")
