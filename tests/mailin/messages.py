"""Replies as common mail clients write them, byte for byte in their shape: the headers they
set, their MIME structure, how they quote, wrap and sign. Each builder takes what the player
typed (`body`) and the email replied to (`quoted`: its plain text)."""

from __future__ import annotations

import base64
import html
import quopri
from dataclasses import dataclass

PBEM = "pbem <pbem@pbem.test>"
DATE = "Tue, 1 Dec 2026 15:10:22 +0100"


@dataclass(frozen=True)
class Original:
    """The email being answered: where the reply goes and what it quotes."""

    reply_to: str
    subject: str = "[pbem] Countdown game: your turn (move 1)"
    message_id: str = "<g.abc123@pbem.test>"
    text: str = "Hello,\n\nIt is your turn in Countdown.\n\nSee the board and make your move here:\nhttp://pbem.test/play/x\n"


def _crlf(text: str) -> bytes:
    return text.replace("\r\n", "\n").replace("\n", "\r\n").encode("utf-8")


def _quote(text: str, prefix: str = "> ") -> str:
    return "\n".join(
        (prefix + line).rstrip() if line else prefix.rstrip() for line in text.splitlines()
    )


def _qp(text: str) -> str:
    return quopri.encodestring(text.replace("\n", "\r\n").encode("utf-8")).decode("ascii")


def gmail(sender: str, original: Original, body: str, wrap_attribution: bool = False) -> bytes:
    """Gmail on the web: multipart/alternative, top-posted, "On … wrote:" then `>` quotes (the
    attribution wrapped when long); the HTML quotes in a div.gmail_quote."""
    attribution = "On Tue, Dec 1, 2026 at 3:04 PM pbem <pbem@pbem.test> wrote:"
    if wrap_attribution:
        attribution = "On Tue, Dec 1, 2026 at 3:04 PM pbem <pbem@pbem.test>\nwrote:"
    plain = f"{body}\n\n{attribution}\n\n{_quote(original.text)}\n"
    body_html = "<br>".join(html.escape(line) for line in body.splitlines())
    quoted_html = "<br>".join(html.escape(line) for line in original.text.splitlines())
    rich = (
        f'<div dir="ltr">{body_html}</div><br><div class="gmail_quote"><div dir="ltr" '
        'class="gmail_attr">On Tue, Dec 1, 2026 at 3:04 PM pbem &lt;<a '
        'href="mailto:pbem@pbem.test">pbem@pbem.test</a>&gt; wrote:<br></div>'
        '<blockquote class="gmail_quote" style="margin:0px '
        f'0px 0px 0.8ex;border-left:1px solid rgb(204,204,204);padding-left:1ex">{quoted_html}'
        "</blockquote></div>\n"
    )
    return _crlf(
        "MIME-Version: 1.0\n"
        f"Date: {DATE}\n"
        f"References: {original.message_id}\n"
        f"In-Reply-To: {original.message_id}\n"
        "Message-ID: <CAKx9w+7=gmail.reply@mail.gmail.com>\n"
        f"Subject: Re: {original.subject}\n"
        f"From: Alice Example <{sender}>\n"
        f"To: {PBEM.split('<')[0]}<{original.reply_to}>\n"
        'Content-Type: multipart/alternative; boundary="000000000000f1e2d3c4b5a69788"\n'
        "\n"
        "--000000000000f1e2d3c4b5a69788\n"
        'Content-Type: text/plain; charset="UTF-8"\n'
        "\n"
        f"{plain}\n"
        "--000000000000f1e2d3c4b5a69788\n"
        'Content-Type: text/html; charset="UTF-8"\n'
        "Content-Transfer-Encoding: quoted-printable\n"
        "\n"
        f"{_qp(rich)}\n"
        "--000000000000f1e2d3c4b5a69788--\n"
    )


def _flowed(text: str, width: int = 72, delsp: bool = False) -> str:
    """RFC 3676 wrapping as clients do it: soft breaks end in a space, lines starting with a
    space, ">" or "From " are space-stuffed, quote marks repeated on every piece."""
    out = []
    for line in text.splitlines():
        depth = len(line) - len(line.lstrip(">"))
        marks, content = line[:depth], line[depth:].lstrip(" ") if depth else line
        prefix = marks + " " if depth else ""
        if depth and not content:
            out.append(marks)
            continue
        words = content.split(" ")
        pieces: list[str] = []
        current = ""
        for word in words:
            candidate = f"{current} {word}" if current else word
            if current and len(prefix) + len(candidate) > width:
                # delsp=yes: the soft break is an extra space, deleted when unwrapping.
                pieces.append(current + (" " if delsp else "") + " ")
                current = word
            else:
                current = candidate
        pieces.append(current)
        for piece in pieces:
            if not depth and (piece.startswith((" ", ">")) or piece.startswith("From ")):
                piece = " " + piece
            out.append(prefix + piece)
    return "\n".join(out)


def apple_mail(sender: str, original: Original, body: str, width: int = 72) -> bytes:
    """Apple Mail on an iPhone: text/plain; format=flowed, quoted-printable, "Sent from my
    iPhone", then the attribution quoted with the rest (and a BOM at the quote's start)."""
    plain = (
        f"{body}\n\nSent from my iPhone\n\n"
        "> On Dec 1, 2026, at 15:04, pbem <pbem@pbem.test> wrote:\n>\n"
        + _quote("\ufeff" + original.text)
        + "\n"
    )
    return _crlf(
        "Content-Type: text/plain; charset=utf-8; format=flowed\n"
        "Content-Transfer-Encoding: quoted-printable\n"
        "From: Alice Example <" + sender + ">\n"
        "Mime-Version: 1.0 (1.0)\n"
        f"Subject: Re: {original.subject}\n"
        f"Date: {DATE}\n"
        "Message-Id: <5C2B1E9A-0D3F-4E7B-9A1C-2F6D8E4B7A10@example.org>\n"
        f"References: {original.message_id}\n"
        f"In-Reply-To: {original.message_id}\n"
        f"To: pbem <{original.reply_to}>\n"
        "X-Mailer: iPhone Mail (22B91)\n"
        "\n" + _qp(_flowed(plain, width)) + "\n"
    )


def outlook_html(sender: str, original: Original, body: str) -> bytes:
    """Outlook on the web, HTML only: the reply in divs, then div#appendonsend, a rule and
    div#divRplyFwdMsg with a "From: … Sent: … To: … Subject:" block, the original unquoted."""
    paragraphs = "".join(
        '<div class="elementToProof" style="font-family: Aptos, Aptos_EmbeddedFont, '
        'Calibri, Helvetica, sans-serif; font-size: 12pt; color: rgb(0, 0, 0);">'
        f"{html.escape(line)}</div>"
        for line in body.splitlines()
    )
    original_html = "<br>".join(html.escape(line) for line in original.text.splitlines())
    rich = (
        '<html><head>\n<meta http-equiv="Content-Type" content="text/html; charset=utf-8">\n'
        '<style type="text/css" style="display:none;"> P {margin-top:0;margin-bottom:0;} </style>\n'
        '</head>\n<body dir="ltr">\n'
        f"{paragraphs}\n"
        '<div id="appendonsend"></div>\n'
        '<hr style="display:inline-block;width:98%" tabindex="-1">\n'
        '<div id="divRplyFwdMsg" dir="ltr"><font face="Calibri, sans-serif" style="font-size:11pt" '
        'color="#000000"><b>From:</b> pbem &lt;pbem@pbem.test&gt;<br>\n'
        "<b>Sent:</b> Tuesday, December 1, 2026 3:04 PM<br>\n"
        f"<b>To:</b> {html.escape(sender)} &lt;{html.escape(sender)}&gt;<br>\n"
        f"<b>Subject:</b> {html.escape(original.subject)}</font>\n"
        "<div>&nbsp;</div>\n</div>\n"
        f'<div class="BodyFragment"><font size="2"><span style="font-size:11pt;">'
        f'<div class="PlainText">{original_html}</div></span></font></div>\n'
        "</body>\n</html>\n"
    )
    encoded = base64.encodebytes(rich.encode("utf-8")).decode("ascii")
    return _crlf(
        f"From: Alice Example <{sender}>\n"
        f"To: pbem <{original.reply_to}>\n"
        f"Subject: RE: {original.subject}\n"
        "Thread-Topic: your turn\n"
        "Thread-Index: AQHbQ2bN4n5iAAAAAA==\n"
        f"Date: {DATE}\n"
        "Message-ID: <AM9PR10MB4183C2D5@AM9PR10MB4183.EURPRD10.PROD.OUTLOOK.COM>\n"
        f"References: {original.message_id}\n"
        f"In-Reply-To: {original.message_id}\n"
        "Accept-Language: en-GB, en-US\n"
        "Content-Language: en-GB\n"
        "X-MS-Has-Attach:\n"
        "X-MS-TNEF-Correlator:\n"
        'Content-Type: text/html; charset="utf-8"\n'
        "Content-Transfer-Encoding: base64\n"
        "MIME-Version: 1.0\n"
        "\n"
        f"{encoded}"
    )


def outlook_plain(sender: str, original: Original, body: str) -> bytes:
    """Outlook desktop in plain text: the original below a rule and a "From: … Sent:" block,
    not quoted at all."""
    plain = (
        f"{body}\n\n________________________________\nFrom: pbem <pbem@pbem.test>\n"
        f"Sent: Tuesday, December 1, 2026 3:04 PM\nTo: {sender}\n"
        f"Subject: {original.subject}\n\n{original.text}"
    )
    return _crlf(
        f"From: Alice Example <{sender}>\n"
        f"To: pbem <{original.reply_to}>\n"
        f"Subject: RE: {original.subject}\n"
        f"Date: {DATE}\n"
        "Message-ID: <DB7PR02MB5@DB7PR02MB5.eurprd02.prod.outlook.com>\n"
        'Content-Type: text/plain; charset="us-ascii"\n'
        "Content-Transfer-Encoding: quoted-printable\n"
        "MIME-Version: 1.0\n"
        "\n"
        f"{_qp(plain)}\n"
    )


def thunderbird(
    sender: str, original: Original, body: str, bottom: bool = False, width: int = 40
) -> bytes:
    """Thunderbird: text/plain; format=flowed; delsp=yes, "On 01/12/2026 15:04, pbem wrote:",
    `>` quotes, a "-- " signature; `bottom`: below the quote (bottom-posting)."""
    quote = f"On 01/12/2026 15:04, pbem wrote:\n{_quote(original.text)}\n"
    signed = f"{body}\n\n-- \nAlice\n"
    plain = f"{quote}\n{signed}" if bottom else f"{signed}\n{quote}"
    return _crlf(
        "Message-ID: <8f3c2a1b-7d6e-4f5a-9b8c-1d2e3f4a5b6c@example.org>\n"
        f"Date: {DATE}\n"
        "MIME-Version: 1.0\n"
        "User-Agent: Mozilla Thunderbird\n"
        f"Subject: Re: {original.subject}\n"
        "Content-Language: en-GB\n"
        f"To: pbem <{original.reply_to}>\n"
        f"References: {original.message_id}\n"
        f"From: Alice <{sender}>\n"
        f"In-Reply-To: {original.message_id}\n"
        "Content-Type: text/plain; charset=UTF-8; format=flowed; delsp=yes\n"
        "Content-Transfer-Encoding: 8bit\n"
        "\n" + _flowed(plain, width, delsp=True) + "\n"
    )


def subject_only(sender: str, original: Original) -> bytes:
    """A reply sent with nothing typed: the subject and the quote alone."""
    return gmail(sender, original, "")


def auto_reply(sender: str, original: Original) -> bytes:
    """Exchange's out-of-office answer (RFC 3834 Auto-Submitted)."""
    return _crlf(
        f"From: Alice Example <{sender}>\n"
        f"To: pbem <{original.reply_to}>\n"
        f"Subject: Automatic reply: {original.subject}\n"
        f"Date: {DATE}\n"
        "Message-ID: <oof.1@example.org>\n"
        "Auto-Submitted: auto-replied\n"
        "X-MS-Exchange-Inbox-Rules-Loop: alice@example.org\n"
        "X-Auto-Response-Suppress: All\n"
        'Content-Type: text/plain; charset="us-ascii"\n'
        "MIME-Version: 1.0\n"
        "\n"
        "2\n\nI am out of the office until Monday.\n"
    )


def vacation(sender: str, original: Original) -> bytes:
    """A classic vacation(1)-style responder: Precedence: bulk, an ordinary "Re:" subject and
    a body whose first line looks like a move."""
    return _crlf(
        f"From: {sender}\n"
        f"To: {original.reply_to}\n"
        f"Subject: Re: {original.subject}\n"
        f"Date: {DATE}\n"
        "Message-ID: <vacation.1@example.org>\n"
        "Precedence: bulk\n"
        "\n"
        "2\n\nI am on vacation; your mail will be read when I return.\n"
    )


def dsn(original: Original, reporter: str = "MAILER-DAEMON@mx.example.org") -> bytes:
    """A delivery status notification (RFC 3464) sent, wrongly, to the reply address."""
    return _crlf(
        "Return-Path: <>\n"
        f"From: Mail Delivery System <{reporter}>\n"
        f"To: {original.reply_to}\n"
        "Subject: Undelivered Mail Returned to Sender\n"
        f"Date: {DATE}\n"
        "Message-ID: <dsn.1@mx.example.org>\n"
        "Auto-Submitted: auto-replied\n"
        "MIME-Version: 1.0\n"
        "Content-Type: multipart/report; report-type=delivery-status;\n"
        '\tboundary="B1F2C3D4E5.1700000000/mx.example.org"\n'
        "\n"
        "--B1F2C3D4E5.1700000000/mx.example.org\n"
        "Content-Description: Notification\n"
        "Content-Type: text/plain; charset=us-ascii\n"
        "\n"
        "2\n\nThis is the mail system at host mx.example.org.\n"
        "\n"
        "--B1F2C3D4E5.1700000000/mx.example.org\n"
        "Content-Description: Delivery report\n"
        "Content-Type: message/delivery-status\n"
        "\n"
        "Reporting-MTA: dns; mx.example.org\n"
        "\n"
        "Final-Recipient: rfc822; alice@example.org\n"
        "Action: failed\n"
        "Status: 5.1.1\n"
        "\n"
        "--B1F2C3D4E5.1700000000/mx.example.org--\n"
    )


def bare_dsn_headers_only(original: Original) -> bytes:
    """The same report with its auto headers stripped by a careless relay: multipart/report
    alone still marks it."""
    raw = dsn(original)
    return (
        raw.replace(b"Auto-Submitted: auto-replied\r\n", b"")
        .replace(b"Return-Path: <>\r\n", b"")
        .replace(b"MAILER-DAEMON@", b"reports@")
    )


def delivered(raw: bytes, *authentication_results: str) -> bytes:
    """The message as the receiving MTA hands it on: the Authentication-Results it added on top,
    above whatever the sender wrote."""
    added = "".join(f"Authentication-Results: {value}\n" for value in authentication_results)
    return _crlf(added) + raw
