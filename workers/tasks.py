"""Celery tasks: ids in, never ORM objects; each one idempotent, so a redelivery is harmless."""

from __future__ import annotations

import logging
import time
from typing import Any

from celery import Task, shared_task
from celery_batches import Batches, SimpleRequest
from flask import current_app
from sqlalchemy.exc import OperationalError, SQLAlchemyError

from pbem import dispatch, logs
from pbem.domain import board_pictures, bot_turns, clock_task, delivery, digest, moves
from pbem.domain import sweep as sweeping
from pbem.extensions import db, settings

log = logging.getLogger(__name__)


# A worker gathers the apply_move messages it has received for up to this long, or this many, and
# plays them as one batch: one transaction, a handful of statements and one commit for all.
BATCH_SECONDS = 0.05
BATCH_SIZE = 64
# A batch whose transaction fails on the database is tried again this many times, this long apart;
# after that its submissions stay pending and the sweep enqueues them again.
DB_ATTEMPTS = 3
DB_RETRY_SECONDS = 1.0


class AppContextBatches(Batches):  # type: ignore[misc]
    """celery-batches' task class, run inside the Flask app's context like every other task."""

    flush_every = BATCH_SIZE
    flush_interval = BATCH_SECONDS

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        with self.app.flask_app.app_context():
            return self.run(*args, **kwargs)

    def Strategy(self, task: Any, app: Any, consumer: Any) -> Any:
        # Celery asks again after every reconnection to the broker, having cleared the timer
        # that the flush entry was on: arm a new one with the next message, or the batch would
        # wait for `flush_every` messages that the prefetch limit never lets in
        # (clokep/celery-batches#99, fixed after 0.11).
        armed: Any = getattr(self, "_tref", None)
        if armed is not None:
            armed.cancel()
        self._tref = None
        return super().Strategy(task, app, consumer)


@shared_task(name="workers.tasks.apply_move", base=AppContextBatches)
def apply_move(requests: list[SimpleRequest]) -> None:
    """Play stored submissions (one `apply_move(submission_id)` message each), then send the emails
    they wrote, here, after their commit.

    Messages are acknowledged once the batch returns (acks_late), so a worker lost halfway leaves
    them to be redelivered; the sweep re-enqueues whatever is still pending anyway. Sending in this
    task rather than queuing a `send_email` per row saves a publish and a task per email. The
    outbox protocol is the one `send_email` follows (row locked with SKIP LOCKED, marked sent right
    after the server's 250); a row whose attempt fails, or that this task never reaches, is left
    pending for `send_email` retries and the sweep.
    """
    submission_ids = [int(request.args[0]) for request in requests]
    request_ids = {
        int(request.args[0]): (getattr(request, "request_dict", None) or {}).get(
            logs.REQUEST_ID_HEADER
        )
        for request in requests
    }
    for attempt in range(1, DB_ATTEMPTS + 1):
        try:
            applied = _apply(submission_ids)
            break
        except OperationalError:
            db.session.rollback()
            if attempt == DB_ATTEMPTS:
                log.warning(
                    "could not apply submissions %s; the sweep will retry",
                    submission_ids,
                    exc_info=True,
                )
                return
            time.sleep(DB_RETRY_SECONDS * attempt)
    for decided in applied.decided:
        # One line a move, about its game, seat and submission, under the request that sent it.
        request_id = request_ids.get(decided.submission_id)
        with logs.bound(
            game_id=decided.game_id,
            seat=decided.seat,
            submission_id=decided.submission_id,
            **({"request_id": request_id} if request_id else {}),
        ):
            log.info("move for ply %d: %s", decided.ply, decided.result)
    dispatch.play_bots_later(applied.bot_games)
    send_now(applied.outbox_ids)


def _apply(submission_ids: list[int]) -> moves.Applied:
    """Apply a batch; if it fails for any reason but the database's, apply its submissions one
    by one, so that one submission our code cannot handle does not hold back the others."""
    try:
        return moves.apply_submissions(settings(), submission_ids)
    except OperationalError:
        raise
    except Exception:
        db.session.rollback()
        if len(submission_ids) == 1:
            # Left pending: once the bug is fixed, the sweep applies it.
            log.exception("submission %s could not be applied", submission_ids[0])
            return moves.Applied()
        log.exception("a batch of %d failed; applying it one by one", len(submission_ids))
        return sum((_apply([one]) for one in submission_ids), start=moves.Applied())


def send_now(outbox_ids: list[int], requeue: bool = True, render: bool = True) -> None:
    """Send outbox rows from the current task; a row whose attempt fails goes to `send_email`,
    rows waiting for their board pictures to `render_pictures` and to a `send_due_emails` due
    when their wait is over (unless `render` is False: the picture task itself, whose rows were
    seen waiting before and have that `send_due_emails` already).

    Every failure of a row is recorded on it (delivery.send_outboxes), so only the database can
    stop the batch. Then the rows not tried are queued once more if `requeue` (apply_move: its
    moves are committed, their emails should not wait for the sweep), else left to the sweep:
    a send_emails task queuing its own rows again while the database is down would go round in
    a loop, and in-process (embedded) it would call itself until the stack overflows.
    """
    try:
        deliveries = delivery.send_outboxes(settings(), outbox_ids)
    except Exception as exc:
        db.session.rollback()
        problem = " ".join(f"{type(exc).__name__}: {exc}".split())[:200]
        if requeue and not current_app.extensions["celery"].conf.task_always_eager:
            log.warning("outbox %s: not sent (%s); queued again", _ids(outbox_ids), problem)
            dispatch.send_emails_later(outbox_ids)
        else:
            log.warning("outbox %s: not sent (%s); left to the sweep", _ids(outbox_ids), problem)
        return
    waiting = {i: sent for i, sent in deliveries.items() if sent.status == "waiting"}
    if waiting and render:
        # One message for the pictures and one for each end of a wait, however many rows: a
        # message costs the queue and both workers more than a row costs the database.
        dispatch.render_pictures_later(waiting)
        due: dict[int, list[int]] = {}
        for outbox_id, sent in waiting.items():
            due.setdefault(sent.retry_in or 0, []).append(outbox_id)
        for countdown, ids in due.items():
            dispatch.send_when_due_later(ids, countdown)
    for outbox_id, sent in deliveries.items():
        if sent.status == "retry":
            log.warning(
                "outbox %s: not sent; retrying in %ss: %s", outbox_id, sent.retry_in, sent.error
            )
            dispatch.retry_email_later(outbox_id, sent.retry_in)
        elif sent.status == "failed":
            log.warning("outbox %s: not sent, given up: %s", outbox_id, sent.error)


def _ids(outbox_ids: list[int]) -> str:
    """A batch's ids for one log line, however big the batch."""
    shown = ", ".join(map(str, outbox_ids[:5]))
    return f"{shown} … ({len(outbox_ids)} in all)" if len(outbox_ids) > 5 else shown


@shared_task(name="workers.tasks.send_emails", base=AppContextBatches)
def send_emails(requests: list[SimpleRequest]) -> None:
    """Send outbox rows (one `send_emails(outbox_id)` message each): invitations, the emails of a
    game's start, new links, and what the sweep finds. A row whose attempt fails is retried by
    `send_email`, whose delayed messages are kept apart from these batches (a batch task holds
    messages with a countdown until they are due, which would fill the worker's prefetch while
    SMTP is down)."""
    send_now(sorted({int(request.args[0]) for request in requests}), requeue=False)


@shared_task(name="workers.tasks.send_email", bind=True, max_retries=None)
def send_email(self: Task, outbox_id: int) -> None:
    """Send one outbox row; on failure retry with the backoff the service chose (retries, and
    messages from clients that queue single rows)."""
    try:
        outcome = delivery.send_outbox(settings(), outbox_id)
    except OperationalError as exc:
        db.session.rollback()
        problem = " ".join(str(exc).split())[:200]
        log.warning("outbox %s: not sent (%s); left to the sweep", outbox_id, problem)
        return
    if outcome.status == "waiting":
        dispatch.render_pictures_later([outbox_id])
        dispatch.send_when_due_later([outbox_id], outcome.retry_in or 0)
    if outcome.status == "retry" and not self.request.is_eager:
        # Celery logs the retry, one line; the reason is on the row (last_error).
        raise self.retry(countdown=outcome.retry_in)
    if outcome.status == "failed":
        log.warning("outbox %s: not sent, given up: %s", outbox_id, outcome.error)


@shared_task(name="workers.tasks.send_due_emails")
def send_due_emails(*outbox_ids: int) -> None:
    """Send rows whose wait for their board pictures is over, with their pictures or without
    (a message with a countdown, kept apart from the batches for the reason `send_emails`
    gives); rows already sent are skipped."""
    send_now(sorted({int(i) for i in outbox_ids}), requeue=False, render=False)


@shared_task(name="workers.tasks.render_pictures", base=AppContextBatches)
def render_pictures(requests: list[SimpleRequest]) -> None:
    """Draw the board pictures outbox rows wait for (`render_pictures(*outbox_ids)` messages,
    one per batch of rows written together), then send the rows: each picture drawn once, the
    batch's stored in `pictures` together, then its rows sent. Runs on the `pictures` queue,
    consumed by a worker of its own (the Procfile's `picture`), so no move waits behind a
    drawing. A row whose picture cannot be drawn goes without it; one whose wait is over, or
    that another task sent meanwhile, is sent as it is or skipped (delivery.send_outboxes
    decides)."""
    outbox_ids = sorted({int(i) for request in requests for i in request.args})
    try:
        wanted = board_pictures.waiting(outbox_ids)
    except SQLAlchemyError as exc:
        db.session.rollback()
        problem = " ".join(str(exc).split())[:200]
        log.warning(
            "pictures for outbox %s: not drawn (%s); left to the sweep", _ids(outbox_ids), problem
        )
        return
    drawn: list[board_pictures.Rendered] = []
    if wanted:
        try:
            drawn = board_pictures.render_all(list(wanted))
        except SQLAlchemyError as exc:
            db.session.rollback()
            problem = " ".join(str(exc).split())[:200]
            log.warning(
                "pictures %s: not stored (%s); their emails wait for the sweep",
                ", ".join(list(wanted)[:5]),
                problem,
            )
            return
    # Rows whose picture is there now, was there already or failed, or whose wait is over.
    send_now(outbox_ids, requeue=False, render=False)
    if wanted:
        # Their emails have gone: the pictures no other pending email names go now (every
        # second or so), not at the next sweep, so the table holds seconds of pictures.
        try:
            board_pictures.prune_soon()
        except SQLAlchemyError as exc:
            db.session.rollback()
            problem = " ".join(str(exc).split())[:200]
            log.warning("pictures: not pruned (%s); left to the sweep", problem)
    if drawn:
        log.info(
            "pictures: drew %d (%d failed) in %.0f ms of CPU for %d emails",
            len(drawn),
            sum(not one.ok for one in drawn),
            1000 * sum(one.seconds for one in drawn),
            len(outbox_ids),
        )


@shared_task(name="workers.tasks.play_bot")
def play_bot(game_id: str) -> None:
    """What the bots of a game have to do now (`pbem.domain.bot_turns.act`): answer a draw
    offer, or think within PBEM_BOT_SECONDS and store a move, then queue `apply_move` for it.
    Runs on the `bots` queue, consumed by a worker of its own (the Procfile's `bot`), so no
    person's move waits behind a bot's thinking. A redelivered or repeated task finds the move
    stored, or the turn passed, and does nothing."""
    acted = bot_turns.act(settings(), str(game_id))
    if acted.outbox_ids:
        dispatch.send_emails_later(acted.outbox_ids)
    if acted.submission_id is not None:
        dispatch.apply_move_later(acted.submission_id)
    log.info("bot in game %s: %s", game_id, acted.what)


@shared_task(name="workers.tasks.sweep")
def sweep() -> None:
    """Re-enqueue submissions and emails the queue lost or has not run for a while, and delete
    the games their organisers never confirmed, the pictures no email needs any more and the
    bodies of emails delivered longer ago than PBEM_MAIL_KEEP_DAYS."""
    expired = sweeping.expire_unconfirmed()
    if expired:
        log.info("sweep: deleted %d games nobody confirmed", expired)
    pruned = board_pictures.prune()
    if pruned:
        log.info("sweep: deleted %d board pictures no email needs", pruned)
    emptied = sweeping.prune_bodies(settings())
    if emptied:
        log.info("sweep: emptied the bodies of %d emails delivered long ago", emptied)
    found = sweeping.sweep(settings())
    for submission_id in found.submission_ids:
        dispatch.apply_move_later(submission_id)
    dispatch.send_emails_later(found.outbox_ids)
    dispatch.play_bots_later(found.bot_games)
    if found.submission_ids or found.outbox_ids or found.bot_games:
        log.info(
            "sweep: re-enqueued %d submissions, %d emails, %d bot turns",
            len(found.submission_ids),
            len(found.outbox_ids),
            len(found.bot_games),
        )


@shared_task(name="workers.tasks.clock")
def clock() -> None:
    """The clock task (`pbem.domain.clock_task`): downtime, vacations, reminders, timeouts and
    invitations, as of now; then send the mail it wrote."""
    report = clock_task.run_clock(settings())
    if report.outbox_ids:
        dispatch.send_emails_later(report.outbox_ids)
    if report.timed_out:
        dispatch.play_bots_later(bot_turns.with_bots(report.timed_out))
    if report.timeouts or report.reminders or report.downtime_seconds or report.cancelled:
        log.info("clock: %s", report.summary())


@shared_task(name="workers.tasks.digest")
def send_digests() -> None:
    """The daily digests due now (`pbem.domain.digest`): one email a day to each player who chose
    it, at their hour; then send them."""
    report = digest.run_digest(settings())
    if report.outbox_ids:
        dispatch.send_emails_later(report.outbox_ids)
    if report.due:
        log.info("digest: %s", report.summary())
