"""Load test of the real service on loopback (a benchmark, not a test).

Starts the stack the Procfile describes: gunicorn, one celery worker, celery beat, a private
redis-server, a throwaway PostgreSQL database and an SMTP sink (`bench/smtp_sink.py`). Then
`--games` simulated games run at once, each played to the end by two simulated players, and each
slot starts a new game when its game ends until `--moves` moves have been made (bounded by
`--max-seconds`). Players start their games from the web form, accept the invitations from the
links in their emails, read their seat tokens from the emails, and move over the JSON API when the
sink receives their turn email. The players (one keep-alive HTTP connection each) and the sink are
served by one asyncio loop in this process, so the harness takes little of the CPU it shares with
the service.

Reported:
- end-to-end moves per second: moves made / wall time of the play phase, where each move counts
  from its POST until the next email of its game (the next player's turn, or the result) has been
  accepted by SMTP;
- p50 / p99 submit latency (the POST that records a move, as the player sees it);
- p50 / p99 time from a move's POST to the next player's email at the sink;
- lost or duplicated moves (accepted submissions not applied exactly once) and emails (outbox rows
  not at the sink, Message-IDs at the sink more than once);
- CPU seconds per move spent by each component (from /proc), to show where the time goes;
- how late the driver's own event loop woke up (p50 / p99), the harness's share of any latency.

Board pictures in mail are off unless `--pictures`: then the stack runs the Procfile's picture
worker too (`celery … worker -Q pictures`, `--picture-concurrency` processes), turn and result
emails wait for their pictures, and the run also reports the pictures drawn (per second, failed),
how many emails reached the sink with one, and the CPU per picture and per email.

Figures are given twice: for the whole run, and for its steady state, the moves posted after
`--warmup-seconds` and before the move budget ran out (after it, slots start no new games and the
load drains away). Slots start their first games at random within `--ramp-seconds`: games started
in the same instant would end in the same instant too, and every later generation of games would
arrive as one wave of game creations and invitations.

    .venv/bin/python bench/service.py [--games 40] [--moves 4000] [--think-ms 0] \
        [--web-workers 2] [--web-threads 4] [--worker-concurrency 1] [--engines gorami:16] \
        [--pictures] [--picture-concurrency 1]

Needs PostgreSQL at PBEM_TEST_DATABASE_URL (default postgresql://postgres@127.0.0.1:5432/test) and
redis-server installed; everything listens on 127.0.0.1 only.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import random
import re
import signal
import statistics
import sys
import threading
import time
import urllib.parse
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

import psycopg  # noqa: E402

from bench.smtp_sink import Sink, read_mail  # noqa: E402
from pbem import games  # noqa: E402
from tests.integration.picture_stack import PictureStack  # noqa: E402
from tests.support.procs import LOOPBACK, Proc, wait_until  # noqa: E402
from tests.support.stack import Stack  # noqa: E402

# "[pbem] GORami (Ab3dEf6hIj9k): your turn (move 3)", a named game's "[pbem] Name (id): …".
SUBJECT_RE = re.compile(r" \(([A-Za-z0-9_-]{8,32})\): (.*)$")
TURN_RE = re.compile(r"your turn \(move (\d+)\)")
CREATED_RE = re.compile(r"/created/([A-Za-z0-9_-]+)")


# --- mail events ---------------------------------------------------------------------------------


@dataclass
class MailEvent:
    game_id: str
    kind: str  # invite, started, turn, result, other
    move: int | None  # the move number a turn email asks for
    to: str
    accepted_at: float
    tokens: dict[str, str]  # "/invite/" and "/play/": the first such link's token in the text


class Router:
    """Sends each message the sink accepts to the slot playing its game."""

    def __init__(self) -> None:
        self.queues: dict[str, asyncio.Queue[MailEvent | None]] = {}
        self.early: dict[str, list[MailEvent]] = {}
        self.message_ids: Counter[str] = Counter()
        # Each copy of a message after its first: (Message-ID, when the sink accepted it).
        self.repeats: list[tuple[str, float]] = []
        self.with_picture = 0  # messages that carried a board picture
        # When each of those was accepted: the soak asks whether pictures still come after a fault.
        self.picture_times: list[float] = []

    def __call__(self, mail_from: str, rcpt_tos: list[str], raw: bytes, accepted_at: float) -> None:
        mail = read_mail(raw)
        self.message_ids[mail.message_id] += 1
        if self.message_ids[mail.message_id] > 1:
            self.repeats.append((mail.message_id, accepted_at))
        if b"Content-Type: image/png" in raw:
            self.with_picture += 1
            self.picture_times.append(accepted_at)
        match = SUBJECT_RE.search(mail.subject)
        if match is None:
            return
        game_id, about = match.groups()
        turn = TURN_RE.search(about)
        if turn:
            kind, move = "turn", int(turn.group(1))
        else:
            move = None
            kind = next(
                (
                    k
                    for k, word in (
                        ("invite", "you are invited"),
                        ("invite", "confirm your new game"),
                        ("started", "has started"),
                        ("result", "is over"),
                    )
                    if word in about
                ),
                "other",
            )
        tokens = {"/invite/": mail.invite, "/play/": mail.play}
        event = MailEvent(game_id, kind, move, rcpt_tos[0].lower(), accepted_at, tokens)
        target = self.queues.get(game_id)
        if target is None:
            self.early.setdefault(game_id, []).append(event)
        else:
            target.put_nowait(event)

    def register(self, game_id: str, inbox: asyncio.Queue[MailEvent | None]) -> None:
        self.queues[game_id] = inbox
        for event in self.early.pop(game_id, []):
            inbox.put_nowait(event)

    def unregister(self, game_id: str) -> None:
        self.queues.pop(game_id, None)

    def time_up(self) -> None:
        """Wake every player waiting for mail: the run is over."""
        for inbox in self.queues.values():
            inbox.put_nowait(None)


def link_token(event: MailEvent, path: str) -> str:
    """The token of the first `path` link (e.g. "/play/") in a message's plain text."""
    token = event.tokens[path]
    if not token:
        raise RuntimeError(f"no {path} link in the {event.kind} email of {event.game_id}")
    return token


# --- simulated players ---------------------------------------------------------------------------


class Client:
    """One keep-alive HTTP/1.1 connection to gunicorn on the event loop.

    Not http.client: it parses every response's headers with the email package, which cost the
    benchmark more CPU than the rest of a request. gunicorn answers with Content-Length (chunked is
    read too) and closes keep-alive connections idle for 2 s (its default --keep-alive): such a
    connection is replaced before use, or on EOF before any byte of the answer (the request was
    not read, so it is sent again).
    """

    IDLE_SECONDS = 1.8

    def __init__(self, port: int, stats: Stats | None = None) -> None:
        self.port = port
        self.stats = stats  # where 5xx answers and requests sent again are recorded
        self.host = f"Host: {LOOPBACK}:{port}\r\n"
        self.reader: asyncio.StreamReader | None = None
        self.writer: asyncio.StreamWriter | None = None
        self.used_at = 0.0

    def close(self) -> None:
        if self.writer is not None:
            self.writer.close()
        self.reader = self.writer = None

    async def request(
        self, method: str, path: str, body: bytes = b"", headers: str = ""
    ) -> tuple[int, dict[str, str], bytes]:
        """Status, headers (names in lower case) and body; `headers` holds extra header lines."""
        message = (
            f"{method} {path} HTTP/1.1\r\n{self.host}Content-Length: {len(body)}\r\n{headers}\r\n"
        ).encode() + body
        for attempt in range(2):
            stale = time.monotonic() - self.used_at > self.IDLE_SECONDS
            if self.reader is None or self.reader.at_eof() or stale:
                self.close()
                self.reader, self.writer = await asyncio.open_connection(LOOPBACK, self.port)
            assert self.reader is not None and self.writer is not None
            try:
                self.writer.write(message)
                head = await self.reader.readuntil(b"\r\n\r\n")
            except (OSError, asyncio.IncompleteReadError) as exc:
                self.close()
                if attempt or (isinstance(exc, asyncio.IncompleteReadError) and exc.partial):
                    raise
                if self.stats is not None:
                    self.stats.resent.append((time.time(), method, path))
                continue
            lines = head.decode("latin-1").split("\r\n")
            status = int(lines[0].split(" ", 2)[1])
            found = {}
            for line in lines[1:]:
                if line:
                    name, _, value = line.partition(":")
                    found[name.strip().lower()] = value.strip()
            if "content-length" in found:
                data = await self.reader.readexactly(int(found["content-length"]))
            elif found.get("transfer-encoding", "").lower() == "chunked":
                data = await self.chunked()
            else:
                data = await self.reader.read()
                found["connection"] = "close"
            self.used_at = time.monotonic()
            if found.get("connection", "").lower() == "close":
                self.close()
            if status >= 500 and self.stats is not None:
                self.stats.server_errors.append(
                    (time.time(), method, path, status, found.get("retry-after"))
                )
            return status, found, data
        raise AssertionError("unreachable")

    async def chunked(self) -> bytes:
        assert self.reader is not None
        parts: list[bytes] = []
        while True:
            size = int((await self.reader.readuntil(b"\r\n")).split(b";")[0], 16)
            if size == 0:
                while await self.reader.readuntil(b"\r\n") != b"\r\n":
                    pass  # trailers
                return b"".join(parts)
            parts.append(await self.reader.readexactly(size))
            await self.reader.readexactly(2)


class OutOfTime(Exception):
    """--max-seconds ran out while a game was still being played."""


@dataclass
class Stats:
    # (when the POST went out, seconds it took), by time.time()
    submits: list[tuple[float, float]] = field(default_factory=list)
    # (when the move's POST went out, seconds until the next email of its game reached the sink)
    to_next_email: list[tuple[float, float]] = field(default_factory=list)
    # When each move seen through went out: its next email arrived, or (within a turn of several
    # actions) the service showed it applied.
    completed: list[float] = field(default_factory=list)
    moves: int = 0
    games_finished: int = 0
    games_cut_short: int = 0
    refused: Counter[int] = field(default_factory=Counter)
    game_ids: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    accepted_submissions: int = 0
    # 503s answered with Retry-After (the database away) and asked again after it, as a player
    # would: a move sent again, a page read again.
    retried_after_503: int = 0
    # How late the driver's own loop wakes up: what of the latencies above is the benchmark's.
    loop_lag: list[float] = field(default_factory=list)
    # Each move answered 202: (submission id, game id, ply, move).
    accepted: list[tuple[int, str, int, str]] = field(default_factory=list)
    # Each answer of 500 or more: (when, method, path, status, its Retry-After or None).
    server_errors: list[tuple[float, str, str, int, str | None]] = field(default_factory=list)
    # Requests sent again on a new connection after the last one ended before any answer
    # (a keep-alive connection closed by gunicorn, or a web worker killed): (when, method, path).
    resent: list[tuple[float, str, str]] = field(default_factory=list)


class Slot:
    """Plays games one after another until the move budget is spent (a task on the loop).

    One event loop drives every slot: 40 threads cost the benchmark more in GIL hand-overs and
    wake-ups than the players' work itself.
    """

    def __init__(
        self,
        index: int,
        bench: Bench,
        engines: list[tuple[str, dict[str, Any]]],
    ) -> None:
        self.name = f"slot-{index}"
        self.index = index
        self.bench = bench
        self.engines = engines
        self.client = Client(bench.stack.web_port, bench.stats)
        self.rng = random.Random(index)
        self.games_played = 0

    async def run(self) -> None:
        await asyncio.sleep(self.rng.uniform(0.0, self.bench.args.ramp_seconds))
        try:
            while self.bench.budget_left() and not self.bench.out_of_time:
                engine, options = self.engines[(self.index + self.games_played) % len(self.engines)]
                await self.play_one(engine, options)
                self.games_played += 1
        except OutOfTime:
            self.bench.stats.games_cut_short += 1
        except Exception as exc:  # reported in the summary
            self.bench.stats.errors.append(f"{self.name}: {type(exc).__name__}: {exc}")
        finally:
            self.client.close()

    async def wait(self, inbox: asyncio.Queue[MailEvent | None], what: str) -> MailEvent:
        """The next mail of this slot's game; gives up quietly once the run's time is over."""
        if self.bench.out_of_time and inbox.empty():
            raise OutOfTime(what)
        event = await inbox.get()
        if event is None:
            raise OutOfTime(what)
        return event

    async def play_one(self, engine: str, options: dict[str, Any]) -> None:
        stats = self.bench.stats
        router = self.bench.router
        tag = f"s{self.index}g{self.games_played}"
        emails = [f"p0-{tag}@bench.test", f"p1-{tag}@bench.test"]
        form = {"game": engine, "emails": "\n".join(emails), **options}
        status, headers, _ = await self.client.request(
            "POST",
            "/",
            urllib.parse.urlencode(form).encode(),
            "Content-Type: application/x-www-form-urlencoded\r\n",
        )
        match = CREATED_RE.search(headers.get("location", ""))
        if status != 303 or match is None:
            raise RuntimeError(f"creating a game answered {status}")
        game_id = match.group(1)
        inbox: asyncio.Queue[MailEvent | None] = asyncio.Queue()
        router.register(game_id, inbox)
        stats.game_ids.append(game_id)
        try:
            await self.play_game(engine, options, game_id, inbox)
        finally:
            router.unregister(game_id)

    async def play_game(
        self,
        engine: str,
        options: dict[str, Any],
        game_id: str,
        inbox: asyncio.Queue[MailEvent | None],
    ) -> None:
        stats = self.bench.stats
        # Invitations, then the first mails after the start: they carry the seat links.
        tokens: dict[str, str] = {}
        backlog: list[MailEvent] = []
        invited = 0
        while invited < 2:
            event = await self.wait(inbox, f"invitation of {game_id}")
            if event.kind != "invite":
                backlog.append(event)
                continue
            invited += 1
            token = link_token(event, "/invite/")
            status, _, _ = await self.client.request("POST", f"/invite/{token}")
            if status != 200:
                raise RuntimeError(f"accepting an invitation answered {status}")
        for event in backlog:
            inbox.put_nowait(event)

        # Replaying the game here spares the service a request per move; an engine whose set-up
        # depends on the hidden seed (Marram's tile bag) is played from the API's legal moves.
        key = (engine, json.dumps(options, sort_keys=True))
        if key not in self.bench.starts:
            self.bench.starts[key] = local_state(engine, options)
        state = self.bench.starts[key]  # states are immutable: play() returns a new one
        ply = 0
        pending: float | None = None  # when the move in flight was posted
        while True:
            event = await self.wait(inbox, f"turn email of {game_id} move {ply + 1}")
            if event.to not in tokens and event.kind in ("started", "turn", "result"):
                tokens[event.to] = link_token(event, "/play/")
            done = event.kind == "result" or (event.kind == "turn" and event.move == ply + 1)
            if done and pending is not None:
                stats.to_next_email.append((pending, event.accepted_at - pending))
                stats.completed.append(pending)
                pending = None
            if event.kind == "result":
                break
            if event.kind != "turn" or event.move != ply + 1:
                continue
            # It is `event.to`'s turn: move at once, as a very keen player would, or after a
            # random pause (--think-ms): keen players answer a batch of emails all at once, and
            # real ones do not.
            if self.bench.args.think_ms:
                await asyncio.sleep(self.rng.expovariate(1000.0 / self.bench.args.think_ms))
            token = tokens[event.to]
            if state is not None:
                move = self.rng.choice(state.legal_moves())
                _, pending = await self.post_move(game_id, token, move, ply)
                state = state.play(move)
                ply += 1
            else:
                ply, pending = await self.take_turn(game_id, token, ply)
        # Every player gets the result.
        results = 1
        while results < 2:
            results += (await self.wait(inbox, f"second result of {game_id}")).kind == "result"
        stats.games_finished += 1

    async def post_move(self, game_id: str, token: str, move: str, ply: int) -> tuple[int, float]:
        """POSTs one move; returns its submission id and when it went out."""
        stats = self.bench.stats
        body = json.dumps({"move": move, "ply": ply}).encode()
        started = time.time()
        status, _, data = await self.patiently(
            "POST",
            f"/api/games/{game_id}/moves",
            body,
            f"Content-Type: application/json\r\nAuthorization: Bearer {token}\r\n",
        )
        stats.submits.append((started, time.time() - started))
        if status != 202:
            stats.refused[status] += 1
            raise RuntimeError(f"move {move} of {game_id} answered {status}: {data[:200]!r}")
        stats.moves += 1
        stats.accepted_submissions += 1
        if not self.bench.budget_left() and self.bench.budget_spent_at is None:
            self.bench.budget_spent_at = time.time()
        submission = int(json.loads(data)["submission"])
        stats.accepted.append((submission, game_id, ply, move))
        return submission, started

    async def take_turn(self, game_id: str, token: str, ply: int) -> tuple[int, float]:
        """A whole turn through the API, as a player on the game page makes it.

        Each action is one of the legal moves offered; the next is chosen once the last has been
        applied (Marram's turns have two actions and no email between them). Returns the new ply
        and when the turn's last action was posted.
        """
        auth = f"Authorization: Bearer {token}\r\n"
        posted: float | None = None
        while True:
            offer = await self.get_json(f"/api/games/{game_id}/legal", auth)
            if not offer["your_turn"] or not offer["moves"]:
                if posted is None:
                    raise RuntimeError(f"{game_id}: a turn email, but not this seat's turn")
                # The turn's last action counts when the next email arrives, like other moves.
                return ply, posted
            if posted is not None:  # applied, and the turn goes on: it counts now
                self.bench.stats.completed.append(posted)
            ply = offer["ply"]
            submission, posted = await self.post_move(
                game_id, token, self.rng.choice(offer["moves"]), ply
            )
            ply += 1
            while (state := await self.get_json(f"/api/submissions/{submission}", auth))[
                "status"
            ] == "pending":
                await asyncio.sleep(0.02)
            if state["status"] != "applied":
                raise RuntimeError(f"{game_id}: submission {submission} was {state}")

    async def patiently(
        self, method: str, path: str, body: bytes = b"", headers: str = ""
    ) -> tuple[int, dict[str, str], bytes]:
        """The request, sent again after each 503's Retry-After (the service says nothing was
        recorded and to try again: a database restart takes seconds), up to a minute."""
        deadline = time.monotonic() + 60.0
        while True:
            status, found, data = await self.client.request(method, path, body, headers)
            if status != 503 or time.monotonic() > deadline:
                return status, found, data
            self.bench.stats.retried_after_503 += 1
            await asyncio.sleep(float(found.get("retry-after", "1")))

    async def get_json(self, path: str, headers: str) -> Any:
        status, _, data = await self.patiently("GET", path, headers=headers)
        if status != 200:
            raise RuntimeError(f"GET {path} answered {status}: {data[:200]!r}")
        return json.loads(data)


# --- CPU accounting ------------------------------------------------------------------------------

CLK_TCK = os.sysconf("SC_CLK_TCK")


def _stat(pid: str) -> tuple[str, int, float] | None:
    """A process's name, group and CPU seconds (user + system) so far; None once it is gone."""
    try:
        with open(f"/proc/{pid}/stat") as fh:
            raw = fh.read()
    except OSError:
        return None
    comm = raw[raw.index("(") + 1 : raw.rindex(")")]
    fields = raw[raw.rindex(")") + 2 :].split()
    return comm, int(fields[2]), (int(fields[11]) + int(fields[12])) / CLK_TCK


def process_cpu(pid: int) -> float | None:
    found = _stat(str(pid))
    return None if found is None else found[2]


def cpu_by_group() -> dict[str, float]:
    """CPU seconds (user + system) used so far, by process group / program name."""
    totals: defaultdict[str, float] = defaultdict(float)
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit() or (found := _stat(entry.name)) is None:
            continue
        comm, pgid, used = found
        totals[f"pgid:{pgid}"] += used
        totals[f"comm:{comm}"] += used
        totals[f"pid:{entry.name}"] += used
    return dict(totals)


# --- the run -------------------------------------------------------------------------------------


class Bench:
    # What a subclass changes (bench/soak.py): how each slot plays, and whether the run ends by
    # measuring what the database keeps (VACUUM FULL twice: long, and beside the point there).
    slot_type: type[Slot] = Slot
    measure_storage = True

    def __init__(self, args: argparse.Namespace) -> None:
        self.args = args
        self.stack: Stack = self.make_stack()
        # Served by the players' loop; Stack only needs its url, start() and stop().
        self.sink = Sink(LOOPBACK)
        self.stack.smtp = self.sink  # type: ignore[assignment]
        self.router = Router()
        self.stats = Stats()
        self.out_of_time = False
        self.started_at = 0.0  # time.time() when the players set out
        self.budget_spent_at: float | None = None
        # What local_state() found, by engine and options.
        self.starts: dict[tuple[str, str], games.State | None] = {}
        self.time_up_at: float | None = None
        # PostgreSQL backends that served this run's database (other users share the server).
        self.backends: set[int] = set()
        # Their CPU seconds when last seen (watch_backends).
        self.backend_cpu: dict[int, float] = {}
        self.watching = threading.Event()

    def stack_settings(self) -> dict[str, Any]:
        """What `make_stack` starts the stack with."""
        args = self.args
        return {
            "sweep_seconds": args.sweep_seconds,
            "worker_concurrency": args.worker_concurrency,
            "web_workers": args.web_workers,
            "web_threads": args.web_threads,
            # Every simulated organiser starts game after game from 127.0.0.1; pictures only
            # when asked for (the setting's default is on).
            "extra_env": {
                "PBEM_RATE_LIMITS": "off",
                "PBEM_MAIL_PICTURES": "on" if args.pictures else "off",
            },
            "log_dir": args.log_dir,
        }

    def make_stack(self) -> Stack:
        settings = self.stack_settings()
        if self.args.pictures:
            return PictureStack(picture_concurrency=self.args.picture_concurrency, **settings)
        return Stack(**settings)

    async def beside_players(self) -> None:
        """Runs on the players' loop from when they set out until they have all stopped: nothing
        here (the soak's faults and probes)."""

    def budget_left(self) -> bool:
        return bool(self.stats.moves < self.args.moves)

    def time_up(self) -> None:
        self.time_up_at = time.time()
        self.out_of_time = True
        self.router.time_up()

    def run(self) -> dict[str, Any]:
        args = self.args
        stack = self.stack
        stack.start()
        if args.worker_pool != "prefork":
            stack.stop_workers()
            stack.start_worker(pool=args.worker_pool)
        return asyncio.run(self.play())

    async def play(self) -> dict[str, Any]:
        args = self.args
        stack = self.stack
        loop = asyncio.get_running_loop()
        await self.sink.serve(self.router)
        engines = parse_engines(args.engines)
        slots = [self.slot_type(i, self, engines) for i in range(args.games)]
        groups = {
            "web (gunicorn)": stack.web,
            "worker (celery)": next(iter(stack.workers.values())),
            "beat": stack.beat,
            "redis": stack.redis.proc,
        }
        if isinstance(stack, PictureStack):
            groups["picture worker (celery -Q pictures)"] = stack.picture_worker
        profilers = self.start_profilers() if args.profile else []
        bytes_before = self.database_bytes(vacuum=True) if self.measure_storage else 0
        cpu_before = cpu_by_group()
        self_before = os.times()
        started = time.monotonic()
        self.started_at = time.time()
        timer = loop.call_later(args.max_seconds, self.time_up)
        watcher = threading.Thread(target=self.watch_backends, daemon=True)
        watcher.start()
        tasks = [asyncio.create_task(slot.run(), name=slot.name) for slot in slots]
        probe = asyncio.create_task(self.probe_loop_lag())
        beside = asyncio.create_task(self.beside_players(), name="beside the players")
        _, stuck = await asyncio.wait(tasks, timeout=args.max_seconds + 120)
        probe.cancel()
        wall = time.monotonic() - started
        ended_at = time.time()
        self_after = os.times()
        cpu_after = cpu_by_group()
        timer.cancel()
        for task in stuck:
            task.cancel()
            self.stats.errors.append(f"{task.get_name()}: still playing at the end")
        await beside
        self.watching.set()
        watcher.join()
        for profiler in profilers:
            profiler.signal_group(signal.SIGINT)
        for profiler in profilers:
            assert profiler.popen is not None
            await asyncio.to_thread(profiler.popen.wait, 120)  # the loop serves SMTP meanwhile

        # Let the last emails out (the loop keeps serving SMTP meanwhile), then compare what the
        # service stored with what the sink saw.
        ids = list(self.stats.game_ids)
        await asyncio.to_thread(
            wait_until, lambda: self.settled(ids), timeout=300, message="the last tasks to finish"
        )
        integrity = self.integrity(ids)
        drawn = self.pictures()
        self.sink.stop()
        stored = (
            self.storage(bytes_before, integrity["moves_stored"]) if self.measure_storage else {}
        )

        cpu: dict[str, float] = {}
        for name, proc in groups.items():
            if isinstance(proc, Proc) and proc.popen is not None:
                key = f"pgid:{proc.pid}"
                cpu[name] = cpu_after.get(key, 0.0) - cpu_before.get(key, 0.0)
        cpu["postgres (this database's backends)"] = sum(
            cpu_after.get(f"pid:{pid}", self.backend_cpu.get(pid, 0.0))
            - cpu_before.get(f"pid:{pid}", 0.0)
            for pid in self.backends
        )
        cpu["bench driver + SMTP sink"] = (self_after.user + self_after.system) - (
            self_before.user + self_before.system
        )
        stats = self.stats
        moves = stats.moves
        return {
            "games": len(ids),
            "games_finished": stats.games_finished,
            "games_cut_short": stats.games_cut_short,
            "moves": moves,
            "wall_seconds": wall,
            "moves_per_second": moves / wall if wall else 0.0,
            **figures(stats, self.started_at, ended_at),
            "steady": figures(
                stats,
                self.started_at + args.warmup_seconds,
                min(t for t in (self.budget_spent_at, self.time_up_at, ended_at) if t is not None),
            ),
            "driver_lag_p50_ms": pct(stats.loop_lag, 50) * 1000,
            "driver_lag_p99_ms": pct(stats.loop_lag, 99) * 1000,
            "refused": dict(stats.refused),
            "retried_after_503": stats.retried_after_503,
            "errors": stats.errors[:10],
            "cpu_seconds": cpu,
            "cpu_ms_per_move": {k: 1000 * v / moves for k, v in cpu.items()} if moves else {},
            **integrity,
            **stored,
            **drawn,
            "pictures_per_second": drawn["pictures_drawn"] / wall if wall else 0.0,
            "emails_with_picture": self.router.with_picture,
            "cpu_ms_per_email": (
                {k: 1000 * v / integrity["emails_written"] for k, v in cpu.items()}
                if integrity["emails_written"]
                else {}
            ),
        }

    def pictures(self) -> dict[str, int]:
        """Board pictures drawn, and failed, as the picture worker logged them (the table keeps
        a picture only while an email waits for it)."""
        worker = getattr(self.stack, "picture_worker", None)
        if worker is None:
            return {"pictures_drawn": 0, "pictures_failed": 0}
        found = re.findall(r"pictures: drew (\d+) \((\d+) failed\)", worker.log_tail(50_000_000))
        return {
            "pictures_drawn": sum(int(drawn) for drawn, _ in found),
            "pictures_failed": sum(int(failed) for _, failed in found),
        }

    def database_bytes(self, vacuum: bool = False) -> int:
        """pg_database_size of the run's database; after VACUUM FULL when `vacuum`."""
        if vacuum:
            with self.stack.db.connect() as conn:
                conn.execute("vacuum full")
        return int(self.stack.db.scalar("select pg_database_size(current_database())"))

    def storage(self, before: int, moves: int) -> dict[str, float]:
        """What the run left in PostgreSQL, in kB a move: as it grew (dead rows and all, those of
        deleted pictures until autovacuum frees their space for reuse); what it holds once the
        next sweep deleted the pictures of the last emails (after VACUUM FULL); and what it
        holds for good, once the sweep emptied the delivered bodies PBEM_MAIL_KEEP_DAYS later
        (VACUUM FULL again)."""
        from datetime import timedelta

        from pbem.app import create_app
        from pbem.config import SETTING_NAMES
        from pbem.domain import board_pictures
        from pbem.domain import sweep as sweeping
        from pbem.extensions import db, settings
        from pbem.models import utcnow

        per_move = 1024.0 * max(moves, 1)
        grown = self.database_bytes() - before
        app = create_app({k: v for k, v in self.stack.env.items() if k in SETTING_NAMES})
        with app.app_context():
            config = settings()
            # What the next sweep does: the last emails went, their pictures go.
            while board_pictures.prune(limit=10_000):
                pass
            held = self.database_bytes(vacuum=True) - before
            later = utcnow() + timedelta(days=config.mail.keep_days, seconds=1)
            while sweeping.prune_bodies(config, later, limit=10_000):
                pass
            db.engine.dispose()
        pruned = self.database_bytes(vacuum=True) - before
        return {
            "stored_kb_per_move_grown": grown / per_move,
            "stored_kb_per_move": held / per_move,
            "stored_kb_per_move_pruned": pruned / per_move,
        }

    async def probe_loop_lag(self, period: float = 0.005) -> None:
        """Samples how late the loop wakes a sleeper: a latency seen here is the driver's."""
        while True:
            due = time.monotonic() + period
            await asyncio.sleep(period)
            self.stats.loop_lag.append(max(0.0, time.monotonic() - due))

    def watch_backends(self) -> None:
        """Every second, the backends serving this run's database and the CPU each has used so
        far, so that one that ends (a restart ends them all) still counts. One connection, left
        out of the set (a fresh one per look started a backend a second, and counted its start-up
        as the service's PostgreSQL time), opened again when PostgreSQL restarts."""
        query = (
            "select pid from pg_stat_activity "
            "where datname = current_database() and pid <> pg_backend_pid()"
        )
        while not self.watching.is_set():
            try:
                with self.stack.db.connect() as conn:
                    while True:
                        self.backends.update(pid for (pid,) in conn.execute(query).fetchall())
                        for pid in self.backends:
                            seconds = process_cpu(pid)
                            if seconds is not None:
                                self.backend_cpu[pid] = seconds
                        if self.watching.wait(1.0):
                            return
            except psycopg.OperationalError:
                if self.watching.wait(1.0):
                    return

    def start_profilers(self) -> list[Proc]:
        """py-spy on the web and worker process trees (the picture worker's too), as collapsed
        stacks for flame graphs."""
        out = Path(self.args.profile)
        out.mkdir(parents=True, exist_ok=True)
        targets = {"web": self.stack.web, "worker": next(iter(self.stack.workers.values()))}
        for queue, worker in self.stack.queue_workers.items():
            targets[f"worker-{queue}"] = worker
        profilers = []
        for name, proc in targets.items():
            assert proc is not None
            argv = [
                str(Path(sys.executable).parent / "py-spy"),
                "record",
                "--subprocesses",
                "--gil",  # only samples holding the GIL: CPU, not threads waiting on I/O
                "--rate=200",
                "--format=raw",
                f"--output={out / (name + '.txt')}",
                f"--pid={proc.pid}",
            ]
            profilers.append(Proc(f"py-spy-{name}", argv, log_dir=out).start())
        time.sleep(2)  # py-spy attaches
        return profilers

    def settled(self, game_ids: list[str]) -> bool:
        pending = self.stack.db.scalar(
            "select (select count(*) from submissions where status = 'pending' "
            "and game_id = any(%s)) + (select count(*) from outbox where status = 'pending' "
            "and game_id = any(%s))",
            game_ids,
            game_ids,
        )
        return bool(pending == 0)

    def integrity(self, game_ids: list[str]) -> dict[str, Any]:
        db = self.stack.db
        applied = db.query(
            "select game_id, ply, count(*) from submissions where status = 'applied' "
            "and game_id = any(%s) group by game_id, ply",
            game_ids,
        )
        moves = db.scalar("select count(*) from moves where game_id = any(%s)", game_ids)
        outbox = [
            mid
            for (mid,) in db.query(
                "select message_id from outbox where game_id = any(%s)", game_ids
            )
        ]
        at_sink = self.router.message_ids
        return {
            "moves_stored": moves,
            "moves_lost": self.stats.accepted_submissions - len(applied),
            "moves_duplicated": sum(n - 1 for _, _, n in applied if n > 1),
            "emails_written": len(outbox),
            "emails_lost": sum(1 for mid in outbox if at_sink[mid] == 0),
            "emails_duplicated": sum(n - 1 for mid, n in at_sink.items() if n > 1),
        }

    def close(self) -> None:
        self.stack.close()


def parse_engines(text: str) -> list[tuple[str, dict[str, Any]]]:
    """`gorami:16,mmw` -> [("gorami", {"board": "16"}), ("mmw", {})]."""
    found = []
    for item in text.split(","):
        name, _, value = item.strip().partition(":")
        rules = games.get(name)
        options: dict[str, Any] = {}
        if value:
            options[next(iter(rules.options))] = value
        found.append((rules.name, options))
    return found


def local_state(engine: str, options: dict[str, Any]) -> games.State | None:
    """The game's start, if the service's hidden seed makes no difference to what the players
    see or may do; None otherwise (then the players take the API's legal moves)."""
    rules = games.get(engine)
    starts = [rules.new(2, options, seed) for seed in range(4)]

    def seen(state: games.State) -> Any:
        return [state.legal_moves(), state.view(0), state.view(1)]

    if any(seen(start) != seen(starts[0]) for start in starts):
        return None
    return starts[0]


def figures(stats: Stats, start: float, end: float) -> dict[str, float]:
    """Rate and latencies of the moves posted in [start, end)."""
    submits = [latency for t, latency in stats.submits if start <= t < end]
    emails = [latency for t, latency in stats.to_next_email if start <= t < end]
    completed = sum(1 for t in stats.completed if start <= t < end)
    seconds = max(0.0, end - start)
    return {
        "seconds": seconds,
        "moves_posted": len(submits),
        # A move counts once the next email of its game has reached the sink (or, within a turn
        # of several actions, once the service shows it applied).
        "end_to_end_per_second": completed / seconds if seconds else 0.0,
        "submit_p50_ms": pct(submits, 50) * 1000,
        "submit_p99_ms": pct(submits, 99) * 1000,
        "next_email_p50_ms": pct(emails, 50) * 1000,
        "next_email_p99_ms": pct(emails, 99) * 1000,
    }


def pct(values: list[float], p: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    if len(ordered) == 1:
        return ordered[0]
    return statistics.quantiles(ordered, n=100, method="inclusive")[int(p) - 1]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=40, help="games played at the same time")
    parser.add_argument("--moves", type=int, default=4000, help="stop starting games after this")
    parser.add_argument("--max-seconds", type=float, default=300, help="hard bound on the run")
    parser.add_argument(
        "--engines", default="gorami:16", help="comma-separated, e.g. gorami:16,mmw (long games)"
    )
    parser.add_argument(
        "--think-ms",
        type=float,
        default=0.0,
        help="mean pause (exponential) before a player moves; 0: at once",
    )
    parser.add_argument(
        "--ramp-seconds",
        type=float,
        default=2.0,
        help="slots start their first game at random within this time, not all at once",
    )
    parser.add_argument(
        "--warmup-seconds",
        type=float,
        default=5.0,
        help="the steady-state figures leave out moves posted before this",
    )
    parser.add_argument("--web-workers", type=int, default=2)
    parser.add_argument("--web-threads", type=int, default=4)
    parser.add_argument(
        "--worker-concurrency", type=int, default=1, help="as the Procfile's default"
    )
    parser.add_argument("--worker-pool", default="prefork")
    parser.add_argument("--sweep-seconds", type=int, default=30)
    parser.add_argument(
        "--pictures",
        action="store_true",
        help="board pictures in mail, drawn by the picture worker (off: PBEM_MAIL_PICTURES=off)",
    )
    parser.add_argument(
        "--picture-concurrency", type=int, default=1, help="processes of the picture worker"
    )
    parser.add_argument("--log-dir", default=None)
    parser.add_argument("--profile", metavar="DIR", help="py-spy the web and workers into DIR")
    parser.add_argument("--json", action="store_true", help="print the raw figures as JSON")
    args = parser.parse_args(argv)

    bench = Bench(args)
    try:
        result = bench.run()
    finally:
        bench.close()
    result["machine"] = (
        f"{platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}"
    )
    result["settings"] = {
        k: getattr(args, k)
        for k in (
            "games",
            "moves",
            "engines",
            "think_ms",
            "ramp_seconds",
            "warmup_seconds",
            "web_workers",
            "web_threads",
            "worker_concurrency",
            "worker_pool",
            "pictures",
            "picture_concurrency",
        )
    }
    if args.json:
        print(json.dumps(result, indent=2))
    else:
        report(result)
    bad = result["moves_lost"] or result["moves_duplicated"] or result["emails_lost"]
    return 1 if bad or result["errors"] else 0


def report(r: dict[str, Any]) -> None:
    print(f"machine: {r['machine']}")
    print(f"settings: {r['settings']}")
    print(
        f"games {r['games']} (finished {r['games_finished']}, cut short by --max-seconds "
        f"{r['games_cut_short']}), moves {r['moves']} in "
        f"{r['wall_seconds']:.1f} s"
    )
    steady = r["steady"]
    if steady["moves_posted"]:
        print(
            f"steady state ({steady['seconds']:.1f} s from {r['settings']['warmup_seconds']:.0f} "
            f"s on, {steady['moves_posted']} moves):"
        )
        print(f"  end-to-end moves per second: {steady['end_to_end_per_second']:.1f}")
        latencies(steady)
    else:
        print("steady state: none, the move budget ran out within --warmup-seconds")
    print(f"whole run: end-to-end moves per second: {r['moves_per_second']:.1f}")
    latencies(r)
    print(
        f"driver loop lag (part of every latency above): p50 {r['driver_lag_p50_ms']:.1f} ms, "
        f"p99 {r['driver_lag_p99_ms']:.1f} ms"
    )
    print(
        f"moves: stored {r['moves_stored']}, lost {r['moves_lost']}, duplicated "
        f"{r['moves_duplicated']}"
    )
    print(
        f"emails: written {r['emails_written']}, lost {r['emails_lost']}, duplicated "
        f"{r['emails_duplicated']}"
    )
    print(
        f"PostgreSQL per move: grew {r['stored_kb_per_move_grown']:.1f} kB, holds "
        f"{r['stored_kb_per_move']:.1f} kB (after VACUUM FULL), "
        f"{r['stored_kb_per_move_pruned']:.1f} kB once delivered bodies are pruned"
    )
    print("CPU per move (ms):")
    for name, value in sorted(r["cpu_ms_per_move"].items(), key=lambda kv: -kv[1]):
        print(f"  {name:28s} {value:6.2f}")
    if r["settings"]["pictures"]:
        print(
            f"pictures: drawn {r['pictures_drawn']} ({r['pictures_failed']} failed), "
            f"{r['pictures_per_second']:.1f} per second; emails with a picture at the sink: "
            f"{r['emails_with_picture']} of {r['emails_written']}"
        )
        per_picture = r["cpu_seconds"].get("picture worker (celery -Q pictures)", 0.0)
        if r["pictures_drawn"]:
            print(
                f"picture worker CPU per picture drawn: "
                f"{1000 * per_picture / r['pictures_drawn']:.2f} ms"
            )
    print("CPU per email (ms):")
    for name, value in sorted(r["cpu_ms_per_email"].items(), key=lambda kv: -kv[1]):
        print(f"  {name:28s} {value:6.2f}")
    print(f"  {'all of the service':28s} {service_cpu(r['cpu_ms_per_email']):6.2f}")
    if r["refused"]:
        print(f"refused submissions by status: {r['refused']}")
    if r.get("retried_after_503"):
        print(f"requests sent again after a 503's Retry-After: {r['retried_after_503']}")
    for error in r["errors"]:
        print(f"error: {error}")


def service_cpu(per: dict[str, float]) -> float:
    """The service's share of a CPU figure: every group but the benchmark's own driver."""
    return sum(v for k, v in per.items() if not k.startswith("bench driver"))


def latencies(r: dict[str, Any]) -> None:
    print(f"  submit latency: p50 {r['submit_p50_ms']:.1f} ms, p99 {r['submit_p99_ms']:.1f} ms")
    print(
        f"  submit -> next email accepted by SMTP: p50 {r['next_email_p50_ms']:.1f} ms, "
        f"p99 {r['next_email_p99_ms']:.1f} ms"
    )


if __name__ == "__main__":
    sys.exit(main())
