"""Moves: a submission checked and stored, then applied under the game's row lock with the emails
it calls for; batches of them in one transaction."""

from __future__ import annotations

import random
from collections.abc import Iterator
from contextlib import contextmanager

import pytest
from flask import Flask
from sqlalchemy import event, func, select

from pbem import games
from pbem.domain import moves, starting, views, wording
from pbem.domain.errors import GameNotStarted, GameOver, MoveRefused, NotYourTurn, StalePly
from pbem.extensions import db, settings
from pbem.models import (
    APPLIED,
    FINISHED,
    PENDING,
    REJECTED,
    RUNNING,
    SENT,
    Game,
    Move,
    OutboxMessage,
    Submission,
)
from tests.domain.flow import EMAILS, mails, play, seat_to_move, start

# --- the turn loop -------------------------------------------------------------------------------


def test_a_move_is_applied_and_the_next_player_emailed(app: Flask) -> None:
    game = start()
    mover, other = seat_to_move(game), game.seats[1 - game.to_move]
    submission = play(game, " 3 ")
    assert submission.status == APPLIED
    db.session.refresh(game)
    assert game.ply == 1 and game.to_move == other.seat
    assert [(m.ply, m.seat, m.move) for m in views.history(game)] == [(0, mover.seat, "3")]
    turn = mails(to=other.player.email, kind="turn")[-1]
    assert "It is your turn in Countdown game" in turn.text
    name = views.names(game)[mover.seat]
    assert f"against {name}: move 2." in turn.text  # the opponent is named, not by address
    assert mover.player.email not in turn.text and mover.player.email not in turn.html
    # The last moves in the engine's words, with the notation beside.
    assert f"Last move: {name} took 3, leaving 7.\n" in turn.text
    assert f"  1. {name} took 3, leaving 7 (3)\n" in turn.text
    assert f"{name} took 3, leaving 7." in turn.html
    assert "Scores (counters):" in turn.text
    assert "http://pbem.test/play/" in turn.text
    assert "<html" in turn.html and "http://pbem.test/play/" in turn.html
    assert turn.status == SENT


def test_the_whole_game_ends_with_a_result_for_everyone(app: Flask) -> None:
    game = start(options={"pile": 5})
    for move in ["2", "2", "1"]:
        assert play(game, move).status == APPLIED
    db.session.refresh(game)
    assert game.status == FINISHED and game.to_move is None
    assert game.outcome is not None and game.outcome["reason"] == "last-counter"
    results = mails(kind="result")
    assert sorted(m.to for m in results) == sorted(EMAILS)
    winner = views.names(game)[game.outcome["winners"][0]]
    # How it ended, in the engine's words with the players' names.
    assert all(f"is over. {winner} took the last counter." in m.text for m in results)
    with pytest.raises(GameOver):
        moves.submit_move(game.seats[0], "1", game.ply)


def test_two_actions_per_turn_email_only_when_the_seat_changes(app: Flask) -> None:
    # The engine's `mid_turn` decides: the seat's second action is on the page already.
    game = start(options={"actions": 2, "pile": 21})
    mover = seat_to_move(game)
    before = len(mails(kind="turn"))
    play(game, "1")
    db.session.refresh(game)
    assert game.to_move == mover.seat
    assert len(mails(kind="turn")) == before  # still their turn: no email
    play(game, "1")
    db.session.refresh(game)
    assert game.to_move != mover.seat
    assert len(mails(kind="turn")) == before + 1


def test_a_turn_of_two_actions_is_one_numbered_move_told_whole(app: Flask) -> None:
    """Move numbers count turns, not actions: after the first seat's two actions the next seat
    is asked for move 2, with both actions of the turn before told as the last turn."""
    game = start(options={"actions": 2, "pile": 21})
    first = seat_to_move(game)
    play(game, "1")
    play(game, "2")
    db.session.refresh(game)
    second = seat_to_move(game)
    assert second.seat != first.seat and game.ply == 2
    letter = mails(to=second.player.email, kind="turn")[-1]
    assert letter.subject.endswith("your turn (move 2)"), letter.subject
    assert "move 2." in letter.text and "(move 3)" not in letter.text
    assert "Last turn: " in letter.text
    told = letter.text.split("Last turn: ", 1)[1].split("\n", 1)[0]
    assert "took 1, leaving 20." in told and "took 2, leaving 18." in told, told
    assert "took 1, leaving 20." in (letter.html or "") and "took 2, leaving 18." in (
        letter.html or ""
    )
    play(game, "1")
    db.session.refresh(game)
    assert views.load_state(game).turn_number == 2, "the second action is still move 2"


def _line_with_a_repeat(engine: str, options: dict[str, object], seed: int) -> list[str]:
    """Moves of a whole game in which some seat moves twice in a row (a skip)."""
    rules = games.get(engine)
    for pick in range(500):
        rng = random.Random(pick)
        state, line, repeated = rules.new(2, options, seed), [], False
        while state.outcome is None:
            seat = state.to_move
            line.append(rng.choice(state.legal_moves()))
            state = state.play(line[-1])
            repeated |= state.to_move == seat
        if repeated:
            return line
    raise AssertionError("no game with a skip found")


def test_a_seat_that_moves_again_after_a_skip_is_emailed(app: Flask) -> None:
    line = _line_with_a_repeat("gorami", {"board": 16}, seed=5)
    game = start("gorami", {"board": 16}, seed=5)
    repeats = 0
    for move in line:
        mover = seat_to_move(game)
        play(game, move)
        db.session.refresh(game)
        if game.to_move == mover.seat:
            repeats += 1
            latest = mails(kind="turn")[-1]
            assert latest.to == mover.player.email
            assert f"(move {game.ply + 1})" in latest.subject
            assert "Nobody else could move, so you move again." in latest.text
    assert repeats and game.status == FINISHED


# --- submitting ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("move", "ply_offset", "error", "message"),
    [
        ("1", -1, StalePly, "This move was for move 1; the game is at move 2"),
        ("1", +1, StalePly, "This move was for move 3; the game is at move 2"),
        ("seven", 0, MoveRefused, "'seven' is not a number"),
        ("9", 0, MoveRefused, "take 1 to 3"),
        ("  ", 0, MoveRefused, "No move was given"),
    ],
)
def test_refused_submissions_change_nothing(
    app: Flask, move: str, ply_offset: int, error: type[Exception], message: str
) -> None:
    game = start()
    play(game, "1")
    db.session.refresh(game)
    seat = seat_to_move(game)
    with pytest.raises(error, match=message):
        moves.submit_move(seat, move, game.ply + ply_offset)
    assert db.session.execute(select(func.count(Submission.id))).scalar() == 1
    assert game.ply == 1


def test_not_your_turn(app: Flask) -> None:
    game = start()
    waiting = game.seats[1 - game.to_move]
    with pytest.raises(NotYourTurn, match="not your turn"):
        moves.submit_move(waiting, "1", game.ply)


def test_moves_before_the_start_are_refused(app: Flask) -> None:
    created = starting.create_game(settings(), "countdown", {}, EMAILS)
    game = db.session.get(Game, created.game_id)
    assert game is not None
    with pytest.raises(GameNotStarted):
        moves.submit_move(game.seats[0], "1", 0)


# --- applying ------------------------------------------------------------------------------------


def test_two_submissions_for_one_ply_apply_exactly_one(app: Flask) -> None:
    game = start()
    seat = seat_to_move(game)
    first = moves.submit_move(seat, "1", 0)
    second = moves.submit_move(seat, "2", 0)
    ids = (first, second)
    for submission_id in ids:
        moves.apply_moves(settings(), [submission_id])
    states = [db.session.get(Submission, i) for i in ids]
    assert [s.status for s in states if s] == [APPLIED, REJECTED]
    assert "move 1; the game is at move 2" in (states[1].error or "")
    assert db.session.execute(select(func.count(Move.id))).scalar() == 1


def test_apply_move_is_idempotent(app: Flask) -> None:
    config = settings()
    game = start()
    submission_id = moves.submit_move(seat_to_move(game), "1", 0)
    assert moves.apply_moves(config, [submission_id]) != []
    assert moves.apply_moves(config, [submission_id]) == []
    assert moves.apply_moves(config, [10_000]) == []
    db.session.refresh(game)
    assert game.ply == 1
    assert db.session.execute(select(func.count(Move.id))).scalar() == 1


def test_a_move_the_engine_refuses_in_the_worker_is_rejected(app: Flask) -> None:
    game = start(options={"pile": 5})
    seat = seat_to_move(game)
    # Written behind the web checks' back: the worker must still refuse it cleanly.
    row = Submission(game_id=game.id, seat=seat.seat, ply=0, move="zzz")
    db.session.add(row)
    db.session.commit()
    assert moves.apply_moves(settings(), [row.id]) == []
    db.session.refresh(row)
    assert row.status == REJECTED and "'zzz' is not a number" in (row.error or "")


def test_an_engine_error_rejects_the_submission(
    app: Flask, monkeypatch: pytest.MonkeyPatch
) -> None:
    game = start()
    submission_id = moves.submit_move(seat_to_move(game), "1", 0)
    state_class = type(views.load_state(game))

    def broken(self: object, move: str) -> object:
        raise RuntimeError("engine bug")

    monkeypatch.setattr(state_class, "play", broken)
    assert moves.apply_moves(settings(), [submission_id]) == []
    submission = db.session.get(Submission, submission_id)
    assert submission.status == REJECTED and submission.error is not None
    assert "error on our side" in wording.read_english(submission.error)


# --- every registered engine ---------------------------------------------------------------------


def _importable_engines() -> list[str]:
    available = []
    for name in games.names():
        try:
            games.get(name)
        except ImportError:
            continue
        available.append(name)
    return available


@pytest.mark.parametrize("engine", _importable_engines())
def test_every_engine_plays_to_the_end_through_the_service(app: Flask, engine: str) -> None:
    rules = games.get(engine)
    emails = [f"p{i}@example.org" for i in range(rules.min_players)]
    game = start(engine, {}, emails)
    rng = random.Random(7)
    for _ in range(2000):
        db.session.refresh(game)
        if game.status != RUNNING:
            break
        state = views.load_state(game)
        assert state is not None
        assert play(game, rng.choice(state.legal_moves())).status == APPLIED
    db.session.refresh(game)
    assert game.status == FINISHED
    assert len(views.history(game)) == game.ply
    assert sorted(m.to for m in mails(kind="result")) == sorted(emails)


# --- the hot path's statements -------------------------------------------------------------------


@contextmanager
def statements_run() -> Iterator[list[str]]:
    statements: list[str] = []
    engine = db.engine
    listener = lambda *args: statements.append(args[2].split()[0].upper())  # noqa: E731
    event.listen(engine, "before_cursor_execute", listener)
    try:
        yield statements
    finally:
        event.remove(engine, "before_cursor_execute", listener)


def test_a_submission_is_one_read_and_one_insert(app: Flask) -> None:
    # The hot path of the web: a move must not cost the ORM's extra round trips.
    game = start()
    seat = seat_to_move(game)
    with statements_run() as statements:
        submission_id = moves.submit_move(seat, "1", 0)
    assert statements == ["SELECT", "INSERT"]
    assert db.session.get(Submission, submission_id).status == PENDING


def test_applying_a_move_costs_seven_statements(app: Flask) -> None:
    # Lock, seats with their last Message-IDs, recent moves, then the four writes.
    config = settings()
    game = start()
    submission_id = moves.submit_move(seat_to_move(game), "1", 0)
    with statements_run() as statements:
        outbox_ids = moves.apply_moves(config, [submission_id])
    assert len(outbox_ids) == 1
    assert sorted(statements) == sorted(
        ["SELECT", "SELECT", "SELECT", "INSERT", "INSERT", "UPDATE", "UPDATE"]
    )


def test_a_batch_of_moves_from_several_games_is_one_transaction(app: Flask) -> None:
    # A worker plays what it has gathered in one go: the statements do not grow with the batch.
    config = settings()
    started = [start(emails=[f"a{i}@example.org", f"b{i}@example.org"]) for i in range(3)]
    submitted = [moves.submit_move(seat_to_move(game), "1", 0) for game in started]
    with statements_run() as statements:
        outbox_ids = moves.apply_moves(config, submitted)
    assert len(statements) == 7
    assert len(outbox_ids) == 3
    for game, submission_id in zip(started, submitted, strict=True):
        db.session.refresh(game)
        assert game.ply == 1
        assert db.session.get(Submission, submission_id).status == APPLIED
        turn = [m for m in mails(kind="turn") if m.game_id == game.id][-1]
        assert turn.to == game.seats[game.to_move].player.email
        assert "move 2" in turn.subject


def test_in_a_batch_the_first_submission_for_a_ply_wins(app: Flask) -> None:
    game = start()
    seat = seat_to_move(game)
    first = moves.submit_move(seat, "1", 0)
    second = moves.submit_move(seat, "2", 0)
    # The order of the call does not matter: arrival does.
    moves.apply_moves(settings(), [second, first])
    db.session.expire_all()
    assert db.session.get(Submission, first).status == APPLIED
    rejected = db.session.get(Submission, second)
    assert rejected.status == REJECTED
    assert "the game is at move 2" in (rejected.error or "")
    assert db.session.execute(select(func.count(Move.id))).scalar() == 1


def test_a_batch_mixes_applied_rejected_and_finished_games(app: Flask) -> None:
    ending = start(options={"pile": 5}, emails=["x@example.org", "y@example.org"])
    play(ending, "3")
    going = start(emails=["p@example.org", "q@example.org"])
    refused = moves.submit_move(seat_to_move(going), "1", 0)
    db.session.add(Submission(game_id=going.id, seat=going.to_move, ply=0, move="zzz"))
    db.session.commit()
    bad = db.session.execute(select(func.max(Submission.id))).scalar()
    won = moves.submit_move(seat_to_move(ending), "2", 1)
    outbox_ids = moves.apply_moves(settings(), [refused, bad, won])
    db.session.expire_all()
    assert [db.session.get(Submission, i).status for i in (refused, bad, won)] == [
        APPLIED,
        REJECTED,
        APPLIED,
    ]
    assert db.session.get(Game, ending.id).status == FINISHED
    kinds = sorted(db.session.get(OutboxMessage, i).kind for i in outbox_ids)
    assert kinds == ["result", "result", "turn"]
