"""Hand work to the task queue, after the commit that made it.

With Redis the tasks go to a worker; without it (embedded) Celery runs them right here, in-process.
Enqueueing may fail (Redis down): the rows are already committed, so we log it, tell the caller,
and let the periodic sweep enqueue them again.
"""

from __future__ import annotations

import logging
import queue
import threading
from collections.abc import Iterable
from typing import Any

from celery import Celery, signals
from flask import current_app

from pbem import logs

log = logging.getLogger(__name__)


def _carry_request_id(headers: dict[str, Any] | None = None, **_: Any) -> None:
    """The request id a task is queued under goes with it, for its logs (`pbem.logs`)."""
    request_id = logs.current("request_id")
    if headers is not None and request_id and logs.REQUEST_ID_HEADER not in headers:
        headers[logs.REQUEST_ID_HEADER] = request_id


signals.before_task_publish.connect(_carry_request_id, weak=False)


def _celery() -> Celery:
    celery: Celery = current_app.extensions["celery"]
    return celery


def apply_move_later(submission_id: int) -> bool:
    """Queue `apply_move`; False when the queue could not take it (the sweep will)."""
    return _enqueue("workers.tasks.apply_move", [submission_id])


def send_emails_later(outbox_ids: Iterable[int]) -> bool:
    """Queue one `send_emails` message per outbox row; False if any could not be queued.

    A worker gathers these messages and sends their rows over one connection, like apply_move.
    """
    return all([_enqueue("workers.tasks.send_emails", [outbox_id]) for outbox_id in outbox_ids])


def render_pictures_later(outbox_ids: Iterable[int]) -> bool:
    """Queue one `render_pictures` message naming the outbox rows waiting for their board
    pictures, on the `pictures` queue (its own worker: rendering never runs on the path of a
    move); False if it could not be queued (the sweep sends such rows, without the picture, when
    their wait is over). In-process (embedded) the pictures are drawn right here, after the
    commit."""
    ids = list(dict.fromkeys(outbox_ids))
    return not ids or _enqueue("workers.tasks.render_pictures", ids)


def send_when_due_later(outbox_ids: Iterable[int], countdown: int) -> bool:
    """Queue one `send_due_emails` for rows waiting for their board pictures, for when their
    wait is over (`countdown` seconds), so that a starved picture worker delays them by no more
    than that; rows sent meanwhile with their pictures are skipped then. In-process (embedded)
    the sweep sends them when they are due."""
    ids = list(dict.fromkeys(outbox_ids))
    if not ids or _celery().conf.task_always_eager:
        return True
    return _enqueue("workers.tasks.send_due_emails", ids, countdown=countdown)


# The app extension under which `pbem serve` keeps its bot thread's queue (embedded default).
BOT_RUNNER = "pbem-bot-runner"
_inline = threading.local()


def play_bots_later(game_ids: Iterable[str]) -> bool:
    """Queue `play_bot` for each game (a bot may have something to do in it), on the `bots`
    queue: thinking takes seconds, and a worker of its own (the Procfile's `bot`) keeps it off
    the path of every other move. False if any could not be queued (the sweep finds the game).

    In-process (embedded), `pbem serve`'s bot thread plays them; without it (tests, commands)
    they are played here, one after another: a bot whose move hands the turn to another bot
    queues it, and the loop below plays it next, so bot turns never nest.
    """
    ids = list(dict.fromkeys(game_ids))
    if not ids:
        return True
    if not _celery().conf.task_always_eager:
        return all([_enqueue("workers.tasks.play_bot", [game_id]) for game_id in ids])
    runner: queue.Queue[str] | None = current_app.extensions.get(BOT_RUNNER)
    if runner is not None:
        for game_id in ids:
            runner.put(game_id)
        return True
    pending: list[str] | None = getattr(_inline, "pending", None)
    if pending is not None:
        pending.extend(ids)
        return True
    _inline.pending = pending = ids
    try:
        while pending:
            _enqueue("workers.tasks.play_bot", [pending.pop(0)])
    finally:
        _inline.pending = None
    return True


def retry_email_later(outbox_id: int, countdown: int | None) -> bool:
    """Queue `send_email` for a row whose inline attempt failed, after the backoff delay.

    In-process (embedded) the task would run at once, ignoring the delay, and spend another
    attempt: there the sweep picks the row up when it is due instead.
    """
    if _celery().conf.task_always_eager:
        return True
    return _enqueue("workers.tasks.send_email", [outbox_id], countdown=countdown)


def _enqueue(task_name: str, args: list[int] | list[str], countdown: int | None = None) -> bool:
    celery = _celery()
    try:
        # The reprs Celery would otherwise compute with saferepr: a tenth of a publish. No
        # queue declaration either (Celery asks for one with every message: an eighth of a
        # publish even when kombu remembers it was done): a Redis list needs none, and the
        # workers declare the queues they consume.
        celery.tasks[task_name].apply_async(
            args, countdown=countdown, argsrepr=repr(args), kwargsrepr="{}", declare=[]
        )
    except Exception:
        # In-process (eager) runs raise the task's own errors here; tests want to see them.
        if celery.conf.task_always_eager and celery.conf.task_eager_propagates:
            raise
        # Either way a committed row is left behind that the sweep will find; the request that
        # made it must still succeed.
        log.warning(
            "could not enqueue %s%s; the sweep will retry", task_name, tuple(args), exc_info=True
        )
        return False
    return True
