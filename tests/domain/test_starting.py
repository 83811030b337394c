"""Starting a game: the organiser's request checked, the invitations, the draw of the seats, and
the deal once every seat is taken."""

from __future__ import annotations

import pytest
from flask import Flask
from sqlalchemy import func, select

from pbem.domain import starting
from pbem.domain.errors import SetupError
from pbem.extensions import db, settings
from pbem.models import RUNNING, Game
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


def test_addresses_are_trimmed_and_their_domain_lowercased() -> None:
    assert starting.normalise_email("  Bob.Smith@Example.ORG ") == "Bob.Smith@example.org"
    with pytest.raises(SetupError, match="is not an email address"):
        starting.normalise_email("bob@example.org, carol@example.org")
