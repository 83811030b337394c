"""Starting a game: the organiser's request checked, the invitations, the draw of the seats, and
the deal once every seat is taken."""

from __future__ import annotations

from datetime import timedelta

import pytest
from flask import Flask
from sqlalchemy import func, select

from pbem.domain import starting, sweep
from pbem.domain.errors import NotFound, SetupError
from pbem.extensions import db, settings
from pbem.models import RUNNING, Game, Player, utcnow
from tests.domain.flow import EMAILS, mails


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
    with pytest.raises(SetupError, match=message):
        starting.create_game(settings(), engine, options, emails)
    assert db.session.execute(select(func.count(Game.id))).scalar() == 0


def test_each_invitee_gets_an_invitation_and_seats_are_drawn(app: Flask) -> None:
    config = settings()
    created = starting.create_game(
        config, "countdown", {"pile": "21"}, [*EMAILS, "carol@example.org"]
    )
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
    again = starting.create_game(
        config, "countdown", {}, [*EMAILS, "carol@example.org"], seed=game.seed
    )
    other = db.session.get(Game, again.game_id)
    assert other is not None and [s.player.email for s in other.seats] == order


def test_seat_order_is_drawn_at_random(app: Flask) -> None:
    orders = set()
    for _ in range(20):
        created = starting.create_game(settings(), "countdown", {}, EMAILS)
        game = db.session.get(Game, created.game_id)
        assert game is not None
        orders.add(tuple(s.player.email for s in game.seats))
    assert len(orders) == 2


def test_game_starts_when_every_seat_is_taken(app: Flask) -> None:
    config = settings()
    created = starting.create_game(config, "countdown", {}, EMAILS)
    game = db.session.get(Game, created.game_id)
    assert game is not None
    first, second = game.seats
    accepted = starting.accept_invitation(config, first)
    assert not accepted.started and accepted.outbox_ids == []
    assert starting.accept_invitation(config, first).already
    accepted = starting.accept_invitation(config, second)
    assert accepted.started
    db.session.refresh(game)
    assert game.status == RUNNING and game.ply == 0 and game.to_move == 0
    turn = mails(kind="turn")
    assert [m.to for m in turn] == [game.seats[0].player.email]
    assert [m.to for m in mails(kind="started")] == [game.seats[1].player.email]
    assert starting.accept_invitation(config, second).already


def test_a_game_from_the_form_emails_its_organiser_alone_until_confirmed(app: Flask) -> None:
    config = settings()
    created = starting.create_game(config, "countdown", {}, EMAILS, started_by=starting.BY_STRANGER)
    game = db.session.get(Game, created.game_id)
    assert game is not None and game.confirmed_at is None
    assert [m.kind for m in mails()] == ["confirm"] and mails()[0].to == EMAILS[0]
    organiser = next(s for s in game.seats if s.player.email == EMAILS[0])
    other = next(s for s in game.seats if s.player.email == EMAILS[1])
    with pytest.raises(NotFound, match="not open yet"):
        starting.accept_invitation(config, other)
    accepted = starting.accept_invitation(config, organiser)
    assert accepted.confirmed and not accepted.started
    db.session.expire_all()
    assert db.session.get(Game, game.id).confirmed_at is not None
    assert [(m.kind, m.to) for m in mails(kind="invite")] == [("invite", EMAILS[1])]
    assert starting.accept_invitation(config, other).started


def test_a_game_from_a_player_link_takes_the_organisers_seat(app: Flask) -> None:
    created = starting.create_game(
        settings(), "countdown", {}, EMAILS, started_by=starting.BY_PLAYER
    )
    game = db.session.get(Game, created.game_id)
    assert game is not None and game.confirmed_at is not None
    accepted = {s.player.email: s.accepted_at is not None for s in game.seats}
    assert accepted == {EMAILS[0]: True, EMAILS[1]: False}
    assert [(m.kind, m.to) for m in mails()] == [("invite", EMAILS[1])]


def test_the_operator_invites_everyone_at_once(app: Flask) -> None:
    created = starting.create_game(settings(), "countdown", {}, EMAILS)
    game = db.session.get(Game, created.game_id)
    assert game is not None and game.confirmed_at is not None
    assert game.organiser is not None and game.organiser.email == EMAILS[0]
    assert sorted(m.to for m in mails(kind="invite")) == sorted(EMAILS)


def test_a_blocked_address_is_never_invited(app: Flask) -> None:
    config = settings()
    starting.create_game(config, "countdown", {}, EMAILS)
    player = Player.query.filter_by(email=EMAILS[1]).one()
    player.blocked_at = player.created_at
    db.session.commit()
    before = len(mails())
    with pytest.raises(SetupError, match="never to email"):
        starting.create_game(config, "countdown", {}, ["carol@example.org", EMAILS[1]])
    assert len(mails()) == before


def test_a_game_nobody_confirms_is_deleted_after_seven_days(app: Flask) -> None:
    config = settings()
    waiting = starting.create_game(config, "countdown", {}, EMAILS, started_by=starting.BY_STRANGER)
    kept = starting.create_game(config, "countdown", {}, EMAILS)
    now = utcnow()
    assert sweep.expire_unconfirmed(now + timedelta(days=6)) == 0
    assert sweep.expire_unconfirmed(now + timedelta(days=7, seconds=1)) == 1
    db.session.expire_all()
    assert db.session.get(Game, waiting.game_id) is None
    assert db.session.get(Game, kept.game_id) is not None
    assert [m for m in mails() if m.game_id == waiting.game_id] == []
