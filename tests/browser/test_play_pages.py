"""Whole games through the pages, two players in two browser contexts, moving by clicking."""

from __future__ import annotations

import json
import random
from pathlib import Path

from playwright.sync_api import Browser, expect

from pbem import dispatch, games
from pbem.domain import starting
from pbem.extensions import settings
from tests.browser.conftest import Server
from tests.browser.flows import PHONE, Player, confirm, join, open_game, save, start_game

EMAILS = ["ann@example.org", "ben@example.org"]


def players_by_seat(
    server: Server, browser: Browser, game: str, phone_for: str = ""
) -> list[Player]:
    joined = [
        join(browser, server.url, email, PHONE if email == phone_for else None) for email in EMAILS
    ]
    for player in joined:
        open_game(player)
    # The seat order is drawn at random: ask each page which seat it is.
    return sorted(joined, key=lambda p: p.data()["seat"])


def mover(players: list[Player], ply: int) -> Player | None:
    """The player whose page says it is their turn at `ply` (reloading the other one)."""
    for _ in range(40):
        for player in players:
            status = player.status()
            if status["status"] != "running":
                return None
            if status["ply"] != str(ply):
                player.page.reload()
                continue
            if status["your_turn"] == "yes":
                return player
        players[0].page.wait_for_timeout(100)
    raise AssertionError(f"nobody's turn at ply {ply}")


# --- GORami ---------------------------------------------------------------------------------------


def test_gorami_game_on_the_16_board(server: Server, browser: Browser, screenshots: Path) -> None:
    start_game(browser, server.url, "gorami", {"board": "16"}, EMAILS)
    players = players_by_seat(server, browser, "gorami", phone_for=EMAILS[1])
    rng = random.Random(16)
    ply = 0
    checked_reason = checked_refusal = False
    reasons: set[str] = set()
    while True:
        player = mover(players, ply)
        if player is None:
            break
        page = player.page
        legal = player.legal()
        assert legal, "the page offers no legal moves on the player's turn"
        move = rng.choice(legal)
        number, cell = move[0], move[1:]
        page.click(f'.pbem-disc[data-number="{number}"]')
        # Exactly the cells the legal moves name for this number are offered; the others say why.
        marks = page.evaluate(
            """() => Array.from(document.querySelectorAll('#board [data-cell]')).map(g =>
                [g.dataset.cell, g.classList.contains('pbem-target'), g.dataset.reason || ''])"""
        )
        for name, offered, reason in marks:
            assert offered == (f"{number}{name}" in legal), (number, name)
            assert offered or reason
            reasons.update(r for r in ("taken", "shares an edge", "no ") if r in reason)
        if not checked_reason:
            # A cell where this disc cannot go is marked, and says why when clicked.
            blocked = page.locator("#board .cell.pbem-blocked").first
            if blocked.count():
                reason = blocked.get_attribute("data-reason") or ""
                blocked.click()
                expect(page.locator("#pending .pbem-error")).to_contain_text(reason[:20])
                checked_reason = True
        page.click(f'#board [data-cell="{cell}"]')
        if not checked_refusal and ply >= 2:
            # Nothing is sent before Confirm; a refused move leaves the board as it was.
            before = page.locator("#board svg").inner_html()
            page.click("#move-form-box summary")
            page.fill("#move-text", "9z9")
            page.click("#move-form button[type=submit]")
            expect(page.locator("#pending .pbem-error")).to_be_visible()
            assert page.locator("#board svg").inner_html().count("data-cell") == before.count(
                "data-cell"
            )
            assert player.status()["ply"] == str(ply)
            page.fill("#move-text", "")
            page.click("#move-form-box summary")
            checked_refusal = True
            page.click(f'.pbem-disc[data-number="{number}"]')
            page.click(f'#board [data-cell="{cell}"]')
        if ply == 1:
            save(page, screenshots, "gorami-choosing")
        confirm(player, move, ply)
        ply += 1
    assert checked_reason and checked_refusal
    assert {"taken", "shares an edge"} <= reasons
    for player in players:
        player.page.reload()
        expect(player.page.locator("#status")).to_have_attribute("data-status", "finished")
        expect(player.page.locator("#status")).to_contain_text("The game is over")
    save(players[0].page, screenshots, "gorami-finished")
    save(players[1].page, screenshots, "gorami-finished-phone")
    # Replay: step back to the start and forward again, without leaving the page.
    page = players[0].page
    page.click('#replay [data-replay="first"]')
    expect(page.locator("#replay-banner")).to_be_visible()
    expect(page.locator("#replay [data-replay-at]")).to_have_text(f"0 / {ply}")
    expect(page.locator("#board [data-cell][data-number]")).to_have_count(0)
    page.click('#replay [data-replay="next"]')
    expect(page.locator("#replay [data-replay-at]")).to_have_text(f"1 / {ply}")
    expect(page.locator("#board [data-cell][data-number]")).to_have_count(1)
    save(page, screenshots, "gorami-replay")
    page.click('#replay [data-replay="now"]')
    expect(page.locator("#replay-banner")).to_be_hidden()
    # The record downloads as JSON with every move, and the seed: the game is over.
    with page.expect_download() as download:
        page.click("#record-link")
    record = Path(download.value.path()).read_text()
    downloaded = json.loads(record)
    assert downloaded["format"] == "pbem-record/2" and downloaded["moves"]
    assert downloaded["status"] == "finished" and isinstance(downloaded["seed"], int)
    for player in players:
        player.context.close()


# --- Martian Mud Wrestling ------------------------------------------------------------------------


def _pick_mmw(state: games.State, rng: random.Random) -> tuple[str, bool]:
    """A move that sinks a stack if there is one, else one that piles pyramids up."""
    before = sum(state.view(None)["sunk"])
    best: list[tuple[int, str]] = []
    for move in state.legal_moves():
        after = state.play(move)
        view = after.view(None)
        if sum(view["sunk"]) > before:
            return move, True
        to = move.split("-")[1]
        stack = view["squares"][to]
        resting = sum(p["points"] for p in stack if not p["touching"])
        best.append((resting * 10 + len(stack) + rng.random(), move))
    best.sort(reverse=True)
    return best[0][1], False


def test_mmw_game_until_a_sinking(server: Server, browser: Browser, screenshots: Path) -> None:
    start_game(browser, server.url, "mmw", {}, EMAILS)
    players = players_by_seat(server, browser, "mmw")
    rules = games.get("mmw")
    state = rules.new(2)
    rng = random.Random(5)
    ply = 0
    sunk = False
    while not sunk and ply < 200:
        player = mover(players, ply)
        assert player is not None, "the game ended before any stack sank"
        assert sorted(player.legal()) == sorted(state.legal_moves())
        move, sunk = _pick_mmw(state, rng)
        source, target = move.split("-")
        page = player.page
        if ply == 0:
            # The keyboard reaches the same choices: Tab to a stack, Enter to take it.
            page.focus(f'#board .square[data-square="{source}"]')
            page.keyboard.press("Enter")
            expect(page.locator(f'#board .square[data-square="{target}"]')).to_have_attribute(
                "tabindex", "0"
            )
        else:
            page.click(f'#board .square[data-square="{source}"]', force=True)
        expect(page.locator(f'#board .square[data-square="{source}"]')).to_have_class(
            "square pbem-source pbem-selected"
        )
        expect(page.locator(f'#board .square.pbem-target[data-square="{target}"]')).to_have_count(1)
        if ply == 0:
            save(page, screenshots, "mmw-choosing")
        page.click(f'#board .square[data-square="{target}"]', force=True)
        # The page foretells a sinking exactly when the engine will sink the stack.
        words = page.locator("#pending .pbem-choice-words")
        if sunk:
            expect(words).to_contain_text(f"The stack on {target} sinks")
            save(page, screenshots, "mmw-sinking-move")
        else:
            expect(words).not_to_contain_text("sinks")
        confirm(player, move, ply)
        state = state.play(move)
        ply += 1
        if ply == 1:
            # The other page, left alone, notices the move and offers the new position.
            other = next(p for p in players if p is not player)
            expect(other.page.locator("#status")).to_have_attribute(
                "data-your-turn", "yes", timeout=20000
            )
            expect(other.page.locator("#picker")).to_be_visible()
    assert sunk
    page = player.page
    view = player.data()["view"]
    assert sum(view["sunk"]) > 0
    save(page, screenshots, "mmw-after-sinking")
    other = next(p for p in players if p is not player)
    other.page.reload()
    expect(other.page.locator("#status")).to_have_attribute("data-ply", str(ply))
    save(other.page, screenshots, "mmw-after-sinking-other")
    for p in players:
        p.context.close()


# --- Marram ---------------------------------------------------------------------------------------


def _marram_seed() -> tuple[int, str, str]:
    """A seed whose first player holds a shovel tile that fits in several rotations with a boot,
    and can flip it straight after. Returns (seed, placement with boot, a flip of it)."""
    rules = games.get("marram")
    for seed in range(500):
        state = rules.new(2, {"variant": "classic"}, seed)
        view = state.view(state.to_move)
        tiles = view["tiles"]
        rotations: dict[tuple[str, str], set[str]] = {}
        boots: dict[tuple[str, str, str], str] = {}
        for move in state.legal_moves():
            words = move.split()
            if words[0] != "place" or "back" not in tiles[words[1]]:
                continue
            rotations.setdefault((words[1], words[2]), set()).add(words[3])
            if len(words) == 6 and words[4] == "boot":
                boots.setdefault((words[1], words[2], words[3]), move)
        for (tile, pos), rots in sorted(rotations.items()):
            if len(rots) < 2:
                continue
            for rot in sorted(rots, key=int)[1:]:
                placement = boots.get((tile, pos, rot))
                if placement is None:
                    continue
                after = state.play(placement)
                flips = [m for m in after.legal_moves() if m.startswith(f"flip {pos} ")]
                if flips:
                    return seed, placement, flips[0]
    raise AssertionError("no seed gives a turn with a rotation, a boot and a flip")


def test_marram_turn_place_rotate_boot_flip(
    server: Server, browser: Browser, screenshots: Path
) -> None:
    seed, placement, flip = _marram_seed()
    with server.app.app_context():
        options = {"variant": "classic"}
        created = starting.create_game(settings(), "marram", options, EMAILS, seed=seed)
        dispatch.send_emails_later(created.outbox_ids)
    players = players_by_seat(server, browser, "marram", phone_for=EMAILS[1])
    first = players[0]
    page = first.page
    assert placement in first.legal()
    _, tile, pos, rot, _, loc = placement.split()
    # Choose the tile, then its place: the first legal rotation shows in place.
    page.click(f'.pbem-tile[data-tile="{tile}"]')
    expect(page.locator(f'#board .frontier.pbem-target[data-pos="{pos}"]')).to_have_count(1)
    page.click(f'#board .frontier[data-pos="{pos}"]')
    expect(page.locator("#board .pbem-preview")).to_have_count(1)
    # Turn it with the keyboard until it shows the wanted rotation.
    for _ in range(4):
        if page.locator(".pbem-rot-words").get_attribute("data-rotation") == rot:
            break
        page.keyboard.press("r")
    expect(page.locator(".pbem-rot-words")).to_have_attribute("data-rotation", rot)
    # The button turns it too: once round and back.
    page.click(".pbem-rot-right")
    page.click(".pbem-rot-left")
    expect(page.locator(".pbem-rot-words")).to_have_attribute("data-rotation", rot)
    # A boot on a lit quadrant of the tile in place.
    page.click(f'#board .pbem-preview .pbem-loc[data-loc="{loc}"]')
    save(page, screenshots, "marram-placing")
    confirm(first, placement, 0)
    # Second action of the same turn: flip the tile just laid.
    _, fpos, frot = flip.split()[:3]
    page.click(".pbem-flip-mode")
    expect(page.locator(f'#board .tile.pbem-flippable[data-pos="{fpos}"]')).to_have_count(1)
    page.click(f'#board .tile[data-pos="{fpos}"]')
    for _ in range(4):
        if page.locator(".pbem-rot-words").get_attribute("data-rotation") == frot:
            break
        page.keyboard.press("r")
    expect(page.locator("#pending .pbem-choice-move")).to_have_text(flip)
    save(page, screenshots, "marram-flipping")
    confirm(first, flip, 1)
    expect(page.locator("#status")).to_contain_text("Waiting for")
    history = page.locator("#history li")
    expect(history).to_have_count(2)
    save(page, screenshots, "marram-after-turn")
    second = players[1]
    second.page.reload()
    expect(second.page.locator("#status")).to_have_attribute("data-your-turn", "yes")
    # The other player's page shows their own hand, never the first player's.
    assert second.data()["view"]["hand"] != first.data()["view"]["hand"]
    save(second.page, screenshots, "marram-other-seat")
    for p in players:
        p.context.close()


# --- without JavaScript ---


def test_plain_form_without_javascript(server: Server, browser: Browser, screenshots: Path) -> None:
    start_game(browser, server.url, "gorami", {"board": "16"}, EMAILS)
    players = players_by_seat(server, browser, "gorami")
    first = players[0]
    legal = first.legal()
    # The same page in a browser that runs no script: the plain form with every legal move.
    context = browser.new_context(base_url=server.url, java_script_enabled=False)
    page = context.new_page()
    page.goto(first.page.url)
    expect(page.locator("#move-form")).to_be_visible()
    expect(page.locator("#picker")).to_be_hidden()
    options = page.locator("#move-select option")
    # Every legal move, after an empty first choice that the list starts on.
    expect(options).to_have_count(len(legal) + 1)
    expect(page.locator("#move-select")).to_have_value("")
    save(page, screenshots, "gorami-no-js")
    # Pressing the button without choosing plays nothing, and says why.
    page.click("#move-form button[type=submit]")
    expect(page.locator("#move-error")).to_contain_text("No move was given")
    expect(page.locator("#status")).to_have_attribute("data-ply", "0")
    # A stale ply is refused with a page that says so; a good one is played.
    page.select_option("#move-select", legal[1])
    page.click("#move-form button[type=submit]")
    expect(page.locator("#submission")).to_have_attribute("data-status", "applied")
    page.goto(first.page.url)
    expect(page.locator("#status")).to_have_attribute("data-ply", "1")
    context.close()
    # The other player's page moved on; the first player's old page is now stale.
    stale = first.page
    stale.click('.pbem-disc[data-number="1"]')
    target = stale.locator("#board .cell.pbem-target").first
    target.click()
    stale.click("#pending .pbem-confirm")
    expect(stale.locator("#pending .pbem-error")).to_contain_text("the game is at move 2")
    stale.click("#pending .pbem-refresh")
    expect(stale.locator("#status")).to_have_attribute("data-ply", "1")
    for player in players:
        player.context.close()


def test_marram_animals_fork_and_bet(server: Server, browser: Browser, screenshots: Path) -> None:
    rules = games.get("marram")
    seed, move = next(
        (seed, m)
        for seed in range(300)
        for m in rules.new(2, {"variant": "animals"}, seed).legal_moves()
        if " fork " in m and " bet " in m
    )
    with server.app.app_context():
        options = {"variant": "animals"}
        created = starting.create_game(settings(), "marram", options, EMAILS, seed=seed)
        dispatch.send_emails_later(created.outbox_ids)
    players = players_by_seat(server, browser, "marram")
    page = players[0].page
    _, tile, pos, rot, _, spoke, _, bet = move.split()
    page.click(f'.pbem-tile[data-tile="{tile}"]')
    page.click(f'#board .frontier[data-pos="{pos}"]')
    for _ in range(4):
        if page.locator(".pbem-rot-words").get_attribute("data-rotation") == rot:
            break
        page.click(".pbem-rot-right")
    # The snake's spoke takes a pitchfork when clicked; the bet is a chip under the board.
    page.click(f'#board .pbem-preview .spoke.pbem-loc[data-loc="{spoke}"]')
    expect(page.locator("#pending .pbem-choice-words")).to_contain_text("pitchfork")
    page.click(f'.pbem-chip[data-bet="{bet}"]')
    expect(page.locator("#board .pbem-preview .pbem-token")).to_have_count(2)
    save(page, screenshots, "marram-animals-fork-bet")
    confirm(players[0], move, 0)
    expect(page.locator("#history li")).to_have_count(1)
    for p in players:
        p.context.close()
