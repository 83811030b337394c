"""Endings the players decide, not the rules: resignations (a two-player game lost, a larger
game played on without the seat), draws offered and answered, and games cancelled by their
organiser before anyone moved."""

from __future__ import annotations

from datetime import timedelta

import pytest
import time_machine
from flask import Flask

from pbem.domain import cancelling, clock_task, endings, moves, starting, views
from pbem.domain.clocks import parse_clock
from pbem.domain.errors import Conflict, GameNotStarted, GameOver, NotYourTurn
from pbem.extensions import db, settings
from pbem.models import (
    ACTIVE,
    APPLIED,
    CANCELLED,
    FINISHED,
    INVITING,
    REJECTED,
    RESIGNED,
    RUNNING,
    Game,
    Seat,
    Submission,
)
from tests.domain.clock_flow import (
    T0,
    THREE,
    game_events,
    move_at,
    reload,
)
from tests.domain.flow import EMAILS, mails


def _create(emails: list[str] = EMAILS, started_by: str = starting.BY_OPERATOR) -> Game:
    with time_machine.travel(T0, tick=False):
        created = starting.create_game(
            settings(),
            "countdown",
            {"pile": 21},
            emails,
            started_by=started_by,
            clock=parse_clock("days:1"),
        )
    return _game(created.game_id)


def _start(emails: list[str] = EMAILS, **options: object) -> Game:
    with time_machine.travel(T0, tick=False):
        created = starting.create_game(
            settings(), "countdown", {"pile": 21, **options}, emails, clock=parse_clock("days:1")
        )
        for seat in list(_game(created.game_id).seats):
            starting.accept_invitation(settings(), seat)
    return _game(created.game_id)


_game = reload


def _move(game: Game, move: str, hours: float) -> Game:
    move_at(game, move, T0 + timedelta(hours=hours))
    return reload(game.id)


def _events(game: Game) -> list[tuple[str, int | None, int]]:
    return game_events(game.id)


def _organiser(game: Game) -> Seat:
    return next(s for s in game.seats if s.player_id == game.organiser_id)


def _other(game: Game, seat: Seat) -> Seat:
    return next(s for s in game.seats if s.seat != seat.seat)


def _mover(game: Game) -> Seat:
    assert game.to_move is not None
    return game.seats[game.to_move]


# --- resigning -----------------------------------------------------------------------------------


def test_resigning_loses_a_two_player_game(app: Flask) -> None:
    game = _start()
    quitter = _mover(game)
    endings.resign(settings(), quitter, now=T0 + timedelta(hours=1))
    game = _game(game.id)
    assert game.status == FINISHED and game.to_move is None
    assert game.deadline is None and game.reminder_at is None
    assert game.outcome is not None
    assert game.outcome["reason"] == "resignation"
    assert game.outcome["winners"] == [1 - quitter.seat]
    assert game.outcome["details"] == {"seat": quitter.seat}
    assert [s.state for s in game.seats if s.seat == quitter.seat] == [RESIGNED]
    assert _events(game) == [("resigned", quitter.seat, 0)]
    results = mails(kind="result")
    assert sorted(m.to for m in results) == sorted(EMAILS)
    assert f"{views.names(game)[quitter.seat]} resigned" in results[0].text
    # Nothing is left on the clock.
    assert clock_task.run_clock(settings(), T0 + timedelta(days=5)).timeouts == 0


def test_a_player_may_resign_when_it_is_not_their_turn(app: Flask) -> None:
    game = _move(_start(), "1", 1)
    waiting = _other(game, _mover(game))
    endings.resign(settings(), waiting, now=T0 + timedelta(hours=2))
    game = _game(game.id)
    assert game.status == FINISHED
    assert game.outcome is not None and game.outcome["winners"] == [1 - waiting.seat]
    assert _events(game) == [("resigned", waiting.seat, 1)]


def test_a_player_may_resign_between_the_two_actions_of_a_turn(app: Flask) -> None:
    game = _move(_start(actions=2), "1", 1)
    mover = _mover(game)
    assert game.ply == 1 and game.state is not None and game.state["acted"] == 1
    endings.resign(settings(), mover, now=T0 + timedelta(hours=2))
    game = _game(game.id)
    assert game.status == FINISHED
    assert game.outcome is not None and game.outcome["reason"] == "resignation"
    assert _events(game) == [("resigned", mover.seat, 1)]


def test_resigning_a_finished_game_is_refused(app: Flask) -> None:
    game = _start()
    first, second = _mover(game), _other(game, _mover(game))
    endings.resign(settings(), first)
    # The refusal says how the game ended, in the players' names.
    with pytest.raises(GameOver, match=r"The game is over\. Player \d resigned; Player \d wins"):
        endings.resign(settings(), second)
    with pytest.raises(GameOver):
        endings.resign(settings(), first)
    assert _events(_game(game.id)) == [("resigned", first.seat, 0)]


def test_resigning_before_the_game_starts_is_refused(app: Flask) -> None:
    game = _create()
    with pytest.raises(GameNotStarted):
        endings.resign(settings(), game.seats[0])


def test_resigning_from_a_game_of_three_drops_the_seat_and_play_goes_on(app: Flask) -> None:
    game = _start(THREE)
    quitter = _mover(game)
    assert quitter.seat == 0
    before = len(mails())
    endings.resign(settings(), quitter, now=T0 + timedelta(hours=3))
    game = _game(game.id)
    assert game.status == RUNNING
    assert [s.state for s in game.seats] == [RESIGNED, ACTIVE, ACTIVE]
    assert game.to_move == 1
    assert game.turn_started_at == T0 + timedelta(hours=3)
    assert game.deadline == T0 + timedelta(hours=3, days=1)
    assert _events(game) == [("resigned", 0, 0)]
    news = mails()[before:]
    assert sorted((m.kind, m.to) for m in news) == sorted(
        [
            ("left", game.seats[0].player.email),
            ("left", game.seats[2].player.email),
            ("turn", game.seats[1].player.email),
        ]
    )
    turn = next(m for m in news if m.kind == "turn")
    assert f"{views.names(game)[quitter.seat]} resigned and has left the game." in turn.text
    # The others play on; the resigned seat is skipped.
    game = _move(game, "1", 4)
    game = _move(game, "1", 5)
    assert game.to_move == 1 and game.ply == 2
    assert list(views.replay(game))[-1].to_json() == game.state


def test_a_waiting_player_resigning_from_a_game_of_three_leaves_the_turn_alone(
    app: Flask,
) -> None:
    game = _start(THREE)
    deadline, reminder = game.deadline, game.reminder_at
    endings.resign(settings(), game.seats[2], now=T0 + timedelta(hours=3))
    game = _game(game.id)
    assert game.status == RUNNING and game.to_move == 0
    assert (game.deadline, game.reminder_at) == (deadline, reminder)
    assert {m.kind for m in mails()[-3:]} == {"left"}


def test_resigning_twice_from_a_game_of_three_is_refused(app: Flask) -> None:
    game = _start(THREE)
    endings.resign(settings(), game.seats[2])
    with pytest.raises(endings.Refused, match="You have left this game already"):
        endings.resign(settings(), _game(game.id).seats[2])


def test_the_last_resignation_but_one_ends_a_game_of_three(app: Flask) -> None:
    game = _start(THREE)
    endings.resign(settings(), game.seats[0])
    endings.resign(settings(), _game(game.id).seats[1])
    game = _game(game.id)
    assert game.status == FINISHED
    assert game.outcome is not None and game.outcome["winners"] == [2]
    assert [s.state for s in game.seats] == [RESIGNED, RESIGNED, ACTIVE]
    assert sorted(m.to for m in mails(kind="result")) == sorted(THREE)


def test_a_move_pending_when_its_player_resigned_is_rejected_clearly(app: Flask) -> None:
    game = _start(THREE)
    quitter = _mover(game)
    with time_machine.travel(T0 + timedelta(hours=1), tick=False):
        submission_id = moves.submit_move(quitter, "1", game.ply)
    endings.resign(settings(), quitter, now=T0 + timedelta(hours=2))
    with time_machine.travel(T0 + timedelta(hours=3), tick=False):
        moves.apply_moves(settings(), [submission_id])
    db.session.expire_all()
    submission = db.session.get(Submission, submission_id)
    assert submission is not None and submission.status == REJECTED
    assert submission.error is not None and "You have left this game" in submission.error
    game = _game(game.id)
    assert game.ply == 0 and game.to_move == 1


def test_a_seat_that_left_is_told_so_when_it_tries_to_move(app: Flask) -> None:
    game = _start(THREE)
    endings.resign(settings(), game.seats[0])
    game = _game(game.id)
    with pytest.raises(NotYourTurn, match="You have left this game"):
        moves.submit_move(game.seats[0], "1", game.ply)
    # Another seat not to move is told to wait, as before.
    with pytest.raises(NotYourTurn, match="It is not your turn"):
        moves.submit_move(game.seats[2], "1", game.ply)


def test_a_move_pending_when_the_game_was_resigned_is_rejected_clearly(app: Flask) -> None:
    game = _start()
    mover = _mover(game)
    with time_machine.travel(T0 + timedelta(hours=1), tick=False):
        submission_id = moves.submit_move(mover, "1", game.ply)
    endings.resign(settings(), _other(game, mover), now=T0 + timedelta(hours=2))
    moves.apply_moves(settings(), [submission_id])
    db.session.expire_all()
    submission = db.session.get(Submission, submission_id)
    assert submission is not None and submission.status == REJECTED
    assert submission.error == "The game is over: a player resigned before this move was played."


# --- draws ---------------------------------------------------------------------------------------


def test_a_draw_offered_and_accepted_ends_the_game_drawn(app: Flask) -> None:
    game = _start()
    offerer = _mover(game)
    taker = _other(game, offerer)
    endings.offer_draw(settings(), offerer, now=T0 + timedelta(hours=1))
    game = _game(game.id)
    assert game.status == RUNNING and game.draw_offered_by == offerer.seat
    (offer,) = mails(kind="draw_offer")
    assert offer.to == taker.player.email
    assert f"{views.names(game)[offerer.seat]} offers a draw" in offer.text
    endings.answer_draw(settings(), taker, accept=True, now=T0 + timedelta(hours=2))
    game = _game(game.id)
    assert game.status == FINISHED and game.draw_offered_by is None
    assert game.outcome is not None
    assert game.outcome["reason"] == "draw_agreed" and game.outcome["winners"] == []
    assert _events(game) == [("draw_offered", offerer.seat, 0), ("draw_agreed", taker.seat, 0)]
    results = mails(kind="result")
    assert sorted(m.to for m in results) == sorted(EMAILS)
    assert "is over. Drawn by agreement.\n" in results[0].text and "wins" not in results[0].text


def test_a_draw_declined_lets_the_game_go_on(app: Flask) -> None:
    game = _start()
    offerer = _mover(game)
    taker = _other(game, offerer)
    endings.offer_draw(settings(), offerer)
    endings.answer_draw(settings(), taker, accept=False)
    game = _game(game.id)
    assert game.status == RUNNING and game.draw_offered_by is None
    assert [kind for kind, _, _ in _events(game)] == ["draw_offered", "draw_declined"]
    (declined,) = mails(kind="draw_declined")
    assert declined.to == offerer.player.email
    assert f"{views.names(game)[taker.seat]} declined your offer of a draw" in declined.text
    # Declined: nothing to answer any more.
    with pytest.raises(Conflict):
        endings.answer_draw(settings(), taker, accept=True)


def test_a_draw_offer_lapses_at_the_opponents_move(app: Flask) -> None:
    game = _start()
    mover = _mover(game)
    offerer = _other(game, mover)  # offers while waiting for the opponent's move
    endings.offer_draw(settings(), offerer)
    game = _move(game, "1", 1)
    assert game.draw_offered_by is None
    with pytest.raises(Conflict, match="There is no draw offer to answer"):
        endings.answer_draw(settings(), _game(game.id).seats[mover.seat], accept=True)
    assert _game(game.id).status == RUNNING


def test_a_draw_offer_stands_through_the_offerers_own_move(app: Flask) -> None:
    game = _start()
    offerer = _mover(game)
    endings.offer_draw(settings(), offerer)
    game = _move(game, "1", 1)
    assert game.draw_offered_by == offerer.seat
    endings.answer_draw(settings(), _other(game, offerer), accept=True)
    assert _game(game.id).status == FINISHED


def test_offering_a_draw_when_the_opponents_offer_stands_accepts_it(app: Flask) -> None:
    game = _start()
    first = _mover(game)
    second = _other(game, first)
    endings.offer_draw(settings(), first)
    endings.offer_draw(settings(), second)
    game = _game(game.id)
    assert game.status == FINISHED
    assert game.outcome is not None and game.outcome["reason"] == "draw_agreed"
    assert [kind for kind, _, _ in _events(game)] == ["draw_offered", "draw_agreed"]
    assert len(mails(kind="draw_offer")) == 1


def test_answering_without_an_offer_is_refused(app: Flask) -> None:
    game = _start()
    offerer = _mover(game)
    with pytest.raises(Conflict, match="There is no draw offer to answer"):
        endings.answer_draw(settings(), offerer, accept=True)
    endings.offer_draw(settings(), offerer)
    # Nor may a player answer their own offer, or make it twice.
    with pytest.raises(Conflict):
        endings.answer_draw(settings(), offerer, accept=True)
    with pytest.raises(endings.Refused, match="Your draw offer stands already"):
        endings.offer_draw(settings(), offerer)
    assert _game(game.id).status == RUNNING


def test_draws_are_refused_in_games_of_three(app: Flask) -> None:
    game = _start(THREE)
    with pytest.raises(endings.Refused, match="two-player games only"):
        endings.offer_draw(settings(), game.seats[1])
    assert _game(game.id).draw_offered_by is None
    assert mails(kind="draw_offer") == []


def test_no_draw_in_a_finished_game(app: Flask) -> None:
    game = _start()
    endings.resign(settings(), game.seats[0])
    with pytest.raises(GameOver):
        endings.offer_draw(settings(), game.seats[1])


# --- cancelling ----------------------------------------------------------------------------------


def test_the_organiser_cancels_a_game_still_inviting(app: Flask) -> None:
    game = _create()
    endings.cancel(settings(), _organiser(game), now=T0 + timedelta(hours=1))
    game = _game(game.id)
    assert game.status == CANCELLED and game.to_move is None
    assert game.outcome is not None and game.outcome["reason"] == "cancelled"
    assert _events(game) == [("cancelled", _organiser(game).seat, 0)]
    cancelled = mails(kind="cancelled")
    assert sorted(m.to for m in cancelled) == sorted(EMAILS)
    unfolded = " ".join(cancelled[0].text.split())  # the text folds at 78 columns
    assert "was cancelled by its organiser before anyone moved" in unfolded
    # The invitations no longer open a game.
    accepted = starting.accept_invitation(settings(), _other(game, _organiser(game)))
    assert accepted.already and not accepted.started
    assert _game(game.id).status == CANCELLED


def test_the_organiser_alone_cannot_cancel_a_started_game(app: Flask) -> None:
    # Every seat has seen its hand: cancelling takes every player's agreement now
    # (tests/domain/test_cancelling.py).
    game = _start()
    with pytest.raises(endings.Refused, match="only if every player agrees"):
        endings.cancel(settings(), _organiser(game))
    assert _game(game.id).status == RUNNING
    assert mails(kind="cancelled") == []


def test_cancelling_is_refused_after_a_move(app: Flask) -> None:
    game = _move(_start(), "1", 1)
    with pytest.raises(endings.Refused, match="A move has been made"):
        cancelling.agree(settings(), _organiser(game))
    assert _game(game.id).status == RUNNING
    assert mails(kind="cancelled") == []


def test_only_the_organiser_may_cancel(app: Flask) -> None:
    game = _create()
    with pytest.raises(endings.Refused, match="Only the player who started the game"):
        endings.cancel(settings(), _other(game, _organiser(game)))
    assert _game(game.id).status == INVITING


def test_cancelling_twice_is_refused(app: Flask) -> None:
    game = _create()
    endings.cancel(settings(), _organiser(game))
    with pytest.raises(GameOver, match="nothing to cancel"):
        endings.cancel(settings(), _organiser(_game(game.id)))


def test_an_unconfirmed_web_form_game_cancelled_tells_only_its_organiser(app: Flask) -> None:
    game = _create(started_by=starting.BY_STRANGER)
    assert game.confirmed_at is None
    endings.cancel(settings(), _organiser(game))
    assert _game(game.id).status == CANCELLED
    assert [m.to for m in mails(kind="cancelled")] == [EMAILS[0]]


def test_a_move_made_then_the_clock_ends_nothing_that_is_over(app: Flask) -> None:
    game = _start()
    game = _move(game, "1", 1)
    assert [s.status for s in db.session.query(Submission)] == [APPLIED]
    endings.resign(settings(), _mover(game))
    assert clock_task.run_clock(settings(), T0 + timedelta(days=9)).timeouts == 0
    assert _game(game.id).status == FINISHED
