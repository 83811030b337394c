"""Nothing is lost: Redis down, SMTP down, a worker killed with SIGKILL in the middle of a task.

Each test breaks one part of the real stack on purpose; the `stack` fixture heals it afterwards.
"""

from __future__ import annotations

import re
from collections import Counter

import pytest

from tests.support.flow import GameFlow
from tests.support.pg import RowLock, lock_waiters
from tests.support.procs import wait_until
from tests.support.stack import Stack

pytestmark = [pytest.mark.integration, pytest.mark.timeout(600)]

# A failed attempt is retried after a delay: by send_email's own retry, or handed to send_email by
# the task that made the attempt (apply_move, send_emails).
RETRY_RE = re.compile(
    r"(?:Task workers\.tasks\.send_email\[[0-9a-f-]+\] retry: Retry in"
    r"|outbox \d+: not sent; retrying in) (\d+)s"
)


def _started(stack: Stack) -> tuple[GameFlow, dict[int, str], int, str]:
    """A running GORami game whose first turn email has arrived: (flow, tokens, to_move, move)."""
    flow = GameFlow(stack.http, stack.smtp, "gorami", {"board": 16}).start()
    flow.turn_mail(0)
    tokens = flow.seat_tokens()
    to_move = flow.legal(tokens[0])["to_move"]
    move = flow.legal(tokens[to_move])["moves"][0]
    return flow, tokens, to_move, move


def _submission(stack: Stack, game_id: str, ply: int) -> list[tuple[str, str | None]]:
    return stack.db.query(
        "select status, error from submissions where game_id = %s and ply = %s", game_id, ply
    )


def _outbox(stack: Stack, game_id: str, kind: str) -> list[tuple[int, str, int, str | None]]:
    return stack.db.query(
        "select id, status, attempts, message_id from outbox "
        "where game_id = %s and kind = %s order by id",
        game_id,
        kind,
    )


def _copies(flow: GameFlow) -> Counter[str]:
    return Counter(m.message_id for m in flow.mails())


def _assert_each_row_delivered_once(stack: Stack, flow: GameFlow) -> None:
    wait_until(lambda: stack.settled(flow.game_id), message="the game's work to be done")
    rows = stack.db.query("select message_id, status from outbox where game_id = %s", flow.game_id)
    assert all(status == "sent" for _, status in rows), rows
    copies = _copies(flow)
    assert copies == Counter(mid for mid, _ in rows), copies


def test_a_move_sent_while_redis_is_down_is_kept_and_applied_when_it_returns(
    stack: Stack,
) -> None:
    flow, tokens, to_move, move = _started(stack)
    stack.redis.stop()
    try:
        page = flow.post_move(f"/play/{tokens[to_move]}", move, 0)
        # The player is told the move is safe even though nothing could be queued.
        assert page.status == 200 and "/submission/" in page.url, page
        assert 'data-status="pending"' in page.text
        assert "received" in page.text and "will be applied" in page.text
        assert _submission(stack, flow.game_id, 0) == [("pending", None)]
        assert stack.db.scalar("select ply from games where id = %s", flow.game_id) == 0
    finally:
        stack.redis.start()
    # The sweep (celery beat) re-enqueues the stored submission once Redis answers again.
    wait_until(
        lambda: _submission(stack, flow.game_id, 0) == [("applied", None)],
        message="the kept submission to be applied",
    )
    flow.turn_mail(1)
    assert stack.db.query("select ply, move from moves where game_id = %s", flow.game_id) == [
        (0, move)
    ]
    _assert_each_row_delivered_once(stack, flow)


def test_an_email_written_while_smtp_is_down_is_retried_and_delivered_once(
    stack: Stack,
) -> None:
    log_start = stack.workers["w1"].log_path.stat().st_size if "w1" in stack.workers else 0
    stack.smtp.stop()
    try:
        flow = GameFlow(stack.http, stack.smtp, "mmw", {})
        flow.create()
        # The organiser's confirmation is attempted again and again, each time after a longer
        # wait.
        wait_until(
            lambda: (
                (rows := _outbox(stack, flow.game_id, "confirm"))
                and all(attempts >= 3 for _, _, attempts, _ in rows)
            ),
            message="three attempts at the confirmation",
        )
        rows = _outbox(stack, flow.game_id, "confirm")
        assert len(rows) == 1 and all(status == "pending" for _, status, _, _ in rows), rows
        errors = stack.db.query("select last_error from outbox where game_id = %s", flow.game_id)
        assert all(e and "refused" in e.lower() for (e,) in errors), errors
    finally:
        stack.smtp.start()
    flow.invitation(flow.emails[0])
    _assert_each_row_delivered_once(stack, flow)
    # The retries backed off: the delay doubles with every failed attempt of a row (1 s, 2 s,
    # 4 s with PBEM_MAIL_RETRY_SECONDS=1), whichever task made the attempt.
    log = "".join(
        p.log_path.read_text(errors="replace")[log_start:] for p in stack.workers.values()
    )
    delays = {int(seconds) for seconds in RETRY_RE.findall(log)}
    assert {1, 2, 4} <= delays, f"retry delays in the worker log: {sorted(delays)}"
    # And the game goes on normally once mail flows.
    flow.accept_all()
    flow.turn_mail(0)


def test_a_worker_killed_inside_apply_move_loses_and_duplicates_nothing(stack: Stack) -> None:
    flow, tokens, to_move, move = _started(stack)
    with RowLock(stack.db, "games", "id", flow.game_id):
        assert flow.api_move(tokens[to_move], move, 0).status == 202
        # The worker has taken the task and waits inside apply_move for the game row.
        wait_until(lambda: lock_waiters(stack.db) >= 1, message="apply_move to wait for the row")
        stack.kill_workers()
    # The killed task never acknowledged its message and committed nothing.
    assert _submission(stack, flow.game_id, 0) == [("pending", None)]
    stack.start_worker()
    wait_until(
        lambda: _submission(stack, flow.game_id, 0) == [("applied", None)],
        message="the move to be applied after the restart",
    )
    flow.turn_mail(1)
    _assert_each_row_delivered_once(stack, flow)
    assert stack.db.query("select ply, move from moves where game_id = %s", flow.game_id) == [
        (0, move)
    ]
    turns = [
        s
        for (s,) in stack.db.query(
            "select subject from outbox where game_id = %s and kind = 'turn'", flow.game_id
        )
    ]
    assert len(turns) == 2, turns


def test_a_worker_killed_while_sending_an_email_sends_it_exactly_once(stack: Stack) -> None:
    """Killed during the SMTP conversation, before the server accepted the message."""
    flow, tokens, to_move, move = _started(stack)
    address = _address_of(flow, tokens[1 - to_move])
    gate = stack.smtp.gate("RCPT", address)
    try:
        assert flow.api_move(tokens[to_move], move, 0).status == 202
        wait_until(gate.reached.is_set, message="the turn email to reach RCPT")
        stack.kill_workers()
    finally:
        stack.smtp.remove_gate(gate)
    assert not flow.mails("your turn (move 2)")
    stack.start_worker()
    flow.turn_mail(1)
    _assert_each_row_delivered_once(stack, flow)
    assert len(flow.mails("your turn (move 2)")) == 1


def test_a_worker_killed_after_the_server_accepted_an_email_does_not_send_it_again(
    stack: Stack,
) -> None:
    """Killed once the server has answered 250 to the message, before the session is over.

    The row must be marked sent as soon as the server took the message, not after QUIT, or the
    sweep sends it a second time.
    """
    flow, tokens, to_move, move = _started(stack)
    address = _address_of(flow, tokens[1 - to_move])
    gate = stack.smtp.gate("AFTER_DATA", address)
    try:
        assert flow.api_move(tokens[to_move], move, 0).status == 202
        flow.turn_mail(1)
        # Either the worker waits on its next SMTP command, or it keeps the connection open and
        # has nothing more to say: both times it has had the server's 250.
        wait_until(
            lambda: gate.reached.is_set() or _outbox(stack, flow.game_id, "turn")[-1][1] == "sent",
            message="the turn email to be accepted",
        )
        stack.kill_workers()
    finally:
        stack.smtp.remove_gate(gate)
    stack.start_worker()
    wait_until(lambda: stack.settled(flow.game_id), message="the game's work to be done")
    copies = _copies(flow)
    twice = {mid for mid, n in copies.items() if n > 1}
    stack.reported_duplicates |= twice
    assert not twice, f"delivered more than once: {twice}"


def _address_of(flow: GameFlow, token: str) -> str:
    seat = flow.http.get(f"/api/games/{flow.game_id}", token=token).json()
    players = {p["seat"]: p["email"] for p in seat["players"]}
    return str(players[seat["seat"]])
