"""Sending the outbox: each row claimed, put together from its parts and its picture,
transmitted at most once from its own bounce address, and marked sent; a failed attempt recorded
on its row and scheduled again with backoff, or given up when it cannot pass; an address the
recipient's server refuses for good marked bouncing. A row waiting for its board picture is left
to the picture task until the picture is there or the wait is over."""

from __future__ import annotations

import logging
import math
import smtplib
import time
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import Connection, bindparam, func, select, update
from sqlalchemy.exc import DBAPIError, SQLAlchemyError

from pbem import links, mail
from pbem.config import Settings
from pbem.domain import bounces, letters
from pbem.domain.outbox import write_letters
from pbem.domain.views import GAME_FACTS, GameFacts
from pbem.extensions import db
from pbem.models import FAILED, PENDING, SENT, Game, OutboxMessage, Picture, Player, utcnow
from pbem.ops import metrics
from pbem.pool import lost_connection

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Delivery:
    # sent, retry, failed, skipped, or waiting (for its picture: the picture task sends it, or
    # whoever tries again in `retry_in` seconds, when the wait is over, without it)
    status: str
    retry_in: int | None = None
    # Why the attempt failed, for the log: one line, short.
    error: str | None = field(default=None, compare=False)


# The row with the picture it carries, if that is rendered (pbem.domain.board_pictures): one
# statement for both. board_key is set once the picture's row exists, board_png None if its
# rendering failed.
_OUTBOX_ROW = (
    select(
        *OutboxMessage.__table__.columns,
        Picture.key.label("board_key"),
        Picture.png.label("board_png"),
        Picture.alt.label("board_alt"),
    )
    .select_from(
        OutboxMessage.__table__.outerjoin(Picture.__table__, Picture.key == OutboxMessage.picture)
    )
    .where(OutboxMessage.id == bindparam("outbox_id"))
)
# Another worker holding the row is sending it right now: leave it to them.
_CLAIM_OUTBOX = _OUTBOX_ROW.with_for_update(of=OutboxMessage, skip_locked=True)
# On PostgreSQL the claim also makes the transaction's commit skip the wait for the WAL flush, in
# the same round trip (set_config(..., true) is SET LOCAL): a worker lost between the server's
# 250 and the commit that marks the row sent sends the message again when the task comes back,
# and not waiting for the disk shrinks that window to one round trip. The price is a resend after
# a PostgreSQL crash in that instant: the same duplicate, with the same Message-ID.
_CLAIM_OUTBOX_PG = _CLAIM_OUTBOX.add_columns(
    func.set_config("synchronous_commit", "off", True).label("commit_mode")
)
_UPDATE_OUTBOX = update(OutboxMessage).where(OutboxMessage.id == bindparam("outbox_id"))


def send_outbox(config: Settings, outbox_id: int, now: datetime | None = None) -> Delivery:
    """Transmit one outbox row at most once; on failure, schedule the next attempt with backoff."""
    return send_outboxes(config, [outbox_id], now)[outbox_id]


def send_outboxes(
    config: Settings, outbox_ids: Sequence[int], now: datetime | None = None
) -> dict[int, Delivery]:
    """Transmit outbox rows one after another over one database connection and one SMTP session.

    For each row: 1. claim it (locked, SKIP LOCKED; a row another worker holds, or one no longer
    pending, is skipped; one still waiting for its picture is left alone: "waiting"); 2. put
    the message together from its parts and its picture (`mail.prepare`); 3. transmit it, from
    its own bounce address (VERP); 4. mark it sent and commit right after the server took it, so
    what was sent is recorded at once; or, when the attempt failed, whatever the reason, record
    the failure on that row and go on with the next. Only database errors propagate. An
    invitation that cannot be delivered writes a letter to the game's organiser, and an address
    refused for good is marked bouncing (the letters that writes are sent here too).
    """
    results: dict[int, Delivery] = {}
    todo = list(outbox_ids)
    with db.engine.connect() as conn:
        claim = _CLAIM_OUTBOX_PG if conn.dialect.name == "postgresql" else _CLAIM_OUTBOX
        while todo:
            outbox_id = todo.pop(0)
            outcome, written = _send_one(conn, claim, outbox_id, config, now or utcnow())
            results[outbox_id] = outcome
            todo += written
    return results


def _send_one(
    conn: Connection, claim: Any, outbox_id: int, config: Settings, now: datetime
) -> tuple[Delivery, list[int]]:
    """One row's attempt, and the ids of the letters it wrote (the organiser's notice)."""
    row = conn.execute(claim, {"outbox_id": outbox_id}).one_or_none()
    if row is None or row.status != PENDING:
        conn.rollback()
        return Delivery("skipped"), []
    # With pictures turned off since the row was written it waits for nothing: no picture
    # worker need run any more.
    if config.mail.pictures and waits_for_picture(row, now):
        conn.rollback()
        return Delivery("waiting", math.ceil((row.next_attempt_at - now).total_seconds())), []
    attempts = row.attempts + 1
    try:
        built = mail.prepare(row, config, links.bounce_address(config, row.id))
    except SQLAlchemyError:
        raise
    except Exception as exc:
        return _failed_attempt(conn, config, row, attempts, exc, now)
    sent: dict[str, Any] = {
        "outbox_id": outbox_id,
        "status": SENT,
        "sent_at": now,
        "attempts": attempts,
        "last_error": None,
        "without_picture": _without_picture(row),
    }
    lost: DBAPIError | None = None
    try:
        with mail.delivering(row, config, built):
            # Recorded as soon as the server took the message, before the session is closed.
            try:
                conn.execute(_UPDATE_OUTBOX, sent)
                conn.commit()
            except DBAPIError as exc:
                if not lost_connection(exc):
                    raise
                lost = exc
    except SQLAlchemyError:
        # The caller's to handle (the row stays pending for the sweep); nothing about this row.
        raise
    except Exception as exc:
        # Anything else is this row's own failure: it must not stop the rows after it.
        return _failed_attempt(conn, config, row, attempts, exc, now)
    if lost is not None:
        conn.rollback()
        _record_sent_again(sent, lost)
    metrics.EMAILS_SENT.labels(row.kind).inc()
    if sent["without_picture"]:
        metrics.EMAILS_WITHOUT_PICTURE.labels(row.kind).inc()
    return Delivery("sent"), []


def _without_picture(row: Any) -> bool:
    """Whether the message built for `row` lacks the picture it was to carry (kept on the row
    with each attempt, for the operator)."""
    return row.picture is not None and not mail.carries_board(row)


def waits_for_picture(row: Any, now: datetime) -> bool:
    """Whether the row is still waiting for its board picture: it carries one, was never tried,
    the picture is not rendered yet (no `pictures` row, not even a failure) and its wait
    (`next_attempt_at`, PBEM_PICTURE_TIMEOUT_SECONDS after it was written) is not over."""
    return (
        row.picture is not None
        and row.board_key is None
        and row.attempts == 0
        and now < row.next_attempt_at
    )


# How long a worker keeps trying to record a message the server took while the database was
# away (a restart, a failover), before leaving it pending to be sent again.
RECORD_SENT_PATIENCE_SECONDS = 60.0
_RECORD_SENT_AGAIN = _UPDATE_OUTBOX.where(OutboxMessage.status == PENDING)


def _record_sent_again(sent: dict[str, Any], lost: DBAPIError) -> None:
    """Record a message the server took as sent, on a new connection, once the database is back.

    The database went away between the server's 250 and our commit (a restart ends every
    session, those idle in a transaction too): the row is still pending, and would be sent a
    second time. No other worker sends it meanwhile unless the sweep queues it, which waits
    PBEM_SWEEP_SECONDS past a row's due time: a restart is over well before (a failover that
    takes longer costs a second copy, as before).
    """
    log.warning("outbox %s: sent, but the database went away (%s)", sent["outbox_id"], lost.orig)
    deadline = time.monotonic() + RECORD_SENT_PATIENCE_SECONDS
    delay = 0.1
    while True:
        try:
            with db.engine.connect() as fresh:
                fresh.execute(_RECORD_SENT_AGAIN, sent)
                fresh.commit()
            return
        except DBAPIError as exc:
            if not lost_connection(exc) or time.monotonic() > deadline:
                raise
        time.sleep(delay)
        delay = min(delay * 2, 2.0)


# How much of a failure the row keeps, and how much of it the log and a letter quote.
LAST_ERROR_CHARS = 1000
QUOTED_CHARS = 200


def _failed_attempt(
    conn: Connection,
    config: Settings,
    row: Any,
    attempts: int,
    exc: Exception,
    now: datetime,
) -> tuple[Delivery, list[int]]:
    """Record the failure and the next attempt first, and commit; only then anything else, so
    that nothing after (marking the address bouncing, the organiser's letter) can leave the row
    to be tried again at once."""
    permanent, reason = classify(exc)
    error = _one_line(f"{type(exc).__name__}: {reason}")
    changes: dict[str, Any] = {
        "attempts": attempts,
        "last_error": error[:LAST_ERROR_CHARS],
        "without_picture": _without_picture(row),
    }
    if permanent or attempts >= config.mail_max_attempts:
        changes["status"] = FAILED
        delivery = Delivery("failed", error=error[:QUOTED_CHARS])
    else:
        delay = min(config.mail_retry_seconds * 2 ** (attempts - 1), 3600)
        changes["next_attempt_at"] = now + timedelta(seconds=delay)
        delivery = Delivery("retry", delay, error=error[:QUOTED_CHARS])
    conn.execute(_UPDATE_OUTBOX, {"outbox_id": row.id, **changes})
    conn.commit()
    counter = metrics.EMAILS_FAILED if delivery.status == "failed" else metrics.EMAILS_DEFERRED
    counter.labels(row.kind).inc()
    written: list[int] = []
    if permanent and refuses_recipient(exc):
        written += _mark_bouncing(conn, config, row, reason)
    if delivery.status != "failed" or row.kind != "invite" or row.game_id is None:
        return delivery, written
    if not permanent:
        reason = f"no mail server took it after {attempts} tries (the last answer: {reason})"
    try:
        return delivery, written + _tell_organiser(conn, config, row, reason)
    except SQLAlchemyError:
        raise
    except Exception:
        # The failure is recorded; a letter that cannot be written is not worth a loop.
        conn.rollback()
        log.exception("outbox %s: could not tell the organiser", row.id)
        return delivery, written


def refuses_recipient(exc: BaseException) -> bool:
    """Whether the recipient's server refused the address itself for good: 5xx to RCPT, or 5xx
    to DATA with an enhanced status about the mailbox (5.1.x, RFC 3463: no such user or
    domain). A 5xx about the content (5.7.x, a spam verdict) says nothing about the address."""
    if isinstance(exc, smtplib.SMTPRecipientsRefused):
        answers = list(exc.recipients.values())
        return bool(answers) and all(code >= 500 for code, _ in answers)
    if isinstance(exc, smtplib.SMTPDataError) and exc.smtp_code >= 500:
        text = exc.smtp_error
        if isinstance(text, bytes):
            text = text.decode("utf-8", "replace")
        return text.lstrip().startswith("5.1.")
    return False


def _mark_bouncing(conn: Connection, config: Settings, row: Any, reason: str) -> list[int]:
    """Mark the address bouncing (pbem.domain.bounces): nothing more is written to it, and the
    organisers of its games are told, but for an invitation, whose organiser `_tell_organiser`
    tells. The ids of the letters written, to send in the same loop."""
    try:
        written = bounces.mark_bouncing(conn, config, row.id, reason, notify=row.kind != "invite")
        conn.commit()
    except SQLAlchemyError:
        raise
    except Exception:
        # The failure is recorded; a bounce that cannot be recorded is not worth a loop.
        conn.rollback()
        log.exception("outbox %s: could not mark the address bouncing", row.id)
        return []
    return list(written)


def classify(exc: BaseException) -> tuple[bool, str]:
    """Whether a failed attempt is permanent (this message will never pass), and why, in words
    an organiser can read.

    Permanent: the message cannot be written (Undeliverable, or a ValueError such as a
    UnicodeError) or this server cannot take it, or the server answered 5xx about this message
    (to its recipient or its content). Anything else may pass later: 4xx, a refused connection,
    a timeout, 5xx answers about every message (login, our sender address), which a fix of the
    settings cures, and errors nobody expected, which a fix of the code cures.
    """
    if isinstance(exc, mail.Undeliverable):
        return True, str(exc)
    if isinstance(exc, smtplib.SMTPRecipientsRefused):
        answers = list(exc.recipients.values())
        permanent = bool(answers) and all(code >= 500 for code, _ in answers)
        quoted = "; ".join(_answer(code, text) for code, text in answers)
        return permanent, f"their mail server refused the address: {quoted}"
    if isinstance(exc, smtplib.SMTPDataError):
        answer = _answer(exc.smtp_code, exc.smtp_error)
        return exc.smtp_code >= 500, f"the mail server refused the message: {answer}"
    if isinstance(exc, smtplib.SMTPNotSupportedError):
        return True, f"the mail server cannot take this message: {exc}"
    if isinstance(exc, smtplib.SMTPResponseException):
        return False, f"the mail server answered {_answer(exc.smtp_code, exc.smtp_error)}"
    if isinstance(exc, (OSError, smtplib.SMTPException)):
        return False, f"the mail server could not be reached ({exc or type(exc).__name__})"
    if isinstance(exc, (ValueError, TypeError, LookupError)):
        # UnicodeError among them: the row holds what no encoding of a message can carry.
        return True, f"the message could not be written ({type(exc).__name__}: {exc})"
    return False, f"pbem could not send it ({type(exc).__name__}: {exc})"


def _shown(address: str) -> str:
    """The address with any hidden character spelt out, so the letter cannot be garbled by it."""
    return "".join(
        f"<U+{ord(c):04X}>" if unicodedata.category(c) in mail.HIDDEN_CATEGORIES else c
        for c in address
    )


def _answer(code: int, text: bytes | str) -> str:
    if isinstance(text, bytes):
        text = text.decode("utf-8", "replace")
    return _one_line(f"{code} {text}")[:QUOTED_CHARS]


def _one_line(text: str) -> str:
    return " ".join(text.split())


_ORGANISER = (
    select(
        *GAME_FACTS,
        Player.id.label("player_id"),
        Player.email,
        Player.nonce,
    )
    .join(Player, Player.id == Game.organiser_id)
    .where(Game.id == bindparam("game_id"))
)


def _tell_organiser(conn: Connection, config: Settings, row: Any, reason: str) -> list[int]:
    """Write the organiser a letter: the invitation to `row.to` could not be delivered.

    Never about the organiser's own address (their letter would fail the same way), and once
    per row: only the attempt that turns the row failed gets here, and a row fails once.
    """
    found = conn.execute(_ORGANISER, {"game_id": row.game_id}).one_or_none()
    if found is None or found.email == row.to:
        conn.rollback()
        return []
    game = GameFacts.of(found)
    letter = letters.undeliverable(
        config, game, found.player_id, found.email, found.nonce, _shown(row.to), reason
    )
    written = write_letters(conn, config, [letter])
    conn.commit()
    return written
