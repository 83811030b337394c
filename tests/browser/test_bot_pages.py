"""Playing against the computer in Chromium, at desktop and phone sizes: the home page's form,
the confirmation by mail, the game page with a bot seat (marked as a computer player, answering
each move by itself), autopilot handed over and taken back on the game page and the dashboard;
axe-core on each. Screenshots in artifacts/screenshots/."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, expect

from tests.browser import axe
from tests.browser.conftest import Server
from tests.browser.flows import mail_links, save
from tests.browser.test_play_layout import DESKTOP, PHONE, in_viewport, no_sideways_scroll, rect

SIZES = {"desktop": DESKTOP, "phone": PHONE}


def _check(page: Page, where: str) -> None:
    page.wait_for_load_state("networkidle")
    axe.assert_accessible(page, where)


def _confirmed_game(
    browser: Browser, server: Server, email: str, size: dict[str, int], board: bool = True
) -> Page:
    """The organiser's confirmation link from the outbox, accepted; the game page opened (the
    board drawn, unless the game still waits for players)."""
    (confirm, *_) = mail_links(browser, server.url, email, "invite")
    context = browser.new_context(base_url=server.url, viewport=size)
    page = context.new_page()
    page.goto(confirm)
    page.click("#accept-form button")
    expect(page.locator("#seat-link")).to_be_visible()
    page.click("#seat-link")
    page.wait_for_url(re.compile(r"/play/"))
    if board:
        expect(page.locator("#board svg")).to_be_visible()
    return page


@pytest.mark.parametrize("size", list(SIZES))
def test_a_game_against_the_computer_from_the_home_page(
    server: Server, browser: Browser, screenshots: Path, size: str
) -> None:
    axe.require_axe()
    viewport = SIZES[size]
    email = f"solo-{size}@example.org"
    context = browser.new_context(base_url=server.url, viewport=viewport)
    home = context.new_page()
    home.goto("/")
    section = home.locator("#computer")
    section.scroll_into_view_if_needed()
    expect(section.locator("h2")).to_have_text("Play against the computer")
    in_viewport(rect(home.locator("#computer-start")), home, "the button")
    no_sideways_scroll(home)
    save(home, screenshots, f"computer-home-{size}")
    home.select_option("#computer-game", "gorami")
    home.fill("#computer-email", email)
    home.select_option("#computer-bot", "bot:greedy")
    home.click("#computer-start")
    home.wait_for_url(re.compile(r"/created/"))
    context.close()

    page = _confirmed_game(browser, server, email, viewport)
    # The bot's seat says what it is; whoever began, it is the person's turn now.
    expect(page.locator("#summary .pbem-bot")).to_have_text("a computer player")
    expect(page.locator("#status")).to_have_attribute("data-your-turn", "yes")
    no_sideways_scroll(page)
    _check(page, f"a game against the computer ({size})")
    save(page, screenshots, f"computer-game-{size}")
    ply = int(page.locator("#status").get_attribute("data-ply") or "0")
    game_url = page.url
    # A move from the plain list (the board's clicks are each game's own tests'); the bot
    # answers by itself, and the game page shows its move and the person's turn again.
    box = page.locator("#move-form-box")
    if box.get_attribute("open") is None:
        box.locator("summary").click()
    page.select_option("#move-select", index=1)
    page.click("#move-form button[type=submit]")
    # The page's script sends it and follows the game: the bot's answer, then the person's
    # turn again (or the end), without a reload.
    page.wait_for_function(
        """(ply) => {
            const s = document.querySelector("#status");
            return s && (s.dataset.status !== "running"
                || (Number(s.dataset.ply) >= ply + 2 && s.dataset.yourTurn === "yes"));
        }""",
        arg=ply,
        timeout=30000,
    )
    page.goto(game_url)
    assert page.locator("#history li").count() >= ply + 2
    save(page, screenshots, f"computer-after-a-move-{size}")
    page.context.close()


@pytest.mark.parametrize("size", list(SIZES))
def test_autopilot_on_the_game_page_and_the_dashboard(
    server: Server, browser: Browser, screenshots: Path, size: str
) -> None:
    axe.require_axe()
    viewport = SIZES[size]
    emails = [f"pilot-{size}@example.org", f"friend-{size}@example.org"]
    context = browser.new_context(base_url=server.url, viewport=viewport)
    home = context.new_page()
    home.goto("/?game=mmw")
    for row, email in enumerate(emails):
        home.fill(f"#email-{row}", email)
    home.click("#new-game button[type=submit]")
    home.wait_for_url(re.compile(r"/created/"))
    context.close()
    page = _confirmed_game(browser, server, emails[0], viewport, board=False)
    (invite, *_) = mail_links(browser, server.url, emails[1], "invite")
    other = browser.new_context(base_url=server.url)
    other.new_page().goto(invite)
    other.pages[0].click("#accept-form button")
    other.close()
    page.reload()
    button = page.locator("#autopilot-on")
    button.scroll_into_view_if_needed()
    expect(button).to_be_visible()
    button.click()
    expect(page.locator("#done")).to_contain_text("Your seat is on autopilot")
    expect(page.locator("#autopilot-notice")).to_be_visible()
    expect(page.locator("#summary .pbem-on-autopilot")).to_contain_text("plays your seat")
    # No move form while the bot plays the seat.
    expect(page.locator("#move-form")).to_have_count(0)
    _check(page, f"a game page on autopilot ({size})")
    save(page, screenshots, f"autopilot-game-{size}")
    page.click("#autopilot-off")
    expect(page.locator("#done")).to_have_text("You play your seat again.")
    expect(page.locator("#autopilot-on")).to_be_visible()
    # The dashboard (the "all your games" link of the player's mail) has the same switch,
    # beside each game.
    (dashboard, *_) = mail_links(browser, server.url, emails[0], "me")
    page.goto(dashboard)
    form = page.locator(".pbem-autopilot-form").first
    expect(form.locator("button")).to_contain_text("Autopilot")
    form.locator("button").click()
    expect(page.locator("#done")).to_contain_text("on autopilot")
    expect(page.locator(".pbem-on-autopilot").first).to_contain_text("plays your seat")
    no_sideways_scroll(page)
    _check(page, f"the dashboard with a seat on autopilot ({size})")
    save(page, screenshots, f"autopilot-dashboard-{size}")
    page.locator(".pbem-autopilot-form button").first.click()
    expect(page.locator("#done")).to_have_text("You play your seat again.")
    page.context.close()
