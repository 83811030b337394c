"""Marram on a phone (390×844 and 360×640, touch): the board pans and zooms inside a box of its
own (drag, pinch, and the buttons above it), opens centred on the last turn, and the page never
scrolls sideways; the scores and the player's hand are in the first screen."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, Page, expect

from tests.browser.conftest import Server
from tests.browser.seated import advance, running_game
from tests.browser.test_play_layout import PHONE, SMALL, no_sideways_scroll, rect

SHOTS = Path("/tmp/shots14/g2")


def view_box(page: Page) -> list[float]:
    text = page.locator("#board svg").get_attribute("viewBox") or ""
    return [float(n) for n in text.split()]


def scale(page: Page) -> float:
    return float(page.locator("#board").get_attribute("data-scale") or 0)


def latest_turn(page: Page) -> dict[str, Any]:
    """The screen box of the turn played last (the engines mark each player's last turn)."""
    found: dict[str, Any] = page.evaluate(
        """() => {
            let best = null, ply = -1;
            for (const mark of document.querySelectorAll('#board .last-turn[data-plies]')) {
                const last = Math.max(...mark.dataset.plies.split(' ').map(Number));
                if (last > ply) { best = mark; ply = last; }
            }
            const r = best.getBoundingClientRect();
            return { x: r.x, y: r.y, width: r.width, height: r.height, seat: best.dataset.seat };
        }"""
    )
    return found


def centre(box: dict[str, float]) -> tuple[float, float]:
    return box["x"] + box["width"] / 2, box["y"] + box["height"] / 2


@pytest.mark.parametrize("size", [PHONE, SMALL], ids=["390x844", "360x640"])
def test_marram_pans_and_zooms_on_a_phone(
    server: Server, browser: Browser, size: dict[str, int]
) -> None:
    running = running_game(server, "marram", {"variant": "classic"}, ["Ann", "Ben", "Cat"], seed=3)
    state = advance(server, running, 12)
    assert state.to_move is not None
    context = browser.new_context(
        base_url=server.url, viewport=size, has_touch=True, is_mobile=True, device_scale_factor=2
    )
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(running.seat(state.to_move).path)
    page.evaluate("() => window.pbemPlay.ready")
    label = f"{size['width']}x{size['height']}"
    board = page.locator("#board")
    expect(board).to_have_attribute("data-zoom", "on")
    no_sideways_scroll(page)
    # The scores and the hand are in the first screen, above the board.
    for what in ("#summary", ".pbem-notes"):
        assert rect(page.locator(what))["y"] < size["height"], what
    box = rect(board)
    assert box["x"] >= 0 and box["x"] + box["width"] <= size["width"]
    toolbar = page.locator(".pbem-zoom")
    expect(toolbar).to_be_visible()
    expect(toolbar).to_contain_text("drag to move")

    # Opened centred on the last turn, at a scale where a tile can be tapped.
    board.scroll_into_view_if_needed()
    page.screenshot(path=str(SHOTS / f"phone-marram-{label}-1-opened.png"))
    box = rect(board)
    turn = latest_turn(page)
    (bx, by), (tx, ty) = centre(box), centre(turn)
    assert abs(bx - tx) < box["width"] * 0.2 and abs(by - ty) < box["height"] * 0.2, (box, turn)
    assert scale(page) >= 0.5
    opened = view_box(page)

    # The buttons: in, out, the whole board, and back to the last turn.
    before = scale(page)
    page.click('.pbem-zoom [data-zoom="in"]')
    assert scale(page) > before * 1.2
    page.click('.pbem-zoom [data-zoom="out"]')
    page.click('.pbem-zoom [data-zoom="out"]')
    assert scale(page) < before
    page.click('.pbem-zoom [data-zoom="whole"]')
    whole = page.evaluate(
        """() => {
            const svg = document.querySelector('#board svg');
            const b = document.querySelector('#board');
            const [, , w, h] = svg.dataset.viewBox.split(' ').map(Number);
            return Math.min(b.clientWidth / w, b.clientHeight / h); }"""
    )
    assert scale(page) == pytest.approx(whole, rel=0.01)
    page.screenshot(path=str(SHOTS / f"phone-marram-{label}-2-whole.png"))
    page.click('.pbem-zoom [data-zoom="home"]')
    assert view_box(page) == pytest.approx(opened, abs=0.5)

    # A finger dragging moves the view with it, and chooses nothing on the way.
    tile = page.locator(".pbem-tile:not([disabled])").first
    tile.click()
    board.scroll_into_view_if_needed()
    box = rect(board)
    cdp = context.new_cdp_session(page)

    def touch(kind: str, points: list[tuple[float, float]]) -> None:
        cdp.send(
            "Input.dispatchTouchEvent",
            {
                "type": kind,
                "touchPoints": [{"x": x, "y": y, "id": i} for i, (x, y) in enumerate(points)],
            },
        )

    x0, y0 = centre(box)
    at = view_box(page)
    s = scale(page)
    touch("touchStart", [(x0, y0)])
    for step in range(1, 6):
        touch("touchMove", [(x0 - 12 * step, y0 - 8 * step)])
    touch("touchEnd", [])
    moved = view_box(page)
    assert moved[0] > at[0] or moved[1] > at[1], (at, moved)
    dragged = max(moved[0] - at[0], moved[1] - at[1])
    assert dragged == pytest.approx(60 / s, rel=0.35) or dragged == pytest.approx(40 / s, rel=0.35)
    expect(page.locator("#board .pbem-preview")).to_have_count(0)

    # Two fingers spreading apart zoom in around them.
    s = scale(page)
    touch("touchStart", [(x0 - 30, y0), (x0 + 30, y0)])
    for step in range(1, 6):
        touch("touchMove", [(x0 - 30 - 12 * step, y0), (x0 + 30 + 12 * step, y0)])
    touch("touchEnd", [])
    assert scale(page) > s * 1.5, (s, scale(page))
    no_sideways_scroll(page)

    # A place out of view comes into view when the keyboard reaches it; a tap chooses it.
    page.click('.pbem-zoom [data-zoom="home"]')
    spots = page.locator("#board .frontier.pbem-target")
    expect(spots.first).to_have_attribute("tabindex", "0")
    far = page.evaluate(
        """() => { const b = document.querySelector('#board').getBoundingClientRect();
            const spots = Array.from(document.querySelectorAll('#board .frontier.pbem-target'));
            const out = spots.findIndex((n) => {
                const r = n.getBoundingClientRect();
                return r.right < b.left || r.left > b.right || r.bottom < b.top || r.top > b.bottom;
            });
            return out; }"""
    )
    target = spots.nth(far if far >= 0 else 0)
    target.focus()
    box = rect(board)
    spot = rect(target)
    assert box["x"] <= spot["x"] and spot["x"] + spot["width"] <= box["x"] + box["width"] + 0.5
    assert box["y"] <= spot["y"] and spot["y"] + spot["height"] <= box["y"] + box["height"] + 0.5
    target.tap()
    expect(page.locator("#board .pbem-preview")).to_have_count(1)
    expect(page.locator("#pending .pbem-confirm")).to_be_in_viewport()
    no_sideways_scroll(page)
    page.screenshot(path=str(SHOTS / f"phone-marram-{label}-3-chosen.png"))
    assert not errors, errors
    context.close()
