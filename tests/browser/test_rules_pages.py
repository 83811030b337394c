"""The rules pages and the explained words of the game page, in Debian's chromium at desktop and
phone sizes: nothing scrolls sideways, every picture the engine drew is shown inside the page,
and a game word's explanation opens on tap, hover and Enter, inside the window."""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, expect

from pbem import links
from pbem.domain import starting
from pbem.extensions import db, settings
from pbem.models import Game
from tests.browser.conftest import Server

SIZES = {"desktop": (1280, 800), "phone": (390, 844), "small": (360, 640)}
GAMES = ["gorami", "marram", "mmw"]


def _fits(page: Page) -> None:
    """No sideways scroll, and nothing drawn past the right edge of the window."""
    width = page.evaluate("document.documentElement.clientWidth")
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    overflow = page.evaluate(
        """(width) => Array.from(document.querySelectorAll('main *'))
            .filter(e => e.getBoundingClientRect().right > width + 1)
            .map(e => e.tagName + '.' + e.className)""",
        width,
    )
    assert overflow == []


def _inside(page: Page, selector: str) -> dict[str, float]:
    """The element is wholly inside the window, and none of its text is cut off."""
    clipped = page.locator(selector).evaluate("e => e.scrollWidth > e.clientWidth + 1")
    assert not clipped, f"{selector} cuts its text off"
    box = page.locator(selector).bounding_box()
    assert box is not None, selector
    size = page.viewport_size
    assert size is not None
    assert box["x"] >= 0 and box["y"] >= 0, (selector, box)
    assert box["x"] + box["width"] <= size["width"] + 0.5, (selector, box, size)
    assert box["y"] + box["height"] <= size["height"] + 0.5, (selector, box, size)
    return box


@pytest.mark.parametrize("size", list(SIZES))
@pytest.mark.parametrize("name", GAMES)
def test_a_rules_page_fits_the_screen_with_every_picture(
    server: Server, browser: Browser, screenshots: Path, name: str, size: str
) -> None:
    width, height = SIZES[size]
    context = browser.new_context(base_url=server.url, viewport={"width": width, "height": height})
    page = context.new_page()
    failed: list[str] = []
    page.on(
        "response",
        lambda r: (
            failed.append(f"{r.status} {r.url}")
            if r.status >= 400 and not r.url.endswith("/favicon.ico")
            else None
        ),
    )
    page.goto(f"/rules/{name}")
    for section in ("goal", "turn", "scoring", "end"):
        expect(page.locator(f"section#{section} h2")).to_be_visible()
    pictures = page.locator("img[data-picture]")
    assert pictures.count() >= 1
    for index in range(pictures.count()):
        picture = pictures.nth(index)
        picture.scroll_into_view_if_needed()
        expect(picture).to_be_visible()
        page.wait_for_function(
            "(img) => img.complete && img.naturalWidth > 0", arg=picture.element_handle()
        )
        box = picture.bounding_box()
        assert box is not None and box["width"] > min(width - 40, 300) * 0.5, box
        assert box["x"] >= 0 and box["x"] + box["width"] <= width
    _fits(page)
    # A variant's own URL lands on its part of the page.
    page.goto(f"/rules/{name}")
    first = page.locator(".rules-contents .rules-parts a").first
    anchor = (first.get_attribute("href") or "")[1:]
    first.click()
    expect(page.locator(f"#{anchor}")).to_be_in_viewport()
    page.evaluate("window.scrollTo(0, 0)")
    page.screenshot(path=str(screenshots / f"rules-{name}-{width}x{height}.png"), full_page=True)
    assert failed == []
    context.close()


def test_the_index_fits_and_leads_to_every_game(
    server: Server, browser: Browser, screenshots: Path
) -> None:
    for size, (width, height) in SIZES.items():
        context = browser.new_context(
            base_url=server.url, viewport={"width": width, "height": height}
        )
        page = context.new_page()
        page.goto("/rules")
        _fits(page)
        for name in GAMES:
            expect(page.locator(f"#game-{name} h2 a")).to_be_visible()
        if size == "phone":
            shot = screenshots / f"rules-index-{width}x{height}.png"
            page.screenshot(path=str(shot), full_page=True)
        page.click("#game-mmw h2 a")
        expect(page).to_have_url(f"{server.url}/rules/mmw")
        context.close()


def _game_page(server: Server, engine: str, options: dict[str, object]) -> str:
    """The game page of seat 0 of a running game (made through the domain: the invitation path
    is tests/browser/test_play_pages.py's)."""
    with server.app.app_context():
        config = settings()
        emails = ["ann@example.org", "ben@example.org"]
        created = starting.create_game(config, engine, options, emails, names=["Ann", "Ben"])
        game = db.session.get(Game, created.game_id)
        assert game is not None
        for seat in list(game.seats):
            starting.accept_invitation(config, seat)
        db.session.expire_all()
        game = db.session.get(Game, created.game_id)
        assert game is not None and game.status == "running"
        token = links.token_for(config.signing_key, game.seats[0], links.SEAT)
        return f"/play/{token}"


@pytest.mark.parametrize("size", list(SIZES))
@pytest.mark.parametrize(
    ("engine", "options", "word"),
    [("gorami", {"board": 22}, "fish"), ("marram", {"variant": "animals"}, "bet")],
)
def test_a_game_word_explains_itself_on_tap_hover_and_enter(
    server: Server,
    browser: Browser,
    screenshots: Path,
    engine: str,
    options: dict[str, object],
    word: str,
    size: str,
) -> None:
    width, height = SIZES[size]
    phone = size != "desktop"
    context = browser.new_context(
        base_url=server.url,
        viewport={"width": width, "height": height},
        has_touch=phone,
        is_mobile=phone,
    )
    page = context.new_page()
    page.goto(_game_page(server, engine, options))
    expect(page.locator("#board svg")).to_be_visible()
    term = page.locator(f'#summary .pbem-term[data-term="{word}"]').first
    button = term.locator(".pbem-term-word")
    tip = term.locator(".pbem-term-tip")
    button.scroll_into_view_if_needed()
    expect(tip).to_be_hidden()
    if phone:
        button.tap()
    else:
        button.click()
    expect(tip).to_be_visible()
    _inside(page, f"#{tip.get_attribute('id')}")
    expect(tip.locator("a.pbem-term-rule")).to_be_visible()
    page.screenshot(path=str(screenshots / f"glossary-{engine}-{width}x{height}.png"))
    # Escape closes it; so does a tap elsewhere.
    page.keyboard.press("Escape")
    expect(tip).to_be_hidden()
    if phone:
        button.tap()
        expect(tip).to_be_visible()
        page.locator("h1").tap()
        expect(tip).to_be_hidden()
    else:
        # Hover opens it, leaving closes it; a click while hovered keeps it open.
        page.mouse.move(2, 2)
        button.hover()
        expect(tip).to_be_visible()
        page.mouse.move(2, 2)
        expect(tip).to_be_hidden()
        button.hover()
        expect(tip).to_be_visible()
        button.click()
        page.mouse.move(2, 2)
        page.wait_for_timeout(500)
        expect(tip).to_be_visible()
        page.keyboard.press("Escape")
        expect(tip).to_be_hidden()
    # The keyboard alone: focus the word, Enter opens, Tab reaches the rule's link.
    button.focus()
    page.keyboard.press("Enter")
    expect(tip).to_be_visible()
    _inside(page, f"#{tip.get_attribute('id')}")
    page.keyboard.press("Tab")
    expect(tip.locator("a.pbem-term-rule")).to_be_focused()
    page.keyboard.press("Enter")
    page.wait_for_url(f"**/rules/{engine}#*")
    anchor = page.url.split("#", 1)[1]
    expect(page.locator(f"#{anchor}")).to_be_in_viewport()
    context.close()


def test_how_to_play_is_linked_from_the_game_page(server: Server, browser: Browser) -> None:
    context = browser.new_context(base_url=server.url, viewport={"width": 390, "height": 844})
    page = context.new_page()
    page.goto(_game_page(server, "mmw", {}))
    link = page.locator("#how-to-play")
    expect(link).to_be_visible()
    expect(link).to_have_text("How to play Martian Mud Wrestling")
    # On a phone the board comes first (the move is what the page is for): the link may sit
    # below it, a scroll away, but never cut off.
    link.scroll_into_view_if_needed()
    _inside(page, "#how-to-play")
    link.click()
    expect(page).to_have_url(f"{server.url}/rules/mmw")
    context.close()


def test_the_words_drawn_on_the_board_are_explained_beside_it(
    server: Server, browser: Browser, screenshots: Path
) -> None:
    """The word "interior" is written in the GORami drawing, where no button can go: the list of
    the game's words explains it, one tap away."""
    context = browser.new_context(
        base_url=server.url, viewport={"width": 360, "height": 640}, has_touch=True
    )
    page = context.new_page()
    page.goto(_game_page(server, "gorami", {"board": 16}))
    words = page.locator("#glossary")
    words.locator("summary").scroll_into_view_if_needed()
    words.locator("summary").tap()
    term = words.locator('.pbem-term[data-term="interior"]')
    term.locator(".pbem-term-word").tap()
    tip = term.locator(".pbem-term-tip")
    expect(tip).to_be_visible()
    _inside(page, f"#{tip.get_attribute('id')}")
    page.screenshot(path=str(screenshots / "glossary-list-gorami-360x640.png"))
    tip.locator("a.pbem-term-rule").tap()
    page.wait_for_url("**/rules/gorami#tie-break")
    expect(page.locator("#tie-break")).to_be_in_viewport()
    context.close()
