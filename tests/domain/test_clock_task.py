"""The clock task: timeouts, reminders, downtime, vacations and lapsed invitations, with time
controlled (time-machine) and `now` given to the task."""

from __future__ import annotations

import re
from datetime import datetime, timedelta

import pytest
import time_machine
from flask import Flask

from pbem import links
from pbem.domain import access, clock_task, endings, moves, starting, vacation, views
from pbem.domain.clocks import parse_clock
from pbem.domain.errors import GameOver, SetupError
from pbem.extensions import db, settings
from pbem.models import (
    ACTIVE,
    CANCELLED,
    DROPPED,
    FINISHED,
    INVITING,
    RUNNING,
    ClockRun,
    Game,
    GameEvent,
    Player,
    Seat,
)
from tests.domain.clock_flow import (
    T0,
    THREE,
    game_events,
    move_at,
    reload,
    run_clock_at,
)
from tests.domain.flow import EMAILS, mails, play


def _start(clock: str = "days:1", emails: list[str] = EMAILS, **options: object) -> Game:
    with time_machine.travel(T0, tick=False):
        created = starting.create_game(
            settings(), "countdown", options or {"pile": 10}, emails, clock=parse_clock(clock)
        )
        game = db.session.get(Game, created.game_id)
        assert game is not None
        for seat in list(game.seats):
            starting.accept_invitation(settings(), seat)
    db.session.expire_all()
    started = db.session.get(Game, created.game_id)
    assert started is not None
    return started


def test_a_turn_starts_with_its_deadline_and_first_reminder(app: Flask) -> None:
    game = _start("days:3")
    assert game.status == RUNNING
    assert game.turn_started_at == T0
    assert game.deadline == T0 + timedelta(days=3)
    assert game.reminder_at == game.deadline - timedelta(hours=24)
    turn = mails(kind="turn")[0]
    assert "Move by Saturday 5 December, 12:00 UTC." in turn.text


def test_the_player_out_of_time_loses_a_two_player_game(app: Flask) -> None:
    game = _start("days:1")
    loser = game.to_move
    assert loser is not None
    report = clock_task.run_clock(settings(), T0 + timedelta(days=1, seconds=-1))
    assert report.timeouts == 0
    report = clock_task.run_clock(settings(), T0 + timedelta(days=1))
    assert report.timeouts == 1
    db.session.expire_all()
    game = db.session.get(Game, game.id)
    assert game is not None
    assert game.status == FINISHED and game.deadline is None
    assert game.outcome is not None
    assert game.outcome["reason"] == "timeout" and game.outcome["winners"] == [1 - loser]
    results = mails(kind="result")
    assert {m.to for m in results} == set(EMAILS)
    assert "ran out of time" in results[0].text
    events = db.session.query(GameEvent).filter_by(game_id=game.id).all()
    assert [(e.kind, e.seat) for e in events] == [("timeout", loser)]
    # Applied exactly once: the next run finds nothing.
    assert clock_task.run_clock(settings(), T0 + timedelta(days=2)).timeouts == 0


def test_a_move_resets_the_deadline_and_a_late_move_is_refused(app: Flask) -> None:
    from pbem.domain import moves
    from pbem.domain.errors import OutOfTime

    game = _start("days:1")
    with time_machine.travel(T0 + timedelta(hours=5), tick=False):
        play(game, "1")
    db.session.expire_all()
    game = db.session.get(Game, game.id)
    assert game is not None
    assert game.deadline == T0 + timedelta(hours=5, days=1)
    seat = game.seats[game.to_move]
    with (
        time_machine.travel(T0 + timedelta(hours=5, days=1), tick=False),
        pytest.raises(OutOfTime),
    ):
        moves.submit_move(seat, "1", game.ply)


# --- helpers -------------------------------------------------------------------------------------


_game = reload


_move = move_at
_run = run_clock_at
_events = game_events


def _email(game: Game, seat: int | None) -> str:
    assert seat is not None
    return game.seats[seat].player.email


# --- reminders -----------------------------------------------------------------------------------


def test_reminders_come_24_and_2_hours_before_the_deadline(app: Flask) -> None:
    game = _start("days:3")
    mover = _email(game, game.to_move)
    deadline = T0 + timedelta(days=3)
    assert _run(deadline - timedelta(hours=24, seconds=1)).reminders == 0
    assert _run(deadline - timedelta(hours=24)).reminders == 1
    first = mails(kind="reminder")
    assert [m.to for m in first] == [mover]
    assert first[0].subject.endswith("your move is due in 24 hours")
    assert "It is still your turn" in first[0].text
    assert "Move by Saturday 5 December, 12:00 UTC." in first[0].text
    assert _game(game.id).reminder_at == deadline - timedelta(hours=2)
    assert _run(deadline - timedelta(hours=2)).reminders == 1
    second = mails(kind="reminder")[-1]
    assert second.to == mover and second.subject.endswith("your move is due in 2 hours")
    assert _game(game.id).reminder_at is None


def test_each_reminder_is_sent_once(app: Flask) -> None:
    game = _start("days:3")
    deadline = T0 + timedelta(days=3)
    for minutes in (0, 1, 2, 30):
        _run(deadline - timedelta(hours=24) + timedelta(minutes=minutes))
    assert len(mails(kind="reminder")) == 1
    for minutes in (0, 1, 2, 30):
        _run(deadline - timedelta(hours=2) + timedelta(minutes=minutes))
    assert len(mails(kind="reminder")) == 2
    assert _game(game.id).status == RUNNING


def test_a_turn_of_12_hours_gets_only_the_2_hour_reminder(app: Flask) -> None:
    game = _start("days:0.5")
    deadline = T0 + timedelta(hours=12)
    assert game.reminder_at == deadline - timedelta(hours=2)
    for hour in range(10):
        assert _run(T0 + timedelta(hours=hour)).reminders == 0
    assert _run(deadline - timedelta(hours=2)).reminders == 1
    assert _run(deadline - timedelta(minutes=1)).reminders == 0
    assert len(mails(kind="reminder")) == 1


def test_no_reminder_after_the_move(app: Flask) -> None:
    game = _start("days:3")
    old_reminder = game.reminder_at
    assert old_reminder is not None
    _move(game, "1", T0 + timedelta(hours=1))
    assert _run(old_reminder + timedelta(minutes=1)).reminders == 0
    assert mails(kind="reminder") == []
    # The next player's turn has reminders of its own.
    assert _game(game.id).reminder_at == old_reminder + timedelta(hours=1)


def test_a_late_clock_run_sends_one_reminder_not_two(app: Flask) -> None:
    game = _start("days:3")
    mover = _email(game, game.to_move)
    deadline = T0 + timedelta(days=3)
    # Both the 24-hour and the 2-hour reminder are due at the first run.
    report = _run(deadline - timedelta(hours=1))
    assert report.reminders == 1
    (reminder,) = mails(kind="reminder")
    assert reminder.to == mover and reminder.subject.endswith("your move is due in 1 hour")
    assert _game(game.id).reminder_at is None
    assert _run(deadline - timedelta(minutes=30)).reminders == 0


def test_a_paused_turn_gets_no_reminder(app: Flask) -> None:
    game = _start("days:3")
    mover = game.seats[game.to_move]
    vacation.start(settings(), mover.player_id, 10, now=T0 + timedelta(hours=1))
    game = _game(game.id)
    assert game.paused_at is not None and game.reminder_at is None
    for hours in (48, 70, 71):
        assert _run(T0 + timedelta(hours=hours)).reminders == 0
    assert mails(kind="reminder") == []


def test_no_reminder_once_the_deadline_has_passed(app: Flask) -> None:
    game = _start("days:1")
    deadline = game.deadline
    assert deadline is not None
    # The first run ever comes at the deadline: a timeout, not a reminder as well.
    report = clock_task.run_clock(settings(), deadline)
    assert (report.reminders, report.timeouts) == (0, 1)
    assert mails(kind="reminder") == []


def test_no_reminder_while_a_move_stored_in_time_waits(app: Flask) -> None:
    game = _start("days:1")
    deadline = game.deadline
    assert deadline is not None
    with time_machine.travel(deadline - timedelta(hours=3), tick=False):
        moves.submit_move(game.seats[game.to_move], "1", game.ply)
    report = _run(deadline + timedelta(minutes=1))
    assert (report.reminders, report.timeouts) == (0, 0)
    assert _game(game.id).reminder_at is None


def test_reminders_follow_the_setting(tmp_path, countdown_engine: None) -> None:  # type: ignore[no-untyped-def]
    from tests.conftest import make_app

    app = make_app(tmp_path, PBEM_REMINDER_HOURS="none")
    with app.app_context():
        db.create_all()
        game = _start("days:3")
        assert game.reminder_at is None
        assert _run(T0 + timedelta(days=3, minutes=-1)).reminders == 0
        db.session.remove()
        db.engine.dispose()


# --- timeouts ------------------------------------------------------------------------------------


def test_a_late_move_after_a_timeout_is_told_the_game_was_lost_on_time(app: Flask) -> None:
    game = _start("days:1")
    seat = game.seats[game.to_move]
    _run(T0 + timedelta(days=1))
    with (
        time_machine.travel(T0 + timedelta(days=1, hours=1), tick=False),
        pytest.raises(GameOver, match=r"The game is over\. .* ran out of time"),
    ):
        moves.submit_move(seat, "1", 0)


def test_a_timeout_in_a_game_of_three_drops_the_seat_and_play_goes_on(app: Flask) -> None:
    game = _start("days:1", emails=THREE)
    assert game.timeout_policy == "drop"
    _move(game, "1", T0 + timedelta(hours=1))  # seat 0 moves; seat 1 is to move
    game = _game(game.id)
    late, after = game.to_move, None
    assert late == 1
    mails_before = len(mails())
    timed_out_at = T0 + timedelta(hours=1, days=1)
    report = _run(timed_out_at)
    assert report.timeouts == 1
    game = _game(game.id)
    after = game.to_move
    assert game.status == RUNNING and after == 2
    assert [seat.state for seat in game.seats] == [ACTIVE, DROPPED, ACTIVE]
    assert game.state is not None and game.state["dropped"] == [1]
    assert game.turn_started_at == timed_out_at
    assert game.deadline == timed_out_at + timedelta(days=1)
    assert _events(game.id) == [("timeout", 1, 1)]
    news = mails()[mails_before:]
    assert sorted((m.kind, m.to) for m in news) == sorted(
        [("left", _email(game, 0)), ("left", _email(game, 1)), ("turn", _email(game, 2))]
    )
    turn = next(m for m in news if m.kind == "turn")
    assert f"{views.names(game)[1]} ran out of time and has left the game." in turn.text
    left = {m.to: m for m in news if m.kind == "left"}
    assert "You ran out of time" in left[_email(game, 1)].text
    assert "play goes on without them" in left[_email(game, 0)].text
    # Play goes on among the other two, skipping the seat that left.
    _move(game, "1", timed_out_at + timedelta(hours=1))
    game = _game(game.id)
    assert game.to_move == 0 and game.ply == 2


def test_a_second_timeout_in_a_game_of_three_ends_it_and_the_last_seat_wins(app: Flask) -> None:
    game = _start("days:1", emails=THREE)
    _run(T0 + timedelta(days=1))  # seat 0 drops
    game = _game(game.id)
    assert game.to_move == 1
    result_before = len(mails(kind="result"))
    report = _run(T0 + timedelta(days=2))  # seat 1 drops
    assert report.timeouts == 1
    game = _game(game.id)
    assert game.status == FINISHED and game.to_move is None and game.deadline is None
    assert [seat.state for seat in game.seats] == [DROPPED, DROPPED, ACTIVE]
    assert game.outcome is not None and game.outcome["winners"] == [2]
    assert _events(game.id) == [("timeout", 0, 0), ("timeout", 1, 0)]
    results = mails(kind="result")[result_before:]
    assert sorted(m.to for m in results) == sorted(THREE)
    assert _run(T0 + timedelta(days=5)).timeouts == 0


def test_the_record_and_the_replay_agree_with_the_stored_state_after_drops(app: Flask) -> None:
    game = _start("days:1", emails=THREE, pile=21)
    _move(game, "2", T0 + timedelta(hours=1))  # seat 0
    _run(T0 + timedelta(hours=1, days=1))  # seat 1 drops at ply 1
    game = _game(game.id)
    _move(game, "3", T0 + timedelta(days=1, hours=2))  # seat 2
    _move(_game(game.id), "1", T0 + timedelta(days=1, hours=3))  # seat 0
    game = _game(game.id)
    assert game.to_move == 2
    record = views.game_record(game)
    assert record["clock"] == {"kind": "days", "days": 1, "weekends_free": False}
    assert [(e["kind"], e["seat"], e["ply"], e["detail"]) for e in record["events"]] == [
        ("timeout", 1, 1, {"dropped": True})
    ]
    assert [p["state"] for p in record["players"]] == [ACTIVE, DROPPED, ACTIVE]
    positions = list(views.replay(game))
    assert len(positions) == 4
    assert positions[-1].to_json() == game.state
    # Seat 1 left after the first move: the replay drops it there.
    assert positions[0].dropped == [] and positions[1].dropped == [1]
    # A second drop that ends the game: the replay still arrives where the game is.
    _run(T0 + timedelta(days=2, hours=4))
    game = _game(game.id)
    assert game.status == FINISHED
    assert list(views.replay(game))[-1].to_json() == game.state
    assert views.position_after(game, 3) is not None


# --- downtime ------------------------------------------------------------------------------------


def test_downtime_extends_running_deadlines_by_the_gap(app: Flask) -> None:
    game = _start("days:1")
    deadline, reminder = game.deadline, game.reminder_at
    assert deadline is not None and reminder is not None
    clock_task.run_clock(settings(), deadline - timedelta(minutes=25))
    # Down for 30 minutes, across the deadline: the first run back extends before it times out.
    report = clock_task.run_clock(settings(), deadline + timedelta(minutes=5))
    assert report.downtime_seconds == 1800 and report.extended == 1
    assert report.timeouts == 0
    assert report.summary().startswith("1 deadlines extended by 1800s of downtime")
    game = _game(game.id)
    assert game.status == RUNNING
    assert game.deadline == deadline + timedelta(minutes=30)
    # The reminder was sent (due at the run), so none is left: it is not moved back.
    assert game.reminder_at is None
    assert _run(deadline + timedelta(minutes=30)).timeouts == 1


def test_downtime_moves_the_next_reminder_too(app: Flask) -> None:
    game = _start("days:3")
    reminder = game.reminder_at
    assert reminder is not None
    clock_task.run_clock(settings(), T0 + timedelta(hours=1))
    clock_task.run_clock(settings(), T0 + timedelta(hours=3))
    game = _game(game.id)
    assert game.deadline == T0 + timedelta(days=3, hours=2)
    assert game.reminder_at == reminder + timedelta(hours=2)


def test_a_gap_shorter_than_the_setting_is_not_downtime(app: Flask) -> None:
    game = _start("days:1")
    deadline = game.deadline
    assert deadline is not None
    clock_task.run_clock(settings(), deadline - timedelta(minutes=4))
    report = clock_task.run_clock(settings(), deadline + timedelta(minutes=5))  # 9 minutes
    assert report.downtime_seconds == 0 and report.extended == 0
    assert report.timeouts == 1
    assert _game(game.id).status == FINISHED


def test_the_first_run_ever_extends_nothing(app: Flask) -> None:
    game = _start("days:1")
    assert db.session.get(ClockRun, 1) is None
    report = clock_task.run_clock(settings(), T0 + timedelta(days=3))
    assert report.downtime_seconds == 0 and report.extended == 0
    assert report.timeouts == 1
    assert _game(game.id).status == FINISHED


def test_a_run_as_of_the_past_does_not_move_the_last_run_back(app: Flask) -> None:
    game = _start("days:1")
    deadline = game.deadline
    assert deadline is not None
    clock_task.run_clock(settings(), deadline - timedelta(minutes=5))
    report = clock_task.run_clock(settings(), deadline - timedelta(hours=5))
    assert report.ran and report.downtime_seconds == 0
    db.session.expire_all()
    run = db.session.get(ClockRun, 1)
    assert run is not None and run.last_run_at == deadline - timedelta(minutes=5)
    # So the next run finds a gap of 6 minutes, not 5 hours: no downtime, the game times out.
    report = clock_task.run_clock(settings(), deadline + timedelta(minutes=1))
    assert report.downtime_seconds == 0 and report.timeouts == 1


def test_a_run_without_downtime_acts_as_of_its_instant_and_leaves_the_last_run(
    app: Flask,
) -> None:
    """`pbem clock --now`: hours after the last run, yet no gap is credited and none recorded."""
    game = _start("days:1")
    deadline = game.deadline
    assert deadline is not None
    clock_task.run_clock(settings(), T0 + timedelta(minutes=1))
    report = clock_task.run_clock(settings(), deadline + timedelta(hours=5), measure_downtime=False)
    assert report.ran and report.downtime_seconds == 0 and report.extended == 0
    assert report.timeouts == 1
    assert _game(game.id).status == FINISHED
    db.session.expire_all()
    run = db.session.get(ClockRun, 1)
    assert run is not None and run.last_run_at == T0 + timedelta(minutes=1)


def test_a_run_without_downtime_records_no_first_run(app: Flask) -> None:
    _start("days:1")
    report = clock_task.run_clock(settings(), T0 + timedelta(hours=23), measure_downtime=False)
    assert report.ran and report.reminders == 1
    assert db.session.get(ClockRun, 1) is None


def test_downtime_leaves_paused_and_clockless_games_alone(app: Flask) -> None:
    paused = _start("days:1")
    vacation.start(settings(), paused.seats[paused.to_move].player_id, 5, now=T0)
    clockless = _start("none", emails=["dan@example.org", "eve@example.org"])
    paused_deadline = _game(paused.id).deadline
    clock_task.run_clock(settings(), T0 + timedelta(minutes=1))
    report = clock_task.run_clock(settings(), T0 + timedelta(hours=2))
    assert report.extended == 0
    assert _game(paused.id).deadline == paused_deadline
    assert _game(clockless.id).deadline is None


# --- invitations ---------------------------------------------------------------------------------


def _inviting(emails: list[str] = THREE, clock: str = "days:1") -> Game:
    """A game of countdown created at T0 by the operator (confirmed then); only the organiser
    (the first address) has accepted."""
    with time_machine.travel(T0, tick=False):
        created = starting.create_game(
            settings(), "countdown", {"pile": 10}, emails, clock=parse_clock(clock)
        )
        game = _game(created.game_id)
        organiser = next(s for s in game.seats if s.player.email == emails[0])
        starting.accept_invitation(settings(), organiser)
    return _game(created.game_id)


def _seat_of(game: Game, email: str) -> Seat:
    return next(s for s in game.seats if s.player.email == email)


def _invitation_claims(email: str) -> links.LinkClaims:
    """The claims of the last invitation link mailed to `email`."""
    invite = mails(to=email, kind="invite")[-1]
    match = re.search(r"/invite/(\S+)", invite.text)
    assert match is not None
    # Read a little after it was signed (the tests' clock is in 2026).
    with time_machine.travel(invite.created_at + timedelta(minutes=1), tick=False):
        return access.read_claims(settings(), match[1], links.INVITE)


def test_an_invitation_lapses_7_days_after_the_confirmation(app: Flask) -> None:
    game = _inviting()
    bob_claims = _invitation_claims("bob@example.org")
    assert _run(T0 + timedelta(days=7, seconds=-1)).invitations_expired == 0
    report = _run(T0 + timedelta(days=7))
    assert report.invitations_expired == 2 and report.cancelled == 0
    game = _game(game.id)
    assert game.status == INVITING
    lapsed = sorted(s.seat for s in game.seats if s.expired_at is not None)
    assert lapsed == sorted(_seat_of(game, e).seat for e in THREE[1:])
    assert sorted(_events(game.id)) == sorted(("invitation_expired", seat, 0) for seat in lapsed)
    (expired,) = mails(kind="expired")
    assert expired.to == "alice@example.org"
    unfolded = " ".join(expired.text.split())  # the text folds at 78 columns
    assert "The invitations to " in unfolded
    assert all(views.names(game)[seat] in unfolded for seat in lapsed)
    assert "bob@example.org" not in expired.text  # named, never by address
    assert "If the seats are not all taken by Wednesday 16 December, 12:00 UTC" in unfolded
    # The lapsed invitation link is refused.
    with pytest.raises(links.RevokedLink):
        starting.accept_invitation(settings(), bob_claims)
    # Lapsed once: later runs expire nothing more.
    assert _run(T0 + timedelta(days=8)).invitations_expired == 0
    assert len(mails(kind="expired")) == 1


def test_an_unconfirmed_web_form_game_does_not_lapse(app: Flask) -> None:
    with time_machine.travel(T0, tick=False):
        created = starting.create_game(
            settings(), "countdown", {}, EMAILS, started_by=starting.BY_STRANGER
        )
    report = _run(T0 + timedelta(days=30))
    assert (report.invitations_expired, report.cancelled) == (0, 0)
    assert _game(created.game_id).status == INVITING


def _reinvite(game: Game, email: str, to: str, at: datetime) -> list[int]:
    organiser = _seat_of(game, game.organiser.email)
    with time_machine.travel(at, tick=False):
        return starting.reinvite(settings(), organiser, _seat_of(game, email).seat, to)


def test_the_organiser_invites_someone_else_to_a_lapsed_seat(app: Flask) -> None:
    game = _inviting()
    bob_claims = _invitation_claims("bob@example.org")
    bob_seat = _seat_of(game, "bob@example.org").seat
    _run(T0 + timedelta(days=7))
    game = _game(game.id)
    _reinvite(game, "bob@example.org", " dan@Example.ORG ", T0 + timedelta(days=8))
    game = _game(game.id)
    seat = game.seats[bob_seat]
    assert seat.player.email == "dan@example.org" and seat.expired_at is None
    assert ("reinvited", bob_seat, 0) in _events(game.id)
    (invitation,) = mails(to="dan@example.org", kind="invite")
    # The organiser is named by their seat (they gave no name), never by their address.
    organiser = views.names(game)[_seat_of(game, "alice@example.org").seat]
    assert f"{organiser} invites you" in invitation.text
    assert "alice@example.org" not in invitation.text
    # The seat's old link stays dead (it names the seat's former player); the new one works.
    with pytest.raises(links.ForgedLink):
        starting.accept_invitation(settings(), bob_claims)
    accepted = starting.accept_invitation(settings(), _invitation_claims("dan@example.org"))
    assert accepted.started is False and accepted.already is False


def test_a_reinvited_seat_does_not_lapse_again_before_the_game_is_cancelled(app: Flask) -> None:
    game = _inviting(EMAILS)
    _run(T0 + timedelta(days=7))
    _reinvite(_game(game.id), "bob@example.org", "dan@example.org", T0 + timedelta(days=8))
    report = _run(T0 + timedelta(days=8, minutes=1))
    assert report.invitations_expired == 0
    game = _game(game.id)
    assert _seat_of(game, "dan@example.org").expired_at is None
    assert len(mails(kind="expired")) == 1
    # Dan accepts in time: the game starts.
    with time_machine.travel(T0 + timedelta(days=9), tick=False):
        accepted = starting.accept_invitation(settings(), _invitation_claims("dan@example.org"))
    assert accepted.started


def test_reinviting_is_refused_when_it_should_be(app: Flask) -> None:
    game = _inviting()
    _run(T0 + timedelta(days=7))
    game = _game(game.id)
    bob_seat = _seat_of(game, "bob@example.org").seat
    organiser = _seat_of(game, "alice@example.org")
    carol = _seat_of(game, "carol@example.org")
    with pytest.raises(SetupError, match="Only the player who started the game"):
        starting.reinvite(settings(), carol, bob_seat, "dan@example.org")
    with pytest.raises(SetupError, match="Only a seat whose invitation lapsed"):
        starting.reinvite(settings(), organiser, organiser.seat, "dan@example.org")
    with pytest.raises(SetupError, match=r"carol@example\.org has a seat in this game already"):
        starting.reinvite(settings(), organiser, bob_seat, "carol@EXAMPLE.org")
    blocked = Player(email="mallory@example.org", blocked_at=T0)
    db.session.add(blocked)
    db.session.commit()
    with pytest.raises(SetupError, match="asked pbem never to email them"):
        starting.reinvite(settings(), organiser, bob_seat, "mallory@example.org")
    game = _game(game.id)
    assert game.seats[bob_seat].player.email == "bob@example.org"
    assert mails(kind="invite", to="dan@example.org") == []


def test_reinviting_an_open_seat_is_refused(app: Flask) -> None:
    game = _inviting()
    organiser = _seat_of(game, "alice@example.org")
    with pytest.raises(SetupError, match="Only a seat whose invitation lapsed"):
        starting.reinvite(
            settings(), organiser, _seat_of(game, "bob@example.org").seat, "dan@example.org"
        )


def test_a_game_still_short_7_days_after_the_lapse_is_cancelled(app: Flask) -> None:
    game = _inviting()
    _run(T0 + timedelta(days=7))
    assert _run(T0 + timedelta(days=14, seconds=-1)).cancelled == 0
    report = _run(T0 + timedelta(days=14))
    assert report.cancelled == 1
    game = _game(game.id)
    assert game.status == CANCELLED and game.outcome is not None
    assert game.outcome["reason"] == "cancelled"
    assert _events(game.id)[-1] == ("cancelled", None, 0)
    cancelled = mails(kind="cancelled")
    assert sorted(m.to for m in cancelled) == sorted(THREE)
    assert "not every seat was taken in time" in cancelled[0].text
    assert _run(T0 + timedelta(days=20)).cancelled == 0


def test_a_game_whose_seats_were_all_taken_in_time_is_not_cancelled(app: Flask) -> None:
    game = _inviting(EMAILS, clock="days:10")
    _run(T0 + timedelta(days=7))
    _reinvite(_game(game.id), "bob@example.org", "dan@example.org", T0 + timedelta(days=8))
    with time_machine.travel(T0 + timedelta(days=10), tick=False):
        starting.accept_invitation(settings(), _invitation_claims("dan@example.org"))
    report = _run(T0 + timedelta(days=14))
    assert report.cancelled == 0
    game = _game(game.id)
    assert game.status == RUNNING
    assert mails(kind="cancelled") == []


def test_a_cancelled_game_takes_no_moves(app: Flask) -> None:
    game = _inviting(EMAILS)
    _run(T0 + timedelta(days=7))
    _run(T0 + timedelta(days=14))
    game = _game(game.id)
    with pytest.raises(GameOver, match=r"The game is over\. Cancelled"):
        moves.submit_move(game.seats[0], "1", 0)
    with pytest.raises(GameOver):
        endings.resign(settings(), _seat_of(game, "alice@example.org"))
