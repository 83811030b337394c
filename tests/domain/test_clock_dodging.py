"""The clock cannot be dodged: whatever a seat does on its own turn, in time or after its
deadline, the turn's deadline and the seat's Fischer bank never move in its favour but as
docs/rules/clocks.md says (a vacation taken in time stops the clock), and after the deadline
nothing it does keeps the game from being settled as a timeout.

Every action goes through what a player has (the game page, the games page, the mail
settings) or the operator's link rotation, on a fixed calendar: each test travels to its
instants from the suite's fixed clock. The bot worker is down unless a test says otherwise, so
that a seat handed to the bot is still the bot's to hand back."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta

import pytest
import time_machine
from flask import Flask
from flask.testing import FlaskClient
from werkzeug.test import TestResponse

from pbem import dispatch, links
from pbem.domain import autopilot, bot_turns, moves, rotation, starting, turns, vacation
from pbem.domain.clocks import parse_clock
from pbem.domain.errors import OutOfTime
from pbem.extensions import db, settings
from pbem.models import AUTOPILOT, CANCELLED, FINISHED, RUNNING, Game, Player
from pbem.web.mail_settings import ONE_CLICK_FIELD, ONE_CLICK_VALUE
from tests.domain.clock_flow import T0, THREE, move_at, reload, run_clock_at
from tests.domain.flow import EMAILS

DAY = timedelta(days=1)
# One hour left of a one-day turn, as in the report: 3,600 s.
IN_TIME = T0 + timedelta(hours=23)
# Past the deadline, before the clock task has run.
LATE = T0 + timedelta(days=1, minutes=30)
STEP = timedelta(seconds=0.3)
CLOCKS = ("days:1", "fischer:1+0.5/2")


@pytest.fixture(autouse=True)
def bot_worker_down(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(dispatch, "play_bots_later", lambda game_ids: True)


def _start(clock: str, emails: list[str] = EMAILS, policy: str | None = None) -> Game:
    """A game started at T0, its first turn on the clock."""
    with time_machine.travel(T0, tick=False):
        created = starting.create_game(
            settings(),
            "countdown",
            {"pile": 21},
            emails,
            clock=parse_clock(clock),
            timeout_policy=policy,
        )
        for seat in list(reload(created.game_id).seats):
            starting.accept_invitation(settings(), seat)
    game = reload(created.game_id)
    assert game.status == RUNNING and game.deadline == T0 + DAY
    return game


@dataclass(frozen=True)
class Seat:
    """The seat to move and everything its player holds: its game page, the opponent's, the
    player's games page and mail settings (paths, as the emails carry them)."""

    game_id: str
    index: int
    player_id: int
    play: str
    other: str
    me: str
    mail: str


def _mover(game: Game) -> Seat:
    secret = settings().signing_key
    assert game.to_move is not None
    seat = game.seats[game.to_move]
    other = next(s for s in game.seats if s.seat != seat.seat)
    player = seat.player
    return Seat(
        game.id,
        seat.seat,
        player.id,
        f"/play/{links.token_for(secret, seat, links.SEAT)}",
        f"/play/{links.token_for(secret, other, links.SEAT)}",
        f"/me/{links.player_token(secret, player.id, player.nonce)}",
        f"/mail/{links.player_token(secret, player.id, '', links.MAIL)}",
    )


Step = Callable[[FlaskClient, Seat], TestResponse | None]


@dataclass(frozen=True)
class Action:
    steps: tuple[Step, ...]  # STEP apart, as fast as a script
    refused_late: bool = False  # refused after the deadline (409)
    ends_game: str | None = None  # the status it leaves a game in, in time
    before: Step | None = None  # what the opponent did earlier in the turn


def _post(path: Callable[[Seat], str], **form: str) -> Step:
    return lambda client, seat: client.post(path(seat), data=form)


def _rotate(client: FlaskClient, seat: Seat) -> None:
    rotation.rotate_seat_links(settings(), seat.game_id, seat.index)


PILOT_ON = _post(lambda s: f"{s.play}/autopilot", autopilot="on")
PILOT_OFF = _post(lambda s: f"{s.play}/autopilot", autopilot="off")
OTHER_OFFERS_DRAW = _post(lambda s: f"{s.other}/draw")
OTHER_PROPOSES_CANCEL = _post(lambda s: f"{s.other}/cancel")


def _dashboard_pilot(choice: str) -> Step:
    return lambda client, seat: client.post(
        f"{seat.me}/autopilot",
        data={"game": seat.game_id, "seat": str(seat.index), "autopilot": choice},
    )


ACTIONS = {
    "autopilot on and off": Action((PILOT_ON, PILOT_OFF), refused_late=True),
    "autopilot on and off twice": Action(
        (PILOT_ON, PILOT_OFF, PILOT_ON, PILOT_OFF), refused_late=True
    ),
    "autopilot on the games page, off on the game page": Action(
        (_dashboard_pilot("on"), PILOT_OFF), refused_late=True
    ),
    "autopilot on and off on the games page": Action(
        (_dashboard_pilot("on"), _dashboard_pilot("off")), refused_late=True
    ),
    "vacation": Action((_post(lambda s: f"{s.me}/vacation", days="3"),)),
    "vacation and straight back": Action(
        (_post(lambda s: f"{s.me}/vacation", days="3"), _post(lambda s: f"{s.me}/vacation/end"))
    ),
    "offer a draw": Action((_post(lambda s: f"{s.play}/draw"),), refused_late=True),
    "accept the opponent's draw offer": Action(
        (_post(lambda s: f"{s.play}/draw/accept"),),
        refused_late=True,
        ends_game=FINISHED,
        before=OTHER_OFFERS_DRAW,
    ),
    "offer a draw while the opponent's stands": Action(
        (_post(lambda s: f"{s.play}/draw"),),
        refused_late=True,
        ends_game=FINISHED,
        before=OTHER_OFFERS_DRAW,
    ),
    "decline the opponent's draw offer": Action(
        (_post(lambda s: f"{s.play}/draw/decline"),), before=OTHER_OFFERS_DRAW
    ),
    "propose cancelling": Action((_post(lambda s: f"{s.play}/cancel"),), refused_late=True),
    "agree to the opponent's proposal to cancel": Action(
        (_post(lambda s: f"{s.play}/cancel"),),
        refused_late=True,
        ends_game=CANCELLED,
        before=OTHER_PROPOSES_CANCEL,
    ),
    "decline the opponent's proposal to cancel": Action(
        (_post(lambda s: f"{s.play}/cancel/decline"),), before=OTHER_PROPOSES_CANCEL
    ),
    "name": Action((_post(lambda s: f"{s.me}/name", name="Alice Liddell"),)),
    "name cleared": Action((_post(lambda s: f"{s.me}/name", name=""),)),
    "time zone": Action((_post(lambda s: f"{s.me}/timezone", zone="Pacific/Auckland"),)),
    "daily digest": Action((_post(lambda s: f"{s.me}/mail", preference="digest"),)),
    "no turn mail": Action((_post(lambda s: f"{s.me}/mail", preference="none"),)),
    "mail settings page": Action((_post(lambda s: s.mail, preference="digest"),)),
    "one-click unsubscribe": Action(
        (_post(lambda s: s.mail, **{ONE_CLICK_FIELD: ONE_CLICK_VALUE}),)
    ),
    "sign out everywhere": Action((_post(lambda s: f"{s.me}/signout"),)),
    "the seat's links rotated": Action((_rotate,)),
}


def _bank(game: Game, seat: int) -> float | None:
    return game.seats[seat].bank_seconds


def _vacation_left(player_id: int, at: datetime) -> float:
    db.session.expire_all()
    player = db.session.get(Player, player_id)
    assert player is not None
    return vacation.balance(settings(), player, at).seconds


@pytest.mark.parametrize("clock", CLOCKS)
@pytest.mark.parametrize("name", sorted(ACTIONS))
def test_no_action_on_ones_own_turn_moves_the_clock_in_ones_favour(
    app: Flask, client: FlaskClient, clock: str, name: str
) -> None:
    action = ACTIONS[name]
    game = _start(clock)
    seat = _mover(game)
    if action.before is not None:
        with time_machine.travel(T0 + timedelta(hours=1), tick=False):
            answer = action.before(client, seat)
            assert answer is not None and answer.status_code == 303, answer and answer.text
    game = reload(game.id)
    turn, bank = turns.TurnClock.of(game), _bank(game, seat.index)
    game_clock = turns.game_clock(game.clock)
    away_before = _vacation_left(seat.player_id, IN_TIME)
    with time_machine.travel(IN_TIME, tick=False) as traveller:
        for step in action.steps:
            answer = step(client, seat)
            assert answer is None or answer.status_code < 400, answer.text
            traveller.shift(STEP)
    end = IN_TIME + STEP * len(action.steps)
    game = reload(game.id)
    if action.ends_game is not None:
        assert game.status == action.ends_game, "ended by agreement, in time"
        return
    assert game.status == RUNNING and game.seats[seat.index].autopilot_since is None
    after = turns.TurnClock.of(game)
    # A paused turn keeps the time it had when its clock stopped.
    at = after.paused_at or end
    left_before = turns.seconds_left(game_clock, turn, at)
    left_after = turns.seconds_left(game_clock, after, at)
    assert left_before is not None and left_after is not None
    # More time only as a vacation gives it (docs/rules/clocks.md): the clock stopped while
    # away, and the days away paid from the vacation balance.
    spent_away = away_before - _vacation_left(seat.player_id, end)
    assert left_after - left_before <= spent_away + 1e-6, "no more time than the turn had"
    assert after.turn_started_at == turn.turn_started_at
    if after.paused_at is not None:
        assert name.startswith("vacation") and after.paused_at >= IN_TIME
        assert after.deadline == turn.deadline, "kept, to measure the time left from"
    if bank is not None:
        assert (_bank(game, seat.index) or 0.0) <= bank, "no Fischer time given back"
    if after.paused_at is None:
        # The turn still ends when it did: a move after that deadline is refused.
        after_deadline = T0 + DAY + timedelta(seconds=1)
        with time_machine.travel(after_deadline, tick=False), pytest.raises(OutOfTime):
            moves.submit_move(reload(game.id).seats[seat.index], "1", 0)


@pytest.mark.parametrize("clock", CLOCKS)
@pytest.mark.parametrize("name", sorted(ACTIONS))
def test_no_action_after_ones_deadline_saves_the_turn(
    app: Flask, client: FlaskClient, clock: str, name: str
) -> None:
    action = ACTIONS[name]
    game = _start(clock)
    seat = _mover(game)
    if action.before is not None:
        with time_machine.travel(T0 + timedelta(hours=1), tick=False):
            answer = action.before(client, seat)
            assert answer is not None and answer.status_code == 303
    game = reload(game.id)
    turn, bank = turns.TurnClock.of(game), _bank(game, seat.index)
    answers = []
    with time_machine.travel(LATE, tick=False) as traveller:
        for step in action.steps:
            answers.append(step(client, seat))
            traveller.shift(STEP)
    if action.refused_late:
        first = answers[0]
        assert first is not None and first.status_code == 409, first and first.text
        assert "ran out" in first.text
    assert all(a is None or a.status_code < 500 for a in answers)
    game = reload(game.id)
    assert game.status == RUNNING, "nothing but the timeout ends the game now"
    assert game.seats[seat.index].autopilot_since is None
    assert turns.TurnClock.of(game) == turn, "no pause, no new turn, no later deadline"
    assert _bank(game, seat.index) == bank
    with time_machine.travel(LATE + timedelta(minutes=1), tick=False), pytest.raises(OutOfTime):
        moves.submit_move(reload(game.id).seats[seat.index], "1", 0)
    assert run_clock_at(LATE + timedelta(minutes=2)).timeouts == 1
    game = reload(game.id)
    assert game.status == FINISHED and game.outcome is not None
    assert game.outcome["reason"] == "timeout"


# --- autopilot -----------------------------------------------------------------------------------


def test_autopilot_on_and_off_keeps_the_time_left_the_api_gives(
    app: Flask, client: FlaskClient
) -> None:
    """The report: 3,599 s left, then autopilot on and off 0.3 s apart gave 86,396 s."""
    game = _start("days:1")
    seat = _mover(game)
    api = f"/api/games/{game.id}?token={seat.play.removeprefix('/play/')}"

    def left() -> int:
        players = client.get(api).get_json()["players"]
        return int(players[seat.index]["time_left_s"])

    with time_machine.travel(IN_TIME + timedelta(seconds=1), tick=False) as traveller:
        assert left() == 3_599
        assert client.post(f"{seat.play}/autopilot", data={"autopilot": "on"}).status_code == 303
        traveller.shift(STEP)
        assert client.post(f"{seat.play}/autopilot", data={"autopilot": "off"}).status_code == 303
        assert left() == 3_598
    assert reload(game.id).deadline == T0 + DAY


def test_a_fischer_bank_pays_for_the_time_used_before_the_bot_took_over(app: Flask) -> None:
    game = _start("fischer:1+0.5/2")
    mover = game.to_move
    assert mover is not None and _bank(game, mover) == DAY.total_seconds()
    with time_machine.travel(IN_TIME, tick=False):
        autopilot.hand_over(settings(), game.seats[mover], on=True)
        # The bot moves for the seat: its turn is not timed, and adds nothing to the bank.
        dispatch_bots(game.id)
    game = reload(game.id)
    assert game.ply == 1 and game.to_move != mover
    assert _bank(game, mover) == pytest.approx(3_600)


def dispatch_bots(game_id: str) -> None:
    """The bot worker, for once: every bot turn of the game played in-process."""
    for game in bot_turns.with_bots([game_id]):
        acted = bot_turns.act(settings(), game)
        if acted.submission_id is not None:
            moves.apply_moves(settings(), [acted.submission_id])


def test_a_turn_that_ran_out_while_on_autopilot_is_the_bots(
    app: Flask, client: FlaskClient
) -> None:
    game = _start("days:1")
    seat = _mover(game)
    with time_machine.travel(IN_TIME, tick=False):
        assert client.post(f"{seat.play}/autopilot", data={"autopilot": "on"}).status_code == 303
    with time_machine.travel(T0 + DAY + timedelta(minutes=1), tick=False):
        refused = client.post(f"{seat.play}/autopilot", data={"autopilot": "off"})
    assert refused.status_code == 409
    assert "bot had your seat, so the bot is playing it" in refused.text
    game = reload(game.id)
    assert game.seats[seat.index].autopilot_since is not None
    assert game.deadline is None, "the bot's turn is not timed"
    assert run_clock_at(T0 + 2 * DAY).timeouts == 0


def test_a_turn_that_began_on_autopilot_runs_from_when_it_began(app: Flask) -> None:
    game = _start("days:1")
    waiting = next(s for s in game.seats if s.seat != game.to_move)
    with time_machine.travel(T0 + timedelta(hours=1), tick=False):
        autopilot.hand_over(settings(), waiting, on=True)
    moved_at = T0 + timedelta(hours=2)
    move_at(reload(game.id), "1", moved_at)
    game = reload(game.id)
    assert game.to_move == waiting.seat and game.deadline is None
    with time_machine.travel(moved_at + timedelta(hours=5), tick=False):
        autopilot.hand_over(settings(), game.seats[waiting.seat], on=False)
    game = reload(game.id)
    assert game.turn_started_at == moved_at and game.deadline == moved_at + DAY


def test_a_seat_out_of_time_under_the_autopilot_policy_waits_for_the_bots_move(
    app: Flask,
) -> None:
    game = _start("days:1", THREE, policy=AUTOPILOT)
    late = game.to_move
    assert late is not None
    assert run_clock_at(T0 + DAY + timedelta(minutes=1)).timeouts == 1
    game = reload(game.id)
    assert game.seats[late].autopilot_since is not None and game.to_move == late
    with (
        time_machine.travel(T0 + DAY + timedelta(minutes=2), tick=False),
        pytest.raises(OutOfTime, match="You ran out of time on this turn"),
    ):
        autopilot.hand_over(settings(), game.seats[late], on=False)
    assert reload(game.id).seats[late].autopilot_since is not None


def test_a_paused_turn_handed_to_the_bot_and_back_keeps_its_time(app: Flask) -> None:
    game = _start("days:1")
    seat = game.seats[game.to_move or 0]
    vacation.start(settings(), seat.player_id, 3, now=T0 + timedelta(hours=20))
    with time_machine.travel(T0 + DAY * 2, tick=False) as traveller:
        autopilot.hand_over(settings(), reload(game.id).seats[seat.seat], on=True)
        traveller.shift(STEP)
        autopilot.hand_over(settings(), reload(game.id).seats[seat.seat], on=False)
    game = reload(game.id)
    # Four hours were left when the player went away; still away, the clock stays stopped.
    assert game.paused_at == T0 + DAY * 2 + STEP
    assert turns.seconds_left(turns.game_clock(game.clock), turns.TurnClock.of(game), T0) == (
        pytest.approx(4 * 3600 - STEP.total_seconds())
    )


# --- vacation and the paused-turn check --------------------------------------------------------


def test_a_vacation_after_the_deadline_pauses_nothing(app: Flask) -> None:
    game = _start("days:1")
    seat = game.seats[game.to_move or 0]
    vacation.start(settings(), seat.player_id, 5, now=LATE)
    game = reload(game.id)
    assert game.paused_at is None and game.deadline == T0 + DAY
    with time_machine.travel(LATE + timedelta(minutes=1), tick=False), pytest.raises(OutOfTime):
        moves.submit_move(game.seats[seat.seat], "1", 0)
    assert run_clock_at(LATE + timedelta(minutes=2)).timeouts == 1


def test_a_turn_paused_out_of_time_takes_no_move(app: Flask) -> None:
    """A turn paused after its deadline (as an earlier pbem did) is judged at its pause."""
    game = _start("days:1")
    game.paused_at = T0 + DAY + timedelta(minutes=5)
    game.reminder_at = None
    db.session.commit()
    with time_machine.travel(LATE, tick=False), pytest.raises(OutOfTime):
        moves.submit_move(reload(game.id).seats[game.to_move or 0], "1", 0)
