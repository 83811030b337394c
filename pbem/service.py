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
from functools import cached_property
from typing import Any, Protocol

from sqlalchemy import Connection, bindparam, func, insert, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import joinedload

from pbem import games, links, mail
from pbem.app import settings
from pbem.config import Settings
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


def engine(game: Game | GameFacts) -> games.Game:
    return games.get(game.engine)


def load_state(game: Game) -> games.State | None:
    """The engine state of a running or finished game; None while it is inviting."""
    if game.state is None:
        return None
    return engine(game).from_json(game.state)


def names(game: Game) -> list[str]:
    """How each seat is called in pages and emails: its player's address."""
    return [seat.player.email for seat in game.seats]


def read_claims(token: str, purpose: str) -> links.LinkClaims:
    """The claims of a genuine, unexpired token for `purpose`; revocation is checked later."""
    config = settings()
    return links.read_token(
        _secret(), token, purpose, max_age_seconds=config.link_max_age_days * 86400
    )


def seat_for_token(token: str, purpose: str) -> Seat:
    """The seat a genuine, current token speaks for; links.LinkError otherwise."""
    claims = read_claims(token, purpose)
    seat = db.session.execute(
        select(Seat)
        .options(joinedload(Seat.game))  # every caller goes on to the game: one round trip
        .where(Seat.game_id == claims.game_id, Seat.seat == claims.seat)
        # The nonce must be read fresh: a seat cached in this session may predate a rotation.
        .execution_options(populate_existing=True)
    ).scalar_one_or_none()
    _check_claims(claims, seat)
    assert seat is not None
    return seat


class SeatRow(Protocol):
    player_id: int
    nonce: str


def _check_claims(claims: links.LinkClaims, seat: SeatRow | None) -> None:
    """Refuse claims naming a seat that is not there, or issued before its links were rotated."""
    if seat is None or seat.player_id != claims.player_id:
        raise links.ForgedLink("This link names a game or seat that does not exist.")
    if not secrets.compare_digest(seat.nonce, claims.nonce):
        raise links.RevokedLink(
            "This link has been withdrawn: newer links were sent for your seat. Use the link "
            "in your most recent email from this game."
        )


def move_number(ply: int) -> int:
    """Plies count from 0; people count moves from 1."""
    return ply + 1


@dataclass
class GameFacts:
    """A game as a move left it, for the emails written in the same transaction."""

    id: str
    engine: str
    status: str
    ply: int
    to_move: int | None
    thread_message_id: str


@dataclass(frozen=True)
class SeatInfo:
    """A seat with its player's address: what links and emails need of it."""

    id: int
    game_id: str
    seat: int
    player_id: int
    nonce: str
    email: str

    @classmethod
    def of(cls, seat: Seat) -> SeatInfo:
        return cls(seat.id, seat.game_id, seat.seat, seat.player_id, seat.nonce, seat.player.email)


# SeatInfo's fields as columns, in its order (joined with Player), for Core reads.
_SEAT_INFO = (Seat.id, Seat.game_id, Seat.seat, Seat.player_id, Seat.nonce, Player.email)


@dataclass
class SeatPicture:
    """One seat's picture of a game: what its page, its emails and the API show."""

    game: Game | GameFacts
    seat: Seat | SeatInfo
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

    @cached_property
    def scores(self) -> list[tuple[str, int]]:
        # Cached: a mail's text and HTML both show them, and some engines count them up.
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
    moves = _recent_moves(db.session.connection(), game.id, who, recent) if recent else []
    return SeatPicture(game, seat, load_state(game), who, moves)


_RECENT = (
    select(Move.ply, Move.seat, Move.move)
    .where(Move.game_id == bindparam("game_id"))
    .order_by(Move.ply.desc())
    .limit(bindparam("limit"))
)


def _recent_moves(
    conn: Connection, game_id: str, who: Sequence[str], limit: int = RECENT_MOVES
) -> list[tuple[int, str, str]]:
    rows = conn.execute(_RECENT, {"game_id": game_id, "limit": limit}).all()
    return [(ply, who[seat], move) for ply, seat, move in reversed(rows)]


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

    try:
        return _create(rules, resolved, addresses, seed)
    except IntegrityError:
        # Another request created one of these players at the same moment; they exist now.
        db.session.rollback()
        return _create(rules, resolved, addresses, seed)


def _create(
    rules: games.Game, options: dict[str, Any], addresses: list[str], seed: int
) -> CreatedGame:
    game_id = new_game_id()
    game = Game(
        id=game_id,
        engine=rules.name,
        options=options,
        seed=seed,
        status=INVITING,
        thread_message_id=mail.new_message_id(game_id, settings().mail_from),
    )
    db.session.add(game)
    players = _players(addresses)
    order = list(range(len(addresses)))
    random.Random(f"seats:{seed}").shuffle(order)
    seats = [
        Seat(game=game, seat=seat_index, player=players[address])
        for address, seat_index in zip(addresses, order, strict=True)
    ]
    db.session.add_all(seats)
    db.session.flush()
    seats.sort(key=lambda seat: seat.seat)
    creator = addresses[0]
    who = [seat.player.email for seat in seats]
    letters = [
        _letter(
            game,
            SeatInfo.of(seat),
            "invite",
            f"invitation from {creator}",
            creator=creator,
            names=who,
            options=options,
            link=links.invite_url(seat),
        )
        for seat in seats
    ]
    # A new game: no earlier message to thread after.
    outbox_ids = _store_letters(db.session.connection(), game, letters, {})
    db.session.commit()
    return CreatedGame(game_id, outbox_ids)


def normalise_email(address: str) -> str:
    address = address.strip()
    if not EMAIL_RE.match(address):
        raise SetupError(f"{address!r} is not an email address")
    local, _, domain = address.rpartition("@")
    return f"{local}@{domain.lower()}"


def _players(addresses: Sequence[str]) -> dict[str, Player]:
    """The players of these addresses, new ones added to the session (one query in all)."""
    wanted = set(addresses)
    found = {
        player.email: player
        for player in db.session.execute(select(Player).where(Player.email.in_(wanted))).scalars()
    }
    for email in sorted(wanted - found.keys()):
        found[email] = Player(email=email)
        db.session.add(found[email])
    return found


@dataclass(frozen=True)
class InvitedGame:
    """A game and who has taken a seat in it: what an invitation page shows."""

    id: str
    engine: str
    options: dict[str, Any]
    status: str
    seats: list[SeatInfo]  # by seat index
    accepted: list[bool]  # by seat index

    @classmethod
    def of(cls, game: Game) -> InvitedGame:
        return cls(
            game.id,
            game.engine,
            game.options,
            game.status,
            [SeatInfo.of(seat) for seat in game.seats],
            [seat.accepted_at is not None for seat in game.seats],
        )

    @property
    def names(self) -> list[str]:
        return [seat.email for seat in self.seats]

    @property
    def waiting(self) -> list[str]:
        return [seat.email for seat, ok in zip(self.seats, self.accepted, strict=True) if not ok]


@dataclass(frozen=True)
class Acceptance:
    started: bool
    already: bool
    outbox_ids: list[int]
    game: InvitedGame  # as committed


_LOCK_INVITED_GAME = (
    select(Game.id, Game.engine, Game.options, Game.seed, Game.status, Game.thread_message_id)
    .where(Game.id == bindparam("game_id"))
    .with_for_update()
)
_INVITED_SEATS = (
    select(*_SEAT_INFO, Seat.accepted_at)
    .join(Player, Player.id == Seat.player_id)
    .where(Seat.game_id == bindparam("game_id"))
    .order_by(Seat.seat)
)
_ACCEPT_SEAT = (
    update(Seat).where(Seat.id == bindparam("seat_id")).values(accepted_at=bindparam("now"))
)


def accept_invitation(seat: SeatKey) -> Acceptance:
    """Take a seat; the last acceptance starts the game and emails the first player.

    `seat` is an ORM seat or the claims of an invitation token, checked here against the seat
    as it is under the game's row lock (so a rotated link is refused). Core statements on the
    session's connection: set-up runs once per player and game, but at hundreds of moves a
    second games start by the dozen.
    """
    conn = db.session.connection()
    # The game row locked, its seats read under the lock: the last acceptance, and only it,
    # starts the game.
    game = conn.execute(_LOCK_INVITED_GAME, {"game_id": seat.game_id}).one_or_none()
    rows = conn.execute(_INVITED_SEATS, {"game_id": seat.game_id}).all() if game else []
    mine = next((row for row in rows if row.seat == seat.seat), None)
    try:
        if isinstance(seat, links.LinkClaims):
            _check_claims(seat, mine)
        if game is None or mine is None:
            raise NotFound("There is no such seat.")
    except (links.LinkError, NotFound):
        db.session.rollback()  # releases the lock
        raise
    seats = [SeatInfo(*row[: len(_SEAT_INFO)]) for row in rows]
    accepted = [row.accepted_at is not None for row in rows]
    if accepted[mine.seat] or game.status != INVITING:
        db.session.commit()
        invited = InvitedGame(game.id, game.engine, game.options, game.status, seats, accepted)
        return Acceptance(started=False, already=True, outbox_ids=[], game=invited)
    now = utcnow()
    conn.execute(_ACCEPT_SEAT, {"seat_id": mine.id, "now": now})
    accepted[mine.seat] = True
    status, outbox_ids = game.status, []
    if all(accepted):
        status, outbox_ids = _start(conn, game, seats, now)
    db.session.commit()
    invited = InvitedGame(game.id, game.engine, game.options, status, seats, accepted)
    return Acceptance(bool(outbox_ids), already=False, outbox_ids=outbox_ids, game=invited)


def _start(
    conn: Connection, game: Any, seats: list[SeatInfo], now: datetime
) -> tuple[str, list[int]]:
    """Deal the game and write its first emails; returns the new status and the outbox ids."""
    state = engine(game).new(len(seats), game.options, game.seed)
    outcome = state.outcome
    facts = GameFacts(
        game.id,
        game.engine,
        RUNNING if outcome is None else FINISHED,
        len(state.history),
        state.to_move,
        game.thread_message_id,
    )
    conn.execute(
        _UPDATE_GAME,
        {
            "game_id": game.id,
            "state": state.to_json(),
            "ply": facts.ply,
            "to_move": facts.to_move,
            "status": facts.status,
            "started_at": now,
            "finished_at": now if outcome is not None else None,
            "outcome": outcome.to_json() if outcome is not None else None,
        },
    )
    who = [seat.email for seat in seats]
    if outcome is not None:
        letters = _result_letters(facts, seats, state, who, [])
    else:
        letters = [
            _turn_letter(facts, seat, state, who, [])
            if seat.seat == state.to_move
            else _letter(
                facts,
                seat,
                "started",
                "the game has started",
                pic=SeatPicture(facts, seat, state, who),
                **_seat_links(seat),
            )
            for seat in seats
        ]
    # Threaded after the invitations.
    previous = {to: mid for to, mid in conn.execute(_LAST_MESSAGE_IDS, {"game_id": game.id})}
    return facts.status, _store_letters(conn, facts, letters, previous)


# --- moves ---------------------------------------------------------------------------------------
#
# Submitting and applying a move is the service's hot path (one of each per move, at hundreds of
# moves a second): both run a few Core statements on the session's connection instead of loading
# and flushing ORM objects, which cost several times more CPU than the statements themselves.


class SeatKey(Protocol):
    """Who acts: an ORM seat or the claims of a link token."""

    game_id: str
    seat: int
    player_id: int
    nonce: str


_SUBMIT_READ = (
    select(Seat.player_id, Seat.nonce, Game.engine, Game.state, Game.ply, Game.to_move, Game.status)
    .join(Game, Game.id == Seat.game_id)
    .where(Seat.game_id == bindparam("game_id"), Seat.seat == bindparam("seat"))
)
_INSERT_SUBMISSION = insert(Submission).returning(Submission.id)


def submit_move(seat: SeatKey, move: str, ply: int) -> int:
    """Check a move against the game as it stands and store it as a pending submission.

    Returns the submission's id. The checks here give the player an immediate answer; the worker
    checks again under the game's row lock, because another move may land between this commit
    and the task. Revoked links are refused here too, in the same statement that reads the game.

    The read and the insert each commit on their own (autocommit): nothing here needs them in
    one transaction, since the worker decides under the lock, and it saves the BEGIN and COMMIT
    round trips. The insert is durable when it returns.
    """
    move = move.strip()
    with db.engine.connect() as conn:
        return _submit(conn.execution_options(isolation_level="AUTOCOMMIT"), seat, move, ply)


def _submit(conn: Connection, seat: SeatKey, move: str, ply: int) -> int:
    game = conn.execute(_SUBMIT_READ, {"game_id": seat.game_id, "seat": seat.seat}).one_or_none()
    if isinstance(seat, links.LinkClaims):
        _check_claims(seat, game)
    elif game is None:
        raise NotFound("There is no such seat.")
    assert game is not None
    _check_turn(game, seat.seat, ply)
    if not move:
        raise MoveRefused(
            "No move was given: choose one of the legal moves or type one.", "no_move"
        )
    try:
        games.get(game.engine).from_json(game.state).play(move)
    except games.MoveError as exc:
        code = "invalid_move" if isinstance(exc, games.InvalidMove) else "illegal_move"
        raise MoveRefused(str(exc), code) from exc
    submission_id: int = conn.execute(
        _INSERT_SUBMISSION,
        {
            "game_id": seat.game_id,
            "seat": seat.seat,
            "ply": ply,
            "move": move,
            "status": PENDING,
            "created_at": utcnow(),
        },
    ).scalar_one()
    return submission_id


class TurnFacts(Protocol):
    status: str
    ply: int
    to_move: int | None


def _check_turn(game: TurnFacts, seat: int, ply: int) -> None:
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


# Both rows are locked, so the submission too is read as it is once we hold the lock (PostgreSQL
# re-reads locked rows after a wait, not the others of the join): another worker may have decided
# it while we waited. Rows are locked in the order they are sorted, so two workers whose batches
# share a game cannot deadlock. SQLite has no row locks; its writers take turns on the database.
_LOCK_FOR_APPLY = (
    select(
        Submission.id.label("submission_id"),
        Submission.status.label("submission_status"),
        Submission.seat.label("submission_seat"),
        Submission.ply.label("submission_ply"),
        Submission.move,
        Game.id,
        Game.engine,
        Game.state,
        Game.ply,
        Game.to_move,
        Game.status,
        Game.thread_message_id,
    )
    .join(Game, Game.id == Submission.game_id)
    .where(Submission.id.in_(bindparam("submission_ids", expanding=True)))
    .order_by(Game.id, Submission.id)
    .with_for_update(of=(Game, Submission))
)
_LAST_MESSAGE_ID = (
    select(OutboxMessage.message_id)
    .where(OutboxMessage.game_id == Seat.game_id, OutboxMessage.to == Player.email)
    .order_by(OutboxMessage.id.desc())
    .limit(1)
    .correlate(Seat, Player)
    .scalar_subquery()
)
# Each seat with its address and the last message that address got in the game (to thread after).
_SEATS = (
    select(*_SEAT_INFO, _LAST_MESSAGE_ID.label("last_message_id"))
    .join(Player, Player.id == Seat.player_id)
    .where(Seat.game_id.in_(bindparam("game_ids", expanding=True)))
    .order_by(Seat.game_id, Seat.seat)
)
_NUMBERED_MOVES = (
    select(
        Move.game_id,
        Move.ply,
        Move.seat,
        Move.move,
        func.row_number().over(partition_by=Move.game_id, order_by=Move.ply.desc()).label("newest"),
    )
    .where(Move.game_id.in_(bindparam("game_ids", expanding=True)))
    .subquery()
)
# The moves before this batch's that the emails list, for every game of the batch at once.
_RECENT_OF_GAMES = (
    select(
        _NUMBERED_MOVES.c.game_id,
        _NUMBERED_MOVES.c.ply,
        _NUMBERED_MOVES.c.seat,
        _NUMBERED_MOVES.c.move,
    )
    .where(_NUMBERED_MOVES.c.newest < RECENT_MOVES)
    .order_by(_NUMBERED_MOVES.c.game_id, _NUMBERED_MOVES.c.ply)
)
_INSERT_MOVE = insert(Move)
_UPDATE_GAME = update(Game).where(Game.id == bindparam("game_id"))
_DECIDE_SUBMISSION = update(Submission).where(Submission.id == bindparam("submission_id"))


@dataclass
class _Playing(GameFacts):
    """A locked game as this batch has left it so far."""

    snapshot: dict[str, Any] = field(default_factory=dict)
    state: games.State | None = None
    changed: bool = False

    def current(self) -> games.State:
        if self.state is None:
            self.state = games.get(self.engine).from_json(self.snapshot)
        return self.state


@dataclass(frozen=True)
class _Played:
    submission_id: int
    game: GameFacts
    seat: int
    ply: int
    move: str
    before: games.State
    after: games.State


def apply_move(submission_id: int) -> list[int]:
    """Play one pending submission; see `apply_moves`."""
    return apply_moves([submission_id])


def apply_moves(submission_ids: Sequence[int]) -> list[int]:
    """Play pending submissions under their games' row locks, all in one transaction.

    For each: append the move, store the new snapshot and write the outbox rows, or mark the
    submission rejected. Submissions of one game are decided in the order they arrived, so of two
    for the same ply the first is played and the second rejected. Returns the outbox ids to send.
    Running it again for the same ids changes nothing. A worker takes a batch at a time: the
    reads and writes of a batch cost a handful of statements and one commit, whatever its size.
    """
    if not submission_ids:
        return []
    try:
        return _apply_batch(sorted(set(submission_ids)))
    except IntegrityError:
        # Only reachable without row locks (SQLite): the unique ply refused a second move.
        db.session.rollback()
        if len(submission_ids) > 1:
            return [outbox_id for one in submission_ids for outbox_id in apply_moves([one])]
        reason = "Another move was made for this turn first."
        _decide(db.session.connection(), [_rejection(submission_ids[0], reason)])
        db.session.commit()
        return []


def _apply_batch(submission_ids: list[int]) -> list[int]:
    conn = db.session.connection()
    rows = conn.execute(_LOCK_FOR_APPLY, {"submission_ids": submission_ids}).all()
    now = utcnow()
    playing: dict[str, _Playing] = {}
    decided: list[dict[str, Any]] = []
    played: list[_Played] = []
    for row in rows:
        if row.submission_status != PENDING:
            continue
        game = playing.setdefault(
            row.id,
            _Playing(
                row.id,
                row.engine,
                row.status,
                row.ply,
                row.to_move,
                row.thread_message_id,
                row.state,
            ),
        )
        seat = row.submission_seat
        try:
            _check_turn(game, seat, row.submission_ply)
            before = game.current()
            after = before.play(row.move)
        except (ServiceError, games.MoveError) as exc:
            decided.append(_rejection(row.submission_id, str(exc)))
            continue
        except Exception:
            # An engine bug must not leave the submission pending for the sweep to retry forever.
            log.exception("engine error applying submission %s", row.submission_id)
            reason = "pbem could not play this move because of an error on our side; try again."
            decided.append(_rejection(row.submission_id, reason))
            continue
        move = after.history[-1] if after.history else row.move
        played.append(
            _Played(
                row.submission_id,
                GameFacts(
                    game.id,
                    game.engine,
                    RUNNING if after.outcome is None else FINISHED,
                    game.ply + 1,
                    after.to_move,
                    game.thread_message_id,
                ),
                seat,
                game.ply,
                move,
                before,
                after,
            )
        )
        decided.append(
            {
                "submission_id": row.submission_id,
                "status": APPLIED,
                "error": None,
                "applied_at": now,
            }
        )
        game.state, game.changed = after, True
        game.ply, game.to_move = game.ply + 1, after.to_move
        game.status = played[-1].game.status

    outbox_ids = _write_letters_for(conn, played) if played else []
    if played:
        conn.execute(
            _INSERT_MOVE,
            [
                {
                    "game_id": p.game.id,
                    "ply": p.ply,
                    "seat": p.seat,
                    "move": p.move,
                    "submission_id": p.submission_id,
                    "created_at": now,
                }
                for p in played
            ],
        )
        conn.execute(_UPDATE_GAME, [_game_changes(g, now) for g in playing.values() if g.changed])
    if decided:
        _decide(conn, decided)
    db.session.commit()
    return outbox_ids


def _game_changes(game: _Playing, now: datetime) -> dict[str, Any]:
    state = game.current()
    outcome = state.outcome
    return {
        "game_id": game.id,
        "state": state.to_json(),
        "ply": game.ply,
        "to_move": game.to_move,
        "status": game.status,
        "finished_at": now if outcome is not None else None,
        "outcome": outcome.to_json() if outcome is not None else None,
    }


def _rejection(submission_id: int, reason: str) -> dict[str, Any]:
    return {
        "submission_id": submission_id,
        "status": REJECTED,
        "error": reason,
        "applied_at": utcnow(),
    }


def _decide(conn: Connection, decisions: list[dict[str, Any]]) -> None:
    conn.execute(_DECIDE_SUBMISSION, decisions)


def _write_letters_for(conn: Connection, played: list[_Played]) -> list[int]:
    """The emails the batch's moves call for: the next player's turn, or everyone's result."""
    tell = [
        p
        for p in played
        if p.after.outcome is not None
        or (
            p.after.to_move is not None
            and not (p.after.to_move == p.seat and continues_turn(p.before, p.after, p.seat))
        )
    ]
    if not tell:
        return []
    game_ids = sorted({p.game.id for p in tell})
    seats: dict[str, list[SeatInfo]] = {}
    previous: dict[str, dict[str, str]] = {}
    for row in conn.execute(_SEATS, {"game_ids": game_ids}):
        seats.setdefault(row.game_id, []).append(SeatInfo(*row[: len(_SEAT_INFO)]))
        if row.last_message_id:
            previous.setdefault(row.game_id, {})[row.email] = row.last_message_id
    recent: dict[str, list[tuple[int, int, str]]] = {}
    for game_id, ply, seat, move in conn.execute(_RECENT_OF_GAMES, {"game_ids": game_ids}):
        recent.setdefault(game_id, []).append((ply, seat, move))
    rows: list[dict[str, Any]] = []
    for p in tell:
        game_seats = seats[p.game.id]
        who = [info.email for info in game_seats]
        moves = recent.setdefault(p.game.id, [])
        moves.append((p.ply, p.seat, p.move))
        shown = [(ply, who[seat], move) for ply, seat, move in moves[-RECENT_MOVES:]]
        if p.after.outcome is not None:
            letters = _result_letters(p.game, game_seats, p.after, who, shown)
        else:
            assert p.after.to_move is not None
            again = p.after.to_move == p.seat
            letters = [
                _turn_letter(p.game, game_seats[p.after.to_move], p.after, who, shown, again=again)
            ]
        rows += _outbox_rows(p.game, letters, previous.setdefault(p.game.id, {}))
    return _insert_outbox(conn, rows)


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
    outbox_ids: list[int] = []
    if notify:
        invited = seat.accepted_at is None and seat.game.status == INVITING
        link = links.invite_url(seat) if invited else links.seat_url(seat)
        letter = _letter(
            seat.game, SeatInfo.of(seat), "links", "your new link", link=link, invited=invited
        )
        outbox_ids = _post(seat.game, [letter])
    db.session.commit()
    return outbox_ids


# --- mail ----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Letter:
    """One email, composed, before it becomes an outbox row."""

    to: str
    kind: str
    subject: str
    text: str
    html: str


def _letter(
    game: Game | GameFacts, seat: SeatInfo, kind: str, about: str, **context: Any
) -> Letter:
    title = engine(game).title
    text, html = mail.render(kind, game=game, seat=seat, title=title, to=seat.email, **context)
    return Letter(seat.email, kind, f"[pbem] {title} {game.id}: {about}", text, html)


def _seat_links(seat: SeatInfo) -> dict[str, str]:
    """`link` to the seat's game page and `games_link` to all the player's games."""
    link, games_link = links.seat_urls(seat)
    return {"link": link, "games_link": games_link}


def _turn_letter(
    game: GameFacts | Game,
    seat: SeatInfo,
    state: games.State,
    who: list[str],
    recent: list[tuple[int, str, str]],
    again: bool = False,
) -> Letter:
    return _letter(
        game,
        seat,
        "turn",
        f"your turn (move {move_number(game.ply)})",
        pic=SeatPicture(game, seat, state, who, recent),
        again=again,
        **_seat_links(seat),
    )


def _result_letters(
    game: GameFacts | Game,
    seats: list[SeatInfo],
    state: games.State,
    who: list[str],
    recent: list[tuple[int, str, str]],
) -> list[Letter]:
    return [
        _letter(
            game,
            seat,
            "result",
            "the game is over",
            pic=SeatPicture(game, seat, state, who, recent),
            outcome=state.outcome,
            **_seat_links(seat),
        )
        for seat in seats
    ]


_INSERT_OUTBOX = insert(OutboxMessage).returning(OutboxMessage.id)
_LAST_MESSAGE_IDS = (
    select(OutboxMessage.to, OutboxMessage.message_id)
    .where(OutboxMessage.game_id == bindparam("game_id"))
    .order_by(OutboxMessage.id)
)


def _post(game: Game, letters: list[Letter]) -> list[int]:
    """Store letters as outbox rows in the current transaction (set-up paths, not per move)."""
    conn = db.session.connection()
    previous = {to: mid for to, mid in conn.execute(_LAST_MESSAGE_IDS, {"game_id": game.id})}
    return _store_letters(conn, game, letters, previous)


def _store_letters(
    conn: Connection, game: Game | GameFacts, letters: list[Letter], previous: dict[str, str]
) -> list[int]:
    return _insert_outbox(conn, _outbox_rows(game, letters, previous))


def _outbox_rows(
    game: Game | GameFacts, letters: list[Letter], previous: dict[str, str]
) -> list[dict[str, Any]]:
    """Outbox rows for `letters`, each threaded after the last message its address got.

    `previous` maps addresses to their last Message-ID in this game (and is updated); the game's
    thread id roots every chain, so a mail client shows the whole game as one conversation.
    """
    now = utcnow()
    root = game.thread_message_id
    mail_from = settings().mail_from
    rows = []
    for letter in letters:
        before = previous.get(letter.to)
        message_id = mail.new_message_id(game.id, mail_from)
        previous[letter.to] = message_id
        rows.append(
            {
                "game_id": game.id,
                "kind": letter.kind,
                "to": letter.to,
                "subject": letter.subject,
                "text": letter.text,
                "html": letter.html,
                "message_id": message_id,
                "in_reply_to": before or root,
                "references": f"{root} {before}" if before else root,
                "status": PENDING,
                "attempts": 0,
                "next_attempt_at": now,
                "created_at": now,
            }
        )
    return rows


def _insert_outbox(conn: Connection, rows: list[dict[str, Any]]) -> list[int]:
    if not rows:
        return []
    return list(conn.execute(_INSERT_OUTBOX, rows).scalars())


@dataclass(frozen=True)
class Delivery:
    status: str  # sent, retry, failed, skipped
    retry_in: int | None = None


_OUTBOX_ROW = select(OutboxMessage.__table__).where(OutboxMessage.id == bindparam("outbox_id"))
# Another worker holding the row is sending it right now: leave it to them.
_CLAIM_OUTBOX = _OUTBOX_ROW.with_for_update(skip_locked=True)
# On PostgreSQL the claim also makes the transaction's commit skip the wait for the WAL flush, in
# the same round trip (set_config(..., true) is SET LOCAL): a worker lost between the server's
# 250 and the commit that marks the row sent sends the message again when the task comes back,
# and not waiting for the disk shrinks that window to one round trip. The price is a resend after
# a PostgreSQL crash in that instant: the same duplicate, with the same Message-ID.
_CLAIM_OUTBOX_PG = (
    select(
        func.set_config("synchronous_commit", "off", True).label("commit_mode"),
        *OutboxMessage.__table__.columns,
    )
    .where(OutboxMessage.id == bindparam("outbox_id"))
    .with_for_update(of=OutboxMessage, skip_locked=True)
)
_UPDATE_OUTBOX = update(OutboxMessage).where(OutboxMessage.id == bindparam("outbox_id"))


def send_outbox(outbox_id: int, now: datetime | None = None) -> Delivery:
    """Transmit one outbox row at most once; on failure, schedule the next attempt with backoff."""
    return send_outboxes([outbox_id], now)[outbox_id]


def send_outboxes(outbox_ids: Sequence[int], now: datetime | None = None) -> dict[int, Delivery]:
    """Transmit outbox rows one after another over one database connection and one SMTP session.

    Each row is claimed (locked, SKIP LOCKED), sent and marked sent in a transaction of its own,
    so what was sent is recorded as soon as the server took it.
    """
    config = settings()
    with db.engine.connect() as conn:
        claim = _CLAIM_OUTBOX_PG if conn.dialect.name == "postgresql" else _CLAIM_OUTBOX
        return {
            outbox_id: _send_one(conn, claim, outbox_id, config, now or utcnow())
            for outbox_id in outbox_ids
        }


def _send_one(
    conn: Connection, claim: Any, outbox_id: int, config: Settings, now: datetime
) -> Delivery:
    row = conn.execute(claim, {"outbox_id": outbox_id}).one_or_none()
    if row is None or row.status != PENDING:
        conn.rollback()
        return Delivery("skipped")
    attempts = row.attempts + 1
    try:
        with mail.delivering(row, config):
            # Recorded as soon as the server took the message, before the session is closed.
            conn.execute(
                _UPDATE_OUTBOX,
                {
                    "outbox_id": outbox_id,
                    "status": SENT,
                    "sent_at": now,
                    "attempts": attempts,
                    "last_error": None,
                },
            )
            conn.commit()
    except (OSError, smtplib.SMTPException) as exc:
        return _failed_attempt(conn, outbox_id, attempts, exc, now)
    return Delivery("sent")


def _failed_attempt(
    conn: Connection, outbox_id: int, attempts: int, exc: Exception, now: datetime
) -> Delivery:
    config = settings()
    changes: dict[str, Any] = {
        "attempts": attempts,
        "last_error": f"{type(exc).__name__}: {exc}"[:2000],
    }
    delivery = Delivery("failed")
    if attempts >= config.mail_max_attempts or isinstance(exc, smtplib.SMTPRecipientsRefused):
        changes["status"] = FAILED
    else:
        delay = min(config.mail_retry_seconds * 2 ** (attempts - 1), 3600)
        changes["next_attempt_at"] = now + timedelta(seconds=delay)
        delivery = Delivery("retry", delay)
    conn.execute(_UPDATE_OUTBOX, {"outbox_id": outbox_id, **changes})
    conn.commit()
    return delivery


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


def _secret() -> str:
    from flask import current_app

    secret: str = current_app.config["SECRET_KEY"]
    return secret
