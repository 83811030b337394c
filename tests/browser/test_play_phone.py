"""The game page under a finger (touch emulation: `has_touch`, `is_mobile`, taps).

Marram on a phone (390×844 and 360×640): the board pans and zooms inside a box of its own (drag,
pinch, and the buttons above it), opens centred on the last turn, and the page never scrolls
sideways; the scores and the player's hand are in the first screen, and so is the board.

Every engine played by taps alone: a whole game of each at 360×640, and sampled positions at
390×844, 412×915 and 1280×900 where every lit place can be tapped (none under the zoom buttons
or the bar, none cut by the board's box) and the confirm step shows the move it confirms. The
whole games and the samples are in the audit tier; one move by taps on a small phone, the
regressions of issue 31 in it, stays in the default tier. Screenshots in /tmp/shots_h5/."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, Page, expect

from tests.browser import taps
from tests.browser.conftest import Server
from tests.browser.phone_games import SAMPLES, WHOLE_GAMES, WholeGame, plan, sample_move
from tests.browser.seated import advance, running_game, state_of
from tests.browser.test_play_layout import PHONE, SMALL, no_sideways_scroll, rect
from tests.support import tiers

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


@pytest.mark.audit
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


def half_out(page: Page) -> dict[str, Any]:
    """Drags the board until a lit place straddles the box's side edge; where it still shows."""
    taps.scroll_to(page, page.locator("#board"))
    lit = page.locator(taps.LIT["marram"])
    for index in range(lit.count()):
        node = lit.nth(index)
        seen = taps.probe(node)
        if not seen["inBox"]:
            continue
        x, _, w, _ = seen["rect"]
        bx, by, bw, bh = seen["box"]
        # Half of it beyond the box's nearer side.
        near_left = x - bx < bx + bw - (x + w)
        dx = (bx - w / 2) - x if near_left else (bx + bw - w / 2) - x
        taps.drag(page, (bx + bw / 2, by + bh / 2), (dx, 0))
        after = taps.probe(node)
        if after["inBox"] or after["outOfBox"]:
            continue
        x, y, w, h = after["rect"]
        left, right = max(x, bx), min(x + w, bx + bw)
        return {"pos": node.get_attribute("data-pos"), "at": ((left + right) / 2, y + h / 2)}
    raise AssertionError("no lit place could be dragged half out of the box")


def test_a_move_by_taps_on_a_small_phone(server: Server, browser: Browser) -> None:
    """Issue 31 at 360×640, quickly: the board is in the first screen; a tap on the part of a lit
    place showing at the box's edge chooses it (it was lost: the tap's focus moved the view
    before its click landed); Confirm shows the tile placed; the words after the move are part
    of the page and cover no button."""
    running = running_game(server, "marram", {"variant": "classic"}, ["Ann", "Ben", "Cat"], seed=3)
    state = advance(server, running, 12)
    assert state.to_move is not None
    hand = taps.finger(browser, server, taps.SMALL)
    page = hand.page
    taps.open_seat(page, running.seat(state.to_move).path)
    taps.board_in_first_screen(page)
    for what in ("#summary", ".pbem-notes"):
        assert rect(page.locator(what))["y"] < taps.SMALL["height"], what
    page.locator(".pbem-tile:not([disabled])").first.tap()
    taps.every_lit_place_tappable(page, "marram")

    spot = half_out(page)
    page.touchscreen.tap(*spot["at"])
    expect(page.locator("#board .pbem-preview")).to_have_count(1)
    move = page.locator("#pending .pbem-choice-move").inner_text()
    assert move.split()[2] == spot["pos"], (move, spot)
    taps.shoot(page, "marram-360x640-tap-chosen")
    taps.confirm_shows_the_move(page, "marram", move)

    taps.confirm_by_tap(page)
    assert state_of(server, running.game_id).history[-1] == move
    # The player's second action: the words say the move was played, and cover nothing.
    taps.words_never_cover_resign(page)
    taps.no_script_errors(page)
    hand.close()


# Each whole game is a few dozen page loads and a hundred taps: the audit tier's.
@pytest.mark.parametrize(
    "game", tiers.split(WHOLE_GAMES, default=lambda game: False, ids=lambda game: game.label)
)
def test_a_whole_game_by_taps_on_a_small_phone(
    server: Server, browser: Browser, game: WholeGame
) -> None:
    running = running_game(server, game.engine, game.options, game.names, seed=game.seed)
    moves = plan(game, state_of(server, running.game_id))
    hand = taps.finger(browser, server, taps.SMALL)
    page = hand.page
    showing = None
    for index, move in enumerate(moves):
        state = state_of(server, running.game_id)
        assert state.to_move is not None and len(state.history) == index
        if showing != state.to_move or not page.evaluate("() => window.pbemPlay.data.your_turn"):
            showing = state.to_move
            taps.open_seat(page, running.seat(showing).path)
            taps.board_in_first_screen(page)
        if index == 0:
            taps.shoot(page, f"{game.label}-360x640-whole-1-opened")
        taps.build_by_taps(page, game.engine, move)
        if index == 0:
            taps.shoot(page, f"{game.label}-360x640-whole-2-chosen")
        taps.confirm_by_tap(page)
    final = state_of(server, running.game_id)
    assert final.outcome is not None and list(final.history) == moves
    taps.open_seat(page, running.seat(0).path)
    expect(page.locator("#outcome")).to_contain_text("The game is over")
    taps.shoot(page, f"{game.label}-360x640-whole-3-over")
    taps.no_script_errors(page)
    hand.close()


def every_choice_lights_tappable_places(page: Page, engine: str) -> None:
    """Each first choice of the move made in turn (a disc, a stack, a tile, flipping), and
    the places it lights checked."""
    if engine == "gorami":
        discs = page.locator(".pbem-disc:not([disabled])")
        for index in range(discs.count()):
            discs.nth(index).tap()
            taps.every_lit_place_tappable(page, engine)
    elif engine == "mmw":
        taps.every_lit_place_tappable(page, engine)
        names = page.locator("#board .square.pbem-source").evaluate_all(
            "(nodes) => nodes.map((node) => node.dataset.square)"
        )
        for name in names:
            square = page.locator(f'#board .square[data-square="{name}"]')
            taps.tap_on_board(page, square)
            taps.every_lit_place_tappable(page, engine)
            taps.tap_on_board(page, square)  # put back down
    else:
        tiles = page.locator(".pbem-tile:not([disabled])")
        for index in range(tiles.count()):
            tiles.nth(index).tap()
            taps.every_lit_place_tappable(page, engine)
        if page.locator(".pbem-flip-mode").count():
            page.locator(".pbem-flip-mode").tap()
            taps.every_lit_place_tappable(page, engine)


SAMPLE_SIZES = {"390x844": taps.PHONE, "412x915": taps.LARGE, "1280x900": taps.DESKTOP}


@pytest.mark.audit
@pytest.mark.parametrize("engine", list(SAMPLES))
def test_every_lit_place_can_be_tapped(server: Server, browser: Browser, engine: str) -> None:
    for number, sample in enumerate(SAMPLES[engine], start=1):
        running = running_game(server, engine, sample.options, sample.names, seed=sample.seed)
        state = advance(server, running, sample.plies)
        assert state.to_move is not None and state.outcome is None
        move = sample_move(state)
        for label, size in SAMPLE_SIZES.items():
            hand = taps.finger(browser, server, size)
            page = hand.page
            taps.open_seat(page, running.seat(state.to_move).path)
            taps.board_in_first_screen(page)
            taps.shoot(page, f"{engine}-{label}-{number}-opened")
            every_choice_lights_tappable_places(page, engine)
            taps.build_by_taps(page, engine, move)
            taps.shoot(page, f"{engine}-{label}-{number}-chosen")
            page.locator("#pending .pbem-cancel").tap()
            expect(page.locator("#pending .pbem-confirm")).to_have_count(0)
            taps.no_script_errors(page)
            hand.close()
