"""The domain operations on SQLite with in-process tasks: set-up, the turn loop, the outbox."""

from __future__ import annotations

import itertools
import random
import smtplib
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import timedelta

import pytest
from flask import Flask
from sqlalchemy import func, select

from pbem import dispatch, games, links, service
from pbem.extensions import db
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
    Seat,
    Submission,
    utcnow,
)

EMAILS = ["alice@example.org", "bob@example.org"]


def start(
    engine: str = "countdown",
    options: dict[str, object] | None = None,
    emails=EMAILS,
    seed: int | None = None,
):
    """A running game: created, every invitation accepted, all emails sent."""
    created = service.create_game(engine, options or {}, emails, seed=seed)
    dispatch.send_emails_later(created.outbox_ids)
    game = db.session.get(Game, created.game_id)
    assert game is not None
    for seat in list(game.seats):
        dispatch.send_emails_later(service.accept_invitation(seat).outbox_ids)
    db.session.expire_all()
    return db.session.get(Game, created.game_id)


def seat_to_move(game: Game) -> Seat:
    db.session.refresh(game)
    return game.seats[game.to_move]


def play(game: Game, move: str) -> Submission:
    seat = seat_to_move(game)
    submission_id = service.submit_move(seat, move, game.ply)
    dispatch.apply_move_later(submission_id)
    db.session.expire_all()
    return db.session.get(Submission, submission_id)


def mails(to: str | None = None, kind: str | None = None) -> list[OutboxMessage]:
    query = select(OutboxMessage).order_by(OutboxMessage.id)
    if to:
        query = query.where(OutboxMessage.to == to)
    if kind:
        query = query.where(OutboxMessage.kind == kind)
    return list(db.session.execute(query).scalars())


# --- set-up ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("engine", "options", "emails", "message"),
    [
        ("chess", {}, EMAILS, "unknown game 'chess'"),
        ("countdown", {"pile": 7}, EMAILS, "option pile=7 is not allowed; choose 10, 5, 21"),
        ("countdown", {"colour": "red"}, EMAILS, "unknown option colour"),
        ("countdown", {}, EMAILS[:1], "played by 2 to 3 players, not 1"),
        ("countdown", {}, ["alice@example.org", "bob"], "'bob' is not an email address"),
    ],
)
def test_bad_set_up_is_refused_with_a_clear_message(
    app: Flask, engine: str, options: dict[str, object], emails: list[str], message: str
) -> None:
    with pytest.raises(service.SetupError, match=message):
        service.create_game(engine, options, emails)
    assert db.session.execute(select(func.count(Game.id))).scalar() == 0


def test_each_invitee_gets_an_invitation_and_seats_are_drawn(app: Flask) -> None:
    created = service.create_game("countdown", {"pile": "21"}, [*EMAILS, "carol@example.org"])
    game = db.session.get(Game, created.game_id)
    assert game is not None and game.status == "inviting" and game.state is None
    assert game.options == {"pile": 21, "actions": 1}
    assert sorted(s.seat for s in game.seats) == [0, 1, 2]
    invites = mails(kind="invite")
    assert sorted(m.to for m in invites) == sorted([*EMAILS, "carol@example.org"])
    for row in invites:
        assert "alice@example.org invites you" in row.text
        assert "http://pbem.test/invite/" in row.text
    # The draw is recorded: the same seed gives the same order.
    order = [s.player.email for s in game.seats]
    again = service.create_game("countdown", {}, [*EMAILS, "carol@example.org"], seed=game.seed)
    other = db.session.get(Game, again.game_id)
    assert other is not None and [s.player.email for s in other.seats] == order


def test_seat_order_is_drawn_at_random(app: Flask) -> None:
    orders = set()
    for _ in range(20):
        game = db.session.get(Game, service.create_game("countdown", {}, EMAILS).game_id)
        assert game is not None
        orders.add(tuple(s.player.email for s in game.seats))
    assert len(orders) == 2


def test_game_starts_when_every_seat_is_taken(app: Flask) -> None:
    created = service.create_game("countdown", {}, EMAILS)
    game = db.session.get(Game, created.game_id)
    assert game is not None
    first, second = game.seats
    accepted = service.accept_invitation(first)
    assert not accepted.started and accepted.outbox_ids == []
    assert service.accept_invitation(first).already
    accepted = service.accept_invitation(second)
    assert accepted.started
    db.session.refresh(game)
    assert game.status == RUNNING and game.ply == 0 and game.to_move == 0
    turn = mails(kind="turn")
    assert [m.to for m in turn] == [game.seats[0].player.email]
    assert [m.to for m in mails(kind="started")] == [game.seats[1].player.email]
    assert service.accept_invitation(second).already


# --- the turn loop -------------------------------------------------------------------------------


def test_a_move_is_applied_and_the_next_player_emailed(app: Flask) -> None:
    game = start()
    mover, other = seat_to_move(game), game.seats[1 - game.to_move]
    submission = play(game, " 3 ")
    assert submission.status == APPLIED
    db.session.refresh(game)
    assert game.ply == 1 and game.to_move == other.seat
    assert [(m.ply, m.seat, m.move) for m in service.history(game)] == [(0, mover.seat, "3")]
    turn = mails(to=other.player.email, kind="turn")[-1]
    assert "It is your turn in Countdown game" in turn.text
    assert mover.player.email in turn.text  # the opponent is named
    assert f"1. {mover.player.email}: 3" in turn.text  # the last moves
    assert "Scores:" in turn.text
    assert "http://pbem.test/play/" in turn.text
    assert "<html>" in turn.html and "http://pbem.test/play/" in turn.html
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
    winner = game.seats[game.outcome["winners"][0]].player.email
    assert all(f"{winner}" in m.text and "wins" in m.text for m in results)
    with pytest.raises(service.GameOver):
        service.submit_move(game.seats[0], "1", game.ply)


def test_two_actions_per_turn_email_only_when_the_seat_changes(app: Flask) -> None:
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


@pytest.mark.parametrize(
    ("move", "ply_offset", "error", "message"),
    [
        ("1", -1, service.StalePly, "This move was for move 1; the game is at move 2"),
        ("1", +1, service.StalePly, "This move was for move 3; the game is at move 2"),
        ("seven", 0, service.MoveRefused, "'seven' is not a number"),
        ("9", 0, service.MoveRefused, "take 1 to 3"),
        ("  ", 0, service.MoveRefused, "No move was given"),
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
        service.submit_move(seat, move, game.ply + ply_offset)
    assert db.session.execute(select(func.count(Submission.id))).scalar() == 1
    assert game.ply == 1


def test_not_your_turn(app: Flask) -> None:
    game = start()
    waiting = game.seats[1 - game.to_move]
    with pytest.raises(service.NotYourTurn, match="not your turn"):
        service.submit_move(waiting, "1", game.ply)


def test_moves_before_the_start_are_refused(app: Flask) -> None:
    game = db.session.get(Game, service.create_game("countdown", {}, EMAILS).game_id)
    assert game is not None
    with pytest.raises(service.GameNotStarted):
        service.submit_move(game.seats[0], "1", 0)


def test_two_submissions_for_one_ply_apply_exactly_one(app: Flask) -> None:
    game = start()
    seat = seat_to_move(game)
    first = service.submit_move(seat, "1", 0)
    second = service.submit_move(seat, "2", 0)
    ids = (first, second)
    for submission_id in ids:
        service.apply_move(submission_id)
    states = [db.session.get(Submission, i) for i in ids]
    assert [s.status for s in states if s] == [APPLIED, REJECTED]
    assert "move 1; the game is at move 2" in (states[1].error or "")
    assert db.session.execute(select(func.count(Move.id))).scalar() == 1


def test_apply_move_is_idempotent(app: Flask) -> None:
    game = start()
    submission_id = service.submit_move(seat_to_move(game), "1", 0)
    assert service.apply_move(submission_id) != []
    assert service.apply_move(submission_id) == []
    assert service.apply_move(10_000) == []
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
    assert service.apply_move(row.id) == []
    db.session.refresh(row)
    assert row.status == REJECTED and "'zzz' is not a number" in (row.error or "")


def test_an_engine_error_rejects_the_submission(
    app: Flask, monkeypatch: pytest.MonkeyPatch
) -> None:
    game = start()
    submission_id = service.submit_move(seat_to_move(game), "1", 0)
    state_class = type(service.load_state(game))

    def broken(self: object, move: str) -> object:
        raise RuntimeError("engine bug")

    monkeypatch.setattr(state_class, "play", broken)
    assert service.apply_move(submission_id) == []
    submission = db.session.get(Submission, submission_id)
    assert submission.status == REJECTED and "error on our side" in (submission.error or "")


def test_emails_of_a_game_thread_together(app: Flask) -> None:
    game = start(options={"pile": 5})
    play(game, "1")
    play(game, "1")
    for address in EMAILS:
        rows = mails(to=address)
        assert len(rows) >= 2
        root = game.thread_message_id
        assert rows[0].references == root
        for previous, row in itertools.pairwise(rows):
            assert row.in_reply_to == previous.message_id
            assert row.references == f"{root} {previous.message_id}"
    assert len({m.message_id for m in mails()}) == len(mails())


# --- links ---------------------------------------------------------------------------------------


def test_rotating_a_seat_revokes_its_links(app: Flask) -> None:
    game = start()
    seat = game.seats[0]
    old = links.token_for(seat, links.SEAT)
    assert service.seat_for_token(old, links.SEAT).id == seat.id
    outbox_ids = service.rotate_seat_links(game.id, 0)
    with pytest.raises(links.RevokedLink, match="withdrawn"):
        service.seat_for_token(old, links.SEAT)
    fresh = db.session.get(OutboxMessage, outbox_ids[0])
    assert fresh is not None and fresh.kind == "links"
    token = fresh.text.split("http://pbem.test/play/")[1].split()[0]
    assert service.seat_for_token(token, links.SEAT).id == seat.id
    with pytest.raises(service.NotFound):
        service.rotate_seat_links(game.id, 5)


# --- the outbox ----------------------------------------------------------------------------------


def test_failed_sends_back_off_then_succeed_once(
    app: Flask, monkeypatch: pytest.MonkeyPatch
) -> None:
    created = service.create_game("countdown", {}, EMAILS)
    row_id = created.outbox_ids[0]
    sent: list[int] = []

    @contextmanager
    def down(row: OutboxMessage, settings: object) -> Iterator[None]:
        raise smtplib.SMTPServerDisconnected("connection refused")
        yield

    monkeypatch.setattr("pbem.mail.delivering", down)
    now = utcnow()
    assert service.send_outbox(row_id, now) == service.Delivery("retry", 10)
    assert service.send_outbox(row_id, now) == service.Delivery("retry", 20)
    row = db.session.get(OutboxMessage, row_id)
    assert row is not None and row.attempts == 2 and row.status == PENDING
    assert row.next_attempt_at == now + timedelta(seconds=20)
    assert "connection refused" in (row.last_error or "")

    @contextmanager
    def up(row: OutboxMessage, settings: object) -> Iterator[None]:
        sent.append(row.id)
        yield

    monkeypatch.setattr("pbem.mail.delivering", up)
    assert service.send_outbox(row_id).status == "sent"
    assert service.send_outbox(row_id).status == "skipped"
    assert sent == [row_id]


def test_sending_gives_up_after_max_attempts(app: Flask, monkeypatch: pytest.MonkeyPatch) -> None:
    row_id = service.create_game("countdown", {}, EMAILS).outbox_ids[0]

    @contextmanager
    def down(row: OutboxMessage, settings: object) -> Iterator[None]:
        raise OSError("no route")
        yield

    monkeypatch.setattr("pbem.mail.delivering", down)
    statuses = [service.send_outbox(row_id).status for _ in range(12)]
    assert statuses == ["retry"] * 11 + ["failed"]


def test_the_sweep_finds_what_the_queue_lost(app: Flask, monkeypatch: pytest.MonkeyPatch) -> None:
    game = start()
    with pytest.MonkeyPatch.context() as queue_down:
        queue_down.setattr(dispatch, "_enqueue", lambda name, args: False)
        submission_id = service.submit_move(seat_to_move(game), "1", 0)
        assert not dispatch.apply_move_later(submission_id)
        row_id = service.create_game("countdown", {}, EMAILS).outbox_ids[0]
    now = utcnow()
    assert service.sweep(now) == service.Sweep([], [])  # too fresh: their tasks may be queued
    later = now + timedelta(seconds=31)
    found = service.sweep(later)
    assert found.submission_ids == [submission_id]
    assert row_id in found.outbox_ids

    from workers.tasks import sweep

    monkeypatch.setattr(service, "utcnow", lambda: later)
    sweep.delay()
    db.session.expire_all()
    assert db.session.get(Submission, submission_id).status == APPLIED
    assert db.session.get(OutboxMessage, row_id).status == SENT


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
        state = service.load_state(game)
        assert state is not None
        assert play(game, rng.choice(state.legal_moves())).status == APPLIED
    db.session.refresh(game)
    assert game.status == FINISHED
    assert len(service.history(game)) == game.ply
    assert sorted(m.to for m in mails(kind="result")) == sorted(emails)


@contextmanager
def statements_run() -> Iterator[list[str]]:
    from sqlalchemy import event

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
        submission_id = service.submit_move(seat, "1", 0)
    assert statements == ["SELECT", "INSERT"]
    assert db.session.get(Submission, submission_id).status == PENDING


def test_applying_a_move_costs_seven_statements(app: Flask) -> None:
    # Lock, seats with their last Message-IDs, recent moves, then the four writes.
    game = start()
    submission_id = service.submit_move(seat_to_move(game), "1", 0)
    with statements_run() as statements:
        outbox_ids = service.apply_move(submission_id)
    assert len(outbox_ids) == 1
    assert sorted(statements) == sorted(
        ["SELECT", "SELECT", "SELECT", "INSERT", "INSERT", "UPDATE", "UPDATE"]
    )


def test_a_batch_of_moves_from_several_games_is_one_transaction(app: Flask) -> None:
    # A worker plays what it has gathered in one go: the statements do not grow with the batch.
    started = [start(emails=[f"a{i}@example.org", f"b{i}@example.org"]) for i in range(3)]
    submitted = [service.submit_move(seat_to_move(game), "1", 0) for game in started]
    with statements_run() as statements:
        outbox_ids = service.apply_moves(submitted)
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
    first = service.submit_move(seat, "1", 0)
    second = service.submit_move(seat, "2", 0)
    service.apply_moves([second, first])  # order of the call does not matter: arrival does
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
    refused = service.submit_move(seat_to_move(going), "1", 0)
    db.session.add(Submission(game_id=going.id, seat=going.to_move, ply=0, move="zzz"))
    db.session.commit()
    bad = db.session.execute(select(func.max(Submission.id))).scalar()
    won = service.submit_move(seat_to_move(ending), "2", 1)
    outbox_ids = service.apply_moves([refused, bad, won])
    db.session.expire_all()
    assert [db.session.get(Submission, i).status for i in (refused, bad, won)] == [
        APPLIED,
        REJECTED,
        APPLIED,
    ]
    assert db.session.get(Game, ending.id).status == FINISHED
    kinds = sorted(db.session.get(OutboxMessage, i).kind for i in outbox_ids)
    assert kinds == ["result", "result", "turn"]
