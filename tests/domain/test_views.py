"""What pages, mail and the API show of a game: a seat's picture, its moves, its record, and past
positions replayed from the seed."""

from __future__ import annotations

from flask import Flask

from pbem import games
from pbem.domain import views
from pbem.extensions import db
from pbem.models import Game
from tests.domain.flow import mails, play, seat_to_move, start


def test_a_seats_picture_of_a_running_game(app: Flask) -> None:
    game = start(options={"pile": 10})
    first = seat_to_move(game)
    play(game, "2")
    play(game, "3")
    db.session.refresh(game)
    mover = seat_to_move(game)
    waiting = game.seats[1 - mover.seat]
    assert mover.seat == first.seat
    mine, theirs = views.picture(mover), views.picture(waiting)
    assert mine.title == "Countdown" and mine.names == views.names(game)
    # Nobody has a name: each seat is called by its colour (Countdown has no colour words).
    assert mine.names == ["Player 1", "Player 2"]
    me, them = mine.names[mover.seat], mine.names[waiting.seat]
    assert mine.your_turn and not theirs.your_turn
    assert mine.legal_moves() == ["1", "2", "3"] and theirs.legal_moves() == []
    assert mine.opponents == [them]
    assert mine.to_move_name == me == theirs.to_move_name
    assert mine.recent == [(0, me, "2"), (1, them, "3")]
    assert views.picture(mover, recent=1).recent == [(1, them, "3")]
    assert views.picture(mover, recent=0).recent == []
    scores = dict(mine.scores)
    assert scores == {me: 2, them: 3}


def test_moves_count_from_one_for_people() -> None:
    assert views.move_number(0) == 1
    assert views.move_number(41) == 42


def test_past_positions_are_replayed_from_the_seed(app: Flask) -> None:
    game = start(options={"pile": 10})
    for move in ("1", "2", "3"):
        play(game, move)
    db.session.refresh(game)
    now = views.load_state(game)
    assert now is not None
    assert views.position_after(game, game.ply).to_json() == now.to_json()
    assert (
        views.position_after(game, 0).to_json()
        == views.engine(game).new(2, game.options, game.seed).to_json()
    )
    assert views.position_after(game, 1).pile == 9
    assert views.position_after(game, game.ply + 1) is None


def test_the_record_has_everything_to_replay_the_game(app: Flask) -> None:
    game = start(options={"pile": 5})
    play(game, "2")
    db.session.refresh(game)
    running = views.game_record(game)
    assert running["format"] == views.RECORD_FORMAT == "pbem-record/2"
    assert "seed" not in running, "the seed deals what is still hidden: none while it runs"
    play(game, "3")
    db.session.refresh(game)
    record = views.game_record(game)
    assert record["game"] == game.id and record["engine"] == "countdown"
    assert record["title"] == "Countdown" and record["seed"] == game.seed
    assert record["options"] == {"pile": 5, "actions": 1}
    assert record["status"] == "finished" and record["ply"] == 2
    # Addresses only for the seat that asks; names for everyone.
    assert [p["email"] for p in record["players"]] == [None, None]
    assert [p["name"] for p in record["players"]] == views.names(game)
    assert all(p["accepted"] and p["kind"] == "human" for p in record["players"])
    mine = views.game_record(game, viewer=1)["players"]
    assert [p["email"] for p in mine] == [None, game.seats[1].player.email]
    assert [(m["ply"], m["move"]) for m in record["moves"]] == [(0, "2"), (1, "3")]
    assert record["finished_at"] is not None and record["moves"][0]["at"].endswith("Z")


def test_a_finished_games_picture_says_how_it_ended_with_names(app: Flask) -> None:
    game = start(options={"pile": 5})
    play(game, "3")
    play(game, "2")
    db.session.expire_all()
    seat = db.session.get(Game, game.id).seats[0]
    pic = views.picture(seat)
    winner = pic.names[pic.game.outcome["winners"][0]]
    assert pic.outcome_text == f"{winner} took the last counter"
    (result, *_) = [m for m in mails(kind="result")]
    assert f"is over. {pic.outcome_text}." in result.text


def test_a_view_of_a_game_that_is_over_offers_no_move() -> None:
    """The service ends games its engine does not know are over (a resignation, a timeout, a
    draw agreed): their state still lists the moves of the player who was to move."""
    state = games.get("gorami").new(2, {"board": "16"}, seed=1)
    assert state.legal_moves()
    assert views.seat_view("running", state, 0, may_move=True) == state.view(0)
    # The engine lists the mover's moves to every seat: a seat that may not move has none.
    assert views.seat_view("running", state, 1, may_move=False)["legal_moves"] == []
    for status in ("finished", "cancelled"):
        over = views.seat_view(status, state, 1, may_move=False)
        assert over["legal_moves"] == [] and over["to_move"] is None
        assert {k: v for k, v in over.items() if k not in ("legal_moves", "to_move")} == {
            k: v for k, v in state.view(1).items() if k not in ("legal_moves", "to_move")
        }
