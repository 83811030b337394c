"""Several games played at once while the worker is SIGKILLed again and again.

Kills land wherever the worker happens to be: inside apply_move, between tasks, inside the SMTP
conversation. After each kill a new worker starts; at the end every move must have been applied
exactly once and every email delivered.

Email is at least once here, not exactly once, and that is SMTP's limit (RFC 1047), not a choice:
a worker killed after the server has taken the message (the final "." sent) but before its commit
of "sent" leaves the row pending, and the sweep sends it again. The service keeps that window as
short as it can (the row is marked sent right after the 250; `test_it_resilience` proves a kill on
either side of it), and a resent message is byte for byte the first one, same Message-ID, so mail
clients drop it. So a random kill may cost one duplicate, never a different or a lost message.
"""

from __future__ import annotations

import random
import threading
import time
from collections import Counter

import pytest

from tests.support.flow import GameFlow
from tests.support.procs import wait_until
from tests.support.stack import Stack

pytestmark = [pytest.mark.integration, pytest.mark.audit, pytest.mark.timeout(900)]

GAMES = 4
KILLS = 3


def _drive(flow: GameFlow, tokens: dict[int, str], stop: threading.Event) -> None:
    """Play random legal moves over the API, one per ply, until the game ends."""
    rng = random.Random(flow.game_id)
    posted: set[int] = set()
    while not stop.is_set():
        game = flow.http.get(f"/api/games/{flow.game_id}", token=tokens[0]).json()
        if game["status"] == "finished":
            return
        ply, to_move = game["ply"], game["to_move"]
        if ply not in posted:
            moves = flow.legal(tokens[to_move])["moves"]
            response = flow.api_move(tokens[to_move], rng.choice(moves), ply)
            assert response.status == 202, response
            posted.add(ply)
        time.sleep(0.05)


def _applied_total(stack: Stack) -> int:
    return int(stack.db.scalar("select count(*) from moves") or 0)


def test_games_survive_a_worker_killed_again_and_again(stack: Stack) -> None:
    flows = [
        GameFlow(stack.http, stack.smtp, "gorami", {"board": 16}).start() for _ in range(GAMES)
    ]
    tokens = [flow.seat_tokens() for flow in flows]
    stop = threading.Event()
    errors: list[BaseException] = []

    def run(flow: GameFlow, seat_tokens: dict[int, str]) -> None:
        try:
            _drive(flow, seat_tokens, stop)
        except BaseException as exc:  # reported by the main thread
            errors.append(exc)

    threads = [
        threading.Thread(target=run, args=(f, t), daemon=True)
        for f, t in zip(flows, tokens, strict=True)
    ]
    start = _applied_total(stack)
    for thread in threads:
        thread.start()
    try:
        rng = random.Random(7)
        for kill in range(KILLS):
            target = start + (kill + 1) * GAMES * 3 + rng.randrange(GAMES)
            wait_until(
                lambda t=target: _applied_total(stack) >= t or errors,
                timeout=300,
                message=f"{target - start} moves before kill {kill + 1}",
            )
            stack.kill_workers()
            stack.start_worker()
        for thread in threads:
            thread.join(600)
    finally:
        stop.set()
    assert not errors, errors
    assert not any(thread.is_alive() for thread in threads)

    duplicates = 0
    for flow in flows:
        game_id = flow.game_id
        ply = stack.db.scalar(
            "select ply from games where id = %s and status = 'finished'", game_id
        )
        assert ply, f"game {game_id} did not finish"
        plies = [p for (p,) in stack.db.query("select ply from moves where game_id = %s", game_id)]
        assert sorted(plies) == list(range(ply)), plies
        applied = Counter(
            p
            for (p,) in stack.db.query(
                "select ply from submissions where game_id = %s and status = 'applied'", game_id
            )
        )
        assert applied == Counter(range(ply)), applied
        wait_until(lambda g=game_id: stack.settled(g), message=f"game {game_id} to settle")
        rows = stack.db.query("select message_id, status from outbox where game_id = %s", game_id)
        assert all(status == "sent" for _, status in rows), rows
        # Nothing lost: every outbox row reached the sink, and nothing the service never wrote.
        mails = flow.mails()
        copies = Counter(m.message_id for m in mails)
        assert set(copies) == {mid for mid, _ in rows}
        twice = {mid for mid, n in copies.items() if n > 1}
        stack.reported_duplicates |= twice
        duplicates += sum(copies[mid] - 1 for mid in twice)
        for mid in twice:
            # A second copy may only come from the window described above: the very same message.
            assert len({m.raw for m in mails if m.message_id == mid}) == 1, mid
    # At most one message caught in that window per kill.
    assert duplicates <= KILLS, duplicates
    if duplicates:
        print(f"{duplicates} message(s) delivered twice, identical, after a kill past the 250")
