"""The stack with board pictures in mail: `PBEM_MAIL_PICTURES=on` and the Procfile's `picture`
worker (`celery … worker -Q pictures`) beside the others. Used by the picture integration test
and by `bench/service.py --pictures`."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

from tests.support.procs import VENV_BIN, Proc, wait_until
from tests.support.stack import Stack

PICTURES_QUEUE = "pictures"


def _celery() -> str:
    path = VENV_BIN / "celery"
    return str(path) if path.exists() else shutil.which("celery") or "celery"


def _read_from(path: Path, offset: int) -> str:
    try:
        with open(path, "rb") as fh:
            fh.seek(offset)
            return fh.read().decode(errors="replace")
    except OSError:
        return ""


class PictureStack(Stack):
    """A Stack whose turn and result emails carry the board, drawn by a worker of its own."""

    def __init__(self, *, picture_concurrency: int = 1, **kwargs: Any) -> None:
        extra = dict(kwargs.pop("extra_env", None) or {})
        extra.setdefault("PBEM_MAIL_PICTURES", "on")
        super().__init__(extra_env=extra, **kwargs)
        self.picture_concurrency = picture_concurrency
        self.picture_worker: Proc | None = None

    def start(self) -> PictureStack:
        super().start()
        if self.picture_worker is None or not self.picture_worker.running:
            self.start_picture_worker()
        return self

    def start_picture_worker(self) -> Proc:
        """The Procfile's `picture` process: a worker consuming the `pictures` queue only."""
        argv = [
            _celery(),
            "-A",
            "workers.celery_app",
            "worker",
            "-Q",
            PICTURES_QUEUE,
            "--pool=prefork",
            f"--concurrency={self.picture_concurrency}",
            "--loglevel=INFO",
            "--hostname=picture@pbem-test",
            "--without-gossip",
            "--without-mingle",
        ]
        proc = Proc("celery-picture", argv, env=self.env, log_dir=self.log_dir)
        offset = proc.log_path.stat().st_size if proc.log_path.exists() else 0
        self.picture_worker = proc.start()
        wait_until(
            lambda: " ready." in _read_from(proc.log_path, offset) or not proc.running,
            timeout=120,
            message=lambda: f"the picture worker to be ready; log:\n{proc.log_tail()}",
        )
        if not proc.running:
            raise RuntimeError(f"the picture worker exited:\n{proc.log_tail()}")
        return proc

    def close(self) -> None:
        if self.picture_worker is not None:
            self.picture_worker.stop(timeout=10)
            self.picture_worker = None
        super().close()

    def queue_empty(self) -> bool:
        return super().queue_empty() and self.redis.command("LLEN", PICTURES_QUEUE) == ":0"

    def logs(self, lines: int = 40) -> str:
        text = super().logs(lines)
        if self.picture_worker is not None:
            tail = self.picture_worker.log_tail(20_000).splitlines()[-lines:]
            text += f"\n--- {self.picture_worker.name} ---\n" + "\n".join(tail)
        return text
