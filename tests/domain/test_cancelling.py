"""Cancelling a started game takes every player's agreement: one proposes, the others are
emailed and agree or decline, the last agreement cancels it; the first move ends a proposal. A
bot's seat counts as agreeing, a seat on autopilot does not. Before the start the organiser
still cancels alone."""

from __future__ import annotations

from datetime import timedelta

import pytest
import time_machine
from flask import Flask

from pbem.domain import autopilot, cancelling, clock_task, endings, moves, starting
from pbem.domain.clocks import parse_clock
from pbem.domain.errors import Conflict, GameOver, OutOfTime
from pbem.extensions import db, settings
from pbem.models import CANCELLED, FINISHED, RUNNING, Game, GameEvent, Seat
from tests.domain.clock_flow import T0, THREE, game_events, move_at, reload, run_clock_at
from tests.domain.flow import EMAILS, mails


def _start(emails: list[str] = EMAILS) -> Game:
    with time_machine.travel(T0, tick=False):
        created = starting.create_game(
            settings(), "countdown", {"pile": 21}, emails, clock=parse_clock("days:1")
        )
        for seat in list(reload(created.game_id).seats):
            if seat.player.bot is None:
                starting.accept_invitation(settings(), seat)
    game = reload(created.game_id)
    assert game.status == RUNNING and game.ply == 0
    return game


def _seat(game: Game, email: str) -> Seat:
    return next(s for s in reload(game.id).seats if s.player.email == email)


def _kinds(game: Game) -> list[str]:
    return [kind for kind, _, _ in game_events(game.id)]


def test_every_player_agreeing_cancels_a_started_game(app: Flask) -> None:
    game = _start()
    alice, bob = EMAILS
    cancelling.agree(settings(), _seat(game, alice), now=T0 + timedelta(hours=1))
    game = reload(game.id)
    assert game.status == RUNNING, "one player alone does not cancel a started game"
    assert cancelling.of_game(game).agreed == (_seat(game, alice).seat,)
    (offer,) = mails(kind="cancel_offer")
    assert offer.to == bob and "proposes cancelling" in offer.text
    assert "only if every player agrees" in offer.text
    assert mails(kind="cancelled") == []

    cancelling.agree(settings(), _seat(game, bob), now=T0 + timedelta(hours=2))
    game = reload(game.id)
    assert game.status == CANCELLED and game.deadline is None
    assert game.outcome is not None and game.outcome["reason"] == "cancelled"
    assert _kinds(game) == ["cancel_offered", "cancel_agreed", "cancelled"]
    last = db.session.query(GameEvent).filter_by(game_id=game.id, kind="cancelled").one()
    assert last.detail == {"by": "players"}
    told = mails(kind="cancelled")
    assert sorted(m.to for m in told) == sorted(EMAILS)
    assert all("every player agreed" in " ".join(m.text.split()) for m in told)  # unfolded
    assert clock_task.run_clock(settings(), T0 + timedelta(days=3)).timeouts == 0
    with pytest.raises(GameOver, match="nothing to cancel"):
        cancelling.agree(settings(), _seat(game, alice))


def test_a_decline_ends_the_proposal_and_tells_those_who_agreed(app: Flask) -> None:
    game = _start(THREE)
    alice, bob, carol = THREE
    cancelling.agree(settings(), _seat(game, alice))
    assert sorted(m.to for m in mails(kind="cancel_offer")) == [bob, carol]
    cancelling.agree(settings(), _seat(game, bob))
    assert len(mails(kind="cancel_offer")) == 2, "only the proposal is mailed"
    with pytest.raises(endings.Refused, match="agreed to cancel the game already"):
        cancelling.agree(settings(), _seat(game, bob))
    cancelling.decline(settings(), _seat(game, carol))
    game = reload(game.id)
    assert game.status == RUNNING and not cancelling.of_game(game).standing
    assert sorted(m.to for m in mails(kind="cancel_declined")) == [alice, bob]
    with pytest.raises(Conflict, match="no proposal to cancel"):
        cancelling.decline(settings(), _seat(game, alice))
    # A new proposal starts from nobody's agreement but its proposer's.
    cancelling.agree(settings(), _seat(game, carol))
    assert cancelling.of_game(reload(game.id)).agreed == (_seat(game, carol).seat,)
    assert _kinds(game)[-2:] == ["cancel_declined", "cancel_offered"]


def test_the_proposer_may_withdraw(app: Flask) -> None:
    game = _start()
    alice = EMAILS[0]
    cancelling.agree(settings(), _seat(game, alice))
    cancelling.decline(settings(), _seat(game, alice))
    assert not cancelling.of_game(reload(game.id)).standing
    assert mails(kind="cancel_declined") == [], "nobody else had agreed"


def test_the_first_move_ends_the_proposal(app: Flask) -> None:
    game = _start()
    mover = game.seats[game.to_move or 0]
    other = next(s for s in game.seats if s.seat != mover.seat)
    cancelling.agree(settings(), other)
    move_at(reload(game.id), "1", T0 + timedelta(hours=1))
    game = reload(game.id)
    assert game.ply == 1 and not cancelling.of_game(game).standing
    with pytest.raises(endings.Refused, match="A move has been made"):
        cancelling.agree(settings(), game.seats[mover.seat])
    with pytest.raises(Conflict, match="ended by a move"):
        cancelling.decline(settings(), game.seats[mover.seat])


def test_a_player_who_left_is_not_asked(app: Flask) -> None:
    game = _start(THREE)
    alice, bob, carol = THREE
    endings.resign(settings(), _seat(game, carol))
    cancelling.agree(settings(), _seat(game, alice))
    assert [m.to for m in mails(kind="cancel_offer")] == [bob]
    cancelling.agree(settings(), _seat(game, bob))
    assert reload(game.id).status == CANCELLED


def test_a_bots_seat_counts_as_agreeing(app: Flask) -> None:
    game = _start([EMAILS[0], "bot:random"])
    cancelling.agree(settings(), _seat(game, EMAILS[0]))
    game = reload(game.id)
    assert game.status == CANCELLED
    assert [m.to for m in mails(kind="cancelled")] == [EMAILS[0]]


def test_a_seat_on_autopilot_is_asked_its_player(app: Flask) -> None:
    game = _start()
    waiting = next(s for s in game.seats if s.seat != game.to_move)
    autopilot.hand_over(settings(), waiting, on=True)
    proposer = next(s for s in reload(game.id).seats if s.seat != waiting.seat)
    cancelling.agree(settings(), proposer)
    assert reload(game.id).status == RUNNING
    assert [m.to for m in mails(kind="cancel_offer")] == [waiting.player.email]
    cancelling.agree(settings(), reload(game.id).seats[waiting.seat])
    assert reload(game.id).status == CANCELLED


def test_the_player_to_move_cannot_agree_once_out_of_time(app: Flask) -> None:
    game = _start()
    mover = game.seats[game.to_move or 0]
    other = next(s for s in game.seats if s.seat != mover.seat)
    cancelling.agree(settings(), other, now=T0 + timedelta(hours=1))
    late = T0 + timedelta(days=1, minutes=1)
    with pytest.raises(OutOfTime, match="ran out"):
        cancelling.agree(settings(), reload(game.id).seats[mover.seat], now=late)
    assert reload(game.id).status == RUNNING
    assert run_clock_at(late + timedelta(minutes=1)).timeouts == 1
    game = reload(game.id)
    assert game.status == FINISHED and game.outcome is not None
    assert game.outcome["reason"] == "timeout"


def test_before_the_start_the_organiser_cancels_alone(app: Flask) -> None:
    with time_machine.travel(T0, tick=False):
        created = starting.create_game(
            settings(), "countdown", {"pile": 21}, EMAILS, clock=parse_clock("days:1")
        )
    game = reload(created.game_id)
    organiser = next(s for s in game.seats if s.player_id == game.organiser_id)
    other = next(s for s in game.seats if s.seat != organiser.seat)
    with pytest.raises(endings.Refused, match="Only the player who started the game"):
        cancelling.agree(settings(), other)
    cancelling.agree(settings(), organiser)
    game = reload(game.id)
    assert game.status == CANCELLED and _kinds(game) == ["cancelled"]
    assert "cancelled by its organiser" in mails(kind="cancelled")[0].text


def test_the_proposal_and_its_answers_stand_in_order() -> None:
    offered, agreed, declined = cancelling.KINDS
    events = [(offered, 0), (agreed, 2), (declined, 1), (offered, 1), (agreed, 3)]
    assert cancelling.agreed(events) == {1, 3}
    standing = cancelling.proposal(events, ["active", "active", "active", "resigned"], [False] * 4)
    assert standing.agreed == (1,) and standing.waiting == (0, 2)
    with_bot = cancelling.proposal(events, ["active"] * 4, [False, False, True, False])
    assert with_bot.agreed == (1, 3) and with_bot.waiting == (0,)
    assert not cancelling.proposal([], ["active"] * 2, [False] * 2).standing


def test_a_move_already_stored_is_refused_once_the_game_is_cancelled(app: Flask) -> None:
    game = _start()
    mover = game.seats[game.to_move or 0]
    submission = moves.submit_move(mover, "1", 0)
    for seat in game.seats:
        cancelling.agree(settings(), reload(game.id).seats[seat.seat])
    moves.apply_moves(settings(), [submission])
    game = reload(game.id)
    assert game.status == CANCELLED and game.ply == 0
