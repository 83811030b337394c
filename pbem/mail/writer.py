"""The bytes of a message, written fast: pbem's own header objects, encodings and generator on
top of the standard library's `email` package.

Kept because bench/RESULTS.md shows that it pays at the service level. The package's usual way
(every header set as a string, parsed and refolded by the policy; bodies by `set_content`,
`add_alternative`, `add_related`), tried as the builder in session 6, took the load test from
224 to 164 moves/s (the worker's CPU per move from 2.25 to 3.57 ms) and was not landed. This
writer costs what the fully hand-written one before it did (session 7: no difference the load
test could tell), and per turn email (`bench/mail_builder.py`, issue 30) 0.08 ms of CPU against
1.9-2.2 ms the usual way, 0.37-0.41 against 4.8-5.1 ms with the board picture.

How: `pbem.mail.building` checks each header value and puts the addresses in their wire form
(IDNA); this module encodes the rest (names and subjects outside ASCII as RFC 2047 encoded
words, a long References folded) and hands each value to the package as a finished header
object (`Ready`, the package's own protocol: `name` and `fold`), which the policy neither
parses nor refolds; the headers every message carries are built once; bodies are encoded here
(7bit when ASCII, else the shorter of quoted-printable and base64, the package's own choice),
and the generator writes each body in one piece.
"""

from __future__ import annotations

import binascii
import email.policy
from email.generator import BytesGenerator
from email.header import Header
from email.message import EmailMessage
from email.policy import EmailPolicy
from functools import cache
from io import BytesIO
from typing import Any


class Ready(str):
    """A header value checked, encoded and folded by pbem: the `email` package stores and writes
    it as it is (a header object in the package's sense: it has `name` and `fold`)."""

    name: str

    def __new__(cls, name: str, value: str) -> Ready:
        ready = super().__new__(cls, value)
        ready.name = name
        return ready

    def fold(self, *, policy: email.policy.Policy) -> str:
        return f"{self.name}: {self}{policy.linesep}"


class _BuiltPolicy(EmailPolicy):
    """Policy SMTP (or SMTPUTF8) for messages whose headers are all `Ready`.

    The one change: no header class lookup per header set (`header_max_count` builds a class
    each time), since the builder sets each header once.
    """

    def header_max_count(self, name: str) -> int | None:
        return None


_SMTP = _BuiltPolicy(linesep="\r\n")
_SMTPUTF8 = _SMTP.clone(utf8=True)
# The same on every message: built once.
MIME_VERSION = Ready("MIME-Version", "1.0")
AUTO_SUBMITTED = Ready("Auto-Submitted", "auto-generated")
ONE_CLICK = Ready("List-Unsubscribe-Post", "List-Unsubscribe=One-Click")
TEXT_TYPE = Ready("Content-Type", 'text/plain; charset="utf-8"')
HTML_TYPE = Ready("Content-Type", 'text/html; charset="utf-8"')
PNG_TYPE = Ready("Content-Type", 'image/png; name="board.png"')
PNG_DISPOSITION = Ready("Content-Disposition", 'inline; filename="board.png"')
BASE64 = Ready("Content-Transfer-Encoding", "base64")
_SEVEN_BIT = Ready("Content-Transfer-Encoding", "7bit")
_QUOTED_PRINTABLE = Ready("Content-Transfer-Encoding", "quoted-printable")


def policy(utf8: bool) -> EmailPolicy:
    """Policy SMTPUTF8 when a header holds UTF-8 (RFC 6532), else SMTP: CRLF line ends."""
    return _SMTPUTF8 if utf8 else _SMTP


class _Generator(BytesGenerator):
    """BytesGenerator writing each body as `part` and `text_part` encoded it (ASCII, in CRLF
    lines) in one piece. Its own copy goes line by line, two writes a line: a third of a
    message's build, and 0.7 ms for a picture's 1,100 lines of base64."""

    def _handle_text(self, part: EmailMessage) -> None:
        payload = part.get_payload()
        assert isinstance(payload, str)
        self.write(payload)

    _handle_image = _handle_text


def flatten(message: EmailMessage) -> bytes:
    """The message's bytes. Outside SMTPUTF8 the generator writes ASCII only (an encoding error
    otherwise), so nothing else can slip in."""
    out = BytesIO()
    _Generator(out, mangle_from_=False, policy=message.policy).flatten(message)
    return out.getvalue()


def part(policy: EmailPolicy, headers: list[Ready], payload: Any) -> EmailMessage:
    """A message or MIME part of these headers; `payload` is its encoded body (CRLF lines) or
    its list of parts."""
    made = EmailMessage(policy)
    for header in headers:
        made[header.name] = header
    made.set_payload(payload)
    return made


def text_part(policy: EmailPolicy, content_type: Ready, body: str) -> EmailMessage:
    """A text body as 7bit when it is ASCII in short lines, else in the shorter of
    quoted-printable and base64 (the email package's own choice, `contentmanager`): mostly
    ASCII text stays readable in quoted-printable; text mostly outside ASCII is smaller in
    base64."""
    body = body.replace("\r\n", "\n").replace("\r", "\n")
    if body.isascii() and (len(body) <= 998 or max(map(len, body.split("\n"))) <= 998):
        # Plain 7bit keeps links whole for anyone reading the raw message.
        return part(policy, [content_type, _SEVEN_BIT], body.replace("\n", "\r\n"))
    data = body.encode("utf-8")
    # binascii's encoder is the C one behind the quopri module; base64's length is known
    # without encoding (4 characters for 3 bytes, a line break every 76).
    quoted = binascii.b2a_qp(data, istext=True)
    encoded_length = 4 * ((len(data) + 2) // 3)
    if len(quoted) <= encoded_length + (encoded_length + 75) // 76:
        payload = quoted.replace(b"\n", b"\r\n").decode("ascii")
        return part(policy, [content_type, _QUOTED_PRINTABLE], payload)
    return part(policy, [content_type, BASE64], base64_lines(data))


def base64_lines(data: bytes) -> str:
    """`data` in base64, 76 characters a line, each line ending with CRLF (RFC 2045)."""
    encoded = binascii.b2a_base64(data, newline=False).decode("ascii")
    return "".join([f"{encoded[at : at + 76]}\r\n" for at in range(0, len(encoded), 76)])


@cache
def cached(name: str, value: str) -> Ready:
    """A header whose value repeats from message to message (From): made once."""
    return Ready(name, value)


def text(name: str, value: str) -> Ready:
    """A header of free text (Subject): as it is when ASCII, else RFC 2047 encoded words."""
    return Ready(name, value if value.isascii() else encoded_words(value))


def encoded_words(value: str) -> str:
    # Folded with CRLF like every other line (Header's default is a bare LF).
    return Header(value, "utf-8").encode(linesep="\r\n")


def folded(name: str, value: str) -> Ready:
    """A header of words that may grow long (References grows with the thread), folded at
    spaces."""
    if len(value) <= 900 or "\r\n" in value:
        return Ready(name, value)
    words, out, line = value.split(" "), [], ""
    for word in words:
        if line and len(line) + len(word) + 1 > 76:
            out.append(line)
            line = word
        else:
            line = f"{line} {word}" if line else word
    out.append(line)
    return Ready(name, "\r\n ".join(out))
