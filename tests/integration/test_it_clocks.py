"""Clocks on the real stack: reminders and timeouts sent by celery beat's clock task through a
real worker and SMTP, a last-second move racing the timeout, and two runs of the clock task
racing over the same games. Clocks of seconds: PBEM_CLOCK_MIN_SECONDS lets a game have one,
and `days:0.0001` is 8.64 seconds a move (the session's stack runs with conftest.CLOCK_ENV)."""

from __future__ import annotations

import subprocess
import time
from concurrent.futures import ThreadPoolExecutor

import pytest

from tests.support.flow import GameFlow, addresses
from tests.support.procs import wait_until
from tests.support.stack import Stack, _bin

pytestmark = [pytest.mark.integration, pytest.mark.audit, pytest.mark.timeout(600)]

SECONDS_PER_MOVE = 8.64  # days:0.0001


@pytest.fixture
def clock_stack(stack: Stack) -> Stack:
    """The session's stack, healed of what the previous test stopped on purpose: its clock task
    runs every second, a reminder comes 7.2 s before each deadline, and any clock is allowed
    (tests/integration/conftest.py, CLOCK_ENV)."""
    return stack


def _game(stack: Stack, clock: str = "days:0.0001") -> GameFlow:
    flow = GameFlow(
        stack.http,
        stack.smtp,
        "gorami",
        {"board": 16, "clock": "custom", "clock_custom": clock},
    )
    return flow.start()


def _cli_game(stack: Stack, clock: str) -> GameFlow:
    """A game started by the operator (`pbem new-game --clock`), both seats accepted over HTTP."""
    emails = addresses(2)
    done = stack.run(_bin("pbem"), "new-game", "gorami", "--board", "16", "--clock", clock, *emails)
    assert done.returncode == 0, done.stderr
    game_id = done.stdout.split()[1].rstrip(":")
    flow = GameFlow(stack.http, stack.smtp, "gorami", {"board": 16}, emails=emails)
    flow.game_id = game_id
    for email in emails:
        link = flow.invitation(email).link("/invite/")
        assert link and stack.http.post_form(link, {}).status == 200
    return flow


def _events(stack: Stack, game_id: str, kind: str = "timeout", ply: int | None = None) -> int:
    """The game's events of `kind` (at `ply` only, when given)."""
    query = "select count(*) from game_events where game_id = %s and kind = %s"
    if ply is None:
        return int(stack.db.scalar(query, game_id, kind))
    return int(stack.db.scalar(query + " and ply = %s", game_id, kind, ply))


def test_a_reminder_then_the_timeout_reach_the_players_by_mail(clock_stack: Stack) -> None:
    stack = clock_stack
    flow = _game(stack)
    first = flow.turn_mail(0)
    assert "Move by " in first.text and " UTC" in first.text
    mover = next(iter(first.recipients()))
    reminder = flow.wait_mail(lambda m: "your move is due" in m.subject, what="the reminder")[0]
    assert reminder.recipients() == {mover}
    results = flow.wait_mail(lambda m: "game is over" in m.subject, count=2, what="results")
    assert all("ran out of time" in r.text for r in results)
    status, reason, winners = stack.db.query(
        "select status, outcome->>'reason', outcome->'winners' from games where id = %s",
        flow.game_id,
    )[0]
    assert (status, reason) == ("finished", "timeout") and len(winners) == 1
    assert _events(stack, flow.game_id) == 1
    # One reminder per turn, and nothing more once the game is over.
    time.sleep(3)
    assert len(flow.mails("your move is due")) == 1
    assert len(flow.mails("game is over")) == 2


def test_a_move_resets_the_clock_and_the_game_goes_on(clock_stack: Stack) -> None:
    stack = clock_stack
    flow = _game(stack, clock="days:0.0005")  # 43.2 s a move
    tokens = flow.seat_tokens()
    game = stack.http.get(f"/api/games/{flow.game_id}", token=tokens[0]).json()
    assert game["clock"] == {"kind": "days", "days": 0.0005, "weekends_free": False}
    first_deadline = game["deadline"]
    to_move = game["to_move"]
    assert game["players"][to_move]["time_left_s"] <= 44
    move = flow.legal(tokens[to_move])["moves"][0]
    assert flow.api_move(tokens[to_move], move, 0).status == 202
    flow.turn_mail(1)
    after = stack.http.get(f"/api/games/{flow.game_id}", token=tokens[0]).json()
    assert after["ply"] == 1 and after["deadline"] > first_deadline
    assert after["status"] == "running" and _events(stack, flow.game_id) == 0


def test_a_move_stored_before_the_deadline_wins_over_the_timeout(clock_stack: Stack) -> None:
    """The worker is away when the last-second move arrives: the move is stored in time, and
    the clock task, run past the deadline, leaves the game to it; the worker then plays it."""
    stack = clock_stack
    flow = _cli_game(stack, "days:0.0002")  # 17.28 s a move
    game_id = flow.game_id
    tokens = flow.seat_tokens()
    if stack.beat is not None:
        stack.beat.stop()
    stack.stop_workers()
    deadline = stack.db.scalar(
        "select extract(epoch from deadline - now() at time zone 'utc') from games where id = %s",
        game_id,
    )
    time.sleep(max(0.0, float(deadline) - 1.5))
    to_move = int(stack.db.scalar("select to_move from games where id = %s", game_id))
    move = flow.legal(tokens[to_move])["moves"][0]
    assert flow.api_move(tokens[to_move], move, 0).status == 202
    time.sleep(2.5)  # past the deadline now
    done = stack.run(_bin("pbem"), "clock")
    assert done.returncode == 0, done.stderr
    assert "0 timeouts" in done.stdout, done.stdout
    stack.start_worker()
    wait_until(
        lambda: stack.db.scalar("select ply from games where id = %s", game_id) == 1,
        timeout=60,
        message="the last-second move to be applied",
    )
    assert _events(stack, game_id) == 0
    assert stack.db.scalar("select status from games where id = %s", game_id) == "running"


NOT_SENT = 0


def test_last_second_moves_and_the_clock_task_never_both_win_a_turn(clock_stack: Stack) -> None:
    """Games whose deadlines fall now, each sent a move around the deadline while clock runs
    go on: every game ends its first turn by exactly one of the two."""
    stack = clock_stack
    flows = []
    for _ in range(6):
        flow = _cli_game(stack, "days:0.0002")
        flows.append((flow, flow.seat_tokens()))

    def seconds_left(flow: GameFlow) -> float | None:
        """None once the game has no deadline: setting up six games on a loaded machine can
        outlast the first one's 17 seconds, and beat times it out meanwhile."""
        left = stack.db.scalar(
            "select extract(epoch from deadline - now() at time zone 'utc') from games "
            "where id = %s",
            flow.game_id,
        )
        return None if left is None else float(left)

    last = max((left for flow, _ in flows if (left := seconds_left(flow)) is not None), default=0)

    def move_late(item: tuple[GameFlow, dict[int, str]]) -> int:
        flow, tokens = item
        left = seconds_left(flow)
        if left is None:
            return NOT_SENT  # timed out already: nothing to race
        time.sleep(max(0.0, left - 0.05))
        to_move = int(stack.db.scalar("select to_move from games where id = %s", flow.game_id))
        legal = flow.legal(tokens[to_move])
        if not legal["moves"]:
            return NOT_SENT
        return flow.api_move(tokens[to_move], legal["moves"][0], 0).status

    def clock_runs() -> None:
        end = time.monotonic() + last + 3
        while time.monotonic() < end:
            stack.run(_bin("pbem"), "clock")

    with ThreadPoolExecutor(max_workers=8) as pool:
        runner = pool.submit(clock_runs)
        statuses = list(pool.map(move_late, flows))
        runner.result()
    assert all(status in (NOT_SENT, 202, 409) for status in statuses), statuses
    for flow, _ in flows:
        wait_until(
            lambda f=flow: (
                stack.db.scalar(
                    "select count(*) from submissions where game_id = %s and status = 'pending'",
                    f.game_id,
                )
                == 0
            ),
            timeout=60,
            message="the submissions to be decided",
        )
        # Only the first turn's: beat keeps running the clock while this loop waits, and under
        # load the next turn (17 s) can run out too, which is no race.
        timeouts = _events(stack, flow.game_id, ply=0)
        moved = stack.db.scalar(
            "select count(*) from moves where game_id = %s and ply = 0", flow.game_id
        )
        status = stack.db.scalar("select status from games where id = %s", flow.game_id)
        # Either the move was played (and the game went on) or the turn timed out: never both.
        assert (timeouts, moved) in ((1, 0), (0, 1)), (flow.game_id, timeouts, moved)
        if timeouts:
            assert status == "finished"


def test_two_clock_runs_at_once_time_each_game_out_once(clock_stack: Stack) -> None:
    stack = clock_stack
    if stack.beat is not None:
        stack.beat.stop()
    stack.start_worker("w2")
    game_ids = [_cli_game(stack, "days:0.0001").game_id for _ in range(8)]
    wait_until(
        lambda: (
            stack.db.scalar(
                "select count(*) from games where id = any(%s) "
                "and deadline < now() at time zone 'utc'",
                game_ids,
            )
            == len(game_ids)
        ),
        timeout=60,
        message="every deadline to pass",
    )
    # Two operators' `pbem clock` and two clock tasks on two workers, all at once.
    runs = [
        subprocess.Popen([_bin("pbem"), "clock"], env=stack.env, stdout=subprocess.PIPE),
        subprocess.Popen([_bin("pbem"), "clock"], env=stack.env, stdout=subprocess.PIPE),
    ]
    for _ in range(2):
        called = stack.run(
            _bin("celery"), "-A", "workers.celery_app", "call", "workers.tasks.clock"
        )
        assert called.returncode == 0, called.stderr
    for run in runs:
        assert run.wait(timeout=120) == 0
    for game_id in game_ids:
        wait_until(
            lambda g=game_id: (
                stack.db.scalar("select status from games where id = %s", g) == "finished"
            ),
            timeout=60,
            message=f"game {game_id} to time out",
        )
        assert _events(stack, game_id) == 1
        flow = GameFlow(stack.http, stack.smtp, "gorami", {"board": 16})
        flow.game_id = game_id
        results = flow.wait_mail(lambda m: "game is over" in m.subject, count=2, what="results")
        assert len(results) == 2
    time.sleep(2)
    for game_id in game_ids:
        flow = GameFlow(stack.http, stack.smtp, "gorami", {"board": 16})
        flow.game_id = game_id
        assert len(flow.mails("game is over")) == 2
    stack.reset_workers()
