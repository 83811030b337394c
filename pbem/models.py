"""The database: typed SQLAlchemy 2 models. Alembic migrations in `pbem/migrations/` mirror them."""

from __future__ import annotations

import secrets
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from sqlalchemy import (
    JSON,
    BigInteger,
    ForeignKey,
    Index,
    String,
    Text,
    UniqueConstraint,
    text,
)
from sqlalchemy.orm import Mapped, mapped_column, relationship

from pbem.extensions import Base, db

# Flask-SQLAlchemy builds db.Model at run time from Base (adding `query`); the type checker sees
# the declarative base it derives from.
if TYPE_CHECKING:
    Model = Base
else:
    Model = db.Model

# Game status values.
INVITING, RUNNING, FINISHED = "inviting", "running", "finished"
# Submission status values.
PENDING, APPLIED, REJECTED = "pending", "applied", "rejected"
# Outbox status values (PENDING shared).
SENT, FAILED = "sent", "failed"


def utcnow() -> datetime:
    """Naive UTC: SQLite keeps no zone, so every timestamp is stored and compared as naive UTC."""
    return datetime.now(UTC).replace(tzinfo=None)


def new_game_id() -> str:
    # Random, not sequential: a game id in a URL reveals nothing about other games. Never with a
    # leading "-", which a command line would take for an option (`pbem rotate-links ID SEAT`).
    while True:
        game_id = secrets.token_urlsafe(9)
        if not game_id.startswith("-"):
            return game_id


def new_nonce() -> str:
    return secrets.token_urlsafe(12)


class Player(Model):
    __tablename__ = "players"

    id: Mapped[int] = mapped_column(primary_key=True)
    email: Mapped[str] = mapped_column(String(320), unique=True)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    # Part of every player link (the dashboard); replacing it signs the player out everywhere.
    nonce: Mapped[str] = mapped_column(String(32), default=new_nonce)
    # The one sign-in link that may still be used; None once used (or never asked for).
    signin_nonce: Mapped[str | None] = mapped_column(String(32))
    # Set by "never email me again": no invitation is written to this address any more.
    blocked_at: Mapped[datetime | None]


class Game(Model):
    __tablename__ = "games"
    __table_args__ = (
        # The sweep's look for unconfirmed games past their time reads only those games.
        Index(
            "ix_games_unconfirmed_created_at",
            "created_at",
            postgresql_where=text("confirmed_at IS NULL"),
            sqlite_where=text("confirmed_at IS NULL"),
        ),
    )

    id: Mapped[str] = mapped_column(String(32), primary_key=True, default=new_game_id)
    engine: Mapped[str] = mapped_column(String(32))
    options: Mapped[dict[str, Any]] = mapped_column(JSON)
    seed: Mapped[int] = mapped_column(BigInteger)
    # The engine's to_json() snapshot after `ply` moves; None until every seat is taken.
    state: Mapped[dict[str, Any] | None] = mapped_column(JSON)
    ply: Mapped[int] = mapped_column(default=0)
    to_move: Mapped[int | None]
    status: Mapped[str] = mapped_column(String(16), default=INVITING)
    outcome: Mapped[dict[str, Any] | None] = mapped_column(JSON)
    # Every email of the game references this id so mail clients thread them together.
    thread_message_id: Mapped[str] = mapped_column(String(255))
    # Who started the game (seats are shuffled, so it is not a seat); None for games started
    # before it was recorded.
    organiser_id: Mapped[int | None] = mapped_column(ForeignKey("players.id"), index=True)
    # When the organiser's address was confirmed; until then only the organiser is emailed.
    confirmed_at: Mapped[datetime | None]
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    started_at: Mapped[datetime | None]
    finished_at: Mapped[datetime | None]

    # Loaded on first use: checking and storing a move needs the game row only.
    seats: Mapped[list[Seat]] = relationship(back_populates="game", order_by="Seat.seat")
    organiser: Mapped[Player | None] = relationship()


class Seat(Model):
    __tablename__ = "seats"
    __table_args__ = (UniqueConstraint("game_id", "seat"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    game_id: Mapped[str] = mapped_column(ForeignKey("games.id"), index=True)
    seat: Mapped[int]
    player_id: Mapped[int] = mapped_column(ForeignKey("players.id"), index=True)
    # Part of every link for this seat; replacing it revokes them all.
    nonce: Mapped[str] = mapped_column(String(32), default=new_nonce)
    invited_at: Mapped[datetime] = mapped_column(default=utcnow)
    accepted_at: Mapped[datetime | None]

    game: Mapped[Game] = relationship(back_populates="seats")
    player: Mapped[Player] = relationship(lazy="joined")


class Move(Model):
    """Append-only: one row per ply, never updated; the unique key refuses a second move."""

    __tablename__ = "moves"
    __table_args__ = (UniqueConstraint("game_id", "ply"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    game_id: Mapped[str] = mapped_column(ForeignKey("games.id"))
    ply: Mapped[int]
    seat: Mapped[int]
    move: Mapped[str] = mapped_column(String(200))
    submission_id: Mapped[int | None] = mapped_column(ForeignKey("submissions.id"))
    created_at: Mapped[datetime] = mapped_column(default=utcnow)


class Submission(Model):
    """A move as a player sent it, stored before the queue is touched so none is ever lost."""

    __tablename__ = "submissions"
    __table_args__ = (
        # At most one applied submission per ply, whatever the workers do.
        Index(
            "uq_submissions_applied_ply",
            "game_id",
            "ply",
            unique=True,
            postgresql_where=text("status = 'applied'"),
            sqlite_where=text("status = 'applied'"),
        ),
        Index("ix_submissions_status_created_at", "status", "created_at"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    game_id: Mapped[str] = mapped_column(ForeignKey("games.id"), index=True)
    seat: Mapped[int]
    ply: Mapped[int]
    move: Mapped[str] = mapped_column(String(500))
    status: Mapped[str] = mapped_column(String(16), default=PENDING)
    error: Mapped[str | None] = mapped_column(Text)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    applied_at: Mapped[datetime | None]


class OutboxMessage(Model):
    """An email written in the same transaction as the change it reports; sent by a task."""

    __tablename__ = "outbox"
    __table_args__ = (Index("ix_outbox_status_next_attempt_at", "status", "next_attempt_at"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    game_id: Mapped[str | None] = mapped_column(ForeignKey("games.id"), index=True)
    kind: Mapped[str] = mapped_column(String(16))
    to: Mapped[str] = mapped_column(String(320))
    subject: Mapped[str] = mapped_column(String(255))
    text: Mapped[str] = mapped_column(Text)
    html: Mapped[str] = mapped_column(Text)
    message_id: Mapped[str] = mapped_column(String(255), unique=True)
    in_reply_to: Mapped[str | None] = mapped_column(String(255))
    references: Mapped[str | None] = mapped_column(Text)
    status: Mapped[str] = mapped_column(String(16), default=PENDING)
    attempts: Mapped[int] = mapped_column(default=0)
    next_attempt_at: Mapped[datetime] = mapped_column(default=utcnow)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    sent_at: Mapped[datetime | None]
    last_error: Mapped[str | None] = mapped_column(Text)
