"""Celery tasks: ids in, never ORM objects; each one idempotent, so a redelivery is harmless."""

from __future__ import annotations

import logging

from celery import Task, shared_task
from sqlalchemy.exc import OperationalError

from pbem import dispatch, service

log = logging.getLogger(__name__)


@shared_task(
    name="workers.tasks.apply_move",
    autoretry_for=(OperationalError,),
    retry_backoff=True,
    retry_backoff_max=60,
    max_retries=10,
)
def apply_move(submission_id: int) -> None:
    """Play a stored submission, then queue the emails it wrote."""
    outbox_ids = service.apply_move(submission_id)
    dispatch.send_emails_later(outbox_ids)


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
