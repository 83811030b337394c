"""The stack with board pictures in mail: `PBEM_MAIL_PICTURES=on` and the Procfile's `picture`
worker (`celery … worker -Q pictures`) beside the others. Used by the picture integration test
and by `bench/service.py --pictures`."""

from __future__ import annotations

from typing import Any

from tests.support.stack import PICTURES_QUEUE, Stack

# The settings of a stack whose mail carries pictures (`Stack.reconfigured` takes them too).
PICTURES_ON = {"PBEM_MAIL_PICTURES": "on"}


class PictureStack(Stack):
    """A Stack whose turn and result emails carry the board, drawn by a worker of its own;
    `queues` names other queues that get a worker too (the soak's `bots`)."""

    def __init__(self, *, picture_concurrency: int = 1, **kwargs: Any) -> None:
        super().__init__(
            extra_env={**PICTURES_ON, **(kwargs.pop("extra_env", None) or {})},
            queues=(PICTURES_QUEUE, *kwargs.pop("queues", ())),
            queue_concurrency=picture_concurrency,
            **kwargs,
        )
