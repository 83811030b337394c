"""Domain operations: create a game, accept a seat, submit and apply moves, send the outbox.

Every function here commits its own transaction and returns the ids of the rows a task must pick up
next (submissions to apply, outbox rows to send); the caller enqueues them only after the commit
(`pbem.dispatch`), so a task never looks for a row that is not there yet.
"""

from __future__ import annotations

import logging
import random
import re
import secrets
import smtplib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import select, text
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import joinedload

from pbem import games, links, mail
from pbem.app import settings
from pbem.extensions import db
from pbem.games.base import check_players, resolve_options
from pbem.models import (
    APPLIED,
    FAILED,
    FINISHED,
    INVITING,
    PENDING,
    REJECTED,
    RUNNING,
    SENT,
    Game,
    Move,
    OutboxMessage,
    Player,
    Seat,
    Submission,
    new_game_id,
    new_nonce,
    utcnow,
)

log = logging.getLogger(__name__)

EMAIL_RE = re.compile(r"^[^@\s<>,;]+@[^@\s<>,;]+$")
RECENT_MOVES = 8


class ServiceError(Exception):
    """A refused request: `code` and `status` for the API, the message for people."""

    code = "bad_request"
    status = 400

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class SetupError(ServiceError):
    code = "bad_setup"


class NotFound(ServiceError):
    code = "not_found"
    status = 404


class GameNotStarted(ServiceError):
    code = "game_not_started"
    status = 409


class GameOver(ServiceError):
    code = "game_over"
    status = 409


class StalePly(ServiceError):
    code = "stale_ply"
    status = 409


class NotYourTurn(ServiceError):
    code = "not_your_turn"
    status = 409


class MoveRefused(ServiceError):
    status = 422

    def __init__(self, message: str, code: str) -> None:
        super().__init__(message)
        self.code = code


# --- reading -------------------------------------------------------------------------------------


def engine(game: Game) -> games.Game:
    return games.get(game.engine)


def load_state(game: Game) -> games.State | None:
    """The engine state of a running or finished game; None while it is inviting."""
    if game.state is None:
        return None
    return engine(game).from_json(game.state)


def names(game: Game) -> list[str]:
    """How each seat is called in pages and emails: its player's address."""
    return [seat.player.email for seat in game.seats]


def seat_for_token(token: str, purpose: str) -> Seat:
    """The seat a genuine, current token speaks for; links.LinkError otherwise."""
    config = settings()
    claims = links.read_token(
        _secret(), token, purpose, max_age_seconds=config.link_max_age_days * 86400
    )
    seat = db.session.execute(
        select(Seat)
        .options(joinedload(Seat.game))  # every caller goes on to the game: one round trip
        .where(Seat.game_id == claims.game_id, Seat.seat == claims.seat)
        # The nonce must be read fresh: a seat cached in this session may predate a rotation.
        .execution_options(populate_existing=True)
    ).scalar_one_or_none()
    if seat is None or seat.player_id != claims.player_id:
        raise links.ForgedLink("This link names a game or seat that does not exist.")
    if not secrets.compare_digest(seat.nonce, claims.nonce):
        raise links.RevokedLink(
            "This link has been withdrawn: newer links were sent for your seat. Use the link "
            "in your most recent email from this game."
        )
    return seat


def move_number(ply: int) -> int:
    """Plies count from 0; people count moves from 1."""
    return ply + 1


@dataclass
class SeatPicture:
    """One seat's picture of a game: what its page, its emails and the API show."""

    game: Game
    seat: Seat
    state: games.State | None
    names: list[str]
    recent: list[tuple[int, str, str]] = field(default_factory=list)  # (ply, who, move)

    @property
    def title(self) -> str:
        return engine(self.game).title

    @property
    def your_turn(self) -> bool:
        return self.game.status == RUNNING and self.game.to_move == self.seat.seat

    @property
    def opponents(self) -> list[str]:
        return [name for index, name in enumerate(self.names) if index != self.seat.seat]

    @property
    def scores(self) -> list[tuple[str, int]]:
        if self.state is None:
            return []
        return list(zip(self.names, self.state.scores(), strict=False))

    @property
    def to_move_name(self) -> str | None:
        to_move = self.game.to_move
        return self.names[to_move] if to_move is not None else None

    def legal_moves(self) -> list[str]:
        if not self.your_turn or self.state is None:
            return []
        return self.state.legal_moves()


def picture(seat: Seat, recent: int = RECENT_MOVES) -> SeatPicture:
    game = seat.game
    who = names(game)
    rows = db.session.execute(
        select(Move).where(Move.game_id == game.id).order_by(Move.ply.desc()).limit(recent)
    ).scalars()
    moves = [(row.ply, who[row.seat], row.move) for row in reversed(list(rows))]
    return SeatPicture(game, seat, load_state(game), who, moves)


def history(game: Game) -> list[Move]:
    return list(
        db.session.execute(select(Move).where(Move.game_id == game.id).order_by(Move.ply)).scalars()
    )


# --- starting a game -----------------------------------------------------------------------------


@dataclass(frozen=True)
class CreatedGame:
    game_id: str
    outbox_ids: list[int]


def create_game(
    engine_name: str,
    options: Mapping[str, Any] | None,
    emails: Sequence[str],
    seed: int | None = None,
) -> CreatedGame:
    """A new game in the `inviting` state with one invitation email per seat.

    The first address is the creator's; they accept through their own link like everyone else.
    Seats are drawn at random from a recorded seed.
    """
    try:
        rules = games.get(engine_name)
    except KeyError as exc:
        raise SetupError(str(exc.args[0])) from exc
    addresses = [normalise_email(address) for address in emails]
    seed = secrets.randbits(62) if seed is None else seed
    try:
        check_players(rules.name, len(addresses), rules.min_players, rules.max_players)
        resolved = resolve_options(rules.name, rules.options, options)
        # The engine may refuse combinations the option lists cannot express; ask it now rather
        # than when the last player accepts.
        rules.new(len(addresses), resolved, seed)
    except ValueError as exc:
        raise SetupError(str(exc)) from exc

    game_id = new_game_id()
    game = Game(
        id=game_id,
        engine=rules.name,
        options=resolved,
        seed=seed,
        status=INVITING,
        thread_message_id=mail.new_message_id(game_id, settings().mail_from),
    )
    db.session.add(game)
    order = list(range(len(addresses)))
    random.Random(f"seats:{seed}").shuffle(order)
    for address, seat_index in zip(addresses, order, strict=True):
        db.session.add(Seat(game=game, seat=seat_index, player=_player(address)))
    db.session.flush()
    db.session.refresh(game, ["seats"])
    creator = addresses[0]
    who = names(game)
    outbox = [
        _write_mail(
            game,
            seat,
            "invite",
            f"invitation from {creator}",
            creator=creator,
            names=who,
            options=resolved,
            link=links.invite_url(seat),
        )
        for seat in game.seats
    ]
    outbox_ids = _ids(outbox)
    db.session.commit()
    return CreatedGame(game_id, outbox_ids)


def normalise_email(address: str) -> str:
    address = address.strip()
    if not EMAIL_RE.match(address):
        raise SetupError(f"{address!r} is not an email address")
    local, _, domain = address.rpartition("@")
    return f"{local}@{domain.lower()}"


def _player(email: str) -> Player:
    player = db.session.execute(select(Player).where(Player.email == email)).scalar_one_or_none()
    if player is not None:
        return player
    try:
        # Another request may create the same player at the same moment: the unique email
        # decides, and the loser reads the winner's row.
        with db.session.begin_nested():
            player = Player(email=email)
            db.session.add(player)
        return player
    except IntegrityError:
        return db.session.execute(select(Player).where(Player.email == email)).scalar_one()


@dataclass(frozen=True)
class Acceptance:
    started: bool
    already: bool
    outbox_ids: list[int]


def accept_invitation(seat_id: int) -> Acceptance:
    """Take a seat; the last acceptance starts the game and emails the first player."""
    seat = db.session.get(Seat, seat_id)
    if seat is None:
        raise NotFound("There is no such seat.")
    game = _lock_game(seat.game_id)
    # Read every seat afresh under the lock: the last acceptance, and only it, starts the game.
    db.session.execute(
        select(Seat).where(Seat.game_id == game.id).execution_options(populate_existing=True)
    ).all()
    if seat.accepted_at is not None or game.status != INVITING:
        db.session.commit()
        return Acceptance(started=False, already=True, outbox_ids=[])
    seat.accepted_at = utcnow()
    outbox: list[OutboxMessage] = []
    if all(s.accepted_at is not None for s in game.seats):
        outbox = _start(game)
    outbox_ids = _ids(outbox)
    db.session.commit()
    return Acceptance(started=bool(outbox), already=False, outbox_ids=outbox_ids)


def _start(game: Game) -> list[OutboxMessage]:
    state = engine(game).new(len(game.seats), game.options, game.seed)
    game.state = state.to_json()
    game.ply = len(state.history)
    game.to_move = state.to_move
    game.status = RUNNING
    game.started_at = utcnow()
    if state.outcome is not None:
        return _finish(game, state)
    outbox = []
    for seat in game.seats:
        if seat.seat == state.to_move:
            outbox.append(_turn_mail(game, seat))
        else:
            outbox.append(
                _write_mail(
                    game,
                    seat,
                    "started",
                    "the game has started",
                    pic=picture(seat),
                    link=links.seat_url(seat),
                )
            )
    return outbox


# --- moves ---------------------------------------------------------------------------------------


def submit_move(seat: Seat, move: str, ply: int) -> Submission:
    """Check a move against the game as it stands and store it as a pending submission.

    The checks here give the player an immediate answer; the worker checks again under the game's
    row lock, because another move may land between this commit and the task.
    """
    game = seat.game
    move = move.strip()
    _check_turn(game, seat.seat, ply)
    if not move:
        raise MoveRefused(
            "No move was given: choose one of the legal moves or type one.", "no_move"
        )
    state = load_state(game)
    assert state is not None
    try:
        state.play(move)
    except games.MoveError as exc:
        code = "invalid_move" if isinstance(exc, games.InvalidMove) else "illegal_move"
        raise MoveRefused(str(exc), code) from exc
    submission = Submission(game_id=game.id, seat=seat.seat, ply=ply, move=move, status=PENDING)
    db.session.add(submission)
    _commit_keeping_loaded()
    return submission


def _check_turn(game: Game, seat: int, ply: int) -> None:
    if game.status == INVITING:
        raise GameNotStarted(
            "The game has not started yet: it starts when every invited player has accepted."
        )
    if game.status != RUNNING:
        raise GameOver("The game is over; no more moves can be made.")
    if ply != game.ply:
        raise StalePly(
            f"This move was for move {move_number(ply)}; the game is at move "
            f"{move_number(game.ply)}. Reload the game page to see the board as it is now."
        )
    if game.to_move != seat:
        raise NotYourTurn(
            "It is not your turn: wait for the email telling you it is, then use its link."
        )


def apply_move(submission_id: int) -> list[int]:
    """Play a pending submission, under the game's row lock, in one transaction.

    Appends the move, stores the new snapshot and writes the outbox rows, or marks the submission
    rejected. Returns the outbox ids to send. Running it again for the same id changes nothing.
    """
    # One round trip: the game with its seats (and their players, for the emails) and the
    # submission. Both rows are locked, so the submission too is read as it is once we hold the
    # lock (PostgreSQL re-reads locked rows after a wait, not the others of the join): another
    # worker may have decided it while we waited.
    found = (
        db.session.execute(
            select(Game, Submission)
            .join(Submission, Submission.game_id == Game.id)
            .options(joinedload(Game.seats))
            .where(Submission.id == submission_id)
            .with_for_update(of=(Game, Submission))
            .execution_options(populate_existing=True)
        )
        .unique()
        .one_or_none()
    )
    if found is None or found[1].status != PENDING:
        db.session.commit()
        return []
    game, submission = found
    try:
        _check_turn(game, submission.seat, submission.ply)
        state = load_state(game)
        assert state is not None
        new_state = state.play(submission.move)
    except (ServiceError, games.MoveError) as exc:
        return _reject(submission, str(exc))
    except Exception:
        # An engine bug must not leave the submission pending for the sweep to retry forever.
        log.exception("engine error applying submission %s", submission_id)
        return _reject(
            submission, "pbem could not play this move because of an error on our side; try again."
        )

    db.session.add(
        Move(
            game_id=game.id,
            ply=game.ply,
            seat=submission.seat,
            move=new_state.history[-1] if new_state.history else submission.move,
            submission_id=submission.id,
        )
    )
    game.state = new_state.to_json()
    game.ply += 1
    game.to_move = new_state.to_move
    submission.status = APPLIED
    submission.applied_at = utcnow()
    outbox: list[OutboxMessage] = []
    if new_state.outcome is not None:
        outbox = _finish(game, new_state)
    elif new_state.to_move is not None and (
        new_state.to_move != submission.seat
        or not continues_turn(state, new_state, submission.seat)
    ):
        again = new_state.to_move == submission.seat
        outbox = [_turn_mail(game, game.seats[new_state.to_move], again=again)]
    outbox_ids = _ids(outbox)
    try:
        db.session.commit()
    except IntegrityError:
        # Only reachable without row locks (SQLite): the unique ply refused a second move.
        db.session.rollback()
        submission = db.session.get(Submission, submission_id)
        assert submission is not None
        return _reject(submission, "Another move was made for this turn first.")
    return outbox_ids


def _reject(submission: Submission, reason: str) -> list[int]:
    submission.status = REJECTED
    submission.error = reason
    submission.applied_at = utcnow()
    db.session.commit()
    return []


def _finish(game: Game, state: games.State) -> list[OutboxMessage]:
    outcome = state.outcome
    assert outcome is not None
    game.status = FINISHED
    game.finished_at = utcnow()
    game.outcome = outcome.to_json()
    return [
        _write_mail(
            game,
            seat,
            "result",
            "the game is over",
            pic=picture(seat),
            outcome=outcome,
            link=links.seat_url(seat),
        )
        for seat in game.seats
    ]


def _turn_mail(game: Game, seat: Seat, again: bool = False) -> OutboxMessage:
    return _write_mail(
        game,
        seat,
        "turn",
        f"your turn (move {move_number(game.ply)})",
        pic=picture(seat),
        link=links.seat_url(seat),
        again=again,
    )


def continues_turn(before: games.State, after: games.State, seat: int) -> bool:
    """Whether `seat`, to move again, is in the middle of one turn of several actions.

    Marram gives a turn two actions and counts them down in its view's `actions_left`: no email
    between them, the player is on the page. Any other repeat is a new turn, as when GORami skips
    a player who cannot place: the player who moves again has left and must be told.
    """
    left_before = before.view(seat).get("actions_left")
    left_after = after.view(seat).get("actions_left")
    return (
        isinstance(left_before, int)
        and isinstance(left_after, int)
        and 0 < left_after < left_before
    )


# --- links ---------------------------------------------------------------------------------------


def rotate_seat_links(game_id: str, seat_index: int, notify: bool = True) -> list[int]:
    """Revoke every link of one seat; with `notify`, email the player a fresh one."""
    seat = db.session.execute(
        select(Seat).where(Seat.game_id == game_id, Seat.seat == seat_index)
    ).scalar_one_or_none()
    if seat is None:
        raise NotFound(f"Game {game_id} has no seat {seat_index}.")
    seat.nonce = new_nonce()
    outbox = []
    if notify:
        invited = seat.accepted_at is None and seat.game.status == INVITING
        link = links.invite_url(seat) if invited else links.seat_url(seat)
        outbox.append(
            _write_mail(seat.game, seat, "links", "your new link", link=link, invited=invited)
        )
    outbox_ids = _ids(outbox)
    db.session.commit()
    return outbox_ids


# --- mail ----------------------------------------------------------------------------------------


def _write_mail(game: Game, seat: Seat, kind: str, about: str, **context: Any) -> OutboxMessage:
    """An outbox row for one seat, threaded after the last message this address got for the game."""
    title = engine(game).title
    config = settings()
    text, html = mail.render(
        kind, game=game, seat=seat, title=title, to=seat.player.email, **context
    )
    previous = db.session.execute(
        select(OutboxMessage.message_id)
        .where(OutboxMessage.game_id == game.id, OutboxMessage.to == seat.player.email)
        .order_by(OutboxMessage.id.desc())
        .limit(1)
    ).scalar_one_or_none()
    root = game.thread_message_id
    row = OutboxMessage(
        game_id=game.id,
        kind=kind,
        to=seat.player.email,
        subject=f"[pbem] {title} {game.id}: {about}",
        text=text,
        html=html,
        message_id=mail.new_message_id(game.id, config.mail_from),
        in_reply_to=previous or root,
        references=f"{root} {previous}" if previous else root,
        next_attempt_at=utcnow(),
    )
    db.session.add(row)
    db.session.flush()
    return row


@dataclass(frozen=True)
class Delivery:
    status: str  # sent, retry, failed, skipped
    retry_in: int | None = None


def send_outbox(outbox_id: int, now: datetime | None = None) -> Delivery:
    """Transmit one outbox row at most once; on failure, schedule the next attempt with backoff."""
    config = settings()
    row = db.session.execute(
        select(OutboxMessage)
        .where(OutboxMessage.id == outbox_id)
        # Another worker holding the row is sending it right now: leave it to them.
        .with_for_update(skip_locked=True)
    ).scalar_one_or_none()
    if row is None or row.status != PENDING:
        db.session.rollback()
        return Delivery("skipped")
    now = now or utcnow()
    row.attempts += 1
    try:
        with mail.delivering(row, config):
            # Recorded as soon as the server took the message, before the session is closed.
            row.status = SENT
            row.sent_at = now
            row.last_error = None
            _commit_sent_mark()
    except (OSError, smtplib.SMTPException) as exc:
        return _failed_attempt(row, exc, now)
    return Delivery("sent")


def _failed_attempt(row: OutboxMessage, exc: Exception, now: datetime) -> Delivery:
    config = settings()
    row.last_error = f"{type(exc).__name__}: {exc}"[:2000]
    if row.attempts >= config.mail_max_attempts or isinstance(exc, smtplib.SMTPRecipientsRefused):
        row.status = FAILED
        db.session.commit()
        return Delivery("failed")
    delay = min(config.mail_retry_seconds * 2 ** (row.attempts - 1), 3600)
    row.next_attempt_at = now + timedelta(seconds=delay)
    db.session.commit()
    return Delivery("retry", delay)


# --- the sweep -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Sweep:
    submission_ids: list[int]
    outbox_ids: list[int]


def sweep(now: datetime | None = None, limit: int = 1000) -> Sweep:
    """Work the queue lost or has not picked up for a while: pending submissions and due emails.

    Waiting PBEM_SWEEP_SECONDS first leaves fresh rows to the tasks already queued for them;
    re-enqueuing one anyway is harmless because every task is idempotent.
    """
    now = now or utcnow()
    cutoff = now - timedelta(seconds=settings().sweep_seconds)
    submissions = db.session.execute(
        select(Submission.id)
        .where(Submission.status == PENDING, Submission.created_at <= cutoff)
        .order_by(Submission.id)
        .limit(limit)
    ).scalars()
    emails = db.session.execute(
        select(OutboxMessage.id)
        .where(OutboxMessage.status == PENDING, OutboxMessage.next_attempt_at <= cutoff)
        .order_by(OutboxMessage.id)
        .limit(limit)
    ).scalars()
    result = Sweep(list(submissions), list(emails))
    db.session.rollback()
    return result


# --- helpers -------------------------------------------------------------------------------------


def _ids(rows: Sequence[OutboxMessage]) -> list[int]:
    """Ids read before the commit: after it, each read would cost a round trip to reload the row."""
    return [row.id for row in rows]


def _lock_game(game_id: str) -> Game:
    """The game row, locked until commit: one move at a time per game, across all workers."""
    return db.session.execute(
        select(Game)
        .where(Game.id == game_id)
        .with_for_update()
        .execution_options(populate_existing=True)
    ).scalar_one()


def _commit_keeping_loaded() -> None:
    """Commit without expiring what the session holds.

    The caller goes on to read only what it just wrote (a submission's id): expiring it would make
    that read a second transaction, with its own pool checkout, ping and SELECT.
    """
    session = db.session()
    session.expire_on_commit = False
    try:
        session.commit()
    finally:
        session.expire_on_commit = True


def _commit_sent_mark() -> None:
    """Commit a row marked sent without waiting for PostgreSQL to flush its WAL.

    A worker lost between the server's 250 and this commit sends the message again when the task
    is redelivered; not waiting for the disk shrinks that window to one round trip. The price is a
    resend after a PostgreSQL crash in that instant: the same duplicate, with the same Message-ID.
    """
    if db.session.get_bind().dialect.name == "postgresql":
        db.session.execute(text("SET LOCAL synchronous_commit TO OFF"))
    db.session.commit()


def _secret() -> str:
    from flask import current_app

    secret: str = current_app.config["SECRET_KEY"]
    return secret
