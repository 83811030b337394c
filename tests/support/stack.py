"""The whole service on loopback: PostgreSQL database, private Redis, SMTP sink, celery, gunicorn.

Used by the integration suite (one stack per pytest run, shared by every test that needs it and
healed between tests; a module that needs other settings restarts the service's processes with
them, `reconfigured`) and by `bench/service.py`. Every process is started in its own process
group and killed at the end.
"""

from __future__ import annotations

import os
import secrets
import shutil
import subprocess
import tempfile
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path

from tests.support.http import Http
from tests.support.pg import TempDatabase
from tests.support.procs import LOOPBACK, REPO, VENV_BIN, Proc, free_port, port_open, wait_until
from tests.support.redis_server import RedisServer
from tests.support.smtp import SmtpSink

PICTURES_QUEUE = "pictures"
# The Procfile's options of a queue's worker, beside the queue.
PREFETCH = {"bots": ("--prefetch-multiplier=1",)}


def _bin(name: str) -> str:
    path = VENV_BIN / name
    if path.exists():
        return str(path)
    found = shutil.which(name)
    if found is None:
        raise RuntimeError(f"{name} is not installed in the virtualenv")
    return found


class Stack:
    """Owns every part; `start()` brings up what is down, `close()` tears everything down."""

    def __init__(
        self,
        *,
        sweep_seconds: int = 1,
        mail_retry_seconds: int = 1,
        worker_concurrency: int = 2,
        web_workers: int = 2,
        web_threads: int = 4,
        extra_env: Mapping[str, str] | None = None,
        log_dir: Path | str | None = None,
        with_beat: bool = True,
        database_url: str | None = None,
        queues: Sequence[str] = (),
        queue_concurrency: int = 1,
    ) -> None:
        """`database_url` names the PostgreSQL server the throwaway database is made on (any
        database of it; PBEM_TEST_DATABASE_URL's server by default). `queues` are the queues
        that get a worker of their own beside the default one, as the Procfile's `picture`
        (`pictures`) and `bot` (`bots`) do."""
        self.log_dir = Path(log_dir or tempfile.mkdtemp(prefix="pbem-stack-"))
        self.log_dir.mkdir(parents=True, exist_ok=True)
        self.db = TempDatabase(url=database_url)
        self.redis = RedisServer(log_dir=self.log_dir)
        self.smtp = SmtpSink()
        self.web_port = free_port()
        self.sweep_seconds = sweep_seconds
        self.mail_retry_seconds = mail_retry_seconds
        self.worker_concurrency = worker_concurrency
        self.web_workers = web_workers
        self.web_threads = web_threads
        self.with_beat = with_beat
        self.extra_env = dict(extra_env or {})
        self.secret_key = secrets.token_urlsafe(32)
        self.workers: dict[str, Proc] = {}
        self.queues = tuple(queues)
        self.queue_concurrency = queue_concurrency
        self.queue_workers: dict[str, Proc] = {}
        self.beat: Proc | None = None
        self.web: Proc | None = None
        self._db_created = False
        # Message-IDs a test has already failed on for arriving twice; the session check skips them.
        self.reported_duplicates: set[str] = set()

    # Configuration shared by every process

    @property
    def base_url(self) -> str:
        return f"http://{LOOPBACK}:{self.web_port}"

    @property
    def env(self) -> dict[str, str]:
        env = {
            k: v
            for k, v in os.environ.items()
            if not k.startswith(("PBEM_", "CELERY_")) or k.startswith("PBEM_TEST_")
        }
        env.update(
            {
                "PATH": f"{VENV_BIN}{os.pathsep}{env.get('PATH', '')}",
                "PYTHONPATH": str(REPO),
                "PYTHONUNBUFFERED": "1",
                "DATABASE_URL": self.db.url,
                "REDIS_URL": self.redis.url,
                "SMTP_URL": self.smtp.url,
                "SECRET_KEY": self.secret_key,
                "BASE_URL": self.base_url,
                "MAIL_FROM": "pbem@pbem.test",
                "PBEM_ENV": "test",
                "PBEM_SWEEP_SECONDS": str(self.sweep_seconds),
                "PBEM_MAIL_RETRY_SECONDS": str(self.mail_retry_seconds),
                # Tests and the load test start games by the hundred from one address.
                "PBEM_RATE_LIMITS": "off",
                # Keeps var/ (beat schedule, embedded secret) out of the repository.
                "PBEM_VAR_DIR": str(self.log_dir / "var"),
            }
        )
        env.update(self.extra_env)
        return env

    @property
    def http(self) -> Http:
        return Http(self.base_url)

    # Lifecycle

    def start(self) -> Stack:
        """Start whatever is not running (idempotent: heals a stack a test broke on purpose)."""
        if not self._db_created:
            self.db.create()
            self._db_created = True
            self.upgrade_db()
        self.redis.start()
        self.smtp.start()
        self.start_web()
        if not any(p.running for p in self.workers.values()):
            self.workers.clear()
            self.start_worker()
        for queue in self.queues:
            worker = self.queue_workers.get(queue)
            if worker is None or not worker.running:
                self.start_queue_worker(queue)
        if self.with_beat:
            self.start_beat()
        return self

    def stop_processes(self) -> None:
        """Stop gunicorn, beat and every worker; the database, Redis and SMTP stay up."""
        for proc in [self.web, self.beat, *self.workers.values(), *self.queue_workers.values()]:
            if proc is not None:
                proc.stop(timeout=10)
        self.web = None
        self.beat = None
        self.workers.clear()
        self.queue_workers.clear()

    def use_queue(self, queue: str) -> Proc:
        """A worker of `queue` from now on (started now, healed by `start()` like the others)."""
        if queue not in self.queues:
            self.queues = (*self.queues, queue)
        worker = self.queue_workers.get(queue)
        if worker is None or not worker.running:
            worker = self.start_queue_worker(queue)
        return worker

    @contextmanager
    def reconfigured(
        self, extra_env: Mapping[str, str], queues: Sequence[str] = ()
    ) -> Iterator[Stack]:
        """The same database, Redis and SMTP sink, with gunicorn, beat and the workers started
        again with `extra_env` added to the environment and a worker for each of `queues`;
        as before afterwards."""
        saved = (dict(self.extra_env), self.queues)
        self.stop_processes()
        self.extra_env = {**self.extra_env, **extra_env}
        self.queues = (*self.queues, *(q for q in queues if q not in self.queues))
        try:
            yield self.start()
        finally:
            self.stop_processes()
            self.extra_env, self.queues = saved
            self.start()

    @property
    def picture_worker(self) -> Proc | None:
        """The worker of the Procfile's `picture` process (`-Q pictures`), when it runs one."""
        return self.queue_workers.get(PICTURES_QUEUE)

    def close(self) -> None:
        self.stop_processes()
        if self.redis.running:
            self.redis.stop()
        shutil.rmtree(self.redis.dir, ignore_errors=True)
        self.smtp.stop()
        if self._db_created:
            self.db.drop()
            self._db_created = False

    def __enter__(self) -> Stack:
        try:
            return self.start()
        except BaseException:
            self.close()
            raise

    def __exit__(self, *exc: object) -> None:
        self.close()

    def run(self, *argv: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
        """Run a command (e.g. `pbem new-game ...`) with the stack's environment."""
        return subprocess.run(
            list(argv),
            cwd=REPO,
            env=self.env,
            capture_output=True,
            text=True,
            timeout=timeout,
            check=False,
        )

    def mail_in(self, raw: bytes, timeout: float = 120) -> str:
        """A reply by mail delivered as an MTA's pipe delivers it: `pbem mail-in` with the
        message on standard input; its one line of outcome."""
        done = subprocess.run(
            [_bin("pbem"), "mail-in"],
            cwd=REPO,
            env=self.env,
            input=raw,
            capture_output=True,
            timeout=timeout,
            check=False,
        )
        out = done.stdout.decode("utf-8", "replace").strip()
        assert done.returncode == 0, f"pbem mail-in exited {done.returncode}: {out}"
        return out

    def upgrade_db(self) -> None:
        """`pbem db upgrade`, the Procfile's release step, on the fresh database."""
        done = self.run(_bin("pbem"), "db", "upgrade")
        if done.returncode != 0:
            raise RuntimeError(f"pbem db upgrade failed:\n{done.stdout}\n{done.stderr}")

    # Celery

    def start_worker(
        self,
        name: str | None = None,
        concurrency: int | None = None,
        pool: str = "prefork",
        prefetch: int | None = None,
    ) -> Proc:
        name = name or f"w{len(self.workers) + 1}"
        argv = [
            _bin("celery"),
            "-A",
            "workers.celery_app",
            "--quiet",
            "worker",
            f"--pool={pool}",
            f"--concurrency={concurrency or self.worker_concurrency}",
            "--loglevel=INFO",
            f"--hostname={name}@pbem-test",
            "--without-gossip",
            "--without-mingle",
        ]
        if prefetch is not None:
            # A worker takes this many messages per pool process; 1 keeps it from gathering a
            # batch, for tests that need each worker to hold one message.
            argv.append(f"--prefetch-multiplier={prefetch}")
        proc = self._launch(f"celery-{name}", f"celery worker {name}", argv)
        self.workers[name] = proc
        return proc

    def start_queue_worker(self, queue: str) -> Proc:
        """A worker consuming `queue` only, as the Procfile's `picture` and `bot` processes
        do (the bot worker holds one message at a time, as its Procfile line says)."""
        name = f"{queue}-worker"
        argv = [
            _bin("celery"),
            "-A",
            "workers.celery_app",
            "--quiet",
            "worker",
            "-Q",
            queue,
            "--pool=prefork",
            f"--concurrency={self.queue_concurrency}",
            *PREFETCH.get(queue, ()),
            "--loglevel=INFO",
            f"--hostname={queue}@pbem-test",
            "--without-gossip",
            "--without-mingle",
        ]
        proc = self._launch(f"celery-{queue}", f"the {name}", argv)
        self.queue_workers[queue] = proc
        return proc

    def _launch(self, log_name: str, called: str, argv: list[str]) -> Proc:
        """A celery worker started and waited for until it says it is ready."""
        proc = Proc(log_name, argv, env=self.env, log_dir=self.log_dir)
        offset = _size(proc.log_path)
        proc.start()
        wait_until(
            lambda: " ready." in _read_from(proc.log_path, offset) or not proc.running,
            timeout=120,
            message=lambda: f"{called} to be ready; log:\n{proc.log_tail()}",
        )
        if not proc.running:
            raise RuntimeError(f"{called} exited:\n{proc.log_tail()}")
        return proc

    def kill_workers(self) -> None:
        """SIGKILL every worker process group: tasks in flight are neither finished nor acked."""
        for proc in self.workers.values():
            proc.kill()
        self.workers.clear()

    def stop_workers(self) -> None:
        for proc in self.workers.values():
            proc.stop()
        self.workers.clear()

    def reset_workers(self) -> None:
        """Back to the one default worker, whatever a test started or killed."""
        self.stop_workers()
        self.start_worker()

    def start_beat(self) -> Proc:
        if self.beat is not None and self.beat.running:
            return self.beat
        schedule = self.log_dir / f"beat-schedule-{secrets.token_hex(4)}"
        argv = [
            _bin("celery"),
            "-A",
            "workers.celery_app",
            "--quiet",
            "beat",
            "--loglevel=INFO",
            f"--schedule={schedule}",
            f"--pidfile={self.log_dir / 'beat.pid'}",
        ]
        proc = Proc("celery-beat", argv, env=self.env, log_dir=self.log_dir)
        offset = _size(proc.log_path)
        self.beat = proc.start()
        # Ready once it has loaded the app: its start-up is not mistaken for work (bench CPU).
        wait_until(
            lambda: "beat: Starting..." in _read_from(proc.log_path, offset) or not proc.running,
            timeout=120,
            message=lambda: f"celery beat to start; log:\n{proc.log_tail()}",
        )
        return self.beat

    # Web

    def start_web(self) -> Proc:
        if self.web is not None and self.web.running:
            return self.web
        argv = [
            _bin("gunicorn"),
            "pbem.app:create_app(role='web')",
            f"--bind={LOOPBACK}:{self.web_port}",
            f"--workers={self.web_workers}",
            f"--threads={self.web_threads}",
            "--graceful-timeout=5",
            "--access-logfile=-",
            "--logger-class=pbem.gunicorn_logging.MaskingLogger",
        ]
        self.web = Proc("gunicorn", argv, env=self.env, log_dir=self.log_dir).start()
        web = self.web
        probe = Http(self.base_url, timeout=10)

        def answers() -> bool:
            # The port opens before the app is imported: wait for a worker to serve a page.
            try:
                return port_open(self.web_port) and probe.get("/").status == 200
            except OSError:
                return False

        wait_until(
            lambda: not web.running or answers(),
            timeout=120,
            message=lambda: f"gunicorn to serve /; log:\n{web.log_tail()}",
        )
        if not web.running:
            raise RuntimeError(f"gunicorn exited:\n{web.log_tail()}")
        return web

    # Queue state

    def queue_depth(self) -> tuple[int, int]:
        """(messages waiting in the celery queue, messages delivered but not acknowledged)."""
        waiting = self.redis.command("LLEN", "celery")
        unacked = self.redis.command("HLEN", "unacked")
        return _int_reply(waiting), _int_reply(unacked)

    def queue_empty(self) -> bool:
        """Nothing waiting in the queues (tasks reserved by a live or dead worker aside)."""
        if not self.redis.running or self.queue_depth()[0] != 0:
            return False
        return all(self.redis.command("LLEN", queue) == ":0" for queue in self.queues)

    def settled(self, game_id: str) -> bool:
        """No pending submission or email of this game, and nothing waiting in the queue."""
        pending = self.db.scalar(
            "select (select count(*) from submissions where game_id = %s and status = 'pending')"
            " + (select count(*) from outbox where game_id = %s and status = 'pending')",
            game_id,
            game_id,
        )
        return pending == 0 and self.queue_empty()

    def logs(self, lines: int = 40) -> str:
        """The last lines of every process log but the once-a-second sweep chatter."""
        parts = []
        for proc in [self.web, *self.workers.values(), *self.queue_workers.values()]:
            if proc is not None:
                kept = [
                    line
                    for line in proc.log_tail(200_000).splitlines()
                    if "tasks.sweep[" not in line and line.strip()
                ]
                parts.append(f"--- {proc.name} ({proc.log_path}) ---")
                parts.extend(kept[-lines:])
        return "\n".join(parts)


def _size(path: Path) -> int:
    try:
        return path.stat().st_size
    except OSError:
        return 0


def _read_from(path: Path, offset: int) -> str:
    try:
        with open(path, "rb") as fh:
            fh.seek(offset)
            return fh.read().decode(errors="replace")
    except OSError:
        return ""


def _int_reply(reply: str) -> int:
    # RESP integers look like ":12"; anything else (no connection) counts as unknown = busy.
    return int(reply[1:]) if reply.startswith(":") else -1
