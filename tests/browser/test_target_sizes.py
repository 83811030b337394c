"""Every link of the move list and the replay is at least 24 CSS pixels tall (WCAG 2.5.8, the
size Lighthouse's target-size audit asks for), at desktop and phone sizes, in every game."""

from __future__ import annotations

import pytest
from playwright.sync_api import Browser

from tests.browser.conftest import SCREENSHOTS, Server
from tests.browser.seated import advance, running_game
from tests.browser.test_play_layout import DESKTOP, PHONE

SMALLEST = 24  # CSS pixels


@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["desktop", "phone"])
@pytest.mark.parametrize(
    ("engine", "options"),
    [("gorami", {"board": 22}), ("marram", {"variant": "classic"}), ("mmw", {})],
)
def test_move_list_and_replay_targets(
    server: Server,
    browser: Browser,
    engine: str,
    options: dict[str, object],
    viewport: dict[str, int],
) -> None:
    running = running_game(server, engine, options, ["Ann", "Ben"], seed=4)
    state = advance(server, running, 6)
    seat = state.to_move if state.to_move is not None else 0
    context = browser.new_context(base_url=server.url, viewport=viewport)
    page = context.new_page()
    page.goto(running.seat(seat).path)
    page.evaluate("() => window.pbemPlay.ready")
    sizes = page.evaluate(
        """() => Array.from(document.querySelectorAll('#history a, #replay a'))
            .filter((n) => n.getClientRects().length > 0)
            .map((n) => [n.textContent.trim().slice(0, 30), n.getBoundingClientRect().height])"""
    )
    assert len(sizes) >= 6 + 4
    small = [(text, height) for text, height in sizes if height < SMALLEST]
    assert small == []
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    label = "desktop" if viewport == DESKTOP else "phone"
    page.locator("#history").screenshot(path=str(SCREENSHOTS / f"history-{engine}-{label}.png"))
    context.close()
