"""The benchmark's SMTP sink speaks enough SMTP for smtplib and records messages exactly."""

from __future__ import annotations

import asyncio
import base64
import smtplib
import socket
import threading
from collections.abc import Iterator

import pytest

from bench.smtp_sink import Mail, Sink, read_mail, serve

Recorded = tuple[str, list[str], bytes, float]

FIRST = (
    b"Subject: [pbem] GORami abcdefgh12: your turn (move 3)\r\n"
    b"Message-ID: <abcdefgh12.1@pbem.test>\r\n"
    b"\r\n"
    b"Play: http://x/play/tok.en-1\r\n"
    b".hidden line\r\n"
    b"..two dots\r\n"
    b"last\r\n"
)
SECOND = b"Subject: hello\r\n\r\n.\r\nend\r\n"


@pytest.fixture
def sink() -> Iterator[tuple[int, list[Recorded]]]:
    """The protocol served by a loop in a thread; yields (port, what it recorded)."""
    recorded: list[Recorded] = []
    loop = asyncio.new_event_loop()
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.bind(("127.0.0.1", 0))
    sock.listen()
    port = int(sock.getsockname()[1])

    def record(mail_from: str, rcpt_tos: list[str], raw: bytes, accepted_at: float) -> None:
        recorded.append((mail_from, rcpt_tos, raw, accepted_at))

    server = loop.run_until_complete(serve(sock, record))
    thread = threading.Thread(target=loop.run_forever, daemon=True)
    thread.start()
    yield port, recorded
    loop.call_soon_threadsafe(loop.stop)
    thread.join(5)
    server.close()
    loop.run_until_complete(server.wait_closed())
    loop.close()


def test_two_messages_in_one_session(sink: tuple[int, list[Recorded]]) -> None:
    port, recorded = sink
    with smtplib.SMTP("127.0.0.1", port, timeout=5) as client:
        assert client.ehlo()[0] == 250
        assert client.has_extn("size")
        client.sendmail("a@x.test", ["B@y.test"], FIRST)
        assert client.noop() == (250, b"OK")
        assert client.mail("a@x.test")[0] == 250
        assert client.rset()[0] == 250
        assert client.rcpt("c@y.test")[0] == 503  # RSET dropped the MAIL
        client.sendmail("a@x.test", ["c@y.test", "d@y.test"], SECOND)
        assert client.docmd("DATA")[0] == 503
        assert client.docmd("BOGUS")[0] == 500
    assert [(r[0], r[1], r[2]) for r in recorded] == [
        ("a@x.test", ["B@y.test"], FIRST),
        ("a@x.test", ["c@y.test", "d@y.test"], SECOND),
    ]
    assert recorded[0][3] <= recorded[1][3]


def test_mail_needs_a_greeting(sink: tuple[int, list[Recorded]]) -> None:
    port, recorded = sink
    with smtplib.SMTP("127.0.0.1", port, timeout=5) as client:
        assert client.docmd("MAIL", "FROM:<a@x.test>")[0] == 503
        assert client.helo()[0] == 250
        assert client.docmd("MAIL", "FROM:<a@x.test>")[0] == 250
        assert client.docmd("MAIL", "FROM:<a@x.test>")[0] == 503
    assert recorded == []


def test_sink_serves_on_the_loop_that_calls_serve() -> None:
    sink = Sink()
    recorded: list[Recorded] = []

    def record(mail_from: str, rcpt_tos: list[str], raw: bytes, accepted_at: float) -> None:
        recorded.append((mail_from, rcpt_tos, raw, accepted_at))

    def client() -> None:
        with smtplib.SMTP("127.0.0.1", sink.port, timeout=5) as smtp:
            smtp.sendmail("a@x.test", ["b@y.test"], FIRST)

    async def send() -> None:
        await sink.serve(record)
        await asyncio.to_thread(client)  # smtplib blocks: not on the loop that serves it

    assert sink.url == f"smtp://127.0.0.1:{sink.port}"
    try:
        asyncio.run(send())
    finally:
        sink.stop()
    assert [r[2] for r in recorded] == [FIRST]


def test_read_mail() -> None:
    assert read_mail(FIRST) == Mail(
        "<abcdefgh12.1@pbem.test>", "[pbem] GORami abcdefgh12: your turn (move 3)", "", "tok.en-1"
    )
    folded = (
        b"Subject: =?utf-8?q?caf=C3=A9?=\r\n  and more\r\nTo: x\r\n"
        b"Content-Type: text/plain; charset=utf-8\r\nContent-Transfer-Encoding: base64\r\n\r\n"
        + base64.encodebytes(b"Join: http://x/invite/inv-1 ok\n").replace(b"\n", b"\r\n")
    )
    assert read_mail(folded) == Mail("", "café and more", "inv-1", "")
