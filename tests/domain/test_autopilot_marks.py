"""Autopilot made visible and its bot chosen: a move a bot made for a person's seat is marked
as the bot's in the record (`moves.autopilot`), the move lists and the mail ("played by autopilot
for Ann"); the player chooses greedy (the default) or mcts, and the bot turn plays with that one.
Tasks run in-process (the test app has no broker), bots think for 0.05 s."""

from __future__ import annotations

import pytest
from flask import Flask
from sqlalchemy import select

from pbem import dispatch
from pbem.domain import autopilot, bot_seats, bot_turns, moves, starting, views
from pbem.domain.clocks import parse_clock
from pbem.domain.errors import SetupError
from pbem.extensions import db, settings
from pbem.models import Game, GameEvent, Move, Submission
from tests.domain.clock_flow import reload
from tests.domain.flow import mails

ALICE, BOB = "alice@example.org", "bob@example.org"


def _alice_to_move(seed: int) -> tuple[Game, int]:
    """A started game of Alice and Bob (a pile of 21) with Alice to move, and her seat."""
    created = starting.create_game(
        settings(),
        "countdown",
        {"pile": 21},
        [ALICE, BOB],
        started_by=starting.BY_OPERATOR,
        clock=parse_clock("days:1"),
        seed=seed,
    )
    game = reload(created.game_id)
    for seat in list(game.seats):
        dispatch.send_emails_later(starting.accept_invitation(settings(), seat).outbox_ids)
    game = reload(created.game_id)
    alice = next(s.seat for s in game.seats if s.player.email == ALICE)
    if game.to_move != alice:
        _play(game, "1")
        game = reload(game.id)
    return game, alice


def _play(game: Game, move: str) -> None:
    assert game.to_move is not None
    dispatch.apply_move_later(moves.submit_move(game.seats[game.to_move], move, game.ply))


def _hand_over(game: Game, seat: int, bot: str | None = None) -> None:
    dispatch.send_emails_later(autopilot.hand_over(settings(), game.seats[seat], True, bot=bot))
    dispatch.play_bots_later(bot_turns.with_bots([game.id]))


def test_a_move_made_on_autopilot_is_marked_in_the_record_the_lists_and_the_mail(
    app: Flask,
) -> None:
    game, alice = _alice_to_move(seed=11)
    bob_before = len(mails(to=BOB, kind="turn"))
    _hand_over(game, alice, bot="mcts")
    game = reload(game.id)
    name = views.names(game)[alice]
    (made,) = [m for m in views.history(game) if m.seat == alice]
    assert made.autopilot == "mcts", "the move keeps the bot that made it"
    submission = db.session.get(Submission, made.submission_id)
    assert submission is not None and submission.autopilot == "mcts"
    # The person's own moves are theirs.
    assert all(m.autopilot is None for m in views.history(game) if m.seat != alice)
    # The record and the API's move list.
    record = {m["ply"]: m for m in views.game_record(game)["moves"]}
    assert record[made.ply]["autopilot"] is True and record[made.ply]["autopilot_bot"] == "mcts"
    assert all(m["autopilot"] is False for p, m in record.items() if p != made.ply)
    # Bob's turn email tells the move as the bot's, in its last move and in the list.
    turn = mails(to=BOB, kind="turn")[bob_before:][-1]
    note = f"played by autopilot for {name}"
    (last,) = [line for line in turn.text.splitlines() if line.startswith("Last move:")]
    assert last.endswith(f"({note})."), last
    listed = turn.text.split("Recent moves:")[1]
    assert f"({note})" in listed
    assert note in turn.html
    # The moves lists of pages say it beside that move only.
    told = views.recent_moves(db.session.connection(), game.id, views.names(game))
    marked = [m for m in told if isinstance(m, views.RecentMove) and m.autopilot_note]
    assert [m.ply for m in marked] == [made.ply]
    assert marked[0].sentence.endswith(f"({note})")


def test_the_hand_over_records_the_bot_chosen_and_greedy_is_the_default(app: Flask) -> None:
    game, alice = _alice_to_move(seed=12)
    _hand_over(game, alice)
    game = reload(game.id)
    assert game.seats[alice].autopilot_bot == "greedy"
    (made,) = [m for m in views.history(game) if m.seat == alice]
    assert made.autopilot == "greedy", "the bot turn played with the bot chosen"
    on = db.session.execute(select(GameEvent).where(GameEvent.kind == "autopilot_on")).scalar_one()
    assert on.detail is not None and on.detail["bot"] == "greedy" and "turn" in on.detail
    # Asking for the other bot while on autopilot switches to it; asking again changes nothing.
    _hand_over(game, alice, bot="MCTS")
    assert reload(game.id).seats[alice].autopilot_bot == "mcts"
    assert autopilot.hand_over(settings(), reload(game.id).seats[alice], True, bot="mcts") == []
    kinds = [e.kind for e in db.session.execute(select(GameEvent)).scalars()]
    assert kinds == ["autopilot_on", "autopilot_bot"]
    autopilot.hand_over(settings(), reload(game.id).seats[alice], False)
    assert reload(game.id).seats[alice].autopilot_bot is None


def test_an_unknown_bot_is_refused_with_the_choices(app: Flask) -> None:
    game, alice = _alice_to_move(seed=13)
    with pytest.raises(SetupError, match=r"'random' is not a bot autopilot can hand.*greedy.*mcts"):
        autopilot.hand_over(settings(), game.seats[alice], True, bot="random")
    assert reload(game.id).seats[alice].autopilot_since is None
    assert bot_seats.autopilot_bot(None) == bot_seats.autopilot_bot(" ") == "greedy"
    assert bot_seats.autopilot_bot(" Mcts ") == "mcts"


def test_a_person_or_a_bot_seat_moving_for_itself_is_never_marked(app: Flask) -> None:
    created = starting.create_game(
        settings(), "countdown", {"pile": 21}, [ALICE, "bot:greedy"], seed=14
    )
    game = reload(created.game_id)
    for seat in list(game.seats):
        if seat.player.bot is None:
            dispatch.send_emails_later(starting.accept_invitation(settings(), seat).outbox_ids)
    dispatch.play_bots_later(bot_turns.with_bots([game.id]))
    game = reload(game.id)
    _play(game, "1")
    rows = db.session.execute(select(Move).where(Move.game_id == game.id)).scalars().all()
    assert len(rows) >= 2 and all(row.autopilot is None for row in rows)
