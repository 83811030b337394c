"""A bad message never holds up the others.

Found by attacking the service: one invitation to `jürgen@example.org` (or to an address holding
U+202E) could not be encoded; its row stayed pending with 0 attempts, the worker queued its batch
again in a hot loop and no later email of any game was sent; embedded, every sweep ended in a
RecursionError and the log grew by megabytes. Here each kind of bad row (an address outside
ASCII, with and without a server offering SMTPUTF8, a hidden character, a 550 for one recipient,
a row that cannot be built) is sent among good ones through a real SMTP server on loopback: the
good ones arrive, the bad one is recorded with its reason, and the organiser is told.
"""

from __future__ import annotations

import logging
import smtplib
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from sqlalchemy import select, update

from pbem import dispatch, mail
from pbem.domain import delivery, letters, starting
from pbem.extensions import db, settings
from pbem.models import FAILED, PENDING, SENT, OutboxMessage, Player, utcnow
from tests.conftest import make_app
from tests.support.smtp import SmtpSink
from tests.web.flow import confirmed, mails
from workers import tasks

ORGANISER = "olga@example.org"
JURGEN = "jürgen@example.org"


@pytest.fixture(autouse=True)
def _no_kept_session() -> Iterator[None]:
    mail.close_kept_session()
    yield
    mail.close_kept_session()


@contextmanager
def _service(tmp_path: Path, sink: SmtpSink | None, **overrides: object) -> Iterator[Flask]:
    """The app in the test environment, sending to `sink` (None: into the outbox folder)."""
    app = make_app(tmp_path, SMTP_URL=sink.url if sink else None, **overrides)
    with app.app_context():
        db.create_all()
        try:
            yield app
        finally:
            db.session.remove()
            db.engine.dispose()


@pytest.fixture
def sink() -> Iterator[SmtpSink]:
    with SmtpSink() as running:
        yield running


@pytest.fixture
def plain_sink() -> Iterator[SmtpSink]:
    """A server that does not offer SMTPUTF8."""
    with SmtpSink(smtputf8=False) as running:
        yield running


@pytest.fixture
def smtp_app(tmp_path: Path, countdown_engine: None, sink: SmtpSink) -> Iterator[Flask]:
    with _service(tmp_path, sink) as app:
        yield app


def _invite(*others: str, organiser: str = ORGANISER) -> list[int]:
    """A game started by the operator: every seat invited at once; the outbox rows' ids."""
    created = starting.create_game(settings(), "countdown", {}, [organiser, *others])
    return created.outbox_ids


def _row(to: str, kind: str = "invite") -> OutboxMessage:
    db.session.expire_all()
    (row,) = [m for m in mails(kind=kind) if m.to == to]
    return row


def _row_by_id(outbox_id: int) -> OutboxMessage:
    row = db.session.get(OutboxMessage, outbox_id)
    assert row is not None
    return row


def _notices() -> list[OutboxMessage]:
    return mails(kind="undeliverable")


def _poison_address(good: str, bad: str) -> None:
    """Make `good` into `bad` everywhere, as a row written before addresses were checked."""
    db.session.execute(update(Player).where(Player.email == good).values(email=bad))
    db.session.execute(update(OutboxMessage).where(OutboxMessage.to == good).values(to=bad))
    db.session.commit()


def _assert_failed_once(to: str, reason: str) -> OutboxMessage:
    row = _row(to)
    assert row.status == FAILED and row.attempts == 1, (row.status, row.attempts)
    assert reason in (row.last_error or ""), row.last_error
    return row


def _assert_organiser_told(invitee: str, reason: str) -> None:
    (notice,) = _notices()
    assert notice.to == ORGANISER and notice.status == SENT
    assert invitee in notice.subject and invitee in notice.text
    assert reason in notice.text and "could not be" in notice.text
    assert "/me/" in notice.text  # the way back to their games


def test_an_address_outside_ascii_is_sent_with_smtputf8(smtp_app: Flask, sink: SmtpSink) -> None:
    ids = _invite(JURGEN, "bob@example.org")
    dispatch.send_emails_later(ids)
    assert {m.status for m in mails()} == {SENT}
    (got,) = sink.to(JURGEN)
    assert "SMTPUTF8" in got.mail_options
    assert f"To: <{JURGEN}>\r\n".encode() in got.raw
    assert got.to == JURGEN and "invited" in got.subject
    # ASCII addresses stay plain SMTP.
    assert all("SMTPUTF8" not in m.mail_options for m in sink.to("bob@example.org"))


def test_a_domain_outside_ascii_goes_out_as_idna_without_smtputf8(
    smtp_app: Flask, sink: SmtpSink
) -> None:
    dispatch.send_emails_later(_invite("bob@exämple.org"))
    (got,) = sink.to("bob@xn--exmple-cua.org")
    assert "SMTPUTF8" not in got.mail_options and got.raw.isascii()
    assert _row("bob@exämple.org").status == SENT


def test_a_server_without_smtputf8_fails_that_row_only(
    tmp_path: Path, countdown_engine: None, plain_sink: SmtpSink
) -> None:
    with _service(tmp_path, plain_sink):
        dispatch.send_emails_later(_invite(JURGEN, "bob@example.org"))
        reason = "does not accept internationalised addresses (SMTPUTF8)"
        _assert_failed_once(JURGEN, reason)
        assert _row("bob@example.org").status == SENT
        assert {m.to for m in plain_sink.messages} == {ORGANISER, "bob@example.org"}
        _assert_organiser_told(JURGEN, reason)


def test_an_address_holding_a_direction_override_fails_alone(
    smtp_app: Flask, sink: SmtpSink
) -> None:
    ids = _invite("bob@example.org", "carol@example.org")
    bad = "bob\u202egro.elpmaxe@example.org"
    _poison_address("bob@example.org", bad)
    dispatch.send_emails_later(ids)
    _assert_failed_once(bad, "U+202E")
    assert _row("carol@example.org").status == SENT
    assert {m.to for m in sink.messages} == {ORGANISER, "carol@example.org", ORGANISER}
    # The organiser reads the address with the hidden character spelt out.
    _assert_organiser_told("bob<U+202E>gro.elpmaxe@example.org", "direction-changing")
    assert "\u202e" not in _notices()[0].text


def test_a_550_for_one_recipient_among_several(smtp_app: Flask, sink: SmtpSink) -> None:
    sink.refuse("nobody@example.org", "550 5.1.1 <nobody@example.org>: no such user")
    first = _invite("nobody@example.org", "carol@example.org")
    second = _invite("dave@example.org", organiser="erin@example.org")
    dispatch.send_emails_later([*first, *second])
    _assert_failed_once("nobody@example.org", "550 5.1.1")
    others = [m for m in mails(kind="invite") if m.to != "nobody@example.org"]
    assert len(others) == 4 and {m.status for m in others} == {SENT}
    _assert_organiser_told("nobody@example.org", "550 5.1.1 <nobody@example.org>: no such user")


def test_a_4xx_for_a_recipient_is_tried_again_later(smtp_app: Flask, sink: SmtpSink) -> None:
    sink.refuse("grey@example.org", "450 4.2.0 greylisted, come back later")
    dispatch.send_emails_later(_invite("grey@example.org"))
    row = _row("grey@example.org")
    assert row.status == PENDING and row.attempts == 1 and "450" in (row.last_error or "")
    assert _notices() == []


def test_a_row_that_cannot_be_built_is_recorded_and_the_others_go(
    smtp_app: Flask, sink: SmtpSink, monkeypatch: pytest.MonkeyPatch
) -> None:
    ids = _invite("bob@example.org", "carol@example.org")
    real = mail.envelope

    def envelope(row: Any, mail_from: str) -> mail.Envelope:
        if row.to == "bob@example.org":
            raise ValueError("no encoding can hold this")
        return real(row, mail_from)

    monkeypatch.setattr(mail.building, "envelope", envelope)
    dispatch.send_emails_later(ids)
    _assert_failed_once("bob@example.org", "no encoding can hold this")
    assert {m.to for m in sink.messages} == {ORGANISER, "carol@example.org"}
    _assert_organiser_told("bob@example.org", "could not be written (ValueError: no encoding")


def test_an_unexpected_error_is_retried_with_backoff_not_at_once(
    smtp_app: Flask, sink: SmtpSink, monkeypatch: pytest.MonkeyPatch
) -> None:
    ids = _invite("bob@example.org", "carol@example.org")
    real = mail.envelope

    def envelope(row: Any, mail_from: str) -> mail.Envelope:
        if row.to == "bob@example.org":
            raise RuntimeError("a bug")
        return real(row, mail_from)

    monkeypatch.setattr(mail.building, "envelope", envelope)
    outcome = delivery.send_outboxes(settings(), ids)
    statuses = {_row_by_id(i).to: d.status for i, d in outcome.items()}
    assert statuses == {ORGANISER: "sent", "bob@example.org": "retry", "carol@example.org": "sent"}
    row = _row("bob@example.org")
    assert row.status == PENDING and row.attempts == 1 and "a bug" in (row.last_error or "")
    assert row.next_attempt_at > row.created_at


def test_the_organiser_is_told_once_and_never_about_their_own_address(
    smtp_app: Flask, sink: SmtpSink
) -> None:
    sink.refuse(ORGANISER)
    sink.refuse("nobody@example.org")
    ids = _invite("nobody@example.org")
    dispatch.send_emails_later(ids)
    dispatch.send_emails_later(ids)
    assert _row(ORGANISER).status == FAILED and _row("nobody@example.org").status == FAILED
    # The notice to the organiser fails too, and is not itself reported.
    (notice,) = _notices()
    assert notice.status == FAILED and notice.to == ORGANISER
    assert len(mails()) == 3


def test_the_failure_is_recorded_before_the_organiser_is_written_to(
    smtp_app: Flask, sink: SmtpSink, monkeypatch: pytest.MonkeyPatch
) -> None:
    sink.refuse("nobody@example.org")

    def broken(*args: object) -> letters.Letter:
        raise RuntimeError("a template bug")

    monkeypatch.setattr(letters, "undeliverable", broken)
    dispatch.send_emails_later(_invite("nobody@example.org", "carol@example.org"))
    _assert_failed_once("nobody@example.org", "550")
    assert _row("carol@example.org").status == SENT and _notices() == []


def test_a_batch_stopped_by_the_database_is_not_queued_again_by_itself(
    smtp_app: Flask, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    from sqlalchemy.exc import OperationalError

    calls: list[list[int]] = []

    def down(config: object, ids: list[int]) -> dict[int, delivery.Delivery]:
        calls.append(list(ids))
        raise OperationalError("select", {}, Exception("the database went away"))

    monkeypatch.setattr(delivery, "send_outboxes", down)
    queued: list[object] = []
    monkeypatch.setattr(dispatch, "send_emails_later", queued.append)
    caplog.set_level(logging.INFO)
    for eager in (True, False):
        smtp_app.extensions["celery"].conf.task_always_eager = eager
        tasks.send_emails.run([_Request(i) for i in range(1, 60)])
    assert len(calls) == 2 and queued == []
    lines = [r for r in caplog.records if r.name == "workers.tasks"]
    assert len(lines) == 2 and all(r.exc_info is None for r in lines)
    assert all("(59 in all)" in r.getMessage() for r in lines)


class _Request:
    """What celery-batches hands a batch task: one request per message."""

    def __init__(self, outbox_id: int) -> None:
        self.args = [outbox_id]
        self.kwargs: dict[str, object] = {}


# --- embedded: mail into files, tasks in-process, the sweep in a thread -------------------------


@pytest.fixture
def embedded(tmp_path: Path, countdown_engine: None) -> Iterator[Flask]:
    # Development, as `pbem serve` runs: errors in in-process tasks are logged, not raised.
    with _service(tmp_path, None, PBEM_ENV="development") as app:
        yield app


def test_the_form_takes_an_address_outside_ascii_and_it_is_sent(embedded: Flask) -> None:
    client: FlaskClient = embedded.test_client()
    game = confirmed(client, emails=["p1@example.org", JURGEN])
    row = _row(JURGEN)
    assert row.game_id == game.id and row.status == SENT and row.attempts == 1
    saved = mail.saved_mails(settings().outbox_dir)
    assert JURGEN in {m.to for m in saved}


def test_the_form_refuses_a_direction_override(embedded: Flask) -> None:
    client: FlaskClient = embedded.test_client()
    page = client.post(
        "/", data={"game": "countdown", "emails": "p1@example.org\nbob\u202e@example.org"}
    )
    assert page.status_code == 400
    assert "U+202E" in page.text and "RIGHT-TO-LEFT OVERRIDE" in page.text
    assert mails() == []


def test_a_poisoned_row_costs_one_attempt_and_one_log_line_across_sweeps(
    embedded: Flask, caplog: pytest.LogCaptureFixture
) -> None:
    ids = _invite("bob@example.org", "carol@example.org")
    bad = "bob\u202e@example.org"
    _poison_address("bob@example.org", bad)
    # As the rows a crash left behind: due, and found by the sweep.
    db.session.execute(update(OutboxMessage).values(next_attempt_at=utcnow() - timedelta(hours=1)))
    db.session.commit()
    caplog.set_level(logging.INFO)
    sweep = embedded.extensions["celery"].tasks["workers.tasks.sweep"]
    for _ in range(5):
        sweep()
    assert _row(bad).attempts == 1 and _row(bad).status == FAILED
    assert _row("carol@example.org").status == SENT
    assert len(ids) == 3 and len(_notices()) == 1
    warnings = [r for r in caplog.records if r.levelno >= logging.WARNING]
    assert len(warnings) == 1 and warnings[0].exc_info is None, warnings
    assert "U+202E" in warnings[0].getMessage()
    total = sum(len(r.getMessage()) for r in caplog.records)
    assert total < 5000


def test_message_bytes_are_the_same_on_every_attempt_for_any_address(smtp_app: Flask) -> None:
    ids = _invite(JURGEN)
    row = db.session.execute(select(OutboxMessage).where(OutboxMessage.id == ids[-1])).scalar_one()
    row.subject = "[pbem] Zoë’s game — " + "ü" * 200
    first = mail.message_bytes(row, "Pbem Größe <pbem@pbem.test>")
    assert first == mail.message_bytes(row, "Pbem Größe <pbem@pbem.test>")
    assert b"\n" not in first.replace(b"\r\n", b"")
    assert max(len(line) for line in first.split(b"\r\n")) <= 998


def test_smtp_errors_are_classified() -> None:
    permanent = [
        mail.Undeliverable("the mail server does not accept internationalised addresses"),
        smtplib.SMTPRecipientsRefused({"a@b.org": (550, b"no such user")}),
        smtplib.SMTPDataError(554, b"content rejected"),
        smtplib.SMTPNotSupportedError("SMTPUTF8 not supported by server"),
    ]
    transient = [
        smtplib.SMTPRecipientsRefused({"a@b.org": (451, b"greylisted")}),
        smtplib.SMTPDataError(451, b"try later"),
        smtplib.SMTPAuthenticationError(535, b"bad password"),
        smtplib.SMTPSenderRefused(550, b"sender not allowed", "pbem@pbem.test"),
        smtplib.SMTPServerDisconnected("gone"),
        ConnectionRefusedError(111, "Connection refused"),
        TimeoutError("timed out"),
        RuntimeError("a bug"),
    ]
    assert [delivery.classify(e)[0] for e in permanent] == [True] * len(permanent)
    assert [delivery.classify(e)[0] for e in transient] == [False] * len(transient)
    assert delivery.classify(permanent[1])[1] == (
        "their mail server refused the address: 550 no such user"
    )


def test_the_embedded_sweep_logs_a_lasting_failure_once(caplog: pytest.LogCaptureFixture) -> None:
    from types import SimpleNamespace

    from pbem import cli

    class Stop(BaseException):
        pass

    calls: list[int] = []

    def sweep() -> None:
        calls.append(1)
        if len(calls) > 4:
            raise Stop
        raise RuntimeError("the database is not there")

    app = SimpleNamespace(
        extensions={"celery": SimpleNamespace(tasks={"workers.tasks.sweep": sweep})}
    )
    with pytest.raises(Stop):
        cli._every(app, "sweep", 0)
    records = [r for r in caplog.records if r.name == "pbem"]
    assert len(records) == 4
    assert records[0].exc_info is not None and all(r.exc_info is None for r in records[1:])
    assert all("the database is not there" in r.getMessage() for r in records[1:])
