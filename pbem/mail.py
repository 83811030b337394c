"""Email on the wire: a message's bytes, delivery over SMTP or into the local outbox folder.

Rows of the `outbox` table are written by `pbem.domain.outbox` in the same transaction as the
change they report; `deliver` only transmits one. The message is rebuilt from the row byte for
byte on every attempt (same Message-ID, same Date), so a retried message is the same message.
"""

from __future__ import annotations

import atexit
import base64
import email
import email.policy
import hashlib
import os
import re
import secrets
import select
import smtplib
import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from email.header import Header
from email.message import EmailMessage
from email.utils import format_datetime, formataddr, parseaddr
from functools import cache
from pathlib import Path
from typing import Protocol
from unicodedata import category, normalize

import idna

from pbem.config import Settings, SmtpSettings


class MailRow(Protocol):
    """An outbox row as sending reads it (an ORM object or a row of its columns)."""

    @property
    def id(self) -> int: ...
    @property
    def kind(self) -> str: ...
    @property
    def to(self) -> str: ...
    @property
    def subject(self) -> str: ...
    @property
    def text(self) -> str: ...
    @property
    def html(self) -> str: ...
    @property
    def message_id(self) -> str: ...
    @property
    def in_reply_to(self) -> str | None: ...
    @property
    def references(self) -> str | None: ...
    @property
    def created_at(self) -> datetime: ...


LINK_RE = re.compile(r"https?://[^\s<>\"')]+")


def mail_domain(mail_from: str) -> str:
    _, at, domain = parseaddr(mail_from)[1].rpartition("@")
    return domain if at and domain else "pbem.localhost"


def new_message_id(game_id: str, mail_from: str) -> str:
    return f"<{game_id}.{secrets.token_hex(6)}@{mail_domain(mail_from)}>"


class Undeliverable(Exception):
    """This message cannot be sent as it is, now or later; the message says why, in plain words."""


@dataclass(frozen=True)
class Envelope:
    """A message as it goes on the wire: its bytes and the SMTP envelope."""

    message: bytes
    sender: str
    recipient: str
    smtputf8: bool  # an address needs UTF-8 (RFC 6531): only a server offering SMTPUTF8 takes it


def message_bytes(row: MailRow, mail_from: str) -> bytes:
    """The message as sent: multipart/alternative, plain text then HTML, CRLF line ends."""
    return envelope(row, mail_from).message


def envelope(row: MailRow, mail_from: str) -> Envelope:
    """The message and its envelope; Undeliverable when it cannot be written.

    Written out by hand because the `email` package takes over a millisecond per message and a
    busy worker sends one per move. Everything is derived from the row, so every attempt produces
    the same bytes (same Message-ID, Date and boundary). Names and subjects outside ASCII are
    encoded words (RFC 2047), bodies base64: only an address whose local part is not ASCII puts
    UTF-8 in the headers (RFC 6532), and then the message needs SMTPUTF8.
    """
    try:
        return _envelope(row, mail_from)
    except Undeliverable:
        raise
    except (ValueError, TypeError, LookupError) as exc:
        # UnicodeError (a lone surrogate, an address IDNA refuses) is a ValueError.
        raise Undeliverable(f"the message could not be written ({exc})") from exc


def _envelope(row: MailRow, mail_from: str) -> Envelope:
    # Where replies go (a turn email's play+<token>@ address, pbem.mailin); rows of older
    # versions, and rows a test makes by hand, have none.
    reply_to: str | None = getattr(row, "reply_to", None)
    for name, value in (("address", row.to), ("subject", row.subject), ("reply-to", reply_to)):
        if value is not None and _CONTROL_RE.search(value):
            raise Undeliverable(f"the {name} holds a line break or control character")
    from_header, sender = _sender(mail_from)
    recipient = wire_address(row.to)
    boundary = "==pbem-" + hashlib.sha256(row.message_id.encode()).hexdigest()[:24] + "=="
    headers = [
        ("From", from_header),
        ("To", recipient),
        ("Subject", _text_header(row.subject)),
        ("Date", format_datetime(row.created_at.replace(tzinfo=UTC))),
        ("Message-ID", row.message_id),
        ("In-Reply-To", row.in_reply_to),
        ("References", row.references),
        ("Reply-To", wire_address(reply_to) if reply_to else None),
        ("Auto-Submitted", "auto-generated"),
        ("MIME-Version", "1.0"),
        ("Content-Type", f'multipart/alternative; boundary="{boundary}"'),
    ]
    lines = [f"{name}: {_fold(value)}" for name, value in headers if value]
    lines.append("")
    for subtype, body in (("plain", row.text), ("html", row.html)):
        lines += [f"--{boundary}", f'Content-Type: text/{subtype}; charset="utf-8"']
        lines += _encoded_body(body)
    lines += [f"--{boundary}--", ""]
    smtputf8 = not (sender.isascii() and recipient.isascii())
    # Outside SMTPUTF8 a message is ASCII; encoding it so makes sure nothing else slipped in.
    message = "\r\n".join(lines).encode("utf-8" if smtputf8 else "ascii")
    return Envelope(message, sender, recipient, smtputf8)


_CONTROL_RE = re.compile(r"[\x00-\x1f\x7f]")
# Controls, format characters (bidi overrides, zero widths), line and paragraph separators,
# surrogates, private use, unassigned: nothing a mailbox name holds, and a way to mislead.
HIDDEN_CATEGORIES = frozenset({"Cc", "Cf", "Zl", "Zp", "Cs", "Co", "Cn"})


def wire_address(address: str) -> str:
    """The address as SMTP and the headers carry it: ASCII whenever it has an ASCII form (a
    domain outside ASCII in IDNA), else UTF-8 in NFC, which needs SMTPUTF8."""
    if address.isascii():
        return address
    hidden = sorted({f"U+{ord(c):04X}" for c in address if category(c) in HIDDEN_CATEGORIES})
    if hidden:
        raise Undeliverable(
            f"the address holds an invisible or direction-changing character ({', '.join(hidden)})"
        )
    address = normalize("NFC", address)
    local, at, domain = address.rpartition("@")
    if not at or not local or not domain:
        raise Undeliverable("the address has no @-sign between a name and a domain")
    try:
        domain = idna.encode(domain, uts46=True).decode("ascii")
    except idna.IDNAError as exc:
        raise Undeliverable(f"the domain of the address is not a valid name ({exc})") from exc
    return f"{local}@{domain}"


@cache
def _sender(mail_from: str) -> tuple[str, str]:
    """MAIL_FROM as the From header and as the envelope sender."""
    name, address = parseaddr(mail_from)
    address = wire_address(address or mail_from)
    if not name:
        return address, address
    if name.isascii():
        return formataddr((name, address)), address
    return f"{_encoded_words(name)} <{address}>", address


def _encoded_body(body: str) -> list[str]:
    body = body.replace("\r\n", "\n")
    if body.isascii() and all(len(line) <= 998 for line in body.split("\n")):
        # Plain 7bit keeps links whole for anyone reading the raw message.
        return ["Content-Transfer-Encoding: 7bit", "", *body.split("\n")]
    encoded = base64.encodebytes(body.encode("utf-8")).decode("ascii")
    return ["Content-Transfer-Encoding: base64", "", *encoded.splitlines()]


def _text_header(value: str) -> str:
    return value if value.isascii() else _encoded_words(value)


def _encoded_words(value: str) -> str:
    # Folded with CRLF like every other line (Header's default is a bare LF).
    return Header(value, "utf-8").encode(linesep="\r\n")


def _fold(value: str) -> str:
    """Fold a long header at spaces (References grows with the thread)."""
    if len(value) <= 900 or "\r\n" in value:
        return value
    words, out, line = value.split(" "), [], ""
    for word in words:
        if line and len(line) + len(word) + 1 > 76:
            out.append(line)
            line = word
        else:
            line = f"{line} {word}" if line else word
    out.append(line)
    return "\r\n ".join(out)


@contextmanager
def delivering(row: MailRow, settings: Settings) -> Iterator[None]:
    """Transmit one message; the with-block runs once it is accepted, before the session closes.

    The caller records the message as sent inside the block, right after the server's 250, so a
    worker lost afterwards (while its session is kept open, or closed) does not send it again.
    Raises Undeliverable when the message cannot be written or this server cannot take it, and
    OSError or smtplib.SMTPException when it was not accepted.
    """
    built = envelope(row, settings.mail_from)
    if settings.smtp is None:
        save_to_folder(built.message, settings.outbox_dir, _file_name(row))
        yield
        return
    with _smtp_session(settings.smtp) as client:
        options: list[str] = []
        if built.smtputf8:
            client.ehlo_or_helo_if_needed()
            if not client.has_extn("smtputf8"):
                raise Undeliverable(
                    "the mail server does not accept internationalised addresses (SMTPUTF8)"
                )
            # As smtplib's send_message does: RFC 6531 servers take 8-bit headers with it.
            options = ["SMTPUTF8", "BODY=8BITMIME"]
        client.sendmail(built.sender, [built.recipient], built.message, mail_options=options)
        yield


@contextmanager
def _smtp_session(smtp: SmtpSettings) -> Iterator[smtplib.SMTP]:
    """A session kept open between messages, one per thread (smtplib clients are not shared).

    A worker sends one message after another: reusing the session saves the connection, EHLO
    (TLS, login) and QUIT of each. A kept session is reused if the server has not spoken since
    (a server dropping an idle client says 421 or just closes: either makes the socket readable),
    which costs no round trip, and replaced otherwise. Any failure closes it, so the next message
    starts afresh.
    """
    client = _kept_client(smtp)
    try:
        yield client
    except Undeliverable:
        # Refused before any command of the message was sent: the session is as it was.
        raise
    except BaseException:
        _close_kept()
        raise


_kept = threading.local()
# A kept session idle this long is closed rather than reused: servers drop idle clients anyway.
KEEP_IDLE_SECONDS = 60.0


def _kept_client(smtp: SmtpSettings) -> smtplib.SMTP:
    client: smtplib.SMTP | None = getattr(_kept, "client", None)
    fresh_enough = time.monotonic() - getattr(_kept, "used_at", 0.0) < KEEP_IDLE_SECONDS
    same = client is not None and getattr(_kept, "settings", None) == smtp
    if (
        client is not None
        and same
        and fresh_enough
        and client.sock is not None
        and not _has_spoken(client.sock)
    ):
        _kept.used_at = time.monotonic()
        return client
    _close_kept()
    client_class = smtplib.SMTP_SSL if smtp.ssl else smtplib.SMTP
    client = client_class(smtp.host, smtp.port, timeout=30)
    try:
        if smtp.starttls:
            client.starttls()
        if smtp.username:
            client.login(smtp.username, smtp.password or "")
    except BaseException:
        client.close()
        raise
    _kept.client, _kept.settings, _kept.used_at = client, smtp, time.monotonic()
    return client


def _has_spoken(sock: socket.socket) -> bool:
    """Whether the server sent something (or closed) while the session sat idle."""
    try:
        readable, _, _ = select.select([sock], [], [], 0)
    except (OSError, ValueError):
        return True
    return bool(readable)


def _close_kept() -> None:
    client: smtplib.SMTP | None = getattr(_kept, "client", None)
    _kept.client = None
    if client is not None:
        try:
            client.quit()
        except (OSError, smtplib.SMTPException):
            client.close()


atexit.register(_close_kept)


def save_to_folder(message: bytes, folder: Path, name: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    # Write then rename, so the /outbox page never reads half a message.
    partial = folder / f".{name}.{os.getpid()}.tmp"
    partial.write_bytes(message)
    os.replace(partial, path)
    return path


def _file_name(row: MailRow) -> str:
    # Named by row id: a second attempt overwrites the first instead of adding a copy.
    return f"{row.created_at:%Y%m%d-%H%M%S}-{row.id:07d}-{row.kind}.eml"


@dataclass(frozen=True)
class SavedMail:
    """A message from the outbox folder, as the /outbox page shows it."""

    name: str
    to: str
    subject: str
    date: str
    text: str

    def text_with_links(self) -> list[tuple[str, bool]]:
        """The text split into (piece, is_link) so a template can make the links clickable."""
        pieces: list[tuple[str, bool]] = []
        at = 0
        for match in LINK_RE.finditer(self.text):
            pieces.append((self.text[at : match.start()], False))
            pieces.append((match.group(0), True))
            at = match.end()
        pieces.append((self.text[at:], False))
        return pieces


def saved_mails(folder: Path, limit: int = 200) -> list[SavedMail]:
    """The newest messages of the outbox folder first."""
    if not folder.is_dir():
        return []
    paths = sorted(folder.glob("*.eml"), reverse=True)[:limit]
    return [read_saved(path) for path in paths]


def read_saved(path: Path) -> SavedMail:
    message = email.message_from_bytes(path.read_bytes(), policy=email.policy.default)
    assert isinstance(message, EmailMessage)
    body = message.get_body(preferencelist=("plain",))
    text = body.get_content().replace("\r\n", "\n") if body is not None else ""
    return SavedMail(
        name=path.name,
        to=str(message["To"]),
        subject=str(message["Subject"]),
        date=str(message["Date"]),
        text=text,
    )
