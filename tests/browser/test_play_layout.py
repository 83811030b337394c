"""The game page's layout at 1280×800, 390×844 and 360×640, in every game: the whole board in view
on a wide screen, never a sideways scroll, and once a move is chosen, Confirm and Cancel in view
without scrolling, with nothing the player needs (the spot just chosen, the end of the page)
left under the bar that holds them. Screenshots in /tmp/shots14/g2/."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, Locator, Page, expect

from pbem import games
from tests.browser.conftest import Server
from tests.browser.seated import advance, running_game

SHOTS = Path("/tmp/shots14/g2")
DESKTOP = {"width": 1280, "height": 800}
PHONE = {"width": 390, "height": 844}
SMALL = {"width": 360, "height": 640}
SIZES = {"desktop": DESKTOP, "phone": PHONE, "small": SMALL}

GAMES = [
    ("gorami", {"board": 22}, ["Ann", "Ben"], 6),
    ("mmw", {}, ["Ann", "Ben"], 4),
    ("marram", {"variant": "classic"}, ["Ann", "Ben", "Cat"], 12),
]
# A name as long as an organiser may give: the heading takes two lines on a wide screen.
TITLES = {"mmw": "Wednesday lunchtime wrestling at the office, round 2"}


# What each game's controller marks as the spot just chosen.
CHOSEN = {
    "gorami": "#board .cell.pbem-selected",
    "mmw": "#board .square.pbem-chosen",
    "marram": "#board .pbem-preview",
}


def shoot(page: Page, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"{name}.png"))


def reachable(locator: Locator) -> None:
    """Brought into view the way the keyboard brings it: focused (a zoomed board pans to it)."""
    expect(locator).to_have_attribute("tabindex", "0")
    locator.focus()


def choose(page: Page, engine: str, move: str) -> None:
    """Builds `move` on the board as a player would, clicking; checks the page proposes it."""
    if engine == "gorami":
        page.click(f'.pbem-disc[data-number="{move[0]}"]')
        cell = page.locator(f'#board [data-cell="{move[1:]}"]')
        reachable(cell)
        cell.click()
    elif engine == "mmw":
        source, target = (f'#board .square[data-square="{s}"]' for s in move.split("-"))
        reachable(page.locator(source))
        page.click(source, force=True)  # the pyramids drawn on a square take the click too
        reachable(page.locator(target))
        page.click(target, force=True)
    else:
        _, tile, pos, *_ = move.split()
        page.click(f'.pbem-tile[data-tile="{tile}"]')
        spot = page.locator(f'#board .frontier.pbem-target[data-pos="{pos}"]')
        reachable(spot)
        spot.click()
    expect(page.locator("#pending .pbem-choice-move")).to_have_text(move)


def simple_move(engine: str, state: games.State) -> str:
    """A move that two clicks build: Marram's first rotation of a tile with no claim."""
    legal = state.legal_moves()
    if engine != "marram":
        return legal[-1]
    places = [m.split() for m in legal if m.startswith("place ") and len(m.split()) == 4]
    for words in places:
        rotations = {int(w[3]) for w in places if w[1:3] == words[1:3]}
        claimed = {
            int(m.split()[3]) for m in legal if m.startswith(f"place {words[1]} {words[2]} ")
        }
        if int(words[3]) == min(claimed) and int(words[3]) in rotations:
            return " ".join(words)
    raise AssertionError("no two-click placement")


def metrics(page: Page) -> dict[str, Any]:
    found: dict[str, Any] = page.evaluate(
        """() => ({
            scrollWidth: document.documentElement.scrollWidth,
            innerWidth: innerWidth,
            innerHeight: innerHeight,
            scrollY: scrollY,
            maxScroll: document.documentElement.scrollHeight - innerHeight,
        })"""
    )
    return found


def rect(locator: Locator) -> dict[str, float]:
    box = locator.bounding_box()
    assert box is not None, f"{locator} has no box: not displayed"
    return box


def in_viewport(box: dict[str, float], page: Page, what: str) -> None:
    size = page.viewport_size
    assert size is not None
    assert box["x"] >= 0 and box["x"] + box["width"] <= size["width"] + 0.5, (what, box)
    assert box["y"] >= 0 and box["y"] + box["height"] <= size["height"] + 0.5, (what, box)


def overlaps(a: dict[str, float], b: dict[str, float]) -> bool:
    return (
        a["x"] < b["x"] + b["width"]
        and b["x"] < a["x"] + a["width"]
        and a["y"] < b["y"] + b["height"]
        and b["y"] < a["y"] + a["height"]
    )


def holds(outer: dict[str, float], inner: dict[str, float]) -> bool:
    """Whether `inner` lies wholly in `outer`, to a pixel."""
    return (
        inner["x"] >= outer["x"] - 1
        and inner["y"] >= outer["y"] - 1
        and inner["x"] + inner["width"] <= outer["x"] + outer["width"] + 1
        and inner["y"] + inner["height"] <= outer["y"] + outer["height"] + 1
    )


def no_sideways_scroll(page: Page) -> None:
    m = metrics(page)
    assert m["scrollWidth"] <= m["innerWidth"], f"the page scrolls sideways: {m}"


@pytest.mark.parametrize(("engine", "options", "names", "plies"), GAMES, ids=[g[0] for g in GAMES])
def test_confirm_and_cancel_stay_in_view(
    server: Server,
    browser: Browser,
    engine: str,
    options: dict[str, object],
    names: list[str],
    plies: int,
) -> None:
    running = running_game(server, engine, options, names, seed=3, title=TITLES.get(engine))
    state = advance(server, running, plies)
    assert state.to_move is not None
    mover = running.seat(state.to_move)
    move = simple_move(engine, state)
    for label, size in SIZES.items():
        context = browser.new_context(base_url=server.url, viewport=size)
        page = context.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda error, seen=errors: seen.append(str(error)))
        page.goto(mover.path)
        page.evaluate("() => window.pbemPlay.ready")
        no_sideways_scroll(page)
        board = page.locator("#board")
        if label == "desktop" and board.get_attribute("data-zoom") != "on":
            # The whole drawing, the player's own home row too, is in view as the page opens.
            in_viewport(rect(page.locator("#board svg")), page, "the board")
        else:
            assert rect(board)["width"] <= size["width"]
        # Who plays and the scores are in the first screen, each player marked by a letter too.
        summary = rect(page.locator("#summary"))
        assert summary["y"] < size["height"] and summary["x"] + summary["width"] <= size["width"]
        marks = page.locator("#summary .pbem-swatch")
        expect(marks).to_have_count(len(names))
        for index in range(len(names)):
            expect(marks.nth(index)).to_have_text(re.compile(r"^[A-Z]$"))
        # Players are called by name everywhere, the board's own lists too; never "seat 2".
        text = page.locator("body").inner_text() + (page.locator("#board").text_content() or "")
        assert not re.search(r"\bseat \d", text, re.I)
        # The moves so far read left to right, row by row, where there is room for two columns.
        items = page.locator("#history li")
        first, second = rect(items.nth(0)), rect(items.nth(1))
        if label == "desktop":
            assert second["x"] > first["x"] and abs(second["y"] - first["y"]) < 2
        else:
            assert second["y"] > first["y"]
        shoot(page, f"{engine}-{label}-1-opened")

        choose(page, engine, move)
        confirm = page.locator("#pending .pbem-confirm")
        cancel = page.locator("#pending .pbem-cancel")
        in_viewport(rect(confirm), page, "Confirm")
        in_viewport(rect(cancel), page, "Cancel")
        no_sideways_scroll(page)
        bar = rect(page.locator("#pending"))
        # The spot just chosen is not hidden under the bar.
        chosen = page.locator(CHOSEN[engine]).first
        assert not overlaps(rect(chosen), bar), (label, rect(chosen), bar)
        if label == "desktop":
            # Beside the board, never over it.
            assert not overlaps(rect(page.locator("#board")), bar)
        shoot(page, f"{engine}-{label}-2-chosen")

        # Scrolled to the very end, the page's last line is above the bar, not under it.
        page.evaluate("() => window.scrollTo(0, document.documentElement.scrollHeight)")
        in_viewport(rect(confirm), page, "Confirm, scrolled to the end")
        last = rect(page.locator("#history-section .pbem-links"))
        bar = rect(page.locator("#pending"))
        assert last["y"] + last["height"] <= bar["y"] + 0.5, (label, last, bar)
        shoot(page, f"{engine}-{label}-3-end")

        # Cancel takes the bar away, and the page's padding with it.
        cancel.click()
        expect(page.locator("#pending .pbem-confirm")).to_have_count(0)
        page.wait_for_function(
            """() => !document.documentElement.classList.contains("pbem-bar")
                || document.querySelector("#pending .pbem-message")"""
        )
        assert not errors, errors
        context.close()


def test_what_a_move_costs_shows_in_the_bar(server: Server, browser: Browser) -> None:
    """The page data's `warnings` (an engine's `board_assets`: a move, or the first words of
    moves, and what they cost) show under the move to confirm, as MMW's sinking warning does."""
    running = running_game(server, "mmw", {}, ["Ann", "Ben"], seed=3)
    state = advance(server, running, 0)
    assert state.to_move is not None
    move = simple_move("mmw", state)
    source = move.split("-")[0]
    context = browser.new_context(base_url=server.url, viewport=PHONE)
    page = context.new_page()
    page.goto(running.seat(state.to_move).path)
    page.evaluate("() => window.pbemPlay.ready")
    page.evaluate(
        """([move, source]) => { window.pbemPlay.data.warnings = {
            [source]: "Not this one: the first words of a move end at a space.",
            [move]: "This move removes Ben's boot.",
        }; }""",
        [move, source],
    )
    choose(page, "mmw", move)
    warning = page.locator("#pending .pbem-choice-warning")
    expect(warning).to_have_text("This move removes Ben's boot.")
    in_viewport(rect(warning), page, "the warning")
    page.click("#pending .pbem-cancel")
    expect(warning).to_have_count(0)
    context.close()


@pytest.mark.parametrize("failure", ["server error", "no network"])
def test_without_the_boards_drawings_the_plain_form_is_the_way_to_move(
    server: Server, browser: Browser, failure: str
) -> None:
    """The drawings for building a move come from the API after the first paint: when they
    cannot be had, no picker waits empty, and the plain move form is open and plays."""
    running = running_game(server, "marram", {"variant": "classic"}, ["Ann", "Ben"], seed=6)
    context = browser.new_context(base_url=server.url, viewport=PHONE)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    if failure == "server error":
        page.route("**/board-assets", lambda route: route.fulfill(status=503, body="{}"))
    else:
        page.route("**/board-assets", lambda route: route.abort())
    page.goto(running.seat(0).path)
    page.evaluate("() => window.pbemPlay.ready")
    expect(page.locator("html")).to_have_class(re.compile(r"\bpbem-js-failed\b"))
    expect(page.locator("#picker")).to_be_hidden()
    expect(page.locator("#move-form-box")).to_have_attribute("open", "")
    move = page.evaluate("() => window.pbemPlay.legal[0]")
    page.select_option("#move-select", move)
    page.click("#move-form button[type=submit]")
    expect(page.locator("#history li")).to_have_count(1)
    assert errors == []
    context.close()


def test_a_board_grown_past_the_screen_pans_and_zooms_on_a_desktop(
    server: Server, browser: Browser
) -> None:
    running = running_game(server, "marram", {"variant": "classic"}, ["Ann", "Ben"], seed=5)
    state = advance(server, running, 70)
    assert state.to_move is not None and state.outcome is None
    context = browser.new_context(base_url=server.url, viewport=DESKTOP)
    page = context.new_page()
    page.goto(running.seat(state.to_move).path)
    page.evaluate("() => window.pbemPlay.ready")
    board = page.locator("#board")
    expect(board).to_have_attribute("data-zoom", "on")
    # The box is in view whole, beside the side column, with its buttons above it.
    in_viewport(rect(board), page, "the board's box")
    in_viewport(rect(page.locator(".pbem-zoom")), page, "the zoom buttons")
    no_sideways_scroll(page)
    choose(page, "marram", simple_move("marram", state))
    assert not overlaps(rect(board), rect(page.locator("#pending")))
    in_viewport(rect(page.locator("#pending .pbem-confirm")), page, "Confirm")
    shoot(page, "marram-desktop-grown")
    context.close()


@pytest.mark.parametrize("size", [DESKTOP, PHONE], ids=["desktop", "phone"])
def test_a_zoomed_board_opens_on_the_board_never_on_a_slice_of_its_panel(
    server: Server, browser: Browser, size: dict[str, int]
) -> None:
    """Marram's drawing has its scores, hand, last turns and key beside the board: the first
    view of a zoomed board shows that panel whole or not at all, never cut mid-word."""
    running = running_game(server, "marram", {"variant": "classic"}, ["Ann", "Ben"], seed=5)
    context = browser.new_context(base_url=server.url, viewport=size)
    page = context.new_page()
    state = advance(server, running, 40)
    for step in range(6):
        assert state.to_move is not None and state.outcome is None
        page.goto(running.seat(state.to_move).path)
        page.evaluate("() => window.pbemPlay.ready")
        board = page.locator("#board")
        expect(board).to_have_attribute("data-zoom", "on")
        box, panel = rect(board), rect(page.locator("#board svg .panel"))
        assert not overlaps(box, panel) or holds(box, panel), (step, box, panel)
        state = advance(server, running, 6, seed=step + 2)
    context.close()


LONG_NAMES = ["Maximilian Bartholomew-Smythe the Third", "Alexandra Konstantinopoulou-Wetherby"]


@pytest.mark.parametrize(
    ("engine", "options"), [(g[0], g[1]) for g in GAMES], ids=[g[0] for g in GAMES]
)
def test_long_names_on_the_board_never_run_into_each_other(
    server: Server, browser: Browser, engine: str, options: dict[str, object]
) -> None:
    """The board's own labels of the players (scores under MMW's board, the status line) keep
    apart however long the names, at every size."""
    running = running_game(server, engine, options, LONG_NAMES, seed=4)
    state = advance(server, running, 2)
    assert state.to_move is not None
    for label, size in SIZES.items():
        context = browser.new_context(base_url=server.url, viewport=size)
        page = context.new_page()
        page.goto(running.seat(state.to_move).path)
        page.evaluate("() => window.pbemPlay.ready")
        labels = page.locator("#board svg text").filter(
            has_text=re.compile(r"Maximilian|Alexandra")
        )
        boxes = [rect(labels.nth(i)) for i in range(labels.count())]
        # Each within the drawing, in the drawing's own units: a zoomed board shows only part
        # of it (pbem's pan and zoom keeps the drawing's whole viewBox in data-view-box).
        outside = page.evaluate(
            """() => {
                const svg = document.querySelector("#board svg");
                const [x, , w] = (svg.dataset.viewBox || svg.getAttribute("viewBox"))
                    .split(/[ ,]+/).map(Number);
                const toRoot = (el) => svg.getScreenCTM().inverse().multiply(el.getScreenCTM());
                return [...svg.querySelectorAll("text")]
                    .filter((t) => /Maximilian|Alexandra/.test(t.textContent))
                    .map((t) => {
                        const b = t.getBBox(), m = toRoot(t);
                        return [t.textContent, m.a * b.x + m.e, m.a * (b.x + b.width) + m.e];
                    })
                    .filter(([, left, right]) => left < x - 0.5 || right > x + w + 0.5);
            }"""
        )
        assert not outside, (engine, label, outside)
        for i, a in enumerate(boxes):
            for b in boxes[i + 1 :]:
                assert not overlaps(a, b), (engine, label, a, b)
        shoot(page, f"{engine}-{label}-long-names")
        context.close()
