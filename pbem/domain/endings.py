"""Games that end, or lose a player, other than by a move: resignations, draws agreed,
timeouts, cancellations.

Each is a game event (`game_events`), recorded with the game, not a move: the moves stay a
valid replay. Each takes the game's row lock, as applying a move does, so of a move, a
resignation and a timeout of the same turn whichever commits first wins and the others are
refused (`GameOver`, `Conflict`) with a message that says what happened.

Two-player games end at once: the player out of time or resigning loses. In a game of three or
four, the game's timeout policy decides a timeout (`drop`: the seat takes no more turns, ranks
last and play goes on, `pbem.games.State.drop`; `autopilot`: pbem's greedy bot plays the seat
from then on, until its player takes it back, `pbem.domain.autopilot`); a resignation always
drops the seat.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, cast

from sqlalchemy import Connection, bindparam, exists, insert, select, update

from pbem import games, i18n, links
from pbem.config import Settings
from pbem.domain import bot_seats, letters, outcomes, turns
from pbem.domain.access import check_claims
from pbem.domain.errors import (
    Conflict,
    GameNotStarted,
    GameOver,
    NotFound,
    ServiceError,
)
from pbem.domain.outbox import Letter, write_letters
from pbem.domain.submitting import game_over
from pbem.domain.turn_ending import PLAYING_COLUMNS, UPDATE_GAME, move_by, new_turn, read_seats
from pbem.domain.views import GameFacts, recent_moves, seat_names
from pbem.extensions import db
from pbem.games.base import display_name
from pbem.models import (
    ACTIVE,
    AUTOPILOT,
    CANCELLED,
    DROP,
    DROPPED,
    FINISHED,
    INVITING,
    PENDING,
    RESIGNED,
    RUNNING,
    Game,
    GameEvent,
    Move,
    Seat,
    Submission,
    utcnow,
)

# Event kinds.
TIMED_OUT = "timeout"
RESIGNED_EVENT = "resigned"
DRAW_OFFERED = "draw_offered"
DRAW_DECLINED = "draw_declined"
DRAW_AGREED_EVENT = "draw_agreed"
CANCELLED_EVENT = "cancelled"
INVITATION_EXPIRED = "invitation_expired"
REINVITED = "reinvited"
# Events after which the engine's state no longer follows from the moves alone: a replay
# drops the seat at the event's ply (`detail["dropped"]`).
LEAVING = (TIMED_OUT, RESIGNED_EVENT)


class Refused(ServiceError):
    code = "refused"
    status = 409


GAME_COLUMNS = (*PLAYING_COLUMNS, Game.timeout_policy, Game.organiser_id, Game.confirmed_at)
_LOCK_GAME = select(*GAME_COLUMNS).where(Game.id == bindparam("game_id")).with_for_update()
_SEAT_STATES = (
    select(Seat.seat, Seat.state, Seat.player_id, Seat.nonce, Seat.accepted_at)
    .where(Seat.game_id == bindparam("game_id"))
    .order_by(Seat.seat)
)
_INSERT_EVENT = insert(GameEvent)
# Executed with `state` as the parameter of the SET clause.
_SET_SEAT_STATE = update(Seat).where(
    Seat.game_id == bindparam("seat_game_id"), Seat.seat == bindparam("seat_index")
)
_ANY_MOVE = select(exists().where(Move.game_id == bindparam("game_id")))
_PENDING_IN_TIME = select(
    exists().where(
        Submission.game_id == bindparam("game_id"),
        Submission.ply == bindparam("ply"),
        Submission.seat == bindparam("seat"),
        Submission.status == PENDING,
        Submission.created_at < bindparam("deadline"),
    )
)


@dataclass
class Locked:
    """A game under its row lock, with its seats' states."""

    row: Any
    seat_states: list[str]
    seat_players: list[int]

    @property
    def facts(self) -> GameFacts:
        return GameFacts.of(self.row)

    @property
    def players(self) -> int:
        return len(self.seat_states)

    def state(self) -> games.State:
        return games.get(self.row.engine).from_json(self.row.state)


def lock(conn: Connection, game_id: str, seat: links.SeatKey | None = None) -> Locked:
    """The game row locked, its seats read under the lock; the seat's claims checked."""
    row = conn.execute(_LOCK_GAME, {"game_id": game_id}).one_or_none()
    seats = conn.execute(_SEAT_STATES, {"game_id": game_id}).all() if row else []
    if row is None:
        raise NotFound(i18n.gettext("There is no such game."))
    if seat is not None:
        mine = next((s for s in seats if s.seat == seat.seat), None)
        if isinstance(seat, links.LinkClaims):
            check_claims(seat, mine)
        elif mine is None or mine.player_id != seat.player_id:
            raise NotFound(i18n.gettext("There is no such seat."))
    return Locked(row, [s.state for s in seats], [s.player_id for s in seats])


def locked_row(conn: Connection, row: Any) -> Locked:
    """A game row the caller has locked already (the clock task's SKIP LOCKED), with its
    seats."""
    seats = conn.execute(_SEAT_STATES, {"game_id": row.id}).all()
    return Locked(row, [s.state for s in seats], [s.player_id for s in seats])


def check_running(game: Locked, seat: int | None = None) -> None:
    row = game.row
    if row.status == INVITING:
        raise GameNotStarted(
            i18n.gettext("The game has not started yet: nobody has moved, nothing to end.")
        )
    if row.status != RUNNING:
        raise game_over(db.session.connection(), row.id, row)
    if seat is not None and game.seat_states[seat] != ACTIVE:
        raise Refused(
            i18n.gettext("You have left this game already; the others play on without you.")
        )


def check_in_time(game: Locked, seat: int, now: datetime) -> None:
    """OutOfTime when it is `seat`'s turn and its time has run out: nothing it does then may
    end the game other than as a timeout (a draw, a cancellation)."""
    turn = turns.TurnClock.of(game.row)
    if game.row.to_move == seat and turns.late(turn, now):
        assert turn.deadline is not None
        raise turns.out_of_time(turn.deadline)


def record_event(
    conn: Connection,
    game: Locked,
    kind: str,
    seat: int | None,
    now: datetime,
    detail: dict[str, Any] | None = None,
) -> None:
    conn.execute(
        _INSERT_EVENT,
        {
            "game_id": game.row.id,
            "ply": game.row.ply,
            "seat": seat,
            "kind": kind,
            "detail": detail,
            "created_at": now,
        },
    )


# --- ending a game -------------------------------------------------------------------------------


def _finish(
    conn: Connection,
    config: Settings,
    game: Locked,
    state: games.State,
    outcome: games.Outcome,
    now: datetime,
) -> list[Letter]:
    """Store the game as finished with `outcome` (and `state`, when a drop changed it); the
    result letters to every seat."""
    outcome_json = dict(outcome.to_json())
    conn.execute(
        UPDATE_GAME,
        {
            "game_id": game.row.id,
            "state": state.to_json(),
            "to_move": None,
            "status": FINISHED,
            "outcome": outcome_json,
            "finished_at": now,
            "draw_offered_by": None,
            **turns.NO_TURN.columns(),
        },
    )
    facts = game.facts
    facts.status, facts.to_move, facts.outcome = FINISHED, None, outcome_json
    seats, _, _ = read_seats(conn, [game.row.id])
    infos = seats[game.row.id]
    who = seat_names(game.facts, infos)
    recent = recent_moves(conn, game.row.id, who)
    return letters.results(config, facts, infos, state, who, recent, outcome)


def _service_outcome(game: Locked, reason: str, seat: int | None) -> games.Outcome:
    state = game.state()
    data = outcomes.ended_by(reason, seat, game.players, state.scores())
    return games.Outcome.from_json(data)


def _leave(
    conn: Connection,
    config: Settings,
    game: Locked,
    seat: int,
    seat_state: str,
    kind: str,
    now: datetime,
) -> list[Letter]:
    """Drop `seat` from a game of three or more; play goes on among the others, or ends when
    one is left. Everyone is told; the next player, when the turn passed, by their turn email."""
    before = game.state()
    after = before.drop(seat)
    record_event(conn, game, kind, seat, now, {"dropped": True})
    conn.execute(
        _SET_SEAT_STATE, {"seat_game_id": game.row.id, "seat_index": seat, "state": seat_state}
    )
    if after.outcome is not None:
        return _finish(conn, config, game, after, after.outcome, now)
    seats, seat_clocks, _ = read_seats(conn, [game.row.id])
    infos, clocks_of = seats[game.row.id], seat_clocks[game.row.id]
    clock = turns.game_clock(game.row.clock)
    turn = turns.TurnClock.of(game.row)
    to_move = after.to_move
    passed = to_move != game.row.to_move or (before.mid_turn and not after.mid_turn)
    if passed and to_move is not None:
        turn = new_turn(config, clock, clocks_of[to_move], now)
    conn.execute(
        UPDATE_GAME,
        {
            "game_id": game.row.id,
            "state": after.to_json(),
            "to_move": to_move,
            **turn.columns(),
        },
    )
    facts = game.facts
    facts.to_move = to_move
    who = seat_names(game.facts, infos)
    news = _left_words(who, seat, kind)
    recent = recent_moves(conn, game.row.id, who)
    written = [
        letters.left(config, facts, info, after, who, seat, kind, recent)
        for info in infos
        if not (passed and info.seat == to_move)
    ]
    if passed and to_move is not None:
        written.append(
            letters.turn(
                config,
                facts,
                infos[to_move],
                after,
                who,
                recent,
                deadline=move_by(clock, turn, clocks_of[to_move], now),
                away_until=clocks_of[to_move].away_until,
                news=news,
            )
        )
    return written


def _left_words(who: Sequence[str], seat: int, kind: str) -> str:
    """What the next player's turn email says first. Lazy: the letter is rendered in its
    reader's language, not in the language of whoever resigned."""
    name = display_name(who, seat) or i18n.lazy_gettext("A player")
    if kind == TIMED_OUT:
        words = i18n.lazy_gettext("%(name)s ran out of time and has left the game.", name=name)
    else:
        words = i18n.lazy_gettext("%(name)s resigned and has left the game.", name=name)
    # A str wherever it is shown (the template makes it one).
    return cast(str, words)


def _previous(conn: Connection, game_id: str) -> dict[str, dict[str, str]]:
    _, _, previous = read_seats(conn, [game_id])
    return previous


def commit_letters(
    conn: Connection, config: Settings, game_id: str, written: list[Letter]
) -> list[int]:
    outbox_ids = write_letters(conn, config, written, _previous(conn, game_id))
    db.session.commit()
    return outbox_ids


# --- resigning -----------------------------------------------------------------------------------


def resign(config: Settings, seat: links.SeatKey, now: datetime | None = None) -> list[int]:
    """Resign, at any ply: a two-player game is lost; in a larger game the seat leaves and the
    others play on. Returns the outbox ids to send."""
    now = now or utcnow()
    conn = db.session.connection()
    try:
        game = lock(conn, seat.game_id, seat)
        check_running(game, seat.seat)
    except (ServiceError, links.LinkError):
        db.session.rollback()
        raise
    if game.players == 2:
        record_event(conn, game, RESIGNED_EVENT, seat.seat, now)
        conn.execute(
            _SET_SEAT_STATE,
            {"seat_game_id": game.row.id, "seat_index": seat.seat, "state": RESIGNED},
        )
        outcome = _service_outcome(game, outcomes.RESIGNATION, seat.seat)
        written = _finish(conn, config, game, game.state(), outcome, now)
    else:
        written = _leave(conn, config, game, seat.seat, RESIGNED, RESIGNED_EVENT, now)
    return commit_letters(conn, config, game.row.id, written)


# --- draws ---------------------------------------------------------------------------------------


def offer_draw(config: Settings, seat: links.SeatKey, now: datetime | None = None) -> list[int]:
    """Offer a draw (two-player games); the opponent accepts or declines, or lets it lapse by
    moving. Offering when the opponent's offer stands accepts it."""
    now = now or utcnow()
    conn = db.session.connection()
    try:
        game = lock(conn, seat.game_id, seat)
        check_running(game, seat.seat)
        if game.players != 2:
            raise Refused(i18n.gettext("Draws are offered in two-player games only."))
        if game.row.draw_offered_by == seat.seat:
            raise Refused(
                i18n.gettext("Your draw offer stands already: your opponent has not answered yet.")
            )
        check_in_time(game, seat.seat, now)
    except (ServiceError, links.LinkError):
        db.session.rollback()
        raise
    if game.row.draw_offered_by is not None:
        return _agree(conn, config, game, seat.seat, now)
    record_event(conn, game, DRAW_OFFERED, seat.seat, now)
    conn.execute(UPDATE_GAME, {"game_id": game.row.id, "draw_offered_by": seat.seat})
    other = 1 - seat.seat
    seats, _, _ = read_seats(conn, [game.row.id])
    infos = seats[game.row.id]
    who = seat_names(game.facts, infos)
    written = [letters.draw(config, game.facts, infos[other], who, seat.seat, "draw_offer")]
    return commit_letters(conn, config, game.row.id, written)


def answer_draw(
    config: Settings, seat: links.SeatKey, accept: bool, now: datetime | None = None
) -> list[int]:
    """Accept or decline the opponent's standing draw offer."""
    now = now or utcnow()
    conn = db.session.connection()
    try:
        game = lock(conn, seat.game_id, seat)
        check_running(game, seat.seat)
        offered_by = game.row.draw_offered_by
        if offered_by is None or offered_by == seat.seat:
            raise Conflict(
                i18n.gettext(
                    "There is no draw offer to answer: it was withdrawn by a move, or answered "
                    "already. Reload the game page."
                )
            )
        if accept:
            check_in_time(game, seat.seat, now)
    except (ServiceError, links.LinkError):
        db.session.rollback()
        raise
    if accept:
        return _agree(conn, config, game, seat.seat, now)
    record_event(conn, game, DRAW_DECLINED, seat.seat, now)
    conn.execute(UPDATE_GAME, {"game_id": game.row.id, "draw_offered_by": None})
    seats, _, _ = read_seats(conn, [game.row.id])
    infos = seats[game.row.id]
    who = seat_names(game.facts, infos)
    written = [letters.draw(config, game.facts, infos[offered_by], who, seat.seat, "draw_declined")]
    return commit_letters(conn, config, game.row.id, written)


def _agree(conn: Connection, config: Settings, game: Locked, seat: int, now: datetime) -> list[int]:
    record_event(conn, game, DRAW_AGREED_EVENT, seat, now)
    outcome = _service_outcome(game, outcomes.DRAW_AGREED, None)
    written = _finish(conn, config, game, game.state(), outcome, now)
    return commit_letters(conn, config, game.row.id, written)


# --- timeouts ------------------------------------------------------------------------------------


def time_out(conn: Connection, config: Settings, row: Any, now: datetime) -> list[Letter] | None:
    """Apply the timeout of a game its caller has locked and found past its deadline; None
    when it is not due after all (moved, paused, extended, or a move stored in time waits for
    a worker: that move committed first, so it wins)."""
    if row.status != RUNNING or row.paused_at is not None or row.deadline is None:
        return None
    if row.deadline > now or row.to_move is None:
        return None
    waiting = {"game_id": row.id, "ply": row.ply, "seat": row.to_move, "deadline": row.deadline}
    if conn.execute(_PENDING_IN_TIME, waiting).scalar():
        return None
    game = locked_row(conn, row)
    seat = row.to_move
    if game.players == 2:
        record_event(conn, game, TIMED_OUT, seat, now, {"deadline": row.deadline.isoformat()})
        outcome = _service_outcome(game, outcomes.TIMEOUT, seat)
        return _finish(conn, config, game, game.state(), outcome, now)
    if row.timeout_policy == DROP:
        return _leave(conn, config, game, seat, DROPPED, TIMED_OUT, now)
    if row.timeout_policy == AUTOPILOT:
        return _autopilot(conn, config, game, seat, now)
    # A policy this version does not know (added by a later one): leave the game to it.
    return None


_SET_AUTOPILOT = update(Seat).where(
    Seat.game_id == bindparam("pilot_game_id"), Seat.seat == bindparam("pilot_seat")
)


def _autopilot(
    conn: Connection, config: Settings, game: Locked, seat: int, now: datetime
) -> list[Letter]:
    """A seat out of time under the autopilot policy: the default bot (greedy) plays it from now
    on, this turn first (a bot's turn is not timed); everyone is told, its player how to take it
    back. Its player may switch it to the stronger bot from the game page."""
    kind = bot_seats.AUTOPILOT_DEFAULT
    record_event(conn, game, TIMED_OUT, seat, now, {"autopilot": True, "bot": kind})
    conn.execute(
        _SET_AUTOPILOT,
        {
            "pilot_game_id": game.row.id,
            "pilot_seat": seat,
            "autopilot_since": now,
            "autopilot_bot": kind,
        },
    )
    seats, seat_clocks, _ = read_seats(conn, [game.row.id])
    infos, clocks_of = seats[game.row.id], seat_clocks[game.row.id]
    turn = new_turn(config, turns.game_clock(game.row.clock), clocks_of[seat], now)
    conn.execute(UPDATE_GAME, {"game_id": game.row.id, **turn.columns()})
    who = seat_names(game.facts, infos)
    state = game.state()
    recent = recent_moves(conn, game.row.id, who)
    return [
        letters.autopilot(config, game.facts, info, state, who, seat, recent, kind)
        for info in infos
    ]


# --- cancelling ----------------------------------------------------------------------------------


def cancel(config: Settings, seat: links.SeatKey, now: datetime | None = None) -> list[int]:
    """The organiser cancels a game that has not started; everyone invited is told. A started
    game is cancelled by every player's agreement (`pbem.domain.cancelling`)."""
    now = now or utcnow()
    conn = db.session.connection()
    try:
        game = lock(conn, seat.game_id, seat)
        row = game.row
        if row.organiser_id is None or row.organiser_id != seat.player_id:
            raise Refused(i18n.gettext("Only the player who started the game can cancel it."))
        if game.seat_states[seat.seat] != ACTIVE:
            raise Refused(i18n.gettext("You have left this game; the others play on without you."))
        if row.status not in (INVITING, RUNNING):
            raise GameOver(i18n.gettext("The game is over already; there is nothing to cancel."))
        if row.status == RUNNING:
            # Every seat has seen its hand: no one player may undo a deal they do not like.
            raise Refused(
                i18n.gettext(
                    "The game has started: it is cancelled only if every player agrees. Propose "
                    "it on the game page."
                )
            )
        if conn.execute(_ANY_MOVE, {"game_id": row.id}).scalar():
            raise Refused(
                i18n.gettext(
                    "A move has been made: the game can no longer be cancelled. You may resign."
                )
            )
    except (ServiceError, links.LinkError):
        db.session.rollback()
        raise
    written = cancel_locked(conn, config, game, seat.seat, now, by_organiser=True)
    return commit_letters(conn, config, row.id, written)


def cancel_locked(
    conn: Connection,
    config: Settings,
    game: Locked,
    seat: int | None,
    now: datetime,
    by_organiser: bool,
    agreed: bool = False,
) -> list[Letter]:
    """Cancel a locked game (by its organiser, by every player's agreement, or by pbem); the
    letters telling everyone it reached (not an organiser's unconfirmed game's strangers: they
    were never invited)."""
    by = "players" if agreed else "organiser" if by_organiser else "pbem"
    record_event(conn, game, CANCELLED_EVENT, seat, now, {"by": by})
    outcome = outcomes.ended_by(outcomes.CANCELLED, None, game.players, [0] * game.players)
    conn.execute(
        UPDATE_GAME,
        {
            "game_id": game.row.id,
            "status": CANCELLED,
            "to_move": None,
            "outcome": outcome,
            "finished_at": now,
            "draw_offered_by": None,
            **turns.NO_TURN.columns(),
        },
    )
    seats, _, _ = read_seats(conn, [game.row.id])
    infos = seats[game.row.id]
    who = seat_names(game.facts, infos)
    facts = game.facts
    facts.status, facts.to_move, facts.outcome = CANCELLED, None, outcome
    told = [
        info
        for info in infos
        if game.row.confirmed_at is not None or info.player_id == game.row.organiser_id
    ]
    return [letters.cancelled(config, facts, info, who, by_organiser, agreed) for info in told]
