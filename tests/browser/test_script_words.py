"""The scripts speak the page's language, in chromium: clock.js rewrites instants into the
reader's zone in the words the server uses for the same language, and counts the time left in
them; play.js and clock.js say what they say from the page's `pbem-words`, and each game's
controller from its own island, `pbem-words-<game>`."""

from __future__ import annotations

import re
from datetime import UTC, datetime

import pytest
from playwright.sync_api import Browser, BrowserContext, Page, expect

from pbem import i18n
from pbem.domain import when
from tests.browser.conftest import Server
from tests.browser.seated import running_game
from tests.browser.test_clock_pages import _game

ZONE = "Europe/Copenhagen"


def _open(
    browser: Browser, server: Server, path: str, language: str
) -> tuple[BrowserContext, Page]:
    """`path` in a browser that chose `language` (its cookie) and lives in ZONE."""
    context = browser.new_context(base_url=server.url, timezone_id=ZONE, locale=language)
    host = server.url.split("//", 1)[1].split(":")[0]
    context.add_cookies([{"name": "pbem_lang", "value": language, "domain": host, "path": "/"}])
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(path)
    expect(page.locator("html")).to_have_attribute("data-clock-ready", "yes")
    page.errors = errors  # type: ignore[attr-defined]
    return context, page


def _server_words(page: Page, language: str) -> list[tuple[str, str]]:
    """Each rewritten instant: what clock.js wrote, and what the server writes for it in ZONE
    (without the UTC it adds beside)."""
    pairs = []
    for node in page.locator("time[data-local]").all():
        stamp = node.get_attribute("datetime") or ""
        at = datetime.fromisoformat(stamp.replace("Z", "+00:00")).astimezone(UTC)
        with i18n.using(language):
            words = when.in_words(at.replace(tzinfo=None), ZONE).split(" (")[0]
        pairs.append(((node.text_content() or "").strip(), words))
    return pairs


def test_the_game_page_and_the_dashboard_in_french(server: Server, browser: Browser) -> None:
    mover = _game(server, ["ines@example.org", "jules@example.org"])[0]
    context, page = _open(browser, server, mover.path, "fr")
    page.evaluate("() => window.pbemPlay.ready")
    assert page.locator("#pbem-words").count() == 1
    days = "lundi|mardi|mercredi|jeudi|vendredi|samedi|dimanche"
    deadline = page.locator("#deadline time[data-local]")
    expect(deadline).to_have_text(re.compile(rf"^({days}) \d+ \S+, \d\d:\d\d CES?T$"))
    for shown, server_words in _server_words(page, "fr"):
        assert shown == server_words
    expect(page.locator("#time-left")).to_have_text("il reste 2 jours 23 heures")
    assert page.title().startswith("● À vous de jouer · ")
    # A move chosen on the board waits for a button the script made.
    move = page.evaluate("() => window.pbemPlay.legal[0]")
    page.click(f'.pbem-disc[data-number="{move[0]}"]')
    page.click(f'#board [data-cell="{move[1:]}"]')
    expect(page.locator("#pending .pbem-confirm")).to_have_text("Confirmer le coup")
    expect(page.locator("#pending .pbem-cancel")).to_have_text("Annuler")
    assert page.errors == []  # type: ignore[attr-defined]
    context.close()

    # The dashboard: the browser's zone taken, said in French, and the deadlines in French.
    context, page = _open(browser, server, mover.home, "fr")
    expect(page.locator("#zone-status")).to_have_text(
        f"Réglé sur {ZONE}, le fuseau horaire de votre navigateur\u00a0; "
        "changez-le ici si ce n’est pas le vôtre."
    )
    pairs = _server_words(page, "fr")
    assert pairs and all(shown == server_words for shown, server_words in pairs)
    assert page.errors == []  # type: ignore[attr-defined]
    context.close()


@pytest.mark.parametrize("language", ["en", "nl", "da"])
def test_instants_in_the_servers_words_in_each_language(
    server: Server, browser: Browser, language: str
) -> None:
    mover = _game(server, [f"kim-{language}@example.org", f"lou-{language}@example.org"])[0]
    context, page = _open(browser, server, mover.path, language)
    page.evaluate("() => window.pbemPlay.ready")
    assert page.locator("#pbem-words").count() == (0 if language == i18n.ENGLISH else 1)
    pairs = _server_words(page, language)
    assert pairs and all(shown == server_words for shown, server_words in pairs), pairs
    with i18n.using(language):
        days = i18n.ngettext("%(amount)s day", "%(amount)s days", 2, amount=2)
        hours = i18n.ngettext("%(amount)s hour", "%(amount)s hours", 23, amount=23)
        left = i18n.gettext("%(time)s left", time=f"{days} {hours}")
    expect(page.locator("#time-left")).to_have_text(left)
    assert page.errors == []  # type: ignore[attr-defined]
    context.close()


def test_each_games_controller_speaks_the_page_language(server: Server, browser: Browser) -> None:
    """Marram's picker in Dutch, from its own catalog: the step, the hand, the flip button, the
    place to lay a tile, and the move to confirm; Martian Mud Wrestling's in Danish."""
    running = running_game(server, "marram", {"variant": "classic"}, ["Noor", "Sem"], seed=4)
    context, page = _open(browser, server, running.seat(0).path, "nl")
    page.evaluate("() => window.pbemPlay.ready")
    assert page.locator("#pbem-words-marram").count() == 1
    expect(page.locator("#picker .pbem-step")).to_have_text(
        "Je eerste van twee acties: kies een tegel uit je hand, of een tegel met een schop op "
        "het bord om om te draaien."
    )
    tile = page.locator(".pbem-tile:not([disabled])").first
    number = tile.get_attribute("data-tile")
    expect(tile).to_contain_text(f"Tegel {number}")
    tile.click()
    expect(page.locator("#pending")).to_contain_text(f"Tegel {number}: klik op een opgelichte plek")
    page.locator("#board .frontier.pbem-target").first.click()
    expect(page.locator(".pbem-rot-words")).to_contain_text(f"Tegel {number} op ")
    expect(page.locator("#pending .pbem-choice-words")).to_contain_text(f"Tegel {number} op ")
    assert page.errors == []  # type: ignore[attr-defined]
    context.close()

    running = running_game(server, "mmw", {}, ["Ida", "Bo"], seed=5)
    context, page = _open(browser, server, running.seat(0).path, "da")
    page.evaluate("() => window.pbemPlay.ready")
    expect(page.locator("#picker .pbem-step")).to_have_text(
        "1. Klik på en af dine stakke (markeret), 2. klik der, hvor dens øverste pyramide skal "
        "hen, 3. bekræft."
    )
    # A stack's pyramids lie over its square: the click lands where a player's would.
    page.locator("#board .square.pbem-source").first.click(force=True)
    expect(page.locator("#pending")).to_contain_text("Du flytter den øverste pyramide fra")
    assert page.errors == []  # type: ignore[attr-defined]
    context.close()
