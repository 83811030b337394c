"""Delivery status notifications (RFC 3464) as the common mail servers write them, byte for byte
in their shape: the headers they set, the human-readable part, the `message/delivery-status`
part with its per-message and per-recipient blocks, and the returned message (whole, or its
headers only). Each builder takes the message that failed (`Returned`) and where the report
goes (`bounce_to`: the message's envelope sender, pbem's `bounce+<token>@` address)."""

from __future__ import annotations

import base64
from dataclasses import dataclass

DATE = "Tue, 1 Dec 2026 15:10:25 +0100"


@dataclass(frozen=True)
class Returned:
    """The message that failed, as the reporting server read it."""

    bounce_to: str  # its envelope sender
    to: str  # its recipient
    subject: str = "[pbem] Countdown game: your turn (move 2)"
    message_id: str = "<g.abc123@pbem.test>"
    text: str = "Hello,\n\nIt is your turn in Countdown.\n"

    def headers(self) -> str:
        return (
            f"Return-Path: <{self.bounce_to}>\n"
            "Received: from pbem.test (mail.pbem.test [203.0.113.1])\n"
            "\tby mx.example.net (Postfix) with ESMTPS id 3F1A2C0E4B\n"
            f"\tfor <{self.to}>; {DATE}\n"
            "From: pbem <pbem@pbem.test>\n"
            f"To: {self.to}\n"
            f"Subject: {self.subject}\n"
            f"Date: {DATE}\n"
            f"Message-ID: {self.message_id}\n"
            "Auto-Submitted: auto-generated\n"
            "MIME-Version: 1.0\n"
            "Content-Type: text/plain; charset=utf-8\n"
        )

    def whole(self) -> str:
        return self.headers() + "\n" + self.text


def _crlf(text: str) -> bytes:
    return text.replace("\r\n", "\n").replace("\n", "\r\n").encode("utf-8")


# --- Postfix -------------------------------------------------------------------------------------


def postfix(
    returned: Returned,
    action: str = "failed",
    status: str = "5.1.1",
    diagnostic: str = "smtp; 550 5.1.1 <{to}>: Recipient address rejected: User unknown in\n"
    "    virtual mailbox table",
    delivered_to: bool = True,
) -> bytes:
    """Postfix's bounce(8): "Undelivered Mail Returned to Sender" (or "Delayed Mail (still
    being retried)"), the undelivered message's headers returned (text/rfc822-headers), and
    Delivered-To added by the receiving Postfix's pipe (flag D)."""
    boundary = "3F1A2C0E4B.1764598225/mx.example.net"
    delayed = action == "delayed"
    subject = (
        "Delayed Mail (still being retried)" if delayed else "Undelivered Mail Returned to Sender"
    )
    said = diagnostic.format(to=returned.to).split(";", 1)[1].strip()
    notice = (
        "This is the mail system at host mx.example.net.\n\n"
        + (
            "####################################################################\n"
            "# THIS IS A WARNING ONLY.  YOU DO NOT NEED TO RESEND YOUR MESSAGE. #\n"
            "####################################################################\n\n"
            "Your message could not be delivered for more than 4 hour(s).\n"
            "It will be retried until it is 5 day(s) old.\n"
            if delayed
            else "I'm sorry to have to inform you that your message could not\n"
            "be delivered to one or more recipients. It's attached below.\n"
        )
        + "\nFor further assistance, please send mail to postmaster.\n\n"
        "If you do so, please include this problem report. You can\n"
        "delete your own text from the attached returned message.\n\n"
        "                   The mail system\n\n"
        f"<{returned.to}>: host mx.example.org[198.51.100.7] said: {said}\n"
        "    (in reply to RCPT TO command)\n"
    )
    retry = "Will-Retry-Until: Sun,  6 Dec 2026 15:10:22 +0100 (CET)\n" if delayed else ""
    return _crlf(
        (f"Delivered-To: {returned.bounce_to}\n" if delivered_to else "") + "Return-Path: <>\n"
        "Received: by mx.example.net (Postfix)\n"
        f"\tid 6D27A1C0E4C; {DATE} (CET)\n"
        f"Date: {DATE} (CET)\n"
        "From: MAILER-DAEMON@mx.example.net (Mail Delivery System)\n"
        f"Subject: {subject}\n"
        f"To: {returned.bounce_to}\n"
        "Auto-Submitted: auto-replied\n"
        "MIME-Version: 1.0\n"
        "Content-Type: multipart/report; report-type=delivery-status;\n"
        f'\tboundary="{boundary}"\n'
        "Content-Transfer-Encoding: 8bit\n"
        "Message-Id: <20261201141025.6D27A1C0E4C@mx.example.net>\n"
        "\n"
        "This is a MIME-encapsulated message.\n"
        "\n"
        f"--{boundary}\n"
        "Content-Description: Notification\n"
        "Content-Type: text/plain; charset=utf-8\n"
        "Content-Transfer-Encoding: 8bit\n"
        "\n"
        f"{notice}\n"
        f"--{boundary}\n"
        "Content-Description: Delivery report\n"
        "Content-Type: message/delivery-status\n"
        "\n"
        "Reporting-MTA: dns; mx.example.net\n"
        "X-Postfix-Queue-ID: 3F1A2C0E4B\n"
        f"X-Postfix-Sender: rfc822; {returned.bounce_to}\n"
        "Arrival-Date: Tue,  1 Dec 2026 11:10:22 +0100 (CET)\n"
        "\n"
        f"Final-Recipient: rfc822; {returned.to}\n"
        f"Original-Recipient: rfc822;{returned.to}\n"
        f"Action: {action}\n"
        f"Status: {status}\n"
        "Remote-MTA: dns; mx.example.org\n"
        f"Diagnostic-Code: {diagnostic.format(to=returned.to)}\n"
        f"{retry}"
        "\n"
        f"--{boundary}\n"
        f"Content-Description: {'Delayed' if delayed else 'Undelivered'} Message Headers\n"
        "Content-Type: text/rfc822-headers\n"
        "Content-Transfer-Encoding: 8bit\n"
        "\n"
        f"{returned.headers()}\n"
        f"--{boundary}--\n"
    )


# --- Exim ----------------------------------------------------------------------------------------


def exim(returned: Returned) -> bytes:
    """Exim 4.9x: "Mail delivery failed: returning message to sender", X-Failed-Recipients, a
    report whose blocks put Action first and say Status 5.0.0, and the whole message returned
    (message/rfc822). No Delivered-To: the report reaches pbem by the envelope only."""
    boundary = "1764598225-eximdsn-1804289383"
    return _crlf(
        "Return-path: <>\n"
        "Received: from Debian-exim by mail.example.com with local (Exim 4.96)\n"
        "\tid 1tRxyz-000ABC-2B\n"
        f"\tfor {returned.bounce_to};\n"
        f"\t{DATE}\n"
        f"X-Failed-Recipients: {returned.to}\n"
        "Auto-Submitted: auto-replied\n"
        "From: Mail Delivery System <Mailer-Daemon@mail.example.com>\n"
        f"To: {returned.bounce_to}\n"
        "Content-Type: multipart/report; report-type=delivery-status; "
        f"boundary={boundary}\n"
        "MIME-Version: 1.0\n"
        "Subject: Mail delivery failed: returning message to sender\n"
        "Message-Id: <E1tRxyz-000ABC-2B@mail.example.com>\n"
        f"Date: {DATE}\n"
        "\n"
        f"--{boundary}\n"
        "Content-type: text/plain; charset=us-ascii\n"
        "\n"
        "This message was created automatically by mail delivery software.\n"
        "\n"
        "A message that you sent could not be delivered to one or more of its\n"
        "recipients. This is a permanent error. The following address(es) failed:\n"
        "\n"
        f"  {returned.to}\n"
        "    host mx.example.com [198.51.100.7]\n"
        f"    SMTP error from remote mail server after RCPT TO:<{returned.to}>:\n"
        "    550 5.2.1 This mailbox has been disabled\n"
        "\n"
        f"--{boundary}\n"
        "Content-type: message/delivery-status\n"
        "\n"
        "Reporting-MTA: dns; mail.example.com\n"
        "\n"
        "Action: failed\n"
        f"Final-Recipient: rfc822;{returned.to}\n"
        "Status: 5.0.0\n"
        "Remote-MTA: dns; mx.example.com\n"
        "Diagnostic-Code: smtp; 550 5.2.1 This mailbox has been disabled\n"
        "\n"
        f"--{boundary}\n"
        "Content-type: message/rfc822\n"
        "\n"
        f"{returned.whole()}\n"
        f"--{boundary}--\n"
    )


# --- Gmail ---------------------------------------------------------------------------------------


def gmail(returned: Returned, delayed: bool = False) -> bytes:
    """Gmail's mailer-daemon (pbem relaying through Google): "Delivery Status Notification
    (Failure)", the human part a multipart/related of text, HTML and an icon, a multi-line
    Diagnostic-Code, the whole message returned."""
    outer, related, alternative = (
        "000000000000a1b2c3d4e5f6",
        "000000000000b7c8d9e0f1a2",
        "000000000000b7c8d9e0f1a3",
    )
    kind = "Delay" if delayed else "Failure"
    words = (
        "Message not delivered\n\nThere was a temporary problem delivering your message to "
        f"{returned.to}. Gmail will retry for 46 more hours. You'll be notified if the delivery "
        "fails permanently.\n"
        if delayed
        else f"** Address not found **\n\nYour message wasn't delivered to {returned.to} because "
        "the address couldn't be found, or is unable to receive mail.\n\nLearn more here: "
        "https://support.google.com/mail/?p=NoSuchUser\n\nThe response was:\n\nThe email "
        "account that you tried to reach does not exist.\n"
    )
    block = (
        (
            f"Final-Recipient: rfc822; {returned.to}\n"
            "Action: delayed\n"
            "Status: 4.4.1\n"
            "Diagnostic-Code: smtp; The recipient server did not accept our requests to connect.\n"
            "Will-Retry-Until: Thu, 03 Dec 2026 06:10:23 -0800 (PST)\n"
        )
        if delayed
        else (
            f"Final-Recipient: rfc822; {returned.to}\n"
            "Action: failed\n"
            "Status: 5.1.1\n"
            "Remote-MTA: dns; gmail-smtp-in.l.google.com. (2a00:1450:400c:c0c::1b, the server\n"
            " for the domain gmail.com.)\n"
            "Diagnostic-Code: smtp; 550-5.1.1 The email account that you tried to reach does\n"
            " not exist. Please try\n"
            " 550-5.1.1 double-checking the recipient's email address for typos or\n"
            " 550-5.1.1 unnecessary spaces. For more information, go to\n"
            " 550 5.1.1  https://support.google.com/mail/?p=NoSuchUser a1b2c3d4e5.12 - gsmtp\n"
        )
    )
    icon = base64.b64encode(b"\x89PNG\r\n\x1a\n" + bytes(40)).decode()
    return _crlf(
        f"Delivered-To: {returned.bounce_to}\n"
        "Received: by 2002:a05:6402:1234:b0:5c8:1111:2222 with SMTP id abc;\n"
        f"        {DATE}\n"
        f'Content-Type: multipart/report; boundary="{outer}"; report-type=delivery-status\n'
        "Return-Path: <>\n"
        "From: Mail Delivery Subsystem <mailer-daemon@googlemail.com>\n"
        f"To: {returned.bounce_to}\n"
        "Auto-Submitted: auto-replied\n"
        f"Subject: Delivery Status Notification ({kind})\n"
        f"References: {returned.message_id}\n"
        f"In-Reply-To: {returned.message_id}\n"
        + ("" if delayed else f"X-Failed-Recipients: {returned.to}\n")
        + "Message-ID: <6750e1a1.050a0220.2f3c1b.abcd.GMR@mx.google.com>\n"
        f"Date: {DATE}\n"
        "MIME-Version: 1.0\n"
        "\n"
        f"--{outer}\n"
        f'Content-Type: multipart/related; boundary="{related}"\n'
        "\n"
        f"--{related}\n"
        f'Content-Type: multipart/alternative; boundary="{alternative}"\n'
        "\n"
        f"--{alternative}\n"
        'Content-Type: text/plain; charset="UTF-8"\n'
        "\n"
        f"\n{words}\n"
        f"--{alternative}\n"
        'Content-Type: text/html; charset="UTF-8"\n'
        "\n"
        f"<html><body><p>{words}</p></body></html>\n"
        f"--{alternative}--\n"
        f"--{related}\n"
        'Content-Type: image/png; name="icon.png"\n'
        'Content-Disposition: attachment; filename="icon.png"\n'
        "Content-Transfer-Encoding: base64\n"
        "Content-ID: <icon.png>\n"
        "\n"
        f"{icon}\n"
        f"--{related}--\n"
        f"--{outer}\n"
        "Content-Type: message/delivery-status\n"
        "\n"
        "Reporting-MTA: dns; googlemail.com\n"
        "Received-From-MTA: dns; pbem.test (mail.pbem.test. [203.0.113.1])\n"
        "Arrival-Date: Tue, 01 Dec 2026 06:10:22 -0800 (PST)\n"
        f"X-Original-Message-ID: {returned.message_id}\n"
        "\n"
        f"{block}"
        "Last-Attempt-Date: Tue, 01 Dec 2026 06:10:23 -0800 (PST)\n"
        "\n"
        f"--{outer}\n"
        "Content-Type: message/rfc822\n"
        "\n"
        f"{returned.whole()}\n"
        f"--{outer}--\n"
    )


# --- Microsoft -----------------------------------------------------------------------------------


def microsoft(returned: Returned, report_type: str = "message/delivery-status") -> bytes:
    """Exchange Online's non-delivery report: "Undeliverable: <subject>", the human part in
    quoted-printable text and HTML, a report with Microsoft's enhanced code 5.1.10 and its
    RESOLVER diagnostic, the message returned; X-Original-To set by pbem's MTA. With
    `report_type` message/global-delivery-status (RFC 6533), as Exchange writes for SMTPUTF8
    mail, the report part is base64."""
    outer = "a4d2e8f6-3b1c-4e5f-9a7b-1c2d3e4f5a6b"
    inner = "c0ffee12-3456-4789-abcd-ef0123456789"
    report = (
        "Reporting-MTA: dns;DB8PR10MB1234.EURPRD10.PROD.OUTLOOK.COM\n"
        "Received-From-MTA: dns;mail.pbem.test\n"
        "Arrival-Date: Tue, 1 Dec 2026 14:10:22 +0000\n"
        "\n"
        f"Original-Recipient: rfc822;{returned.to}\n"
        f"Final-Recipient: rfc822;{returned.to}\n"
        "Action: failed\n"
        "Status: 5.1.10\n"
        "Diagnostic-Code: smtp;550 5.1.10 RESOLVER.ADR.RecipientNotFound; Recipient "
        f"{returned.to} not found by SMTP address lookup\n"
        "Remote-MTA: dns;DB8PR10MB1234.EURPRD10.PROD.OUTLOOK.COM\n"
        "X-Display-Name: Bob\n"
    )
    if report_type == "message/global-delivery-status":
        encoded = base64.encodebytes(report.replace("\n", "\r\n").encode()).decode()
        report_part = f"Content-Type: {report_type}\nContent-Transfer-Encoding: base64\n\n{encoded}"
    else:
        report_part = f"Content-Type: {report_type}\n\n{report}"
    return _crlf(
        f"X-Original-To: {returned.bounce_to}\n"
        "Return-Path: <>\n"
        "From: Microsoft Outlook\n"
        "\t<MAILER-DAEMON@DB8PR10MB1234.EURPRD10.PROD.OUTLOOK.COM>\n"
        f"To: <{returned.bounce_to}>\n"
        f"Date: {DATE}\n"
        "Content-Type: multipart/report; report-type=delivery-status;\n"
        f'\tboundary="{outer}"\n'
        "X-MS-Exchange-Message-Is-Ndr:\n"
        "Content-Language: en-US\n"
        "Message-ID:\n"
        "\t<a4d2e8f6-3b1c-4e5f-9a7b-1c2d3e4f5a6b@DB8PR10MB1234.EURPRD10.PROD.OUTLOOK.COM>\n"
        f"In-Reply-To: {returned.message_id}\n"
        f"References: {returned.message_id}\n"
        f"Subject: Undeliverable: {returned.subject}\n"
        "Auto-Submitted: auto-replied\n"
        "MIME-Version: 1.0\n"
        "\n"
        f"--{outer}\n"
        "Content-Type: multipart/alternative; differences=Content-Type;\n"
        f'\tboundary="{inner}"\n'
        "\n"
        f"--{inner}\n"
        'Content-Type: text/plain; charset="us-ascii"\n'
        "Content-Transfer-Encoding: quoted-printable\n"
        "\n"
        f"Your message to {returned.to} couldn't be delivered.\n"
        "\n"
        "bob wasn't found at example.com.\n"
        "\n"
        "Action Required                                                                 =\n"
        "                           Recipient\n"
        "Unknown To address\n"
        "\n"
        f"--{inner}\n"
        'Content-Type: text/html; charset="us-ascii"\n'
        "Content-Transfer-Encoding: quoted-printable\n"
        "\n"
        '<html><head></head><body><p>Your message to <a href=3D"mailto:'
        f"{returned.to}\">{returned.to}</a> couldn't be delivered.</p></body></html>\n"
        "\n"
        f"--{inner}--\n"
        "\n"
        f"--{outer}\n"
        f"{report_part}\n"
        f"--{outer}\n"
        "Content-Type: message/rfc822\n"
        "\n"
        f"{returned.whole()}\n"
        f"--{outer}--\n"
    )
