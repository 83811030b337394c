"""The stack with board pictures in mail: `PBEM_MAIL_PICTURES=on` and the Procfile's `picture`
worker (`celery … worker -Q pictures`) beside the others. Used by the picture integration test
and by `bench/service.py --pictures`."""

from __future__ import annotations

from typing import Any

from tests.support.procs import Proc
from tests.support.stack import Stack

PICTURES_QUEUE = "pictures"


class PictureStack(Stack):
    """A Stack whose turn and result emails carry the board, drawn by a worker of its own."""

    def __init__(self, *, picture_concurrency: int = 1, **kwargs: Any) -> None:
        extra = dict(kwargs.pop("extra_env", None) or {})
        extra.setdefault("PBEM_MAIL_PICTURES", "on")
        super().__init__(
            extra_env=extra,
            queues=(PICTURES_QUEUE,),
            queue_concurrency=picture_concurrency,
            **kwargs,
        )

    @property
    def picture_worker(self) -> Proc | None:
        return self.queue_workers.get(PICTURES_QUEUE)
