"""Ending a turn: what follows a move that passed the turn or ended the game, in the same
transaction as the move (`pbem.domain.applying`), and the next turn's clock for the other
paths that pass a turn (a resignation, a timeout, autopilot, the deal).

For each game whose turn a batch of moves ended (`end_turns`):
1. Read its seats once for the batch (addresses, Fischer banks, who is away, the last message
   each address got) and the moves the emails list.
2. Bank the mover's Fischer time, unless the turn was a bot's (it had no deadline).
3. The game over: write everyone's result letter. Otherwise start the next turn's clock
   (`new_turn`: a bot's turn is not timed) and write the next player's turn letter.
4. Store the banks and write the letters to the outbox. The games where a bot now moves,
   or moves again (the second action of its turn), go back to the caller for the bot worker.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Protocol

from sqlalchemy import Connection, bindparam, func, or_, select, update

from pbem import games
from pbem.config import Settings
from pbem.domain import clocks, letters, turns
from pbem.domain.outbox import Letter, write_letters
from pbem.domain.views import (
    GAME_FACTS,
    RECENT_MOVES,
    SEAT_INFO,
    GameFacts,
    SeatInfo,
    said,
    seat_names,
)
from pbem.models import Game, Move, OutboxMessage, Player, Seat

UPDATE_GAME = update(Game).where(Game.id == bindparam("game_id"))
# What applying a move, or anything else that changes a running game, reads of it under its
# lock: the GameFacts columns, the clock and the turn on it.
PLAYING_COLUMNS = (
    *GAME_FACTS,
    Game.state,
    Game.clock,
    Game.turn_started_at,
    Game.deadline,
    Game.paused_at,
    Game.reminder_at,
    Game.draw_offered_by,
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
        Move.autopilot,
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
        _NUMBERED_MOVES.c.autopilot,
    )
    .where(_NUMBERED_MOVES.c.newest < RECENT_MOVES)
    .order_by(_NUMBERED_MOVES.c.game_id, _NUMBERED_MOVES.c.ply)
)
# Executed with `bank_seconds` as the parameter of the SET clause.
_SET_BANK = update(Seat).where(
    Seat.game_id == bindparam("bank_game_id"), Seat.seat == bindparam("bank_seat")
)
_BOT_SEATS = (
    select(Seat.game_id, Seat.seat)
    .join(Player, Player.id == Seat.player_id)
    .where(
        Seat.game_id.in_(bindparam("game_ids", expanding=True)),
        or_(Player.bot.is_not(None), Seat.autopilot_since.is_not(None)),
    )
)


@dataclass(frozen=True)
class Played:
    """A move a batch played, with the game as it left it."""

    submission_id: int
    game: GameFacts
    seat: int
    ply: int
    move: str
    words: str  # the engine's sentence for it, seats as placeholders (Move.words)
    after: games.State
    submitted_at: datetime
    turn: turns.TurnClock  # the turn this move was made in
    autopilot: str | None = None  # the bot that made it for the seat's player (Move.autopilot)

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
class Decided:
    """A submission a batch decided: `result` is "applied", or the refusal's code."""

    submission_id: int
    game_id: str
    seat: int
    ply: int
    result: str


@dataclass
class Applied:
    """What applying a batch calls for next: the emails to send, and the games whose turn passed
    to a seat a bot plays (pbem.domain.bot_turns), for the bot worker; and what it decided, for
    the log."""

    outbox_ids: list[int] = field(default_factory=list)
    bot_games: list[str] = field(default_factory=list)
    decided: list[Decided] = field(default_factory=list)

    def __add__(self, other: Applied) -> Applied:
        return Applied(
            self.outbox_ids + other.outbox_ids,
            self.bot_games + other.bot_games,
            self.decided + other.decided,
        )


class OnTheClock(Protocol):
    """A game whose next turn `end_turns` starts."""

    id: str
    clock: clocks.Clock
    turn: turns.TurnClock


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


Recent = dict[str, list[tuple[int, int, str, str | None, str | None]]]


def end_turns(
    conn: Connection,
    config: Settings,
    played: list[Played],
    playing: Mapping[str, OnTheClock],
    now: datetime,
) -> Applied:
    """Each game's next turn on the clock (and the mover's Fischer bank), and the emails the
    moves call for: the next player's turn, or everyone's result; and the games where a bot
    plays the seat to move now (the module's steps)."""
    tell = [p for p in played if p.ends_turn]
    # A bot that has made the first action of its turn makes the next one too.
    going_on = {p.game.id: p.seat for p in played if not p.ends_turn}
    continuing = _bot_movers(conn, going_on) if going_on else []
    if not tell:
        return Applied(bot_games=continuing)
    game_ids = sorted({p.game.id for p in tell})
    seats, seat_clocks, previous = read_seats(conn, game_ids)
    recent: Recent = {}
    for row in conn.execute(_RECENT_OF_GAMES, {"game_ids": game_ids}):
        recent.setdefault(row.game_id, []).append(
            (row.ply, row.seat, row.move, row.words, row.autopilot)
        )
    banks: list[dict[str, Any]] = []
    written: list[Letter] = []
    bot_games: list[str] = []
    for p in played:
        # Every move of the batch joins its game's list, the first action of a turn too.
        moves = recent.setdefault(p.game.id, [])
        moves.append((p.ply, p.seat, p.move, p.words, p.autopilot))
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
            said(ply, s, move, words, who, pilot)
            for ply, s, move, words, pilot in moves[-RECENT_MOVES:]
        ]
        if p.after.outcome is not None:
            written += letters.results(config, p.game, game_seats, p.after, who, shown)
            continue
        to_move = p.after.to_move
        assert to_move is not None
        mover = game_clocks[to_move]
        written.append(_next_turn(config, game, p, game_seats[to_move], mover, who, shown, now))
        if mover.played_by is not None:
            bot_games.append(game.id)
    if banks:
        conn.execute(_SET_BANK, banks)
    return Applied(write_letters(conn, config, written, previous), bot_games + continuing)


def _next_turn(
    config: Settings,
    game: OnTheClock,
    p: Played,
    seat: SeatInfo,
    seat_clock: SeatClock,
    who: list[str],
    shown: list[tuple[int, str, str]],
    now: datetime,
) -> Letter:
    """Start the clock of `seat`'s turn in `game`; the letter telling its player."""
    game.turn = new_turn(config, game.clock, seat_clock, now)
    return letters.turn(
        config,
        p.game,
        seat,
        p.after,
        who,
        shown,
        seat.seat == p.seat,
        deadline=move_by(game.clock, game.turn, seat_clock, now),
        away_until=seat_clock.away_until,
    )


def _bot_movers(conn: Connection, movers: dict[str, int]) -> list[str]:
    """Those of these games (game -> seat still to move) whose seat to move a bot plays."""
    rows = conn.execute(_BOT_SEATS, {"game_ids": sorted(movers)})
    return sorted({row.game_id for row in rows if movers[row.game_id] == row.seat})


def _bank_after(clock: clocks.Clock, p: Played) -> float | None:
    """The mover's Fischer bank after the move that ended their turn: the time a paused turn
    spent paused does not count."""
    deadline = p.turn.deadline
    if p.turn.paused_at is not None:
        deadline = clocks.resumed(clock, deadline, p.turn.paused_at, p.submitted_at)
    return clocks.after_move(clock, deadline, p.submitted_at)
