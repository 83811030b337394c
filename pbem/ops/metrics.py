"""The service's figures for Prometheus (prometheus-client).

Counters and histograms are counted where things happen (a move stored, applied or refused, an
email queued, sent, deferred or given up, a picture drawn, a bot's thinking), in whatever process
does it. The processes of one host share them through files in `PBEM_METRICS_DIR`
(prometheus-client's multiprocess mode), one subfolder per role, so that the web's `/metrics`
serves the web processes' counters and a worker host's `PBEM_METRICS_PORT` its workers', and
neither counts the other's twice. The gauges that come from the database (games by engine and
state, the oldest unsent email, what waits, the clock's lag, queue depths) are read when the web
is scraped (`DatabaseCollector`).

Every metric has labels: prometheus-client makes a metric's value when its labels are first
given, and `setup` must choose where values live before that.
"""

from __future__ import annotations

import logging
import os
import threading
from pathlib import Path

from prometheus_client import CollectorRegistry, Counter, Histogram, values
from prometheus_client.multiprocess import MultiProcessCollector
from prometheus_client.registry import Collector

from pbem.config import Settings

log = logging.getLogger(__name__)

# Seconds: a move applied within the batch's 50 ms, or waiting behind others, or for the sweep.
_APPLY_BUCKETS = (0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0, 300.0)
_PICTURE_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0)
_BOT_BUCKETS = (0.01, 0.05, 0.1, 0.25, 0.5, 1.0, 2.0, 5.0, 10.0, 30.0, 60.0)

MOVES_SUBMITTED = Counter(
    "pbem_moves_submitted", "Moves stored for a worker to apply", ["engine"], registry=None
)
MOVES_APPLIED = Counter("pbem_moves_applied", "Moves applied", ["engine"], registry=None)
MOVES_REFUSED = Counter(
    "pbem_moves_refused",
    "Moves refused, when sent (the answer's error code) or when applied (a later check)",
    ["engine", "reason"],
    registry=None,
)
MOVE_APPLY_SECONDS = Histogram(
    "pbem_move_apply_seconds",
    "From a move's submission to its application",
    ["engine"],
    buckets=_APPLY_BUCKETS,
    registry=None,
)
EMAILS_QUEUED = Counter(
    "pbem_emails_queued", "Emails written to the outbox", ["kind"], registry=None
)
EMAILS_SENT = Counter("pbem_emails_sent", "Emails the mail server took", ["kind"], registry=None)
EMAILS_DEFERRED = Counter(
    "pbem_emails_deferred", "Attempts that failed and will be tried again", ["kind"], registry=None
)
EMAILS_FAILED = Counter("pbem_emails_failed", "Emails given up on", ["kind"], registry=None)
EMAILS_WITHOUT_PICTURE = Counter(
    "pbem_emails_without_picture",
    "Emails sent without the board picture they were to carry",
    ["kind"],
    registry=None,
)
PICTURES_DRAWN = Counter(
    "pbem_pictures_drawn", "Board pictures drawn for mail", ["engine", "result"], registry=None
)
PICTURE_SECONDS = Histogram(
    "pbem_picture_seconds",
    "CPU time to draw one board picture",
    ["engine"],
    buckets=_PICTURE_BUCKETS,
    registry=None,
)
BOT_SECONDS = Histogram(
    "pbem_bot_seconds",
    "A bot's time to decide a move or a draw offer",
    ["bot"],
    buckets=_BOT_BUCKETS,
    registry=None,
)
# What this process counts: served from here when it counts alone (`process_collectors`).
PROCESS_METRICS: tuple[Collector, ...] = (
    MOVES_SUBMITTED,
    MOVES_APPLIED,
    MOVES_REFUSED,
    MOVE_APPLY_SECONDS,
    EMAILS_QUEUED,
    EMAILS_SENT,
    EMAILS_DEFERRED,
    EMAILS_FAILED,
    EMAILS_WITHOUT_PICTURE,
    PICTURES_DRAWN,
    PICTURE_SECONDS,
    BOT_SECONDS,
)
_setup_lock = threading.Lock()
_folder: Path | None = None


ROLES = ("web", "worker")


def setup(config: Settings, role: str) -> None:
    """Count in `PBEM_METRICS_DIR/<role>` from now on, shared with this host's other processes
    of the role (`web` or `worker`); without the setting, each process counts alone. Called once
    per process, before anything is counted (`pbem.app.create_app(role=…)`)."""
    global _folder
    base = config.ops.metrics_dir
    if base is None:
        return
    if role not in ROLES:
        raise ValueError(f"no metrics role {role!r}; one of {', '.join(ROLES)}")
    with _setup_lock:
        if _folder is not None:
            return
        folder = base / role
        folder.mkdir(parents=True, exist_ok=True)
        os.environ["PROMETHEUS_MULTIPROC_DIR"] = str(folder)
        values.ValueClass = values.MultiProcessValue()  # type: ignore[no-untyped-call]
        _folder = folder


def shared_folder() -> Path | None:
    """Where this process's counters are shared, if they are."""
    return _folder


def process_registry() -> CollectorRegistry:
    """A registry of the counters of this process, or of every process of its role on this
    host when they share a folder; callers may register more collectors on it."""
    registry = CollectorRegistry(auto_describe=True)
    if _folder is not None:
        MultiProcessCollector(registry, path=str(_folder))  # type: ignore[no-untyped-call]
    else:
        for metric in PROCESS_METRICS:
            registry.register(metric)
    return registry
