"""What a load balancer, an orchestrator or a monitor asks: `GET /healthz` (this process
answers; it touches nothing else, so a database outage never gets the web processes restarted)
and `GET /readyz` (`pbem.ops.readiness`: ready to play, or what is wrong), both JSON, 200 or
503, never cached; and `GET /metrics` (Prometheus's text format: the web processes' counters and
the gauges read from the database, `pbem.ops.metrics`), only for `Authorization: Bearer
$PBEM_METRICS_TOKEN`."""

from __future__ import annotations

import hmac
from collections.abc import Mapping

from flask import Blueprint, Response, jsonify, request
from prometheus_client import CONTENT_TYPE_PLAIN_0_0_4, generate_latest
from werkzeug.exceptions import NotFound

from pbem.extensions import db, settings
from pbem.models import utcnow
from pbem.ops import metrics
from pbem.ops.gauges import ServiceGauges
from pbem.ops.readiness import readiness
from pbem.web.errors import refusal
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


# The scheme a scraper should use, as the API says it (RFC 6750).
METRICS_CHALLENGE = 'Bearer realm="pbem metrics"'


@bp.get("/metrics")
def metrics_page() -> Response:
    config = settings()
    token = config.ops.metrics_token
    if token is None:
        # As any address pbem does not serve: nothing says the figures exist.
        raise NotFound()
    given = request.headers.get("Authorization", "")
    if not given:
        return refusal(
            "no_token",
            "The figures need Authorization: Bearer and the token in PBEM_METRICS_TOKEN.",
            401,
            as_json=True,
            headers={"WWW-Authenticate": METRICS_CHALLENGE},
        )
    scheme, _, value = given.partition(" ")
    if scheme.lower() != "bearer" or not hmac.compare_digest(value.strip(), token):
        return refusal(
            "bad_token",
            "This is not the token in PBEM_METRICS_TOKEN: check the scraper's.",
            403,
            as_json=True,
        )
    registry = metrics.process_registry()
    registry.register(ServiceGauges(config, db.engine, utcnow()))
    response = Response(generate_latest(registry), mimetype=None)
    response.headers["Content-Type"] = CONTENT_TYPE_PLAIN_0_0_4
    response.cache_control.no_store = True
    return response
