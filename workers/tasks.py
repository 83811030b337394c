"""Celery tasks: ids in, never ORM objects; each one idempotent, so a redelivery is harmless."""

from __future__ import annotations

import logging

from celery import Task, shared_task
from sqlalchemy.exc import OperationalError

from pbem import dispatch, service
from pbem.extensions import db

log = logging.getLogger(__name__)


@shared_task(
    name="workers.tasks.apply_move",
    autoretry_for=(OperationalError,),
    retry_backoff=True,
    retry_backoff_max=60,
    max_retries=10,
)
def apply_move(submission_id: int) -> None:
    """Play a stored submission, then send the emails it wrote, here, after its commit.

    Sending in this task rather than queuing a `send_email` per row saves a publish, a task and an
    app context per move. The outbox protocol is the same one `send_email` follows (row locked with
    SKIP LOCKED, marked sent right after the server's 250); a row whose attempt fails, or that this
    task never reaches (worker lost), is left pending for `send_email` retries and the sweep.
    """
    outbox_ids = service.apply_move(submission_id)
    send_now(outbox_ids)


def send_now(outbox_ids: list[int]) -> None:
    """Send freshly written outbox rows from the current task; failures go to `send_email`."""
    for outbox_id in outbox_ids:
        try:
            delivery = service.send_outbox(outbox_id)
        except Exception:
            # The move is committed; an email that could not even be tried (database trouble)
            # is handed to its own task, and the sweep backs that up.
            db.session.rollback()
            log.warning("outbox %s: inline send failed; queued", outbox_id, exc_info=True)
            dispatch.send_emails_later([outbox_id])
            continue
        if delivery.status == "retry":
            dispatch.retry_email_later(outbox_id, delivery.retry_in)
        elif delivery.status == "failed":
            log.error("outbox %s: giving up after repeated failures", outbox_id)


@shared_task(name="workers.tasks.send_email", bind=True, max_retries=None)
def send_email(self: Task, outbox_id: int) -> None:
    """Send one outbox row; on failure retry with the backoff the service chose."""
    delivery = service.send_outbox(outbox_id)
    if delivery.status == "retry" and not self.request.is_eager:
        raise self.retry(countdown=delivery.retry_in)
    if delivery.status == "failed":
        log.error("outbox %s: giving up after repeated failures", outbox_id)


@shared_task(name="workers.tasks.sweep")
def sweep() -> None:
    """Re-enqueue submissions and emails the queue lost or has not run for a while."""
    found = service.sweep()
    for submission_id in found.submission_ids:
        dispatch.apply_move_later(submission_id)
    dispatch.send_emails_later(found.outbox_ids)
    if found.submission_ids or found.outbox_ids:
        log.info(
            "sweep: re-enqueued %d submissions, %d emails",
            len(found.submission_ids),
            len(found.outbox_ids),
        )
