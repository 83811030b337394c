"""The embedded default's way in for replies: an SMTP server (aiosmtpd) on loopback, started by
`pbem serve --mail-in-port N`. A mail server in front relays the `play+…@` addresses (replies)
and the `bounce+…@` ones (delivery reports, `pbem.mailin.dsn`) to it;
deployed, an MTA's pipe to `pbem mail-in` does the same job without a listening process.

Each message is handled in a worker thread inside the app's context (the database is blocking
I/O). The SMTP answer is what the MTA needs: 250 once handled or ignored (never answered by a
bounce), 451 while the database cannot be reached (the MTA tries again later), 554 for a bug.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from aiosmtpd.controller import Controller
from aiosmtpd.smtp import SMTP, Envelope, Session
from sqlalchemy.exc import InterfaceError, OperationalError

from pbem import links
from pbem.mailin import tokens
from pbem.mailin.handle import Outcome, handle_message

log = logging.getLogger(__name__)

HOST = "127.0.0.1"
# Above this the client gets 552; below it, `parse.MAX_BYTES` decides (a too large reply is
# answered as such).
DATA_SIZE_LIMIT = 4 * 1024 * 1024


class ReplyHandler:
    """aiosmtpd's handler: takes the reply and bounce addresses only, and hands each message
    over."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def handle_RCPT(
        self,
        server: SMTP,
        session: Session,
        envelope: Envelope,
        address: str,
        rcpt_options: list[str],
    ) -> str:
        if tokens.ADDRESS_RE.search(address) is None and tokens.BOUNCE_RE.search(address) is None:
            return "550 5.1.1 Not a pbem reply or bounce address"
        envelope.rcpt_tos.append(address)
        return "250 OK"

    async def handle_DATA(self, server: SMTP, session: Session, envelope: Envelope) -> str:
        content = envelope.original_content or envelope.content or b""
        raw = content if isinstance(content, bytes) else content.encode()
        sender = envelope.mail_from or ""
        recipients = [str(r) for r in envelope.rcpt_tos]
        loop = asyncio.get_running_loop()
        try:
            await loop.run_in_executor(None, self.handle, raw, recipients, sender)
        except (OperationalError, InterfaceError):
            log.warning("mail-in: the database is unreachable; the client will retry")
            return "451 4.3.0 pbem cannot reach its database; try again later"
        except Exception:
            # A bug, not an outage: the client returns the message to its sender.
            log.exception("mail-in: a reply could not be handled")
            return "554 5.3.0 pbem could not handle this message because of an error on its side"
        return "250 OK"

    def handle(self, raw: bytes, recipients: list[str], sender: str) -> Outcome:
        with self.app.app_context():
            return handle_message(self.app.config["PBEM"], raw, recipients, sender)


def start_mail_in(app: Any, port: int, host: str = HOST) -> Controller:
    """Start the listener in its own thread; `stop()` the returned controller to end it."""
    config = app.config["PBEM"]
    controller = Controller(
        ReplyHandler(app),
        hostname=host,
        port=port,
        ready_timeout=30,
        server_hostname=links.reply_domain(config),
        data_size_limit=DATA_SIZE_LIMIT,
        enable_SMTPUTF8=True,
    )
    controller.start()
    return controller
