"""Subprocesses that never outlive the test session, and small waiting helpers."""

from __future__ import annotations

import atexit
import contextlib
import ctypes
import os
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TypeVar

T = TypeVar("T")

REPO = Path(__file__).resolve().parents[2]
VENV_BIN = Path(sys.executable).parent
LOOPBACK = "127.0.0.1"

_live: set[Proc] = set()
_live_lock = threading.Lock()


def free_port() -> int:
    """A TCP port on loopback that nothing listens on right now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((LOOPBACK, 0))
        return int(sock.getsockname()[1])


def run(
    argv: Sequence[str], env: Mapping[str, str], timeout: float = 120
) -> subprocess.CompletedProcess[str]:
    """A command run to its end from the repository, its output kept as text."""
    return subprocess.run(
        list(argv),
        cwd=REPO,
        env=dict(env),
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )


def port_open(port: int, host: str = LOOPBACK) -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.settimeout(0.5)
        return sock.connect_ex((host, port)) == 0


def wait_until(
    predicate: Callable[[], T],
    timeout: float = 120.0,
    interval: float = 0.05,
    message: str | Callable[[], str] = "condition",
) -> T:
    """Poll `predicate` until it returns something truthy; fail with `message` after `timeout`.

    Tests wait for conditions, never for durations: the timeout is generous and only bounds a
    hang, it is not a performance assertion.
    """
    deadline = time.monotonic() + timeout
    delay = interval
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() > deadline:
            text = message() if callable(message) else message
            raise TimeoutError(f"timed out after {timeout:.0f}s waiting for {text}")
        time.sleep(delay)
        delay = min(delay * 1.5, 0.5)


try:
    # Loaded here, not in the child: preexec_fn must not import or allocate much.
    _libc: ctypes.CDLL | None = ctypes.CDLL("libc.so.6", use_errno=True)
except OSError:
    _libc = None


def _die_with_parent() -> None:
    # Linux: the child gets SIGKILL if the test process dies without cleaning up (e.g. killed by
    # a CI timeout), so no redis-server or celery worker survives a crashed session.
    if _libc is not None:
        _libc.prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG


class Proc:
    """A subprocess in its own process group, logged to a file, killed at exit at the latest.

    Start it from the main thread: on Linux the child is told to die with the thread that forked
    it, so a crashed or killed test session leaves nothing running.
    """

    def __init__(
        self,
        name: str,
        argv: Sequence[str],
        env: Mapping[str, str] | None = None,
        cwd: Path | str = REPO,
        log_dir: Path | str | None = None,
    ) -> None:
        self.name = name
        self.argv = list(argv)
        self.env = dict(os.environ if env is None else env)
        self.cwd = str(cwd)
        log_dir = Path(log_dir or tempfile.mkdtemp(prefix="pbem-logs-"))
        log_dir.mkdir(parents=True, exist_ok=True)
        self.log_path = log_dir / f"{name}.log"
        self.popen: subprocess.Popen[bytes] | None = None

    def start(self) -> Proc:
        if self.running:
            return self
        log = open(self.log_path, "ab")  # noqa: SIM115 - handed to the child
        try:
            self.popen = subprocess.Popen(
                self.argv,
                cwd=self.cwd,
                env=self.env,
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
                preexec_fn=_die_with_parent if _libc is not None else None,
            )
        finally:
            log.close()
        with _live_lock:
            _live.add(self)
        return self

    @property
    def pid(self) -> int:
        assert self.popen is not None
        return self.popen.pid

    @property
    def running(self) -> bool:
        return self.popen is not None and self.popen.poll() is None

    def signal_group(self, sig: int) -> None:
        if self.popen is None:
            return
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.popen.pid, sig)

    def kill(self) -> None:
        """SIGKILL the whole group at once: the machine lost power, nothing gets to clean up."""
        if self.popen is None:
            return
        self.signal_group(signal.SIGKILL)
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.popen.wait(timeout=30)
        self._forget()

    def stop(self, timeout: float = 15.0) -> None:
        """SIGTERM the process, then SIGKILL its whole group once it is gone or `timeout` has
        passed. The process stops as it is meant to (a celery worker's warm shutdown finishes
        the tasks it runs, gunicorn's arbiter stops its workers); a SIGTERM to the whole group
        would end a celery pool process in the middle of its task, a kill (`kill`) rather than
        a stop."""
        if self.popen is None:
            return
        if self.popen.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                self.popen.send_signal(signal.SIGTERM)
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.popen.wait(timeout=timeout)
        # Children (prefork pool, gunicorn workers) may outlive their parent briefly.
        self.signal_group(signal.SIGKILL)
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.popen.wait(timeout=30)
        self._forget()

    def _forget(self) -> None:
        with _live_lock:
            _live.discard(self)

    def log_tail(self, chars: int = 4000) -> str:
        try:
            text = self.log_path.read_text(errors="replace")
        except OSError:
            return ""
        return text[-chars:]

    def __repr__(self) -> str:
        return f"<Proc {self.name} pid={self.popen.pid if self.popen else None}>"


def kill_all() -> None:
    """Kill every process this module started and has not stopped yet."""
    with _live_lock:
        procs = list(_live)
    for proc in procs:
        proc.kill()


def live() -> list[Proc]:
    with _live_lock:
        return [p for p in _live if p.running]


atexit.register(kill_all)
