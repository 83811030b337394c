"""Playing the game page with a finger: a touch-screen browser context, taps that first check
the spot can really be tapped (on the screen, inside the board's box, not under the zoom buttons
or the bar: `elementFromPoint` at its centre lands on it), a finger dragging the board, every
lit place of a choice checked, moves of each engine built by taps alone, and the confirm step
checked to show what it confirms."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from playwright.sync_api import Browser, BrowserContext, Locator, Page, expect

from tests.browser.conftest import Server

SHOTS = Path("/tmp/shots_h5")
SMALL = {"width": 360, "height": 640}
PHONE = {"width": 390, "height": 844}
LARGE = {"width": 412, "height": 915}
DESKTOP = {"width": 1280, "height": 900}

# What each engine lights as the places a choice can go, and what pictures the move to confirm.
LIT = {
    "gorami": "#board .cell.pbem-target",
    "mmw": "#board .square.pbem-source, #board .square.pbem-target",
    "marram": "#board .frontier.pbem-target, #board .tile.pbem-flippable",
}
CHOSEN = {
    "gorami": "#board .cell.pbem-selected",
    "mmw": "#board .square.pbem-chosen",
    "marram": "#board .pbem-preview",
}

# Where a node is on the screen and whether a finger at its centre reaches it: the element there
# is the node, inside it, or (a pyramid drawn over a square) names the same square.
PROBE = """(node) => {
    const r = node.getBoundingClientRect();
    const b = document.querySelector('#board').getBoundingClientRect();
    const x = r.left + r.width / 2, y = r.top + r.height / 2;
    const inBox = r.left >= b.left - 1 && r.right <= b.right + 1
        && r.top >= b.top - 1 && r.bottom <= b.bottom + 1;
    const outOfBox = r.right <= b.left + 1 || r.left >= b.right - 1
        || r.bottom <= b.top + 1 || r.top >= b.bottom - 1;
    const onScreen = x >= 0 && x <= innerWidth && y >= 0 && y <= innerHeight;
    const hit = onScreen ? document.elementFromPoint(x, y) : null;
    const key = ['cell', 'square', 'pos', 'loc'].find((k) => node.dataset[k] !== undefined);
    const owner = hit && key ? hit.closest(`[data-${key}]`) : null;
    const reached = Boolean(hit) && (node.contains(hit) || (owner !== null
        && owner.dataset[key] === node.dataset[key]
        && !owner.closest('.pbem-preview') === !node.closest('.pbem-preview')));
    const what = hit ? (hit.closest('[id]') || hit).id || hit.tagName : null;
    return { x, y, inBox, outOfBox, onScreen, reached, over: what,
             name: key ? node.dataset[key] : node.textContent.trim(),
             rect: [r.left, r.top, r.width, r.height], box: [b.left, b.top, b.width, b.height],
             zoomed: document.querySelector('#board').dataset.zoom === 'on' };
}"""


@dataclass
class Finger:
    """A page in a touch-screen context (`is_mobile` below desktop widths)."""

    context: BrowserContext
    page: Page

    def close(self) -> None:
        self.context.close()


def finger(browser: Browser, server: Server, size: dict[str, int]) -> Finger:
    context = browser.new_context(
        base_url=server.url,
        viewport=size,
        has_touch=True,
        is_mobile=size["width"] < 1000,
    )
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.set_default_timeout(15_000)
    setattr(page, "pbem_errors", errors)  # noqa: B010 (read back by no_script_errors)
    return Finger(context, page)


def no_script_errors(page: Page) -> None:
    errors: list[str] = getattr(page, "pbem_errors", [])
    assert not errors, errors


def open_seat(page: Page, path: str) -> None:
    """Opens a seat's game page; nothing on it is wider than the screen (a phone's browser would
    zoom the whole page out to show it)."""
    page.goto(path)
    page.evaluate("() => window.pbemPlay.ready")
    size = page.viewport_size
    assert size is not None
    wide = page.evaluate("() => [innerWidth, document.documentElement.scrollWidth]")
    assert wide == [size["width"], size["width"]], f"wider than the screen: {wide}"


def shoot(page: Page, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"{name}.png"))


def probe(locator: Locator) -> dict[str, Any]:
    found: dict[str, Any] = locator.evaluate(PROBE)
    return found


def rect(locator: Locator) -> dict[str, float]:
    box = locator.bounding_box()
    assert box is not None, f"{locator} is not displayed"
    return box


def bar_top(page: Page) -> float:
    """The top of the bar holding Confirm, or the screen's bottom when there is none."""
    top: float = page.evaluate(
        """() => { const bar = document.querySelector('#pending');
            const fixed = bar && getComputedStyle(bar).position === 'fixed';
            return fixed ? bar.getBoundingClientRect().top : innerHeight; }"""
    )
    return top


def scroll_to(page: Page, locator: Locator) -> None:
    """The page moved as a thumb moves it, until `locator` sits mid-screen above the bar."""
    page.evaluate(
        """([node, bottom]) => { const r = node.getBoundingClientRect();
            const want = Math.max(8, (bottom - r.height) / 2);
            if (r.top < 8 || r.bottom > bottom - 8) window.scrollBy(0, r.top - want); }""",
        [locator.element_handle(), bar_top(page)],
    )


def drag(page: Page, start: tuple[float, float], by: tuple[float, float]) -> None:
    """A finger put down at `start` and moved by `by` in steps, then lifted."""
    cdp = page.context.new_cdp_session(page)
    steps = max(3, int(max(abs(by[0]), abs(by[1])) // 30) + 1)

    def touch(kind: str, points: list[tuple[float, float]]) -> None:
        cdp.send(
            "Input.dispatchTouchEvent",
            {"type": kind, "touchPoints": [{"x": x, "y": y} for x, y in points]},
        )

    x0, y0 = start
    touch("touchStart", [(x0, y0)])
    for step in range(1, steps + 1):
        touch("touchMove", [(x0 + by[0] * step / steps, y0 + by[1] * step / steps)])
    # The finger comes to rest before it lifts, as a hand placing the view does: lifted while
    # moving, it flings, and Chromium spends the next tap on stopping the fling (no click).
    page.wait_for_timeout(150)
    touch("touchMove", [(x0 + by[0], y0 + by[1])])
    touch("touchEnd", [])
    cdp.detach()


def drag_board_to(page: Page, node: Locator) -> None:
    """Drags a zoomed board until `node` is wholly in its box (a finger panning the view)."""
    for _ in range(4):
        seen = probe(node)
        if seen["inBox"] or not seen["zoomed"]:
            return
        bx, by, bw, bh = seen["box"]
        cx, cy = bx + bw / 2, by + bh / 2
        # Start in the box's middle, clear of the page's edges, and move the node to it.
        dx = max(-bw / 2 + 10, min(bw / 2 - 10, cx - seen["x"]))
        dy = max(-bh / 2 + 10, min(bh / 2 - 10, cy - seen["y"]))
        drag(page, (cx - dx / 2, cy - dy / 2), (dx, dy))
    assert probe(node)["inBox"], ("could not drag into the box", probe(node))


def tap_on_board(page: Page, node: Locator) -> None:
    """Taps a place on the board the way a player would reach it: the page scrolled to the
    board, a zoomed board dragged until the place is in its box; then checks a finger at its
    centre lands on it, and taps there."""
    expect(node).to_have_count(1)
    scroll_to(page, page.locator("#board"))
    drag_board_to(page, node)
    scroll_to(page, node)
    tappable(page, node)
    seen = probe(node)
    page.touchscreen.tap(seen["x"], seen["y"])


def tappable(page: Page, node: Locator) -> None:
    seen = probe(node)
    assert seen["inBox"], ("half outside the board's box", seen)
    assert seen["onScreen"] and seen["y"] <= bar_top(page), ("not on the screen", seen)
    assert seen["reached"], (f"a finger at its centre lands on {seen['over']}", seen)


def every_lit_place_tappable(page: Page, engine: str) -> int:
    """With the board scrolled into view: no lit place is cut by the board's box, and a finger at
    the centre of each one in it lands on it (none under the zoom buttons or the bar). Returns
    how many are in the box."""
    scroll_to(page, page.locator("#board"))
    lit = page.locator(LIT[engine])
    inside = 0
    for index in range(lit.count()):
        seen = probe(lit.nth(index))
        assert seen["inBox"] or seen["outOfBox"], ("a lit place cut by the box's edge", seen)
        if seen["inBox"]:
            inside += 1
            tappable(page, lit.nth(index))
    assert lit.count() == 0 or inside > 0, "no lit place in view"
    return inside


def confirm_shows_the_move(page: Page, engine: str, move: str) -> None:
    """Confirm is on the screen, and so is what it confirms: the piece as placed, wholly in the
    board's box and above the bar (the screen shows it whole, with the move's words)."""
    expect(page.locator("#pending .pbem-choice-move")).to_have_text(move)
    confirm = page.locator("#pending .pbem-confirm")
    size = page.viewport_size
    assert size is not None
    box = rect(confirm)
    assert box["y"] >= 0 and box["y"] + box["height"] <= size["height"] + 0.5, box
    chosen = page.locator(CHOSEN[engine]).first
    seen = probe(chosen)
    x, y, w, h = seen["rect"]
    assert seen["inBox"], ("the move's piece is cut by the board's box", seen)
    assert y >= -0.5 and y + h <= bar_top(page) + 0.5, ("the move's piece is off the screen", seen)
    assert x >= -0.5 and x + w <= size["width"] + 0.5, seen


def board_in_first_screen(page: Page) -> None:
    """The board starts in the first screen, with at least a third of the screen showing it."""
    size = page.viewport_size
    assert size is not None
    top = page.evaluate(
        "() => document.querySelector('#board').getBoundingClientRect().top + scrollY"
    )
    assert top <= size["height"] * 2 / 3, f"the board starts at {top}px of {size['height']}"


def words_never_cover_resign(page: Page) -> None:
    """With words but no move in the bar's place, scrolled until Resign is at the screen's
    bottom edge, as a thumb stops when it appears: a finger on it lands on it."""
    resign = page.locator("#resign")
    expect(resign).to_have_count(1)
    expect(page.locator("#pending .pbem-message")).to_have_count(1)
    expect(page.locator("#pending .pbem-confirm")).to_have_count(0)
    page.evaluate(
        """(node) => { const r = node.getBoundingClientRect();
            window.scrollBy(0, r.bottom - innerHeight + 2); }""",
        resign.element_handle(),
    )
    box = rect(resign)
    hit = page.evaluate(
        """([x, y]) => { const e = document.elementFromPoint(x, y);
            return e !== null && e.closest('#resign') !== null; }""",
        [box["x"] + box["width"] / 2, box["y"] + box["height"] / 2],
    )
    assert hit, "something covers Resign"


def build_by_taps(page: Page, engine: str, move: str) -> None:
    """Builds `move` with taps alone (picker buttons, places on the board), checking every set of
    lit places on the way, then checks the confirm step shows the move."""
    if engine == "gorami":
        _gorami(page, move)
    elif engine == "mmw":
        _mmw(page, move)
    else:
        _marram(page, move)
    confirm_shows_the_move(page, engine, move)


def confirm_by_tap(page: Page) -> None:
    page.locator("#pending .pbem-confirm").tap()
    expect(page.locator("#pending .pbem-message.pbem-ok")).to_contain_text("was played")
    page.evaluate("() => window.pbemPlay.ready")


def _gorami(page: Page, move: str) -> None:
    number, cell = move[0], move[1:]
    disc = page.locator(f'.pbem-disc[data-number="{number}"]')
    if disc.get_attribute("aria-pressed") != "true":
        disc.tap()
        expect(disc).to_have_attribute("aria-pressed", "true")
    every_lit_place_tappable(page, "gorami")
    tap_on_board(page, page.locator(f'#board .cell[data-cell="{cell}"]'))


def _mmw(page: Page, move: str) -> None:
    source, target = move.split("-")
    every_lit_place_tappable(page, "mmw")
    tap_on_board(page, page.locator(f'#board .square[data-square="{source}"]'))
    expect(page.locator(f'#board .square.pbem-selected[data-square="{source}"]')).to_have_count(1)
    every_lit_place_tappable(page, "mmw")
    tap_on_board(page, page.locator(f'#board .square[data-square="{target}"]'))


def _marram(page: Page, move: str) -> None:
    words = move.split()
    if words[0] == "pass":
        page.locator(".pbem-pass").tap()
        return
    if words[0] == "place":
        pos, rotation, rest = words[2], words[3], words[4:]
        page.locator(f'.pbem-tile[data-tile="{words[1]}"]').tap()
        every_lit_place_tappable(page, "marram")
        tap_on_board(page, page.locator(f'#board .frontier.pbem-target[data-pos="{pos}"]'))
    else:
        pos, rotation, rest = words[1], words[2], words[3:]
        page.locator(".pbem-flip-mode").tap()
        every_lit_place_tappable(page, "marram")
        tap_on_board(page, page.locator(f'#board .tile.pbem-flippable[data-pos="{pos}"]'))
    turned = page.locator(".pbem-rotate .pbem-rot-words")
    for _ in range(4):
        if turned.get_attribute("data-rotation") == rotation:
            break
        page.locator(".pbem-rotate .pbem-rot-right").tap()
    expect(turned).to_have_attribute("data-rotation", rotation)
    claim = rest[:2] if rest and rest[0] != "bet" else []
    bet = rest[-1] if "bet" in rest else None
    if claim:
        # On the tile itself, as a finger would; the chip says which token when a spot takes two.
        kind, loc = claim
        tap_on_board(page, page.locator(f'#board .pbem-preview .pbem-loc[data-loc="{loc}"]'))
        chip = page.locator(f'.pbem-chip[data-claim="{kind} {loc}"]')
        if chip.get_attribute("aria-pressed") != "true":
            chip.tap()
    if bet:
        page.locator(f'.pbem-chip[data-bet="{bet}"]').tap()
