"""GET /metrics: Prometheus's text format for a bearer of PBEM_METRICS_TOKEN only; the counters of
moves and mail as they happen, the gauges the database holds."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from flask import Flask
from flask.testing import FlaskClient
from prometheus_client.parser import text_string_to_metric_families

from pbem.extensions import db
from tests.conftest import make_app
from tests.web.flow import start, turn_link

TOKEN = "metrics-token-0123456789abcdef"
SCRAPER = {"Authorization": f"Bearer {TOKEN}"}


@pytest.fixture
def watched(tmp_path: Path, countdown_engine: None) -> Iterator[Flask]:
    app = make_app(tmp_path, PBEM_METRICS_TOKEN=TOKEN)
    with app.app_context():
        db.create_all()
        yield app
        db.session.remove()
        db.engine.dispose()


def _figures(client: FlaskClient) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    response = client.get("/metrics", headers=SCRAPER)
    assert response.status_code == 200
    assert response.headers["Content-Type"].startswith("text/plain; version=0.0.4")
    assert response.headers["Cache-Control"] == "no-store"
    figures = {}
    for family in text_string_to_metric_families(response.get_data(as_text=True)):
        for sample in family.samples:
            figures[sample.name, tuple(sorted(sample.labels.items()))] = sample.value
    return figures


def _value(figures: dict, name: str, **labels: str) -> float:  # type: ignore[type-arg]
    return figures.get((name, tuple(sorted(labels.items()))), 0.0)


def test_no_token_set_means_no_metrics(client: FlaskClient) -> None:
    response = client.get("/metrics", headers=SCRAPER)
    assert response.status_code == 404
    assert response.headers["Content-Type"].startswith("text/html")


def test_only_the_bearer_of_the_token_reads_them(watched: Flask) -> None:
    client = watched.test_client()
    missing = client.get("/metrics")
    assert missing.status_code == 401
    assert missing.headers["WWW-Authenticate"] == 'Bearer realm="pbem metrics"'
    assert missing.get_json()["error"] == "no_token"
    for wrong in (f"Bearer {TOKEN}x", f"Basic {TOKEN}", "Bearer", TOKEN):
        refused = client.get("/metrics", headers={"Authorization": wrong})
        assert refused.status_code == 403, wrong
        assert refused.get_json()["error"] == "bad_token"
    assert TOKEN not in missing.get_data(as_text=True)


def test_moves_and_mail_are_counted_and_games_gauged(watched: Flask) -> None:
    client = watched.test_client()
    before = _figures(client)
    game = start(client)
    token = turn_link(game).split("/play/")[1]
    auth = {"Authorization": f"Bearer {token}"}
    moved = client.post(f"/api/games/{game.id}/moves", json={"move": "2", "ply": 0}, headers=auth)
    assert moved.status_code == 202
    stale = client.post(f"/api/games/{game.id}/moves", json={"move": "1", "ply": 0}, headers=auth)
    assert stale.status_code == 409
    after = _figures(client)

    def grew(name: str, **labels: str) -> float:
        return _value(after, name, **labels) - _value(before, name, **labels)

    assert grew("pbem_moves_submitted_total", engine="countdown") == 1
    assert grew("pbem_moves_applied_total", engine="countdown") == 1
    assert grew("pbem_moves_refused_total", engine="countdown", reason="stale_ply") == 1
    assert grew("pbem_move_apply_seconds_count", engine="countdown") == 1
    # The confirmation, the invitation, "started" to both and the turn emails.
    assert grew("pbem_emails_queued_total", kind="confirm") == 1
    assert grew("pbem_emails_sent_total", kind="invite") == 1
    assert grew("pbem_emails_sent_total", kind="turn") >= 2
    assert _value(after, "pbem_games", engine="countdown", state="running") == 1
    assert _value(after, "pbem_database_up") == 1
    assert _value(after, "pbem_emails_unsent") == 0
    assert _value(after, "pbem_oldest_unsent_email_seconds") == 0
    assert _value(after, "pbem_clock_last_run_seconds") == -1
    assert ("pbem_queue_depth", (("queue", "celery"),)) not in after  # no Redis, no queue
