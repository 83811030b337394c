"""Autopilot: a player hands their seat to pbem's search bot, and takes it back.

While a seat is on autopilot (`seats.autopilot_since`) the search bot plays its turns
(pbem.domain.bot_turns) and its player gets no turn emails, only the game's news and result.
A seat goes on autopilot from its player's games page, or when it runs out of time in a game of
three or four whose timeout policy is `autopilot` (pbem.domain.endings). Its player takes it
back from the same page, any time: if it is the seat's turn then, the turn starts again for them
with the clock's whole allowance, and their turn email says so.

Both take the game's row lock, as a move does: the bot's move for the same turn, stored before,
wins; one stored after is refused as stale.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import bindparam, select, update

from pbem import links
from pbem.config import Settings
from pbem.domain import endings, letters, turns
from pbem.domain.endings import Refused
from pbem.domain.errors import ServiceError
from pbem.domain.moves import UPDATE_GAME, move_by, new_turn, read_seats
from pbem.domain.outbox import Letter
from pbem.domain.views import recent_moves, seat_names
from pbem.extensions import db
from pbem.models import Player, Seat, utcnow

ON, OFF = "autopilot_on", "autopilot_off"

_SET = update(Seat).where(
    Seat.game_id == bindparam("pilot_game_id"), Seat.seat == bindparam("pilot_seat")
)
_PILOTED = (
    select(Seat.autopilot_since, Player.bot)
    .join(Player, Player.id == Seat.player_id)
    .where(Seat.game_id == bindparam("game_id"), Seat.seat == bindparam("seat"))
)


def hand_over(
    config: Settings, seat: links.SeatKey, on: bool, now: datetime | None = None
) -> list[int]:
    """Put the seat on autopilot (`on`) or take it back, for its player; the outbox ids to
    send. Doing what is done already changes nothing. The seat's claims are checked under the
    game's lock (a withdrawn link is refused); GameOver and the like when the game is not under
    way or the seat left it."""
    now = now or utcnow()
    conn = db.session.connection()
    try:
        game = endings.lock(conn, seat.game_id, seat)
        endings.check_running(game, seat.seat)
        mine = conn.execute(_PILOTED, {"game_id": seat.game_id, "seat": seat.seat}).one()
        if mine.bot is not None:
            raise Refused("A bot's seat is played by its bot; there is no one to hand it to.")
    except (ServiceError, links.LinkError):
        db.session.rollback()
        raise
    if (mine.autopilot_since is not None) == on:
        db.session.commit()
        return []
    index = seat.seat
    endings.record_event(conn, game, ON if on else OFF, index, now)
    conn.execute(
        _SET,
        {
            "pilot_game_id": seat.game_id,
            "pilot_seat": index,
            "autopilot_since": now if on else None,
        },
    )
    written: list[Letter] = []
    if game.row.to_move == index:
        written = _restart_turn(config, game, index, now)
    return endings.commit_letters(conn, config, seat.game_id, written)


def _restart_turn(config: Settings, game: endings.Locked, seat: int, now: datetime) -> list[Letter]:
    """The turn in play starts again for whoever plays the seat now: the bot, untimed, or its
    player, with the whole allowance and a turn email."""
    conn = db.session.connection()
    seats, seat_clocks, _ = read_seats(conn, [game.row.id])
    infos, clocks_of = seats[game.row.id], seat_clocks[game.row.id]
    clock = turns.game_clock(game.row.clock)
    turn = new_turn(config, clock, clocks_of[seat], now)
    conn.execute(UPDATE_GAME, {"game_id": game.row.id, **turn.columns()})
    if clocks_of[seat].played_by is not None:
        return []
    who = seat_names(game.facts, infos)
    return [
        letters.turn(
            config,
            game.facts,
            infos[seat],
            game.state(),
            who,
            recent_moves(conn, game.row.id, who),
            deadline=move_by(clock, turn, clocks_of[seat], now),
            away_until=clocks_of[seat].away_until,
        )
    ]
