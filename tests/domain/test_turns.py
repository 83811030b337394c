"""The turn on the clock: the pure bookkeeping of `pbem.domain.turns`, then games created with a
clock and played (the deadline a turn starts with, Fischer banks, free weekends, a turn of two
actions, time judged when a move is stored)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import datetime, timedelta
from pathlib import Path

import pytest
import time_machine
from flask import Flask

from pbem import i18n
from pbem.domain import clock_task, moves, starting, turns, wording
from pbem.domain.clocks import NO_CLOCK, parse_clock
from pbem.domain.errors import OutOfTime, SetupError
from pbem.extensions import db, settings
from pbem.models import APPLIED, FINISHED, PENDING, RUNNING, Game, Seat, Submission
from tests.conftest import make_app
from tests.domain.clock_flow import (
    T0,
    move_at,
    reload,
)
from tests.domain.flow import EMAILS, mails

HOURS = (24.0, 2.0)
DAYS_1 = parse_clock("days:1")
DAYS_3 = parse_clock("days:3")


# --- the pure bookkeeping ------------------------------------------------------------------------


def test_a_turn_without_a_clock_has_no_deadline_and_no_reminder() -> None:
    turn = turns.start_turn(NO_CLOCK, T0, None, away=False, reminder_hours=HOURS)
    assert turn == turns.TurnClock(T0)
    assert turns.seconds_left(NO_CLOCK, turn, T0 + timedelta(days=99)) is None


def test_a_turn_starts_with_its_first_reminder_that_fits() -> None:
    turn = turns.start_turn(DAYS_3, T0, None, away=False, reminder_hours=HOURS)
    assert turn.deadline == T0 + timedelta(days=3)
    assert turn.reminder_at == T0 + timedelta(days=2)  # 24 hours before
    assert turn.paused_at is None


def test_a_reminder_longer_than_the_turn_is_left_out() -> None:
    day = turns.start_turn(DAYS_1, T0, None, away=False, reminder_hours=HOURS)
    # 24 hours before a 24-hour turn's deadline is its start: not a reminder.
    assert day.reminder_at == T0 + timedelta(hours=22)
    half = parse_clock("days:0.5")
    short = turns.start_turn(half, T0, None, away=False, reminder_hours=HOURS)
    assert short.reminder_at == T0 + timedelta(hours=10)


def test_the_next_reminder_is_the_one_after_the_given_instant() -> None:
    deadline = T0 + timedelta(days=3)
    first = turns.next_reminder(HOURS, T0, deadline, T0)
    assert first == deadline - timedelta(hours=24)
    second = turns.next_reminder(HOURS, T0, deadline, first)
    assert second == deadline - timedelta(hours=2)
    assert turns.next_reminder(HOURS, T0, deadline, second) is None
    assert turns.next_reminder((), T0, deadline, T0) is None


def test_a_turn_of_a_player_away_starts_paused_without_reminders() -> None:
    turn = turns.start_turn(DAYS_1, T0, None, away=True, reminder_hours=HOURS)
    assert turn.paused_at == T0 and turn.reminder_at is None
    assert turns.seconds_left(DAYS_1, turn, T0 + timedelta(days=5)) == 86_400


def test_pausing_keeps_the_deadline_and_drops_the_reminder() -> None:
    turn = turns.start_turn(DAYS_3, T0, None, away=False, reminder_hours=HOURS)
    paused = turns.pause(turn, T0 + timedelta(hours=1))
    assert paused.deadline == turn.deadline
    assert paused.paused_at == T0 + timedelta(hours=1) and paused.reminder_at is None
    # Pausing again changes nothing, nor does pausing a turn without a clock.
    assert turns.pause(paused, T0 + timedelta(hours=5)) == paused
    assert turns.pause(turns.TurnClock(T0), T0) == turns.TurnClock(T0)


def test_time_left_is_frozen_while_paused() -> None:
    turn = turns.start_turn(DAYS_1, T0, None, away=False, reminder_hours=HOURS)
    paused = turns.pause(turn, T0 + timedelta(hours=4))
    for later in (timedelta(hours=5), timedelta(days=10)):
        assert turns.seconds_left(DAYS_1, paused, T0 + later) == 20 * 3600


def test_resuming_moves_the_deadline_on_by_the_time_away() -> None:
    turn = turns.start_turn(DAYS_1, T0, None, away=False, reminder_hours=HOURS)
    paused = turns.pause(turn, T0 + timedelta(hours=4))
    back = T0 + timedelta(days=3)
    resumed = turns.resume(DAYS_1, paused, back, HOURS)
    assert resumed.paused_at is None
    assert resumed.turn_started_at == T0
    assert resumed.deadline == back + timedelta(hours=20)
    assert resumed.reminder_at == resumed.deadline - timedelta(hours=2)
    # A turn that is not paused is left alone.
    assert turns.resume(DAYS_1, turn, back, HOURS) == turn


def test_a_turn_that_started_paused_runs_its_whole_allowance_from_the_return() -> None:
    turn = turns.start_turn(DAYS_1, T0, None, away=True, reminder_hours=HOURS)
    back = T0 + timedelta(days=2)
    assert turns.resume(DAYS_1, turn, back, HOURS).deadline == back + timedelta(days=1)


def test_downtime_shifts_the_deadline_and_the_reminder() -> None:
    turn = turns.start_turn(DAYS_3, T0, None, away=False, reminder_hours=HOURS)
    shifted = turns.shifted(turn, 1800)
    assert shifted.deadline == turn.deadline + timedelta(minutes=30)
    assert turn.reminder_at is not None
    assert shifted.reminder_at == turn.reminder_at + timedelta(minutes=30)
    assert shifted.turn_started_at == T0
    assert turns.shifted(turns.TurnClock(T0), 1800) == turns.TurnClock(T0)


def test_the_shown_deadline_of_a_paused_turn_is_projected_from_the_return() -> None:
    turn = turns.pause(
        turns.start_turn(DAYS_1, T0, None, away=False, reminder_hours=HOURS),
        T0 + timedelta(hours=6),
    )
    back = T0 + timedelta(days=4)
    now = T0 + timedelta(days=1)
    assert turns.shown_deadline(DAYS_1, turn, now, back) == back + timedelta(hours=18)
    # Without a known return, as if they came back now.
    assert turns.shown_deadline(DAYS_1, turn, now, None) == now + timedelta(hours=18)
    running = turns.start_turn(DAYS_1, T0, None, away=False, reminder_hours=HOURS)
    assert turns.shown_deadline(DAYS_1, running, now, back) == running.deadline


def test_a_turn_is_late_from_its_deadline_and_a_paused_one_as_of_its_pause() -> None:
    turn = turns.start_turn(DAYS_1, T0, None, away=False, reminder_hours=HOURS)
    deadline = T0 + timedelta(days=1)
    assert not turns.late(turn, deadline - timedelta(microseconds=1))
    assert turns.late(turn, deadline)
    # Stopped in time, it stays in time however long the vacation; stopped late, it stays late.
    assert not turns.late(turns.pause(turn, T0 + timedelta(hours=6)), T0 + timedelta(days=9))
    assert turns.late(turns.pause(turn, deadline + timedelta(hours=1)), T0)
    assert not turns.late(turns.TurnClock(T0), T0 + timedelta(days=99)), "no clock, never late"


def test_a_turn_taken_back_keeps_its_deadline_and_only_the_reminders_ahead() -> None:
    turn = turns.start_turn(DAYS_1, T0, None, away=False, reminder_hours=HOURS)
    deadline = T0 + timedelta(days=1)
    back = turns.taken_back(turn, T0 + timedelta(hours=1), False, HOURS)
    assert back == turns.TurnClock(T0, deadline, reminder_at=deadline - timedelta(hours=2))
    away = turns.taken_back(turn, T0 + timedelta(hours=1), True, HOURS)
    assert away == turns.TurnClock(T0, deadline, paused_at=T0 + timedelta(hours=1))
    untimed = turns.taken_back(turns.TurnClock(T0), T0 + timedelta(hours=1), False, HOURS)
    assert untimed == turns.TurnClock(T0)


def test_a_game_without_a_stored_clock_has_none() -> None:
    assert turns.game_clock(None) == NO_CLOCK
    assert turns.game_clock(DAYS_3.to_json()) == DAYS_3


# --- games created with a clock ------------------------------------------------------------------


def _create(clock: str | None, options: dict[str, object] | None = None, at: datetime = T0) -> str:
    with time_machine.travel(at, tick=False):
        created = starting.create_game(
            settings(),
            "countdown",
            options or {"pile": 21},
            EMAILS,
            clock=None if clock is None else parse_clock(clock),
        )
    return created.game_id


def _start(
    clock: str | None = "days:1", options: dict[str, object] | None = None, at: datetime = T0
) -> Game:
    text = clock.replace("+weekends", "") if clock else None
    with time_machine.travel(at, tick=False):
        created = starting.create_game(
            settings(),
            "countdown",
            options or {"pile": 21},
            EMAILS,
            clock=None if text is None else parse_clock(text, clock != text),
        )
        game = db.session.get(Game, created.game_id)
        assert game is not None
        for seat in list(game.seats):
            starting.accept_invitation(settings(), seat)
    return _game(created.game_id)


_game = reload
_move = move_at


def test_a_game_created_without_a_clock_gets_the_default(app: Flask) -> None:
    game = _start(None)
    assert game.clock == {"kind": "days", "days": 3, "weekends_free": False}
    assert game.turn_started_at == T0
    assert game.deadline == T0 + timedelta(days=3)
    assert game.reminder_at == T0 + timedelta(days=2)


@pytest.fixture
def app_with_default(tmp_path: Path, countdown_engine: None) -> Iterator[Flask]:
    app = make_app(tmp_path, PBEM_DEFAULT_CLOCK="days:5", PBEM_CLOCK_MIN_SECONDS="600")
    with app.app_context():
        db.create_all()
        yield app
        db.session.remove()
        db.engine.dispose()


def test_the_default_clock_and_shortest_move_come_from_the_settings(
    app_with_default: Flask,
) -> None:
    game = _start(None)
    assert game.clock == {"kind": "days", "days": 5, "weekends_free": False}
    assert game.deadline == T0 + timedelta(days=5)
    # 864 seconds a move: too short by default, allowed with PBEM_CLOCK_MIN_SECONDS=600.
    assert _start("days:0.01").deadline == T0 + timedelta(seconds=864)


def test_a_game_without_a_clock_has_no_deadline_and_never_times_out(app: Flask) -> None:
    game = _start("none")
    assert game.clock == {"kind": "none", "weekends_free": False}
    assert game.turn_started_at == T0
    assert game.deadline is None and game.reminder_at is None
    report = clock_task.run_clock(settings(), T0 + timedelta(days=365))
    assert (report.timeouts, report.reminders) == (0, 0)
    game = _game(game.id)
    assert game.status == RUNNING
    assert "Move by" not in mails(kind="turn")[0].text
    # Moves are never late either.
    assert _move(game, "1", T0 + timedelta(days=400)).status == APPLIED
    assert _game(game.id).deadline is None


def test_a_clock_shorter_than_the_shortest_allowed_is_refused(app: Flask) -> None:
    with pytest.raises(SetupError) as refused:
        _create("days:0.01")  # 14.4 minutes a move
    assert refused.value.message == (
        "A clock of 14.4 minutes per move is too short: each move must have at least 1 hour."
    )
    with pytest.raises(SetupError, match="too short"):
        _create("fischer:0.02+1")  # the initial bank is what the first move has
    assert db.session.query(Game).count() == 0
    # An hour exactly is allowed.
    assert _create(f"days:{1 / 24}")


def test_fischer_banks_start_at_the_initial_time(app: Flask) -> None:
    game = _start("fischer:7+1/14")
    assert game.clock == {
        "kind": "fischer",
        "initial": 7,
        "increment": 1,
        "max": 14,
        "weekends_free": False,
    }
    assert [seat.bank_seconds for seat in game.seats] == [7 * 86_400, 7 * 86_400]
    assert game.deadline == T0 + timedelta(days=7)


def test_a_fischer_move_spends_the_time_taken_and_adds_the_increment(app: Flask) -> None:
    game = _start("fischer:7+1/14")
    mover = game.to_move
    moved_at = T0 + timedelta(days=2)
    _move(game, "1", moved_at)
    game = _game(game.id)
    assert game.seats[mover].bank_seconds == (7 - 2 + 1) * 86_400
    # The other seat's turn runs on its own bank, untouched so far.
    assert game.seats[1 - mover].bank_seconds == 7 * 86_400
    assert game.turn_started_at == moved_at
    assert game.deadline == moved_at + timedelta(days=7)
    # The mover's next turn starts with the bank the move left.
    _move(game, "1", moved_at + timedelta(hours=1))
    game = _game(game.id)
    assert game.to_move == mover
    assert game.deadline == moved_at + timedelta(hours=1, days=6)


def test_a_fischer_bank_is_capped_at_its_maximum(app: Flask) -> None:
    game = _start("fischer:7+2/8")
    mover = game.to_move
    _move(game, "1", T0 + timedelta(hours=12))  # 6.5 days left + 2 = 8.5, capped at 8
    assert _game(game.id).seats[mover].bank_seconds == 8 * 86_400


def test_with_weekends_free_a_friday_evening_turn_runs_until_monday_evening(app: Flask) -> None:
    friday = datetime(2026, 12, 4, 18, 0)
    assert friday.strftime("%A") == "Friday"
    game = _start("days:1+weekends", at=friday)
    assert game.clock == {"kind": "days", "days": 1, "weekends_free": True}
    assert game.deadline == datetime(2026, 12, 7, 18, 0)  # Monday
    assert "Move by Monday 7 December, 18:00 UTC." in mails(kind="turn")[0].text


def test_a_turn_of_two_actions_keeps_one_deadline(app: Flask) -> None:
    game = _start("days:1", {"pile": 21, "actions": 2})
    mover = game.to_move
    deadline, reminder = game.deadline, game.reminder_at
    turn_mails = len(mails(kind="turn"))
    _move(game, "1", T0 + timedelta(hours=5))
    game = _game(game.id)
    assert game.to_move == mover and game.ply == 1
    assert (game.turn_started_at, game.deadline, game.reminder_at) == (T0, deadline, reminder)
    assert len(mails(kind="turn")) == turn_mails  # the same turn: no new email
    # The second action is in the same turn: it must beat the same deadline.
    _move(game, "1", T0 + timedelta(hours=20))
    game = _game(game.id)
    assert game.to_move == 1 - mover
    assert game.turn_started_at == T0 + timedelta(hours=20)
    assert game.deadline == T0 + timedelta(hours=20, days=1)


def test_the_second_action_after_the_deadline_is_refused(app: Flask) -> None:
    game = _start("days:1", {"pile": 21, "actions": 2})
    _move(game, "1", T0 + timedelta(hours=5))
    game = _game(game.id)
    with (
        time_machine.travel(T0 + timedelta(days=1), tick=False),
        pytest.raises(OutOfTime, match="ran out at Thursday 3 December, 12:00 UTC"),
    ):
        moves.submit_move(game.seats[game.to_move], "1", game.ply)


def test_time_is_judged_when_a_move_is_stored_not_when_it_is_applied(app: Flask) -> None:
    game = _start("days:1")
    mover = game.to_move
    deadline = game.deadline
    assert deadline is not None
    with time_machine.travel(deadline - timedelta(seconds=1), tick=False):
        submission_id = moves.submit_move(game.seats[mover], "2", game.ply)
    # The clock task runs past the deadline before a worker gets to the move: no timeout.
    report = clock_task.run_clock(settings(), deadline + timedelta(minutes=5))
    assert report.timeouts == 0
    game = _game(game.id)
    assert game.status == RUNNING and game.deadline == deadline
    submission = db.session.get(Submission, submission_id)
    assert submission is not None and submission.status == PENDING
    # The worker applies it late; it was in time.
    applied_at = deadline + timedelta(minutes=10)
    with time_machine.travel(applied_at, tick=False):
        moves.apply_moves(settings(), [submission_id])
    db.session.expire_all()
    submission = db.session.get(Submission, submission_id)
    assert submission is not None and submission.status == APPLIED
    game = _game(game.id)
    assert game.ply == 1 and game.to_move == 1 - mover
    assert game.deadline == applied_at + timedelta(days=1)
    assert clock_task.run_clock(settings(), applied_at + timedelta(hours=1)).timeouts == 0


def test_a_move_stored_at_the_deadline_is_out_of_time(app: Flask) -> None:
    game = _start("days:1")
    seat: Seat = game.seats[game.to_move]
    assert game.deadline is not None
    with (
        time_machine.travel(game.deadline, tick=False),
        pytest.raises(OutOfTime, match="the game is being settled as a timeout"),
    ):
        moves.submit_move(seat, "1", game.ply)
    assert db.session.query(Submission).count() == 0
    clock_task.run_clock(settings(), game.deadline)
    assert _game(game.id).status == FINISHED


def test_a_late_submission_that_slipped_in_is_rejected_when_applied(app: Flask) -> None:
    game = _start("days:1")
    assert game.deadline is not None
    # A row stored after the deadline (another process's clock, or a bug) is not applied.
    late = Submission(
        game_id=game.id,
        seat=game.to_move,
        ply=game.ply,
        move="1",
        status=PENDING,
        created_at=game.deadline + timedelta(seconds=1),
    )
    db.session.add(late)
    db.session.commit()
    with time_machine.travel(game.deadline + timedelta(minutes=1), tick=False):
        moves.apply_moves(settings(), [late.id])
    db.session.expire_all()
    rejected = db.session.get(Submission, late.id)
    assert rejected is not None and rejected.status == "rejected"
    # Stored as the service's message, said in each reader's language.
    assert rejected.error is not None and json.loads(rejected.error)["game"] == "messages"
    assert wording.read_english(rejected.error) == "This move was stored after the turn's deadline."
    with i18n.using("fr"):
        assert wording.read_words(rejected.error) == (
            "Ce coup a été enregistré après l’échéance du tour."
        )
    assert _game(game.id).ply == 0
