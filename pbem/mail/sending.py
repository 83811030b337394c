"""Sending a built message: over SMTP in a session kept open between messages, or, without
SMTP_URL, into the outbox folder, which the /outbox page reads back.

Apart from building (`pbem.mail.building`) because it is the one part with I/O and state: a
socket per worker thread, files written and renamed.
"""

from __future__ import annotations

import atexit
import email
import email.policy
import os
import re
import select
import smtplib
import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from email.message import EmailMessage
from pathlib import Path

from pbem.config import Settings, SmtpSettings
from pbem.mail.building import Envelope, MailRow, Undeliverable, prepare

LINK_RE = re.compile(r"https?://[^\s<>\"')]+")


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
        close_kept_session()
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
    close_kept_session()
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


def close_kept_session() -> None:
    """Close this thread's kept SMTP session, if any (QUIT, or just the socket)."""
    client: smtplib.SMTP | None = getattr(_kept, "client", None)
    _kept.client = None
    if client is not None:
        try:
            client.quit()
        except (OSError, smtplib.SMTPException):
            client.close()


atexit.register(close_kept_session)


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
