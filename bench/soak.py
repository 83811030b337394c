"""Chaos soak of the real service on loopback (issue 33, point 8; a benchmark, not a test).

`bench/service.py`'s load, pictures on, on a PostgreSQL cluster and a Redis of its own (initdb
and pg_ctl into a temporary folder, redis-server on a free port: never the machine's shared
servers), while, in turn: one gunicorn worker, the move worker (the Procfile's `worker`), the
picture worker and beat are killed (SIGKILL) and started again as a process manager would, Redis
and PostgreSQL restart, and the SMTP server is down for a minute. `/readyz` is read every second
all through. At the end, once the last tasks are done, it checks:

- no move lost: every move answered 202 is in its game's record at its ply, none twice;
- no email lost: every outbox row was sent and reached the sink; a message at the sink twice
  only as the same message (same Message-ID, never the same email written again), at most one
  such copy per fault, none outside the faults;
- no answer of 500 or more but a 503 with Retry-After while the database is down; players
  move only when an email comes, so a visitor reloads a game every 0.5 s (GET …/legal) to have
  requests meet the outage, and at least one must be answered then;
- every game consistent: its moves replayed from its seed give its stored state, ply and status;
- `/readyz` red while a part it watches is down, green after each fault and at the end (the
  load goes on `--tail-seconds`, 165 s, after the last fault: a worker that stopped writing its
  heartbeat shows within that);
- the work goes on after each fault: some email brings a board picture between a fault's end
  and the next fault (or the end of the load).

What `/readyz` can see: the database and Redis at once; a queue with no worker once the queue's
newest heartbeat is two minutes old (workers write one every 30 s, a fixed interval); beat,
and the move worker that runs the clock task, once the clock task has not run for two of its
periods, which the soak sets to 5 s (PBEM_CLOCK_SECONDS). So each killed worker and beat is kept
down until `/readyz` says so (the picture worker for up to 2.5 minutes), then started again;
with `--restart-at-once` they come back at once, as a process manager would restart them, and
`/readyz` is not expected to notice. A gunicorn worker is restarted by gunicorn within a second
and the other one answers meanwhile; the SMTP server is no `/readyz` check: for those two the
soak reports what `/readyz` said without expecting red.

The faults are spread over `--minutes` of load; when they need longer (a short run, or parts
slow to come back) the load goes on until the last fault is over and `--tail-seconds` more.

    .venv/bin/python bench/soak.py [--minutes 10] [--games 20] [--think-ms 0] \
        [--outage-seconds 10] [--smtp-outage-seconds 60] [--restart-at-once] [--json]

Needs PostgreSQL's server programs (initdb, pg_ctl; as root they run as the `postgres` user) and
redis-server installed; everything listens on 127.0.0.1 only. Exits 1 and says what failed when
a check fails; the logs of every process are kept then (their folder is printed).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import http.client
import json
import os
import platform
import random
import shutil
import signal
import sys
import tempfile
import threading
import time
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from bench.service import Bench, Client, OutOfTime, Slot  # noqa: E402
from pbem import games  # noqa: E402
from pbem.ops.heartbeats import INTERVAL_SECONDS, STALE_AFTER  # noqa: E402
from pbem.queues import BOTS_QUEUE, PICTURES_QUEUE  # noqa: E402
from pbem.web.outages import RETRY_AFTER_SECONDS  # noqa: E402
from tests.support.http import Http  # noqa: E402
from tests.support.pg import PrivateCluster, postgres_bin_dir  # noqa: E402
from tests.support.procs import wait_until  # noqa: E402

# The clock task's period for the soak: /readyz says beat (or the worker that runs the task) is
# missing once the task has not run for two periods, 10 s instead of the default's 2 minutes.
CLOCK_SECONDS = 5
# How long /readyz may take to see a killed worker: its last heartbeat may be up to an interval
# old when it dies, the queue is stale after STALE_AFTER, and the probe reads once a second.
STALE_WORKER_SECONDS = STALE_AFTER.total_seconds() + INTERVAL_SECONDS + 15
# ... and missing beat (or the move worker): two periods late, the next probe, and a margin.
STALE_CLOCK_SECONDS = 3 * CLOCK_SECONDS + 15
# How long a part may take to be green again once it is back (a worker's start under load).
GREEN_WITHIN_SECONDS = 120.0
# The faults, in the order.
FAULTS = ("web", "worker", "pictures", "beat", "redis", "postgres", "smtp")
# A 503 of a request that left just before the database came back may arrive this much later.
ANSWER_SLACK_SECONDS = 10.0


# --- records and verdicts (pure: tests/bench/test_soak.py) ---------------------------------------


@dataclass
class Fault:
    """One part taken down, and what /readyz said meanwhile (times are time.time())."""

    key: str  # web, worker, pictures, beat, redis, postgres, smtp
    what: str  # what was done, for the report
    readyz_sees: bool  # /readyz is expected to turn red while the part is down
    estimate: float  # seconds it usually takes, to spread the faults over the run
    started_at: float | None = None
    back_at: float | None = None  # the part up again
    red_at: float | None = None  # the first 503 of /readyz while it was down
    green_at: float | None = None  # the first 200 of /readyz once it was back
    red_problems: list[str] = field(default_factory=list)
    note: str = ""


@dataclass(frozen=True)
class Probe:
    at: float  # when the answer arrived
    status: int  # 0: no answer
    problems: tuple[str, ...]


def schedule(
    estimates: Sequence[float], run_seconds: float, lead: float, tail: float, min_gap: float
) -> list[float]:
    """When each fault starts, in seconds from the start of the load: the first after `lead`,
    then one after the other with equal gaps (at least `min_gap`) so that the last is expected
    to end `tail` seconds before the end of the run."""
    if not estimates:
        return []
    spare = run_seconds - lead - tail - sum(estimates)
    gap = max(min_gap, spare / (len(estimates) - 1)) if len(estimates) > 1 else 0.0
    starts, at = [], lead
    for estimate in estimates:
        starts.append(at)
        at += estimate + gap
    return starts


def observe(fault: Fault, probes: Sequence[Probe]) -> None:
    """Fill in what /readyz said: the first red while the part was down (or just after: a probe
    sent before it came back), the first green once it was back, and the problems it named."""
    if fault.started_at is None:
        return
    back = fault.back_at if fault.back_at is not None else float("inf")
    for probe in probes:
        if probe.at < fault.started_at:
            continue
        if probe.status != 200 and fault.red_at is None and probe.at <= back + 2.0:
            fault.red_at = probe.at
        if probe.status != 200:
            # The first words of each check that failed ("clock: … 10 s ago", then 11 s …).
            named = {problem.split(":", 1)[0] for problem in fault.red_problems}
            fault.red_problems += [p for p in probe.problems if p.split(":", 1)[0] not in named]
        if probe.status == 200 and probe.at >= back:
            fault.green_at = probe.at
            return


def unexplained_red(probes: Sequence[Probe], faults: Sequence[Fault], since: float) -> list[Probe]:
    """Probes not green after `since` (the service ready before the load) outside every fault,
    from its start until /readyz was green again."""
    windows = [
        (f.started_at, f.green_at if f.green_at is not None else float("inf"))
        for f in faults
        if f.started_at is not None
    ]
    return [
        p
        for p in probes
        if p.at >= since and p.status != 200 and not any(a <= p.at <= b for a, b in windows)
    ]


def fault_at(faults: Sequence[Fault], at: float) -> Fault | None:
    """The last fault started at or before `at`: the one an extra copy of an email belongs to."""
    found = None
    for fault in faults:
        if fault.started_at is not None and fault.started_at <= at:
            found = fault
    return found


def moves_verdict(
    accepted: Iterable[tuple[int, str, int, str]],
    moves: Iterable[tuple[str, int, str, int | None]],
    pending: Iterable[int] = (),
) -> dict[str, list[str]]:
    """`accepted`: (submission, game, ply, move) answered 202; `moves`: the stored moves, (game,
    ply, move, submission); `pending`: submissions still waiting to be applied, reported on
    their own. Lost: any other accepted move not at its game's ply (a move sent twice, its
    first answer lost with a killed web worker, is one move: the game takes it once).
    Duplicated: a ply or a submission stored twice."""
    waiting = set(pending)
    at_ply: dict[tuple[str, int], list[str]] = defaultdict(list)
    by_submission: Counter[int] = Counter()
    for game_id, ply, move, submission in moves:
        at_ply[(game_id, ply)].append(move)
        if submission is not None:
            by_submission[submission] += 1
    lost = [
        f"{game_id} ply {ply}: {move} (submission {sid}) "
        + (f"stored as {at_ply[(game_id, ply)]}" if at_ply.get((game_id, ply)) else "not stored")
        for sid, game_id, ply, move in accepted
        if move not in at_ply.get((game_id, ply), []) and sid not in waiting
    ]
    duplicated = [f"{g} ply {p}: {ms}" for (g, p), ms in at_ply.items() if len(ms) > 1] + [
        f"submission {sid} stored {n} times" for sid, n in by_submission.items() if n > 1
    ]
    return {"lost": lost, "duplicated": duplicated}


def emails_verdict(
    outbox: Iterable[tuple[str, str, str | None, str, str, str]],
    at_sink: Counter[str],
    repeats: Iterable[tuple[str, float]],
    faults: Sequence[Fault],
) -> dict[str, Any]:
    """`outbox`: (Message-ID, status, game, kind, to, subject) of every row; `at_sink`: copies of
    each Message-ID the sink accepted; `repeats`: (Message-ID, when) of each copy after the
    first. Lost: a row not sent, or not at the sink. Written twice: one email (game, kind,
    recipient, subject) in two rows, i.e. under two Message-IDs. Extra copies are counted by the
    fault they followed; one before any fault is unexplained."""
    rows = list(outbox)
    known = {row[0] for row in rows}
    emails = Counter((game, kind, to, subject) for _, _, game, kind, to, subject in rows)
    per_fault: Counter[str] = Counter()
    unexplained: list[str] = []
    for message_id, at in repeats:
        fault = fault_at(faults, at)
        if fault is None:
            unexplained.append(message_id)
        else:
            per_fault[fault.key] += 1
    return {
        "written": len(rows),
        "at_sink": sum(at_sink.values()),
        "not_sent": [f"{mid} ({status})" for mid, status, *_ in rows if status != "sent"],
        "lost": [mid for mid, *_ in rows if at_sink[mid] == 0],
        "unknown_at_sink": sorted(mid for mid in at_sink if mid not in known),
        "written_twice": [f"{key}" for key, n in emails.items() if n > 1],
        "copies_by_fault": dict(per_fault),
        "copies_unexplained": unexplained,
    }


def server_errors_verdict(
    errors: Iterable[tuple[float, str, str, int, str | None]], faults: Sequence[Fault]
) -> dict[str, Any]:
    """Answers of 500 or more the players got: a 503 with Retry-After while the database was
    down (from the fault's start until ANSWER_SLACK_SECONDS after it was back) is expected;
    anything else is not. Each is given with the fault it followed."""
    down = [
        (f.started_at, (f.back_at or float("inf")) + ANSWER_SLACK_SECONDS)
        for f in faults
        if f.key == "postgres" and f.started_at is not None
    ]
    expected: Counter[str] = Counter()
    unexpected: list[str] = []
    for at, method, path, status, retry_after in errors:
        fault = fault_at(faults, at)
        during = fault.key if fault is not None else "before any fault"
        in_outage = any(a <= at <= b for a, b in down)
        if status == 503 and retry_after and in_outage:
            expected[f"{method} {_route(path)}"] += 1
        else:
            unexpected.append(
                f"{status} (Retry-After {retry_after}) to {method} {path} after the {during} fault"
            )
    return {"expected_503": dict(expected), "unexpected": unexpected}


# The words of the service's paths; anything else in a path is an id or a token.
ROUTE_WORDS = frozenset({"", "api", "games", "moves", "legal", "submissions", "invite"})


def _route(path: str) -> str:
    """A path without its ids and tokens, to count answers by kind of request."""
    return "/".join(p if p in ROUTE_WORDS else "…" for p in path.split("?")[0].split("/"))


def stalled(
    faults: Sequence[Fault], pictures_at: Sequence[float], until: float, least: float = 20.0
) -> list[str]:
    """Faults after whose return no email brought a board picture before the next fault began
    (or the load ended): a worker alive and green on /readyz that no longer does its work (every
    move's email carries a picture, unless it waited too long for one). Spans shorter than
    `least` seconds are not judged."""
    starts = sorted(f.started_at for f in faults if f.started_at is not None)
    found = []
    for fault in faults:
        back = fault.back_at
        if back is None:
            continue
        end = min([at for at in starts if at > back] + [until])
        if end - back >= least and not any(back < at <= end for at in pictures_at):
            found.append(
                f"{fault.key}: no email with a board picture in the {end - back:.0f} s from its "
                "return to " + ("the next fault" if end < until else "the end of the load")
            )
    return found


def outage_answers(
    visits: Sequence[tuple[float, int, str | None]], faults: Sequence[Fault]
) -> dict[str, dict[str, int]]:
    """The visitor's answers (when, status, Retry-After) while each fault lasted, counted by
    status (0: no answer): what a player reloading a game saw meanwhile."""
    counts: dict[str, dict[str, int]] = {}
    for fault in faults:
        if fault.started_at is None:
            continue
        back = fault.back_at if fault.back_at is not None else float("inf")
        seen = Counter(str(status) for at, status, _ in visits if fault.started_at <= at <= back)
        counts[fault.key] = dict(sorted(seen.items()))
    return counts


def faults_verdict(faults: Sequence[Fault]) -> list[str]:
    """What /readyz failed to say: red while a part it watches was down, green after each."""
    failed = []
    for fault in faults:
        if fault.started_at is None:
            failed.append(f"{fault.key}: the fault did not happen ({fault.note})")
            continue
        if fault.readyz_sees and fault.red_at is None:
            failed.append(f"{fault.key}: /readyz was never red while it was down")
        if fault.green_at is None:
            failed.append(f"{fault.key}: /readyz was not green again after it came back")
    return failed


def verdict(result: dict[str, Any]) -> list[str]:
    """Every failed check of a soak's result, in words; empty when it passed."""
    failed = list(faults_verdict([Fault(**f) for f in result["faults"]]))
    moves = result["moves_check"]
    failed += [f"move lost: {m}" for m in moves["lost"]]
    failed += [f"move stored twice: {m}" for m in moves["duplicated"]]
    failed += [f"move still pending at the end: {m}" for m in result["pending_submissions"]]
    mail = result["emails_check"]
    failed += [f"email not sent: {m}" for m in mail["not_sent"]]
    failed += [f"email not at the sink: {m}" for m in mail["lost"]]
    failed += [
        f"a message at the sink the outbox does not hold: {m}" for m in mail["unknown_at_sink"]
    ]
    failed += [f"one email written twice (two Message-IDs): {m}" for m in mail["written_twice"]]
    failed += [f"email sent twice outside any fault: {m}" for m in mail["copies_unexplained"]]
    failed += [
        f"{n} emails sent twice after the {key} fault (at most one)"
        for key, n in mail["copies_by_fault"].items()
        if n > 1
    ]
    failed += [f"answered {e}" for e in result["server_errors"]["unexpected"]]
    failed += [f"game inconsistent: {g}" for g in result["inconsistent_games"]]
    failed += [
        f"/readyz red outside the faults: {p['status']} at {p['at'] - result['started_at']:.0f} s "
        f"({'; '.join(p['problems'])})"
        for p in result["unexplained_red"]
    ]
    failed += [f"no work after a fault: {m}" for m in result["stalled"]]
    answers = result["outage_answers"].get("postgres")
    if answers is not None and not sum(n for status, n in answers.items() if status != "0"):
        failed.append("postgres: no request was answered while it was down (503s unchecked)")
    if result["readyz_at_end"] != 200:
        failed.append(f"/readyz answered {result['readyz_at_end']} at the end")
    failed += [f"player gave up a game: {a}" for a in result["abandoned_unexpected"]]
    failed += [f"player: {e}" for e in result.get("errors", [])]  # bench/service.py's
    failed += [f"soak: {e}" for e in result["soak_errors"]]
    return failed


# Why a player may give up a game without it being a failure: the database was down.
EXPECTED_GIVING_UP = ("answered 503",)


def findings(
    faults: Sequence[Fault],
    probes: Sequence[Probe],
    ready_since: float,
    *,
    accepted: Sequence[tuple[int, str, int, str]],
    moves: Sequence[tuple[str, int, str, int | None]],
    pending: Sequence[tuple[int, str, int]],
    outbox: Sequence[tuple[str, str, str | None, str, str, str]],
    at_sink: Counter[str],
    repeats: Sequence[tuple[str, float]],
    server_errors: Sequence[tuple[float, str, str, int, str | None]],
    resent: Sequence[tuple[float, str, str]],
    inconsistent: Sequence[str],
    abandoned: Sequence[tuple[float, str]],
    readyz_at_end: int,
    soak_errors: Sequence[str],
    started_at: float,
    pictures_at: Sequence[float] = (),
    load_ended_at: float | None = None,
    visits: Sequence[tuple[float, int, str | None]] = (),
) -> dict[str, Any]:
    """The soak's records, as `verdict` reads them, from what was seen and stored (the faults
    are filled in from the probes here). `pending`: (submission, game, ply) still pending."""
    for fault in faults:
        observe(fault, probes)
    return {
        "faults": [asdict(f) for f in faults],
        "moves_check": moves_verdict(accepted, moves, [i for i, _, _ in pending]),
        "pending_submissions": [f"{g} ply {p} (submission {i})" for i, g, p in pending],
        "emails_check": emails_verdict(outbox, at_sink, repeats, faults),
        "server_errors": server_errors_verdict(server_errors, faults),
        "server_error_times": [
            (at, method, path, status) for at, method, path, status, _ in server_errors
        ],
        "resent": len(resent),
        "resent_times": [at for at, _, _ in resent],
        "inconsistent_games": list(inconsistent),
        "unexplained_red": [asdict(p) for p in unexplained_red(probes, faults, ready_since)],
        "readyz_at_end": readyz_at_end,
        "readyz_probes": len(probes),
        "abandoned": len(abandoned),
        "abandoned_expected": [
            why for _, why in abandoned if any(e in why for e in EXPECTED_GIVING_UP)
        ],
        "abandoned_unexpected": [
            why for _, why in abandoned if not any(e in why for e in EXPECTED_GIVING_UP)
        ],
        "soak_errors": list(soak_errors),
        "started_at": started_at,
        "stalled": stalled(
            faults, pictures_at, load_ended_at if load_ended_at is not None else float("inf")
        ),
        "outage_answers": outage_answers(visits, faults),
        "visits": len(visits),
    }


@dataclass(frozen=True)
class StoredGame:
    """A game as the database holds it (`games` row, its seats and events counted)."""

    id: str
    engine: str
    options: dict[str, Any]
    seed: int
    seats: int
    state: Any  # the engine's to_json() after `ply` moves; None while inviting
    ply: int
    status: str
    to_move: int | None
    events: int  # resignations, timeouts, draws, cancellations: the moves alone do not replay it


def game_problems(game: StoredGame, moves: Sequence[tuple[int, str]]) -> list[str]:
    """What is wrong with a stored game: its moves (ply, move, in order of ply) are not plies
    0..n-1 with n its ply, or, replayed from its seed, do not give its state, status and seat
    to move. A game with events (none in the soak's) is checked for its plies only."""
    problems = []
    plies = [ply for ply, _ in moves]
    if plies != list(range(len(plies))):
        problems.append(f"{game.id}: its moves are at plies {plies[:8]}…, not 0 to n-1")
    if len(plies) != game.ply:
        problems.append(f"{game.id}: {len(plies)} moves stored, its ply is {game.ply}")
    if game.state is None:
        if plies or game.status not in ("inviting", "cancelled"):
            problems.append(f"{game.id}: {game.status} without a state, {len(plies)} moves")
        return problems
    if game.events or problems:
        return problems
    state = games.get(game.engine).new(game.seats, game.options, game.seed)
    try:
        for _, move in moves:
            state = state.play(move)
    except games.MoveError as exc:
        return [f"{game.id}: its moves do not replay: {exc}"]
    if _canonical(state.to_json()) != _canonical(game.state):
        problems.append(f"{game.id}: its moves replayed do not give its stored state")
    over = state.outcome is not None
    if over != (game.status == "finished"):
        problems.append(f"{game.id}: {game.status}, while its moves replayed are over: {over}")
    elif not over and state.to_move != game.to_move:
        problems.append(f"{game.id}: seat {game.to_move} to move, replayed: {state.to_move}")
    return problems


def _canonical(data: Any) -> str:
    return json.dumps(data, sort_keys=True, default=str)


# --- /readyz, read every second ------------------------------------------------------------------


class ReadyProbe(threading.Thread):
    """GET /readyz every `period` seconds on a connection of its own, every answer kept."""

    def __init__(self, base_url: str, period: float = 1.0) -> None:
        super().__init__(name="readyz probe", daemon=True)
        self.http = Http(base_url, timeout=10)
        self.period = period
        self.probes: list[Probe] = []
        self.stopping = threading.Event()

    def run(self) -> None:
        while not self.stopping.is_set():
            began = time.monotonic()
            self.probes.append(self.look())
            self.stopping.wait(max(0.0, self.period - (time.monotonic() - began)))

    def look(self) -> Probe:
        try:
            answer = self.http.get("/readyz")
        except (OSError, http.client.HTTPException) as exc:
            return Probe(time.time(), 0, (f"no answer: {exc}",))
        try:
            problems = tuple(answer.json().get("problems", []))
        except ValueError:
            problems = (answer.text[:200],)
        return Probe(time.time(), answer.status, problems)

    def seen(self, since: float, ok: bool) -> Probe | None:
        """The first answer since `since` that was green (`ok`) or not."""
        return next((p for p in self.probes if p.at >= since and (p.status == 200) == ok), None)


# --- players who carry on ------------------------------------------------------------------------


class SoakSlot(Slot):
    """A slot that starts another game when one fails (a 503 at a game's creation, say), so the
    load lasts the whole soak; why each game was given up is kept for the verdict. It waits as
    long as the service's Retry-After first, as a person would: at once, it would ask some
    three hundred times a second while the database is down."""

    def __init__(self, index: int, bench: Bench, engines: Any) -> None:
        super().__init__(index, bench, engines)
        # The game and seat token of this slot's last move, for the visitor (SoakBench.visit).
        self.seat: tuple[str, str] | None = None

    async def post_move(self, game_id: str, token: str, move: str, ply: int) -> tuple[int, float]:
        self.seat = (game_id, token)
        return await super().post_move(game_id, token, move, ply)

    async def run(self) -> None:
        bench = self.bench
        assert isinstance(bench, SoakBench)
        bench.slots.append(self)
        await asyncio.sleep(self.rng.uniform(0.0, bench.args.ramp_seconds))
        try:
            while not bench.out_of_time:
                engine, options = self.engines[(self.index + self.games_played) % len(self.engines)]
                try:
                    await self.play_one(engine, options)
                except OutOfTime:
                    bench.stats.games_cut_short += 1
                    return
                except Exception as exc:  # judged in the verdict
                    bench.abandoned.append((time.time(), f"{type(exc).__name__}: {exc}"))
                    self.client.close()
                    await asyncio.sleep(RETRY_AFTER_SECONDS)
                self.games_played += 1
        finally:
            self.client.close()


# --- the soak ------------------------------------------------------------------------------------


def plan(args: argparse.Namespace) -> list[Fault]:
    """The faults `--faults` names, in its order, with how long each usually takes."""
    hold = not args.restart_at_once
    worker_hold = STALE_WORKER_SECONDS if hold else 0.0
    clock_hold = STALE_CLOCK_SECONDS if hold else 0.0
    every = {
        fault.key: fault
        for fault in [
            Fault("web", "SIGKILL of one gunicorn worker (gunicorn starts another)", False, 5.0),
            Fault(
                "worker",
                "SIGKILL of the move worker's process group (`worker`), started again",
                hold,
                clock_hold + 15,
            ),
            Fault(
                "pictures",
                "SIGKILL of the picture worker's process group (`picture`), started again",
                hold,
                worker_hold + 15,
            ),
            Fault("beat", "SIGKILL of beat, started again", hold, clock_hold + 10),
            Fault(
                "redis", "Redis killed, started again on its port", True, args.outage_seconds + 10
            ),
            Fault(
                "postgres",
                "PostgreSQL stopped (pg_ctl stop -m fast), started again",
                True,
                args.outage_seconds + 15,
            ),
            Fault(
                "smtp",
                "the SMTP server down (port closed, sessions cut), back on its port",
                False,
                args.smtp_outage_seconds + 10,
            ),
        ]
    }
    return [every[key] for key in args.faults.split(",")]


class SoakBench(Bench):
    """bench/service.py's load on a cluster and Redis of its own, with faults beside it."""

    slot_type = SoakSlot
    measure_storage = False

    def __init__(self, args: argparse.Namespace) -> None:
        bin_dir = postgres_bin_dir()
        if bin_dir is None:
            raise SystemExit("PostgreSQL's server programs (initdb, pg_ctl) are not installed")
        self.cluster = PrivateCluster(bin_dir)
        self.faults = plan(args)
        self.abandoned: list[tuple[float, str]] = []
        self.soak_errors: list[str] = []
        self.ready_since = 0.0
        self.stopping = threading.Event()
        self.chaos: threading.Thread | None = None
        self.loop: asyncio.AbstractEventLoop | None = None
        self.faults_over = asyncio.Event()
        self.killed_web = 0  # the gunicorn worker the web fault killed
        self.drain_deadline: float | None = None
        self.games_checked = 0
        self.slots: list[SoakSlot] = []
        # The visitor's answers: (when, status or 0 for none, Retry-After).
        self.visits: list[tuple[float, int, str | None]] = []
        try:
            self.cluster.start()
            super().__init__(args)
        except BaseException:
            self.cluster.close()
            raise
        self.probe = ReadyProbe(self.stack.base_url)

    def stack_settings(self) -> dict[str, Any]:
        settings = super().stack_settings()
        settings["database_url"] = self.cluster.url
        # The Procfile's bot worker too: /readyz wants a worker on every queue.
        settings["queues"] = (BOTS_QUEUE,)
        settings["extra_env"] = {**settings["extra_env"], "PBEM_CLOCK_SECONDS": str(CLOCK_SECONDS)}
        return settings

    def run(self) -> dict[str, Any]:
        self.stack.start()
        self.probe.start()
        # Ready before the load: every red answer from now on is the faults'.
        wait_until(
            lambda: self.probe.seen(time.time() - 2, ok=True),
            timeout=120,
            message=lambda: f"/readyz to be green: {self.probe.probes[-1:]}",
        )
        self.ready_since = time.time()
        result = asyncio.run(self.play())
        # bench/service.py counts CPU by the process groups it started with: those killed and
        # started again here would count less than nothing.
        for key in ("cpu_seconds", "cpu_ms_per_move", "cpu_ms_per_email"):
            result.pop(key, None)
        return {**result, **self.judge()}

    # The faults, on a thread of their own: a part is killed and started again from there.

    async def beside_players(self) -> None:
        """Runs the faults on their thread, then lets the load go on to its end."""
        self.loop = asyncio.get_running_loop()
        self.chaos = threading.Thread(target=self.cause_faults, name="faults", daemon=True)
        self.chaos.start()
        visitor = asyncio.create_task(self.visit(), name="visitor")
        try:
            await self.faults_over.wait()
            end = max(
                self.started_at + 60 * self.args.minutes, time.time() + self.args.tail_seconds
            )
            await asyncio.sleep(max(0.0, end - time.time()))
        finally:
            self.time_up()
            visitor.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await visitor

    async def visit(self, period: float = 0.5) -> None:
        """A player reloading their game every `period` seconds (GET …/legal, a read of the
        database) on a connection of their own: players move only when an email comes, so
        without this no request would meet the database while it is down. Its answers of 500 or
        more are judged with the players'."""
        client = Client(self.stack.web_port, self.stats)
        rng = random.Random(0)
        try:
            while not self.out_of_time:
                await asyncio.sleep(period)
                seats = [slot.seat for slot in self.slots if slot.seat is not None]
                if not seats:
                    continue
                game_id, token = rng.choice(seats)
                try:
                    status, headers, _ = await client.request(
                        "GET",
                        f"/api/games/{game_id}/legal",
                        b"",
                        f"Authorization: Bearer {token}\r\n",
                    )
                except (
                    OSError,
                    asyncio.IncompleteReadError,
                    asyncio.LimitOverrunError,
                    ValueError,
                ):
                    client.close()
                    self.visits.append((time.time(), 0, None))
                    continue
                self.visits.append((time.time(), status, headers.get("retry-after")))
        finally:
            client.close()

    def cause_faults(self) -> None:
        """Each fault in turn at its time. The thread then waits for the soak to close: a process
        started here (a worker, beat, Redis) is killed when the thread that started it ends."""
        starts = schedule(
            [f.estimate for f in self.faults],
            60 * self.args.minutes,
            lead=self.args.lead_seconds,
            tail=self.args.tail_seconds,
            min_gap=10.0,
        )
        try:
            for fault, offset in zip(self.faults, starts, strict=True):
                if self.stopping.wait(max(0.0, self.started_at + offset - time.time())):
                    return
                self.cause(fault)
        except Exception as exc:  # reported; the load still ends and is checked
            self.soak_errors.append(f"{type(exc).__name__}: {exc}")
        finally:
            assert self.loop is not None
            self.loop.call_soon_threadsafe(self.faults_over.set)
        self.stopping.wait()

    def cause(self, fault: Fault) -> None:
        """Take the part down, keep it down as long as the fault says, bring it back, and wait
        for /readyz to be green before the next."""
        down: Callable[[], None] = getattr(self, f"down_{fault.key}")
        up: Callable[[], None] = getattr(self, f"up_{fault.key}")
        fault.started_at = time.time()
        down()
        self.hold(fault)
        up()
        back = fault.back_at = time.time()
        try:
            wait_until(
                lambda: self.probe.seen(back, ok=True) or self.stopping.is_set(),
                timeout=GREEN_WITHIN_SECONDS,
                interval=0.2,
            )
        except TimeoutError:
            fault.note = f"/readyz not green within {GREEN_WITHIN_SECONDS:.0f} s of it being back"

    def hold(self, fault: Fault) -> None:
        """How long the part stays down: a worker or beat until /readyz says so (at most as long
        as it should take); Redis and PostgreSQL --outage-seconds; SMTP --smtp-outage-seconds."""
        if fault.key in ("redis", "postgres"):
            self.stopping.wait(self.args.outage_seconds)
        elif fault.key == "smtp":
            self.stopping.wait(self.args.smtp_outage_seconds)
        elif fault.readyz_sees:
            bound = STALE_WORKER_SECONDS if fault.key == "pictures" else STALE_CLOCK_SECONDS
            deadline = time.time() + bound
            while not self.probe.seen(fault.started_at or 0.0, ok=False):
                if time.time() > deadline or self.stopping.wait(0.2):
                    fault.note = f"/readyz still green after {bound:.0f} s: started again"
                    return

    def down_web(self) -> None:
        assert self.stack.web is not None
        workers = child_pids(self.stack.web.pid)
        if not workers:
            raise RuntimeError("gunicorn has no worker to kill")
        self.killed_web = workers[0]
        os.kill(workers[0], signal.SIGKILL)

    def up_web(self) -> None:
        """gunicorn's master starts a new worker by itself; back once it has them all again."""
        assert self.stack.web is not None
        master = self.stack.web.pid

        def whole() -> bool:
            now = child_pids(master)
            return len(now) >= self.stack.web_workers and self.killed_web not in now

        wait_until(whole, timeout=60, message="gunicorn to replace its killed worker")

    def down_worker(self) -> None:
        for proc in self.stack.workers.values():
            proc.kill()
        self.stack.workers.clear()

    def up_worker(self) -> None:
        self.stack.start_worker()

    def down_pictures(self) -> None:
        self.stack.queue_workers.pop(PICTURES_QUEUE).kill()

    def up_pictures(self) -> None:
        self.stack.start_queue_worker(PICTURES_QUEUE)

    def down_beat(self) -> None:
        assert self.stack.beat is not None
        self.stack.beat.kill()

    def up_beat(self) -> None:
        self.stack.start_beat()

    def down_redis(self) -> None:
        self.stack.redis.stop()

    def up_redis(self) -> None:
        self.stack.redis.start()

    def down_postgres(self) -> None:
        self.cluster.stop("fast")

    def up_postgres(self) -> None:
        self.cluster.start()

    def down_smtp(self) -> None:
        assert self.loop is not None
        self.on_loop(self.sink.pause)

    def up_smtp(self) -> None:
        assert self.loop is not None
        asyncio.run_coroutine_threadsafe(self.sink.resume(), self.loop).result(timeout=30)

    def on_loop(self, call: Callable[[], None]) -> None:
        """Run `call` on the players' loop (the sink lives there) and wait for it."""
        assert self.loop is not None

        async def run() -> None:
            call()

        asyncio.run_coroutine_threadsafe(run(), self.loop).result(timeout=30)

    def settled(self, game_ids: list[str]) -> bool:
        """Nothing pending, as bench/service.py waits for; after --drain-seconds the soak stops
        waiting and says so: what is still pending then is a failure to report (a worker that
        no longer takes tasks, say), not a reason to crash without a verdict."""
        if super().settled(game_ids):
            return True
        if self.drain_deadline is None:
            self.drain_deadline = time.monotonic() + self.args.drain_seconds
        if time.monotonic() < self.drain_deadline:
            return False
        self.soak_errors.append(
            f"moves or emails still pending {self.args.drain_seconds:.0f} s after the load ended"
        )
        return True

    # The verdict's records, read once the load has drained.

    def judge(self) -> dict[str, Any]:
        end = self.probe.seen(time.time(), ok=True) or self.probe.look()
        db = self.stack.db
        moves = db.query(
            "select game_id, ply, move, submission_id from moves order by game_id, ply"
        )
        return findings(
            self.faults,
            self.probe.probes,
            self.ready_since,
            accepted=self.stats.accepted,
            moves=moves,
            pending=db.query("select id, game_id, ply from submissions where status = 'pending'"),
            outbox=db.query('select message_id, status, game_id, kind, "to", subject from outbox'),
            at_sink=self.router.message_ids,
            repeats=self.router.repeats,
            server_errors=self.stats.server_errors,
            resent=self.stats.resent,
            inconsistent=self.inconsistent_games(moves),
            abandoned=self.abandoned,
            readyz_at_end=end.status,
            soak_errors=self.soak_errors,
            started_at=self.started_at,
            pictures_at=self.router.picture_times,
            load_ended_at=self.time_up_at,
            visits=self.visits,
        )

    def inconsistent_games(self, moves: list[tuple[Any, ...]]) -> list[str]:
        by_game: dict[str, list[tuple[int, str]]] = defaultdict(list)
        for game_id, ply, move, _ in moves:
            by_game[game_id].append((ply, move))
        rows = self.stack.db.query(
            "select g.id, g.engine, g.options, g.seed, "
            "(select count(*) from seats s where s.game_id = g.id), g.state, g.ply, g.status, "
            "g.to_move, (select count(*) from game_events e where e.game_id = g.id) from games g"
        )
        self.games_checked = len(rows)
        problems = []
        for row in rows:
            game = StoredGame(*row)
            problems += game_problems(game, by_game.get(game.id, []))
        return problems

    def close(self) -> None:
        """Everything down, whatever happened: the faults' thread, the probe, the stack, the
        cluster (each step even when the one before failed)."""
        self.stopping.set()
        self.probe.stopping.set()
        if self.chaos is not None:
            self.chaos.join(timeout=150)
        with contextlib.suppress(Exception):
            super().close()
        self.cluster.close()


def child_pids(parent: int) -> list[int]:
    """The processes whose parent is `parent`, oldest first."""
    found = []
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            raw = Path(f"/proc/{entry.name}/stat").read_text()
        except OSError:
            continue
        fields = raw[raw.rindex(")") + 2 :].split()
        if int(fields[1]) == parent:
            found.append((int(fields[19]), int(entry.name)))  # start time, pid
    return [pid for _, pid in sorted(found)]


# --- the report ----------------------------------------------------------------------------------


def report(r: dict[str, Any], failed: list[str]) -> None:
    t0 = r["started_at"]
    print(f"machine: {r['machine']}")
    print(f"settings: {r['settings']}")
    print(
        f"load: {r['games']} games ({r['games_finished']} finished, {r['games_cut_short']} cut "
        f"short at the end, {r['abandoned']} given up or not started), {r['moves']} moves in "
        f"{r['wall_seconds']:.0f} s ({r['moves_per_second']:.1f} a second); submit p50 "
        f"{r['submit_p50_ms']:.0f} ms, p99 {r['submit_p99_ms']:.0f} ms; move to next email p50 "
        f"{r['next_email_p50_ms']:.0f} ms, p99 {r['next_email_p99_ms']:.0f} ms"
    )
    print(
        f"pictures: {r['pictures_drawn']} drawn ({r['pictures_failed']} failed); emails with a "
        f"picture {r['emails_with_picture']} of {r['emails_check']['at_sink']} at the sink"
    )
    print("faults (seconds from the start of the load):")
    for f in r["faults"]:
        print(f"  {f['key']}: {f['what']}")
        if f["started_at"] is None:
            print(f"    did not happen {f['note']}")
            continue
        down = (f["back_at"] or f["started_at"]) - f["started_at"]
        line = f"    at {f['started_at'] - t0:.0f} s, down {down:.1f} s; /readyz "
        if f["red_at"] is not None:
            line += f"red {f['red_at'] - f['started_at']:.1f} s after it"
        else:
            line += "never red" + (" (expected red)" if f["readyz_sees"] else " (not expected)")
        if f["green_at"] is not None:
            line += f", green {f['green_at'] - (f['back_at'] or 0):.1f} s after it was back"
        print(line)
        if f["red_problems"]:
            print(f"    red for: {'; '.join(p[:110] for p in f['red_problems'])}")
        if f["note"]:
            print(f"    note: {f['note']}")
    moves = r["moves_check"]
    print(
        f"moves: {len(r['moves_accepted_ids'])} accepted, {r['moves_stored']} stored, "
        f"{len(moves['lost'])} lost, {len(moves['duplicated'])} stored twice, "
        f"{len(r['pending_submissions'])} still pending"
    )
    mail = r["emails_check"]
    print(
        f"emails: {mail['written']} written, {mail['at_sink']} accepted by the sink, "
        f"{len(mail['lost'])} lost, {len(mail['not_sent'])} not sent, "
        f"{len(mail['written_twice'])} written twice; copies of one message: "
        f"{mail['copies_by_fault'] or 'none'} by fault, {len(mail['copies_unexplained'])} outside "
        f"the faults"
    )
    errors = r["server_errors"]
    print(
        f"answers of 500 or more: {sum(errors['expected_503'].values())} 503s with Retry-After "
        f"while PostgreSQL was down {errors['expected_503'] or ''}, "
        f"{len(errors['unexpected'])} others"
    )
    times = sorted(at - t0 for at, *_ in r["server_error_times"])
    if times:
        print(f"  between {times[0]:.0f} s and {times[-1]:.0f} s")
    print(
        f"requests sent again after their connection was cut: {r['resent']}"
        + (f" (at {_spans([at - t0 for at in r['resent_times']])})" if r["resent"] else "")
    )
    print(
        f"visitor (GET …/legal every 0.5 s): {r['visits']} requests; answers while each fault "
        f"lasted: {r['outage_answers']}"
    )
    print(f"work after each fault: {'; '.join(r['stalled']) or 'pictures came after every one'}")
    print(f"games: {r['games_checked']} checked, {len(r['inconsistent_games'])} inconsistent")
    print(
        f"/readyz: {r['readyz_probes']} probes, {len(r['unexplained_red'])} red outside the "
        f"faults, {r['readyz_at_end']} at the end"
    )
    if r["abandoned_expected"]:
        print(f"games given up or not started after a 503: {len(r['abandoned_expected'])}")
    print("PASSED" if not failed else f"FAILED ({len(failed)}):")
    for line in grouped(failed):
        print(f"  {line}")


def grouped(failed: Sequence[str]) -> list[str]:
    """One line per kind of failure (its words before the first colon): how many, and the
    first of them."""
    kinds: dict[str, list[str]] = {}
    for line in failed:
        kinds.setdefault(line.split(":", 1)[0], []).append(line)
    return [
        lines[0] if len(lines) == 1 else f"{len(lines)} × {lines[0]} (the first)"
        for lines in kinds.values()
    ]


def _spans(times: Sequence[float]) -> str:
    """`12-14 s, 300 s`: times grouped where they are within 5 s of each other."""
    groups: list[list[float]] = []
    for t in sorted(times):
        if groups and t - groups[-1][-1] <= 5:
            groups[-1].append(t)
        else:
            groups.append([t])
    return ", ".join(
        f"{g[0]:.0f} s" if len(g) == 1 else f"{g[0]:.0f}-{g[-1]:.0f} s ({len(g)})" for g in groups
    )


def parse(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--minutes", type=float, default=10.0, help="length of the load")
    parser.add_argument("--games", type=int, default=20, help="games played at the same time")
    parser.add_argument("--engines", default="gorami:16", help="as bench/service.py's")
    parser.add_argument("--think-ms", type=float, default=0.0, help="as bench/service.py's")
    parser.add_argument(
        "--outage-seconds", type=float, default=10.0, help="how long Redis and PostgreSQL are down"
    )
    parser.add_argument("--smtp-outage-seconds", type=float, default=60.0)
    parser.add_argument(
        "--faults",
        default=",".join(FAULTS),
        help=f"which faults, in which order (default: the issue's, {','.join(FAULTS)})",
    )
    parser.add_argument(
        "--restart-at-once",
        action="store_true",
        help="start killed workers and beat again at once, not once /readyz has seen them gone",
    )
    parser.add_argument(
        "--lead-seconds", type=float, default=30.0, help="load before the first fault"
    )
    parser.add_argument(
        "--tail-seconds",
        type=float,
        default=STALE_WORKER_SECONDS,
        help="load at least after the last fault (by default long enough for /readyz to see a "
        "worker that stopped writing its heartbeat)",
    )
    parser.add_argument(
        "--drain-seconds",
        type=float,
        default=240.0,
        help="how long the last moves and emails may take once the load has ended",
    )
    parser.add_argument("--web-workers", type=int, default=2)
    parser.add_argument("--web-threads", type=int, default=4)
    parser.add_argument("--worker-concurrency", type=int, default=1)
    parser.add_argument("--picture-concurrency", type=int, default=1)
    parser.add_argument("--sweep-seconds", type=int, default=30)
    parser.add_argument("--log-dir", default=None, help="keep every process's log there")
    parser.add_argument("--json", action="store_true", help="print the result as JSON")
    args = parser.parse_args(argv)
    unknown = set(args.faults.split(",")) - set(FAULTS)
    if unknown:
        parser.error(f"--faults: no such fault {', '.join(sorted(unknown))}")
    # What bench/service.py's Bench reads besides: no move budget, a bound only against a hang
    # (the soak ends the load itself), pictures on, no profiler.
    args.moves = 10**9
    args.max_seconds = 60 * args.minutes + sum(f.estimate for f in plan(args)) + 900
    args.ramp_seconds = 2.0
    args.warmup_seconds = 5.0
    args.worker_pool = "prefork"
    args.pictures = True
    args.profile = None
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse(argv)
    keep_logs = args.log_dir is not None
    args.log_dir = args.log_dir or tempfile.mkdtemp(prefix="pbem-soak-")
    bench = SoakBench(args)
    try:
        result = bench.run()
        result["moves_accepted_ids"] = [sid for sid, *_ in bench.stats.accepted]
        result["games_checked"] = bench.games_checked
    finally:
        bench.close()
    result["machine"] = (
        f"{platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}"
    )
    result["settings"] = {
        k: getattr(args, k)
        for k in (
            "minutes",
            "games",
            "engines",
            "think_ms",
            "outage_seconds",
            "smtp_outage_seconds",
            "restart_at_once",
            "web_workers",
            "web_threads",
            "worker_concurrency",
            "picture_concurrency",
            "sweep_seconds",
        )
    }
    failed = verdict(result)
    if args.json:
        print(json.dumps({**result, "failed": failed}, indent=2, default=str))
    else:
        report(result, failed)
    if failed or keep_logs:
        print(f"logs: {args.log_dir}")
    else:
        shutil.rmtree(args.log_dir, ignore_errors=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
