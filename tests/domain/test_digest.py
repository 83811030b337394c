"""The daily digest: one email a day at the digest hour of the player's zone, listing the games
where it is their move (nearest deadline first), none when nothing awaits them, never two in a
day even from two runs at once; no turn email for those who chose the digest or no turn mail,
and the reminders before a deadline to those on the digest (as emails of their own) but not to
those without turn mail."""

from __future__ import annotations

import threading
from datetime import datetime, timedelta

import time_machine
from flask import Flask
from sqlalchemy import select, text
from sqlalchemy.dialects import postgresql

from pbem import links
from pbem.domain import digest, letters, preferences, starting, views, when
from pbem.domain.clocks import parse_clock
from pbem.extensions import db, settings
from pbem.models import DIGEST, EVERY_TURN, NO_TURN_MAIL, Game, Player, utcnow
from tests.domain.clock_flow import T0, move_at, reload, run_clock_at
from tests.domain.flow import mails

ALICE, BOB, CAROL, DAVE = (f"{n}@example.org" for n in ("alice", "bob", "carol", "dave"))
DAY = timedelta(days=1)


def _player(email: str) -> Player:
    db.session.expire_all()
    return db.session.execute(select(Player).where(Player.email == email)).scalar_one()


def _prefer(email: str, preference: str, zone: str | None = None) -> None:
    """The player's mail preference (the player created first if need be)."""
    player = db.session.execute(select(Player).where(Player.email == email)).scalar_one_or_none()
    if player is None:
        player = Player(email=email)
        db.session.add(player)
    player.time_zone = zone
    preferences.set_preference(player, preference)


def _game(emails: list[str], clock: str = "days:3", at: datetime = T0) -> Game:
    """A running game of Countdown started at `at`."""
    with time_machine.travel(at, tick=False):
        created = starting.create_game(
            settings(), "countdown", {"pile": 21}, emails, clock=parse_clock(clock)
        )
        game = reload(created.game_id)
        for seat in list(game.seats):
            starting.accept_invitation(settings(), seat)
    return reload(created.game_id)


def _to_move(game: Game, email: str, at: datetime = T0) -> Game:
    """The game once it is `email`'s move (the other player moves first if need be)."""
    game = reload(game.id)
    while game.seats[game.to_move or 0].player.email != email:
        move_at(game, "1", at)
        game = reload(game.id)
    return game


def _unsigned(link: str) -> str:
    """A link without its signature's timestamp, which ticks on while a test reads the mail."""
    return link.rsplit(".", 2)[0] + "."


def _digests(to: str = BOB) -> list[str]:
    db.session.expire_all()
    return [row.text for row in mails(to=to, kind="digest")]


def test_the_digest_lists_the_games_awaiting_the_player_nearest_deadline_first(
    app: Flask,
) -> None:
    config = settings()
    _prefer(BOB, DIGEST, "Europe/Paris")
    soon = _to_move(_game([ALICE, BOB], "days:1"), BOB)
    later = _to_move(_game([CAROL, BOB], "days:3"), BOB)
    untimed = _to_move(_game([DAVE, BOB], "none"), BOB)
    _to_move(_game([ALICE, BOB, CAROL], "days:2"), ALICE)  # not Bob's move: not listed

    report = digest.run_digest(config, T0 + timedelta(hours=1))
    assert (report.due, report.sent, len(report.outbox_ids)) == (1, 1, 1)
    assert report.summary() == "1 digest sent"
    (row,) = mails(to=BOB, kind="digest")
    assert row.subject == "[pbem] your move in 3 games"
    assert row.game_id is None and row.reply_to is None
    unsubscribe = links.mail_settings_url(config, _player(BOB).id)
    assert row.list_unsubscribe is not None
    assert _unsigned(row.list_unsubscribe) == _unsigned(unsubscribe)
    text = row.text
    order = [text.index(f"game {g.id}") for g in (soon, later, untimed)]
    assert order == sorted(order)
    for game in (soon, later, untimed):
        game = reload(game.id)
        bob = next(s for s in game.seats if s.player.email == BOB)
        who = views.names(game)
        opponent = who[1 - bob.seat]
        assert f"Countdown game {game.id} against {opponent}: move {game.ply + 1}." in text
        link = _unsigned(links.seat_url(config, bob))
        assert link in text and f'href="{link}' in row.html
        if game.deadline is not None:
            assert f"Move by {when.in_words(game.deadline, 'Europe/Paris')}." in text
    assert "CET" in text and "07:00 (Europe/Paris)" in text
    assert row.list_unsubscribe in text and row.list_unsubscribe in row.html


def test_one_digest_a_day_at_the_hour_of_the_players_zone(app: Flask) -> None:
    config = settings()  # PBEM_DIGEST_HOUR: 7
    _prefer(BOB, DIGEST, "Asia/Tokyo")  # 07:00 there is 22:00 UTC the day before
    _to_move(_game([ALICE, BOB]), BOB)
    assert digest.run_digest(config, T0).sent == 1  # the first run after the last 07:00
    assert digest.run_digest(config, T0 + timedelta(hours=5)).sent == 0
    tokyo_seven = datetime(2026, 12, 2, 22, 0)  # Thursday 07:00 in Tokyo
    assert digest.run_digest(config, tokyo_seven - timedelta(minutes=1)).due == 0
    assert digest.run_digest(config, tokyo_seven).sent == 1
    assert digest.run_digest(config, tokyo_seven + timedelta(hours=23)).due == 0
    # A day no run came at the hour: the first run after it.
    assert digest.run_digest(config, tokyo_seven + DAY + timedelta(hours=3)).sent == 1
    assert len(_digests()) == 3


def test_nothing_is_sent_when_no_game_awaits_and_the_day_is_done(app: Flask) -> None:
    config = settings()
    _prefer(BOB, DIGEST)
    _to_move(_game([ALICE, BOB]), ALICE)
    report = digest.run_digest(config, T0)
    assert (report.due, report.sent, report.outbox_ids) == (1, 0, [])
    assert report.summary() == "0 digests sent, 1 player with no game waiting"
    assert _player(BOB).digest_sent_at == T0
    assert digest.run_digest(config, T0 + timedelta(hours=1)).due == 0
    assert not _digests()


def test_no_digest_to_a_bouncing_address_one_away_or_one_who_chose_otherwise(app: Flask) -> None:
    config = settings()
    for email, preference in ((BOB, DIGEST), (CAROL, DIGEST), (ALICE, EVERY_TURN)):
        _prefer(email, preference)
    _prefer(DAVE, NO_TURN_MAIL)
    _to_move(_game([ALICE, BOB]), BOB)
    _to_move(_game([CAROL, DAVE]), CAROL)
    _to_move(_game([DAVE, ALICE]), DAVE)
    _to_move(_game([ALICE, CAROL]), ALICE)
    bob, carol = _player(BOB), _player(CAROL)
    bob.bounced_at, bob.bounce_reason = T0, "550 gone"
    carol.vacation_since, carol.vacation_until = T0, T0 + 3 * DAY
    db.session.commit()
    assert digest.run_digest(config, T0 + timedelta(hours=1)).due == 0
    assert not mails(kind="digest")


def test_turn_emails_go_to_every_turn_only_and_reminders_to_the_digest_too(app: Flask) -> None:
    _prefer(BOB, DIGEST)
    _prefer(CAROL, NO_TURN_MAIL)
    games = [_game([ALICE, BOB], "days:1"), _game([ALICE, CAROL], "days:1")]
    for game, other in zip(games, (BOB, CAROL), strict=True):
        # Real moves: Alice's makes it the other's turn, theirs makes it Alice's, and so on.
        game = _to_move(game, ALICE)
        for minutes in (5, 10, 15):
            move_at(reload(game.id), "1", T0 + timedelta(minutes=minutes))
        assert reload(game.id).seats[reload(game.id).to_move or 0].player.email == other
    db.session.expire_all()
    assert len(mails(to=ALICE, kind="turn")) >= 2 * 2
    assert not mails(to=BOB, kind="turn") and not mails(to=CAROL, kind="turn")
    # Their reminders fall due: the digest player's is written, as an email of its own (a
    # deadline missed costs the game); the one without turn mail gets none.
    due = max(reload(game.id).reminder_at or T0 for game in games)
    assert due > T0
    report = run_clock_at(due + timedelta(minutes=1))
    assert report.reminders == 1 and len(report.outbox_ids) == 1
    (reminder,) = mails(to=BOB, kind="reminder")
    assert "It is still your turn" in reminder.text
    assert not mails(to=CAROL, kind="reminder")
    # Invitations still came to them.
    assert mails(to=BOB, kind="invite") and mails(to=CAROL, kind="invite")


def test_the_reminder_goes_when_the_player_wants_every_turn(app: Flask) -> None:
    game = _to_move(_game([ALICE, BOB], "days:1"), BOB)
    assert game.reminder_at is not None
    run_clock_at(game.reminder_at + timedelta(minutes=1))
    assert mails(to=BOB, kind="reminder")


def test_the_last_digest_time_in_a_zone() -> None:
    at = digest.last_digest_time
    assert at(datetime(2026, 12, 2, 7, 0), None, 7) == datetime(2026, 12, 2, 7, 0)
    assert at(datetime(2026, 12, 2, 6, 59), None, 7) == datetime(2026, 12, 1, 7, 0)
    assert at(datetime(2026, 12, 2, 6, 30), "Europe/Paris", 7) == datetime(2026, 12, 2, 6, 0)
    assert at(datetime(2026, 7, 2, 6, 30), "Europe/Paris", 7) == datetime(2026, 7, 2, 5, 0)
    assert at(datetime(2026, 12, 2, 6, 30), "Nowhere/Atlantis", 7) == datetime(2026, 12, 1, 7)
    # 02:00 does not exist in Paris on 29 March 2026: the instant after the gap stands for it.
    assert at(datetime(2026, 3, 29, 12, 0), "Europe/Paris", 2) == datetime(2026, 3, 29, 1, 0)
    assert digest.is_due(None, None, 7, T0)
    assert not digest.is_due(T0, None, 7, T0 + timedelta(hours=18))
    assert digest.is_due(T0, None, 7, T0 + timedelta(hours=19))


def test_a_digest_lists_a_bounded_number_of_games(app: Flask) -> None:
    _prefer(BOB, DIGEST)
    game = _to_move(_game([ALICE, BOB]), BOB)
    letter = letters.digest(settings(), _player(BOB), [game] * (letters.DIGEST_MAX_GAMES + 5), 7)
    assert len(letter.context["games"]) == letters.DIGEST_MAX_GAMES and letter.context["more"] == 5
    assert letter.list_unsubscribe == links.mail_settings_url(settings(), _player(BOB).id)


def test_two_runs_at_once_send_one_digest(pg_app: Flask) -> None:
    _prefer(BOB, DIGEST)
    _to_move(_game([ALICE, BOB]), BOB)
    db.session.commit()
    now = utcnow()
    barrier = threading.Barrier(4)
    reports: list[digest.DigestReport] = []
    errors: list[BaseException] = []

    def run() -> None:
        try:
            with pg_app.app_context():
                barrier.wait(timeout=30)
                reports.append(digest.run_digest(settings(), now))
                db.session.remove()
        except BaseException as exc:  # reported below: a thread's failure is the test's
            errors.append(exc)

    threads = [threading.Thread(target=run) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert not errors, errors
    assert sum(report.sent for report in reports) == 1
    assert len(_digests()) == 1


def test_games_with_a_clock_are_read_through_the_running_games_index(pg_app: Flask) -> None:
    """The query's conditions imply the partial index's, so PostgreSQL can use it (seq scans
    off: in a database this small it would rather read the table)."""
    statement = digest._AWAITING.params(player_ids=[1, 2])
    sql = str(
        statement.compile(dialect=postgresql.dialect(), compile_kwargs={"literal_binds": True})
    )
    conn = db.session.connection()
    conn.execute(text("SET LOCAL enable_seqscan = off"))
    plan = "\n".join(conn.execute(text(f"EXPLAIN {sql}")).scalars())
    db.session.rollback()
    assert "ix_games_running_deadline" in plan, plan
