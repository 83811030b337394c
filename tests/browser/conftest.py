"""Browser tests: the app served on a loopback port (embedded default: SQLite in a temporary
folder, tasks in-process, mail saved as files) and Debian's chromium driven by Playwright.

The browser smoke (BROWSER_SMOKE: every kind of page loaded, a move chosen, confirmed and
replayed, with no script error and no policy violation) is in the default tier, and so is what
a file of BROWSER_TIERED leaves there; every other browser test (the layouts, accessibility
audits, whole games through the pages) is in the audit tier (`pytest -m audit`, run by
scripts/test.sh after the default tier)."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from flask import Flask
from werkzeug.serving import make_server

from pbem.extensions import db
from tests.conftest import make_app
from tests.support.needs import missing

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
ROOT = Path(__file__).resolve().parents[2]
SCREENSHOTS = ROOT / "artifacts" / "screenshots"


BROWSER_SMOKE = ("tests/browser/test_csp_pages.py",)
# Files whose tests choose their own tier (pytest.mark.audit, tests/support/tiers.py): a quick
# sample stays in the default tier, the long runs beside it go to the audit tier.
BROWSER_TIERED = ("tests/browser/test_play_phone.py",)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        path = str(item.fspath).replace(os.sep, "/")
        if "tests/browser/" in path:
            item.add_marker(pytest.mark.browser)
            if not path.endswith(BROWSER_SMOKE + BROWSER_TIERED):
                item.add_marker(pytest.mark.audit)


def _chromium() -> str:
    # The test command installs it (scripts/services.sh); try once more on a bare machine.
    if not os.access(CHROMIUM, os.X_OK) and shutil.which("apt-get") and os.geteuid() == 0:
        subprocess.run(
            ["apt-get", "install", "-y", "-qq", "chromium"],
            check=False,
            stdout=subprocess.DEVNULL,
            env={**os.environ, "DEBIAN_FRONTEND": "noninteractive"},
        )
    if not os.access(CHROMIUM, os.X_OK):
        missing("Debian's chromium is not installed (apt-get install chromium)")
    return CHROMIUM


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


@dataclass
class Server:
    url: str
    app: Flask
    outbox: Path


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    tmp = tmp_path_factory.mktemp("browser")
    port = _free_port()
    url = f"http://127.0.0.1:{port}"
    app = make_app(tmp, BASE_URL=url)
    with app.app_context():
        db.create_all()
    http = make_server("127.0.0.1", port, app, threaded=True)
    thread = threading.Thread(target=http.serve_forever, name="pbem-browser-server", daemon=True)
    thread.start()
    try:
        yield Server(url, app, tmp / "outbox")
    finally:
        http.shutdown()
        thread.join(timeout=10)
        with app.app_context():
            db.engine.dispose()


@pytest.fixture(scope="session")
def browser() -> Iterator[object]:
    from playwright.sync_api import sync_playwright

    executable = _chromium()
    from playwright.sync_api import expect

    # The machine is shared: give pages time rather than fail on a busy moment.
    expect.set_options(timeout=15_000)
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=executable, headless=True, args=CHROMIUM_ARGS
        )
        try:
            yield browser
        finally:
            browser.close()


@pytest.fixture
def screenshots() -> Path:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    return SCREENSHOTS
