"""One answer to "may this seat act now?" on every surface (`turns.may_act`).

For every engine and variant a random game is played through the service with the events that
change the answer thrown in: resignations (a seat leaving a larger game, or the game ending),
seats handed to the bot and taken back, and turns left past their deadline before the clock
task settles them. At every ply, for every seat, the API's `your_turn`, `to_move` and legal
moves, the game page's move form, the seat's view and the dashboard's "your turn" all agree
with `may_act`; and every turn email the step wrote went to the seat that may act then.
"""

from __future__ import annotations

import random
from datetime import timedelta
from typing import Any

import pytest
import time_machine
from flask import Flask
from flask.testing import FlaskClient
from sqlalchemy import func, select

from pbem import links
from pbem.domain import autopilot, clock_task, dashboard, endings, moves, turns, views
from pbem.domain.errors import GameOver, OutOfTime, ServiceError
from pbem.extensions import db, settings
from pbem.models import ACTIVE, RUNNING, Game, OutboxMessage, Seat, utcnow
from tests.support import surfaces

CASES = surfaces.cases(range(1))
# Enough plies to meet every event a few times; a longer game is walked to this many.
MOST_PLIES = 160

pytestmark = [pytest.mark.slow, pytest.mark.timeout(900)]


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_every_surface_agrees_with_may_act(app: Flask, case: surfaces.Case) -> None:
    client = app.test_client()
    rng = random.Random(case.seed)
    found: list[str] = []
    reasons: set[str] = set()
    with time_machine.travel(surfaces.AT, tick=False) as traveller:
        game_id = surfaces.start(case)
        seen = _last_outbox_id()
        for step in range(MOST_PLIES):
            game = surfaces.views_game(game_id)
            found += _disagreements(client, game, step, reasons)
            if game.status != RUNNING:
                break
            _random_event(game, rng, traveller)
            found += _turn_mail_disagreements(surfaces.views_game(game_id), seen, step)
            seen = _last_outbox_id()
    assert not found, "\n".join(found[:20])
    # The walk met the seat to move refused for another reason than the turn.
    assert reasons & {str(turns.ON_AUTOPILOT), str(turns.LEFT_THE_GAME), "late"}, reasons


def _disagreements(
    client: FlaskClient, game: Game, step: int, reasons: set[str] | None = None
) -> list[str]:
    now = utcnow()
    found = []
    for seat in game.seats:
        verdict = turns.may_act(game, turns.Sitter.of(seat), now)
        may = bool(verdict)
        if reasons is not None and verdict.refusal is not None:
            reasons.add(_reason(verdict.refusal))
        token = links.seat_url(settings(), seat).rsplit("/", 1)[1]
        auth = {"Authorization": f"Bearer {token}"}
        api = client.get(f"/api/games/{game.id}", headers=auth).get_json()
        legal = client.get(f"/api/games/{game.id}/legal", headers=auth).get_json()
        page = client.get(f"/play/{token}").get_data(as_text=True)
        lines = dashboard.game_lines(settings(), seat.player, now)
        line = next(line for line in lines if line.game_id == game.id)
        view = api["view"] or {}
        answers: dict[str, Any] = {
            "api your_turn": api["your_turn"] == may,
            "api to_move": api["to_move"] == turns.waiting_on(game),
            "api legal moves": bool(legal["moves"]) == may and legal["your_turn"] == may,
            "api legal to_move": legal["to_move"] == turns.waiting_on(game),
            "view legal moves": not view.get("legal_moves") or may,
            "page move form": ('id="move-form"' in page) == may,
            "dashboard your turn": line.your_turn == may,
        }
        found += [
            f"step {step} ply {game.ply} seat {seat.seat} ({verdict.refusal}): {name}"
            for name, agrees in answers.items()
            if not agrees
        ]
    return found


def _reason(refusal: ServiceError) -> str:
    if isinstance(refusal, OutOfTime):
        return "late"
    if isinstance(refusal, GameOver):
        return "over"
    return refusal.message


def _random_event(game: Game, rng: random.Random, traveller: Any) -> None:
    """Mostly a move by whoever plays the seat to move; now and then a resignation, a seat
    handed to the bot or taken back, or a turn left past its deadline."""
    config = settings()
    roll = rng.random()
    active = [seat for seat in game.seats if seat.state == ACTIVE]
    try:
        if roll < 0.04:
            endings.resign(config, rng.choice(active))
        elif roll < 0.12:
            seat = rng.choice(active)
            autopilot.hand_over(config, seat, on=seat.autopilot_since is None)
        elif roll < 0.16:
            # Past the deadline, then the clock task settles the turn as the game's policy says.
            traveller.shift(timedelta(days=4))
            return
        else:
            _move(game, rng)
    except ServiceError:
        db.session.rollback()
    if game.deadline is not None and game.deadline < utcnow():
        clock_task.run_clock(config)


def _move(game: Game, rng: random.Random) -> None:
    to_move = turns.waiting_on(game)
    if to_move is None:
        return
    late = game.deadline is not None and game.deadline < utcnow()
    if late:
        clock_task.run_clock(settings())
        return
    seat = game.seats[to_move]
    state = views.load_state(game)
    assert state is not None
    by_bot = seat.autopilot_since is not None or seat.player.bot is not None
    submission = moves.submit_move(seat, rng.choice(state.legal_moves()), game.ply, by_bot)
    moves.apply_moves(settings(), [submission])


def _turn_mail_disagreements(game: Game, after_id: int, step: int) -> list[str]:
    """The turn emails written since `after_id` go to the seat that may act now."""
    now = utcnow()
    rows = db.session.execute(
        select(OutboxMessage.to).where(
            OutboxMessage.game_id == game.id,
            OutboxMessage.kind == "turn",
            OutboxMessage.id > after_id,
        )
    ).scalars()
    may = {
        seat.player.email for seat in game.seats if turns.may_act(game, turns.Sitter.of(seat), now)
    }
    return [f"step {step} ply {game.ply}: a turn email to {to}" for to in rows if to not in may]


def _last_outbox_id() -> int:
    return db.session.execute(select(func.coalesce(func.max(OutboxMessage.id), 0))).scalar_one()


def test_the_walk_sees_a_surface_that_disagrees(
    app: Flask, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The walk is not blind: a dashboard that forgot autopilot would be caught."""
    client = app.test_client()
    with time_machine.travel(surfaces.AT, tick=False):
        case = surfaces.Case("gorami", {"board": 16}, 2, 1)
        game = surfaces.views_game(surfaces.start(case))
        to_move = turns.waiting_on(game)
        assert to_move is not None
        autopilot.hand_over(settings(), game.seats[to_move], on=True)
        monkeypatch.setattr(
            dashboard,
            "may_move",
            lambda seat, now=None: turns.Verdict() if isinstance(seat, Seat) else None,
        )
        found = _disagreements(client, surfaces.views_game(game.id), 0)
    assert any("dashboard your turn" in line for line in found), found
