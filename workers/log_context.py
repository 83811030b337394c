"""The logs of Celery's processes (`pbem.logs`): set up by pbem, not by Celery, in the format
`PBEM_LOG_FORMAT` names; each task's lines carry its name, its id and the id of the web request
that queued it, which travels in the message's headers (`pbem.logs.REQUEST_ID_HEADER`, put
there by `pbem.dispatch` in whichever process publishes), from task to task too."""

from __future__ import annotations

import contextlib
import logging
from typing import Any

from celery import signals

from pbem import logs
from pbem.config import Settings

# Each task's binding, undone when it ends (a pool process runs one task at a time).
_bound: dict[str | None, Any] = {}


def connect(config: Settings) -> None:
    """Take over the logs of this process's Celery (worker or beat) and its tasks' context:
    set up now, so that what Celery says before it sets up logging (a warning about running as
    root) is a log line too, and again when Celery would set them up."""
    logs.configure(config.ops.log_format, "worker")

    def _setup(loglevel: Any = None, **_: Any) -> None:
        level = logging.getLevelName(loglevel) if isinstance(loglevel, str) else loglevel
        logs.configure(config.ops.log_format, "worker", level or logging.INFO)

    signals.setup_logging.connect(_setup, weak=False)
    signals.task_prerun.connect(_bind_task, weak=False)
    signals.task_postrun.connect(_unbind_task, weak=False)


def _bind_task(task_id: str | None = None, task: Any = None, **_: Any) -> None:
    request = getattr(task, "request", None)
    request_id = request.get(logs.REQUEST_ID_HEADER) if request is not None else None
    fields: dict[str, Any] = {"task": getattr(task, "name", None), "task_id": task_id}
    if request_id:
        fields["request_id"] = request_id
    _bound[task_id] = logs.bind(**fields)


def _unbind_task(task_id: str | None = None, **_: Any) -> None:
    token = _bound.pop(task_id, None)
    if token is not None:
        # A token bound in another context (a thread pool's) leaves nothing here to undo.
        with contextlib.suppress(ValueError):
            logs.unbind(token)
