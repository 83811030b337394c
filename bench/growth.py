"""Growth: the service's hot paths with a million finished games (a benchmark run by hand, not a
test).

Creates two databases of its own on the PostgreSQL server of `--database-url`, migrates them with
the app's Alembic migrations (so the schema is exactly theirs), and loads them with COPY
(psycopg's `cursor.copy`, never the ORM):

- small: `--small` finished games and as many running ones (1,000 + 1,000 by default), 1,000
  players;
- large: `--large-finished` finished and `--large-running` running games (1,000,000 + 100,000),
  `--large-players` players (50,000).

Each game has 2 seats, and the history of its 2 plies: 2 moves, 2 applied submissions and 1 sent
email, all with the same short engine snapshot (a GORami game 2 plies in, ~200 bytes): about 2 KB
a game with its indexes, 2.3 GB at the large scale. 1 % as many games as run are still inviting
(half of them unconfirmed), none of them due for anything. One player has 200 games (100 running,
100 finished) for the dashboard. Running games' deadlines are spread over 26 to 72 hours after the
measured `now`, their reminders a day before each, so nothing is due at `now` but what each
measure sets up.

After VACUUM ANALYZE, each measure runs once at each scale to warm up, then `--runs` times, the
two scales taking turns (so that the load others put on a shared machine falls on both alike);
the median of the runs is reported:

- submit: p99 latency of `--submits` calls of `submit_move` (with the claims read from a signed
  seat token) on 300 running games whose turn it is, in turn; the submissions are marked
  rejected after each run, so every run finds the same games and the sweep the same pending rows;
- clock: one `run_clock(config, now)` with exactly `--timeouts` games past their deadline and
  `--reminders` reminders due (fresh games each run; their emails are then marked sent, and the
  last run an instant before, so no downtime is found);
- sweep: `expire_unconfirmed(now)` and `sweep(config, now)`, as the sweep task runs them, with
  `--pending` submissions and as many emails pending (read-only: the mean of 50 sweeps per run);
- dashboard: `game_lines(config, player)` of the player with 200 games (the mean of 5 per run).

Each figure is wall time (what the target is about), and beside it the CPU time this process and
the database's backends spent (from /proc), which a shared machine's load disturbs far less.

At the large scale every distinct SELECT the four measures issued (captured from their warm-up
runs) is shown with EXPLAIN (ANALYZE, BUFFERS), with due rows in place, and checked for
sequential scans of the service's tables: the clock task's and the sweep's scans for due work in
full, the rest in a line each. The summary compares the large figures to the small
ones: the target is within 20 %. The exit status is 0 when every figure and plan met its target,
3 when one did not. The databases are dropped at the end (on error, Ctrl-C and SIGTERM too),
unless `--keep`.

    .venv/bin/python bench/growth.py [--small 1000] [--large-finished 1000000] \
        [--large-running 100000] [--runs 3] [--keep] [--database-url URL]

`--database-url` names any database of the server (default: PBEM_TEST_DATABASE_URL, else
postgresql://postgres@127.0.0.1:5432/test); the benchmark's own (`pbem_growth_<pid>_<random>`)
are created beside it.
"""

from __future__ import annotations

import argparse
import base64
import contextlib
import json
import os
import random
import re
import secrets
import shutil
import signal
import statistics
import sys
import time
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import psycopg

REPO = Path(__file__).resolve().parent.parent
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from pbem import games, links  # noqa: E402
from pbem.domain import outcomes  # noqa: E402
from pbem.models import utcnow  # noqa: E402
from tests.support.pg import TempDatabase, admin_url, libpq_url  # noqa: E402

ENGINE = "gorami"
PLIES = 2  # every game's snapshot is this many plies in
TEMPLATE_SEED = 20261201
CLOCK = {"kind": "days", "days": 3, "weekends_free": False}
DASHBOARD_RUNNING = DASHBOARD_FINISHED = 100
SMALL_PLAYERS = 1000
SWEEP_GAMES = 10  # the games the pending submissions and emails belong to
SWEEP_REPEAT = 50
DASHBOARD_REPEAT = 5
WARMUP_CLOCK = 10  # timeouts and reminders of each scale's warm-up clock run
WARMUP_SUBMITS = 20
SUBMIT_GAMES = 300  # the games submitted to, in turn
CHUNK = 20_000  # games per COPY transaction
TARGET = 1.20  # large / small
MISSED = 3  # the exit status when a figure or a plan missed its target
SUBMIT = "submit p99 (ms)"
CLOCK_RUN = "clock run (ms)"
SWEEP = "sweep (ms)"
DASHBOARD = "dashboard, 200 games (ms)"
MEASURES = (SUBMIT, CLOCK_RUN, SWEEP, DASHBOARD)
# Tables whose sequential scan would grow with the service's history.
BIG_TABLES = ("games", "seats", "players", "moves", "submissions", "outbox", "game_events")
NULL = r"\N"
GAME_COLUMNS = (
    "id, engine, options, seed, state, ply, to_move, status, outcome, thread_message_id, "
    "created_at, started_at, finished_at, organiser_id, confirmed_at, clock, timeout_policy, "
    "turn_started_at, deadline, paused_at, reminder_at, draw_offered_by"
)
SEAT_COLUMNS = "id, game_id, seat, player_id, nonce, invited_at, accepted_at, state"
SUBMISSION_COLUMNS = "id, game_id, seat, ply, move, status, created_at, applied_at"
MOVE_COLUMNS = "id, game_id, ply, seat, move, submission_id, created_at"
OUTBOX_COLUMNS = (
    'id, game_id, kind, "to", subject, text, html, message_id, in_reply_to, "references", '
    "status, attempts, next_attempt_at, created_at, sent_at"
)


def ts(value: datetime | None) -> str:
    return NULL if value is None else value.isoformat(sep=" ")


def copy_json(value: Any) -> str:
    """JSON as a COPY text field (backslashes doubled; json.dumps leaves no tab or newline)."""
    return json.dumps(value, separators=(",", ":")).replace("\\", "\\\\")


def line(*fields: object) -> str:
    return "\t".join(NULL if f is None else str(f) for f in fields) + "\n"


@dataclass(frozen=True)
class Template:
    """The engine snapshot every loaded game shares, and what a submit needs of it."""

    options: dict[str, Any]
    state: str  # as a COPY field
    history: list[tuple[int, str]]  # (seat, move) per ply
    to_move: int
    next_move: str  # a legal move of the snapshot
    outcome: str  # a finished game's (a resignation), as a COPY field

    @classmethod
    def make(cls) -> Template:
        engine = games.get(ENGINE)
        options = {name: values[0] for name, values in engine.options.items()}
        state = engine.new(2, options, TEMPLATE_SEED)
        history = []
        for _ in range(PLIES):
            move = state.legal_moves()[0]
            assert state.to_move is not None
            history.append((state.to_move, move))
            state = state.play(move)
        assert state.to_move is not None and state.outcome is None
        outcome = outcomes.ended_by(outcomes.RESIGNATION, 1, 2, state.scores())
        return cls(
            options,
            copy_json(state.to_json()),
            history,
            state.to_move,
            state.legal_moves()[0],
            copy_json(outcome),
        )


@dataclass(frozen=True)
class SeatToMove:
    game_id: str
    player_id: int
    nonce: str


@dataclass
class Loader:
    """Writes players and games with COPY; remembers what the measures need of them."""

    conn: psycopg.Connection[Any]
    now: datetime
    template: Template
    rng: random.Random = field(default_factory=lambda: random.Random(1))
    players: int = 0
    next_seat: int = 1
    next_move: int = 1
    next_submission: int = 1
    next_outbox: int = 1
    dashboard_player: int = 1
    # Running games nobody measures yet, by the seat to move; taken by the measures.
    free: list[SeatToMove] = field(default_factory=list)
    counts: dict[str, int] = field(default_factory=dict)  # games by status

    def game_id(self) -> str:
        return base64.urlsafe_b64encode(self.rng.randbytes(9)).decode()

    def nonce(self) -> str:
        return base64.urlsafe_b64encode(self.rng.randbytes(12)).decode()

    def copy(self, table: str, columns: str, lines: list[str]) -> None:
        if not lines:
            return
        with self.conn.cursor() as cur, cur.copy(f"COPY {table} ({columns}) FROM STDIN") as cp:
            for start in range(0, len(lines), 5000):
                cp.write("".join(lines[start : start + 5000]))

    def add_players(self, total: int) -> None:
        rows = []
        for pid in range(self.players + 1, total + 1):
            created = self.now - timedelta(days=self.rng.uniform(30, 900))
            rows.append(line(pid, f"p{pid}@growth.bench", ts(created), self.nonce()))
        for start in range(0, len(rows), 50_000):
            with self.conn.transaction():
                self.copy("players", "id, email, created_at, nonce", rows[start : start + 50_000])
        self.players = max(self.players, total)

    def other_player(self, not_this: int | None = None) -> int:
        while True:
            pid = self.rng.randint(2, self.players)  # player 1 is the dashboard's
            if pid != not_this:
                return pid

    def add_games(self, finished: int, running: int, dashboard: bool = False) -> None:
        """`finished` + `running` games, and 1 % of `running` still inviting."""
        inviting = max(2, running // 100)
        kinds = ["finished"] * finished + ["running"] * running + ["inviting"] * inviting
        self.rng.shuffle(kinds)
        if dashboard:
            mine = ["mine-running"] * DASHBOARD_RUNNING + ["mine-finished"] * DASHBOARD_FINISHED
            kinds = mine + kinds
        done = 0
        for start in range(0, len(kinds), CHUNK):
            self._chunk(kinds[start : start + CHUNK])
            done += len(kinds[start : start + CHUNK])
            print(f"  {done:,} / {len(kinds):,} games", file=sys.stderr, flush=True)

    def _chunk(self, kinds: list[str]) -> None:
        t = self.template
        options = copy_json(t.options)
        clock = copy_json(CLOCK)
        game_rows: list[str] = []
        seat_rows: list[str] = []
        submission_rows: list[str] = []
        move_rows: list[str] = []
        outbox_rows: list[str] = []
        for index, kind in enumerate(kinds):
            status = kind.removeprefix("mine-")
            self.counts[status] = self.counts.get(status, 0) + 1
            game_id = self.game_id()
            if kind.startswith("mine-"):
                players = [1, self.other_player()]
                if index % 2:
                    players.reverse()
            else:
                first = self.other_player()
                players = [first, self.other_player(first)]
            nonces = [self.nonce(), self.nonce()]
            thread = f"<{game_id}@growth.bench>"
            unconfirmed = status == "inviting" and index % 2 == 0
            if status == "finished":
                created = self.now - timedelta(days=self.rng.uniform(10, 700))
            elif status == "running":
                created = self.now - timedelta(days=self.rng.uniform(2, 60))
            else:  # inviting: none of it due to lapse (7 days) or be deleted (7 days)
                created = self.now - timedelta(days=self.rng.uniform(0.1, 5))
            confirmed = None if unconfirmed else created + timedelta(minutes=5)
            started = None if status == "inviting" else created + timedelta(hours=2)
            finished_at = turn_started = deadline = reminder = None
            state = outcome = to_move = None
            ply = 0
            if status == "finished":
                finished_at = created + timedelta(days=self.rng.uniform(1, 9))
                state, outcome, ply = t.state, t.outcome, PLIES
            elif status == "running":
                state, to_move, ply = t.state, t.to_move, PLIES
                deadline = self.now + timedelta(hours=self.rng.uniform(26, 72))
                turn_started = deadline - timedelta(days=3)
                reminder = deadline - timedelta(hours=24)
            game_rows.append(
                line(
                    game_id,
                    ENGINE,
                    options,
                    self.rng.randrange(2**62),
                    state,
                    ply,
                    to_move,
                    status,
                    outcome,
                    thread,
                    ts(created),
                    ts(started),
                    ts(finished_at),
                    players[0],
                    ts(confirmed),
                    clock,
                    "drop",
                    ts(turn_started),
                    ts(deadline),
                    NULL,
                    ts(reminder),
                    NULL,
                )
            )
            for seat in (0, 1):
                accepted = started if started is not None else (created if seat == 0 else None)
                seat_rows.append(
                    line(
                        self.next_seat,
                        game_id,
                        seat,
                        players[seat],
                        nonces[seat],
                        ts(created),
                        ts(accepted),
                        "active",
                    )
                )
                self.next_seat += 1
            if status == "inviting":
                continue
            assert started is not None
            for played, (seat, move) in enumerate(t.history):
                at = started + timedelta(hours=10 * (played + 1))
                submission_rows.append(
                    line(
                        self.next_submission, game_id, seat, played, move, "applied", ts(at), ts(at)
                    )
                )
                move_rows.append(
                    line(self.next_move, game_id, played, seat, move, self.next_submission, ts(at))
                )
                self.next_submission += 1
                self.next_move += 1
            last = finished_at or started + timedelta(hours=10 * PLIES)
            to = players[t.to_move]
            outbox_rows.append(
                line(
                    self.next_outbox,
                    game_id,
                    "result" if status == "finished" else "turn",
                    f"p{to}@growth.bench",
                    f"pbem gorami {game_id}: your turn",
                    "bench",
                    "bench",
                    f"<{game_id}.{self.next_outbox}@growth.bench>",
                    thread,
                    thread,
                    "sent",
                    1,
                    ts(last),
                    ts(last),
                    ts(last),
                )
            )
            self.next_outbox += 1
            if kind == "running":
                self.free.append(SeatToMove(game_id, to, nonces[t.to_move]))
        with self.conn.transaction():
            self.copy("games", GAME_COLUMNS, game_rows)
            self.copy("seats", SEAT_COLUMNS, seat_rows)
            self.copy("submissions", SUBMISSION_COLUMNS, submission_rows)
            self.copy("moves", MOVE_COLUMNS, move_rows)
            self.copy("outbox", OUTBOX_COLUMNS, outbox_rows)

    def add_pending(self, count: int) -> None:
        """`count` submissions and `count` emails pending for 10 minutes: the sweep's work."""
        owners = self.take(SWEEP_GAMES)
        long_ago = self.now - timedelta(minutes=10)
        submissions, emails = [], []
        for i in range(count):
            game = owners[i % len(owners)]
            submissions.append(
                line(
                    self.next_submission,
                    game.game_id,
                    self.template.to_move,
                    PLIES,
                    "x",
                    "pending",
                    ts(long_ago),
                    NULL,
                )
            )
            emails.append(
                line(
                    self.next_outbox,
                    game.game_id,
                    "turn",
                    f"p{game.player_id}@growth.bench",
                    "pending",
                    "bench",
                    "bench",
                    f"<pending.{self.next_outbox}@growth.bench>",
                    NULL,
                    NULL,
                    "pending",
                    1,
                    ts(long_ago),
                    ts(long_ago),
                    NULL,
                )
            )
            self.next_submission += 1
            self.next_outbox += 1
        with self.conn.transaction():
            self.copy("submissions", SUBMISSION_COLUMNS, submissions)
            self.copy("outbox", OUTBOX_COLUMNS, emails)
            self.conn.execute(
                "INSERT INTO clock_runs (id, last_run_at) VALUES (1, %s)",
                (self.now - timedelta(seconds=60),),
            )

    def fix_sequences(self) -> None:
        for table in ("players", "seats", "moves", "submissions", "outbox"):
            self.conn.execute(
                f"SELECT setval(pg_get_serial_sequence('{table}', 'id'), "
                f"(SELECT coalesce(max(id), 1) FROM {table}))"
            )

    def take(self, count: int) -> list[SeatToMove]:
        """Running games no measure has used, taken for good."""
        if count > len(self.free):
            raise SystemExit(
                f"growth: {count} more running games needed, {len(self.free)} left: load more "
                "running games or measure fewer"
            )
        taken = self.rng.sample(range(len(self.free)), count)
        chosen = [self.free[i] for i in taken]
        for i in sorted(taken, reverse=True):
            self.free[i] = self.free[-1]
            self.free.pop()
        return chosen


def database_bytes(conn: psycopg.Connection[Any]) -> int:
    row = conn.execute("SELECT pg_database_size(current_database())").fetchone()
    assert row is not None
    return int(row[0])


def table_sizes(conn: psycopg.Connection[Any]) -> str:
    rows = conn.execute(
        "SELECT c.relname, c.reltuples::bigint, pg_total_relation_size(c.oid) "
        "FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace "
        "WHERE n.nspname = 'public' AND c.relkind = 'r' ORDER BY 3 DESC"
    ).fetchall()
    return ", ".join(f"{name} {int(n):,} rows {size / 2**20:,.0f} MB" for name, n, size in rows)


def free_disk(conn: psycopg.Connection[Any]) -> int:
    """Free bytes where the server keeps its data (this machine's root when it cannot tell)."""
    try:
        row = conn.execute("SHOW data_directory").fetchone()
        path = str(row[0]) if row else "/"
        return shutil.disk_usage(path).free
    except (psycopg.Error, OSError):
        return shutil.disk_usage("/").free


# --- measures ------------------------------------------------------------------------------------


def pct(values: list[float], p: float) -> float:
    ordered = sorted(values)
    if len(ordered) == 1:
        return ordered[0]
    return statistics.quantiles(ordered, n=100, method="inclusive")[int(p) - 1]


class Capture:
    """Every distinct SELECT the engine runs while `label` is set, with its first parameters."""

    IN_LIST = re.compile(r"\(%\(\w+?_\d+\)s(?:, %\(\w+?_\d+\)s)*\)")

    def __init__(self) -> None:
        self.label: str | None = None
        self.seen: dict[tuple[str, str], tuple[str, Any]] = {}

    def __call__(self, conn: Any, cursor: Any, statement: str, params: Any, *rest: Any) -> None:
        executemany = rest[-1] if rest else False
        if self.label is None or executemany:
            return
        if not statement.lstrip().upper().startswith(("SELECT", "WITH")):
            return
        key = self.IN_LIST.sub("(…)", statement)
        self.seen.setdefault((self.label, key), (statement, params))


class Cpu:
    """CPU seconds of this process and of the server backends serving the benchmark's database,
    read from /proc (the server runs on this machine; elsewhere only this process counts). On a
    shared machine they move far less than wall time when others' load comes and goes."""

    TICK = os.sysconf("SC_CLK_TCK")

    def __init__(self, conn: psycopg.Connection[Any]) -> None:
        self.conn = conn

    def snapshot(self) -> dict[int, float]:
        pids = self.conn.execute(
            "SELECT pid FROM pg_stat_activity "
            "WHERE datname = current_database() AND pid <> pg_backend_pid()"
        ).fetchall()
        found = {0: time.process_time()}
        for (pid,) in pids:
            try:
                fields = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
            except OSError:
                continue
            found[int(pid)] = (int(fields[11]) + int(fields[12])) / self.TICK
        return found

    def since(self, before: dict[int, float]) -> float:
        after = self.snapshot()
        return sum(value - before.get(pid, 0.0) for pid, value in after.items())


@dataclass(frozen=True)
class Sample:
    wall_ms: float  # the figure the target is about
    cpu_ms: float  # client and server CPU per operation


@dataclass
class Bench:
    """One scale: its database, its app, and the games its loader left for the measures."""

    scale: str
    database: TempDatabase
    app: Any
    loader: Loader
    args: argparse.Namespace
    capture: Capture = field(default_factory=Capture)
    figures: dict[str, list[Sample]] = field(default_factory=dict)
    plans: list[tuple[str, str, str, list[str]]] = field(default_factory=list)
    submitting: list[SeatToMove] = field(default_factory=list)
    reminding: list[SeatToMove] = field(default_factory=list)

    @property
    def now(self) -> datetime:
        return self.loader.now

    @property
    def observer(self) -> psycopg.Connection[Any]:
        return self.loader.conn

    def sql(self, statement: str, params: Any = None) -> None:
        self.observer.execute(statement, params)

    def warm_up(self, explain: bool) -> None:
        """Each measure once, untimed; with `explain`, their SELECTs captured for `explain()`."""
        from sqlalchemy import event

        from pbem.extensions import db

        pool = self.loader.take(min(self.args.submits, SUBMIT_GAMES))
        self.submitting = [pool[i % len(pool)] for i in range(self.args.submits)]
        self.reminding = self.loader.take(self.args.reminders)
        with self.app.app_context():
            event.listen(db.engine, "before_cursor_execute", self.capture)
            config = self.app.config["PBEM"]
            self.capture.label = "submit" if explain else None
            self.submit(config, self.submitting[:WARMUP_SUBMITS])
            self.capture.label = "clock" if explain else None
            self.clock(config, self.loader.take(WARMUP_CLOCK), self.reminding[:WARMUP_CLOCK])
            self.capture.label = "sweep" if explain else None
            self.sweep(config, 1)
            self.capture.label = "dashboard" if explain else None
            self.dashboard(config, 1)
            self.capture.label = None

    def run(self, measure: str) -> None:
        """One run of `measure`, recorded."""
        with self.app.app_context():
            config = self.app.config["PBEM"]
            if measure == SUBMIT:
                sample = self.submit(config, self.submitting)
            elif measure == CLOCK_RUN:
                late = self.loader.take(self.args.timeouts)
                sample = self.clock(config, late, self.reminding)
            elif measure == SWEEP:
                sample = self.sweep(config, SWEEP_REPEAT)
            else:
                sample = self.dashboard(config, DASHBOARD_REPEAT)
        self.figures.setdefault(measure, []).append(sample)
        print(
            f"[{self.scale}] {measure}: {sample.wall_ms:.2f} ({sample.cpu_ms:.2f} CPU)",
            file=sys.stderr,
            flush=True,
        )

    def submit(self, config: Any, seats: list[SeatToMove]) -> Sample:
        """p99 ms of submitting a move on each of `seats` (then decided: rejected)."""
        from pbem.domain.access import read_claims
        from pbem.domain.moves import submit_move

        to_move = self.loader.template.to_move
        tokens = [
            links.make_token(
                config.signing_key,
                links.LinkClaims(links.SEAT, s.game_id, to_move, s.player_id, s.nonce),
            )
            for s in seats
        ]
        move, ply = self.loader.template.next_move, PLIES
        took, ids = [], []
        cpu = Cpu(self.observer)
        before = cpu.snapshot()
        for token in tokens:
            start = time.perf_counter()
            claims = read_claims(config, token, links.SEAT)
            ids.append(submit_move(claims, move, ply))
            took.append(time.perf_counter() - start)
        cpu_seconds = cpu.since(before)
        # Decided, as a worker would: the sweep finds the same submissions pending each run.
        # (Not deleted: a delete checks moves.submission_id, which no index serves, and the
        # service never deletes a submission.)
        self.sql(
            "UPDATE submissions SET status = 'rejected', error = 'growth', applied_at = %s "
            "WHERE id = ANY(%s)",
            (self.now, ids),
        )
        return Sample(pct(took, 99) * 1000, cpu_seconds / len(tokens) * 1000)

    def due(self, late: list[SeatToMove], reminding: list[SeatToMove]) -> None:
        """Exactly these games past their deadline and these reminders due at `now`; the last
        clock run a minute before."""
        now = self.now
        with self.observer.transaction():
            self.sql(
                "UPDATE games SET deadline = %s, turn_started_at = %s, reminder_at = NULL "
                "WHERE id = ANY(%s)",
                (now - timedelta(hours=1), now - timedelta(hours=73), [g.game_id for g in late]),
            )
            self.sql(
                "UPDATE games SET deadline = %s, turn_started_at = %s, reminder_at = %s "
                "WHERE id = ANY(%s)",
                (
                    now + timedelta(hours=23),
                    now - timedelta(hours=49),
                    now - timedelta(minutes=1),
                    [g.game_id for g in reminding],
                ),
            )
            self.sql(
                "UPDATE clock_runs SET last_run_at = %s WHERE id = 1",
                (now - timedelta(seconds=60),),
            )

    def clock(self, config: Any, late: list[SeatToMove], reminding: list[SeatToMove]) -> Sample:
        from pbem.domain.clock_task import run_clock
        from pbem.extensions import db

        self.due(late, reminding)
        db.session.remove()
        cpu = Cpu(self.observer)
        before = cpu.snapshot()
        start = time.perf_counter()
        report = run_clock(config, self.now)
        took = time.perf_counter() - start
        cpu_seconds = cpu.since(before)
        db.session.remove()
        if (report.timeouts, report.reminders) != (len(late), len(reminding)):
            raise RuntimeError(
                f"the clock did other work than was set up: {report.summary()} "
                f"(set up {len(late)} timeouts, {len(reminding)} reminders)"
            )
        # Delivered, as the mail task would: the sweep finds the same emails pending each run.
        self.sql(
            "UPDATE outbox SET status = 'sent', sent_at = %s WHERE id = ANY(%s)",
            (self.now, report.outbox_ids),
        )
        return Sample(took * 1000, cpu_seconds * 1000)

    def sweep(self, config: Any, repeat: int) -> Sample:
        from pbem.domain.sweep import expire_unconfirmed, sweep

        cpu = Cpu(self.observer)
        before = cpu.snapshot()
        start = time.perf_counter()
        for _ in range(repeat):
            deleted = expire_unconfirmed(self.now)
            found = sweep(config, self.now)
        took = time.perf_counter() - start
        cpu_seconds = cpu.since(before)
        wanted = min(self.args.pending, 1000)
        if deleted or (len(found.submission_ids), len(found.outbox_ids)) != (wanted, wanted):
            raise RuntimeError(
                f"the sweep found other work than was set up: {deleted} deleted, "
                f"{len(found.submission_ids)} submissions and {len(found.outbox_ids)} emails"
            )
        return Sample(took / repeat * 1000, cpu_seconds / repeat * 1000)

    def dashboard(self, config: Any, repeat: int) -> Sample:
        from pbem.domain.dashboard import game_lines
        from pbem.extensions import db
        from pbem.models import Player

        cpu = Cpu(self.observer)
        before = cpu.snapshot()
        start = time.perf_counter()
        for _ in range(repeat):
            db.session.remove()
            player = db.session.get(Player, self.loader.dashboard_player)
            assert player is not None
            lines = game_lines(config, player)
        took = time.perf_counter() - start
        cpu_seconds = cpu.since(before)
        db.session.remove()
        if len(lines) != DASHBOARD_RUNNING + DASHBOARD_FINISHED:
            raise RuntimeError(f"the dashboard shows {len(lines)} games")
        return Sample(took / repeat * 1000, cpu_seconds / repeat * 1000)

    def explain(self) -> None:
        """EXPLAIN (ANALYZE, BUFFERS) every SELECT captured, with work due; rolled back."""
        from pbem.extensions import db

        self.due(self.loader.take(self.args.timeouts), self.reminding)
        for (label, _), (statement, params) in self.capture.seen.items():
            with self.app.app_context(), db.engine.connect() as conn:
                trans = conn.begin()
                rows = conn.exec_driver_sql("EXPLAIN (ANALYZE, BUFFERS) " + statement, params).all()
                trans.rollback()
            plan = [str(row[0]) for row in rows]
            self.plans.append((label, name_of(label, statement), statement, plan))


NAMES = {
    "clock": (
        ("reminder_at <=", "clock: reminders due"),
        ("games.deadline <=", "clock: games out of time"),
        ("EXISTS", "clock: invitations to lapse"),
        ("games.confirmed_at <=", "clock: inviting games to cancel"),
        ("vacation_until <=", "clock: vacations ended"),
        ("FROM clock_runs", "clock: its last run"),
    ),
    "sweep": (
        ("FROM submissions", "sweep: pending submissions"),
        ("FROM outbox", "sweep: emails due"),
        ("confirmed_at IS NULL", "sweep: unconfirmed games"),
    ),
}


def name_of(label: str, statement: str) -> str:
    """What a captured statement is for: the clock's and the sweep's scans for due work by name,
    the others (reading the games found, the submit's, the dashboard's) as `label reads: SQL…`."""
    if "SKIP LOCKED" in statement or "LIMIT" in statement or "clock_runs" in statement:
        for marker, name in NAMES.get(label, ()):
            if marker in statement:
                return name
    return f"{label} reads: " + " ".join(statement.split())[:80] + "…"


def seq_scans(plan: list[str]) -> list[str]:
    found = []
    for row in plan:
        match = re.search(r"Seq Scan on (\w+)", row)
        if match and match.group(1) in BIG_TABLES:
            found.append(match.group(1))
    return found


# --- the run -------------------------------------------------------------------------------------


def scans_of(plan: list[str]) -> str:
    """How the plan reaches each table, in order: `games by ix_games_running_deadline`."""
    found = []
    heap = ""
    for row in plan:
        if match := re.search(r"Bitmap Heap Scan on (\w+)", row):
            heap = match.group(1)
        elif match := re.search(r"Bitmap Index Scan on (\w+)", row):
            found.append(f"{heap} by {match.group(1)}")
        elif match := re.search(r"Index (?:Only )?Scan(?: Backward)? using (\w+) on (\w+)", row):
            found.append(f"{match.group(2)} by {match.group(1)}")
        elif match := re.search(r"Seq Scan on (\w+)", row):
            found.append(f"{match.group(1)} by a sequential scan")
    return ", ".join(dict.fromkeys(found))


def report(small_bench: Bench, bench: Bench) -> bool:
    """Print the summary (markdown) and the large scale's plans; whether every target was met."""
    small, large = small_bench.figures, bench.figures
    loader, args = bench.loader, bench.args
    ok = True
    print()
    print(
        f"| measure | {args.small:,} + {args.small:,} games | {args.large_finished:,} + "
        f"{args.large_running:,} games | ratio | ≤ {TARGET:.2f} | CPU ms, small → large (ratio) "
        "| runs, small; large (ms) |"
    )
    print("|---|---:|---:|---:|---|---|---|")
    for name in small:
        a = statistics.median(x.wall_ms for x in small[name])
        b = statistics.median(x.wall_ms for x in large[name])
        cpu_a = statistics.median(x.cpu_ms for x in small[name])
        cpu_b = statistics.median(x.cpu_ms for x in large[name])
        ratio = b / a if a else float("inf")
        passed = ratio <= TARGET
        ok &= passed
        runs = "; ".join(
            ", ".join(f"{x.wall_ms:.1f}" for x in samples) for samples in (small[name], large[name])
        )
        cpu = f"{cpu_a:.2f} → {cpu_b:.2f} ({cpu_b / cpu_a if cpu_a else float('inf'):.2f})"
        print(
            f"| {name} | {a:.2f} | {b:.2f} | {ratio:.2f} | {'pass' if passed else 'FAIL'} "
            f"| {cpu} | {runs} |"
        )
    print(
        f"\nMedians of {args.runs} runs, the two scales' runs taking turns. CPU: this process's "
        "and the database backends', per submit, clock run, sweep or dashboard. Large: "
        f"{loader.counts}, {loader.players:,} players."
    )
    print("\nPlans at the large scale (EXPLAIN (ANALYZE, BUFFERS), with the work due):")
    others = []
    for label, name, statement, plan in sorted(bench.plans, key=lambda p: (p[0], p[1])):
        scans = seq_scans(plan)
        ok &= not scans
        verdict = f"SEQ SCAN on {', '.join(scans)}" if scans else "index scans only"
        if name.startswith(f"{label} reads: "):
            others.append(f"- {verdict} ({scans_of(plan)}): `{name}`")
            continue
        print(f"\n#### {name}: {verdict}\n")
        print("```sql\n" + " ".join(statement.split()) + "\n```\n```")
        print("\n".join(plan))
        print("```")
    print(
        "\nThe other SELECTs: the clock's for each game it acts on, the submit's and the "
        "dashboard's:\n"
    )
    print("\n".join(others))
    return ok


def make_app(url: str) -> Any:
    """The service's app on `url`, migrated to the head revision."""
    from flask_migrate import upgrade

    from pbem.app import create_app

    app = create_app(
        {
            "PBEM_ENV": "test",
            "DATABASE_URL": url,
            "SECRET_KEY": secrets.token_urlsafe(32),
            "REDIS_URL": None,
            "SMTP_URL": None,
            "PBEM_RATE_LIMITS": "off",
        }
    )
    with app.app_context():
        upgrade()
    return app


def settle(url: str) -> None:
    """VACUUM ANALYZE, then a checkpoint, so the load's writes do not spill into the measures."""
    with psycopg.connect(libpq_url(url), autocommit=True) as conn:
        conn.execute("VACUUM (ANALYZE)")
        with contextlib.suppress(psycopg.Error):  # not a superuser: the checkpointer gets to it
            conn.execute("CHECKPOINT")


def run(args: argparse.Namespace) -> int:
    databases: list[TempDatabase] = []
    try:
        with contextlib.ExitStack() as stack:
            template = Template.make()
            now = utcnow().replace(microsecond=0)
            benches: dict[str, Bench] = {}
            for scale in ("small", "large"):
                database = TempDatabase(prefix="pbem_growth", url=args.database_url).create()
                databases.append(database)
                print(f"growth: database {database.name} ({scale})", file=sys.stderr, flush=True)
                conn = stack.enter_context(
                    psycopg.connect(libpq_url(database.url), autocommit=True)
                )
                loader = Loader(conn, now, template, random.Random(args.seed))
                bench = Bench(scale, database, make_app(database.url), loader, args)
                benches[scale] = bench
            small, large = benches["small"], benches["large"]

            empty = database_bytes(small.observer)
            started = time.monotonic()
            small.loader.add_players(SMALL_PLAYERS)
            small.loader.add_games(args.small, args.small, dashboard=True)
            small.loader.add_pending(args.pending)
            small.loader.fix_sequences()
            settle(small.database.url)
            print(
                f"small: loaded in {time.monotonic() - started:.0f} s: "
                f"{table_sizes(small.observer)}",
                file=sys.stderr,
                flush=True,
            )

            # Only when the disk holds it: bytes per game as the small load used them.
            games_large = args.large_finished + args.large_running
            per_game = (database_bytes(small.observer) - empty) / sum(small.loader.counts.values())
            needed = int(games_large * per_game * 2)  # the rows, their WAL and some slack
            free = free_disk(small.observer)
            print(
                f"large: {games_large:,} games at ~{per_game:,.0f} B each: needs "
                f"~{needed / 2**30:.1f} GB with WAL; {free / 2**30:.1f} GB free",
                file=sys.stderr,
                flush=True,
            )
            if needed > free - 2 * 2**30:
                raise SystemExit("growth: not enough disk for the large scale; load fewer games")
            started = time.monotonic()
            large.loader.add_players(max(args.large_players, SMALL_PLAYERS))
            large.loader.add_games(args.large_finished, args.large_running, dashboard=True)
            large.loader.add_pending(args.pending)
            large.loader.fix_sequences()
            settle(large.database.url)
            print(
                f"large: loaded in {time.monotonic() - started:.0f} s, "
                f"{database_bytes(large.observer) / 2**30:.2f} GB: {table_sizes(large.observer)}",
                file=sys.stderr,
                flush=True,
            )

            small.warm_up(explain=False)
            large.warm_up(explain=True)
            # The scales take turns, each measure's runs side by side, so that the load others
            # put on the machine falls on both alike.
            for run_number in range(args.runs):
                order = (small, large) if run_number % 2 == 0 else (large, small)
                for measure in MEASURES:
                    for bench in order:
                        bench.run(measure)
            large.explain()
            return 0 if report(small, large) else MISSED
    finally:
        for database in databases:
            if args.keep:
                print(f"growth: kept database {database.name}", file=sys.stderr)
            else:
                database.drop()
                print(f"growth: dropped database {database.name}", file=sys.stderr)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--small", type=int, default=1000, help="finished and running games")
    parser.add_argument("--large-finished", type=int, default=1_000_000)
    parser.add_argument("--large-running", type=int, default=100_000)
    parser.add_argument("--large-players", type=int, default=50_000)
    parser.add_argument("--runs", type=int, default=3, help="runs of each measure (the median)")
    parser.add_argument("--submits", type=int, default=1000, help="submits per run (for the p99)")
    parser.add_argument("--timeouts", type=int, default=100, help="games out of time per run")
    parser.add_argument("--reminders", type=int, default=100, help="reminders due per run")
    parser.add_argument("--pending", type=int, default=100, help="submissions and emails pending")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--keep", action="store_true", help="do not drop the databases")
    parser.add_argument(
        "--database-url", default=admin_url(), help="a database of the server to use"
    )
    args = parser.parse_args(argv)
    if args.large_finished < args.small or args.large_running < args.small:
        parser.error("the large scale must be at least the small one")
    needed = SWEEP_GAMES + min(args.submits, SUBMIT_GAMES) + args.reminders + WARMUP_CLOCK
    needed += args.runs * args.timeouts
    if args.small < needed:
        parser.error(f"--small {args.small}: the measures need {needed} running games")

    def stop(signum: int, frame: Any) -> None:
        raise KeyboardInterrupt(f"signal {signum}")

    signal.signal(signal.SIGTERM, stop)
    return run(args)


if __name__ == "__main__":
    sys.exit(main())
