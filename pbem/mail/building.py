"""The message an outbox row becomes: what it holds and what is refused.

multipart/alternative of the plain text and the HTML (the HTML with the board picture in
multipart/related when the row carries one), the threading headers, Reply-To and the one-click
unsubscribe pair, every address in its wire form; a row no message can carry as it is raises
Undeliverable, which `pbem.domain.delivery` records as a permanent failure. Deterministic from
the row: the Message-ID, Date, boundaries and the picture's Content-ID derive from it, so a
rebuild gives the same bytes. The bytes themselves are written by `pbem.mail.writer`.
"""

from __future__ import annotations

import hashlib
import html
import re
import secrets
import struct
from dataclasses import dataclass
from datetime import UTC, datetime
from email.message import EmailMessage
from email.policy import EmailPolicy
from email.utils import format_datetime, formataddr, parseaddr
from functools import cache
from typing import Protocol
from unicodedata import category, normalize

import idna

from pbem import dkim_signing
from pbem.config import Settings
from pbem.mail import writer
from pbem.mail.writer import Ready


class MailRow(Protocol):
    """An outbox row as sending reads it (an ORM object or a row of its columns).

    Read when present: `reply_to`, `list_unsubscribe`, `language` and, from the claim's join with
    `pictures`, `board_png` and `board_alt` (the picture it carries).
    """

    id: int
    kind: str
    to: str
    subject: str
    text: str
    html: str
    message_id: str
    in_reply_to: str | None
    references: str | None
    created_at: datetime


# Where the HTML part shows the board picture (the mail templates put it there).
BOARD_MARKER = "<!-- pbem:board -->"
# The picture's size in a phone's mail app: the PNG's own width in CSS pixels at most, the
# column's width when that is narrower (pbem.pictures draws it 600 pixels wide).
_IMG_STYLE = "display:block;width:100%;max-width:{width}px;height:auto;border:0;margin:12px 0"
_CONTROL_RE = re.compile(r"[\x00-\x1f\x7f]")
# A link as a List-Unsubscribe header carries it between < and >: no spaces, no angle brackets.
_URL_RE = re.compile(r"https?://[\x21\x23-\x3b\x3d\x3f-\x7e]{1,1000}")
# Controls, format characters (bidi overrides, zero widths), line and paragraph separators,
# surrogates, private use, unassigned: nothing a mailbox name holds, and a way to mislead.
HIDDEN_CATEGORIES = frozenset({"Cc", "Cf", "Zl", "Zp", "Cs", "Co", "Cn"})


@cache
def mail_domain(mail_from: str) -> str:
    _, at, domain = parseaddr(mail_from)[1].rpartition("@")
    return domain if at and domain else "pbem.localhost"


def signing_domain(mail_from: str) -> str:
    """MAIL_FROM's domain as DKIM's d= names it: lowercase ASCII (IDNA); idna.IDNAError when
    it has no ASCII form."""
    domain = bare_domain(mail_from)
    return domain if domain.isascii() else idna.encode(domain, uts46=True).decode("ascii")


def bare_domain(mail_from: str) -> str:
    """MAIL_FROM's domain lowercase, without spaces or the root's trailing dot."""
    return mail_domain(mail_from).strip().rstrip(".").lower()


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
    """What to transmit for `row`: the message built from its parts and its picture and, when a
    key is configured, DKIM-signed. Put together at each attempt, never stored: the build is
    deterministic from the row, its picture and the settings, so an attempt after a lost
    record sends the same bytes. `sender` is the envelope sender (the row's VERP bounce
    address); MAIL_FROM's address when None. Raises Undeliverable when the message cannot be
    written."""
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


def envelope(row: MailRow, mail_from: str) -> Envelope:
    """The message built from the row, and its envelope; Undeliverable when it cannot be written.

    The header values are checked and put in their wire form here (addresses in IDNA, only an
    address whose local part is not ASCII puts UTF-8 in the headers, RFC 6532, and then the
    message needs SMTPUTF8); `pbem.mail.writer` encodes and writes them.
    """
    try:
        return _envelope(row, mail_from)
    except Undeliverable:
        raise
    except (ValueError, TypeError, LookupError) as exc:
        # UnicodeError (a lone surrogate, an address IDNA refuses) is a ValueError.
        raise Undeliverable(f"the message could not be written ({exc})") from exc


def _envelope(row: MailRow, mail_from: str) -> Envelope:
    # Where replies go (a turn email's play+<token>@ address, pbem.links) and the one-click
    # unsubscribe link (RFC 8058); rows of older versions, and rows a test makes by hand, have
    # neither.
    reply_to: str | None = getattr(row, "reply_to", None)
    unsubscribe: str | None = getattr(row, "list_unsubscribe", None)
    _check(row, reply_to, unsubscribe)
    from_header, sender = _sender(mail_from)
    recipient = wire_address(row.to)
    reply = wire_address(reply_to) if reply_to else None
    utf8 = not (from_header.isascii() and recipient.isascii() and (reply or "").isascii())
    policy = writer.policy(utf8)
    seed = hashlib.sha256(row.message_id.encode()).hexdigest()
    headers = [
        writer.cached("From", from_header),
        # In angle brackets: a bare address beside an HTML part with one picture is a sign of
        # spam to SpamAssassin (TO_NO_BRKTS_HTML_IMG); "<a@b>" is a name-addr without a name.
        Ready("To", f"<{recipient}>"),
        writer.text("Subject", row.subject),
        Ready("Date", format_datetime(row.created_at.replace(tzinfo=UTC))),
        Ready("Message-ID", row.message_id),
    ]
    if row.in_reply_to:
        headers.append(Ready("In-Reply-To", row.in_reply_to))
    if row.references:
        headers.append(writer.folded("References", row.references))
    if reply:
        headers.append(Ready("Reply-To", reply))
    language: str | None = getattr(row, "language", None)
    if language and language.isalpha() and len(language) <= 8:
        headers.append(Ready("Content-Language", language))
    if unsubscribe:
        headers.append(Ready("List-Unsubscribe", f"<{unsubscribe}>"))
        if unsubscribe.startswith("https://"):
            # RFC 8058 one-click is defined for HTTPS links only.
            headers.append(writer.ONE_CLICK)
    headers += [
        writer.AUTO_SUBMITTED,
        writer.MIME_VERSION,
        Ready("Content-Type", f'multipart/alternative; boundary="==pbem-{seed[:24]}=="'),
    ]
    html_part = _html(row, policy, seed, mail_from)
    parts = [writer.text_part(policy, writer.TEXT_TYPE, row.text), html_part]
    message = writer.part(policy, headers, parts)
    return Envelope(writer.flatten(message), sender, recipient, utf8)


def _check(row: MailRow, reply_to: str | None, unsubscribe: str | None) -> None:
    """Undeliverable when a header value would break its header."""
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


@dataclass(frozen=True)
class _Board:
    png: bytes
    alt: str
    width: int
    height: int


def carries_board(row: MailRow) -> bool:
    """Whether the message built from `row` shows the board picture (it is there, a PNG)."""
    return _board(row) is not None


def _board(row: MailRow) -> _Board | None:
    """The picture the row carries (read with it from `pictures`), if it is a PNG."""
    png: bytes | None = getattr(row, "board_png", None)
    if not png or png[:8] != b"\x89PNG\r\n\x1a\n" or len(png) < 24:
        return None
    width, height = struct.unpack(">II", png[16:24])  # the IHDR chunk comes first
    return _Board(bytes(png), getattr(row, "board_alt", None) or "The board", width, height)


def _html(row: MailRow, policy: EmailPolicy, seed: str, mail_from: str) -> EmailMessage:
    """The HTML part; with the row's picture, multipart/related of the HTML and the PNG."""
    board = _board(row)
    if board is None:
        return writer.text_part(policy, writer.HTML_TYPE, row.html.replace(BOARD_MARKER, ""))
    content_id = f"board.{seed[:16]}@{mail_domain(mail_from)}"
    related = f'multipart/related; type="text/html"; boundary="==pbem-{seed[24:48]}=="'
    png_headers = [
        writer.PNG_TYPE,
        writer.PNG_DISPOSITION,
        writer.BASE64,
        Ready("Content-ID", f"<{content_id}>"),
    ]
    return writer.part(
        policy,
        [Ready("Content-Type", related)],
        [
            writer.text_part(policy, writer.HTML_TYPE, _with_board(row.html, board, content_id)),
            writer.part(policy, png_headers, writer.base64_lines(board.png)),
        ],
    )


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
    return f"{writer.encoded_words(name)} <{address}>", address
