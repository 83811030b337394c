"""Load test of the real service on loopback (a benchmark, not a test).

Starts the stack the Procfile describes: gunicorn, one celery worker, celery beat, a private
redis-server, a throwaway PostgreSQL database and an SMTP sink (aiosmtpd, in this process). Then
`--games` simulated games run at once, each played to the end by two simulated players, and each
slot starts a new game when its game ends until `--moves` moves have been made (bounded by
`--max-seconds`). Players start their games from the web form, accept the invitations from the
links in their emails, read their seat tokens from the emails, and move over the JSON API when the
sink receives their turn email.

Reported:
- end-to-end moves per second: moves made / wall time of the play phase, where each move counts
  from its POST until the next email of its game (the next player's turn, or the result) has been
  accepted by SMTP;
- p50 / p99 submit latency (the POST that records a move, as the player sees it);
- p50 / p99 time from a move's POST to the next player's email at the sink;
- lost or duplicated moves (accepted submissions not applied exactly once) and emails (outbox rows
  not at the sink, Message-IDs at the sink more than once);
- CPU seconds per move spent by each component (from /proc), to show where the time goes.

    .venv/bin/python bench/service.py [--games 40] [--moves 4000] [--web-workers 2] \
        [--web-threads 4] [--worker-concurrency 2] [--engines gorami:16]

Needs PostgreSQL at PBEM_TEST_DATABASE_URL (default postgresql://postgres@127.0.0.1:5432/test) and
redis-server installed; everything listens on 127.0.0.1 only.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import platform
import queue
import random
import re
import signal
import statistics
import sys
import threading
import time
import urllib.parse
from collections import Counter
from dataclasses import dataclass, field
from email import message_from_bytes, policy
from email.parser import BytesHeaderParser
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from pbem import games  # noqa: E402
from tests.support.procs import LOOPBACK, Proc, wait_until  # noqa: E402
from tests.support.smtp import Received  # noqa: E402
from tests.support.stack import Stack  # noqa: E402

SUBJECT_RE = re.compile(r" ([A-Za-z0-9_-]{8,32}): (.*)$")
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
    received: Received


class Router:
    """Sends each message the sink accepts to the slot playing its game (headers only)."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.queues: dict[str, queue.Queue[MailEvent]] = {}
        self.early: dict[str, list[MailEvent]] = {}
        self.message_ids: Counter[str] = Counter()
        self.parser = BytesHeaderParser(policy=policy.compat32)

    def __call__(self, received: Received) -> None:
        headers = self.parser.parsebytes(received.raw, headersonly=True)
        subject = " ".join(str(headers.get("Subject", "")).split())
        self.message_ids[str(headers.get("Message-ID", "")).strip()] += 1
        match = SUBJECT_RE.search(subject)
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
                        ("invite", "invitation"),
                        ("started", "has started"),
                        ("result", "is over"),
                    )
                    if word in about
                ),
                "other",
            )
        event = MailEvent(
            game_id, kind, move, received.rcpt_tos[0].lower(), received.accepted_at, received
        )
        with self.lock:
            target = self.queues.get(game_id)
            if target is None:
                self.early.setdefault(game_id, []).append(event)
                return
        target.put(event)

    def register(self, game_id: str, inbox: queue.Queue[MailEvent]) -> None:
        with self.lock:
            self.queues[game_id] = inbox
            for event in self.early.pop(game_id, []):
                inbox.put(event)


def link_token(received: Received, path: str) -> str:
    """The token of the first `path` link (e.g. "/play/") in a message's plain text."""
    message = message_from_bytes(received.raw, policy=policy.default)
    body = message.get_body(preferencelist=("plain",))  # type: ignore[attr-defined]
    text = body.get_content() if body is not None else ""
    match = re.search(re.escape(path) + r"([A-Za-z0-9._-]+)", text)
    if match is None:
        raise RuntimeError(f"no {path} link in {message['Subject']!r}")
    return match.group(1)


# --- simulated players ---------------------------------------------------------------------------


class Client:
    """One keep-alive HTTP connection to gunicorn."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.conn: http.client.HTTPConnection | None = None

    def request(
        self,
        method: str,
        path: str,
        body: bytes | None = None,
        headers: dict[str, str] | None = None,
    ) -> tuple[int, dict[str, str], bytes]:
        for attempt in range(2):
            if self.conn is None:
                self.conn = http.client.HTTPConnection(LOOPBACK, self.port, timeout=120)
            try:
                self.conn.request(method, path, body=body, headers=headers or {})
                resp = self.conn.getresponse()
                data = resp.read()
                return resp.status, {k.lower(): v for k, v in resp.getheaders()}, data
            except (http.client.HTTPException, OSError):
                self.conn.close()
                self.conn = None
                if attempt:
                    raise
        raise AssertionError("unreachable")


class OutOfTime(Exception):
    """--max-seconds ran out while a game was still being played."""


@dataclass
class Stats:
    lock: threading.Lock = field(default_factory=threading.Lock)
    submit_latency: list[float] = field(default_factory=list)
    to_next_email: list[float] = field(default_factory=list)
    moves: int = 0
    games_finished: int = 0
    games_cut_short: int = 0
    refused: Counter[int] = field(default_factory=Counter)
    game_ids: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    accepted_submissions: int = 0


class Slot(threading.Thread):
    """Plays games one after another until the move budget is spent."""

    def __init__(
        self,
        index: int,
        bench: Bench,
        engines: list[tuple[str, dict[str, Any]]],
    ) -> None:
        super().__init__(name=f"slot-{index}", daemon=True)
        self.index = index
        self.bench = bench
        self.engines = engines
        self.client = Client(bench.stack.web_port)
        self.rng = random.Random(index)
        self.games_played = 0

    def run(self) -> None:
        try:
            while self.bench.budget_left() and time.monotonic() < self.bench.deadline:
                engine, options = self.engines[(self.index + self.games_played) % len(self.engines)]
                self.play_one(engine, options)
                self.games_played += 1
        except OutOfTime:
            with self.bench.stats.lock:
                self.bench.stats.games_cut_short += 1
        except Exception as exc:  # reported in the summary
            self.bench.stats.errors.append(f"{self.name}: {type(exc).__name__}: {exc}")

    def wait(self, inbox: queue.Queue[MailEvent], what: str) -> MailEvent:
        """The next mail of this slot's game; gives up quietly once the run's time is over."""
        while True:
            try:
                return inbox.get(timeout=1.0)
            except queue.Empty:
                if time.monotonic() > self.bench.deadline:
                    raise OutOfTime(what) from None

    def play_one(self, engine: str, options: dict[str, Any]) -> None:
        stats = self.bench.stats
        tag = f"s{self.index}g{self.games_played}"
        emails = [f"p0-{tag}@bench.test", f"p1-{tag}@bench.test"]
        form = {"game": engine, "emails": "\n".join(emails), **options}
        status, headers, _ = self.client.request(
            "POST",
            "/",
            urllib.parse.urlencode(form).encode(),
            {"Content-Type": "application/x-www-form-urlencoded"},
        )
        match = CREATED_RE.search(headers.get("location", ""))
        if status != 303 or match is None:
            raise RuntimeError(f"creating a game answered {status}")
        game_id = match.group(1)
        inbox: queue.Queue[MailEvent] = queue.Queue()
        self.bench.router.register(game_id, inbox)
        with stats.lock:
            stats.game_ids.append(game_id)

        # Invitations, then the first mails after the start: they carry the seat links.
        tokens: dict[str, str] = {}
        backlog: list[MailEvent] = []
        invited = 0
        while invited < 2:
            event = self.wait(inbox, f"invitation of {game_id}")
            if event.kind != "invite":
                backlog.append(event)
                continue
            invited += 1
            token = link_token(event.received, "/invite/")
            status, _, _ = self.client.request("POST", f"/invite/{token}", b"")
            if status != 200:
                raise RuntimeError(f"accepting an invitation answered {status}")
        for event in backlog:
            inbox.put(event)

        rules = games.get(engine)
        state = rules.new(2, options, 0)
        ply = 0
        pending: float | None = None  # when the move in flight was posted
        while True:
            event = self.wait(inbox, f"turn email of {game_id} move {ply + 1}")
            if event.to not in tokens and event.kind in ("started", "turn", "result"):
                tokens[event.to] = link_token(event.received, "/play/")
            done = event.kind == "result" or (event.kind == "turn" and event.move == ply + 1)
            if done and pending is not None:
                with stats.lock:
                    stats.to_next_email.append(event.accepted_at - pending)
                pending = None
            if event.kind == "result":
                break
            if event.kind != "turn" or event.move != ply + 1:
                continue
            # It is `event.to`'s turn: move at once, as a very keen player would.
            move = self.rng.choice(state.legal_moves())
            body = json.dumps({"move": move, "ply": ply}).encode()
            started = time.time()
            status, _, data = self.client.request(
                "POST",
                f"/api/games/{game_id}/moves",
                body,
                {"Content-Type": "application/json", "Authorization": f"Bearer {tokens[event.to]}"},
            )
            latency = time.time() - started
            with stats.lock:
                stats.submit_latency.append(latency)
                if status == 202:
                    stats.moves += 1
                    stats.accepted_submissions += 1
                else:
                    stats.refused[status] += 1
            if status != 202:
                raise RuntimeError(f"move {move} of {game_id} answered {status}: {data[:200]!r}")
            state = state.play(move)
            ply += 1
            pending = started
        # Every player gets the result.
        results = 1
        while results < 2:
            results += self.wait(inbox, f"second result of {game_id}").kind == "result"
        with stats.lock:
            stats.games_finished += 1


# --- CPU accounting ------------------------------------------------------------------------------

CLK_TCK = os.sysconf("SC_CLK_TCK")


def cpu_by_group() -> dict[str, float]:
    """CPU seconds (user + system) used so far, by process group / program name."""
    totals: Counter[str] = Counter()
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            with open(f"/proc/{entry.name}/stat") as fh:
                raw = fh.read()
        except OSError:
            continue
        comm = raw[raw.index("(") + 1 : raw.rindex(")")]
        fields = raw[raw.rindex(")") + 2 :].split()
        pgid = int(fields[2])
        used = (int(fields[11]) + int(fields[12])) / CLK_TCK  # utime, stime
        totals[f"pgid:{pgid}"] += used
        totals[f"comm:{comm}"] += used
        totals[f"pid:{entry.name}"] += used
    return dict(totals)


# --- the run -------------------------------------------------------------------------------------


class Bench:
    def __init__(self, args: argparse.Namespace) -> None:
        self.args = args
        self.stack = Stack(
            sweep_seconds=args.sweep_seconds,
            worker_concurrency=args.worker_concurrency,
            web_workers=args.web_workers,
            web_threads=args.web_threads,
            log_dir=args.log_dir,
        )
        self.router = Router()
        self.stats = Stats()
        self.deadline = 0.0
        # PostgreSQL backends that served this run's database (other users share the server).
        self.backends: set[int] = set()
        self.watching = threading.Event()

    def budget_left(self) -> bool:
        with self.stats.lock:
            return self.stats.moves < self.args.moves

    def run(self) -> dict[str, Any]:
        args = self.args
        stack = self.stack
        stack.smtp.listeners.append(self.router)
        stack.start()
        if args.worker_pool != "prefork":
            stack.stop_workers()
            stack.start_worker(pool=args.worker_pool)
        engines = parse_engines(args.engines)
        slots = [Slot(i, self, engines) for i in range(args.games)]
        groups = {
            "web (gunicorn)": stack.web,
            "worker (celery)": next(iter(stack.workers.values())),
            "beat": stack.beat,
            "redis": stack.redis.proc,
        }
        profilers = self.start_profilers() if args.profile else []
        cpu_before = cpu_by_group()
        self_before = os.times()
        started = time.monotonic()
        self.deadline = started + args.max_seconds
        watcher = threading.Thread(target=self.watch_backends, daemon=True)
        watcher.start()
        for slot in slots:
            slot.start()
        for slot in slots:
            slot.join(args.max_seconds + 120)
        wall = time.monotonic() - started
        self.watching.set()
        watcher.join()
        cpu_after = cpu_by_group()
        self_after = os.times()
        for profiler in profilers:
            profiler.signal_group(signal.SIGINT)
        for profiler in profilers:
            assert profiler.popen is not None
            profiler.popen.wait(120)

        # Let the last emails out, then compare what the service stored with what the sink saw.
        ids = list(self.stats.game_ids)
        wait_until(lambda: self.settled(ids), timeout=300, message="the last tasks to finish")
        integrity = self.integrity(ids)

        cpu: dict[str, float] = {}
        for name, proc in groups.items():
            if isinstance(proc, Proc) and proc.popen is not None:
                key = f"pgid:{proc.pid}"
                cpu[name] = cpu_after.get(key, 0.0) - cpu_before.get(key, 0.0)
        cpu["postgres (this database's backends)"] = sum(
            cpu_after.get(f"pid:{pid}", 0.0) - cpu_before.get(f"pid:{pid}", 0.0)
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
            "submit_p50_ms": pct(stats.submit_latency, 50) * 1000,
            "submit_p99_ms": pct(stats.submit_latency, 99) * 1000,
            "next_email_p50_ms": pct(stats.to_next_email, 50) * 1000,
            "next_email_p99_ms": pct(stats.to_next_email, 99) * 1000,
            "refused": dict(stats.refused),
            "errors": stats.errors[:10],
            "cpu_seconds": cpu,
            "cpu_ms_per_move": {k: 1000 * v / moves for k, v in cpu.items()} if moves else {},
            **integrity,
        }

    def watch_backends(self) -> None:
        while True:
            rows = self.stack.db.query(
                "select pid from pg_stat_activity where datname = current_database()"
            )
            self.backends.update(pid for (pid,) in rows)
            if self.watching.wait(1.0):
                return

    def start_profilers(self) -> list[Proc]:
        """py-spy on the web and worker process trees, as collapsed stacks for flame graphs."""
        out = Path(self.args.profile)
        out.mkdir(parents=True, exist_ok=True)
        targets = {"web": self.stack.web, "worker": next(iter(self.stack.workers.values()))}
        profilers = []
        for name, proc in targets.items():
            assert proc is not None
            argv = [
                str(Path(sys.executable).parent / "py-spy"),
                "record",
                "--subprocesses",
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
        return pending == 0

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
    parser.add_argument("--web-workers", type=int, default=2)
    parser.add_argument("--web-threads", type=int, default=4)
    parser.add_argument("--worker-concurrency", type=int, default=2)
    parser.add_argument("--worker-pool", default="prefork")
    parser.add_argument("--sweep-seconds", type=int, default=30)
    parser.add_argument("--log-dir", default=None)
    parser.add_argument("--profile", metavar="DIR", help="py-spy the web and worker into DIR")
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
            "web_workers",
            "web_threads",
            "worker_concurrency",
            "worker_pool",
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
    print(f"end-to-end moves per second: {r['moves_per_second']:.1f}")
    print(f"submit latency: p50 {r['submit_p50_ms']:.1f} ms, p99 {r['submit_p99_ms']:.1f} ms")
    print(
        f"submit -> next email accepted by SMTP: p50 {r['next_email_p50_ms']:.1f} ms, "
        f"p99 {r['next_email_p99_ms']:.1f} ms"
    )
    print(
        f"moves: stored {r['moves_stored']}, lost {r['moves_lost']}, duplicated "
        f"{r['moves_duplicated']}"
    )
    print(
        f"emails: written {r['emails_written']}, lost {r['emails_lost']}, duplicated "
        f"{r['emails_duplicated']}"
    )
    print("CPU per move (ms):")
    for name, value in sorted(r["cpu_ms_per_move"].items(), key=lambda kv: -kv[1]):
        print(f"  {name:28s} {value:6.2f}")
    if r["refused"]:
        print(f"refused submissions by status: {r['refused']}")
    for error in r["errors"]:
        print(f"error: {error}")


if __name__ == "__main__":
    sys.exit(main())
