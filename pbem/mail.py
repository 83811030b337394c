"""Email on the wire: a message's bytes, delivery over SMTP or into the local outbox folder.

Rows of the `outbox` table are written by `pbem.domain.outbox` in the same transaction as the
change they report; `pbem.domain.delivery` builds each message at its first attempt (`prepare`:
`envelope`, then DKIM), stores the bytes on the row and sends those same bytes on every later
attempt. The build is deterministic from the row (Message-ID, Date, boundaries, the picture's
Content-ID and the DKIM timestamp all derive from it), so even a rebuild gives the same bytes.
"""

from __future__ import annotations

import atexit
import binascii
import email
import email.policy
import hashlib
import html
import os
import re
import secrets
import select
import smtplib
import socket
import struct
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from email.generator import BytesGenerator
from email.header import Header
from email.message import EmailMessage
from email.policy import EmailPolicy
from email.utils import format_datetime, formataddr, parseaddr
from functools import cache
from io import BytesIO
from pathlib import Path
from typing import Any, Protocol
from unicodedata import category, normalize

import idna

from pbem import dkim_signing
from pbem.config import Settings, SmtpSettings


class MailRow(Protocol):
    """An outbox row as sending reads it (an ORM object or a row of its columns).

    Read when present: `reply_to`, `list_unsubscribe`, `raw` (the bytes of the first build) and,
    from the claim's join with `pictures`, `board_png` and `board_alt` (the picture it carries).
    """

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
# Where the HTML part shows the board picture (the mail templates put it there).
BOARD_MARKER = "<!-- pbem:board -->"
# The picture's size in a phone's mail app: the PNG's own width in CSS pixels at most, the
# column's width when that is narrower (pbem.pictures draws it 600 pixels wide).
_IMG_STYLE = "display:block;width:100%;max-width:{width}px;height:auto;border:0;margin:12px 0"


@cache
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
    """The message as built from the row (unsigned): multipart/alternative, plain text then HTML
    (with the board picture, multipart/related), CRLF line ends."""
    return envelope(row, mail_from).message


def prepare(row: MailRow, config: Settings, sender: str | None = None) -> Envelope:
    """What to transmit for `row`: its stored bytes when it has them (a retry sends exactly what
    the first attempt built), else the message built and, when a key is configured, DKIM-signed.
    `sender` is the envelope sender (the row's VERP bounce address); MAIL_FROM's address when
    None. Raises Undeliverable when the message cannot be written."""
    raw: bytes | None = getattr(row, "raw", None)
    if raw is not None:
        message = bytes(raw)
        try:
            recipient = wire_address(row.to)
        except (ValueError, TypeError, LookupError) as exc:
            raise Undeliverable(f"the address could not be written ({exc})") from exc
    else:
        built = envelope(row, config.mail_from)
        message, recipient = built.message, built.recipient
        if config.mail.dkim_key_file is not None:
            message = (
                dkim_signing.signature(
                    message,
                    config.mail.dkim_key_file,
                    config.mail.dkim_selector,
                    signing_domain(config.mail_from),
                    row.created_at,
                )
                + message
            )
    sender = sender or _sender(config.mail_from)[1]
    utf8 = not (message.isascii() and sender.isascii() and recipient.isascii())
    return Envelope(message, sender, recipient, utf8)


def signing_domain(mail_from: str) -> str:
    """MAIL_FROM's domain as DKIM's d= names it: lowercase ASCII (IDNA)."""
    domain = mail_domain(mail_from).strip().rstrip(".").lower()
    return domain if domain.isascii() else idna.encode(domain, uts46=True).decode("ascii")


def envelope(row: MailRow, mail_from: str) -> Envelope:
    """The message built from the row, and its envelope; Undeliverable when it cannot be written.

    Built with the standard library's `email` package (EmailMessage, BytesGenerator, policy SMTP
    or SMTPUTF8). The header values are checked and encoded here first (names and subjects
    outside ASCII as RFC 2047 encoded words, domains in IDNA) and handed to the package as
    finished header objects (`_Ready`), and the bodies encoded here too: the usual way (every
    header parsed and refolded by the policy, `set_content`) took 1.3 ms of CPU a message
    against 0.1 (bench/mail_builder.py), a fifth of what a whole move costs. Bodies are 7bit
    when they are ASCII, else the shorter of quoted-printable and base64: only an address whose
    local part is not ASCII puts UTF-8 in the headers (RFC 6532), and then the message needs
    SMTPUTF8.
    """
    try:
        return _envelope(row, mail_from)
    except Undeliverable:
        raise
    except (ValueError, TypeError, LookupError) as exc:
        # UnicodeError (a lone surrogate, an address IDNA refuses) is a ValueError.
        raise Undeliverable(f"the message could not be written ({exc})") from exc


class _Ready(str):
    """A header value checked, encoded and folded by this module: the `email` package stores and
    writes it as it is (a header object in the package's sense: it has `name` and `fold`)."""

    name: str

    def __new__(cls, name: str, value: str) -> _Ready:
        ready = super().__new__(cls, value)
        ready.name = name
        return ready

    def fold(self, *, policy: email.policy.Policy) -> str:
        return f"{self.name}: {self}{policy.linesep}"


class _BuiltPolicy(EmailPolicy):
    """Policy SMTP (or SMTPUTF8) for messages whose headers are all `_Ready`.

    The one change: no header class lookup per header set (`header_max_count` builds a class
    each time), since the builder sets each header once.
    """

    def header_max_count(self, name: str) -> int | None:
        return None


_SMTP = _BuiltPolicy(linesep="\r\n")
_SMTPUTF8 = _SMTP.clone(utf8=True)
# The same on every message: built once.
_MIME_VERSION = _Ready("MIME-Version", "1.0")
_AUTO_SUBMITTED = _Ready("Auto-Submitted", "auto-generated")
_ONE_CLICK = _Ready("List-Unsubscribe-Post", "List-Unsubscribe=One-Click")
_TEXT_TYPE = _Ready("Content-Type", 'text/plain; charset="utf-8"')
_HTML_TYPE = _Ready("Content-Type", 'text/html; charset="utf-8"')
_PNG_TYPE = _Ready("Content-Type", 'image/png; name="board.png"')
_PNG_DISPOSITION = _Ready("Content-Disposition", 'inline; filename="board.png"')
_SEVEN_BIT = _Ready("Content-Transfer-Encoding", "7bit")
_BASE64 = _Ready("Content-Transfer-Encoding", "base64")
_QUOTED_PRINTABLE = _Ready("Content-Transfer-Encoding", "quoted-printable")


class _Generator(BytesGenerator):
    """BytesGenerator writing each body as the builder encoded it (ASCII, in CRLF lines) in one
    piece. Its own copy goes line by line, two writes a line: a third of a message's build, and
    0.7 ms for a picture's 1,100 lines of base64."""

    def _handle_text(self, part: EmailMessage) -> None:
        payload = part.get_payload()
        assert isinstance(payload, str)
        self.write(payload)

    _handle_image = _handle_text


def _part(policy: EmailPolicy, headers: list[_Ready], payload: Any) -> EmailMessage:
    part = EmailMessage(policy)
    for header in headers:
        part[header.name] = header
    part.set_payload(payload)
    return part


def _text_part(policy: EmailPolicy, content_type: _Ready, body: str) -> EmailMessage:
    """A text body as 7bit when it is ASCII in short lines, else in the shorter of
    quoted-printable and base64 (the email package's own choice, `contentmanager`): mostly
    ASCII text stays readable in quoted-printable; text mostly outside ASCII is smaller in
    base64."""
    body = body.replace("\r\n", "\n").replace("\r", "\n")
    if body.isascii() and (len(body) <= 998 or max(map(len, body.split("\n"))) <= 998):
        # Plain 7bit keeps links whole for anyone reading the raw message.
        return _part(policy, [content_type, _SEVEN_BIT], body.replace("\n", "\r\n"))
    data = body.encode("utf-8")
    # binascii's encoder is the C one behind the quopri module; base64's length is known
    # without encoding (4 characters for 3 bytes, a line break every 76).
    quoted = binascii.b2a_qp(data, istext=True)
    encoded_length = 4 * ((len(data) + 2) // 3)
    if len(quoted) <= encoded_length + (encoded_length + 75) // 76:
        payload = quoted.replace(b"\n", b"\r\n").decode("ascii")
        return _part(policy, [content_type, _QUOTED_PRINTABLE], payload)
    return _part(policy, [content_type, _BASE64], _base64_lines(data))


@dataclass(frozen=True)
class _Board:
    png: bytes
    alt: str
    width: int
    height: int


def _board(row: MailRow) -> _Board | None:
    """The picture the row carries (read with it from `pictures`), if it is a PNG."""
    png: bytes | None = getattr(row, "board_png", None)
    if not png or png[:8] != b"\x89PNG\r\n\x1a\n" or len(png) < 24:
        return None
    width, height = struct.unpack(">II", png[16:24])  # the IHDR chunk comes first
    return _Board(bytes(png), getattr(row, "board_alt", None) or "The board", width, height)


def _base64_lines(data: bytes) -> str:
    """`data` in base64, 76 characters a line, each line ending with CRLF (RFC 2045)."""
    encoded = binascii.b2a_base64(data, newline=False).decode("ascii")
    return "".join([f"{encoded[at : at + 76]}\r\n" for at in range(0, len(encoded), 76)])


def _with_board(page: str, board: _Board, content_id: str) -> str:
    """The HTML with the picture where the template marked its place (at the end of the body
    when it marked none)."""
    image = (
        f'<img src="cid:{content_id}" alt="{html.escape(board.alt, quote=True)}" '
        f'width="{board.width}" height="{board.height}" '
        f'style="{_IMG_STYLE.format(width=board.width)}">'
    )
    if BOARD_MARKER in page:
        return page.replace(BOARD_MARKER, image, 1).replace(BOARD_MARKER, "")
    end = page.lower().rfind("</body>")
    return page[:end] + image + page[end:] if end >= 0 else page + image


def _envelope(row: MailRow, mail_from: str) -> Envelope:
    # Where replies go (a turn email's play+<token>@ address, pbem.mailin) and the one-click
    # unsubscribe link (RFC 8058); rows of older versions, and rows a test makes by hand, have
    # neither.
    reply_to: str | None = getattr(row, "reply_to", None)
    unsubscribe: str | None = getattr(row, "list_unsubscribe", None)
    for name, value in (
        ("address", row.to),
        ("subject", row.subject),
        ("reply-to", reply_to),
        ("unsubscribe link", unsubscribe),
    ):
        if value is not None and _CONTROL_RE.search(value):
            raise Undeliverable(f"the {name} holds a line break or control character")
    if unsubscribe is not None and not _URL_RE.fullmatch(unsubscribe):
        raise Undeliverable("the unsubscribe link is not a plain http(s) URL")
    from_header, sender = _sender(mail_from)
    recipient = wire_address(row.to)
    reply = wire_address(reply_to) if reply_to else None
    utf8 = not (from_header.isascii() and recipient.isascii() and (reply or "").isascii())
    policy = _SMTPUTF8 if utf8 else _SMTP
    seed = hashlib.sha256(row.message_id.encode()).hexdigest()
    boundary = f"==pbem-{seed[:24]}=="

    message = EmailMessage(policy)
    message["From"] = _from_header(from_header)
    message["To"] = _Ready("To", recipient)
    message["Subject"] = _Ready("Subject", _text_header(row.subject))
    message["Date"] = _Ready("Date", format_datetime(row.created_at.replace(tzinfo=UTC)))
    message["Message-ID"] = _Ready("Message-ID", row.message_id)
    if row.in_reply_to:
        message["In-Reply-To"] = _Ready("In-Reply-To", row.in_reply_to)
    if row.references:
        message["References"] = _Ready("References", _fold(row.references))
    if reply:
        message["Reply-To"] = _Ready("Reply-To", reply)
    if unsubscribe:
        message["List-Unsubscribe"] = _Ready("List-Unsubscribe", f"<{unsubscribe}>")
        if unsubscribe.startswith("https://"):
            # RFC 8058 one-click is defined for HTTPS links only.
            message["List-Unsubscribe-Post"] = _ONE_CLICK
    message["Auto-Submitted"] = _AUTO_SUBMITTED
    message["MIME-Version"] = _MIME_VERSION
    message["Content-Type"] = _Ready(
        "Content-Type", f'multipart/alternative; boundary="{boundary}"'
    )

    board = _board(row)
    if board is None:
        html_part = _text_part(policy, _HTML_TYPE, row.html.replace(BOARD_MARKER, ""))
    else:
        content_id = f"board.{seed[:16]}@{mail_domain(mail_from)}"
        related = f'multipart/related; type="text/html"; boundary="==pbem-{seed[24:48]}=="'
        png_headers = [
            _PNG_TYPE,
            _PNG_DISPOSITION,
            _BASE64,
            _Ready("Content-ID", f"<{content_id}>"),
        ]
        html_part = _part(
            policy,
            [_Ready("Content-Type", related)],
            [
                _text_part(policy, _HTML_TYPE, _with_board(row.html, board, content_id)),
                _part(policy, png_headers, _base64_lines(board.png)),
            ],
        )
    message.set_payload([_text_part(policy, _TEXT_TYPE, row.text), html_part])

    out = BytesIO()
    _Generator(out, mangle_from_=False, policy=policy).flatten(message)
    # Outside SMTPUTF8 the generator writes ASCII only (an encoding error otherwise), so nothing
    # else can slip in.
    return Envelope(out.getvalue(), sender, recipient, utf8)


_CONTROL_RE = re.compile(r"[\x00-\x1f\x7f]")
# A link as a List-Unsubscribe header carries it between < and >: no spaces, no angle brackets.
_URL_RE = re.compile(r"https?://[\x21\x23-\x3b\x3d\x3f-\x7e]{1,1000}")
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


@cache
def _from_header(value: str) -> _Ready:
    return _Ready("From", value)


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
def delivering(row: MailRow, settings: Settings, built: Envelope | None = None) -> Iterator[None]:
    """Transmit one message (`built`, else the row prepared now); the with-block runs once it is
    accepted, before the session closes.

    The caller records the message as sent inside the block, right after the server's 250, so a
    worker lost afterwards (while its session is kept open, or closed) does not send it again.
    Raises Undeliverable when the message cannot be written or this server cannot take it, and
    OSError or smtplib.SMTPException when it was not accepted.
    """
    if built is None:
        built = prepare(row, settings)
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
