"""games record their organiser and its confirmation; players get link nonces and a block flag

Revision ID: 0002_organiser_and_player_links
Revises: 0001_initial
Create Date: 2026-12-01 00:00:00

Games made before this revision have no recorded organiser and count as confirmed (their
invitations went out already); every existing player gets a fresh link nonce.
"""

import secrets

import sqlalchemy as sa
from alembic import op

revision = "0002_organiser_and_player_links"
down_revision = "0001_initial"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("players", schema=None) as batch_op:
        batch_op.add_column(sa.Column("nonce", sa.String(length=32), nullable=True))
        batch_op.add_column(sa.Column("signin_nonce", sa.String(length=32), nullable=True))
        batch_op.add_column(sa.Column("blocked_at", sa.DateTime(), nullable=True))
    players = sa.table("players", sa.column("id", sa.Integer), sa.column("nonce", sa.String))
    bind = op.get_bind()
    for (player_id,) in bind.execute(sa.select(players.c.id)).all():
        bind.execute(
            players.update()
            .where(players.c.id == player_id)
            .values(nonce=secrets.token_urlsafe(12))
        )
    with op.batch_alter_table("players", schema=None) as batch_op:
        batch_op.alter_column("nonce", existing_type=sa.String(length=32), nullable=False)

    with op.batch_alter_table("games", schema=None) as batch_op:
        batch_op.add_column(sa.Column("organiser_id", sa.Integer(), nullable=True))
        batch_op.add_column(sa.Column("confirmed_at", sa.DateTime(), nullable=True))
        batch_op.create_index(batch_op.f("ix_games_organiser_id"), ["organiser_id"], unique=False)
        batch_op.create_foreign_key(
            batch_op.f("fk_games_organiser_id_players"), "players", ["organiser_id"], ["id"]
        )
        batch_op.create_index(
            "ix_games_unconfirmed_created_at",
            ["created_at"],
            unique=False,
            postgresql_where=sa.text("confirmed_at IS NULL"),
            sqlite_where=sa.text("confirmed_at IS NULL"),
        )
    games = sa.table(
        "games", sa.column("confirmed_at", sa.DateTime), sa.column("created_at", sa.DateTime)
    )
    bind.execute(games.update().values(confirmed_at=games.c.created_at))


def downgrade() -> None:
    with op.batch_alter_table("games", schema=None) as batch_op:
        batch_op.drop_index(
            "ix_games_unconfirmed_created_at",
            postgresql_where=sa.text("confirmed_at IS NULL"),
            sqlite_where=sa.text("confirmed_at IS NULL"),
        )
        batch_op.drop_constraint(batch_op.f("fk_games_organiser_id_players"), type_="foreignkey")
        batch_op.drop_index(batch_op.f("ix_games_organiser_id"))
        batch_op.drop_column("confirmed_at")
        batch_op.drop_column("organiser_id")
    with op.batch_alter_table("players", schema=None) as batch_op:
        batch_op.drop_column("blocked_at")
        batch_op.drop_column("signin_nonce")
        batch_op.drop_column("nonce")
