"""The app factory: settings, extensions, blueprints and the Celery binding."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any

from celery import Celery, Task
from flask import Flask
from sqlalchemy import event
from sqlalchemy.engine import make_url

from pbem import logs
from pbem.config import SETTING_NAMES, Settings, embedded_secret, load_settings
from pbem.extensions import db, migrate
from pbem.ops import metrics
from pbem.pool import ping_when_idle
from pbem.queues import BOTS_QUEUE, PICTURES_QUEUE
from pbem.resources import migrations_dir, template_loader

MIGRATIONS = migrations_dir()


def create_app(overrides: Mapping[str, Any] | None = None, role: str | None = None) -> Flask:
    """Build the app.

    `overrides` takes the setting names of `pbem.config` (DATABASE_URL, REDIS_URL, …; None unsets
    one) on top of the environment, and any other key straight into Flask's config. `role`, for
    a long-running process of a deployment (the Procfile's `web`, or `worker` for every Celery
    process), shares its counters with the host's other processes of that role
    (`pbem.ops.metrics.setup`); a command's app counts alone.
    """
    overrides = dict(overrides or {})
    environ = dict(os.environ)
    for name in SETTING_NAMES:
        if name in overrides:
            value = overrides.pop(name)
            if value is None:
                environ.pop(name, None)
            else:
                environ[name] = str(value)
    settings = load_settings(environ)
    if settings.secret_key is None:
        settings = replace(settings, secret_key=embedded_secret(settings.var_dir))
    if role is not None:
        metrics.setup(settings, role)
    if role == "web":
        # A Celery process's logs are set up when Celery asks (workers.log_context).
        logs.configure(settings.ops.log_format, role)

    app = Flask("pbem", template_folder=None, static_folder=None)
    # The one template lookup, shared with the mail a worker renders (pbem.domain.outbox).
    app.jinja_loader = template_loader()
    app.config.update(
        PBEM=settings,
        SECRET_KEY=settings.secret_key,
        SQLALCHEMY_DATABASE_URI=settings.database_url,
        SQLALCHEMY_ENGINE_OPTIONS=_engine_options(settings),
        TESTING=settings.env == "test",
        CELERY=celery_config(settings),
        MAX_CONTENT_LENGTH=64 * 1024,  # a move or a form is far smaller (pbem.web.limits)
    )
    app.config.update(overrides)
    if settings.is_sqlite:
        _make_sqlite_folder(settings.database_url)

    import pbem.models  # noqa: F401  (the tables must be known before migrations compare them)

    db.init_app(app)
    with app.app_context():
        if settings.is_sqlite:
            event.listen(db.engine, "connect", _sqlite_pragmas)
        else:
            ping_when_idle(db.engine)
    migrate.init_app(app, db, directory=str(MIGRATIONS))
    celery_init_app(app)

    from pbem import web

    web.init_app(app)
    return app


def celery_config(settings: Settings) -> dict[str, Any]:
    from pbem.domain.digest import PERIOD_SECONDS as DIGEST_PERIOD_SECONDS

    return {
        # Without Redis every task runs in-process when it is enqueued, which the service does
        # only after committing the rows the task reads.
        "broker_url": settings.redis_url or "memory://localhost/",
        # The Redis transport without its per-command client construction (pbem.redis_transport).
        **({"broker_transport": "pbem.redis_transport:Transport"} if settings.redis_url else {}),
        "task_always_eager": settings.embedded_tasks,
        "task_eager_propagates": settings.env == "test",
        "task_ignore_result": True,
        # Board pictures are drawn on a queue of their own, by a worker of their own (the
        # Procfile's `picture`, `-Q pictures`): a drawing never delays a move or its email.
        "task_routes": {
            "workers.tasks.render_pictures": {"queue": PICTURES_QUEUE},
            "workers.tasks.play_bot": {"queue": BOTS_QUEUE},
        },
        # A task is acknowledged only when done, and redelivered if its worker dies: every task is
        # idempotent, so running one twice is harmless while losing one is not.
        "task_acks_late": True,
        "task_reject_on_worker_lost": True,
        # Enough messages in hand for apply_move to gather a batch (workers.tasks.BATCH_SIZE);
        # with late acknowledgement a worker holds at most this many per pool process.
        "worker_prefetch_multiplier": 32,
        "broker_connection_retry_on_startup": True,
        # Fail fast when Redis is down: the submission is already stored and the sweep will enqueue
        # it again, so the player should not wait on retries.
        "task_publish_retry_policy": {
            "max_retries": 1,
            "interval_start": 0,
            "interval_step": 0.2,
            "interval_max": 0.2,
        },
        "broker_transport_options": {"socket_connect_timeout": 2, "visibility_timeout": 3600},
        "beat_schedule": {
            "sweep": {"task": "workers.tasks.sweep", "schedule": float(settings.sweep_seconds)},
            "clock": {
                "task": "workers.tasks.clock",
                "schedule": float(settings.clocks.period_seconds),
                # A run that waited in the queue past the next one is not worth running.
                "options": {"expires": float(settings.clocks.period_seconds)},
            },
            "digest": {
                "task": "workers.tasks.digest",
                "schedule": float(DIGEST_PERIOD_SECONDS),
                "options": {"expires": float(DIGEST_PERIOD_SECONDS)},
            },
        },
        "beat_schedule_filename": str(settings.var_dir / "celerybeat-schedule"),
        "timezone": "UTC",
    }


def celery_init_app(app: Flask) -> Celery:
    """Flask's Celery pattern: every task runs inside this app's context."""

    class FlaskTask(Task):  # type: ignore[misc]
        def __call__(self, *args: object, **kwargs: object) -> object:
            with app.app_context():
                return self.run(*args, **kwargs)

    celery_app = Celery(app.name, task_cls=FlaskTask)
    # For task classes that cannot derive from FlaskTask (workers.tasks.AppContextBatches).
    celery_app.flask_app = app
    celery_app.config_from_object(app.config["CELERY"])
    celery_app.set_default()
    app.extensions["celery"] = celery_app
    # Registers the shared tasks with this Celery app.
    import workers.tasks  # noqa: F401

    return celery_app


def _engine_options(settings: Settings) -> dict[str, Any]:
    if settings.is_sqlite:
        # Writers wait for each other instead of failing at once with "database is locked".
        return {"connect_args": {"timeout": 30}}
    # A connection kept for each thread of a gunicorn process (WEB_THREADS) and then some: past
    # the pool size, SQLAlchemy opens a connection per checkout and closes it after, and a new
    # PostgreSQL connection is a new server process. Connections are checked when they have been
    # idle a while (pbem.pool), not with a round trip at every checkout (pool_pre_ping).
    return {"pool_size": 16, "max_overflow": 16}


def _sqlite_pragmas(connection: Any, _record: Any) -> None:
    # WAL lets pages read while a task writes, and commits without a disk flush each time: the
    # embedded database is one person's playground, not the production store.
    cursor = connection.cursor()
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute("PRAGMA synchronous=NORMAL")
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.close()


def _make_sqlite_folder(url: str) -> None:
    database = make_url(url).database
    if database and database != ":memory:":
        Path(database).parent.mkdir(parents=True, exist_ok=True)
