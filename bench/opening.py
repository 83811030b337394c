"""A GORami game a few moves in, played through the domain as the service plays it: the turn
emails the mail benchmarks build and send are the rows it writes."""

from __future__ import annotations

from typing import Any

from pbem import dispatch
from pbem.domain import moves, starting, views
from pbem.extensions import db
from pbem.models import Game, Seat

EMAILS = ["zoe@example.org", "bob@example.org"]


def play_opening(config: Any, plies: int) -> str:
    """Start a GORami 16 game (seed 7), take both seats and play the first legal move `plies`
    times; returns the game id. Needs an app context whose tasks run in-process."""
    created = starting.create_game(config, "gorami", {"board": 16}, EMAILS, seed=7)
    dispatch.send_emails_later(created.outbox_ids)
    game = db.session.get(Game, created.game_id)
    assert game is not None
    for seat in list(game.seats):
        dispatch.send_emails_later(starting.accept_invitation(config, seat).outbox_ids)
    for _ in range(plies):
        db.session.expire_all()
        game = db.session.get(Game, created.game_id)
        assert game is not None and game.to_move is not None
        seat = db.session.get(Seat, game.seats[game.to_move].id)
        state = views.load_state(game)
        assert seat is not None and state is not None
        submission = moves.submit_move(seat, sorted(state.legal_moves())[0], game.ply)
        dispatch.apply_move_later(submission)
    return created.game_id
