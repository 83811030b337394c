"""Two submissions for the same ply: exactly one move is applied, proven with real concurrency."""

from __future__ import annotations

import re
import threading

import pytest
from celery import Celery

from tests.support.flow import GameFlow
from tests.support.http import Response
from tests.support.pg import RowLock, lock_waiters
from tests.support.procs import wait_until
from tests.support.stack import Stack

pytestmark = [pytest.mark.integration, pytest.mark.timeout(600)]

SUBMISSION_RE = re.compile(r"/submission/(\d+)")


def _started(stack: Stack) -> tuple[GameFlow, dict[int, str], int, list[str]]:
    flow = GameFlow(stack.http, stack.smtp, "gorami", {"board": 16}).start()
    tokens = flow.seat_tokens()
    legal = flow.legal(tokens[0])
    to_move = legal["to_move"]
    moves = flow.legal(tokens[to_move])["moves"]
    return flow, tokens, to_move, moves


def _submission_id(response: Response) -> int | None:
    if response.status == 202:
        return int(response.json()["submission"])
    match = SUBMISSION_RE.search(response.url)
    return int(match.group(1)) if response.status == 200 and match else None


def _post_at_once(flow: GameFlow, token: str, moves: list[str], ply: int) -> list[Response]:
    """One thread per move, released together; half post the form, half the JSON API."""
    barrier = threading.Barrier(len(moves))
    results: list[Response | None] = [None] * len(moves)
    link = f"/play/{token}"

    def post(index: int) -> None:
        barrier.wait()
        if index % 2:
            results[index] = flow.api_move(token, moves[index], ply)
        else:
            results[index] = flow.post_move(link, moves[index], ply)

    threads = [threading.Thread(target=post, args=(i,)) for i in range(len(moves))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(120)
    assert all(r is not None for r in results)
    return [r for r in results if r is not None]


def _decided(stack: Stack, game_id: str, ply: int) -> list[tuple[int, str, str | None]]:
    """The submissions for one ply once none is pending any more."""

    def rows() -> list[tuple[int, str, str | None]] | None:
        found = stack.db.query(
            "select id, status, error from submissions where game_id = %s and ply = %s",
            game_id,
            ply,
        )
        return None if any(status == "pending" for _, status, _ in found) else found

    return wait_until(rows, message="every submission of the ply to be decided")


def _assert_one_move(stack: Stack, flow: GameFlow, accepted: list[int]) -> None:
    decided = _decided(stack, flow.game_id, 0)
    assert sorted(row[0] for row in decided) == sorted(accepted)
    applied = [row for row in decided if row[1] == "applied"]
    rejected = [row for row in decided if row[1] == "rejected"]
    assert len(applied) == 1, decided
    assert len(rejected) == len(decided) - 1
    assert all(error for _, _, error in rejected), rejected
    assert stack.db.query("select ply from moves where game_id = %s", flow.game_id) == [(0,)]
    assert stack.db.scalar("select ply from games where id = %s", flow.game_id) == 1
    # One turn email for move 2, and no other turn email at all.
    flow.turn_mail(1)
    wait_until(lambda: stack.settled(flow.game_id), message="the game's work to be done")
    turns = stack.db.query(
        "select subject from outbox where game_id = %s and kind = 'turn'", flow.game_id
    )
    assert len(turns) == 2, turns  # move 1 (at the start) and move 2
    assert len(flow.mails("your turn (move 2)")) == 1


def test_simultaneous_posts_for_one_ply_apply_exactly_one_move(stack: Stack) -> None:
    flow, tokens, to_move, moves = _started(stack)
    responses = _post_at_once(flow, tokens[to_move], moves[:8], 0)
    accepted = [sid for sid in map(_submission_id, responses) if sid is not None]
    refused = [r for r in responses if _submission_id(r) is None]
    # Whoever came after the move was applied was told the turn moved on.
    assert all(r.status == 409 for r in refused), refused
    assert accepted
    _assert_one_move(stack, flow, accepted)


def test_two_workers_applying_the_same_ply_at_once_apply_one_move(stack: Stack) -> None:
    """Both submissions are pending and two worker processes run apply_move at the same time."""
    flow, tokens, to_move, moves = _started(stack)
    try:
        stack.stop_workers()
        # One message each, so both workers (not one worker with a batch) wait for the row.
        stack.start_worker("wa", concurrency=1, prefetch=1)
        stack.start_worker("wb", concurrency=1, prefetch=1)
        with RowLock(stack.db, "games", "id", flow.game_id):
            first = flow.api_move(tokens[to_move], moves[0], 0)
            second = flow.api_move(tokens[to_move], moves[1], 0)
            assert first.status == second.status == 202, (first, second)
            # Both workers are inside apply_move, blocked on the game row.
            wait_until(
                lambda: lock_waiters(stack.db) >= 2,
                message="two workers to wait for the game row",
            )
        _assert_one_move(stack, flow, [_submission_id(first) or 0, _submission_id(second) or 0])
        applied = stack.db.scalar(
            "select move from moves where game_id = %s and ply = 0", flow.game_id
        )
        assert applied in moves[:2]
    finally:
        stack.reset_workers()


def test_many_copies_of_a_send_email_task_send_the_message_once(stack: Stack) -> None:
    """The sweep and a retry may queue the same row twice: workers racing on it send it once."""
    flow = GameFlow(stack.http, stack.smtp, "gorami", {"board": 16})
    client = Celery(broker=stack.redis.url)
    try:
        stack.stop_workers()
        flow.create()
        ids = [
            int(i)
            for (i,) in stack.db.query("select id from outbox where game_id = %s", flow.game_id)
        ]
        assert len(ids) == 1  # the organiser's confirmation: nobody else is mailed before it
        for _ in range(10):
            for outbox_id in ids:
                client.send_task("workers.tasks.send_email", args=[outbox_id])
        stack.start_worker("wa", concurrency=2)
        stack.start_worker("wb", concurrency=2)
        flow.invitation(flow.emails[0])
        wait_until(lambda: stack.settled(flow.game_id), message="every copy to be worked off")
    finally:
        client.close()
        stack.reset_workers()
    rows = stack.db.query("select message_id, status from outbox where game_id = %s", flow.game_id)
    assert all(status == "sent" for _, status in rows), rows
    copies = [m.message_id for m in flow.mails()]
    assert sorted(copies) == sorted(mid for mid, _ in rows), copies
