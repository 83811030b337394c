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
    # The organiser is called by their seat (nobody has a name), never by their address.
    organiser = next(s.seat for s in game.seats if s.player.email == EMAILS[0])
    for row in invites:
        if row.to == EMAILS[0]:
            # Started for them by the operator: nobody invites the organiser but pbem.
            assert "invites you" not in row.text and "invites you" not in row.html
            assert "with you as its organiser" in " ".join(row.text.split())
            assert "with you as its organiser" in row.html
        else:
            assert f"Player {organiser + 1} invites you" in row.text
        assert "alice@example.org" not in row.text or row.to == "alice@example.org"
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


def _name(email: str) -> str | None:
    db.session.expire_all()
    return Player.query.filter_by(email=email).one().name


def test_the_organiser_names_players_only_while_they_have_none(app: Flask) -> None:
    config = settings()
    starting.create_game(config, "countdown", {}, EMAILS, names=[" Alice  Smith ", "Bobby"])
    assert _name(EMAILS[0]) == "Alice Smith" and _name(EMAILS[1]) == "Bobby"
    # Another organiser's names for the same players change nothing: a name, once there, stays
    # until its player changes it.
    carol = "carol@example.org"
    starting.create_game(config, "countdown", {}, [carol, EMAILS[1]], names=["Carol", "Dummy"])
    assert _name(EMAILS[1]) == "Bobby" and _name(carol) == "Carol"
    # Without names, nobody's is touched; a bad name is refused before anything is made.
    starting.create_game(config, "countdown", {}, EMAILS)
    assert _name(EMAILS[0]) == "Alice Smith"
    games = Game.query.count()
    with pytest.raises(SetupError, match="must not carry an address"):
        starting.create_game(config, "countdown", {}, ["dan@example.org", carol], names=["a@b"])
    with pytest.raises(SetupError, match="more names than players"):
        starting.create_game(config, "countdown", {}, EMAILS, names=["A", "B", "C"])
    assert (
        Game.query.count() == games and Player.query.filter_by(email="dan@example.org").all() == []
    )


def test_a_player_names_themselves_when_accepting(app: Flask) -> None:
    config = settings()
    created = starting.create_game(config, "countdown", {}, EMAILS, names=["Alice", "Bobby"])
    game = db.session.get(Game, created.game_id)
    assert game is not None
    alice, bob = sorted(game.seats, key=lambda s: s.player.email)
    # A bad name takes no seat and changes nothing.
    with pytest.raises(SetupError, match="one line"):
        starting.accept_invitation(config, bob, name="Bob\nBob")
    db.session.expire_all()
    assert db.session.get(Game, game.id).seats[bob.seat].accepted_at is None
    # Accepting without a name keeps the organiser's; with one, the player's own replaces it.
    starting.accept_invitation(config, alice)
    assert _name(EMAILS[0]) == "Alice"
    accepted = starting.accept_invitation(config, bob, name=" Robert ")
    assert accepted.started and _name(EMAILS[1]) == "Robert"
    assert accepted.game.names[bob.seat] == "Robert"
    # The game's first emails already use it.
    first = mails(kind="turn") + mails(kind="started")
    assert first and all("Robert" in m.text for m in first)


def test_the_first_emails_call_players_by_name_never_by_another_address(app: Flask) -> None:
    config = settings()
    carol = "carol@example.org"
    created = starting.create_game(
        config, "countdown", {}, [*EMAILS, carol], names=["Alice Smith", None, "Carol"]
    )
    game = db.session.get(Game, created.game_id)
    assert game is not None
    bob = next(s.seat for s in game.seats if s.player.email == EMAILS[1])
    for row in mails(kind="invite"):
        mine = row.to == EMAILS[0]
        assert ("Alice Smith invites you" in row.text) is not mine and "Carol" in row.text
        assert f"Player {bob + 1}" in row.text
        others = [a for a in [*EMAILS, carol] if a != row.to]
        assert not any(address in row.text or address in row.html for address in others)
    for seat in game.seats:
        starting.accept_invitation(config, seat)
    for row in mails(kind="turn") + mails(kind="started"):
        others = [a for a in [*EMAILS, carol] if a != row.to]
        assert not any(address in row.text or address in row.html for address in others)


def test_the_organiser_names_whoever_takes_a_lapsed_seat(app: Flask) -> None:
    config = settings()
    created = starting.create_game(config, "countdown", {}, EMAILS, names=["Alice", None])
    game = db.session.get(Game, created.game_id)
    assert game is not None
    organiser = next(s for s in game.seats if s.player.email == EMAILS[0])
    lapsed = next(s for s in game.seats if s.player.email == EMAILS[1])
    lapsed.expired_at = utcnow()
    db.session.commit()
    starting.reinvite(config, organiser, lapsed.seat, "dan@example.org", name="Dan")
    assert _name("dan@example.org") == "Dan"
    (invitation,) = mails(kind="invite", to="dan@example.org")
    assert "Alice invites you" in invitation.text and EMAILS[0] not in invitation.text


# --- games named by their organiser -------------------------------------------------------------


def test_a_named_game_keeps_its_name_and_its_first_mail_is_headed_by_it(app: Flask) -> None:
    config = settings()
    created = starting.create_game(
        config, "countdown", {}, EMAILS, started_by=starting.BY_STRANGER, title="  Friday   Club "
    )
    game = db.session.get(Game, created.game_id)
    assert game is not None and game.title == "Friday Club"
    (confirm,) = mails(kind="confirm")
    assert confirm.subject == f"[pbem] Friday Club ({game.id}): confirm your new game"
    assert f"a game of Countdown, “Friday Club” (game {game.id}) on pbem" in " ".join(
        confirm.text.split()
    )
    assert 'id="game-name"' in confirm.html and ">Friday Club</b>" in confirm.html
    organiser = next(s for s in game.seats if s.player.email == EMAILS[0])
    accepted = starting.accept_invitation(config, organiser)
    assert accepted.game.title == "Friday Club"
    (invite,) = mails(kind="invite")
    assert invite.subject == f"[pbem] Friday Club ({game.id}): you are invited to a game"
    other = next(s for s in game.seats if s.player.email == EMAILS[1])
    assert starting.accept_invitation(config, other).started
    (turn,) = mails(kind="turn")
    assert turn.subject == f"[pbem] Friday Club ({game.id}): your turn (move 1)"
    assert f"It is your turn in Friday Club (Countdown game {game.id})" in turn.text
    assert f"<b>Friday Club</b> (Countdown game {game.id})" in turn.html
    (started,) = mails(kind="started")
    assert started.subject == f"[pbem] Friday Club ({game.id}): the game has started"


def test_an_unnamed_game_keeps_the_subjects_it_always_had(app: Flask) -> None:
    config = settings()
    created = starting.create_game(config, "countdown", {}, EMAILS, title="   ")
    game = db.session.get(Game, created.game_id)
    assert game is not None and game.title is None
    invites = mails(kind="invite")
    assert {m.subject for m in invites} == {
        f"[pbem] Countdown ({game.id}): you are invited to a game"
    }
    for seat in game.seats:
        starting.accept_invitation(config, seat)
    (turn,) = mails(kind="turn")
    assert turn.subject == f"[pbem] Countdown ({game.id}): your turn (move 1)"
    assert f"It is your turn in Countdown game {game.id}" in turn.text
    assert 'id="game-name"' not in turn.html


def test_a_name_is_escaped_in_html_mail_and_kept_whole_in_subjects(app: Flask) -> None:
    created = starting.create_game(settings(), "countdown", {}, EMAILS, title="<i>Bob</i> & Co")
    invites = mails(kind="invite")
    assert invites and all(
        m.subject == f"[pbem] <i>Bob</i> & Co ({created.game_id}): you are invited to a game"
        for m in invites
    )
    for row in invites:
        assert "<i>Bob</i>" not in row.html and "&lt;i&gt;Bob&lt;/i&gt; &amp; Co" in row.html


def test_a_bad_name_is_refused_and_nothing_is_made(app: Flask) -> None:
    with pytest.raises(SetupError, match="one line"):
        starting.create_game(settings(), "countdown", {}, EMAILS, title="Friday\r\nBcc: x")
    with pytest.raises(SetupError, match="at most 60 characters"):
        starting.create_game(settings(), "countdown", {}, EMAILS, title="x" * 61)
    assert db.session.execute(select(func.count(Game.id))).scalar() == 0
    assert mails() == []


def test_the_invitation_to_a_lapsed_seat_carries_the_games_name(app: Flask) -> None:
    config = settings()
    created = starting.create_game(config, "countdown", {}, EMAILS, title="Friday Club")
    game = db.session.get(Game, created.game_id)
    assert game is not None
    organiser = next(s for s in game.seats if s.player.email == EMAILS[0])
    lapsed = next(s for s in game.seats if s.player.email == EMAILS[1])
    lapsed.expired_at = utcnow()
    db.session.commit()
    starting.reinvite(config, organiser, lapsed.seat, "dan@example.org")
    (invitation,) = mails(kind="invite", to="dan@example.org")
    assert invitation.subject == f"[pbem] Friday Club ({game.id}): you are invited to a game"
