"""The clock, resignation, draws and vacation through the pages, in chromium: confirmations,
pages that follow what the other player did, the vacation switch, and instants rewritten into
the reader's own time. Each state is photographed at phone and desktop size."""

from __future__ import annotations

import re
import shutil
from dataclasses import dataclass
from pathlib import Path

from playwright.sync_api import Browser, BrowserContext, Page, expect

from pbem import links
from pbem.domain import starting, views
from pbem.extensions import db, settings
from pbem.models import Game, Player
from tests.browser.conftest import Server

PHONE = {"width": 375, "height": 740}
DESKTOP = {"width": 1280, "height": 800}


@dataclass
class Seat:
    email: str
    game_id: str
    seat: int
    path: str  # the game page, /play/<token>
    home: str  # the dashboard, /me/<token>
    name: str  # as the pages call the seat (its colour: nobody has a name)


def _game(server: Server, emails: list[str]) -> list[Seat]:
    """A running GORami game, every invitation accepted; its seats in order."""
    with server.app.app_context():
        config = settings()
        created = starting.create_game(config, "gorami", {"board": 16}, emails)
        game = db.session.get(Game, created.game_id)
        assert game is not None
        for seat in list(game.seats):
            starting.accept_invitation(config, seat)
        db.session.expire_all()
        game = db.session.get(Game, created.game_id)
        assert game is not None and game.status == "running"
        seats = []
        names = views.names(game)
        for seat in game.seats:
            player = seat.player
            token = links.token_for(config.signing_key, seat, links.SEAT)
            home = links.player_token(config.signing_key, player.id, player.nonce)
            path, home = f"/play/{token}", f"/me/{home}"
            seats.append(Seat(player.email, game.id, seat.seat, path, home, names[seat.seat]))
        return seats


def _open(
    browser: Browser, server: Server, path: str, viewport: dict[str, int] = DESKTOP, **options: str
) -> tuple[BrowserContext, Page]:
    context = browser.new_context(base_url=server.url, viewport=viewport, **options)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(path)
    expect(page.locator("html")).to_have_attribute("data-clock-ready", "yes")
    page.errors = errors  # type: ignore[attr-defined]
    return context, page


def _shoot(page: Page, folder: Path, name: str) -> None:
    """The page at phone and desktop size, whole (also copied to /tmp/pbem-clock-shots)."""
    copies = Path("/tmp/pbem-clock-shots")
    copies.mkdir(parents=True, exist_ok=True)
    before = page.viewport_size
    for label, size in (("phone", PHONE), ("desktop", DESKTOP)):
        page.set_viewport_size(size)
        path = folder / f"clock-{name}-{label}.png"
        page.screenshot(path=str(path), full_page=True)
        shutil.copy(path, copies / path.name)
    if before:
        page.set_viewport_size(before)


def _no_script_errors(*pages: Page) -> None:
    for page in pages:
        assert page.errors == [], page.errors  # type: ignore[attr-defined]


def test_resigning_through_the_confirmation_page(
    server: Server, browser: Browser, screenshots: Path
) -> None:
    first, second = _game(server, ["rita@example.org", "sam@example.org"])
    mover_context, mover = _open(browser, server, first.path)
    other_context, other = _open(browser, server, second.path, PHONE)
    expect(mover.locator("#deadline")).to_contain_text("Move by")
    expect(mover.locator("#time-left")).to_have_text(re.compile(r"^2 days 23 hours left$"))
    expect(other.locator("#deadline")).to_contain_text(f"{first.name} must move by")
    _shoot(mover, screenshots, "your-turn")
    _shoot(other, screenshots, "their-turn")

    mover.click("#resign")
    expect(mover).to_have_url(re.compile(r"/resign"))
    expect(mover.locator("#confirm-question")).to_contain_text(
        f"Resign from GORami game {first.game_id} against {second.name}?"
    )
    expect(mover.locator("#confirm")).to_contain_text("This cannot be undone.")
    _shoot(mover, screenshots, "resign-confirmation")
    # Changing one's mind changes nothing.
    mover.click("#back-to-game")
    expect(mover.locator("#status")).to_have_attribute("data-status", "running")
    mover.click("#resign")
    mover.click("#confirm-button")
    expect(mover.locator("#done")).to_have_text("You resigned.")
    expect(mover.locator("#outcome")).to_contain_text(f"{first.name} resigned")
    expect(mover.locator("#move-form")).to_have_count(0)
    expect(mover.locator("#game-actions")).to_have_count(0)
    # The other page, left open, follows by itself.
    expect(other.locator("#status")).to_have_attribute("data-status", "finished", timeout=20_000)
    expect(other.locator("#outcome")).to_contain_text(f"{second.name} wins")
    _shoot(other, screenshots, "resigned")
    _no_script_errors(mover, other)
    mover_context.close()
    other_context.close()


def test_a_draw_offered_and_accepted(server: Server, browser: Browser, screenshots: Path) -> None:
    first, second = _game(server, ["tina@example.org", "ugo@example.org"])
    # The player to move offers; the other, waiting, sees the offer come in without a reload.
    offerer_context, offerer = _open(browser, server, first.path)
    answer_context, answerer = _open(browser, server, second.path, PHONE)
    offerer.click("#offer-draw")
    expect(offerer.locator("#draw-offer")).to_contain_text(
        "You offered a draw; waiting for an answer"
    )
    expect(offerer.locator("#offer-draw")).to_have_count(0)
    expect(answerer.locator("#accept-draw")).to_be_visible(timeout=20_000)
    expect(answerer.locator("#draw-offer")).to_contain_text(f"{first.name} offers a draw.")
    _shoot(answerer, screenshots, "draw-offered")
    _shoot(offerer, screenshots, "draw-offer-waiting")
    answerer.click("#accept-draw")
    expect(answerer.locator("#done")).to_contain_text("You accepted the draw")
    expect(answerer.locator("#outcome")).to_contain_text("Drawn by agreement")
    offerer.reload()
    expect(offerer.locator("#outcome")).to_contain_text("Drawn by agreement")
    expect(offerer.locator("#accept-draw")).to_have_count(0)
    _no_script_errors(offerer, answerer)
    offerer_context.close()
    answer_context.close()


def test_the_vacation_switch(server: Server, browser: Browser, screenshots: Path) -> None:
    first, second = _game(server, ["vera@example.org", "walt@example.org"])
    context, page = _open(browser, server, first.home, PHONE)
    expect(page.locator("#vacation-balance")).to_have_text("14 vacation days left")
    row = page.locator(f'#games tr[data-game="{first.game_id}"]')
    expect(row).to_contain_text("move by")
    _shoot(page, screenshots, "dashboard")
    page.fill("#vacation-days", "3")
    page.click("#go-away")
    expect(page.locator("#away-notice")).to_contain_text("On vacation until")
    expect(row).to_contain_text("clock stopped (on vacation)")
    _shoot(page, screenshots, "dashboard-vacation")

    other_context, other = _open(browser, server, second.path)
    notice = other.locator("#vacation-notice")
    expect(notice).to_contain_text(f"{first.name} is on vacation until")
    expect(notice).to_contain_text("their clock is stopped")
    _shoot(other, screenshots, "opponent-on-vacation")

    page.click("#come-back")
    expect(page.locator("#away-notice")).to_have_count(0)
    expect(page.locator("#vacation-form")).to_be_visible()
    other.reload()
    expect(other.locator("#vacation-notice")).to_have_count(0)
    expect(other.locator("#time-left")).to_contain_text("left")
    _no_script_errors(page, other)
    context.close()
    other_context.close()


def test_instants_in_the_reader_s_time_and_zone_from_the_browser(
    server: Server, browser: Browser
) -> None:
    first, _ = _game(server, ["xena@example.org", "yann@example.org"])
    # Without script: the server's words, in UTC (the player has no zone yet).
    plain = browser.new_context(base_url=server.url, java_script_enabled=False)
    static = plain.new_page()
    static.goto(first.path)
    utc_words = static.locator("#deadline-time").inner_text()
    assert re.fullmatch(r"\w+day \d{1,2} \w+, \d\d:\d\d UTC", utc_words), utc_words
    assert static.locator("#time-left").inner_text().endswith(" left")
    plain.close()

    context, page = _open(browser, server, first.path, timezone_id="Asia/Tokyo")
    instant = page.locator("#deadline-time")
    expect(instant).to_have_attribute("title", utc_words)
    expect(instant).not_to_have_text(utc_words)
    local = instant.inner_text()
    assert re.fullmatch(r"\w+day \d{1,2} \w+, \d\d:\d\d (GMT\+9|JST)", local), local
    utc_hour = int(utc_words.split(", ")[1][:2])
    assert int(local.split(", ")[1][:2]) == (utc_hour + 9) % 24

    # The dashboard takes the browser's zone the first time it is seen without one.
    page.goto(first.home)
    expect(page.locator("html")).to_have_attribute("data-zone-adopted", "Asia/Tokyo")
    expect(page.locator("#zone-select")).to_have_value("Asia/Tokyo")
    expect(page.locator("#zone-status")).to_contain_text("Asia/Tokyo")
    with server.app.app_context():
        player = db.session.query(Player).filter_by(email=first.email).one()
        assert player.time_zone == "Asia/Tokyo"
    # From now on the server's own words are in that zone, UTC beside.
    page.goto(first.path)
    expect(page.locator("#deadline-time")).to_have_attribute("title", re.compile(r"JST \("))
    _no_script_errors(page)
    context.close()
