"""Vacation: a balance of days accrued monthly; while a player is away their clocks stop in every
game awaiting them, and on their return each deadline moves on by the time away."""

from __future__ import annotations

import random
from datetime import datetime, timedelta

import pytest
import time_machine
from flask import Flask

from pbem.domain import starting, vacation, views
from pbem.domain.clocks import parse_clock
from pbem.extensions import db, settings
from pbem.models import FINISHED, RUNNING, Game, Player
from tests.domain.clock_flow import (
    T0,
    move_at,
    reload,
    run_clock_at,
)
from tests.domain.flow import mails

DAY = 86_400.0
YEAR = 14 * DAY  # the default yearly allowance
ALICE, BOB, CAROL = "alice@example.org", "bob@example.org", "carol@example.org"


def _start(first: str, second: str, clock: str = "days:1", at: datetime = T0) -> Game:
    """A running game in which `first` is to move: seat 0 moves first, and the seats are
    drawn from the seed, so the seed is chosen to give `first` seat 0."""
    seed = next(n for n in range(100) if _seat_order(n)[0] == 0)
    with time_machine.travel(at, tick=False):
        created = starting.create_game(
            settings(),
            "countdown",
            {"pile": 21},
            [first, second],
            seed=seed,
            clock=parse_clock(clock),
        )
        for seat in list(_game(created.game_id).seats):
            starting.accept_invitation(settings(), seat)
    game = _game(created.game_id)
    assert game.to_move == 0 and game.seats[0].player.email == first
    return game


def _seat_order(seed: int) -> list[int]:
    """The seats the addresses get, in order (as `starting.create_game` draws them)."""
    order = [0, 1]
    random.Random(f"seats:{seed}").shuffle(order)
    return order


_game = reload
_run = run_clock_at


def _move(game: Game, move: str, at: datetime) -> Game:
    move_at(game, move, at)
    return reload(game.id)


def _player(email: str) -> Player:
    db.session.expire_all()
    player = db.session.query(Player).filter_by(email=email).one()
    return player


# --- the balance ---------------------------------------------------------------------------------


def test_a_new_player_starts_with_a_years_worth(app: Flask) -> None:
    balance = vacation.balance(settings(), Player(email=ALICE), T0)
    assert balance.seconds == YEAR and balance.days == 14
    assert balance.accrued_at == T0


def test_the_balance_accrues_a_twelfth_a_month(app: Flask) -> None:
    player = Player(email=ALICE, vacation_seconds=0.0, vacation_accrued_at=T0)
    assert vacation.balance(settings(), player, T0 + vacation.MONTH * 0.99).seconds == 0
    one = vacation.balance(settings(), player, T0 + vacation.MONTH)
    assert one.seconds == pytest.approx(YEAR / 12)
    assert one.accrued_at == T0 + vacation.MONTH
    # Only whole months count: two and a half months are two.
    two = vacation.balance(settings(), player, T0 + vacation.MONTH * 2.5)
    assert two.seconds == pytest.approx(YEAR / 6)
    assert two.accrued_at == T0 + vacation.MONTH * 2


def test_the_balance_is_capped_at_a_years_worth(app: Flask) -> None:
    player = Player(email=ALICE, vacation_seconds=10 * DAY, vacation_accrued_at=T0)
    assert vacation.balance(settings(), player, T0 + vacation.MONTH * 20).seconds == YEAR
    full = Player(email=BOB, vacation_seconds=YEAR, vacation_accrued_at=T0)
    assert vacation.balance(settings(), full, T0 + vacation.MONTH * 3).seconds == YEAR


def test_time_away_is_spent_from_the_balance(app: Flask) -> None:
    _start(ALICE, BOB)
    alice = _player(ALICE)
    vacation.start(settings(), alice.id, 5, now=T0)
    alice = _player(ALICE)
    assert alice.vacation_until == T0 + timedelta(days=5)
    away = vacation.balance(settings(), alice, T0 + timedelta(days=2))
    assert away.seconds == YEAR - 2 * DAY
    vacation.end(settings(), alice.id, now=T0 + timedelta(days=3))
    alice = _player(ALICE)
    assert alice.vacation_since is None and alice.vacation_until is None
    assert alice.vacation_seconds == YEAR - 3 * DAY


def test_a_vacation_is_at_most_the_balance(app: Flask) -> None:
    _start(ALICE, BOB)
    alice = _player(ALICE)
    vacation.start(settings(), alice.id, 40, now=T0)
    assert _player(ALICE).vacation_until == T0 + timedelta(days=14)


def test_going_away_is_refused_when_it_cannot_be(app: Flask) -> None:
    _start(ALICE, BOB)
    alice = _player(ALICE)
    for days in (0, -1, float("nan"), float("inf")):
        with pytest.raises(vacation.VacationRefused, match="more than 0"):
            vacation.start(settings(), alice.id, days, now=T0)
    vacation.start(settings(), alice.id, 14, now=T0)
    with pytest.raises(vacation.VacationRefused, match="on vacation already"):
        vacation.start(settings(), alice.id, 1, now=T0 + timedelta(days=1))
    _run(T0 + timedelta(days=14))  # back, with nothing left
    with pytest.raises(vacation.VacationRefused, match="no vacation days left"):
        vacation.start(settings(), alice.id, 1, now=T0 + timedelta(days=15))
    with pytest.raises(vacation.VacationRefused, match="no such player"):
        vacation.start(settings(), 9999, 1, now=T0)


# --- clocks stop while away ----------------------------------------------------------------------


def test_going_away_pauses_the_games_awaiting_the_player_only(app: Flask) -> None:
    mine = _start(ALICE, BOB)
    theirs = _start(BOB, ALICE)
    others = _start(CAROL, BOB)
    away_at = T0 + timedelta(hours=2)
    vacation.start(settings(), _player(ALICE).id, 5, now=away_at)
    mine = _game(mine.id)
    assert mine.paused_at == away_at and mine.reminder_at is None
    assert mine.deadline == T0 + timedelta(days=1)  # kept, to measure the time left from
    for game_id in (theirs.id, others.id):
        game = _game(game_id)
        assert game.paused_at is None and game.reminder_at is not None


def test_the_clock_task_does_not_time_out_a_player_away(app: Flask) -> None:
    game = _start(ALICE, BOB)
    vacation.start(settings(), _player(ALICE).id, 5, now=T0 + timedelta(hours=2))
    for days in (1, 2, 4):
        report = _run(T0 + timedelta(days=days, hours=1))
        assert report.timeouts == 0 and report.reminders == 0
    game = _game(game.id)
    assert game.status == RUNNING and game.paused_at is not None


def test_coming_back_resumes_the_clock_with_the_time_that_was_left(app: Flask) -> None:
    game = _start(ALICE, BOB)
    vacation.start(settings(), _player(ALICE).id, 5, now=T0 + timedelta(hours=2))
    back = T0 + timedelta(days=3)
    vacation.end(settings(), _player(ALICE).id, now=back)
    game = _game(game.id)
    assert game.paused_at is None
    assert game.deadline == back + timedelta(hours=22)
    assert game.reminder_at == game.deadline - timedelta(hours=2)
    assert game.turn_started_at == T0
    assert _run(back + timedelta(hours=22)).timeouts == 1
    assert _game(game.id).status == FINISHED


def test_a_vacation_runs_out_by_itself(app: Flask) -> None:
    game = _start(ALICE, BOB)
    vacation.start(settings(), _player(ALICE).id, 2, now=T0 + timedelta(hours=2))
    until = T0 + timedelta(days=2, hours=2)
    assert _run(until - timedelta(minutes=1)).vacations_ended == 0
    # The task runs a few minutes late: the clock restarts from the vacation's end all the same.
    report = _run(until + timedelta(minutes=5))
    assert report.vacations_ended == 1 and report.timeouts == 0
    alice = _player(ALICE)
    assert alice.vacation_since is None and alice.vacation_until is None
    assert alice.vacation_seconds == YEAR - 2 * DAY
    game = _game(game.id)
    assert game.paused_at is None
    assert game.deadline == until + timedelta(hours=22)
    assert _run(until + timedelta(hours=30)).vacations_ended == 0


def test_a_turn_that_starts_while_away_starts_paused(app: Flask) -> None:
    game = _start(BOB, ALICE)
    vacation.start(settings(), _player(ALICE).id, 3, now=T0 + timedelta(hours=1))
    until = T0 + timedelta(days=3, hours=1)
    game = _move(game, "1", T0 + timedelta(hours=2))
    assert game.seats[game.to_move].player.email == ALICE
    assert game.paused_at == T0 + timedelta(hours=2) and game.reminder_at is None
    turn = mails(to=ALICE, kind="turn")[-1]
    assert "You are on vacation until Saturday 5 December, 13:00 UTC" in turn.text
    assert "so move by Sunday 6 December, 13:00 UTC." in turn.text
    # The whole day runs from the return.
    assert _run(until + timedelta(minutes=1)).vacations_ended == 1
    assert _game(game.id).deadline == until + timedelta(days=1)


def test_a_player_away_may_still_move(app: Flask) -> None:
    game = _start(ALICE, BOB, clock="fischer:2+1/3")
    vacation.start(settings(), _player(ALICE).id, 5, now=T0 + timedelta(hours=6))
    mover, ply = game.to_move, game.ply
    # A move two days later, long past the deadline the turn had: the clock was stopped.
    game = _move(game, "1", T0 + timedelta(days=2))
    assert game.ply == ply + 1 and game.status == RUNNING
    # Only the six hours before going away were spent: 2 days - 6 hours + 1, capped at 3.
    assert game.seats[mover].bank_seconds == pytest.approx(2 * DAY + 18 * 3600)
    # The opponent is not away: their turn runs.
    assert game.paused_at is None and game.deadline == T0 + timedelta(days=4)


def test_the_timing_shows_the_paused_clock_and_the_return(app: Flask) -> None:
    game = _start(ALICE, BOB, clock="days:2")
    vacation.start(settings(), _player(ALICE).id, 4, now=T0 + timedelta(hours=12))
    now = T0 + timedelta(days=1)
    timing = views.timing(_game(game.id), now)
    until = T0 + timedelta(days=4, hours=12)
    assert timing.paused is True
    assert timing.deadline == until + timedelta(hours=36)
    assert timing.time_left_s == 36 * 3600
    alice_seat = timing.seats[timing.to_move]
    assert alice_seat.away_until == until
    bob_seat = next(s for s in timing.seats if s.seat != timing.to_move)
    assert bob_seat.away_until is None and bob_seat.time_left_s == 2 * DAY
    # Back: the clock runs, and the timing says so.
    vacation.end(settings(), _player(ALICE).id, now=now)
    timing = views.timing(_game(game.id), now + timedelta(hours=1))
    assert timing.paused is False
    assert timing.deadline == now + timedelta(hours=36)
    assert timing.time_left_s == 35 * 3600
    assert all(s.away_until is None for s in timing.seats)
