"""workers' heartbeats for /readyz

Revision ID: 0013_worker_heartbeats
Revises: 0012_outbox_bodies_compressed
Create Date: 2026-12-07 03:00:00

Each Celery worker writes a row every 30 seconds (pbem.ops.heartbeats); /readyz says the service
is not ready when no worker of a queue has written one for two minutes.
"""

import sqlalchemy as sa
from alembic import op

revision = "0013_worker_heartbeats"
down_revision = "0012_outbox_bodies_compressed"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "worker_heartbeats",
        sa.Column("worker", sa.String(length=255), nullable=False),
        sa.Column("queues", sa.String(length=255), nullable=False),
        sa.Column("started_at", sa.DateTime(), nullable=False),
        sa.Column("beat_at", sa.DateTime(), nullable=False),
        sa.PrimaryKeyConstraint("worker", name=op.f("pk_worker_heartbeats")),
    )


def downgrade() -> None:
    op.drop_table("worker_heartbeats")
