"""Marking an address as bouncing: the first bounce wins, each organiser of the player's games
under way hears of it once and by name, and nothing about it tells anyone the address."""

from __future__ import annotations

import threading

from flask import Flask
from sqlalchemy import select

from pbem.domain import bounces
from pbem.extensions import db, settings
from pbem.models import FINISHED, Game, OutboxMessage, Player
from tests.domain.flow import mails, play, start

ALICE, BOB, CAROL, DAVE = (f"{n}@example.org" for n in ("alice", "bob", "carol", "dave"))
REASON = "550 5.1.1 <BOB@example.org>: Recipient address rejected: User unknown"


def _last_to(address: str) -> int:
    return mails(to=address)[-1].id


def _mark(outbox_id: int, reason: str = REASON, notify: bool = True) -> list[int]:
    written = bounces.mark_bouncing(db.session.connection(), settings(), outbox_id, reason, notify)
    db.session.commit()
    return written


def _player(email: str) -> Player:
    db.session.expire_all()
    return db.session.execute(select(Player).where(Player.email == email)).scalar_one()


def _letters(ids: list[int]) -> dict[str, OutboxMessage]:
    rows = db.session.execute(select(OutboxMessage).where(OutboxMessage.id.in_(ids))).scalars()
    return {row.to: row for row in rows}


def test_each_organiser_of_a_game_under_way_is_told_once(app: Flask) -> None:
    by_alice = [start(emails=[ALICE, BOB]), start(emails=[ALICE, BOB, CAROL])]
    by_carol = start(emails=[CAROL, BOB])
    finished = start(emails=[DAVE, BOB], options={"pile": 5})
    play(finished, "3")
    play(finished, "2")
    assert db.session.get(Game, finished.id).status == FINISHED  # type: ignore[union-attr]
    start(emails=[BOB, ALICE])  # Bob's own game: nobody is told about their own address

    written = _mark(_last_to(BOB))
    letters = _letters(written)
    assert sorted(letters) == [ALICE, CAROL]  # not Dave (finished), not Bob
    alice, carol = letters[ALICE], letters[CAROL]
    # Carol's one game: threaded under it. Alice's two: one letter listing both.
    assert carol.game_id == by_carol.id and by_carol.id in carol.subject
    assert alice.game_id is None and all(g.id in alice.text for g in by_alice)
    assert "User unknown" in alice.text
    for letter in letters.values():
        assert letter.kind == "bounced" and "bounces" in letter.subject
        assert "bob@example.org" not in (letter.subject + letter.text + letter.html).lower()
        assert bounces.HIDDEN_ADDRESS in letter.text
    bob = _player(BOB)
    assert bob.bounced_at is not None and bob.bounce_reason == REASON  # kept whole


def test_the_first_bounce_wins(app: Flask) -> None:
    start(emails=[ALICE, BOB])
    assert _mark(_last_to(BOB), "550 first")
    first = _player(BOB).bounced_at
    assert _mark(_last_to(BOB), "550 second") == []
    bob = _player(BOB)
    assert (bob.bounced_at, bob.bounce_reason) == (first, "550 first")
    assert len(mails(kind="bounced")) == 1


def test_without_notify_the_address_is_marked_and_nobody_told(app: Flask) -> None:
    start(emails=[ALICE, BOB])
    assert _mark(_last_to(BOB), notify=False) == []
    assert _player(BOB).bounced_at is not None and not mails(kind="bounced")


def test_an_organiser_whose_own_mail_bounces_is_not_told(app: Flask) -> None:
    start(emails=[ALICE, BOB])
    _mark(_last_to(ALICE), "550 alice gone")
    assert _mark(_last_to(BOB)) == []
    assert _player(BOB).bounced_at is not None


def test_a_row_that_is_gone_or_to_nobody_known_marks_nothing(app: Flask) -> None:
    start(emails=[ALICE, BOB])
    assert _mark(10**9) == []
    db.session.add(
        OutboxMessage(
            kind="signin", to=DAVE, subject="s", text="t", html="h", message_id="<d.1@pbem.test>"
        )
    )
    db.session.commit()
    assert _mark(_last_to(DAVE)) == []
    assert all(p.bounced_at is None for p in db.session.execute(select(Player)).scalars())


def test_a_reason_is_one_line_without_the_address_when_quoted() -> None:
    reason = "550 5.1.1 <Bob@Example.org>:\r\n\tno such user\x1b[0m " + "x" * 500
    quoted = bounces.quoted_reason(reason, BOB)
    assert quoted.startswith(f"550 5.1.1 <{bounces.HIDDEN_ADDRESS}>: no such user")
    assert len(quoted) == bounces.QUOTED_CHARS and quoted.isprintable()


def test_two_workers_marking_at_once_tell_the_organiser_once(pg_app: Flask) -> None:
    start(emails=[ALICE, BOB])
    outbox_id = _last_to(BOB)
    db.session.commit()
    barrier = threading.Barrier(2)
    results: list[list[int]] = []
    errors: list[BaseException] = []

    def worker() -> None:
        try:
            with pg_app.app_context(), db.engine.connect() as conn:
                barrier.wait(timeout=30)
                written = bounces.mark_bouncing(conn, settings(), outbox_id, REASON)
                conn.commit()
                results.append(written)
        except BaseException as exc:  # reported below: a thread's failure is the test's
            errors.append(exc)

    threads = [threading.Thread(target=worker) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert not errors, errors
    assert sorted(len(written) for written in results) == [0, 1]
    db.session.expire_all()
    assert len(mails(kind="bounced")) == 1
