"""The database: typed SQLAlchemy 2 models. Alembic migrations in `pbem/migrations/` mirror them."""

from __future__ import annotations

import secrets
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from sqlalchemy import (
    JSON,
    BigInteger,
    Float,
    ForeignKey,
    Index,
    LargeBinary,
    String,
    Text,
    UniqueConstraint,
    false,
    text,
)
from sqlalchemy.orm import Mapped, mapped_column, relationship

from pbem.compressed_text import CompressedText
from pbem.extensions import Base, db

# Flask-SQLAlchemy builds db.Model at run time from Base (adding `query`); the type checker sees
# the declarative base it derives from.
if TYPE_CHECKING:
    Model = Base
else:
    Model = db.Model

# Game status values.
INVITING, RUNNING, FINISHED, CANCELLED = "inviting", "running", "finished", "cancelled"
# Seat state values: still playing, out of time in a game that goes on, resigned.
ACTIVE, DROPPED, RESIGNED = "active", "dropped", "resigned"
# Timeout policies of games of three or more (two-player games are lost on time): the seat out
# of time leaves the game, or pbem's greedy bot plays it from then on.
DROP, AUTOPILOT = "drop", "autopilot"
TIMEOUT_POLICIES = (DROP, AUTOPILOT)
# Submission status values.
PENDING, APPLIED, REJECTED = "pending", "applied", "rejected"
# Outbox status values (PENDING shared).
SENT, FAILED = "sent", "failed"
# Mail preferences: an email for every turn, one daily digest of the games awaiting the player,
# or no turn mail at all (invitations, sign-in links and game results still go).
EVERY_TURN, DIGEST, NO_TURN_MAIL = "every", "digest", "none"
MAIL_PREFERENCES = (EVERY_TURN, DIGEST, NO_TURN_MAIL)


_RUNNING_CLOCK = "status = 'running' AND deadline IS NOT NULL AND paused_at IS NULL"
_RUNNING_UNCLOCKED = "status = 'running' AND deadline IS NULL"


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
    # None for a bot, which has no address (and is never written an email).
    email: Mapped[str | None] = mapped_column(String(320), unique=True)
    # A bot's kind ("mcts", pbem.bots): one row per kind plays every seat of that kind; None for
    # a person.
    bot: Mapped[str | None] = mapped_column(String(16), unique=True)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    # Part of every player link (the dashboard); replacing it signs the player out everywhere.
    nonce: Mapped[str] = mapped_column(String(32), default=new_nonce)
    # The one sign-in link that may still be used; None once used (or never asked for).
    signin_nonce: Mapped[str | None] = mapped_column(String(32))
    # Set by "never email me again": no invitation is written to this address any more.
    blocked_at: Mapped[datetime | None]
    # An IANA zone name ("Europe/Paris") emails give deadlines in; None: UTC only.
    time_zone: Mapped[str | None] = mapped_column(String(64))
    # Vacation: the balance in seconds as of `vacation_accrued_at` (pbem.domain.vacation accrues
    # it lazily); while away, `vacation_since` is set and `vacation_until` is when it ends.
    vacation_seconds: Mapped[float | None] = mapped_column(Float)
    vacation_accrued_at: Mapped[datetime | None]
    vacation_since: Mapped[datetime | None]
    vacation_until: Mapped[datetime | None] = mapped_column(index=True)
    # How pages and mail call the player (plain text); None: by their seat's colour, never by
    # anything taken from the address. An organiser's name for an invitee is stored only while
    # the player has none: a name the player chose is never overwritten by someone else.
    name: Mapped[str | None] = mapped_column(String(60))
    # every, digest or none (MAIL_PREFERENCES): which turn mail the player wants.
    mail_preference: Mapped[str] = mapped_column(String(8), default=EVERY_TURN)
    # When the last daily digest went (pbem.domain.digest sends one per day at most).
    digest_sent_at: Mapped[datetime | None]
    # Set when mail to the address bounced (a 5xx at sending, or a DSN): nothing more is sent to
    # it until the player signs in again or proves the address works.
    bounced_at: Mapped[datetime | None]
    bounce_reason: Mapped[str | None] = mapped_column(Text)
    # Erased at the player's request (pbem.ops.player_data): no address, no name, no links; the
    # row stays for the games the others still read, where it is "a former player".
    erased_at: Mapped[datetime | None]
    # The language pages and mail speak to the player in (pbem.i18n.LANGUAGES); None until they
    # choose one or first act on a page, which then stores the page's.
    language: Mapped[str | None] = mapped_column(String(8))

    @property
    def address(self) -> str:
        """A person's address, for what only people get (a dashboard, a digest, a sign-in
        link); a bot has none, and nothing asks it for one."""
        if self.email is None:
            raise ValueError(f"player {self.id} is a bot ({self.bot}): it has no address")
        return self.email


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
        # The clock task's look for games out of time reads running, unpaused games only: a
        # million finished games cost it nothing.
        Index(
            "ix_games_running_deadline",
            "deadline",
            postgresql_where=text(_RUNNING_CLOCK),
            sqlite_where=text(_RUNNING_CLOCK),
        ),
        Index(
            "ix_games_reminder_at",
            "reminder_at",
            postgresql_where=text("reminder_at IS NOT NULL"),
            sqlite_where=text("reminder_at IS NOT NULL"),
        ),
        Index(
            "ix_games_inviting_confirmed_at",
            "confirmed_at",
            postgresql_where=text("status = 'inviting'"),
            sqlite_where=text("status = 'inviting'"),
        ),
        # The daily digest's look for games awaiting a player, among those without a clock
        # (clocked ones are found through ix_games_running_deadline): finished games cost nothing.
        Index(
            "ix_games_running_unclocked",
            "id",
            postgresql_where=text(_RUNNING_UNCLOCKED),
            sqlite_where=text(_RUNNING_UNCLOCKED),
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
    # The language of its invitations to people who are not players yet, and of its mail to
    # players who have none (pbem.i18n.LANGUAGES): chosen by the organiser.
    language: Mapped[str] = mapped_column(String(8), default="en", server_default="en")
    # The organiser's name for the game ("Friday Club"): plain text, one line, at most
    # pbem.domain.titles.MAX_LENGTH characters (the column has room to spare); None: the game
    # is called by its engine's title and its id. Not the engine's `title`.
    title: Mapped[str | None] = mapped_column(String(80))
    # Who started the game (seats are shuffled, so it is not a seat); None for games started
    # before it was recorded.
    organiser_id: Mapped[int | None] = mapped_column(ForeignKey("players.id"), index=True)
    # When the organiser's address was confirmed; until then only the organiser is emailed.
    confirmed_at: Mapped[datetime | None]
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    started_at: Mapped[datetime | None]
    finished_at: Mapped[datetime | None]
    # The time control (pbem.domain.clocks.Clock.to_json()); None: no clock (older games).
    clock: Mapped[dict[str, Any] | None] = mapped_column(JSON)
    # What becomes of a seat out of time in a game of three or more.
    timeout_policy: Mapped[str] = mapped_column(String(16), default=DROP)
    # The turn on the clock: when it started and when it runs out (None without a clock).
    turn_started_at: Mapped[datetime | None]
    deadline: Mapped[datetime | None]
    # Set while the player to move is on vacation: their clock stopped then.
    paused_at: Mapped[datetime | None]
    # When the next reminder to the player to move is due; None when none is left this turn.
    reminder_at: Mapped[datetime | None]
    # The seat whose draw offer stands (two-player games); it lapses at the other's next move.
    draw_offered_by: Mapped[int | None]

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
    # Set when the invitation lapsed unaccepted; cleared when the organiser invites another.
    expired_at: Mapped[datetime | None]
    # active, dropped (out of time, play goes on) or resigned.
    state: Mapped[str] = mapped_column(String(16), default=ACTIVE)
    # The seat's Fischer bank in seconds of counted time; None for other clocks.
    bank_seconds: Mapped[float | None] = mapped_column(Float)
    # Set while one of pbem's bots plays the seat for its player (handed over from the dashboard,
    # or on running out of time under the autopilot policy); None while its player plays it.
    autopilot_since: Mapped[datetime | None]
    # The bot the seat was handed to (greedy or mcts, pbem.domain.bot_seats.AUTOPILOT_BOTS)
    # while on autopilot; None while its player plays it.
    autopilot_bot: Mapped[str | None] = mapped_column(String(16))

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
    # The move in words as the engine's `describe` gave it, seats as {0}/{1} placeholders
    # (pbem.games.fill_names): its message as JSON (pbem.domain.wording.stored_words), said in
    # each reader's language, or English from an engine that speaks no messages yet; None for
    # moves recorded before it was kept.
    words: Mapped[str | None] = mapped_column(Text)
    submission_id: Mapped[int | None] = mapped_column(ForeignKey("submissions.id"))
    # The bot that made this move for the seat's player on autopilot ("greedy"); None when the
    # seat's own player (or its own bot) made it, and for every move stored before it was kept.
    autopilot: Mapped[str | None] = mapped_column(String(16))
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
    # The bot that sent it for a person's seat on autopilot; the move it becomes keeps it.
    autopilot: Mapped[str | None] = mapped_column(String(16))
    status: Mapped[str] = mapped_column(String(16), default=PENDING)
    error: Mapped[str | None] = mapped_column(Text)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    applied_at: Mapped[datetime | None]


# A delivered email that still keeps its text and HTML.
_SENT_WITH_BODY = "status = 'sent' AND length(html) > 0"


class OutboxMessage(Model):
    """An email written in the same transaction as the change it reports; sent by a task."""

    __tablename__ = "outbox"
    __table_args__ = (
        Index("ix_outbox_status_next_attempt_at", "status", "next_attempt_at"),
        # The sweep's look for delivered emails whose bodies are due to go (sweep.prune_bodies):
        # the emails already pruned, nearly all of them in time, cost it nothing.
        Index(
            "ix_outbox_sent_with_body",
            "sent_at",
            postgresql_where=text(_SENT_WITH_BODY),
            sqlite_where=text(_SENT_WITH_BODY),
        ),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    game_id: Mapped[str | None] = mapped_column(ForeignKey("games.id"), index=True)
    kind: Mapped[str] = mapped_column(String(16))
    to: Mapped[str] = mapped_column(String(320))
    subject: Mapped[str] = mapped_column(String(255))
    # Both empty once the email was delivered PBEM_MAIL_KEEP_DAYS ago (sweep.prune_bodies).
    # Compressed: most of what a move leaves in the database (pbem.compressed_text).
    text: Mapped[str] = mapped_column(CompressedText)
    html: Mapped[str] = mapped_column(CompressedText)
    message_id: Mapped[str] = mapped_column(String(255), unique=True)
    in_reply_to: Mapped[str | None] = mapped_column(String(255))
    references: Mapped[str | None] = mapped_column(Text)
    status: Mapped[str] = mapped_column(String(16), default=PENDING)
    attempts: Mapped[int] = mapped_column(default=0)
    next_attempt_at: Mapped[datetime] = mapped_column(default=utcnow)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    sent_at: Mapped[datetime | None]
    last_error: Mapped[str | None] = mapped_column(Text)
    # Where a reply goes (a turn email's play+<token>@ address, pbem.mailin); None: MAIL_FROM.
    reply_to: Mapped[str | None] = mapped_column(String(320))
    # The one-click unsubscribe link (RFC 8058) of a turn or digest email; None for other mail.
    list_unsubscribe: Mapped[str | None] = mapped_column(String(512))
    # The board picture this email carries, "<game id>/<ply>/<seat>" (the `pictures` key); the
    # row waits for it until `next_attempt_at`, then goes without it. The message itself is put
    # together from these columns and the picture at each attempt, never stored.
    picture: Mapped[str | None] = mapped_column(String(80))
    # Its last attempt went without the board picture it was to carry: its wait ran out, or it
    # could not be drawn. The emails sent without their picture are the sent rows that say so.
    without_picture: Mapped[bool] = mapped_column(default=False, server_default=false())
    # The language it is written in: its Content-Language. None in rows older than languages.
    language: Mapped[str | None] = mapped_column(String(8))


class Picture(Model):
    """A board picture for mail, rendered once per game, ply and seat (pbem.pictures), and kept
    only while a pending email names it (`board_pictures.prune`)."""

    __tablename__ = "pictures"

    key: Mapped[str] = mapped_column(String(80), primary_key=True)  # "<game id>/<ply>/<seat>"
    # None when rendering failed or took too long: the email went without it.
    png: Mapped[bytes | None] = mapped_column(LargeBinary)
    alt: Mapped[str] = mapped_column(Text, default="")
    error: Mapped[str | None] = mapped_column(Text)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)


class GameEvent(Model):
    """What happened to a game besides its moves (a resignation, a timeout, a draw agreed…),
    recorded with it: the moves stay a valid replay, and the events say the rest."""

    __tablename__ = "game_events"

    id: Mapped[int] = mapped_column(primary_key=True)
    game_id: Mapped[str] = mapped_column(ForeignKey("games.id"), index=True)
    # The number of moves made when it happened (a seat dropped at ply 12 left before move 13).
    ply: Mapped[int]
    seat: Mapped[int | None]
    kind: Mapped[str] = mapped_column(String(24))
    detail: Mapped[dict[str, Any] | None] = mapped_column(JSON)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)


class ClockRun(Model):
    """One row: when the clock task last ran, so that it can tell downtime from idleness."""

    __tablename__ = "clock_runs"

    id: Mapped[int] = mapped_column(primary_key=True)
    last_run_at: Mapped[datetime]


class WorkerHeartbeat(Model):
    """A Celery worker's latest sign of life, written every `pbem.ops.heartbeats.INTERVAL_SECONDS`
    by its main process; `/readyz` reads the newest per queue."""

    __tablename__ = "worker_heartbeats"

    worker: Mapped[str] = mapped_column(String(255), primary_key=True)  # Celery's hostname
    queues: Mapped[str] = mapped_column(String(255))  # the queues it consumes, comma-separated
    started_at: Mapped[datetime]
    beat_at: Mapped[datetime]


class ErasedAddress(Model):
    """A keyed hash of an erased player's address: it is not invited again unless its owner
    asks (`pbem admin player unblock`)."""

    __tablename__ = "erased_addresses"

    digest: Mapped[str] = mapped_column(String(64), primary_key=True)
    erased_at: Mapped[datetime]
