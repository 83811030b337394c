"""Moves in words: the engine's sentence is stored with each move when it is applied (one play for
both), and the emails and `views.recent_moves` read it back with the players' names."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from flask import Flask
from sqlalchemy import select, update

from pbem import games
from pbem.domain import moves, views
from pbem.extensions import db, settings
from pbem.models import APPLIED, PENDING, Move, Submission, utcnow
from tests.countdown import Countdown, CountdownState
from tests.domain.flow import mails, play, seat_to_move, start


def test_each_move_is_stored_with_its_sentence(app: Flask) -> None:
    game = start(options={"pile": 10})
    first = seat_to_move(game).seat
    play(game, "3")
    play(game, "2")
    stored = db.session.execute(select(Move).where(Move.game_id == game.id).order_by(Move.ply))
    assert [(m.ply, m.move, m.words) for m in stored.scalars()] == [
        (0, "3", f"{{{first}}} took 3, leaving 7"),
        (1, "2", f"{{{1 - first}}} took 2, leaving 5"),
    ]


def test_recent_moves_put_the_names_in_and_keep_the_notation(app: Flask) -> None:
    game = start(options={"pile": 10})
    play(game, "3")
    play(game, "2")
    names = views.names(game)
    first = views.history(game)[0].seat
    recent = views.recent_moves(db.session.connection(), game.id, names)
    assert [(m.number, m.who, m.move, m.words) for m in recent] == [
        (1, names[first], "3", f"{names[first]} took 3, leaving 7"),
        (2, names[1 - first], "2", f"{names[1 - first]} took 2, leaving 5"),
    ]
    # Still the (ply, who, move) tuples the letters were given before.
    assert recent[0] == (0, names[first], "3")


def test_a_move_stored_before_sentences_reads_as_who_played_what(app: Flask) -> None:
    game = start(options={"pile": 10})
    play(game, "3")
    db.session.execute(update(Move).where(Move.game_id == game.id).values(words=None))
    db.session.commit()
    names = views.names(game)
    (old,) = views.recent_moves(db.session.connection(), game.id, names)
    assert old.words is None and old.sentence == f"{old.who} played 3"
    play(game, "2")
    turn = mails(kind="turn")[-1]
    assert f"  1. {old.who} played 3\n" in turn.text
    assert f"2. {names[1 - views.history(game)[0].seat]} took 2, leaving 5 (2)" in turn.text


class _Counting(Countdown):
    """Countdown counting the plays of its states: applying a move must play it once."""

    name = "counting"
    plays = 0

    def new(self, *args: Any, **kwargs: Any) -> CountdownState:
        return _counted(super().new(*args, **kwargs))

    def from_json(self, data: Any) -> CountdownState:
        return _counted(super().from_json(data))


def _counted(state: CountdownState) -> CountdownState:
    class Counted(CountdownState):
        def play(self, move: str) -> CountdownState:
            _Counting.plays += 1
            return _counted(super().play(move))

    return Counted(**{f: getattr(state, f) for f in CountdownState.__dataclass_fields__})


@pytest.fixture
def counting() -> Iterator[None]:
    games.register("counting", _Counting())
    _Counting.plays = 0
    yield
    games.unregister("counting")


def test_applying_a_move_plays_it_once_for_the_state_and_the_sentence(
    app: Flask, counting: None
) -> None:
    game = start("counting", options={"pile": 10})
    seat = seat_to_move(game)
    submission_id = moves.submit_move(seat, "3", game.ply)
    assert _Counting.plays == 1  # checked as it is stored
    moves.apply_moves(settings(), [submission_id])
    assert _Counting.plays == 2  # and played once more to apply it, its words with it
    (move,) = db.session.execute(select(Move).where(Move.game_id == game.id)).scalars()
    assert move.words == f"{{{seat.seat}}} took 3, leaving 7"


def test_both_actions_of_a_turn_applied_in_one_batch_are_in_the_next_email(app: Flask) -> None:
    game = start(options={"actions": 2, "pile": 21})
    mover = seat_to_move(game).seat
    ids = []
    for ply, move in enumerate(["1", "2"]):
        row = Submission(
            game_id=game.id, seat=mover, ply=ply, move=move, status=PENDING, created_at=utcnow()
        )
        db.session.add(row)
        db.session.flush()
        ids.append(row.id)
    db.session.commit()
    moves.apply_moves(settings(), ids)
    assert [s.status for s in db.session.execute(select(Submission)).scalars()] == [APPLIED] * 2
    name = views.names(game)[mover]
    turn = mails(kind="turn")[-1]
    assert f"  1. {name} took 1, leaving 20 (1)\n  2. {name} took 2, leaving 18 (2)\n" in turn.text
