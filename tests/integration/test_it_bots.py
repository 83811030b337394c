"""A game against a bot through the real stack: PostgreSQL, Redis, gunicorn, the move worker,
the bot worker of the Procfile (`-Q bots`), beat and an SMTP server. The person is invited by
`pbem new-game … bot:mcts`, accepts through the emailed link and plays every move through the
JSON API; the search bot answers each one from its own worker, the game is played to its end,
and only the person ever gets mail. With the bot worker stopped, the bot's turn waits (it is not
timed) and is played as soon as a bot worker is back."""

from __future__ import annotations

import random
import time
from typing import Any

import pytest

from tests.support.flow import GameFlow, addresses, token_of
from tests.support.procs import wait_until
from tests.support.stack import Stack, _bin

pytestmark = [pytest.mark.integration, pytest.mark.audit, pytest.mark.timeout(900)]

BOTS_QUEUE = "bots"


@pytest.fixture
def stack(stack: Stack) -> Stack:
    """The session's stack (bots think for 0.3 s there) with the Procfile's bot worker beside
    the others, started by the first test here and kept for the rest of the run."""
    stack.use_queue(BOTS_QUEUE)
    return stack


def _game_against(stack: Stack, bot: str) -> tuple[GameFlow, str]:
    """A GORami game of `pbem new-game`: one person and `bot`; the person accepts by mail.
    Returns the flow and the person's API token."""
    (email,) = addresses(1)
    done = stack.run(_bin("pbem"), "new-game", "gorami", "--board", "16", email, bot)
    assert done.returncode == 0, done.stderr
    assert f"invitations to {email}; against {bot}" in done.stdout
    flow = GameFlow(stack.http, stack.smtp, "gorami", {"board": 16}, emails=[email])
    flow.game_id = done.stdout.split()[1].rstrip(":")
    link = flow.invitation(email).link("/invite/")
    assert link and stack.http.post_form(link, {}).status == 200
    mail = flow.wait_mail(lambda m: "/play/" in m.text, what="the person's game link")[0]
    return flow, token_of(mail.link("/play/") or "")


def _game(flow: GameFlow, token: str) -> dict[str, Any]:
    response = flow.http.get(f"/api/games/{flow.game_id}", token=token)
    assert response.status == 200, response
    body: dict[str, Any] = response.json()
    return body


def _my_turn_or_over(flow: GameFlow, token: str, after: int = -1) -> dict[str, Any]:
    """The game once it is the person's turn again past ply `after` (their own move there
    applied, and the bot's answer), or once it is over."""
    found: dict[str, Any] = {}

    def ready() -> bool:
        found.update(_game(flow, token))
        moved_on = found["ply"] > after
        return found["status"] != "running" or (moved_on and bool(found["your_turn"]))

    wait_until(ready, timeout=60, message="the bot to answer")
    return found


def test_a_game_against_the_search_bot_played_to_the_end_through_the_api(stack: Stack) -> None:
    flow, token = _game_against(stack, "bot:mcts")
    rng = random.Random(flow.game_id)
    game = _my_turn_or_over(flow, token)
    players = {p["seat"]: p for p in game["players"]}
    me = game["seat"]
    bot = players[1 - me]
    assert (bot["kind"], bot["bot"], bot["name"], bot["email"]) == (
        "bot",
        "mcts",
        "pbem MCTS",
        None,
    )
    assert players[me]["kind"] == "human" and players[me]["email"] == flow.emails[0]
    mine = 0
    while game["status"] == "running":
        legal = flow.legal(token)
        assert legal["your_turn"] and legal["ply"] == game["ply"], (legal, game)
        response = flow.api_move(token, rng.choice(legal["moves"]), game["ply"])
        assert response.status == 202, response
        mine += 1
        game = _my_turn_or_over(flow, token, after=game["ply"])
        # The bot's turn is never on the clock; the person's always is.
        if game["status"] == "running":
            assert game["deadline"] is not None and game["to_move"] == me
        assert mine < 40
    assert game["status"] == "finished" and game["outcome"] is not None
    # Every move of the game alternates between the person and the bot (GORami skips a seat
    # that cannot place: then the other moves again), each submitted once and applied.
    seats = stack.db.query("select seat from moves where game_id = %s order by ply", flow.game_id)
    assert {row[0] for row in seats} == {0, 1} and len(seats) >= 2 * mine - 1
    statuses = stack.db.query(
        "select status, count(*) from submissions where game_id = %s group by status",
        flow.game_id,
    )
    assert dict(statuses) == {"applied": len(seats)}
    # The result reaches the person; nothing was ever sent to anyone else.
    results = flow.wait_mail(lambda m: "game is over" in m.subject, what="the result")
    assert results[0].recipients() == {flow.emails[0].lower()}
    assert all(m.recipients() == {flow.emails[0].lower()} for m in flow.mails())
    # The bot thought on its own worker, never on the worker that applies moves.
    bot_log = stack.queue_workers[BOTS_QUEUE].log_tail(500_000)
    assert "workers.tasks.play_bot" in bot_log and "pbem MCTS played" in bot_log
    for worker in stack.workers.values():
        assert "tasks.play_bot[" not in worker.log_tail(500_000)


def test_a_bots_turn_waits_for_a_bot_worker_rather_than_being_lost(stack: Stack) -> None:
    flow, token = _game_against(stack, "bot:greedy")
    game = _my_turn_or_over(flow, token)
    worker = stack.queue_workers[BOTS_QUEUE]
    worker.stop()
    try:
        legal = flow.legal(token)
        assert flow.api_move(token, legal["moves"][0], game["ply"]).status == 202
        wait_until(
            lambda: _game(flow, token)["ply"] == game["ply"] + 1, timeout=30, message="my move"
        )
        time.sleep(2)
        waiting = _game(flow, token)
        assert waiting["status"] == "running" and not waiting["your_turn"]
        assert waiting["deadline"] is None, "the bot's turn has no deadline to miss"
    finally:
        stack.start_queue_worker(BOTS_QUEUE)
    answered = _my_turn_or_over(flow, token, after=game["ply"])
    assert answered["ply"] >= game["ply"] + 2 or answered["status"] != "running"
