"""Sending through a real SMTP server on loopback: each message from its own bounce address
(VERP), built once with its bytes stored in the attempt's own UPDATE, a retry sending exactly
those bytes, and a recipient refused for good marked bouncing."""

from __future__ import annotations

import smtplib
from collections.abc import Iterator
from pathlib import Path

import pytest
from flask import Flask
from sqlalchemy import event, select

from pbem import dispatch, mail
from pbem.domain import delivery, starting
from pbem.extensions import db, settings
from pbem.links import bounce_address
from pbem.mailin.tokens import read_bounce_address
from pbem.models import FAILED, PENDING, SENT, OutboxMessage, Player
from tests.conftest import make_app
from tests.domain.flow import mails, play, seat_to_move, start
from tests.support.smtp import SmtpSink

ALICE, BOB = "alice@example.org", "bob@example.org"


@pytest.fixture
def sink() -> Iterator[SmtpSink]:
    with SmtpSink() as running:
        yield running


@pytest.fixture
def smtp_app(tmp_path: Path, countdown_engine: None, sink: SmtpSink) -> Iterator[Flask]:
    mail.close_kept_session()
    app = make_app(tmp_path, SMTP_URL=sink.url)
    with app.app_context():
        db.create_all()
        yield app
        db.session.remove()
        db.engine.dispose()
    mail.close_kept_session()


def _row(outbox_id: int) -> OutboxMessage:
    db.session.expire_all()
    row = db.session.get(OutboxMessage, outbox_id)
    assert row is not None
    return row


def _player(email: str) -> Player:
    db.session.expire_all()
    return db.session.execute(select(Player).where(Player.email == email)).scalar_one()


def test_each_message_goes_from_its_own_bounce_address_with_the_bytes_stored(
    smtp_app: Flask, sink: SmtpSink
) -> None:
    config = settings()
    ids = starting.create_game(config, "countdown", {}, [ALICE, BOB]).outbox_ids
    dispatch.send_emails_later(ids)
    assert len(sink.messages) == len(ids) == 2
    for got in sink.messages:
        row = db.session.execute(
            select(OutboxMessage).where(OutboxMessage.message_id == got.message_id)
        ).scalar_one()
        # The envelope sender names the row (VERP); the From header stays MAIL_FROM.
        assert got.mail_from == bounce_address(config, row.id)
        assert read_bounce_address(config, got.mail_from) == row.id
        assert got["From"] == "pbem <pbem@pbem.test>"
        # What the server took is the message the row's parts make, put together again.
        rebuilt = mail.prepare(row, config, bounce_address(config, row.id)).message
        assert row.status == SENT and rebuilt == got.raw


def test_a_retry_sends_the_bytes_the_first_attempt_would_have(
    smtp_app: Flask, sink: SmtpSink
) -> None:
    """Nothing of the message is stored: each attempt puts it together again, the same bytes
    (Message-ID, Date, boundaries derive from the row), so a resend after a lost record is the
    same message."""
    config = settings()
    starting.create_game(config, "countdown", {}, [ALICE, BOB])
    (row_id,) = [m.id for m in mails(to=BOB)]
    first = mail.prepare(_row(row_id), config, bounce_address(config, row_id)).message
    sink.refuse(BOB, "451 4.7.1 greylisted, try again later")
    outcome = delivery.send_outbox(config, row_id)
    assert outcome.status == "retry"
    row = _row(row_id)
    assert row.status == PENDING and row.attempts == 1
    sink.refusals.clear()
    assert delivery.send_outbox(config, row_id).status == "sent"
    (got,) = sink.to(BOB)
    assert got.raw == first


def test_sending_a_row_takes_two_statements_its_claim_and_its_update(
    smtp_app: Flask, sink: SmtpSink
) -> None:
    config = settings()
    row_id = starting.create_game(config, "countdown", {}, [ALICE, BOB]).outbox_ids[1]
    statements: list[str] = []

    def seen(conn: object, cursor: object, statement: str, *args: object) -> None:
        statements.append(statement.split()[0].upper())

    event.listen(db.engine, "before_cursor_execute", seen)
    try:
        assert delivery.send_outbox(config, row_id).status == "sent"
    finally:
        event.remove(db.engine, "before_cursor_execute", seen)
    # The bytes went into the UPDATE that marks the row sent: no statement of their own.
    assert statements == ["SELECT", "UPDATE"]


def test_a_recipient_refused_for_good_is_marked_bouncing_and_the_organiser_told(
    smtp_app: Flask, sink: SmtpSink
) -> None:
    game = start(emails=[ALICE, BOB])  # Alice organises
    sink.refuse(BOB, "550 5.1.1 <bob@example.org>: Recipient address rejected: no such user")
    if seat_to_move(game).player.email == BOB:
        play(game, "1")
    play(game, "1")  # Alice's move: Bob's turn email is refused
    (failed,) = [m for m in mails(kind="turn", to=BOB) if m.status != SENT]
    assert failed.status == FAILED and "550 5.1.1" in (failed.last_error or "")
    bob = _player(BOB)
    assert bob.bounced_at is not None and "550 5.1.1" in (bob.bounce_reason or "")
    # The organiser hears of it, by the letter written and sent in the same loop.
    (told,) = mails(kind="bounced")
    assert told.to == ALICE and told.status == SENT
    assert told.message_id in [m.message_id for m in sink.to(ALICE)]
    # Nothing more is written to Bob: his move, then Alice's, and no turn email for him.
    written = len(mails(to=BOB))
    play(game, "1")
    play(game, "1")
    assert len(mails(to=BOB)) == written


def test_a_refused_invitation_marks_the_address_but_only_the_undeliverable_notice_goes(
    smtp_app: Flask, sink: SmtpSink
) -> None:
    sink.refuse(BOB, "550 5.1.1 no such user")
    dispatch.send_emails_later(
        starting.create_game(settings(), "countdown", {}, [ALICE, BOB]).outbox_ids
    )
    assert _player(BOB).bounced_at is not None
    assert [m.kind for m in mails(to=ALICE)] == ["invite", "undeliverable"]
    assert mails(kind="bounced") == []


def test_only_a_refusal_of_the_address_itself_is_a_bounce() -> None:
    refused = smtplib.SMTPRecipientsRefused({BOB: (550, b"5.1.1 no such user")})
    greylisted = smtplib.SMTPRecipientsRefused({BOB: (450, b"4.2.0 greylisted")})
    no_mailbox = smtplib.SMTPDataError(550, b"5.1.1 <bob@example.org>: user unknown")
    spam = smtplib.SMTPDataError(554, b"5.7.1 message rejected as spam")
    assert delivery.refuses_recipient(refused) and delivery.refuses_recipient(no_mailbox)
    assert not delivery.refuses_recipient(greylisted)
    assert not delivery.refuses_recipient(spam)
    assert not delivery.refuses_recipient(mail.Undeliverable("no SMTPUTF8"))
