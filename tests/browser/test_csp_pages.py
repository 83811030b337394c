"""The pages work under the Content-Security-Policy: chromium loads every kind of page, the game
page's ES modules and its dynamically imported controller, clicks a move, confirms it, replays it,
and reports no policy violation and no script error."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from typing import Any

import pytest
from flask import Flask
from werkzeug.serving import make_server

from pbem.extensions import db
from tests.browser.conftest import _free_port
from tests.conftest import make_app
from tests.web.flow import confirmation_link, create, links_in, mails, start, turn_link


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Flask]]:
    port = _free_port()
    # Links in mail keep the test host (tests.web.flow reads them); the browser opens their paths.
    app = make_app(tmp_path_factory.mktemp("csp"))
    with app.app_context():
        db.create_all()
    server = make_server("127.0.0.1", port, app, threaded=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{port}", app
    finally:
        server.shutdown()
        thread.join(timeout=10)
        with app.app_context():
            db.engine.dispose()


def test_every_page_works_under_the_policy(served: tuple[str, Flask], browser: Any) -> None:
    from playwright.sync_api import expect

    base, app = served
    with app.app_context():
        client = app.test_client()
        game = start(client, "gorami", board="16")
        link = turn_link(game)
        pending = create(client, "mmw")
        invitation = confirmation_link(pending)
        dashboards = [p for row in mails() for p in links_in(row, "me")]

    context = browser.new_context(base_url=base)
    page = context.new_page()
    problems: list[str] = []
    page.on(
        "console",
        lambda message: (
            problems.append(f"console {message.type}: {message.text}")
            if message.type in ("error", "warning")
            else None
        ),
    )
    page.on("pageerror", lambda error: problems.append(f"page error: {error}"))
    # The policy's own report of anything it refused, seen from inside the page.
    page.add_init_script(
        """document.addEventListener('securitypolicyviolation', (e) =>
             console.error(`CSP refused ${e.violatedDirective}: ${e.blockedURI}`));"""
    )

    def visit(path: str, status: int = 200) -> None:
        response = page.goto(path)
        assert response is not None and response.status == status, path
        assert "frame-ancestors 'none'" in response.headers["content-security-policy"]

    visit("/")
    visit("/?game=marram")
    visit(invitation)
    visit("/outbox")
    visit("/play/not-a-token", 403)
    visit("/no/such/page", 404)
    for path in dashboards[:1]:
        visit(path)

    # The game page: play.js (a module) imports kit.js and then the game's controller.
    visit(link)
    page.evaluate("() => window.pbemPlay.ready")
    discs = page.locator("#picker .pbem-disc")
    expect(discs.first).to_be_visible()
    discs.first.click()
    target = page.locator("#board .pbem-target").first
    expect(target).to_be_visible()
    target.click()
    # Confirming posts to the move API (fetch) and swaps in the new position without a reload.
    page.click("#pending .pbem-confirm")
    expect(page.locator("#status")).to_have_attribute("data-ply", "1", timeout=20_000)
    # Replay in the page (positions fetched from the API), then the replay without script.
    page.click('#replay [data-replay="first"]')
    expect(page.locator("#replay [data-replay-at]")).to_have_text("0 / 1")
    page.click('#replay [data-replay="next"]')
    expect(page.locator("#replay [data-replay-at]")).to_have_text("1 / 1")
    visit(f"{link}/replay/1")
    context.close()

    # The 403 and 404 pages log their status as console errors; nothing else may appear.
    unexpected = [p for p in problems if "the server responded with a status of" not in p]
    assert unexpected == []
    assert dashboards, "no email carried a dashboard link"


def test_the_static_scripts_are_served_as_modules(served: tuple[str, Flask]) -> None:
    _base, app = served
    client = app.test_client()
    for path in ("/static/play.js", "/static/kit.js", "/static/games/gorami/board.js"):
        response = client.get(path)
        assert response.status_code == 200
        assert response.mimetype in ("text/javascript", "application/javascript"), path
