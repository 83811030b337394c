"""Reading delivery status notifications as Postfix, Exim, Gmail and Microsoft write them: a
permanent failure, a delay, and mail that is no report at all."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from pbem.mailin import dsn
from tests.mailin import dsns
from tests.mailin import messages as m

RETURNED = dsns.Returned("bounce+abcdefghijklmnopqrstuvwxyz234567@pbem.test", "bob@example.org")


@pytest.mark.parametrize(
    ("build", "status", "diagnostic"),
    [
        (
            dsns.postfix,
            "5.1.1",
            "550 5.1.1 <bob@example.org>: Recipient address rejected: User unknown in virtual "
            "mailbox table",
        ),
        (dsns.exim, "5.0.0", "550 5.2.1 This mailbox has been disabled"),
        (
            dsns.gmail,
            "5.1.1",
            "550 5.1.1 The email account that you tried to reach does not exist. Please try "
            "double-checking the recipient's email address for typos or unnecessary spaces. For "
            "more information, go to https://support.google.com/mail/?p=NoSuchUser "
            "a1b2c3d4e5.12 - gsmtp",
        ),
        (
            dsns.microsoft,
            "5.1.10",
            "550 5.1.10 RESOLVER.ADR.RecipientNotFound; Recipient bob@example.org not found by "
            "SMTP address lookup",
        ),
        (
            lambda r: dsns.microsoft(r, "message/global-delivery-status"),
            "5.1.10",
            "550 5.1.10 RESOLVER.ADR.RecipientNotFound; Recipient bob@example.org not found by "
            "SMTP address lookup",
        ),
    ],
    ids=["postfix", "exim", "gmail", "microsoft", "microsoft-global"],
)
def test_a_permanent_failure_is_read_with_its_diagnostic(
    build: Callable[[dsns.Returned], bytes], status: str, diagnostic: str
) -> None:
    report = dsn.read_report(build(RETURNED))
    assert report is not None and report.failed
    assert (report.status, report.recipient, report.diagnostic) == (
        status,
        "bob@example.org",
        diagnostic,
    )


@pytest.mark.parametrize(
    "raw",
    [
        dsns.postfix(
            RETURNED, "delayed", "4.4.1", "smtp; 451 4.4.1 Connection timed out", delivered_to=False
        ),
        dsns.gmail(RETURNED, delayed=True),
        # Given up after days of 4xx: failed, but nothing says the address is wrong.
        dsns.postfix(RETURNED, "failed", "4.4.7", "X-Postfix; delivery temporarily suspended"),
    ],
    ids=["postfix-delayed", "gmail-delayed", "postfix-expired-4xx"],
)
def test_a_delay_or_a_transient_failure_is_no_permanent_one(raw: bytes) -> None:
    report = dsn.read_report(raw)
    assert report is not None and report.verdict == dsn.DELAYED and not report.failed
    assert report.status.startswith("4.")


def test_delivered_is_neither() -> None:
    raw = dsns.postfix(RETURNED, "delivered", "2.0.0", "smtp; 250 2.0.0 Ok: queued")
    report = dsn.read_report(raw)
    assert report is not None and report.verdict == dsn.OTHER and not report.failed


def test_a_failure_among_several_recipients_wins() -> None:
    raw = dsns.postfix(RETURNED).replace(
        b"Final-Recipient: rfc822; bob",
        b"Final-Recipient: rfc822; carol@example.org\r\nAction: delayed\r\nStatus: 4.2.0\r\n"
        b"\r\nFinal-Recipient: rfc822; bob",
    )
    report = dsn.read_report(raw)
    assert report is not None and report.failed and report.recipient == "bob@example.org"


def test_a_failure_without_a_diagnostic_says_its_status() -> None:
    raw = dsns.exim(RETURNED).replace(
        b"Diagnostic-Code: smtp; 550 5.2.1 This mailbox has been disabled\r\n", b""
    )
    report = dsn.read_report(raw)
    assert report is not None and report.failed and report.diagnostic == "delivery status 5.0.0"


@pytest.mark.parametrize(
    "raw",
    [
        m.auto_reply("bob@example.org", m.Original(RETURNED.bounce_to)),
        m.vacation("bob@example.org", m.Original(RETURNED.bounce_to)),
        # An old-style bounce in plain text: nothing in it can be read reliably.
        (
            b"From: MAILER-DAEMON@old.example.org\r\nTo: "
            + RETURNED.bounce_to.encode()
            + b"\r\nSubject: failure notice\r\n\r\nHi. This is the qmail-send program.\r\n"
            b"<bob@example.org>:\r\nSorry, no mailbox here by that name. (#5.1.1)\r\n"
        ),
        # A read receipt is a report, but not of delivery.
        (
            b"From: bob@example.org\r\nTo: pbem@pbem.test\r\nMIME-Version: 1.0\r\n"
            b"Content-Type: multipart/report; report-type=disposition-notification;\r\n"
            b' boundary="b"\r\n\r\n--b\r\nContent-Type: text/plain\r\n\r\nRead.\r\n--b\r\n'
            b"Content-Type: message/disposition-notification\r\n\r\n"
            b"Final-Recipient: rfc822; bob@example.org\r\nDisposition: manual-action/"
            b"MDN-sent-manually; displayed\r\n\r\n--b--\r\n"
        ),
        b"not a message at all",
        b"",
    ],
    ids=["auto-reply", "vacation", "qmail-text", "read-receipt", "garbage", "empty"],
)
def test_mail_that_is_no_delivery_report_is_none(raw: bytes) -> None:
    assert dsn.read_report(raw) is None


def test_the_diagnostic_is_one_bounded_line() -> None:
    noisy = "smtp; 550 5.1.1 " + "\x1b[31mno\x07 " * 400
    report = dsn.read_report(dsns.postfix(RETURNED, diagnostic=noisy))
    assert report is not None and report.failed
    assert report.diagnostic.isprintable() and len(report.diagnostic) <= 500
