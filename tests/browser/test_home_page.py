"""The home page in a browser, at desktop and phone sizes: the game cards with their pictures
drawn, how it works, and the start form, all inside the screen's width; starting a named game
from it. Screenshots under /tmp/shots14/F/ (and artifacts/screenshots)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, Page, expect

from pbem.extensions import db
from pbem.models import Game
from tests.browser.conftest import Server
from tests.browser.flows import PHONE, join, open_game, save

GAMES = ("gorami", "marram", "mmw")
SIZES = {"desktop": (1280, 800), "phone": (390, 844), "small": (360, 640)}
SHOTS = Path("/tmp/shots14/F")


def _box(page: Page, selector: str) -> dict[str, float]:
    box = page.locator(selector).bounding_box()
    assert box is not None, f"{selector} is not laid out"
    return box


def _within_width(page: Page, box: dict[str, float]) -> bool:
    width = page.evaluate("() => window.innerWidth")
    return box["x"] >= 0 and box["x"] + box["width"] <= width + 0.5


def _no_sideways_scroll(page: Page) -> None:
    widths: Any = page.evaluate("() => [document.documentElement.scrollWidth, window.innerWidth]")
    assert widths[0] <= widths[1], f"the page scrolls sideways: {widths}"


def _shoot(page: Page, name: str, screenshots: Path) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"{name}.png"))
    page.screenshot(path=str(SHOTS / f"{name}-full.png"), full_page=True)
    save(page, screenshots, f"home-{name}")


@pytest.mark.parametrize("size", list(SIZES))
def test_the_cards_the_steps_and_the_form_fit_the_screen(
    server: Server, browser: Browser, screenshots: Path, size: str
) -> None:
    width, height = SIZES[size]
    context = browser.new_context(base_url=server.url, viewport={"width": width, "height": height})
    page = context.new_page()
    page.goto("/")
    expect(page.locator("h1")).to_be_visible()
    _no_sideways_scroll(page)
    cards = [_box(page, f"#card-{name}") for name in GAMES]
    for name, box in zip(GAMES, cards, strict=True):
        assert _within_width(page, box), f"{name}'s card leaves the screen at {size}: {box}"
        picture = page.locator(f"#card-{name} img")
        expect(picture).to_be_visible()
        # The engine's drawing arrived and was drawn (an SVG the browser could not read has no
        # natural size), inside its card.
        assert picture.evaluate("img => img.complete && img.naturalWidth > 0"), name
        assert _within_width(page, _box(page, f"#card-{name} img"))
        for link in (".home-choose", ".home-rules"):
            assert _within_width(page, _box(page, f"#card-{name} {link}"))
    if size == "desktop":
        # One row of cards, its top in the first screen, under the introduction.
        assert len({round(box["y"]) for box in cards}) == 1
        assert cards[0]["y"] < height / 2
        assert cards[0]["x"] < cards[1]["x"] < cards[2]["x"]
    else:
        # One column, a card under another, each as wide as the column.
        assert cards[0]["y"] < cards[1]["y"] < cards[2]["y"]
        assert len({round(box["x"]) for box in cards}) == 1
        assert all(box["width"] > width * 0.8 for box in cards)
        # The first picture shows in the first screen.
        assert _box(page, f"#card-{GAMES[0]} img")["y"] < height
    _shoot(page, f"home-{width}", screenshots)

    steps = page.locator(".home-steps > li")
    expect(steps).to_have_count(3)
    steps.nth(2).scroll_into_view_if_needed()
    for index in range(3):
        expect(steps.nth(index)).to_be_visible()
        assert _within_width(page, _box(page, f".home-steps > li:nth-child({index + 1})"))

    # "Start a game" on a card opens the form at once, scrolled into view, below the cards.
    page.click("#card-marram .home-choose")
    page.wait_for_url(re.compile(r"\?game=marram#start$"))
    title = page.locator("#game-title")
    expect(title).to_be_visible()
    expect(title).to_be_in_viewport()
    expect(page.locator("#start-title")).to_be_in_viewport()
    _no_sideways_scroll(page)
    for selector in ("#game-title", "#opt-variant", "#clock", "#email-0", "#name-0"):
        page.locator(selector).scroll_into_view_if_needed()
        assert _within_width(page, _box(page, selector)), f"{selector} at {size}"
    submit = page.locator("#new-game button[type=submit]")
    submit.scroll_into_view_if_needed()
    expect(submit).to_be_in_viewport()
    assert _within_width(page, _box(page, "#new-game button[type=submit]"))
    page.locator("#start").scroll_into_view_if_needed()
    _shoot(page, f"home-form-{width}", screenshots)
    context.close()


def test_a_game_named_on_the_form_is_called_by_its_name(
    server: Server, browser: Browser, screenshots: Path
) -> None:
    context = browser.new_context(base_url=server.url, viewport={"width": 390, "height": 844})
    page = context.new_page()
    page.goto("/?game=gorami#start")
    page.fill("#game-title", "Friday <Club>")
    page.fill("#email-0", "fay@example.org")
    page.fill("#email-1", "gus@example.org")
    page.click("#new-game button[type=submit]")
    page.wait_for_url(re.compile(r"/created/"))
    game_id = page.url.split("#")[0].rstrip("/").rsplit("/", 1)[-1]
    with server.app.app_context():
        game = db.session.get(Game, game_id)
        assert game is not None and game.title == "Friday <Club>"
    # The confirmation's subject, as the outbox page lists it, keeps the id after the name.
    page.goto("/outbox")
    expect(
        page.get_by_text(f"[pbem] Friday <Club> ({game_id}): confirm your new game")
    ).to_be_visible()

    # Both take their seats: the name heads the game page, the id beside it, on a phone.
    players = [
        join(browser, server.url, email, PHONE) for email in ("fay@example.org", "gus@example.org")
    ]
    for player in players:
        open_game(player)
        heading = player.page.locator("h1#game-name")
        expect(heading).to_contain_text("Friday <Club>")
        expect(player.page.locator("#game-id")).to_have_text(f"GORami: game {game_id}")
        expect(heading).to_be_in_viewport()
        assert _within_width(player.page, _box(player.page, "h1#game-name"))
        assert f"Friday <Club> (GORami {game_id}) — pbem" in player.page.title()
    _shoot(players[0].page, "named-game-page-390", screenshots)
    for player in players:
        player.context.close()

    # A name that cannot be one is refused beside the form, with what was typed kept.
    page.goto("/?game=gorami#start")
    page.fill("#game-title", "x" * 60)
    page.evaluate("() => document.querySelector('#game-title').removeAttribute('maxlength')")
    page.fill("#game-title", "y" * 61)
    page.fill("#email-0", "fay@example.org")
    page.fill("#email-1", "gus@example.org")
    page.click("#new-game button[type=submit]")
    error = page.locator("#start-error")
    expect(error).to_contain_text("at most 60 characters")
    expect(error).to_be_in_viewport()
    expect(page.locator("#game-title")).to_have_value("y" * 61)
    _shoot(page, "home-refused-390", screenshots)
    context.close()
