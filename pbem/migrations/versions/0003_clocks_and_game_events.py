"""clocks, seat and player time state, game events, the clock task's last run

Revision ID: 0003_clocks_and_game_events
Revises: 0002_organiser_and_player_links
Create Date: 2026-12-01 02:30:00

Games made before this revision keep no clock (their `clock` is NULL: no time limit), every
seat is active, and every player starts with no vacation balance recorded (the first look at
it grants the yearly allowance, as for a new player).
"""

import sqlalchemy as sa
from alembic import op

revision = "0003_clocks_and_game_events"
down_revision = "0002_organiser_and_player_links"
branch_labels = None
depends_on = None

RUNNING_CLOCK = "status = 'running' AND deadline IS NOT NULL AND paused_at IS NULL"


def upgrade() -> None:
    with op.batch_alter_table("players", schema=None) as batch_op:
        batch_op.add_column(sa.Column("time_zone", sa.String(length=64), nullable=True))
        batch_op.add_column(sa.Column("vacation_seconds", sa.Float(), nullable=True))
        batch_op.add_column(sa.Column("vacation_accrued_at", sa.DateTime(), nullable=True))
        batch_op.add_column(sa.Column("vacation_since", sa.DateTime(), nullable=True))
        batch_op.add_column(sa.Column("vacation_until", sa.DateTime(), nullable=True))
        batch_op.create_index(
            batch_op.f("ix_players_vacation_until"), ["vacation_until"], unique=False
        )

    with op.batch_alter_table("games", schema=None) as batch_op:
        batch_op.add_column(sa.Column("clock", sa.JSON(), nullable=True))
        batch_op.add_column(
            sa.Column("timeout_policy", sa.String(length=16), nullable=False, server_default="drop")
        )
        batch_op.add_column(sa.Column("turn_started_at", sa.DateTime(), nullable=True))
        batch_op.add_column(sa.Column("deadline", sa.DateTime(), nullable=True))
        batch_op.add_column(sa.Column("paused_at", sa.DateTime(), nullable=True))
        batch_op.add_column(sa.Column("reminder_at", sa.DateTime(), nullable=True))
        batch_op.add_column(sa.Column("draw_offered_by", sa.Integer(), nullable=True))
        batch_op.create_index(
            "ix_games_running_deadline",
            ["deadline"],
            unique=False,
            postgresql_where=sa.text(RUNNING_CLOCK),
            sqlite_where=sa.text(RUNNING_CLOCK),
        )
        batch_op.create_index(
            "ix_games_reminder_at",
            ["reminder_at"],
            unique=False,
            postgresql_where=sa.text("reminder_at IS NOT NULL"),
            sqlite_where=sa.text("reminder_at IS NOT NULL"),
        )
        batch_op.create_index(
            "ix_games_inviting_confirmed_at",
            ["confirmed_at"],
            unique=False,
            postgresql_where=sa.text("status = 'inviting'"),
            sqlite_where=sa.text("status = 'inviting'"),
        )

    with op.batch_alter_table("seats", schema=None) as batch_op:
        batch_op.add_column(sa.Column("expired_at", sa.DateTime(), nullable=True))
        batch_op.add_column(
            sa.Column("state", sa.String(length=16), nullable=False, server_default="active")
        )
        batch_op.add_column(sa.Column("bank_seconds", sa.Float(), nullable=True))

    op.create_table(
        "game_events",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("game_id", sa.String(length=32), nullable=False),
        sa.Column("ply", sa.Integer(), nullable=False),
        sa.Column("seat", sa.Integer(), nullable=True),
        sa.Column("kind", sa.String(length=24), nullable=False),
        sa.Column("detail", sa.JSON(), nullable=True),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.ForeignKeyConstraint(
            ["game_id"], ["games.id"], name=op.f("fk_game_events_game_id_games")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_game_events")),
    )
    with op.batch_alter_table("game_events", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_game_events_game_id"), ["game_id"], unique=False)

    op.create_table(
        "clock_runs",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("last_run_at", sa.DateTime(), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_clock_runs")),
    )


def downgrade() -> None:
    op.drop_table("clock_runs")
    with op.batch_alter_table("game_events", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_game_events_game_id"))
    op.drop_table("game_events")
    with op.batch_alter_table("seats", schema=None) as batch_op:
        batch_op.drop_column("bank_seconds")
        batch_op.drop_column("state")
        batch_op.drop_column("expired_at")
    with op.batch_alter_table("games", schema=None) as batch_op:
        batch_op.drop_index(
            "ix_games_inviting_confirmed_at",
            postgresql_where=sa.text("status = 'inviting'"),
            sqlite_where=sa.text("status = 'inviting'"),
        )
        batch_op.drop_index(
            "ix_games_reminder_at",
            postgresql_where=sa.text("reminder_at IS NOT NULL"),
            sqlite_where=sa.text("reminder_at IS NOT NULL"),
        )
        batch_op.drop_index(
            "ix_games_running_deadline",
            postgresql_where=sa.text(RUNNING_CLOCK),
            sqlite_where=sa.text(RUNNING_CLOCK),
        )
        for column in (
            "draw_offered_by",
            "reminder_at",
            "paused_at",
            "deadline",
            "turn_started_at",
            "timeout_policy",
            "clock",
        ):
            batch_op.drop_column(column)
    with op.batch_alter_table("players", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_players_vacation_until"))
        for column in (
            "vacation_until",
            "vacation_since",
            "vacation_accrued_at",
            "vacation_seconds",
            "time_zone",
        ):
            batch_op.drop_column(column)
