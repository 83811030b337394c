"""Bots as seats of a game: `bot:<kind>` entries of a players list, taking their seats at once,
never mailed, moving on their turn through the person's path (ply-bound submissions), answering
draw offers, found again by the sweep when their turn was lost; and autopilot, by hand and by
timeout. Tasks run in-process (the test app has no broker), bots think for 0.05 s."""

from __future__ import annotations

from datetime import timedelta

import pytest
import time_machine
from flask import Flask
from sqlalchemy import select

from pbem import dispatch
from pbem.domain import autopilot, bot_turns, endings, moves, setup_checks, starting, views
from pbem.domain import sweep as sweeping
from pbem.domain.clocks import parse_clock
from pbem.domain.errors import NotYourTurn, SetupError
from pbem.extensions import db, settings
from pbem.models import (
    AUTOPILOT,
    FINISHED,
    INVITING,
    RUNNING,
    Game,
    GameEvent,
    OutboxMessage,
    Player,
    Submission,
)
from tests.domain.clock_flow import T0, reload, run_clock_at
from tests.domain.flow import mails

ALICE, BOB = "alice@example.org", "bob@example.org"


def _create(
    players: list[str],
    options: dict[str, object] | None = None,
    clock: str = "days:1",
    started_by: str = starting.BY_OPERATOR,
    policy: str | None = None,
    seed: int | None = None,
) -> starting.CreatedGame:
    return starting.create_game(
        settings(),
        "countdown",
        {"pile": 21, **(options or {})},
        players,
        started_by=started_by,
        clock=parse_clock(clock),
        timeout_policy=policy,
        seed=seed,
    )


def _accept_people(game_id: str) -> None:
    """Every person accepts; then the bots are told, as the invitation page tells them."""
    game = reload(game_id)
    for seat in list(game.seats):
        if seat.player.bot is None:
            accepted = starting.accept_invitation(settings(), seat)
            dispatch.send_emails_later(accepted.outbox_ids)
    dispatch.play_bots_later(bot_turns.with_bots([game_id]))


def _person(game: Game, email: str = ALICE) -> int:
    return next(s.seat for s in game.seats if s.player.email == email)


def _bot_seat(game: Game) -> int:
    return next(s.seat for s in game.seats if s.player.bot is not None)


def _play(game: Game, move: str) -> None:
    """The seat to move, a person, plays `move`; the bots answer in-process."""
    assert game.to_move is not None
    submission_id = moves.submit_move(game.seats[game.to_move], move, game.ply)
    dispatch.apply_move_later(submission_id)


# --- seats ---------------------------------------------------------------------------------------


def test_a_bot_takes_its_seat_at_once_has_a_name_and_no_address(app: Flask) -> None:
    created = _create([ALICE, "bot:mcts"])
    game = reload(created.game_id)
    assert game.status == INVITING and not created.started
    bot = game.seats[_bot_seat(game)]
    assert bot.accepted_at is not None and bot.player.email is None
    assert bot.player.bot == "mcts" and bot.player.name == "pbem MCTS"
    assert game.seats[_person(game)].accepted_at is None
    assert views.names(game)[bot.seat] == "pbem MCTS"
    # One invitation, to the person: nothing is ever written to a bot.
    assert [(m.kind, m.to) for m in mails()] == [("invite", ALICE)]
    (invitation,) = mails()
    assert "The game starts when you accept: your opponents are pbem's computer" in invitation.text
    # With another person to wait for, the invitation says so.
    _create([BOB, ALICE, "bot:mcts"])
    for row in mails(to=ALICE)[1:] + mails(to=BOB):
        assert "The game starts when every player has accepted" in row.text


def test_one_player_row_serves_every_seat_of_a_kind(app: Flask) -> None:
    created = _create([ALICE, "bot:greedy", "BOT:Greedy "])
    game = reload(created.game_id)
    bots_ = [s for s in game.seats if s.player.bot is not None]
    assert len(bots_) == 2 and bots_[0].player_id == bots_[1].player_id
    names = views.names(game)
    assert sorted(names[s.seat] for s in bots_)[0].startswith("pbem Greedy (")
    _create([BOB, "bot:greedy"])
    rows = db.session.execute(select(Player).where(Player.bot == "greedy")).scalars().all()
    assert len(rows) == 1


def test_the_organiser_is_a_person_and_bots_are_named_exactly(app: Flask) -> None:
    with pytest.raises(SetupError, match="organiser, who must be a person"):
        _create(["bot:mcts", ALICE])
    with pytest.raises(SetupError, match="'bot:deep-blue' is not one of pbem's bots"):
        _create([ALICE, "bot:deep-blue"])
    assert db.session.execute(select(Game)).first() is None


def test_the_game_starts_when_the_person_accepts_and_the_bot_moves_on_its_turn(
    app: Flask,
) -> None:
    created = _create([ALICE, "bot:greedy"], seed=1)
    _accept_people(created.game_id)
    game = reload(created.game_id)
    assert game.status == RUNNING
    alice = _person(game)
    # Whoever began, it is Alice's turn now: a bot never keeps a person waiting.
    assert game.to_move == alice
    assert game.deadline is not None, "a person's turn is on the clock"
    for _ in range(3):
        game = reload(game.id)
        if game.status != RUNNING:
            break
        _play(game, "1")
        game = reload(game.id)
        assert game.status != RUNNING or game.to_move == alice
    bot_moves = [m for m in views.history(game) if m.seat != alice]
    assert bot_moves, "the bot moved"
    # Greedy takes the most counters it can: three every time.
    assert {m.move for m in bot_moves} == {"3"}
    rows = db.session.execute(select(Submission).where(Submission.game_id == game.id)).scalars()
    assert all(row.status == "applied" for row in rows)
    assert all(m.to == ALICE for m in mails())


def test_against_the_computer_the_first_email_is_the_turn_whoever_begins(app: Flask) -> None:
    """Alone against bots, no "the game has started" email: when a bot begins, its move and
    the person's turn email follow at once; when the person begins, the turn email is it."""
    first_movers = set()
    for seed in range(6):
        created = _create([f"p{seed}@example.org", "bot:greedy"], seed=seed)
        _accept_people(created.game_id)
        game = reload(created.game_id)
        person = _person(game, f"p{seed}@example.org")
        first_movers.add(views.history(game)[0].seat == person if game.ply else True)
        kinds = [m.kind for m in mails(to=f"p{seed}@example.org")]
        assert kinds == ["invite", "turn"], (seed, kinds)
    assert first_movers == {True, False}, "both a bot and the person began some game"
    # With another person in the game, who waits for the first move is told it has started.
    created = _create([ALICE, BOB, "bot:greedy"], seed=1)
    _accept_people(created.game_id)
    assert {m.kind for m in mails(to=BOB)} | {m.kind for m in mails(to=ALICE)} >= {"started"}


def test_a_bot_plays_both_actions_of_its_turn(app: Flask) -> None:
    created = _create([ALICE, "bot:greedy"], options={"actions": 2}, seed=2)
    _accept_people(created.game_id)
    game = reload(created.game_id)
    alice = _person(game)
    if game.ply == 0:
        _play(game, "1")
        game = reload(game.id)
        _play(game, "1")
    game = reload(game.id)
    bot = 1 - alice
    assert [m.seat for m in views.history(game)].count(bot) == 2
    assert game.to_move == alice and game.status != FINISHED


def test_against_bots_only_a_game_from_the_player_link_starts_at_once(app: Flask) -> None:
    created = _create([ALICE, "bot:random", "bot:greedy"], started_by=starting.BY_PLAYER, seed=3)
    assert created.started
    dispatch.play_bots_later([created.game_id])
    game = reload(created.game_id)
    assert game.status == RUNNING and game.to_move == _person(game)
    kinds = sorted(m.kind for m in mails())
    assert "invite" not in kinds and kinds.count("turn") <= 1


def test_a_bots_turn_has_no_deadline_and_the_sweep_finds_it_when_its_task_was_lost(
    app: Flask, monkeypatch: pytest.MonkeyPatch
) -> None:
    lost: list[str] = []
    monkeypatch.setattr(dispatch, "play_bots_later", lambda ids: lost.extend(ids) or True)
    with time_machine.travel(T0, tick=False):
        created = _create([ALICE, "bot:greedy"], seed=4)
        _accept_people(created.game_id)
    game = reload(created.game_id)
    if game.to_move == _person(game):
        with time_machine.travel(T0 + timedelta(minutes=1), tick=False):
            _play(game, "1")  # the queue "loses" the bot's task
    game = reload(created.game_id)
    assert game.to_move == _bot_seat(game)
    assert game.deadline is None and game.reminder_at is None
    assert lost, "the bot was asked to move"
    when = game.turn_started_at
    assert when is not None
    # Fresh: the task may still be on its way. Stale: the sweep hands the turn to a bot again.
    assert bot_turns.stalled(settings(), when + timedelta(seconds=10)) == []
    assert bot_turns.stalled(settings(), when + timedelta(minutes=5)) == [game.id]
    assert sweeping.sweep(settings(), when + timedelta(minutes=5)).bot_games == [game.id]
    acted = bot_turns.act(settings(), game.id)
    assert acted.submission_id is not None
    # A second task for the same turn finds the move stored and does nothing.
    assert bot_turns.act(settings(), game.id).submission_id is None
    assert bot_turns.stalled(settings(), when + timedelta(minutes=5)) == []


# --- draws ---------------------------------------------------------------------------------------


def _alice_first(players: list[str]) -> Game:
    """A game against a bot in which Alice has the first move."""
    for seed in range(50):
        created = _create(players, seed=seed)
        game = reload(created.game_id)
        if _person(game) == 0:
            _accept_people(game.id)
            return reload(game.id)
    raise AssertionError("no seed seats Alice first")


@pytest.mark.parametrize(("alice_takes", "accepted"), [("1", False), ("3", True)])
def test_a_bot_answers_a_draw_offer_by_its_rating(
    app: Flask, alice_takes: str, accepted: bool
) -> None:
    """Greedy takes three each turn: after Alice's one it is ahead and declines; after her
    three the game is even, and a bot takes a draw when the position is even or worse."""
    game = _alice_first([ALICE, "bot:greedy"])
    _play(game, alice_takes)
    game = reload(game.id)
    assert game.to_move == 0, "the bot has answered Alice's move"
    outbox_ids = endings.offer_draw(settings(), game.seats[0])
    dispatch.send_emails_later(outbox_ids)
    dispatch.play_bots_later(bot_turns.with_bots([game.id]))
    game = reload(game.id)
    kinds = [e.kind for e in db.session.execute(select(GameEvent)).scalars()]
    if accepted:
        assert game.status == FINISHED and kinds[-1] == "draw_agreed"
    else:
        assert game.status == RUNNING and kinds[-1] == "draw_declined"
        assert game.draw_offered_by is None
        assert any(m.kind == "draw_declined" and m.to == ALICE for m in mails())


# --- autopilot -----------------------------------------------------------------------------------


def _alice_to_move(seed: int) -> tuple[Game, int]:
    """A started game of Alice and Bob with Alice to move, and Alice's seat."""
    created = _create([ALICE, BOB], seed=seed)
    _accept_people(created.game_id)
    game = reload(created.game_id)
    alice = _person(game)
    if game.to_move != alice:
        _play(game, "1")
        game = reload(game.id)
    return game, alice


def test_autopilot_plays_my_seat_until_i_take_it_back(app: Flask) -> None:
    game, alice = _alice_to_move(seed=6)
    assert game.to_move == alice and game.deadline is not None
    mails_before = len(mails())
    autopilot.hand_over(settings(), game.seats[alice], on=True)
    assert autopilot.hand_over(settings(), game.seats[alice], on=True) == [], "on twice is on"
    dispatch.play_bots_later(bot_turns.with_bots([game.id]))
    game = reload(game.id)
    assert game.seats[alice].autopilot_since is not None
    assert views.history(game)[-1].seat == alice, "the search bot moved for Alice"
    assert game.to_move == 1 - alice and game.deadline is not None, "Bob's turn is timed"
    # Bob moves; the bot moves for Alice again, and Alice gets no turn email meanwhile.
    _play(game, "1")
    game = reload(game.id)
    seats = [m.seat for m in views.history(game)]
    assert seats[-2:] == [1 - alice, alice] or game.status == FINISHED
    assert not [m for m in mails()[mails_before:] if m.to == ALICE and m.kind == "turn"]
    autopilot.hand_over(settings(), game.seats[alice], on=False)
    game = reload(game.id)
    assert game.seats[alice].autopilot_since is None
    kinds = [e.kind for e in db.session.execute(select(GameEvent)).scalars()]
    assert kinds == ["autopilot_on", "autopilot_off"]


def test_taking_a_seat_back_on_its_turn_gives_back_the_turn_with_an_email(
    app: Flask, monkeypatch: pytest.MonkeyPatch
) -> None:
    with time_machine.travel(T0, tick=False) as traveller:
        game, alice = _alice_to_move(seed=7)
        # The bot worker is down: the seat goes on autopilot, and nobody has moved for it yet.
        monkeypatch.setattr(dispatch, "play_bots_later", lambda ids: True)
        autopilot.hand_over(settings(), game.seats[alice], on=True)
        game = reload(game.id)
        assert game.deadline is None, "the bot's turn is not timed"
        with pytest.raises(NotYourTurn, match="on autopilot"):
            moves.submit_move(game.seats[alice], "1", game.ply)
        before = len(mails())
        traveller.move_to(T0 + timedelta(hours=2))
        outbox_ids = autopilot.hand_over(settings(), game.seats[alice], on=False)
        game = reload(game.id)
        assert game.seats[alice].autopilot_since is None
        assert game.deadline == T0 + timedelta(days=1), "the turn's own deadline, not a new one"
        assert [(m.kind, m.to) for m in mails()[before:]] == [("turn", ALICE)]
        assert len(outbox_ids) == 1
        # A bot's move for a seat taken back is refused; Alice's own is taken.
        with pytest.raises(NotYourTurn, match="played by its player again"):
            moves.submit_move(game.seats[alice], "1", game.ply, by_bot=True)
        moves.submit_move(game.seats[alice], "1", game.ply)


def test_a_timeout_under_the_autopilot_policy_hands_the_seat_to_the_bot(app: Flask) -> None:
    with time_machine.travel(T0, tick=False):
        created = _create(
            [ALICE, BOB, "carol@example.org"], options={"pile": 21}, policy=AUTOPILOT, seed=8
        )
        _accept_people(created.game_id)
    game = reload(created.game_id)
    assert game.timeout_policy == AUTOPILOT
    late = game.to_move
    assert late is not None
    email = game.seats[late].player.email
    before = len(mails())
    report = run_clock_at(T0 + timedelta(days=1, minutes=1))
    assert report.timeouts == 1 and report.timed_out == [game.id]
    game = reload(game.id)
    assert game.status == RUNNING and game.seats[late].state == "active"
    assert game.seats[late].autopilot_since is not None
    assert game.to_move == late and game.deadline is None
    event = db.session.execute(select(GameEvent)).scalars().one()
    detail = {"autopilot": True, "bot": "greedy"}
    assert (event.kind, event.seat, event.detail) == ("timeout", late, detail)
    assert game.seats[late].autopilot_bot == "greedy", "a timeout hands the seat to greedy"
    news = mails()[before:]
    assert sorted(m.to for m in news if m.kind == "autopilot") == sorted(
        [ALICE, BOB, "carol@example.org"]
    )
    own = next(m for m in news if m.to == email)
    # The text part folds its paragraphs at 78 columns: read it unfolded.
    text = " ".join(own.text.split())
    assert "You ran out of time" in text and "pbem Greedy" in text
    assert "Take your seat back" in text
    stronger = "you may hand your seat to the stronger one, pbem MCTS, instead"
    assert stronger in text and stronger in (own.html or "")
    assert all(stronger not in " ".join(m.text.split()) for m in news if m.to != email)
    # The task then hands the turn to the bot, which moves for the seat.
    dispatch.play_bots_later(bot_turns.with_bots(report.timed_out))
    game = reload(game.id)
    assert game.ply == 1 and views.history(game)[0].seat == late


def test_two_players_out_of_time_lose_whatever_the_policy(app: Flask) -> None:
    with time_machine.travel(T0, tick=False):
        created = _create([ALICE, BOB], policy=AUTOPILOT)
        _accept_people(created.game_id)
    run_clock_at(T0 + timedelta(days=1, minutes=1))
    game = reload(created.game_id)
    assert game.status == FINISHED and game.outcome is not None
    assert game.outcome["reason"] == "timeout"


def test_a_timeout_policy_is_drop_or_autopilot(app: Flask) -> None:
    assert setup_checks.check_timeout_policy(None, 3) == "drop"
    assert setup_checks.check_timeout_policy(" Autopilot ", 3) == "autopilot"
    with pytest.raises(SetupError, match="choose drop or autopilot"):
        _create([ALICE, BOB, "carol@example.org"], policy="pause")


def test_a_bots_seat_cannot_be_handed_over(app: Flask) -> None:
    created = _create([ALICE, "bot:random"], started_by=starting.BY_PLAYER)
    game = reload(created.game_id)
    with pytest.raises(endings.Refused, match="played by its bot"):
        autopilot.hand_over(settings(), game.seats[_bot_seat(game)], on=True)


def test_no_outbox_row_is_ever_addressed_to_nobody(app: Flask) -> None:
    created = _create([ALICE, "bot:greedy", "bot:mcts"], started_by=starting.BY_PLAYER, seed=9)
    dispatch.play_bots_later([created.game_id])
    game = reload(created.game_id)
    while game.status == RUNNING:
        _play(game, "3")
        game = reload(game.id)
    rows = db.session.execute(select(OutboxMessage)).scalars().all()
    assert rows and all(row.to == ALICE for row in rows)
    assert {row.kind for row in rows} >= {"result"}
