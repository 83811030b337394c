"""Autopilot: a player hands their seat to one of pbem's bots, and takes it back.

While a seat is on autopilot (`seats.autopilot_since`) the bot its player chose
(`seats.autopilot_bot`: greedy, the default, or mcts) plays its turns (pbem.domain.bot_turns),
each of its moves marked as the bot's (`moves.autopilot`), and its player gets no turn emails,
only the game's news and result. A seat goes on autopilot from its game page or its player's
games page, or to the greedy bot when it runs out of time in a game of three or four whose
timeout policy is `autopilot` (pbem.domain.endings). Its player takes it back from the same
pages, any time; asking for the other bot while on autopilot switches to it.

Neither moves the clock in the player's favour (docs/rules/bots.md). Handed over on its own
turn, the turn goes to the bot untimed; the turn the player had is kept in the `autopilot_on`
event (`detail["turn"]`), and a Fischer bank is charged the time used so far. Taken back on its
turn, the seat gets that turn again with its own deadline, the time on autopilot counted; a turn
that began while the bot had the seat runs from when it began, as any turn does. Neither is
accepted once that deadline has passed: the game is then being settled as a timeout, or the bot
plays the turn (so too a turn the seat reached by running out of time).

Both take the game's row lock, as a move does: the bot's move for the same turn, stored before,
wins; one stored after is refused as stale.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import Connection, bindparam, select, update

from pbem import i18n, links
from pbem.config import Settings
from pbem.domain import bot_seats, clocks, endings, letters, turns, when
from pbem.domain.endings import Refused
from pbem.domain.errors import OutOfTime, ServiceError
from pbem.domain.outbox import Letter
from pbem.domain.turn_ending import UPDATE_GAME, SeatClock, move_by, read_seats
from pbem.domain.views import recent_moves, seat_names
from pbem.extensions import db
from pbem.models import GameEvent, Player, Seat, utcnow

ON, OFF = "autopilot_on", "autopilot_off"
# A seat already on autopilot handed to the other bot: not a hand-over, so no turn changes hands.
SWITCHED = "autopilot_bot"

_SET = update(Seat).where(
    Seat.game_id == bindparam("pilot_game_id"), Seat.seat == bindparam("pilot_seat")
)
_PILOTED = (
    select(Seat.autopilot_since, Seat.autopilot_bot, Player.bot)
    .join(Player, Player.id == Seat.player_id)
    .where(Seat.game_id == bindparam("game_id"), Seat.seat == bindparam("seat"))
)
# The seat's latest hand-over to the bot: by its player, or by running out of time.
_LAST_HANDED = (
    select(GameEvent.kind, GameEvent.detail, GameEvent.created_at)
    .where(
        GameEvent.game_id == bindparam("game_id"),
        GameEvent.seat == bindparam("seat"),
        GameEvent.kind.in_((ON, endings.TIMED_OUT)),
    )
    .order_by(GameEvent.id.desc())
    .limit(1)
)


@dataclass(frozen=True)
class _Handed:
    """What handing the seat over or back does to the turn in play: its new clock, the event's
    detail, and the seat's Fischer bank when it changes."""

    turn: turns.TurnClock
    detail: dict[str, Any] | None = None
    bank: dict[str, float | None] | None = None  # {"bank_seconds": …} to charge the bank


def hand_over(
    config: Settings,
    seat: links.SeatKey,
    on: bool,
    now: datetime | None = None,
    bot: str | None = None,
) -> list[int]:
    """Put the seat on autopilot (`on`) with `bot` (greedy or mcts, checked by
    `bot_seats.autopilot_bot`; None: the default), or take it back, for its player; the outbox
    ids to send. Doing what is done already changes nothing; `on` with the other bot switches
    to it. The seat's claims are checked under the game's lock (a withdrawn link is refused);
    GameOver and the like when the game is not under way or the seat left it, OutOfTime when
    it is the seat's turn and its time has run out."""
    now = now or utcnow()
    kind = bot_seats.autopilot_bot(bot) if on else None
    conn = db.session.connection()
    index = seat.seat
    try:
        game = endings.lock(conn, seat.game_id, seat)
        endings.check_running(game, index)
        mine = conn.execute(_PILOTED, {"game_id": seat.game_id, "seat": index}).one()
        if mine.bot is not None:
            raise Refused(
                i18n.gettext("A bot's seat is played by its bot; there is no one to hand it to.")
            )
        piloted = mine.autopilot_since is not None
        handed: _Handed | None = None
        if piloted != on and game.row.to_move == index:
            handed = _to_bot(game, now) if on else _to_player(conn, config, game, index, now)
    except (ServiceError, links.LinkError):
        db.session.rollback()
        raise
    if piloted == on and (not on or mine.autopilot_bot == kind):
        db.session.commit()
        return []
    chosen = {"bot": kind} if on else {}
    if piloted and on:
        endings.record_event(conn, game, SWITCHED, index, now, chosen)
        conn.execute(_SET, {"pilot_game_id": seat.game_id, "pilot_seat": index, **_bot(kind)})
        db.session.commit()
        return []
    detail = {**(handed.detail if handed is not None and handed.detail else {}), **chosen}
    endings.record_event(conn, game, ON if on else OFF, index, now, detail or None)
    conn.execute(
        _SET,
        {
            "pilot_game_id": seat.game_id,
            "pilot_seat": index,
            "autopilot_since": now if on else None,
            **_bot(kind),
            **(handed.bank if handed is not None and handed.bank else {}),
        },
    )
    written: list[Letter] = []
    if handed is not None:
        conn.execute(UPDATE_GAME, {"game_id": game.row.id, **handed.turn.columns()})
        if not on:
            written = [_turn_letter(config, game, index, handed.turn, now)]
    return endings.commit_letters(conn, config, seat.game_id, written)


def _bot(kind: str | None) -> dict[str, str | None]:
    return {"autopilot_bot": kind}


def _to_bot(game: endings.Locked, now: datetime) -> _Handed:
    """The seat's turn handed to the bot: untimed (a stopped bot worker must not lose a game on
    time), the player's own turn kept for their return and its time used charged to the bank."""
    endings.check_in_time(game, game.row.to_move, now)
    clock = turns.game_clock(game.row.clock)
    turn = turns.TurnClock.of(game.row)
    # The clock of a paused turn runs again as the bot takes over: the pause is the player's.
    kept = turns.resume(clock, turn, now, ())
    detail = {
        "turn": {"turn_started_at": _iso(kept.turn_started_at), "deadline": _iso(kept.deadline)}
    }
    bank = None
    if clock.kind == "fischer" and kept.deadline is not None:
        bank = {"bank_seconds": clocks.time_left(clock, kept.deadline, now)}
    return _Handed(turns.TurnClock(now), detail, bank)


def _to_player(
    conn: Connection, config: Settings, game: endings.Locked, seat: int, now: datetime
) -> _Handed:
    """The bot's turn handed back to the player: the turn they handed over, with its deadline;
    or one that began while the bot had the seat, timed from when it began."""
    row = game.row
    clock = turns.game_clock(row.clock)
    mine = _seat_clock(conn, row.id, seat)
    began = row.turn_started_at or now
    last = conn.execute(_LAST_HANDED, {"game_id": row.id, "seat": seat}).one_or_none()
    this_turn = last if last is not None and last.created_at >= began else None
    if this_turn is not None and this_turn.kind == endings.TIMED_OUT:
        raise OutOfTime(
            i18n.gettext(
                "You ran out of time on this turn, so pbem's bot is playing it for you. Take your "
                "seat back once it has moved."
            )
        )
    kept = (this_turn.detail or {}).get("turn") if this_turn is not None else None
    if kept is not None:
        turn = turns.TurnClock(_instant(kept["turn_started_at"]), _instant(kept["deadline"]))
    else:
        turn = turns.start_turn(clock, began, mine.bank_seconds, False, ())
    if turn.deadline is not None and not clocks.in_time(turn.deadline, now):
        raise OutOfTime(
            i18n.gettext(
                "Your time for this turn ran out at %(deadline)s, while pbem's bot had your seat, "
                "so the bot is playing it. Take your seat back once it has moved.",
                deadline=when.in_words(turn.deadline),
            )
        )
    hours = config.clocks.reminder_hours
    return _Handed(turns.taken_back(turn, now, mine.away_until is not None, hours))


def _seat_clock(conn: Connection, game_id: str, seat: int) -> SeatClock:
    _, seat_clocks, _ = read_seats(conn, [game_id])
    return seat_clocks[game_id][seat]


def _turn_letter(
    config: Settings, game: endings.Locked, seat: int, turn: turns.TurnClock, now: datetime
) -> Letter:
    """The turn email of a player who took their seat back on its turn."""
    conn = db.session.connection()
    seats, seat_clocks, _ = read_seats(conn, [game.row.id])
    infos, mine = seats[game.row.id], seat_clocks[game.row.id][seat]
    who = seat_names(game.facts, infos)
    return letters.turn(
        config,
        game.facts,
        infos[seat],
        game.state(),
        who,
        recent_moves(conn, game.row.id, who),
        deadline=move_by(turns.game_clock(game.row.clock), turn, mine, now),
        away_until=mine.away_until,
    )


def _iso(at: datetime | None) -> str | None:
    return None if at is None else at.isoformat()


def _instant(text: str | None) -> datetime | None:
    return None if text is None else datetime.fromisoformat(text)
