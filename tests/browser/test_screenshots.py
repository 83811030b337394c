"""Every page of tests/browser/every_page.py photographed at 1280×900 and 390×844 (the whole
page) into the git-ignored `artifacts/screenshots/pages/`, for the developer to look at before
a change lands; CI keeps the folder as an artifact. `scripts/screenshots.sh` runs this alone.

The test also holds what a look would catch first: no page is wider than its window (a
sideways scroll on a phone) and none logs a script error."""

from __future__ import annotations

from pathlib import Path

from playwright.sync_api import Browser

from tests.browser.conftest import Server
from tests.browser.every_page import every_page

SIZES = {"desktop": {"width": 1280, "height": 900}, "phone": {"width": 390, "height": 844}}


def test_every_page_at_desktop_and_phone_sizes(
    server: Server, browser: Browser, screenshots: Path
) -> None:
    folder = screenshots / "pages"
    folder.mkdir(parents=True, exist_ok=True)
    pages = every_page(server)
    problems: list[str] = []
    for size, viewport in SIZES.items():
        context = browser.new_context(base_url=server.url, viewport=viewport)
        tab = context.new_page()
        tab.on("pageerror", lambda error, size=size: problems.append(f"{size}: {error}"))
        for shown in pages:
            response = tab.goto(shown.path)
            assert response is not None and response.status == shown.status, shown.name
            if shown.game:
                tab.evaluate("() => window.pbemPlay.ready")
            tab.wait_for_load_state("networkidle")
            wide = tab.evaluate("() => document.documentElement.scrollWidth")
            if wide > viewport["width"]:
                problems.append(f"{shown.name} ({size}) is {wide}px wide")
            tab.screenshot(path=str(folder / f"{shown.name}-{size}.png"), full_page=True)
        context.close()
    assert not problems, "\n".join(problems)
    assert len(list(folder.glob("*.png"))) >= 2 * len(pages)
