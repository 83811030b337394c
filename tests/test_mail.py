"""Composing and delivering email: multipart, threading headers, the outbox folder, SMTP."""

from __future__ import annotations

import dataclasses
import email
import email.policy
import email.utils
import re
import smtplib
import socket
import struct
from collections.abc import Iterator, Sequence
from datetime import UTC, datetime
from email.message import EmailMessage
from pathlib import Path
from types import SimpleNamespace
from typing import ClassVar

import pytest
from flask import Flask

from pbem import mail
from pbem.config import Settings, SmtpSettings
from pbem.domain import starting
from pbem.extensions import db, settings
from pbem.mail import sending
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
    mail.close_kept_session()
    yield
    mail.close_kept_session()


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
    monkeypatch.setattr(sending, "KEEP_IDLE_SECONDS", 0.0)
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
    assert b"To: <j\xc3\xbcrgen@example.org>\r\n" in head and body.isascii()
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


# --- the builder: the standard library's email package, any Unicode, the board picture -------


def _row(**changes: object) -> SimpleNamespace:
    """An outbox row as the sending worker reads it (the claim's columns)."""
    row = SimpleNamespace(
        id=41,
        kind="turn",
        to="bob@example.org",
        subject="[pbem] GORami Ab3dEf6hIj9k: your turn (move 3)",
        text="Hello Zoë,\n\nIt is your turn.\nhttps://pbem.test/play/abc\n",
        html=f"<html><body><p>Hello Zoë,</p>{mail.BOARD_MARKER}<p>Your turn.</p></body></html>\n",
        message_id="<Ab3dEf6hIj9k.0123456789ab@pbem.test>",
        in_reply_to="<Ab3dEf6hIj9k@pbem.test>",
        references="<Ab3dEf6hIj9k@pbem.test>",
        reply_to="play+abcdefghijklmnopqrstuvwxyz234567@pbem.test",
        list_unsubscribe="https://pbem.test/mail/tok.en-1_2",
        created_at=datetime(2026, 12, 1, 9, 30, 5),
        board_key=None,
        board_png=None,
        board_alt=None,
    )
    for name, value in changes.items():
        setattr(row, name, value)
    return row


def _parse(raw: bytes) -> EmailMessage:
    parsed = email.message_from_bytes(raw, policy=email.policy.SMTPUTF8)
    assert isinstance(parsed, EmailMessage)
    assert not parsed.defects and all(not part.defects for part in parsed.walk())
    return parsed


@pytest.fixture(scope="module")
def board_png() -> bytes:
    """A real picture of a board, as the picture worker draws it."""
    from pbem import games, pictures

    state = games.get("gorami").new(2, {"board": 16}, seed=3)
    return pictures.board_png("gorami", state, 0, ["Zoë", "Bob"])


@pytest.mark.parametrize(
    ("mail_from", "to", "subject"),
    [
        ("Pbem Größe <pbem@pbem.test>", "jürgen@exämple.org", "[pbem] Zoë’s turn — 🎲 第3手"),
        ('"Pbem, the \\"game\\" service" <pbem@pbem.test>', "bob@exämple.org", "[pbem] ok"),
        ("pbem@pbem.test", "zoë@例え.テスト", "[pbem] " + "Ünïcödé " * 30),
        ("Pbem <pbem@pbem.test>", "bob@example.org", "[pbem] " + "long words " * 40),
    ],
)
def test_any_unicode_name_subject_and_address_survives(
    mail_from: str, to: str, subject: str
) -> None:
    row = _row(to=to, subject=subject)
    built = mail.envelope(row, mail_from)
    message = _parse(built.message)
    assert message["Subject"] == subject
    assert message["To"] == mail.wire_address(to)
    assert message["From"].addresses[0].display_name == email.utils.parseaddr(mail_from)[0]
    assert message["Reply-To"] == row.reply_to and message["Message-ID"] == row.message_id
    assert message["Date"].datetime == row.created_at.replace(tzinfo=UTC)
    assert _content(message, "plain") == row.text
    # SMTPUTF8 only when a local part is not ASCII; then UTF-8 in headers, never in bodies.
    assert built.smtputf8 == (not to.partition("@")[0].isascii())
    head, _, body = built.message.partition(b"\r\n\r\n")
    assert body.isascii() and head.isascii() == (not built.smtputf8)
    assert b"\n" not in built.message.replace(b"\r\n", b"")
    assert max(len(line) for line in built.message.split(b"\r\n")) <= 998
    # The same row gives the same bytes, whenever it is built.
    assert mail.envelope(row, mail_from).message == built.message


def test_every_header_and_one_click_unsubscribe(app: Flask) -> None:
    message = _parse(mail.message_bytes(_row(), "pbem <pbem@pbem.test>"))
    assert [name for name, _ in message.items()] == [
        "From",
        "To",
        "Subject",
        "Date",
        "Message-ID",
        "In-Reply-To",
        "References",
        "Reply-To",
        "List-Unsubscribe",
        "List-Unsubscribe-Post",
        "Auto-Submitted",
        "MIME-Version",
        "Content-Type",
    ]
    assert message["List-Unsubscribe"] == "<https://pbem.test/mail/tok.en-1_2>"
    assert message["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"
    assert message["Auto-Submitted"] == "auto-generated"
    # RFC 8058 one-click is for HTTPS only; mail about no game has neither header.
    plain_http = _parse(
        mail.message_bytes(_row(list_unsubscribe="http://x.test/mail/t"), "p@x.test")
    )
    assert plain_http["List-Unsubscribe"] == "<http://x.test/mail/t>"
    assert plain_http["List-Unsubscribe-Post"] is None
    none = _parse(mail.message_bytes(_row(list_unsubscribe=None, reply_to=None), "p@x.test"))
    assert none["List-Unsubscribe"] is None and none["Reply-To"] is None


@pytest.mark.parametrize(
    "link", ["https://pbem.test/mail/a b", "https://pbem.test/mail/a>b", "javascript:alert(1)"]
)
def test_an_unsubscribe_link_that_would_break_its_header_is_refused(link: str) -> None:
    with pytest.raises(mail.Undeliverable, match="unsubscribe link"):
        mail.message_bytes(_row(list_unsubscribe=link), "p@x.test")


def test_the_board_goes_inline_in_multipart_related(board_png: bytes) -> None:
    alt = 'GORami board: Zoë "Z" <b> to move & more'
    row = _row(board_key="g/3/0", board_png=board_png, board_alt=alt)
    raw = mail.message_bytes(row, "pbem <pbem@pbem.test>")
    message = _parse(raw)
    assert [p.get_content_type() for p in message.walk()] == [
        "multipart/alternative",
        "text/plain",
        "multipart/related",
        "text/html",
        "image/png",
    ]
    related = message.get_payload()[1]
    html_part, png_part = related.get_payload()
    assert related.get_param("type") == "text/html"
    assert png_part.get_content() == board_png
    assert png_part["Content-Disposition"].startswith("inline")
    content_id = png_part["Content-ID"].strip("<>")
    page = html_part.get_content()
    assert mail.BOARD_MARKER not in page
    (img,) = re.findall(r"<img [^>]*>", page)
    assert f'src="cid:{content_id}"' in img
    assert 'alt="GORami board: Zoë &quot;Z&quot; &lt;b&gt; to move &amp; more"' in img
    width, height = struct.unpack(">II", board_png[16:24])
    assert f'width="{width}" height="{height}"' in img and "max-width:100%" not in img
    assert "width:100%" in img  # shrinks to a phone's column, never wider than drawn
    assert page.index("Hello") < page.index("<img") < page.index("Your turn")
    # Deterministic, picture and all.
    assert mail.message_bytes(row, "pbem <pbem@pbem.test>") == raw


def test_without_a_picture_the_marker_goes_and_nothing_is_related() -> None:
    message = _parse(mail.message_bytes(_row(), "p@x.test"))
    assert [p.get_content_type() for p in message.walk()] == [
        "multipart/alternative",
        "text/plain",
        "text/html",
    ]
    page = _content(message, "html")
    assert mail.BOARD_MARKER not in page and "<img" not in page


def test_a_picture_without_a_marker_goes_at_the_end_of_the_body(board_png: bytes) -> None:
    row = _row(html="<html><body><p>Result</p></body></html>", board_png=board_png, board_alt="b")
    page = _content(_parse(mail.message_bytes(row, "p@x.test")), "html")
    assert re.fullmatch(r"<html><body><p>Result</p><img [^>]+></body></html>\n?", page)


def test_a_message_is_put_together_again_the_same_at_each_attempt() -> None:
    config = dataclasses.replace(_bare_settings(), mail_from="pbem <pbem@pbem.test>")
    first = mail.prepare(_row(), config, "bounce+x@pbem.test")
    again = mail.prepare(_row(), config, "bounce+x@pbem.test")
    assert again.message == first.message
    assert (again.sender, again.recipient, again.smtputf8) == (
        "bounce+x@pbem.test",
        "bob@example.org",
        False,
    )


def _bare_settings() -> Settings:
    from pbem.config import load_settings

    return load_settings({"PBEM_ENV": "test", "SECRET_KEY": "k" * 32, "PBEM_MAIL_PICTURES": "off"})


@pytest.mark.parametrize(
    ("text", "encoding"),
    [
        ("Hello,\nyour move.\n", "7bit"),
        ("Hello Zoë,\nGORami · 16-cell board\n" + "a plain line\n" * 20, "quoted-printable"),
        ("Привет, Дмитрий! Ваш ход.\n" * 10, "base64"),
        ("x" * 1200 + "\n", "quoted-printable"),  # a line too long for 7bit
    ],
)
def test_a_body_takes_the_shortest_faithful_encoding(text: str, encoding: str) -> None:
    message = _parse(mail.message_bytes(_row(text=text), "p@x.test"))
    part = message.get_body(("plain",))
    assert part is not None and part["Content-Transfer-Encoding"] == encoding
    assert _content(message, "plain") == text
