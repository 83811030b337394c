"""Reading a delivery status notification (RFC 3464): did the message fail for good?

A DSN is a `multipart/report; report-type=delivery-status` whose `message/delivery-status` part
holds a block of fields about the message, then one block per recipient: `Action` (failed,
delayed, delivered, relayed, expanded), `Status` (an RFC 3463 code: 5.x.x permanent, 4.x.x
transient, 2.x.x success) and often `Diagnostic-Code` (the remote server's answer). Postfix,
Exim, Gmail and Microsoft all write them so. `message/global-delivery-status` (RFC 6533, UTF-8)
is read the same way.

Anything else (a bounce written as plain text, an auto-reply) is no report: `read_report` gives
None, and the mail is dropped unanswered, since nothing in it can be trusted to say which
address failed.
"""

from __future__ import annotations

import base64
import email
import email.policy
import quopri
import re
from dataclasses import dataclass
from email.message import Message
from email.parser import HeaderParser

from pbem.mailin.parse import MAX_BYTES

FAILED = "failed"  # permanently: mark the address
DELAYED = "delayed"  # still being tried, or a transient failure: record nothing
OTHER = "other"  # delivered, relayed, expanded: nothing to do

REPORT_TYPES = ("message/delivery-status", "message/global-delivery-status")
_MAX_PARTS = 32  # parts looked at: a report has three
_MAX_BLOCKS = 16  # recipient blocks read (pbem sends each message to one)
_DIAGNOSTIC_CHARS = 500
_STATUS = re.compile(r"^\s*([245])\.(\d{1,3})\.(\d{1,3})\b")


@dataclass(frozen=True)
class Report:
    verdict: str  # FAILED, DELAYED or OTHER
    status: str  # the RFC 3463 code, "5.1.1"; "" when the report gave none
    recipient: str  # Final-Recipient's address, "" when missing
    diagnostic: str  # the remote server's answer, or the status in words, one line

    @property
    def failed(self) -> bool:
        return self.verdict == FAILED


def read_report(raw: bytes) -> Report | None:
    """The verdict of a delivery status notification; None when `raw` is not one (or cannot
    be read). Of several recipient blocks, a permanent failure wins, then a delay."""
    try:
        message = email.message_from_bytes(raw[:MAX_BYTES], policy=email.policy.default)
        blocks = _recipient_blocks(message)
    except Exception:
        return None
    if blocks is None:
        return None
    reports = [_report(block) for block in blocks[:_MAX_BLOCKS]]
    for verdict in (FAILED, DELAYED, OTHER):
        for report in reports:
            if report.verdict == verdict:
                return report
    return None


def _recipient_blocks(message: Message) -> list[Message] | None:
    """The per-recipient blocks of the report part; None when there is no report part."""
    if message.get_content_type() != "multipart/report":
        return None
    for count, part in enumerate(message.walk()):
        if count >= _MAX_PARTS:
            return None
        if part.get_content_type() not in REPORT_TYPES:
            continue
        encoding = str(part.get("Content-Transfer-Encoding", "")).strip().lower()
        payload = part.get_payload()
        if part.get_content_type() == REPORT_TYPES[0] and encoding not in _ENCODED:
            # The email package parses message/delivery-status into its blocks already.
            blocks = [block for block in payload if isinstance(block, Message)]
        else:
            blocks = _parse_blocks(_text(payload, encoding))
        # The first block is about the message; each later one is about a recipient.
        return [block for block in blocks[1:] if block.get("Action") or block.get("Status")]
    return None


_ENCODED = ("base64", "quoted-printable")


def _text(payload: object, encoding: str) -> str:
    """The report's text, decoded. The email package reads any message/* part as messages;
    when that part was encoded (or is message/global-delivery-status, which it does not know),
    what it read is written back out and decoded here."""
    if isinstance(payload, list):
        text = "".join(
            item.as_string() if isinstance(item, Message) else str(item) for item in payload
        )
    else:
        text = str(payload)
    if encoding == "base64":
        return base64.b64decode(re.sub(r"[^A-Za-z0-9+/=]", "", text)).decode("utf-8", "replace")
    if encoding == "quoted-printable":
        return quopri.decodestring(text.encode("utf-8", "replace")).decode("utf-8", "replace")
    return text


def _parse_blocks(text: str) -> list[Message]:
    """Blocks of header fields separated by blank lines (as RFC 3464 lays them out)."""
    parser = HeaderParser(policy=email.policy.default)
    chunks = re.split(r"\r?\n[ \t]*\r?\n", text.strip())
    return [parser.parsestr(chunk.strip("\r\n") + "\n") for chunk in chunks if chunk.strip()]


def _field(block: Message, name: str) -> str:
    value = block.get(name)
    return "" if value is None else " ".join(str(value).split())


def _typed(value: str) -> str:
    """A typed field's value without its type: "smtp; 550 …" → "550 …"."""
    kind, sep, rest = value.partition(";")
    return rest.strip() if sep and re.fullmatch(r"\s*[\w-]+\s*", kind) else value.strip()


_REPLY_CODE = re.compile(r"^(\d{3})[- ](?:(\d\.\d{1,3}\.\d{1,3})\s+)?")


def _joined(answer: str) -> str:
    """A multi-line SMTP answer as one ("550-5.1.1 The account … 550-5.1.1 double-checking
    …" → "550 5.1.1 The account … double-checking …"): its code repeated on every line."""
    first = _REPLY_CODE.match(answer)
    if first is None:
        return answer
    code, enhanced = first.group(1), first.group(2) or ""
    again = re.escape(code) + r"[- ]" + (re.escape(enhanced) + r"\s+" if enhanced else "")
    rest = re.sub(r"\s" + again, " ", answer[first.end() :])
    return " ".join(f"{code} {enhanced} {rest}".split())


def _report(block: Message) -> Report:
    action = _field(block, "Action").lower()
    found = _STATUS.match(_field(block, "Status"))
    status = ".".join(found.groups()) if found else ""
    recipient = _typed(_field(block, "Final-Recipient") or _field(block, "Original-Recipient"))
    diagnostic = _joined(_typed(_field(block, "Diagnostic-Code")))
    if not diagnostic:
        diagnostic = f"delivery status {status}" if status else "the delivery failed"
    diagnostic = "".join(c if c.isprintable() else " " for c in diagnostic)[:_DIAGNOSTIC_CHARS]
    if action == FAILED and status.startswith("5"):
        verdict = FAILED
    elif action in (FAILED, DELAYED) or status.startswith("4"):
        verdict = DELAYED
    else:
        verdict = OTHER
    return Report(verdict, status, recipient, diagnostic)
