"""The Celery app bound to a Flask app built from the environment (Flask's Celery pattern).

`celery -A workers.celery_app worker` and `celery -A workers.celery_app beat` load this module.
"""

from __future__ import annotations

from typing import Any

from celery import Celery
from celery.signals import worker_process_init

from pbem.app import create_app
from pbem.extensions import db
from workers import log_context
from workers.heartbeat import heartbeat_step
from workers.metrics_server import metrics_step

flask_app = create_app(role="worker")
celery: Celery = flask_app.extensions["celery"]
# pbem's logs, not Celery's own set-up: the same shape as the web's, masked (workers.log_context).
log_context.connect(flask_app.config["PBEM"])
# Beat keeps its schedule file in PBEM_VAR_DIR.
flask_app.config["PBEM"].var_dir.mkdir(parents=True, exist_ok=True)
# Every worker writes its heartbeat for /readyz (workers.heartbeat), and serves its host's
# counters on PBEM_METRICS_PORT when no other process of the host does (workers.metrics_server).
celery.steps["consumer"].add(heartbeat_step(flask_app))
celery.steps["worker"].add(metrics_step(flask_app))


@worker_process_init.connect
def _fresh_connections(**_: Any) -> None:
    # A forked pool process must not share the parent's database connections.
    with flask_app.app_context():
        for engine in db.engines.values():
            engine.dispose(close=False)
