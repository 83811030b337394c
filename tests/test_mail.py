"""Composing and delivering email: multipart, threading headers, the outbox folder, SMTP."""

from __future__ import annotations

import dataclasses
import email
import email.policy
import smtplib
import socket
from collections.abc import Iterator, Sequence
from email.message import EmailMessage
from pathlib import Path
from typing import ClassVar

import pytest
from flask import Flask

from pbem import mail
from pbem.config import Settings, SmtpSettings
from pbem.domain import starting
from pbem.extensions import db, settings
from pbem.models import OutboxMessage


def _parsed(row: OutboxMessage, mail_from: str) -> EmailMessage:
    """The message as sent, parsed back for reading its parts and headers."""
    parsed = email.message_from_bytes(
        mail.message_bytes(row, mail_from), policy=email.policy.default
    )
    assert isinstance(parsed, EmailMessage)
    return parsed


def _deliver(row: OutboxMessage, config: Settings) -> None:
    with mail.delivering(row, config):
        pass


def _first_invite() -> OutboxMessage:
    emails = ["alice@example.org", "bob@example.org"]
    created = starting.create_game(settings(), "countdown", {}, emails)
    row = db.session.get(OutboxMessage, created.outbox_ids[0])
    assert row is not None
    return row


def test_a_message_is_plain_text_with_an_html_alternative(app: Flask) -> None:
    row = _first_invite()
    message = _parsed(row, "pbem <pbem@pbem.test>")
    assert message.get_content_type() == "multipart/alternative"
    assert [p.get_content_type() for p in message.iter_parts()] == ["text/plain", "text/html"]
    assert message["Message-ID"] == row.message_id and row.message_id.endswith("@pbem.test>")
    assert message["References"] == row.references
    assert message["To"] == row.to and "[pbem] Countdown" in message["Subject"]
    assert _content(message, "plain") == row.text
    assert _content(message, "html") == row.html
    # Rebuilding gives the same bytes: a retried message is the same message.
    raw = mail.message_bytes(row, "pbem <pbem@pbem.test>")
    assert raw == mail.message_bytes(row, "pbem <pbem@pbem.test>")
    assert b"\r\n" in raw and b"\n" not in raw.replace(b"\r\n", b"")
    assert max(len(line) for line in raw.split(b"\r\n")) <= 998


def _content(message: email.message.EmailMessage, subtype: str) -> str:
    part = message.get_body((subtype,))
    assert part is not None
    return str(part.get_content()).replace("\r\n", "\n")


def test_non_ascii_and_long_headers_survive(app: Flask) -> None:
    row = _first_invite()
    row.subject = "[pbem] Marram: Zoë’s turn"
    row.text = "Grüße — " + "x" * 1200
    row.references = " ".join(f"<{n}.abcdef@pbem.test>" for n in range(60))
    message = _parsed(row, "Pbem Größe <pbem@pbem.test>")
    assert message["Subject"] == row.subject
    assert message["References"].split() == row.references.split()
    assert message["From"].addresses[0].display_name == "Pbem Größe"
    assert _content(message, "plain") == row.text
    raw = mail.message_bytes(row, "pbem@pbem.test")
    assert raw.isascii() and max(len(line) for line in raw.split(b"\r\n")) <= 998


def test_without_smtp_mail_is_saved_once_per_row(app: Flask, tmp_path: Path) -> None:
    row = _first_invite()
    _deliver(row, settings())
    _deliver(row, settings())
    saved = list((tmp_path / "outbox").glob("*.eml"))
    assert len(saved) == 1
    parsed = email.message_from_bytes(saved[0].read_bytes(), policy=email.policy.default)
    assert parsed["Message-ID"] == row.message_id
    listed = mail.saved_mails(tmp_path / "outbox")
    assert [m.to for m in listed] == [row.to]
    pieces = listed[0].text_with_links()
    assert any(
        is_link and piece.startswith("http://pbem.test/invite/") for piece, is_link in pieces
    )
    assert "".join(piece for piece, _ in pieces) == listed[0].text


class FakeSMTP:
    """Records what an smtplib.SMTP client is asked to do."""

    log: ClassVar[list[tuple[str, object]]] = []

    def __init__(self, host: str, port: int, timeout: float) -> None:
        self.log.append(("connect", (host, port)))
        # A real socket pair: the peer stands for the server's end of the connection.
        self.sock, self.peer = socket.socketpair()
        FakeSMTP.last = self

    def login(self, user: str, password: str) -> None:
        self.log.append(("login", user))

    def sendmail(
        self, sender: str, to: list[str], message: bytes, mail_options: Sequence[str] = ()
    ) -> None:
        self.log.append(("send", to[0]))

    def quit(self) -> None:
        self.log.append(("quit", None))
        self.sock.close()

    def close(self) -> None:
        self.log.append(("close", None))
        self.sock.close()


@pytest.fixture(autouse=True)
def _no_kept_session() -> Iterator[None]:
    mail._close_kept()
    yield
    mail._close_kept()


def test_smtp_records_the_message_as_sent_right_after_the_250(app: Flask, monkeypatch) -> None:
    FakeSMTP.log = []
    monkeypatch.setattr("smtplib.SMTP", FakeSMTP)
    row = _first_invite()
    smtp = SmtpSettings("mail.example.org", 2525, "u", "p", ssl=False, starttls=False)
    config = dataclasses.replace(settings(), smtp=smtp)
    with mail.delivering(row, config):
        FakeSMTP.log.append(("recorded", row.id))
    assert FakeSMTP.log == [
        ("connect", ("mail.example.org", 2525)),
        ("login", "u"),
        ("send", row.to),
        ("recorded", row.id),
    ]


def _fake_smtp(monkeypatch: pytest.MonkeyPatch) -> tuple[OutboxMessage, Settings]:
    """A row to send and settings whose SMTP server is a FakeSMTP."""
    FakeSMTP.log = []
    monkeypatch.setattr("smtplib.SMTP", FakeSMTP)
    smtp = SmtpSettings("h", 25, None, None, ssl=False, starttls=False)
    return _first_invite(), dataclasses.replace(settings(), smtp=smtp)


def test_the_session_is_kept_for_the_next_message_without_a_round_trip(
    app: Flask, monkeypatch
) -> None:
    row, config = _fake_smtp(monkeypatch)
    _deliver(row, config)
    _deliver(row, config)
    assert FakeSMTP.log == [("connect", ("h", 25)), ("send", row.to), ("send", row.to)]


@pytest.mark.parametrize("server_says", [b"421 idle too long, closing\r\n", b""])
def test_a_session_the_server_dropped_is_replaced(
    app: Flask, monkeypatch, server_says: bytes
) -> None:
    row, config = _fake_smtp(monkeypatch)
    _deliver(row, config)
    # While idle, the server gives up on the session: a 421 and a close, or just a close.
    FakeSMTP.last.peer.sendall(server_says)
    FakeSMTP.last.peer.close()
    _deliver(row, config)
    assert [step for step, _ in FakeSMTP.log] == ["connect", "send", "quit", "connect", "send"]


def test_a_session_idle_too_long_is_replaced(app: Flask, monkeypatch) -> None:
    row, config = _fake_smtp(monkeypatch)
    _deliver(row, config)
    monkeypatch.setattr(mail, "KEEP_IDLE_SECONDS", 0.0)
    _deliver(row, config)
    assert [step for step, _ in FakeSMTP.log] == ["connect", "send", "quit", "connect", "send"]


def test_a_refused_message_is_not_recorded(app: Flask, monkeypatch) -> None:
    class Refusing(FakeSMTP):
        def sendmail(
            self, sender: str, to: list[str], message: bytes, mail_options: Sequence[str] = ()
        ) -> None:
            raise smtplib.SMTPDataError(451, b"try later")

    FakeSMTP.log = []
    monkeypatch.setattr("smtplib.SMTP", Refusing)
    row = _first_invite()
    config = dataclasses.replace(
        settings(), smtp=SmtpSettings("h", 25, None, None, ssl=False, starttls=False)
    )
    with pytest.raises(smtplib.SMTPDataError), mail.delivering(row, config):
        FakeSMTP.log.append(("recorded", row.id))
    assert ("recorded", row.id) not in FakeSMTP.log and FakeSMTP.log[-1] == ("quit", None)


def test_mail_domain() -> None:
    assert mail.mail_domain("pbem <games@example.org>") == "example.org"
    assert mail.mail_domain("nobody") == "pbem.localhost"


class Utf8SMTP(FakeSMTP):
    """A server that offers SMTPUTF8 (or not, `offers`), recording the MAIL FROM options."""

    offers = True

    def ehlo_or_helo_if_needed(self) -> None:
        self.log.append(("ehlo", None))

    def has_extn(self, name: str) -> bool:
        return name == "smtputf8" and self.offers

    def sendmail(
        self, sender: str, to: list[str], message: bytes, mail_options: Sequence[str] = ()
    ) -> None:
        self.log.append(("send", (sender, to[0], tuple(mail_options))))


@pytest.mark.parametrize("offers", [True, False])
def test_an_address_outside_ascii_needs_a_server_offering_smtputf8(
    app: Flask, monkeypatch: pytest.MonkeyPatch, offers: bool
) -> None:
    row, config = _fake_smtp(monkeypatch)
    monkeypatch.setattr("smtplib.SMTP", Utf8SMTP)
    monkeypatch.setattr(Utf8SMTP, "offers", offers)
    row.to = "jürgen@exämple.org"
    if offers:
        _deliver(row, config)
        assert FakeSMTP.log[-1] == (
            "send",
            ("pbem@pbem.test", "jürgen@xn--exmple-cua.org", ("SMTPUTF8", "BODY=8BITMIME")),
        )
    else:
        with pytest.raises(mail.Undeliverable, match=r"internationalised addresses \(SMTPUTF8\)"):
            _deliver(row, config)
        # Refused before the message began: the session stays for the next one.
        row.to = "bob@example.org"
        _deliver(row, config)
        assert [step for step, _ in FakeSMTP.log] == ["connect", "ehlo", "send"]


def test_the_wire_form_of_an_address_is_ascii_whenever_it_can_be() -> None:
    assert mail.wire_address("bob@example.org") == "bob@example.org"
    assert mail.wire_address("bob@exämple.org") == "bob@xn--exmple-cua.org"
    assert mail.wire_address("jürgen@exämple.org") == "jürgen@xn--exmple-cua.org"
    assert mail.wire_address("mu\u0308ller@example.org") == "müller@example.org"
    for hidden in ("bob\u202e@example.org", "bob\u2028@example.org"):
        with pytest.raises(mail.Undeliverable, match="direction-changing"):
            mail.wire_address(hidden)


def test_a_utf8_message_is_utf8_in_its_headers_only(app: Flask) -> None:
    row = _first_invite()
    row.to = "jürgen@example.org"
    row.subject = "[pbem] Grüße"
    built = mail.envelope(row, "Pbem Größe <pbem@pbem.test>")
    assert built.smtputf8 and built.recipient == "jürgen@example.org"
    head, _, body = built.message.partition(b"\r\n\r\n")
    assert b"To: j\xc3\xbcrgen@example.org\r\n" in head and body.isascii()
    assert b"Subject: =?utf-8?" in head and b"From: =?utf-8?" in head
    parsed = email.message_from_bytes(built.message, policy=email.policy.SMTPUTF8)
    assert parsed["To"] == "jürgen@example.org" and parsed["Subject"] == "[pbem] Grüße"


@pytest.mark.parametrize(
    ("field", "value"),
    [("to", "bob@example.org\r\nBcc: eve@example.org"), ("subject", "hi\nBcc: eve@x.org")],
)
def test_a_line_break_in_a_header_is_refused_not_sent(app: Flask, field: str, value: str) -> None:
    row = _first_invite()
    setattr(row, field, value)
    with pytest.raises(mail.Undeliverable, match="line break"):
        mail.message_bytes(row, "pbem@pbem.test")


def test_a_row_no_encoding_can_carry_is_undeliverable(app: Flask) -> None:
    row = _first_invite()
    row.text = "half a surrogate: \udcff"
    with pytest.raises(mail.Undeliverable, match="could not be written"):
        mail.message_bytes(row, "pbem@pbem.test")
