"""Every game played with the keyboard alone: Tab reaches each choice (the picker's buttons, the
board's cells, squares and tiles, Confirm), Enter or Space takes it, and the focus shows."""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.sync_api import Browser, BrowserContext, Page, expect

from pbem.games import State
from tests.browser.conftest import Server
from tests.browser.seated import running_game, state_of
from tests.browser.test_play_layout import DESKTOP, PHONE, simple_move

SHOTS = Path("/tmp/shots14/g2")
TAB_LIMIT = 400  # presses of Tab before a choice counts as unreachable


def tab_to(page: Page, selector: str, backwards: bool = False) -> None:
    """Presses Tab (Shift+Tab) until the focus is on `selector`."""
    key = "Shift+Tab" if backwards else "Tab"
    for _ in range(TAB_LIMIT):
        if page.evaluate("(s) => !!document.activeElement?.matches(s)", selector):
            return
        page.keyboard.press(key)
    raise AssertionError(f"{selector} cannot be reached with the keyboard")


def focus_shows(page: Page) -> None:
    """The focused element is marked: an outline, or the engine's own highlight."""
    shown = page.evaluate(
        """() => {
            const node = document.activeElement;
            if (!node.matches(":focus-visible")) return "not focus-visible";
            const style = getComputedStyle(node);
            const ring = style.outlineStyle !== "none" && parseFloat(style.outlineWidth) > 0;
            const glow = style.filter && style.filter !== "none";
            // A cell's or square's own outline drawn in the focus colour (pbem.css).
            const blue = (shape) => getComputedStyle(shape).stroke === "rgb(28, 126, 214)";
            const shapes = [node, ...node.children].filter(
                (c) => ["polygon", "rect"].includes(c.nodeName));
            const stroke = shapes.some(blue);
            return ring || glow || stroke ? "" : "no visible focus";
        }"""
    )
    assert not shown, shown


def press_on(page: Page, selector: str, key: str = "Enter") -> None:
    tab_to(page, selector)
    focus_shows(page)
    page.keyboard.press(key)


@pytest.mark.parametrize("size", [DESKTOP, PHONE], ids=["desktop", "phone"])
@pytest.mark.parametrize(
    ("engine", "options", "names"),
    [
        ("gorami", {"board": 16}, ["Ann", "Ben"]),
        ("mmw", {}, ["Ann", "Ben"]),
        ("marram", {"variant": "classic"}, ["Ann", "Ben", "Cat"]),
    ],
    ids=["gorami", "mmw", "marram"],
)
def test_a_move_with_the_keyboard_alone(
    server: Server,
    browser: Browser,
    engine: str,
    options: dict[str, object],
    names: list[str],
    size: dict[str, int],
) -> None:
    running = running_game(server, engine, options, names, seed=8)
    state = state_of(server, running.game_id)
    assert state.to_move is not None
    move = simple_move(engine, state)
    context = browser.new_context(base_url=server.url, viewport=size)
    page = context.new_page()
    page.goto(running.seat(state.to_move).path)
    page.evaluate("() => window.pbemPlay.ready")
    page.locator("body").focus()
    if engine == "gorami":
        press_on(page, f'.pbem-disc[data-number="{move[0]}"]', " ")
        press_on(page, f'#board [data-cell="{move[1:]}"]')
    elif engine == "mmw":
        source, target = move.split("-")
        press_on(page, f'#board .square[data-square="{source}"]')
        press_on(page, f'#board .square[data-square="{target}"]')
    else:
        _, tile, pos, _rotation = move.split()
        press_on(page, f'.pbem-tile[data-tile="{tile}"]')
        spot = f'#board .frontier.pbem-target[data-pos="{pos}"]'
        # Tab goes forward through the page: the board is before the picker, so go back to it.
        tab_to(page, spot, backwards=True)
        focus_shows(page)
        if page.locator("#board").get_attribute("data-zoom") == "on":
            # A board larger than its box brings the focused place into view.
            box = page.locator("#board").bounding_box()
            at = page.locator(spot).bounding_box()
            assert box and at
            assert box["x"] <= at["x"] and at["x"] + at["width"] <= box["x"] + box["width"]
            assert box["y"] <= at["y"] and at["y"] + at["height"] <= box["y"] + box["height"]
        page.keyboard.press("Enter")
    expect(page.locator("#pending .pbem-choice-move")).to_have_text(move)
    label = "desktop" if size == DESKTOP else "phone"
    page.screenshot(path=str(SHOTS / f"keyboard-{engine}-{label}.png"))
    # Confirm is reachable too, and sends the move.
    press_on(page, "#pending .pbem-confirm")
    expect(page.locator("#status")).to_have_attribute("data-ply", "1", timeout=20_000)
    assert state_of(server, running.game_id).history == [move]
    context.close()


def _turn_page(
    server: Server, browser: Browser, engine: str, options: dict[str, object], seed: int
) -> tuple[BrowserContext, Page, State]:
    """A new game's page, at desktop size, for the seat to move, ready; and the game's state."""
    running = running_game(server, engine, options, ["Ann", "Ben"], seed=seed)
    state = state_of(server, running.game_id)
    assert state.to_move is not None
    context = browser.new_context(base_url=server.url, viewport=DESKTOP)
    page = context.new_page()
    page.goto(running.seat(state.to_move).path)
    page.evaluate("() => window.pbemPlay.ready")
    return context, page, state


def test_escape_cancels_and_names_are_read(server: Server, browser: Browser) -> None:
    """Escape drops the move being built; every choice on the board has a name to be read by."""
    context, page, state = _turn_page(server, browser, "mmw", {}, seed=8)
    unnamed = page.evaluate(
        """() => Array.from(document.querySelectorAll('#board [tabindex]')).filter((n) =>
            !n.getAttribute('aria-label') && !n.querySelector(':scope > title')).length"""
    )
    assert page.locator("#board [tabindex]").count() > 0 and unnamed == 0
    source, target = simple_move("mmw", state).split("-")
    press_on(page, f'#board .square[data-square="{source}"]')
    press_on(page, f'#board .square[data-square="{target}"]')
    expect(page.locator("#pending .pbem-confirm")).to_be_in_viewport()
    page.locator("body").focus()
    page.keyboard.press("Escape")
    expect(page.locator("#pending .pbem-confirm")).to_have_count(0)
    context.close()


@pytest.mark.parametrize(
    ("engine", "options"),
    [("marram", {"variant": "classic"}), ("gorami", {"board": 22}), ("mmw", {})],
)
def test_every_named_choice_has_a_role(
    server: Server, browser: Browser, engine: str, options: dict[str, object]
) -> None:
    """aria-label is prohibited on an element without a role (a plain <g>): every named choice
    on the board is a button or keeps a role of its own."""
    context, page, _ = _turn_page(server, browser, engine, options, seed=3)
    assert page.locator("#board [tabindex]").count() > 0
    bare = page.evaluate(
        """() => Array.from(document.querySelectorAll('#board [aria-label]')).filter((n) =>
            !n.getAttribute('role') && n.tagName.toLowerCase() !== 'svg'
        ).map((n) => n.outerHTML.slice(0, 80))"""
    )
    assert bare == []
    context.close()
