"""What a load balancer, an orchestrator or a monitor asks: `GET /healthz` (this process
answers; it touches nothing else, so a database outage never gets the web processes restarted)
and `GET /readyz` (`pbem.ops.readiness`: ready to play, or what is wrong), both JSON, 200 or
503, never cached."""

from __future__ import annotations

from collections.abc import Mapping

from flask import Blueprint, Response, jsonify

from pbem.extensions import db, settings
from pbem.models import utcnow
from pbem.ops.readiness import readiness
from pbem.web.outages import RETRY_AFTER_SECONDS

bp = Blueprint("health", __name__)


@bp.get("/healthz")
def healthz() -> Response:
    return _answer({"status": "ok"}, 200)


@bp.get("/readyz")
def readyz() -> Response:
    checks = readiness(settings(), db.engine, utcnow())
    ready = all(check.ok for check in checks)
    body = {
        "status": "ready" if ready else "not ready",
        "problems": [f"{check.name}: {check.detail}" for check in checks if not check.ok],
        "checks": {check.name: {"ok": check.ok, "detail": check.detail} for check in checks},
    }
    response = _answer(body, 200 if ready else 503)
    if not ready:
        # As every 503 of the service says: a restart or a failover takes seconds.
        response.headers["Retry-After"] = str(RETRY_AFTER_SECONDS)
    return response


def _answer(body: Mapping[str, object], status: int) -> Response:
    response = jsonify(body)
    response.status_code = status
    response.cache_control.no_store = True
    return response
