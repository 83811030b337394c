"""axe-core on every page a player meets, at desktop and phone sizes, with WCAG's AAA rules on: no
violation at all on any page of tests/browser/every_page.py, nor on each game's page with a move
chosen and waiting to be confirmed."""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.sync_api import Browser, Locator, Page, expect

from pbem import games
from tests.browser import axe
from tests.browser.conftest import Server
from tests.browser.every_page import every_page
from tests.browser.flows import mail_links, start_game
from tests.browser.seated import running_game, state_of
from tests.browser.test_play_layout import DESKTOP, PHONE, choose, simple_move

SHOTS = Path("/tmp/shots14/g2")
GAMES = [
    ("gorami", {"board": 16}, ["Ann", "Ben"]),
    ("mmw", {}, ["Ann", "Ben"]),
    ("marram", {"variant": "classic"}, ["Ann", "Ben", "Cat"]),
]


def _nothing_covers(controls: Locator, where: str) -> None:
    """Each control, scrolled into view, is what a tap at its centre reaches: the bar holding
    the move to confirm (fixed to the screen's bottom) never lies over Resign or a draw offer."""
    assert controls.count() > 0, where
    for control in controls.all():
        control.scroll_into_view_if_needed()
        box = control.bounding_box()
        assert box is not None, where
        reached = control.evaluate(
            """(node, [x, y]) => {
                const top = document.elementFromPoint(x, y);
                return top === node || node.contains(top);
            }""",
            [box["x"] + box["width"] / 2, box["y"] + box["height"] / 2],
        )
        assert reached, f"{where}: {control.text_content()!r} is covered"


def check(page: Page, where: str) -> None:
    page.wait_for_load_state("networkidle")
    axe.assert_accessible(page, where)


@pytest.fixture(params=[DESKTOP, PHONE], ids=["desktop", "phone"])
def page(request: pytest.FixtureRequest, server: Server, browser: Browser) -> Page:
    axe.require_axe()
    context = browser.new_context(base_url=server.url, viewport=request.param)
    request.addfinalizer(context.close)
    return context.new_page()


def test_home_invitation_and_rules(server: Server, browser: Browser, page: Page) -> None:
    page.goto("/")
    check(page, "the home page")
    start_game(browser, server.url, "mmw", {}, ["ida@example.org", "jon@example.org"])
    (invite, *_) = mail_links(browser, server.url, "ida@example.org", "invite")
    page.goto(invite)
    expect(page.locator("#accept-form")).to_be_visible()
    check(page, "an invitation")
    for name in games.names():
        response = page.goto(f"/rules/{name}")
        assert response is not None
        if response.status == 404:
            continue  # a game without rules pages yet (part E adds them)
        check(page, f"the rules of {name}")


@pytest.mark.parametrize(("engine", "options", "names"), GAMES, ids=[g[0] for g in GAMES])
def test_game_pages_and_dashboard(
    server: Server, page: Page, engine: str, options: dict[str, object], names: list[str]
) -> None:
    running = running_game(server, engine, options, names, seed=4)
    state = state_of(server, running.game_id)
    assert state.to_move is not None
    mover = running.seat(state.to_move)
    page.goto(mover.path)
    page.evaluate("() => window.pbemPlay.ready")
    check(page, f"{engine}: the player's turn")
    choose(page, engine, simple_move(engine, state))
    expect(page.locator("#pending .pbem-confirm")).to_be_in_viewport()
    check(page, f"{engine}: a move chosen, to confirm")
    _nothing_covers(page.locator("#game-actions button, #game-actions a"), f"{engine} actions")
    waiting = running.seat((state.to_move + 1) % len(names))
    page.goto(waiting.path)
    check(page, f"{engine}: waiting for another player")
    page.goto(waiting.home)
    expect(page.locator("#games")).to_be_visible()
    check(page, "the dashboard")


def test_every_page(server: Server, page: Page) -> None:
    found = []
    for shown in every_page(server):
        response = page.goto(shown.path)
        assert response is not None and response.status == shown.status, shown.name
        if shown.game:
            page.evaluate("() => window.pbemPlay.ready")
        page.wait_for_load_state("networkidle")
        violations = axe.violations(page)
        if violations:
            found.append(f"{shown.name} ({shown.path[:40]}):\n{axe.describe(violations)}")
    assert not found, "\n".join(found)
