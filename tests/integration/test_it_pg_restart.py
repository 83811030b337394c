"""PostgreSQL restarted while games are being played: nothing lost, nothing applied twice, and
no request answered 500 (a restart under load once gave two move POSTs a bare "Internal Server
Error", psycopg's AdminShutdown on a busy pooled connection).

The server restarted is a private one (initdb into a temporary folder, on a free port): the
shared server on 5432 keeps serving the other tests meanwhile. The whole stack (gunicorn, a celery
worker, beat, Redis, an SMTP sink) runs against it, and players play over the JSON API the whole
time, sending again whatever was answered 503. Emails are delivered exactly once across a
restart, including the one the SMTP server takes while the restart ends the worker's transaction;
after a crash (`-m immediate`) at least once, a second copy being the same message.
"""

from __future__ import annotations

import json
import random
import threading
import time
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime

import pytest

from tests.integration.conftest import NO_PICTURES
from tests.support import procs
from tests.support.flow import addresses, token_of
from tests.support.http import Http, Response
from tests.support.needs import missing
from tests.support.pg import PrivateCluster, postgres_bin_dir
from tests.support.procs import wait_until
from tests.support.redis_server import redis_binary
from tests.support.smtp import Received, SmtpSink
from tests.support.stack import Stack

pytestmark = [pytest.mark.integration, pytest.mark.audit, pytest.mark.timeout(240)]

GAMES = 30
# Moves applied before the restart, and after it, before the players stop.
MOVES_BEFORE = 300
MOVES_AFTER = 300
# What a move POST may be answered while the database comes and goes.
EXPECTED = {202, 409, 503}

CREATE_GAMES = """
import json, sys
from pbem import dispatch
from pbem.app import create_app
from pbem.domain.starting import create_game

app = create_app()
ids = []
with app.app_context():
    for emails in json.loads(sys.argv[1]):
        created = create_game(app.config["PBEM"], "mmw", {}, emails)
        dispatch.send_emails_later(created.outbox_ids)
        ids.append(created.game_id)
print(json.dumps(ids))
"""


@pytest.fixture(scope="module")
def cluster() -> Iterator[PrivateCluster]:
    bin_dir = postgres_bin_dir()
    if bin_dir is None:
        missing("PostgreSQL's server programs (initdb, pg_ctl) are not installed")
    if redis_binary() is None:
        missing("redis-server is not installed (scripts/services.sh installs it)")
    with PrivateCluster(bin_dir) as cluster:
        yield cluster


@pytest.fixture(scope="module")
def own_stack(cluster: PrivateCluster, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    # One worker process: its batches gather the load, as in production on a shared box.
    stack = Stack(
        database_url=cluster.url,
        log_dir=tmp_path_factory.mktemp("stack"),
        worker_concurrency=1,
        extra_env={"PBEM_RATE_LIMITS": "off", **NO_PICTURES},
    )
    with stack:
        yield stack


@dataclass
class Table:
    """One game and its players' tokens, seat by seat."""

    game_id: str
    tokens: dict[int, str]


@dataclass
class Record:
    """Every answer the players got, and the moves answered 202."""

    statuses: Counter[tuple[str, int]] = field(default_factory=Counter)
    accepted: list[tuple[int, str, int, str]] = field(default_factory=list)
    unclear: list[Response] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def note(self, what: str, response: Response, expected: set[int]) -> None:
        with self.lock:
            self.statuses[what, response.status] += 1
            if response.status not in expected:
                self.unclear.append(response)
            elif response.status == 503:
                body = response.json()
                retry_after = response.headers.get("Retry-After", "")
                if not (
                    retry_after.isdigit()
                    and body["error"] == "database_unavailable"
                    and (what != "move" or "NOT recorded" in body["message"])
                ):
                    self.unclear.append(response)


def _create_games(stack: Stack, players: list[list[str]]) -> list[str]:
    made = stack.run(str(procs.VENV_BIN / "python"), "-c", CREATE_GAMES, json.dumps(players))
    assert made.returncode == 0, made.stderr
    game_ids: list[str] = json.loads(made.stdout.strip().splitlines()[-1])
    return game_ids


def _set_up(stack: Stack) -> list[Table]:
    players = [addresses(2) for _ in range(GAMES)]
    game_ids = _create_games(stack, players)
    http = stack.http
    for game_id, emails in zip(game_ids, players, strict=True):
        for email in emails:
            (mail,) = _wait_mail(stack.smtp, game_id, email, "/invite/")
            link = mail.link("/invite/")
            assert link is not None
            accepted = http.post_form(link, {})
            assert accepted.status == 200, accepted
    tables = []
    for game_id, emails in zip(game_ids, players, strict=True):
        tokens = {}
        for email in emails:
            (mail,) = _wait_mail(stack.smtp, game_id, email, "/play/")
            token = token_of(mail.link("/play/") or "")
            seat = http.get(f"/api/games/{game_id}", token=token)
            assert seat.status == 200, seat
            tokens[int(seat.json()["seat"])] = token
        tables.append(Table(game_id, tokens))
    return tables


def _wait_mail(sink: SmtpSink, game_id: str, email: str, path: str) -> list[Received]:
    return sink.wait_for(
        lambda m: f"({game_id}): " in m.subject and email in m.recipients() and path in m.text,
        timeout=60,
        what=f"a {path} link for {email} in game {game_id}",
    )


def _play(http: Http, table: Table, record: Record, stop: threading.Event) -> None:
    """Move whenever it is someone's turn; send again what was answered 503; wait for each
    accepted move to be applied before the next."""
    rng = random.Random(table.game_id)
    url = f"/api/games/{table.game_id}"
    while not stop.is_set():
        legal = http.get(f"{url}/legal", token=table.tokens[0])
        record.note("read", legal, {200, 503})
        if legal.status != 200:
            time.sleep(0.2)
            continue
        to_move = legal.json()["to_move"]
        if to_move is None:
            return
        mine = http.get(f"{url}/legal", token=table.tokens[to_move])
        record.note("read", mine, {200, 503})
        if mine.status != 200 or not mine.json()["your_turn"]:
            continue
        ply = mine.json()["ply"]
        move = rng.choice(mine.json()["moves"])
        answer = http.post_json(
            f"{url}/moves", {"move": move, "ply": ply}, token=table.tokens[to_move]
        )
        record.note("move", answer, EXPECTED)
        if answer.status == 503:
            time.sleep(0.2)
        if answer.status != 202:
            continue
        with record.lock:
            record.accepted.append((answer.json()["submission"], table.game_id, ply, move))
        _wait_applied(http, table, ply, record, stop)


def _wait_applied(
    http: Http, table: Table, ply: int, record: Record, stop: threading.Event
) -> None:
    deadline = time.monotonic() + 60
    while not stop.is_set() and time.monotonic() < deadline:
        seen = http.get(f"/api/games/{table.game_id}/legal", token=table.tokens[0])
        record.note("read", seen, {200, 503})
        if seen.status == 200 and seen.json()["ply"] > ply:
            return
        time.sleep(0.02)


def _applied(stack: Stack, game_ids: list[str]) -> int:
    return int(stack.db.scalar("select count(*) from moves where game_id = any(%s)", game_ids))


def _assert_delivered(stack: Stack, wanted: set[str], once: bool) -> None:
    received = [m for m in stack.smtp.messages if m.message_id in wanted]
    copies = Counter(m.message_id for m in received)
    assert set(copies) == wanted, wanted - set(copies)
    twice = {mid: n for mid, n in copies.items() if n > 1}
    if once:
        assert not twice, twice
    # A crash loses the last instants of commits that do not wait for the disk (delivery marks
    # a row sent so): such a row is sent again, byte for byte the same message.
    for mid in twice:
        assert len({m.raw for m in received if m.message_id == mid}) == 1, mid
    print(f"emails: {len(copies)}, sent twice: {len(twice)}")


@pytest.mark.parametrize("mode", ["fast", "immediate"])
def test_a_postgresql_restart_under_load_loses_nothing_and_answers_no_500(
    cluster: PrivateCluster, own_stack: Stack, mode: str
) -> None:
    stack = own_stack
    tables = _set_up(stack)
    game_ids = [table.game_id for table in tables]
    record = Record()
    stop = threading.Event()
    players = [
        threading.Thread(target=_play, args=(stack.http, table, record, stop), daemon=True)
        for table in tables
    ]
    first, began = _applied(stack, game_ids), time.monotonic()
    for player in players:
        player.start()
    try:
        wait_until(lambda: _applied(stack, game_ids) >= MOVES_BEFORE, timeout=60, message="moves")
        before = _applied(stack, game_ids)
        started = time.monotonic()
        cluster.restart(mode)
        restarted_in = time.monotonic() - started
        back_at = datetime.now(UTC).replace(tzinfo=None)
        # The workers carry on: moves are applied after the restart, without restarting them.
        wait_until(
            lambda: _applied(stack, game_ids) >= before + MOVES_AFTER,
            timeout=60,
            message=lambda: f"moves after the restart\n{stack.logs()}",
        )
    finally:
        stop.set()
        for player in players:
            player.join(timeout=30)

    wait_until(
        lambda: all(stack.settled(table.game_id) for table in tables),
        timeout=60,
        message=lambda: f"every submission and email to be done\n{stack.logs()}",
    )
    rate = (_applied(stack, game_ids) - first) / (time.monotonic() - began)
    print(f"{mode} restart took {restarted_in:.2f}s; {rate:.0f} moves/s; {dict(record.statuses)}")
    assert not record.unclear, record.unclear[:5]
    assert not any(status == 500 for _, status in record.statuses)
    assert all(proc.running for proc in stack.workers.values())
    assert stack.web is not None and stack.web.running
    assert stack.db.scalar("select count(*) from moves where created_at > %s", back_at) > 0

    # Every move answered 202 was applied, once, at its ply; nothing else was.
    submissions = stack.db.query(
        "select id, game_id, ply, move, status from submissions where game_id = any(%s)",
        game_ids,
    )
    accepted = {sid: (game, ply, move) for sid, game, ply, move in record.accepted}
    assert {sid for sid, *_ in submissions} == set(accepted), "a submission nobody was told of"
    assert all(status == "applied" for *_, status in submissions), submissions
    moves = stack.db.query("select game_id, ply, move from moves where game_id = any(%s)", game_ids)
    assert sorted(moves) == sorted(accepted.values())

    # Every email was delivered; after a fast restart, exactly once.
    rows = stack.db.query("select message_id, status from outbox where game_id = any(%s)", game_ids)
    assert rows and all(status == "sent" for _, status in rows), Counter(s for _, s in rows)
    _assert_delivered(stack, {mid for mid, _ in rows}, once=mode == "fast")


def test_an_email_taken_while_the_database_restarts_is_recorded_and_sent_once(
    cluster: PrivateCluster, own_stack: Stack
) -> None:
    """The server takes the message while the worker's transaction on the row is gone: the
    restart ended it. The row must still end up sent, and not be sent again."""
    stack = own_stack
    players = addresses(2)
    # The worker sends the invitations in order: it is held on the second one, its row claimed.
    gate = stack.smtp.gate("RCPT", players[1])
    try:
        (game_id,) = _create_games(stack, [players])
        assert gate.reached.wait(60), "the invitation was never sent"
        cluster.restart("fast")
    finally:
        stack.smtp.remove_gate(gate)

    wait_until(
        lambda: stack.settled(game_id),
        timeout=60,
        message=lambda: f"the invitations to be sent\n{stack.logs()}",
    )
    rows = stack.db.query("select message_id, status from outbox where game_id = %s", game_id)
    assert [status for _, status in rows] == ["sent", "sent"], rows
    _assert_delivered(stack, {mid for mid, _ in rows}, once=True)
