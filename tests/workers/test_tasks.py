"""The Celery side: the binding, the reliability settings, and the tasks' retry behaviour."""

from __future__ import annotations

from datetime import timedelta
from types import SimpleNamespace

import pytest
from celery import Celery
from celery.exceptions import Retry
from flask import Flask

from pbem.domain import delivery, moves, starting
from pbem.domain.delivery import Delivery
from pbem.extensions import db, settings
from pbem.models import Game
from workers import tasks


def test_celery_is_bound_to_the_app_and_knows_the_tasks(app: Flask) -> None:
    celery: Celery = app.extensions["celery"]
    names = {"apply_move", "send_emails", "send_email", "sweep"}
    assert {f"workers.tasks.{name}" for name in names} <= set(celery.tasks)
    conf = celery.conf
    assert conf.task_acks_late and conf.task_reject_on_worker_lost
    # apply_move gathers batches from the messages a worker holds: it must be able to hold some.
    assert conf.worker_prefetch_multiplier >= tasks.BATCH_SIZE // 2
    assert conf.task_always_eager  # no REDIS_URL: in-process
    assert conf.beat_schedule["sweep"]["task"] == "workers.tasks.sweep"


def test_with_redis_tasks_go_to_the_broker(tmp_path) -> None:
    from tests.conftest import make_app

    app = make_app(tmp_path, REDIS_URL="redis://127.0.0.1:1/0")
    conf = app.extensions["celery"].conf
    assert not conf.task_always_eager
    assert conf.broker_url == "redis://127.0.0.1:1/0"


def batch(*submission_ids: int) -> list[SimpleNamespace]:
    """What celery-batches hands apply_move: one request per message, its args as sent."""
    return [SimpleNamespace(args=[i], kwargs={}) for i in submission_ids]


def test_a_task_runs_inside_the_app_context(app: Flask, monkeypatch: pytest.MonkeyPatch) -> None:
    seen = []
    monkeypatch.setattr(
        moves, "apply_submissions", lambda config, ids: seen.append(list(ids)) or moves.Applied()
    )
    app.extensions["celery"].tasks["workers.tasks.apply_move"].delay(5)
    assert seen == [[5]]  # in-process, each message is a batch of its own


def test_apply_move_plays_a_batch_in_one_call(app: Flask, monkeypatch: pytest.MonkeyPatch) -> None:
    seen = []
    monkeypatch.setattr(
        moves, "apply_submissions", lambda config, ids: seen.append(list(ids)) or moves.Applied()
    )
    tasks.apply_move.run(batch(5, 9, 7))
    assert seen == [[5, 9, 7]]


def test_a_batch_the_database_refuses_is_retried_then_left_to_the_sweep(
    app: Flask, monkeypatch: pytest.MonkeyPatch
) -> None:
    from sqlalchemy.exc import OperationalError

    calls = []

    def down(config: object, ids: list[int]) -> moves.Applied:
        calls.append(ids)
        raise OperationalError("select", {}, Exception("server closed the connection"))

    monkeypatch.setattr(moves, "apply_submissions", down)
    monkeypatch.setattr(tasks, "DB_RETRY_SECONDS", 0.0)
    tasks.apply_move.run(batch(5))  # no exception: the messages are done, the rows stay pending
    assert len(calls) == tasks.DB_ATTEMPTS


def test_send_email_retries_with_the_services_backoff(
    app: Flask, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(delivery, "send_outbox", lambda config, i: Delivery("retry", 40))
    calls = []

    def fake_retry(countdown: int) -> Retry:
        calls.append(countdown)
        return Retry()

    monkeypatch.setattr(tasks.send_email, "retry", fake_retry)
    with pytest.raises(Retry):
        tasks.send_email.run(3)
    assert calls == [40]


def test_apply_move_sends_its_emails_itself(app: Flask, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(moves, "apply_submissions", lambda config, ids: moves.Applied([7, 8]))
    sent = []
    monkeypatch.setattr(
        delivery,
        "send_outboxes",
        lambda config, ids: {i: sent.append(i) or Delivery("sent") for i in ids},
    )
    queued = []
    monkeypatch.setattr(tasks.send_email, "apply_async", lambda *a, **k: queued.append((a, k)))
    tasks.apply_move.run(batch(5))
    assert sent == [7, 8]
    assert queued == []  # no second task per email


def test_a_failed_inline_send_is_left_to_send_email_with_the_backoff(
    app: Flask, monkeypatch: pytest.MonkeyPatch
) -> None:
    app.extensions["celery"].conf.task_always_eager = False
    monkeypatch.setattr(moves, "apply_submissions", lambda config, ids: moves.Applied([7, 8]))
    results = {7: Delivery("retry", 40), 8: Delivery("sent")}
    monkeypatch.setattr(delivery, "send_outboxes", lambda config, ids: {i: results[i] for i in ids})
    queued = []
    monkeypatch.setattr(tasks.send_email, "apply_async", lambda *a, **k: queued.append((a, k)))
    tasks.apply_move.run(batch(5))
    assert [(args, kwargs["countdown"]) for args, kwargs in queued] == [(([7],), 40)]


def test_an_inline_send_that_cannot_start_is_queued(
    app: Flask, monkeypatch: pytest.MonkeyPatch
) -> None:
    app.extensions["celery"].conf.task_always_eager = False

    def broken(config: object, outbox_ids: list[int]) -> dict[int, Delivery]:
        raise RuntimeError("database went away")

    monkeypatch.setattr(moves, "apply_submissions", lambda config, ids: moves.Applied([7]))
    monkeypatch.setattr(delivery, "send_outboxes", broken)
    queued = []
    monkeypatch.setattr(tasks.send_emails, "apply_async", lambda *a, **k: queued.append((a, k)))
    tasks.apply_move.run(batch(5))
    assert [(args, kwargs["countdown"]) for args, kwargs in queued] == [(([7],), None)]


def test_send_emails_sends_a_batch_over_one_connection(
    app: Flask, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls = []
    monkeypatch.setattr(
        delivery,
        "send_outboxes",
        lambda config, ids: calls.append(list(ids)) or {i: Delivery("sent") for i in ids},
    )
    tasks.send_emails.run(batch(9, 4, 9))
    assert calls == [[4, 9]]  # a row queued twice is sent once


def test_one_submission_that_breaks_a_batch_does_not_hold_back_the_others(
    app: Flask, monkeypatch: pytest.MonkeyPatch
) -> None:
    applied = []

    def apply_submissions(config: object, ids: list[int]) -> moves.Applied:
        if 7 in ids:
            raise RuntimeError("a bug in a mail template")
        applied.extend(ids)
        return moves.Applied()

    monkeypatch.setattr(moves, "apply_submissions", apply_submissions)
    tasks.apply_move.run(batch(5, 7, 9))
    assert applied == [5, 9]


def test_the_sweep_deletes_games_nobody_confirmed_within_a_week(app: Flask) -> None:
    emails = ["alice@example.org", "bob@example.org"]
    old = starting.create_game(settings(), "countdown", {}, emails, started_by=starting.BY_STRANGER)
    new = starting.create_game(settings(), "countdown", {}, emails, started_by=starting.BY_STRANGER)
    game = db.session.get(Game, old.game_id)
    assert game is not None
    game.created_at -= timedelta(days=8)
    db.session.commit()
    tasks.sweep()
    db.session.expire_all()
    assert db.session.get(Game, old.game_id) is None
    assert db.session.get(Game, new.game_id) is not None


def test_rows_waiting_for_their_picture_go_to_the_picture_queue(
    app: Flask, monkeypatch: pytest.MonkeyPatch
) -> None:
    """And to the default queue for the end of their wait, when they go with or without it."""
    app.extensions["celery"].conf.task_always_eager = False
    monkeypatch.setattr(moves, "apply_submissions", lambda config, ids: moves.Applied([7, 8]))
    results = {7: Delivery("waiting", retry_in=5), 8: Delivery("sent")}
    monkeypatch.setattr(delivery, "send_outboxes", lambda config, ids: {i: results[i] for i in ids})
    published: list[tuple[object, ...]] = []

    def publish(self: object, *args: object, **kwargs: object) -> None:
        published.append((kwargs.get("routing_key"), kwargs.get("exchange"), args))

    from kombu import Producer

    monkeypatch.setattr(Producer, "publish", publish)
    tasks.apply_move.run(batch(5))
    assert [routing_key for routing_key, _, _ in published] == ["pictures", "celery"]
    assert [args[0][0][0] for _, _, args in published] == [7, 7]


def test_the_picture_task_never_queues_itself_again(
    app: Flask, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Rows still waiting after it ran (their picture could not be stored) are the sweep's: in
    process, queuing them again would call the task from itself without end."""
    monkeypatch.setattr(
        delivery, "send_outboxes", lambda config, ids: {i: Delivery("waiting") for i in ids}
    )
    queued = []
    monkeypatch.setattr(tasks.render_pictures, "apply_async", lambda *a, **k: queued.append(a))
    tasks.render_pictures.run(batch(3, 4))
    assert queued == []


def _consumer(timer: object) -> SimpleNamespace:
    """What a batch task's strategy reads of Celery's consumer."""
    from celery.concurrency.solo import TaskPool

    return SimpleNamespace(
        pool=TaskPool(),
        hostname="w1@pbem-test",
        connection_errors=(),
        event_dispatcher=None,
        timer=timer,
    )


def test_a_batch_arms_its_flush_timer_again_after_the_broker_comes_back(app: Flask) -> None:
    """Celery clears the worker's timer when the broker's connection drops and asks each task
    for its strategy again once it is back: the batch's flush entry must be made anew then, or
    its messages wait unacknowledged for ever (what the chaos soak found after a Redis restart)."""
    from kombu.asynchronous.timer import Timer

    task = tasks.apply_move
    before = Timer()
    task.Strategy(task, task.app, _consumer(before))
    task._tref = before.call_repeatedly(60, lambda: None)
    before.clear()  # the connection dropped
    after = Timer()
    task.Strategy(task, task.app, _consumer(after))
    assert task._tref is None  # the next message arms a timer on the live one


def test_the_heartbeat_beats_again_after_the_broker_comes_back(app: Flask) -> None:
    """A consumer step: restarted with the connection, its repeating entry made again."""
    from kombu.asynchronous.timer import Timer

    from workers.celery_app import celery
    from workers.heartbeat import heartbeat_step

    steps = [step for step in celery.steps["consumer"] if step.__name__ == "Heartbeat"]
    assert len(steps) == 1
    consumer = _consumer(Timer())
    consumer.app = celery
    consumer.controller = SimpleNamespace(concurrency=1)
    step = heartbeat_step(app)(consumer)
    step.start(consumer)
    assert len(consumer.timer.queue) == 1
    consumer.timer.clear()  # the connection dropped
    step.stop(consumer)
    step.start(consumer)  # it came back
    assert len(consumer.timer.queue) == 1
