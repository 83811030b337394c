"""A minimal SMTP sink for `bench/service.py`, served by the benchmark's own event loop.

The service's smtplib clients talk real SMTP over TCP on loopback to it: greeting, EHLO/HELO, MAIL,
RCPT, DATA with dot-unstuffing, RSET, NOOP, QUIT. Each message is handed to a callback with the
time its final "." arrived, before the 250 goes out. `read_mail` gives what the benchmark's
players need from a message (Message-ID, subject, the tokens of its first /invite/ and /play/
links) without the email package, which costs more than the rest of the sink per message.

Why not aiosmtpd: beside 40 player threads in one process, sink and players took about 3 ms of CPU
per move, a third of what the whole stack may spend. On one loop with the players (no threads, so
no GIL hand-overs) this protocol is a few bytes operations per SMTP command; most of what it
still costs is the kernel's, for the five round trips of each message. In a process of its own it
cost more: handing each message over a pipe adds a wake-up per message to both processes.
"""

from __future__ import annotations

import asyncio
import binascii
import email
import email.policy
import re
import socket
import time
import weakref
from collections.abc import Callable
from dataclasses import dataclass
from email.header import decode_header, make_header
from email.message import EmailMessage

# mail_from, rcpt_tos, raw message (dot-unstuffed, CRLF line ends), acceptance time (time.time())
OnMessage = Callable[[str, list[str], bytes, float], None]

HOSTNAME = "sink.pbem.test"
# What aiosmtpd offered the service before (tests/support/smtp.py), none of it enforced.
EXTENSIONS = "250-SIZE 33554432\r\n250-8BITMIME\r\n250-SMTPUTF8\r\n250 HELP"
ADDRESS_RE = re.compile(rb"^(FROM|TO):\s*<([^>]*)>\s*(.*)$", re.IGNORECASE)
# A line longer than this without CRLF is not SMTP: drop the client rather than buffer forever.
MAX_LINE = 4096


class SinkProtocol(asyncio.Protocol):
    """One SMTP session; calls `on_message` for each message it accepts, before answering 250."""

    def __init__(self, on_message: OnMessage) -> None:
        self.on_message = on_message
        self.transport: asyncio.Transport | None = None
        self.buffer = bytearray()
        self.greeted = False
        self.mail_from: str | None = None
        self.rcpt_tos: list[str] = []
        self.in_data = False
        self.scanned = 0  # where the search for the end of DATA resumes

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        self.transport = transport
        self.reply(f"220 {HOSTNAME} ESMTP pbem bench sink")

    def reply(self, text: str) -> None:
        assert self.transport is not None
        self.transport.write(text.encode() + b"\r\n")

    def reset(self) -> None:
        self.mail_from = None
        self.rcpt_tos = []

    def data_received(self, data: bytes) -> None:
        self.buffer += data
        while self.transport is not None and not self.transport.is_closing():
            if self.in_data:
                if not self.take_message():
                    return
                continue
            end = self.buffer.find(b"\n")
            if end < 0:
                if len(self.buffer) > MAX_LINE:
                    self.reply("500 Error: line too long")
                    self.transport.close()
                return
            line = bytes(self.buffer[:end]).rstrip(b"\r")
            del self.buffer[: end + 1]
            self.command(line)

    def take_message(self) -> bool:
        """Accept the message if its final "." line is in the buffer; False: wait for more."""
        # The buffer starts with the CRLF that ended the DATA line (put back in `command`), so an
        # empty message and the last line of any other end the same way.
        end = self.buffer.find(b"\r\n.\r\n", max(self.scanned - 4, 0))
        if end < 0:
            self.scanned = len(self.buffer)
            return False
        raw = bytes(self.buffer[: end + 2]).replace(b"\r\n..", b"\r\n.")[2:]
        del self.buffer[: end + 5]
        accepted_at = time.time()
        self.in_data = False
        self.scanned = 0
        mail_from, rcpt_tos = self.mail_from or "", self.rcpt_tos
        self.reset()
        self.on_message(mail_from, rcpt_tos, raw, accepted_at)
        self.reply("250 OK")
        return True

    def command(self, line: bytes) -> None:
        verb, _, arg = line.partition(b" ")
        name = verb.upper().decode("ascii", "replace")
        arg = arg.strip()
        if name in ("EHLO", "HELO"):
            if not arg:
                self.reply(f"501 Syntax: {name} hostname")
                return
            self.greeted = True
            self.reset()
            if name == "HELO":
                self.reply(f"250 {HOSTNAME}")
            else:
                self.reply(f"250-{HOSTNAME}\r\n{EXTENSIONS}")
        elif name == "NOOP":
            self.reply("250 OK")
        elif name == "RSET":
            self.reset()
            self.reply("250 OK")
        elif name == "QUIT":
            self.reply("221 Bye")
            assert self.transport is not None
            self.transport.close()
        elif name == "MAIL":
            self.mail(arg)
        elif name == "RCPT":
            self.rcpt(arg)
        elif name == "DATA":
            if arg:
                self.reply("501 Syntax: DATA")
            elif not self.rcpt_tos:
                self.reply("503 Error: need RCPT command")
            else:
                self.in_data = True
                self.buffer[:0] = b"\r\n"
                self.reply("354 End data with <CR><LF>.<CR><LF>")
        elif name in ("VRFY", "EXPN", "HELP", "STARTTLS", "AUTH"):
            self.reply(f"502 Error: command {name} not implemented")
        else:
            self.reply(f'500 Error: command "{name}" not recognized')

    def mail(self, arg: bytes) -> None:
        match = ADDRESS_RE.match(arg)
        if not self.greeted:
            self.reply("503 Error: send HELO first")
        elif self.mail_from is not None:
            self.reply("503 Error: nested MAIL command")
        elif match is None or match.group(1).upper() != b"FROM":
            self.reply("501 Syntax: MAIL FROM: <address>")
        else:
            self.mail_from = match.group(2).decode("utf-8", "replace")
            self.reply("250 OK")

    def rcpt(self, arg: bytes) -> None:
        match = ADDRESS_RE.match(arg)
        if self.mail_from is None:
            self.reply("503 Error: need MAIL command")
        elif match is None or match.group(1).upper() != b"TO" or not match.group(2):
            self.reply("501 Syntax: RCPT TO: <address>")
        else:
            self.rcpt_tos.append(match.group(2).decode("utf-8", "replace"))
            self.reply("250 OK")


async def serve(sock: socket.socket, on_message: OnMessage) -> asyncio.Server:
    """Serve SMTP on an already listening socket."""
    loop = asyncio.get_running_loop()
    return await loop.create_server(lambda: SinkProtocol(on_message), sock=sock)


# --- what the benchmark's players read from a message --------------------------------------------

HEADER_RE = {
    name: re.compile(rb"^" + name + rb":[ \t]*([^\r\n]*(?:\r\n[ \t][^\r\n]*)*)", re.M | re.I)
    for name in (b"Subject", b"Message-ID")
}
# A link in a 7bit body is found in the raw bytes; a quoted-printable or base64 body (the email
# package's choice, pbem/mail.py) is decoded by the email package first: a soft line break may
# fall inside a token.
TOKEN_RE = [
    re.compile(re.escape(path) + rb"([A-Za-z0-9._-]+)") for path in (b"/invite/", b"/play/")
]


def header(head: bytes, name: bytes) -> str:
    """One header from the header block, unfolded (RFC 2047 words decoded if there are any)."""
    match = HEADER_RE[name].search(head)
    if match is None:
        return ""
    value = " ".join(match.group(1).decode("utf-8", "replace").split())
    if "=?" in value:
        value = " ".join(str(make_header(decode_header(value))).split())
    return value


def plain_text(raw: bytes) -> str:
    """The decoded text/plain part (the slow path, for bodies that are not 7bit)."""
    message = email.message_from_bytes(raw, policy=email.policy.default)
    assert isinstance(message, EmailMessage)
    body = message.get_body(preferencelist=("plain",))
    return "" if body is None else str(body.get_content())


@dataclass(frozen=True)
class Mail:
    """What a player reads from a message: its Message-ID, subject and first links' tokens."""

    message_id: str
    subject: str
    invite: str  # token of the first /invite/ link, or ""
    play: str  # token of the first /play/ link, or ""


def read_mail(raw: bytes) -> Mail:
    """Headers by regex on the header block, tokens by regex on the body (parsed if need be)."""
    split = raw.find(b"\r\n\r\n")
    head, body = (raw, b"") if split < 0 else (raw[:split], raw[split:])
    if b"quoted-printable" in body:
        # binascii's decoder, in C: the email package's parse would cost the players more CPU
        # than the service spends writing the message.
        body = binascii.a2b_qp(body)
    # pbem writes the plain-text part first, 7bit when it is ASCII: its links come before any
    # base64 part (the HTML outside ASCII, the board picture), in whose letters a token could
    # seem to appear. A text part in base64 itself has none there: then it is parsed.
    encoded = body.find(b"base64")
    end = len(body) if encoded < 0 else encoded
    tokens = [regex.search(body, 0, end) for regex in TOKEN_RE]
    if not any(tokens):
        text = plain_text(raw).encode()
        tokens = [regex.search(text) for regex in TOKEN_RE]
    invite, play = (match.group(1).decode() if match else "" for match in tokens)
    return Mail(header(head, b"Message-ID"), header(head, b"Subject"), invite, play)


class Sink:
    """The sink on a fixed loopback port, served by the running loop once `serve` is called.

    The socket listens from construction on, so the SMTP_URL handed to the service is right
    before the loop runs (connections wait in the backlog meanwhile). `start` and `stop` are what
    tests/support/stack.Stack calls on its sink; `pause` and `resume` take the server down and
    bring it back on the same port (the soak's SMTP outage).
    """

    def __init__(self, host: str = "127.0.0.1") -> None:
        self.host = host
        self.sock = self._listen(0)
        self.port = int(self.sock.getsockname()[1])
        self.server: asyncio.Server | None = None
        self.on_message: OnMessage | None = None
        # Open sessions, for `pause` to cut: a client keeping its connection would not notice
        # that the server stopped listening.
        self.sessions: weakref.WeakSet[SinkProtocol] = weakref.WeakSet()

    def _listen(self, port: int) -> socket.socket:
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        # The port again after `pause`, its old connections in TIME_WAIT.
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((self.host, port))
        sock.listen(128)
        return sock

    @property
    def url(self) -> str:
        return f"smtp://{self.host}:{self.port}"

    def start(self) -> Sink:
        return self

    async def serve(self, on_message: OnMessage) -> None:
        self.on_message = on_message
        loop = asyncio.get_running_loop()
        self.server = await loop.create_server(self._session, sock=self.sock)

    def _session(self) -> SinkProtocol:
        assert self.on_message is not None
        session = SinkProtocol(self.on_message)
        self.sessions.add(session)
        return session

    def pause(self) -> None:
        """Down, as a crashed mail server: the port refuses connections and every open session
        is cut (a message whose final "." arrived has been handed on; one still arriving is not,
        and its client never sees a 250)."""
        if self.server is not None:
            self.server.close()
            self.server = None
        self.sock.close()
        for session in list(self.sessions):
            if session.transport is not None:
                session.transport.abort()
        self.sessions.clear()

    async def resume(self) -> None:
        """Up again on the same port, for the same `on_message`."""
        assert self.on_message is not None
        self.sock = self._listen(self.port)
        await self.serve(self.on_message)

    def stop(self) -> None:
        if self.server is not None:
            self.server.close()
            self.server = None
        self.sock.close()
