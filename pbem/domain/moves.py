"""Moves: a player's submission, checked and stored; then applied by a worker under the game's
row lock, with the emails it calls for.

Submitting and applying is the service's hot path (one of each per move, at hundreds of moves a
second): both run a few Core statements on one connection instead of loading and flushing ORM
objects, which cost several times more CPU than the statements themselves.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Protocol

from sqlalchemy import Connection, bindparam, func, insert, or_, select, update
from sqlalchemy.exc import IntegrityError

from pbem import games, links
from pbem.config import Settings
from pbem.domain import clocks, letters, outcomes, turns, when
from pbem.domain.access import check_claims
from pbem.domain.errors import (
    GameNotStarted,
    GameOver,
    MoveRefused,
    NotFound,
    NotYourTurn,
    OutOfTime,
    ServiceError,
    StalePly,
)
from pbem.domain.names import display_names
from pbem.domain.outbox import Letter, write_letters
from pbem.domain.views import (
    RECENT_MOVES,
    SEAT_INFO,
    GameFacts,
    SeatInfo,
    move_number,
    said,
    seat_names,
)
from pbem.extensions import db
from pbem.models import (
    APPLIED,
    CANCELLED,
    FINISHED,
    INVITING,
    PENDING,
    REJECTED,
    RUNNING,
    Game,
    Move,
    OutboxMessage,
    Player,
    Seat,
    Submission,
    utcnow,
)

log = logging.getLogger(__name__)

UPDATE_GAME = update(Game).where(Game.id == bindparam("game_id"))
# What applying a move, or anything else that changes a running game, reads of it under its
# lock: the GameFacts columns, the clock and the turn on it.
PLAYING_COLUMNS = (
    Game.id,
    Game.engine,
    Game.state,
    Game.ply,
    Game.to_move,
    Game.status,
    Game.outcome,
    Game.thread_message_id,
    Game.title,
    Game.clock,
    Game.turn_started_at,
    Game.deadline,
    Game.paused_at,
    Game.reminder_at,
    Game.draw_offered_by,
)

# --- submitting ----------------------------------------------------------------------------------

_SUBMIT_READ = (
    select(
        Seat.player_id,
        Seat.nonce,
        Seat.autopilot_since,
        Player.bot,
        Game.engine,
        Game.state,
        Game.ply,
        Game.to_move,
        Game.status,
        Game.outcome,
        Game.deadline,
        Game.paused_at,
    )
    .join(Game, Game.id == Seat.game_id)
    .join(Player, Player.id == Seat.player_id)
    .where(Seat.game_id == bindparam("game_id"), Seat.seat == bindparam("seat"))
)
_INSERT_SUBMISSION = insert(Submission).returning(Submission.id)

ON_AUTOPILOT = (
    "Your seat is on autopilot: pbem's bot plays it for you. Take it back first (on the game "
    "page or your games page), then make your move."
)
TAKEN_BACK = "The seat is played by its player again: the bot's move is not wanted."


def submit_move(seat: links.SeatKey, move: str, ply: int, by_bot: bool = False) -> int:
    """Check a move against the game as it stands and store it as a pending submission.

    The checks, in order: the token's claims against the seat (a rotated link is refused), who
    plays the seat (its player, or `by_bot` the bot that plays it: a seat on autopilot takes no
    move from its player, and one taken back none from the bot), the game running, the seat to
    move, the ply current, the engine accepting the move. Returns the
    submission's id. The worker checks again under the game's row lock, because another move may
    land between this commit and the task.

    The read and the insert each commit on their own (autocommit): nothing here needs them in
    one transaction, since the worker decides under the lock, and it saves the BEGIN and COMMIT
    round trips. The insert is durable when it returns.
    """
    move = move.strip()
    with db.engine.connect() as conn:
        autocommit = conn.execution_options(isolation_level="AUTOCOMMIT")
        return _submit(autocommit, seat, move, ply, by_bot)


def _submit(conn: Connection, seat: links.SeatKey, move: str, ply: int, by_bot: bool) -> int:
    game = conn.execute(_SUBMIT_READ, {"game_id": seat.game_id, "seat": seat.seat}).one_or_none()
    if isinstance(seat, links.LinkClaims):
        check_claims(seat, game)
    elif game is None:
        raise NotFound("There is no such seat.")
    assert game is not None
    # A game that is over says so, and how it ended, before anything about the seat or ply.
    if game.status in (FINISHED, CANCELLED):
        raise game_over(conn, seat.game_id, game)
    bot_plays = game.bot is not None or game.autopilot_since is not None
    if bot_plays != by_bot:
        raise NotYourTurn(TAKEN_BACK if by_bot else ON_AUTOPILOT)
    try:
        check_turn(game, seat.seat, ply)
    except (NotYourTurn, StalePly):
        # Whatever ply it sent: reloading the page will not give a seat that left a turn.
        if seat.seat in games.get(game.engine).from_json(game.state).dropped:
            raise NotYourTurn(LEFT_THE_GAME) from None
        raise
    # Time is judged here, when the move is stored, not when a worker gets to it.
    now = utcnow()
    if not clocks.in_time(game.deadline, game.paused_at or now):
        raise OutOfTime(
            "Your time for this move ran out at "
            f"{when.in_words(game.deadline)}: the game is being settled as a timeout. "
            "Open the game page to see how it ended."
        )
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
            "created_at": now,
        },
    ).scalar_one()
    return submission_id


class TurnFacts(Protocol):
    @property
    def status(self) -> str: ...

    @property
    def ply(self) -> int: ...

    @property
    def to_move(self) -> int | None: ...

    @property
    def outcome(self) -> dict[str, Any] | None: ...


# To a seat that resigned, or ran out of time, in a game of three or more that went on.
LEFT_THE_GAME = "You have left this game (resigned or out of time): the others play on without you."

_GAME_OVER = {
    outcomes.TIMEOUT: "The game is over: it was lost on time before this move was played.",
    outcomes.RESIGNATION: "The game is over: a player resigned before this move was played.",
    outcomes.DRAW_AGREED: "The game is over: it was drawn by agreement before this move.",
}


class EndedGame(Protocol):
    @property
    def engine(self) -> str: ...

    @property
    def state(self) -> dict[str, Any] | None: ...

    @property
    def status(self) -> str: ...

    @property
    def outcome(self) -> dict[str, Any] | None: ...


_PLAYER_NAMES = (
    select(Player.name)
    .join(Seat, Seat.player_id == Player.id)
    .where(Seat.game_id == bindparam("game_id"))
    .order_by(Seat.seat)
)


def game_over(conn: Connection, game_id: str, game: EndedGame) -> GameOver:
    """The refusal of a move, a draw offer or a resignation in a game that is over, saying how
    it ended in the players' names (a refusal's extra read, never the hot path's)."""
    sentence = outcomes.sentence(game.outcome)
    if sentence is None and game.state is not None:
        sentence = games.get(game.engine).from_json(game.state).describe_outcome()
    names = display_names(
        game.engine, list(conn.execute(_PLAYER_NAMES, {"game_id": game_id}).scalars())
    )
    how = f" {games.fill_names(sentence, names)}." if sentence else ""
    return GameOver(
        f"The game is over.{how} It takes no more moves, draw offers or resignations: open the "
        "game page to see the final position and the result."
    )


def check_turn(game: TurnFacts, seat: int, ply: int) -> None:
    """Refuse a move when the game is not running, the ply is stale or it is not `seat`'s turn."""
    if game.status == INVITING:
        raise GameNotStarted(
            "The game has not started yet: it starts when every invited player has accepted."
        )
    if game.status == CANCELLED:
        raise GameOver("The game was cancelled; no moves can be made.")
    if game.status != RUNNING:
        reason = str((game.outcome or {}).get("reason"))
        raise GameOver(_GAME_OVER.get(reason, "The game is over; no more moves can be made."))
    if ply != game.ply:
        raise StalePly(
            f"This move was for move {move_number(ply)}; the game is at move "
            f"{move_number(game.ply)}. Reload the game page to see the board as it is now."
        )
    if game.to_move != seat:
        raise NotYourTurn(
            "It is not your turn: wait for the email telling you it is, then use its link."
        )


# --- applying ------------------------------------------------------------------------------------

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
        Submission.created_at.label("submitted_at"),
        *PLAYING_COLUMNS,
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
# Each seat with its address, the last message that address got in the game (to thread after),
# and what the clock needs of it: its Fischer bank and whether its player is away.
SEATS_OF_GAMES = (
    select(
        *SEAT_INFO,
        Seat.bank_seconds,
        Seat.state.label("seat_state"),
        Player.vacation_since,
        Player.vacation_until,
        _LAST_MESSAGE_ID.label("last_message_id"),
    )
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
        Move.words,
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
        _NUMBERED_MOVES.c.words,
    )
    .where(_NUMBERED_MOVES.c.newest < RECENT_MOVES)
    .order_by(_NUMBERED_MOVES.c.game_id, _NUMBERED_MOVES.c.ply)
)
_INSERT_MOVE = insert(Move)
_DECIDE_SUBMISSION = update(Submission).where(Submission.id == bindparam("submission_id"))
# Executed with `bank_seconds` as the parameter of the SET clause.
_SET_BANK = update(Seat).where(
    Seat.game_id == bindparam("bank_game_id"), Seat.seat == bindparam("bank_seat")
)


@dataclass
class _Playing(GameFacts):
    """A locked game as this batch has left it so far."""

    snapshot: dict[str, Any] = field(default_factory=dict)
    state: games.State | None = None
    changed: bool = False
    clock: clocks.Clock = clocks.NO_CLOCK
    turn: turns.TurnClock = turns.NO_TURN
    draw_offered_by: int | None = None

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
    words: str  # the engine's sentence for it, seats as placeholders (Move.words)
    after: games.State
    submitted_at: datetime
    turn: turns.TurnClock  # the turn this move was made in

    @property
    def ends_turn(self) -> bool:
        """Whether a new turn begins (or the game ended): the clock and the mail move on."""
        if self.after.outcome is not None:
            return True
        to_move = self.after.to_move
        return to_move is not None and not (to_move == self.seat and self.after.mid_turn)


@dataclass(frozen=True)
class SeatClock:
    """What starting a turn needs of a seat besides its address."""

    bank_seconds: float | None
    away_until: datetime | None  # the player's vacation end, while they are away
    played_by: str | None = None  # the bot that plays the seat now: its turns are not timed


@dataclass(frozen=True)
class Applied:
    """What applying a batch calls for next: the emails to send, and the games whose turn passed
    to a seat a bot plays (pbem.domain.bot_turns), for the bot worker."""

    outbox_ids: list[int] = field(default_factory=list)
    bot_games: list[str] = field(default_factory=list)

    def __add__(self, other: Applied) -> Applied:
        return Applied(self.outbox_ids + other.outbox_ids, self.bot_games + other.bot_games)


def apply_moves(config: Settings, submission_ids: Sequence[int]) -> list[int]:
    """`apply_submissions`, for callers that have no bot to tell: the outbox ids to send."""
    return apply_submissions(config, submission_ids).outbox_ids


def apply_submissions(config: Settings, submission_ids: Sequence[int]) -> Applied:
    """Play pending submissions under their games' row locks, all in one transaction.

    For each: append the move, store the new snapshot and the next turn's clock, and write the
    outbox rows, or mark the submission rejected. Submissions of one game are decided in the
    order they arrived, so of two for the same ply the first is played and the second rejected.
    Returns the outbox ids to send and the games a bot moves in next. Running it again for the
    same ids changes nothing. A worker takes a batch at a time: the reads and writes of a batch
    cost a handful of statements and one commit, whatever its size.
    """
    if not submission_ids:
        return Applied()
    try:
        return _apply_batch(config, sorted(set(submission_ids)))
    except IntegrityError:
        # Only reachable without row locks (SQLite): the unique ply refused a second move.
        db.session.rollback()
        if len(submission_ids) > 1:
            return sum(
                (apply_submissions(config, [one]) for one in submission_ids), start=Applied()
            )
        reason = "Another move was made for this turn first."
        db.session.connection().execute(_DECIDE_SUBMISSION, [_rejection(submission_ids[0], reason)])
        db.session.commit()
        return Applied()


def _late(row: Any, turn: turns.TurnClock) -> bool:
    """Stored after its turn's deadline (a paused turn has none running)."""
    return turn.paused_at is None and not clocks.in_time(turn.deadline, row.submitted_at)


def _apply_batch(config: Settings, submission_ids: list[int]) -> Applied:
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
                row.outcome,
                row.state,
                clock=turns.game_clock(row.clock),
                turn=turns.TurnClock.of(row),
                draw_offered_by=row.draw_offered_by,
                title=row.title,
            ),
        )
        seat = row.submission_seat
        try:
            try:
                check_turn(game, seat, row.submission_ply)
            except NotYourTurn:
                # Stored before its player resigned (or ran out of time) in a game that goes on.
                if seat in game.current().dropped:
                    raise NotYourTurn(LEFT_THE_GAME) from None
                raise
            if _late(row, game.turn):
                raise OutOfTime("This move was stored after the turn's deadline.")
            # The sentence comes with the play: Move.words is stored without playing it twice.
            after, words = game.current().play_described(row.move)
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
        outcome = after.outcome
        facts = GameFacts(
            game.id,
            game.engine,
            RUNNING if outcome is None else FINISHED,
            game.ply + 1,
            after.to_move,
            game.thread_message_id,
            outcome.to_json() if outcome is not None else None,
            title=game.title,
        )
        played.append(
            _Played(
                row.submission_id,
                facts,
                seat,
                game.ply,
                move,
                words,
                after,
                row.submitted_at,
                game.turn,
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
        game.ply, game.to_move, game.status = facts.ply, facts.to_move, facts.status
        game.outcome = facts.outcome
        if seat != game.draw_offered_by or outcome is not None:
            # A draw offer lapses at the other player's next move.
            game.draw_offered_by = None
        if outcome is not None:
            game.turn = turns.NO_TURN

    applied = Applied()
    if played:
        applied = _next_turns_and_letters(conn, config, played, playing, now)
        conn.execute(
            _INSERT_MOVE,
            [
                {
                    "game_id": p.game.id,
                    "ply": p.ply,
                    "seat": p.seat,
                    "move": p.move,
                    "words": p.words,
                    "submission_id": p.submission_id,
                    "created_at": now,
                }
                for p in played
            ],
        )
        conn.execute(UPDATE_GAME, [_game_changes(g, now) for g in playing.values() if g.changed])
    if decided:
        conn.execute(_DECIDE_SUBMISSION, decided)
    db.session.commit()
    return applied


def _game_changes(game: _Playing, now: Any) -> dict[str, Any]:
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
        "draw_offered_by": game.draw_offered_by,
        **game.turn.columns(),
    }


def _rejection(submission_id: int, reason: str) -> dict[str, Any]:
    return {
        "submission_id": submission_id,
        "status": REJECTED,
        "error": reason,
        "applied_at": utcnow(),
    }


def read_seats(
    conn: Connection, game_ids: Sequence[str]
) -> tuple[dict[str, list[SeatInfo]], dict[str, list[SeatClock]], dict[str, dict[str, str]]]:
    """The seats of these games (by game, in seat order), what their clocks need, and the last
    message each address got in each game."""
    seats: dict[str, list[SeatInfo]] = {}
    seat_clocks: dict[str, list[SeatClock]] = {}
    previous: dict[str, dict[str, str]] = {}
    for row in conn.execute(SEATS_OF_GAMES, {"game_ids": list(game_ids)}):
        info = SeatInfo.of_row(row)
        seats.setdefault(row.game_id, []).append(info)
        away = row.vacation_until if row.vacation_since is not None else None
        seat_clocks.setdefault(row.game_id, []).append(
            SeatClock(row.bank_seconds, away, info.played_by)
        )
        if row.last_message_id:
            previous.setdefault(row.game_id, {})[row.email] = row.last_message_id
    return seats, seat_clocks, previous


def new_turn(
    config: Settings, clock: clocks.Clock, seat: SeatClock, at: datetime
) -> turns.TurnClock:
    """The clock of a turn starting at `at` for `seat`. A bot's turn is not timed: it moves
    within its budget (PBEM_BOT_SECONDS), and a bot worker that is down must not lose a game on
    time; the sweep hands such a turn to a bot again."""
    if seat.played_by is not None:
        return turns.TurnClock(at)
    hours = config.clocks.reminder_hours
    return turns.start_turn(clock, at, seat.bank_seconds, seat.away_until is not None, hours)


def move_by(clock: clocks.Clock, turn: turns.TurnClock, seat: SeatClock, now: datetime) -> Any:
    """The deadline a turn's email gives: while its player is away, the one from their return."""
    return turns.shown_deadline(clock, turn, now, seat.away_until)


def _next_turns_and_letters(
    conn: Connection,
    config: Settings,
    played: list[_Played],
    playing: dict[str, _Playing],
    now: datetime,
) -> Applied:
    """Each game's next turn on the clock (and the mover's Fischer bank), and the emails the
    moves call for: the next player's turn, or everyone's result; and the games where a bot
    plays the seat to move now."""
    tell = [p for p in played if p.ends_turn]
    # A bot that has made the first action of its turn makes the next one too.
    going_on = {p.game.id: p.seat for p in played if not p.ends_turn}
    continuing = _bot_movers(conn, going_on) if going_on else []
    if not tell:
        return Applied(bot_games=continuing)
    game_ids = sorted({p.game.id for p in tell})
    seats, seat_clocks, previous = read_seats(conn, game_ids)
    recent: dict[str, list[tuple[int, int, str, str | None]]] = {}
    for game_id, ply, seat, move, words in conn.execute(_RECENT_OF_GAMES, {"game_ids": game_ids}):
        recent.setdefault(game_id, []).append((ply, seat, move, words))
    banks: list[dict[str, Any]] = []
    written: list[Letter] = []
    bot_games: list[str] = []
    for p in played:
        # Every move of the batch joins its game's list, the first action of a turn too.
        moves = recent.setdefault(p.game.id, [])
        moves.append((p.ply, p.seat, p.move, p.words))
        if not p.ends_turn:
            continue
        game = playing[p.game.id]
        game_seats, game_clocks = seats[p.game.id], seat_clocks[p.game.id]
        # A bot's turn had no deadline: its seat's bank stays as it was.
        if game.clock.kind == "fischer" and p.after.outcome is None and p.turn.deadline:
            bank = _bank_after(game.clock, p)
            banks.append({"bank_game_id": game.id, "bank_seat": p.seat, "bank_seconds": bank})
            mover = game_clocks[p.seat]
            game_clocks[p.seat] = SeatClock(bank, mover.away_until, mover.played_by)
        who = seat_names(p.game, game_seats)
        shown: list[tuple[int, str, str]] = [
            said(ply, seat, move, words, who) for ply, seat, move, words in moves[-RECENT_MOVES:]
        ]
        if p.after.outcome is not None:
            written += letters.results(config, p.game, game_seats, p.after, who, shown)
            continue
        to_move = p.after.to_move
        assert to_move is not None
        game.turn = new_turn(config, game.clock, game_clocks[to_move], now)
        if game_clocks[to_move].played_by is not None:
            bot_games.append(game.id)
        deadline = move_by(game.clock, game.turn, game_clocks[to_move], now)
        again = to_move == p.seat
        written.append(
            letters.turn(
                config,
                p.game,
                game_seats[to_move],
                p.after,
                who,
                shown,
                again,
                deadline=deadline,
                away_until=game_clocks[to_move].away_until,
            )
        )
    if banks:
        conn.execute(_SET_BANK, banks)
    return Applied(write_letters(conn, config, written, previous), bot_games + continuing)


_BOT_SEATS = (
    select(Seat.game_id, Seat.seat)
    .join(Player, Player.id == Seat.player_id)
    .where(
        Seat.game_id.in_(bindparam("game_ids", expanding=True)),
        or_(Player.bot.is_not(None), Seat.autopilot_since.is_not(None)),
    )
)


def _bot_movers(conn: Connection, movers: dict[str, int]) -> list[str]:
    """Those of these games (game -> seat still to move) whose seat to move a bot plays."""
    rows = conn.execute(_BOT_SEATS, {"game_ids": sorted(movers)})
    return sorted({row.game_id for row in rows if movers[row.game_id] == row.seat})


def _bank_after(clock: clocks.Clock, p: _Played) -> float | None:
    """The mover's Fischer bank after the move that ended their turn: the time a paused turn
    spent paused does not count."""
    deadline = p.turn.deadline
    if p.turn.paused_at is not None:
        deadline = clocks.resumed(clock, deadline, p.turn.paused_at, p.submitted_at)
    return clocks.after_move(clock, deadline, p.submitted_at)
