"""The monitoring pages of docs/monitoring: the Prometheus alert rules pass promtool's check and
their own unit tests (tests/monitoring/alerts_test.yml), and the rules and the Grafana dashboard
read only figures pbem's /metrics gives."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import redis
from prometheus_client.parser import text_string_to_metric_families

from pbem.extensions import db
from tests.conftest import make_app
from tests.support.needs import missing

REPO = Path(__file__).resolve().parents[1]
ALERTS = REPO / "docs" / "monitoring" / "alerts.yml"
DASHBOARD = REPO / "docs" / "monitoring" / "grafana-dashboard.json"
ALERT_TESTS = REPO / "tests" / "monitoring" / "alerts_test.yml"
TOKEN = "monitoring-token-0123456789"
REDIS_URL = os.environ.get("PBEM_TEST_REDIS_URL", "redis://127.0.0.1:6379/0")
# The series a family of each type gives.
SUFFIXES = {"counter": ("_total",), "histogram": ("_bucket", "_count", "_sum"), "gauge": ("",)}


def _promtool(*args: str) -> str:
    promtool = shutil.which("promtool")
    if promtool is None:
        missing("promtool is not installed (scripts/services.sh installs Debian's prometheus)")
    done = subprocess.run(
        [promtool, *args], capture_output=True, text=True, timeout=60, check=False, cwd=REPO
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout


def test_the_alert_rules_are_valid_and_fire_as_their_tests_say() -> None:
    assert "SUCCESS" in _promtool("check", "rules", str(ALERTS))
    assert "SUCCESS" in _promtool("test", "rules", str(ALERT_TESTS))


def _exposed(tmp_path: Path) -> set[str]:
    """Every series name /metrics can give, Redis's included."""
    try:
        redis.Redis.from_url(REDIS_URL, socket_connect_timeout=2).ping()
    except redis.RedisError as exc:
        missing(f"Redis does not answer at PBEM_TEST_REDIS_URL={REDIS_URL}: {exc}")
    app = make_app(tmp_path, PBEM_METRICS_TOKEN=TOKEN, REDIS_URL=REDIS_URL)
    with app.app_context():
        db.create_all()
        response = app.test_client().get("/metrics", headers={"Authorization": f"Bearer {TOKEN}"})
        db.engine.dispose()
    assert response.status_code == 200
    names = set()
    for family in text_string_to_metric_families(response.get_data(as_text=True)):
        names.update(family.name + suffix for suffix in SUFFIXES[family.type])
    return names


def test_rules_and_dashboard_read_only_what_pbem_exposes(tmp_path: Path) -> None:
    exposed = _exposed(tmp_path)
    assert {"pbem_emails_without_picture_total", "pbem_queue_depth", "pbem_games"} <= exposed
    dashboard = DASHBOARD.read_text()
    for source in (ALERTS.read_text(), dashboard):
        used = set(re.findall(r"\bpbem_[a-z_]+\b", source))
        assert used and used <= exposed, used - exposed
    # Every figure an operator acts on has a panel.
    shown = set(re.findall(r"\bpbem_[a-z_]+\b", dashboard))
    assert {name.removesuffix("_bucket") for name in shown if name.endswith("_bucket")} >= {
        "pbem_move_apply_seconds",
        "pbem_picture_seconds",
        "pbem_bot_seconds",
    }


def test_the_dashboard_is_one_grafana_can_import() -> None:
    dashboard = json.loads(DASHBOARD.read_text())
    assert dashboard["uid"] and dashboard["title"] == "pbem"
    (variable,) = dashboard["templating"]["list"]
    assert variable == {**variable, "name": "datasource", "type": "datasource"}
    ids = [panel["id"] for panel in dashboard["panels"]]
    assert len(ids) == len(set(ids))
    for panel in dashboard["panels"]:
        assert panel["datasource"]["uid"] == "${datasource}"
        assert panel["targets"] and all(t["expr"] for t in panel["targets"])
        place = panel["gridPos"]
        assert place["x"] + place["w"] <= 24
