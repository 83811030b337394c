"""A real SMTP server on loopback (aiosmtpd) that records every message it accepts."""

from __future__ import annotations

import asyncio
import email
import email.policy
import re
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from email.message import EmailMessage
from functools import cached_property
from typing import Any

from aiosmtpd.controller import Controller
from aiosmtpd.smtp import SMTP, Envelope, Session

from tests.support.procs import LOOPBACK, free_port, port_open, wait_until

LINK_RE = re.compile(r"https?://[^\s\"'<>]+")


@dataclass
class Received:
    """One accepted message: the envelope, the parsed message and when the sink accepted it."""

    mail_from: str
    rcpt_tos: list[str]
    raw: bytes
    accepted_at: float
    # The MAIL FROM parameters the client gave, upper-cased (e.g. SMTPUTF8).
    mail_options: list[str] = field(default_factory=list)

    @cached_property
    def message(self) -> EmailMessage:
        # Parsed on first use: the benchmark's sink only looks at headers.
        parsed = email.message_from_bytes(self.raw, policy=email.policy.default)
        assert isinstance(parsed, EmailMessage)
        return parsed

    def __getitem__(self, header: str) -> str:
        value = self.message[header]
        return "" if value is None else str(value)

    @property
    def message_id(self) -> str:
        return self["Message-ID"].strip()

    @property
    def subject(self) -> str:
        return self["Subject"]

    @property
    def to(self) -> str:
        return self["To"]

    @property
    def text(self) -> str:
        part = self.message.get_body(preferencelist=("plain",))
        return "" if part is None else str(part.get_content())

    @property
    def html(self) -> str:
        part = self.message.get_body(preferencelist=("html",))
        return "" if part is None else str(part.get_content())

    def links(self) -> list[str]:
        """Every URL in the plain-text part, in order."""
        return [link.rstrip(".,;)") for link in LINK_RE.findall(self.text)]

    def link(self, path_part: str) -> str | None:
        """The first link whose URL contains `path_part` (e.g. "/play/"), or None."""
        return next((link for link in self.links() if path_part in link), None)

    def recipients(self) -> set[str]:
        return {r.lower() for r in self.rcpt_tos}


class Gate:
    """Holds one SMTP stage for matching recipients until released.

    RCPT: the client is stuck before it could send the message. AFTER_DATA: the message has been
    accepted (250 sent) and the client's next command on that connection (QUIT, RSET, NOOP or
    the next MAIL) waits for an answer. Tests kill a worker while it is held.

    An AFTER_DATA gate holds only messages accepted after it was set: a sender that keeps its
    session open would otherwise be held at the MAIL of its next message for one sent before.
    """

    def __init__(self, stage: str, recipient: str, reply: str | None = None) -> None:
        assert stage in ("RCPT", "AFTER_DATA")
        self.stage = stage
        self.recipient = recipient.lower()
        self.reply = reply  # None: the usual answer once released
        self.reached = threading.Event()
        self.released = threading.Event()
        self.set_at = time.monotonic()

    def matches(self, recipients: list[str]) -> bool:
        return any(self.recipient == r.lower() for r in recipients)

    async def hold(self) -> None:
        self.reached.set()
        while not self.released.is_set():
            await asyncio.sleep(0.02)

    def release(self) -> None:
        self.released.set()


class _Handler:
    def __init__(self, sink: SmtpSink) -> None:
        self.sink = sink
        # What each connection last delivered and when, so QUIT knows whose message it ends.
        self.last_rcpts: dict[int, tuple[list[str], float]] = {}

    async def handle_RCPT(
        self,
        server: SMTP,
        session: Session,
        envelope: Envelope,
        address: str,
        rcpt_options: list[str],
    ) -> str:
        for gate in self.sink.gates_for("RCPT", [address]):
            await gate.hold()
        refusal = self.sink.refusal(address)
        if refusal is not None:
            return refusal
        envelope.rcpt_tos.append(address)
        envelope.rcpt_options.extend(rcpt_options)
        return "250 OK"

    async def _after_data(self, session: Session, reply: str) -> str:
        rcpts, accepted_at = self.last_rcpts.pop(id(session), ([], 0.0))
        for gate in self.sink.gates_for("AFTER_DATA", rcpts, accepted_since=accepted_at):
            await gate.hold()
            reply = gate.reply or reply
        return reply

    async def handle_QUIT(self, server: SMTP, session: Session, envelope: Envelope) -> str:
        return await self._after_data(session, "221 Bye")

    async def handle_NOOP(
        self, server: SMTP, session: Session, envelope: Envelope, arg: str
    ) -> str:
        return await self._after_data(session, "250 OK")

    async def handle_RSET(self, server: SMTP, session: Session, envelope: Envelope) -> str:
        return await self._after_data(session, "250 OK")

    async def handle_MAIL(
        self,
        server: SMTP,
        session: Session,
        envelope: Envelope,
        address: str,
        mail_options: list[str],
    ) -> str:
        reply = await self._after_data(session, "250 OK")
        envelope.mail_from = address
        envelope.mail_options.extend(mail_options)
        return reply

    async def handle_DATA(self, server: SMTP, session: Session, envelope: Envelope) -> str:
        self.last_rcpts[id(session)] = ([str(r) for r in envelope.rcpt_tos], time.monotonic())
        content = envelope.original_content or envelope.content
        raw = content if isinstance(content, bytes) else str(content).encode()
        self.sink._record(
            Received(
                mail_from=str(envelope.mail_from),
                rcpt_tos=[str(r) for r in envelope.rcpt_tos],
                raw=raw,
                accepted_at=time.time(),
                mail_options=[str(o).upper() for o in envelope.mail_options],
            )
        )
        return "250 OK"


class SmtpSink:
    """aiosmtpd in this process on a fixed free port; `stop()` makes SMTP refuse connections.

    The port survives stop/start so the SMTP_URL handed to workers stays right.
    """

    def __init__(self, port: int | None = None, smtputf8: bool = True) -> None:
        self.port = port or free_port()
        # Whether EHLO offers SMTPUTF8 (RFC 6531); read at start().
        self.smtputf8 = smtputf8
        self.refusals: dict[str, str] = {}
        self._messages: list[Received] = []
        self._lock = threading.Condition()
        self._controller: Controller | None = None
        self.listeners: list[Callable[[Received], Any]] = []
        self.gates: list[Gate] = []

    @property
    def url(self) -> str:
        return f"smtp://{LOOPBACK}:{self.port}"

    @property
    def running(self) -> bool:
        return self._controller is not None

    def start(self) -> SmtpSink:
        if self._controller is None:
            controller = Controller(
                _Handler(self),
                hostname=LOOPBACK,
                port=self.port,
                ready_timeout=30,
                server_hostname="sink.pbem.test",
                enable_SMTPUTF8=self.smtputf8,
            )
            controller.start()
            self._controller = controller
        return self

    def stop(self) -> None:
        for gate in list(self.gates):
            gate.release()
        if self._controller is not None:
            self._controller.stop()
            self._controller = None
            wait_until(lambda: not port_open(self.port), timeout=30, message="SMTP port to close")

    def gate(self, stage: str, recipient: str, reply: str | None = None) -> Gate:
        """Hold `stage` of every delivery to `recipient` until the gate is released."""
        gate = Gate(stage, recipient, reply)
        with self._lock:
            self.gates.append(gate)
        return gate

    def remove_gate(self, gate: Gate) -> None:
        gate.release()
        with self._lock:
            if gate in self.gates:
                self.gates.remove(gate)

    def refuse(self, recipient: str, reply: str = "550 5.1.1 No such user here") -> None:
        """Answer RCPT TO for `recipient` with `reply` (a 4xx or 5xx line) from now on."""
        with self._lock:
            self.refusals[recipient.lower()] = reply

    def refusal(self, recipient: str) -> str | None:
        with self._lock:
            return self.refusals.get(recipient.lower())

    def gates_for(
        self, stage: str, recipients: list[str], accepted_since: float | None = None
    ) -> list[Gate]:
        """The gates on `stage` for these recipients (set before `accepted_since`, if given)."""
        with self._lock:
            return [
                g
                for g in self.gates
                if g.stage == stage
                and g.matches(recipients)
                and (accepted_since is None or g.set_at <= accepted_since)
            ]

    def _record(self, received: Received) -> None:
        with self._lock:
            self._messages.append(received)
            self._lock.notify_all()
        for listener in list(self.listeners):
            listener(received)

    # Reading what arrived

    @property
    def messages(self) -> list[Received]:
        with self._lock:
            return list(self._messages)

    def clear(self) -> None:
        with self._lock:
            self._messages.clear()

    def to(self, address: str) -> list[Received]:
        address = address.lower()
        return [m for m in self.messages if address in m.recipients()]

    def matching(self, predicate: Callable[[Received], bool]) -> list[Received]:
        return [m for m in self.messages if predicate(m)]

    def wait_for(
        self,
        predicate: Callable[[Received], bool],
        count: int = 1,
        timeout: float = 90.0,
        what: str = "a message",
    ) -> list[Received]:
        """Block until at least `count` received messages satisfy `predicate`; return them."""

        def found() -> list[Received] | None:
            hits = self.matching(predicate)
            return hits if len(hits) >= count else None

        return wait_until(
            found,
            timeout=timeout,
            message=lambda: f"{what} at the SMTP sink; it holds {self.summary()}",
        )

    def summary(self) -> str:
        msgs = self.messages
        lines = [f"{len(msgs)} message(s)"]
        lines += [f"  to {m.to!r}: {m.subject!r} {m.message_id}" for m in msgs[-20:]]
        return "\n".join(lines)

    def __enter__(self) -> SmtpSink:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
