"""Playing through the pages as people do: start a game, open the mail, accept, click moves."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from playwright.sync_api import Browser, BrowserContext, Page, expect

PHONE = {"width": 390, "height": 844}


@dataclass
class Player:
    email: str
    context: BrowserContext
    page: Page

    def data(self) -> dict[str, Any]:
        return json.loads(self.page.locator("#game-data").text_content() or "{}")

    def legal(self) -> list[str]:
        island = self.page.locator("#legal-moves")
        if island.count() == 0:
            return []
        return json.loads(island.text_content() or "[]")

    def status(self) -> dict[str, str]:
        section = self.page.locator("#status")
        return {
            "status": section.get_attribute("data-status") or "",
            "ply": section.get_attribute("data-ply") or "",
            "your_turn": section.get_attribute("data-your-turn") or "",
        }


def start_game(
    browser: Browser, base: str, engine: str, options: dict[str, str], emails: list[str]
) -> str:
    """Fills the start form as the first player would; returns the new game's id."""
    context = browser.new_context(base_url=base)
    page = context.new_page()
    page.goto(f"/?game={engine}")
    for name, value in options.items():
        page.select_option(f"#opt-{name}", value)
    for row, email in enumerate(emails):  # one row per player, the organiser's first
        page.fill(f"#email-{row}", email)
    page.click("#new-game button[type=submit]")
    page.wait_for_url(re.compile(r"/created/"))
    game_id = page.url.rstrip("/").rsplit("/", 1)[-1]
    context.close()
    return game_id


def mail_links(browser: Browser, base: str, to: str, kind: str) -> list[str]:
    """The links of `kind` (invite, play, me) in the outbox page's mail to `to`, newest first."""
    context = browser.new_context(base_url=base)
    page = context.new_page()
    page.goto("/outbox")
    found = []
    for article in page.locator("article.mail").all():
        if f"To: {to}" not in (article.inner_text() or ""):
            continue
        for link in article.locator("a").all():
            href = link.get_attribute("href") or ""
            if f"/{kind}/" in href:
                found.append(href)
    context.close()
    return found


def join(browser: Browser, base: str, email: str, viewport: dict[str, int] | None = None) -> Player:
    """Opens the invitation from the outbox, accepts it, and keeps the page for the game."""
    invite = mail_links(browser, base, email, "invite")[0]
    context = browser.new_context(
        base_url=base, viewport=viewport or {"width": 1200, "height": 900}
    )
    page = context.new_page()
    page.goto(invite)
    page.click("#accept-form button")
    expect(page.locator("#seat-link")).to_be_visible()
    return Player(email, context, page)


def open_game(player: Player) -> None:
    player.page.click("#seat-link")
    player.page.wait_for_url(re.compile(r"/play/"))
    expect(player.page.locator("#board svg")).to_be_visible()


def wait_for_turn(player: Player, ply: int) -> None:
    """Reloads the page until the game is at `ply` (the other player has just moved)."""
    for _ in range(50):
        status = player.status()
        if status["ply"] == str(ply) or status["status"] != "running":
            return
        player.page.wait_for_timeout(100)
        player.page.reload()
    raise AssertionError(f"{player.email}: the game never reached ply {ply}")


def confirm(player: Player, move: str, ply: int) -> None:
    """Checks the move shown is the one built, confirms it, waits for the new position."""
    page = player.page
    expect(page.locator("#pending .pbem-choice-move")).to_have_text(move)
    page.click("#pending .pbem-confirm")
    # The live part of the page is swapped without a reload once the move is applied.
    expect(page.locator("#status")).to_have_attribute("data-ply", str(ply + 1), timeout=20000)


def save(page: Page, folder: Path, name: str) -> Path:
    path = folder / f"{name}.png"
    page.screenshot(path=str(path), full_page=True)
    return path
