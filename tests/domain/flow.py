"""Helpers for the domain tests: games started and played through `pbem.domain`, tasks run
in-process by `pbem.dispatch`, and the outbox as written."""

from __future__ import annotations

from sqlalchemy import select

from pbem import dispatch
from pbem.domain import moves, starting
from pbem.extensions import db, settings
from pbem.models import Game, OutboxMessage, Seat, Submission

EMAILS = ["alice@example.org", "bob@example.org"]


def start(
    engine: str = "countdown",
    options: dict[str, object] | None = None,
    emails=EMAILS,
    seed: int | None = None,
) -> Game:
    """A running game: created, every invitation accepted, all emails sent."""
    created = starting.create_game(settings(), engine, options or {}, emails, seed=seed)
    dispatch.send_emails_later(created.outbox_ids)
    game = db.session.get(Game, created.game_id)
    assert game is not None
    for seat in list(game.seats):
        dispatch.send_emails_later(starting.accept_invitation(settings(), seat).outbox_ids)
    db.session.expire_all()
    started = db.session.get(Game, created.game_id)
    assert started is not None
    return started


def seat_to_move(game: Game) -> Seat:
    db.session.refresh(game)
    return game.seats[game.to_move]


def play(game: Game, move: str) -> Submission:
    seat = seat_to_move(game)
    submission_id = moves.submit_move(seat, move, game.ply)
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
