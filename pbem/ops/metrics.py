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


def _counter(name: str, documentation: str, *labels: str) -> Counter:
    # In no registry of prometheus-client's own: `process_registry` says where they are read.
    return Counter(name, documentation, list(labels), registry=None)


def _histogram(name: str, documentation: str, buckets: tuple[float, ...], label: str) -> Histogram:
    return Histogram(name, documentation, [label], buckets=buckets, registry=None)


MOVES_SUBMITTED = _counter("pbem_moves_submitted", "Moves stored for a worker to apply", "engine")
MOVES_APPLIED = _counter("pbem_moves_applied", "Moves applied", "engine")
MOVES_REFUSED = _counter(
    "pbem_moves_refused",
    "Moves refused, when sent (the answer's error code) or when applied (a later check)",
    "engine",
    "reason",
)
MOVE_APPLY_SECONDS = _histogram(
    "pbem_move_apply_seconds",
    "From a move's submission to its application",
    _APPLY_BUCKETS,
    "engine",
)
EMAILS_QUEUED = _counter("pbem_emails_queued", "Emails written to the outbox", "kind")
EMAILS_SENT = _counter("pbem_emails_sent", "Emails the mail server took", "kind")
EMAILS_DEFERRED = _counter(
    "pbem_emails_deferred", "Attempts that failed and will be tried again", "kind"
)
EMAILS_FAILED = _counter("pbem_emails_failed", "Emails given up on", "kind")
EMAILS_WITHOUT_PICTURE = _counter(
    "pbem_emails_without_picture",
    "Emails sent without the board picture they were to carry",
    "kind",
)
PICTURES_DRAWN = _counter(
    "pbem_pictures_drawn", "Board pictures drawn for mail", "engine", "result"
)
PICTURE_SECONDS = _histogram(
    "pbem_picture_seconds", "CPU time to draw one board picture", _PICTURE_BUCKETS, "engine"
)
BOT_SECONDS = _histogram(
    "pbem_bot_seconds", "A bot's time to decide a move or a draw offer", _BOT_BUCKETS, "bot"
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
