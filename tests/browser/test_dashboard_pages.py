"""The dashboard through the pages: from an email's "All your games" link and by a sign-in
email."""

from __future__ import annotations

import re
from pathlib import Path

from playwright.sync_api import Browser, expect

from tests.browser.conftest import Server
from tests.browser.flows import PHONE, join, mail_links, open_game, save, start_game

EMAILS = ["cat@example.org", "dan@example.org"]


def test_dashboard_from_a_game_and_by_email(
    server: Server, browser: Browser, screenshots: Path
) -> None:
    start_game(browser, server.url, "gorami", {"board": "16"}, EMAILS)
    start_game(browser, server.url, "mmw", {}, EMAILS)
    players = [join(browser, server.url, email) for email in EMAILS]
    for player in players:
        open_game(player)
    # The first game is still to be confirmed by its organiser, the first player: the first
    # player's dashboard, opened from an email, shows it waiting for them.
    page = players[0].page
    (mine, *_) = mail_links(browser, server.url, EMAILS[0], "me")
    page.goto(mine)
    rows = page.locator("#games tbody tr")
    expect(rows).to_have_count(2)
    statuses = [rows.nth(i).get_attribute("data-status") for i in range(2)]
    assert sorted(statuses) == ["inviting", "running"]
    # What needs this player comes first.
    expect(rows.first).to_have_class(re.compile("your-turn"))
    save(page, screenshots, "dashboard")

    # Signing in on a phone: ask for the link, open it from the mail.
    context = browser.new_context(base_url=server.url, viewport=PHONE)
    phone = context.new_page()
    phone.goto("/signin")
    phone.fill("#signin-email", EMAILS[1])
    phone.click("#signin-form button")
    expect(phone.locator("#signin-sent")).to_be_visible()
    (link, *_) = mail_links(browser, server.url, EMAILS[1], "signin")
    phone.goto(link)
    phone.click("#signin-use-form button")
    phone.wait_for_url(re.compile(r"/me/"))
    # The unconfirmed game has not invited the second player yet.
    expect(phone.locator("#games tbody tr")).to_have_count(1)
    phone.locator("#games a").first.click()
    expect(phone.locator("h1")).to_be_visible()
    save(phone, screenshots, "dashboard-signin-phone")
    context.close()
    for player in players:
        player.context.close()
