"""Every email of a game its organiser named is headed by the name, the subject keeping the id
after it in brackets (`[pbem] Friday Club (wv7WthzljTw0): your turn (move 2)`), whatever wrote
it: a move, a resignation, a cancellation, the clock's reminder, the daily digest; the mail of an
unnamed game reads as it always did."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import timedelta

import pytest
import time_machine
from flask import Flask

from pbem import links
from pbem.domain import digest, endings, preferences, starting
from pbem.domain.clocks import parse_clock
from pbem.extensions import db, settings
from pbem.models import DIGEST, Game
from tests.domain.clock_flow import T0, reload, run_clock_at
from tests.domain.flow import EMAILS, mails, play

NAME = "Friday Club"


@pytest.fixture(autouse=True)
def at_t0() -> Iterator[None]:
    """Each test at T0, its games created and moved on one clock; the clock task travels on."""
    with time_machine.travel(T0, tick=False):
        yield


def _start(title: str | None, clock: str = "days:3", **options: object) -> Game:
    created = starting.create_game(
        settings(),
        "countdown",
        options or {"pile": 5},
        EMAILS,
        clock=parse_clock(clock),
        title=title,
    )
    game = reload(created.game_id)
    for seat in list(game.seats):
        starting.accept_invitation(settings(), seat)
    return reload(created.game_id)


def _subjects(game: Game, kind: str) -> list[str]:
    db.session.expire_all()
    return [m.subject for m in mails(kind=kind) if m.game_id == game.id]


def test_the_mail_a_move_writes_is_headed_by_the_name(app: Flask) -> None:
    game = _start(NAME)
    play(game, "1")
    assert _subjects(game, "turn")[-1] == f"[pbem] {NAME} ({game.id}): your turn (move 2)"
    (turn,) = [m for m in mails(kind="turn") if m.game_id == game.id][-1:]
    assert f"It is your turn in {NAME} (Countdown game {game.id})" in turn.text
    assert f'<b id="game-name" style="color:#1f2328">{NAME}</b>' in turn.html
    play(game, "2")
    play(game, "2")  # the pile of 5 is empty: the game is over
    assert reload(game.id).status == "finished"
    assert set(_subjects(game, "result")) == {f"[pbem] {NAME} ({game.id}): the game is over"}


def test_resigning_and_cancelling_write_the_name(app: Flask) -> None:
    game = _start(NAME, pile=21)
    play(game, "1")
    endings.resign(settings(), reload(game.id).seats[0])
    assert set(_subjects(game, "result")) == {f"[pbem] {NAME} ({game.id}): the game is over"}
    created = starting.create_game(settings(), "countdown", {}, EMAILS, title=NAME)
    waiting = reload(created.game_id)
    organiser = next(s for s in waiting.seats if s.player_id == waiting.organiser_id)
    endings.cancel(settings(), organiser)
    assert set(_subjects(waiting, "cancelled")) == {f"[pbem] {NAME} ({waiting.id}): cancelled"}


def test_the_clocks_reminder_is_headed_by_the_name(app: Flask) -> None:
    game = _start(NAME)
    run_clock_at(T0 + timedelta(days=2))
    assert _subjects(game, "reminder") == [
        f"[pbem] {NAME} ({game.id}): your move is due in 24 hours"
    ]
    plain = _start(None)
    run_clock_at(T0 + timedelta(days=2, minutes=1))
    assert _subjects(plain, "reminder") == [
        f"[pbem] Countdown ({plain.id}): your move is due in 24 hours"
    ]


def test_the_digest_calls_a_named_game_by_its_name(app: Flask) -> None:
    game = _start(NAME)
    mover = game.seats[game.to_move or 0].player
    preferences.set_preference(mover, DIGEST)
    digest.run_digest(settings(), T0 + timedelta(hours=1))
    (row,) = mails(kind="digest")
    assert row.subject == f"[pbem] your move in {NAME} ({game.id})"
    assert f"{NAME} (Countdown game {game.id})" in row.text
    assert links.seat_url(settings(), game.seats[game.to_move or 0]) in row.text
