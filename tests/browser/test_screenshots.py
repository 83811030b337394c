"""Every page of tests/browser/every_page.py photographed in each language at 1280×900 and
390×844 (the whole page) into the git-ignored `artifacts/screenshots/pages/` (English) and
`pages-fr/`, `pages-nl/`, `pages-da/`, for the developer to look at before a change lands; CI
keeps the folder as an artifact. `scripts/screenshots.sh` runs this alone.

The tests also hold what a look would catch first: no page is wider than its window (a sideways
scroll on a phone), no element sticks out of a 360-pixel screen in any language (a long French
or Danish word), and no page logs a script error. Every kind of email is photographed the same
way, as a mail client shows its HTML, into `mail/` and `mail-fr/`, `mail-nl/`, `mail-da/`."""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.sync_api import Browser, BrowserContext, Page

from pbem import i18n
from pbem.domain import outbox
from tests.browser.conftest import Server
from tests.browser.every_page import every_page
from tests.domain.flow import start
from tests.domain.test_outbox import _one_letter_of_each_kind

SIZES = {"desktop": {"width": 1280, "height": 900}, "phone": {"width": 390, "height": 844}}
NARROW = {"width": 360, "height": 740}
# The elements wider than the window that no ancestor clips or scrolls; their first few.
_STICKING_OUT = """() => {
  const width = document.documentElement.clientWidth;
  const found = [];
  for (const el of document.querySelectorAll("body *")) {
    const box = el.getBoundingClientRect();
    if (!box.width || box.right <= width + 1) continue;
    let up = el.parentElement, held = false;
    while (up && up !== document.body) {
      if (getComputedStyle(up).overflowX !== "visible") { held = true; break; }
      up = up.parentElement;
    }
    if (!held) found.push(el.tagName.toLowerCase() + (el.id ? "#" + el.id : ""));
  }
  return found.slice(0, 5);
}"""


def _context(browser: Browser, server: Server, language: str, viewport: dict) -> BrowserContext:
    """A browser whose pages speak `language`: the language switch's cookie, as a visitor who
    chose it has (the pages' players have chosen none)."""
    context = browser.new_context(base_url=server.url, viewport=viewport, locale=language)
    host = server.url.split("//", 1)[1].split(":")[0]
    context.add_cookies([{"name": "pbem_lang", "value": language, "domain": host, "path": "/"}])
    return context


def _open(tab: Page, path: str, status: int, game: bool, name: str) -> None:
    response = tab.goto(path)
    assert response is not None and response.status == status, name
    if game:
        tab.evaluate("() => window.pbemPlay.ready")
    tab.wait_for_load_state("networkidle")


@pytest.mark.parametrize("language", i18n.LANGUAGES)
def test_every_page_at_desktop_and_phone_sizes(
    server: Server, browser: Browser, screenshots: Path, language: str
) -> None:
    folder = screenshots / ("pages" if language == i18n.ENGLISH else f"pages-{language}")
    folder.mkdir(parents=True, exist_ok=True)
    pages = every_page(server)
    problems: list[str] = []
    for size, viewport in SIZES.items():
        context = _context(browser, server, language, viewport)
        tab = context.new_page()
        tab.on("pageerror", lambda error, size=size: problems.append(f"{size}: {error}"))
        for shown in pages:
            _open(tab, shown.path, shown.status, shown.game, shown.name)
            assert tab.evaluate("() => document.documentElement.lang") == language, shown.name
            wide = tab.evaluate("() => document.documentElement.scrollWidth")
            if wide > viewport["width"]:
                problems.append(f"{shown.name} ({size}) is {wide}px wide")
            tab.screenshot(path=str(folder / f"{shown.name}-{size}.png"), full_page=True)
        context.close()
    assert not problems, "\n".join(problems)
    assert len(list(folder.glob("*.png"))) >= 2 * len(pages)


def test_nothing_sticks_out_of_a_narrow_phone_in_any_language(
    server: Server, browser: Browser
) -> None:
    pages = every_page(server)
    problems: list[str] = []
    for language in i18n.LANGUAGES:
        context = _context(browser, server, language, NARROW)
        tab = context.new_page()
        for shown in pages:
            _open(tab, shown.path, shown.status, shown.game, shown.name)
            out = tab.evaluate(_STICKING_OUT)
            if out:
                problems.append(f"{shown.name} ({language}, 360px): {', '.join(out)}")
        context.close()
    assert not problems, "\n".join(problems)


MAIL_WIDTHS = {"desktop": {"width": 800, "height": 900}, "phone": {"width": 390, "height": 844}}


@pytest.mark.parametrize("language", i18n.LANGUAGES)
def test_every_email_as_a_mail_client_shows_it(
    server: Server, browser: Browser, screenshots: Path, language: str
) -> None:
    """The HTML part of every kind of email, in each language, as a mail client's reading pane
    and a phone show it (its picture's cid: link is blank here), into `mail[-<language>]/`; no
    email is wider than the phone."""
    folder = screenshots / ("mail" if language == i18n.ENGLISH else f"mail-{language}")
    folder.mkdir(parents=True, exist_ok=True)
    with server.app.app_context():
        game = start("gorami", {"board": 16})
        written = {
            f"{kind}-{number}": outbox.render(kind, letter.context, language)[2]
            for kind, letters in _one_letter_of_each_kind(game).items()
            for number, letter in enumerate(letters)
        }
    problems: list[str] = []
    for size, viewport in MAIL_WIDTHS.items():
        context = browser.new_context(viewport=viewport, java_script_enabled=False)
        tab = context.new_page()
        for name, html in written.items():
            tab.set_content(html)
            assert tab.evaluate("() => document.documentElement.lang") == language, name
            wide = tab.evaluate("() => document.documentElement.scrollWidth")
            if wide > viewport["width"]:
                problems.append(f"{name} ({size}) is {wide}px wide")
            tab.screenshot(path=str(folder / f"{name}-{size}.png"), full_page=True)
        context.close()
    assert not problems, "\n".join(problems)
