"""The ways in: `pbem mail-in` (an MTA's pipe) and the SMTP listener of `pbem serve
--mail-in-port`, driven by a real SMTP client on loopback."""

from __future__ import annotations

import email
import email.policy
import io
import smtplib
import sys
from collections.abc import Iterator
from email.message import EmailMessage
from email.utils import parseaddr
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from sqlalchemy import select

from pbem import cli, links
from pbem.app import create_app
from pbem.domain import views
from pbem.extensions import db
from pbem.mailin.listener import start_mail_in
from pbem.models import Game, Player
from tests.domain.flow import mails, start
from tests.mailin import dsns
from tests.mailin import messages as m
from tests.support.procs import LOOPBACK, free_port


@pytest.fixture
def env(cli_env: Path) -> Path:
    return cli_env


@pytest.fixture
def game_app(env: Path) -> Iterator[Flask]:
    """The app `pbem` builds from that environment, its database migrated, inside its context."""
    assert cli.main(["db", "upgrade"]) == 0
    app = create_app()
    with app.app_context():
        yield app
        db.session.remove()
        db.engine.dispose()


def _turn(game: Game) -> tuple[str, m.Original]:
    db.session.refresh(game)
    to = game.seats[game.to_move].player.email
    row = mails(to=to, kind="turn")[-1]
    assert row.reply_to is not None
    return to, m.Original(row.reply_to, row.subject, row.message_id, row.text)


def _ply(game_id: str) -> int:
    db.session.expire_all()
    game = db.session.get(Game, game_id)
    assert game is not None
    return game.ply


class _Stdin:
    def __init__(self, raw: bytes) -> None:
        self.buffer = io.BytesIO(raw)


def _mail_in(
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    raw: bytes,
    *recipients: str,
) -> tuple[int, str]:
    """`pbem mail-in RECIPIENT…` with `raw` on standard input: its status and its output."""
    monkeypatch.setattr(sys, "stdin", _Stdin(raw))
    capsys.readouterr()
    code = cli.main(["mail-in", *recipients])
    return code, capsys.readouterr().out


# --- pbem mail-in --------------------------------------------------------------------------------


def test_mail_in_plays_a_reply_from_stdin(
    game_app: Flask, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], env: Path
) -> None:
    game = start()
    player, _ = _turn(game)
    game_id, seat = game.id, game.to_move
    name = views.names(game)[seat]  # how the answer calls the player, never by address
    db.session.commit()
    # The turn email as the player's client got it (saved as a file, embedded): its Reply-To.
    (saved,) = (env / "outbox").glob("*-turn.eml")
    turn = email.message_from_bytes(saved.read_bytes(), policy=email.policy.default)
    assert isinstance(turn, EmailMessage) and turn["To"] == player
    body = turn.get_body(preferencelist=("plain",))
    assert body is not None
    reply_to = parseaddr(str(turn["Reply-To"]))[1]
    assert reply_to.startswith("play+") and reply_to.endswith("@pbem.test")
    original = m.Original(
        reply_to, str(turn["Subject"]), str(turn["Message-ID"]), body.get_content()
    )
    raw = m.gmail(player, original, "2")
    code, out = _mail_in(monkeypatch, capsys, raw, original.reply_to)
    assert code == 0
    assert (
        out
        == f"pbem mail-in: applied game {game_id} seat {seat} move 1: {name} took 2, leaving 8\n"
    )
    assert out.count("\n") == 1
    assert _ply(game_id) == 1
    assert list((env / "outbox").glob("*-reply.eml"))  # the answer, as a file (embedded)


def test_mail_in_ignores_robots_and_exits_0(
    game_app: Flask, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    game = start()
    _, original = _turn(game)
    db.session.commit()
    code, out = _mail_in(monkeypatch, capsys, m.dsn(original))
    assert (code, out) == (0, "pbem mail-in: ignored: Auto-Submitted: auto-replied\n")
    code, out = _mail_in(monkeypatch, capsys, b"not a message at all")
    assert code == 0 and out.startswith("pbem mail-in: dropped:")
    assert _ply(game.id) == 0


def test_mail_in_takes_a_delivery_report_at_a_bounce_address(
    game_app: Flask, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    start()
    row = mails(to="bob@example.org")[-1]
    bounce = links.bounce_address(game_app.config["PBEM"], row.id)
    db.session.commit()
    report = dsns.postfix(dsns.Returned(bounce, "bob@example.org"))
    code, out = _mail_in(monkeypatch, capsys, report, bounce)
    assert (code, out) == (
        0,
        f"pbem mail-in: bounced: outbox {row.id}: failed 5.1.1: 550 5.1.1 <bob@example.org>: "
        "Recipient address rejected: User unknown in virtual mailbox table\n",
    )
    db.session.expire_all()
    assert [letter.to for letter in mails(kind="bounced")] == ["alice@example.org"]


def test_mail_in_reads_a_bounded_message_and_drains_the_rest(
    game_app: Flask, monkeypatch: pytest.MonkeyPatch
) -> None:
    game = start()
    player, original = _turn(game)
    db.session.commit()
    huge = m.gmail(player, original, "2") + b"x" * (3 * 1024 * 1024)
    stdin = _Stdin(huge)
    monkeypatch.setattr(sys, "stdin", stdin)
    assert cli.main(["mail-in"]) == 0
    assert stdin.buffer.read() == b""  # all of it read: the MTA sees a clean delivery
    assert _ply(game.id) == 0
    db.session.expire_all()
    assert "larger than 256 KiB" in mails(to=player, kind="reply")[-1].text


def test_mail_in_asks_the_mta_to_retry_when_the_database_is_down(
    env: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("DATABASE_URL", "postgresql+psycopg://pbem@127.0.0.1:1/pbem")
    original = m.Original("play+" + "a" * 32 + "@pbem.test")
    code, out = _mail_in(monkeypatch, capsys, m.gmail("alice@example.org", original, "2"))
    assert code == cli.EX_TEMPFAIL == 75
    assert out.startswith("pbem mail-in: the database is unreachable, try again later")


def test_mail_in_returns_a_message_it_cannot_handle_because_of_a_bug(
    game_app: Flask, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from pbem.mailin import handle

    def broken(*args: Any, **kwargs: Any) -> None:
        raise RuntimeError("a bug")

    monkeypatch.setattr(handle, "handle_message", broken)
    original = m.Original("play+" + "a" * 32 + "@pbem.test")
    code, out = _mail_in(monkeypatch, capsys, m.gmail("alice@example.org", original, "2"))
    assert code == cli.EX_SOFTWARE == 70  # not retried: the MTA returns it to its sender
    assert "error on its side" in out


# --- the SMTP listener ---------------------------------------------------------------------------


def _send(port: int, sender: str, recipient: str, raw: bytes) -> None:
    with smtplib.SMTP(LOOPBACK, port, timeout=30) as client:
        client.sendmail(sender, [recipient], raw)


def test_listener_takes_a_reply_over_smtp(app: Flask) -> None:
    game = start()
    player, original = _turn(game)
    db.session.commit()
    port = free_port()
    listener = start_mail_in(app, port)
    try:
        with smtplib.SMTP(LOOPBACK, port, timeout=30) as client:
            client.ehlo()
            assert client.mail(player)[0] == 250
            assert client.rcpt("nobody@pbem.test")[0] == 550  # only reply addresses are taken
        _send(port, player, original.reply_to, m.gmail(player, original, "3"))
        # A bounce (null sender) is accepted and dropped.
        _send(port, "", original.reply_to, m.gmail(player, original, "1"))
    finally:
        listener.stop()
    assert _ply(game.id) == 1
    db.session.expire_all()
    (answer,) = mails(to=player, kind="reply")
    assert answer.subject.endswith("your move was played")


def test_listener_takes_a_delivery_report_at_a_bounce_address(app: Flask) -> None:
    start()
    row = mails(to="bob@example.org")[-1]
    bounce = links.bounce_address(app.config["PBEM"], row.id)
    db.session.commit()
    port = free_port()
    listener = start_mail_in(app, port)
    try:
        # As a mail server returns it: from the null sender, to the message's bounce address.
        _send(port, "", bounce, dsns.exim(dsns.Returned(bounce, "bob@example.org")))
    finally:
        listener.stop()
    db.session.expire_all()
    bob = db.session.execute(select(Player).where(Player.email == "bob@example.org")).scalar_one()
    assert bob.bounced_at is not None and "mailbox has been disabled" in (bob.bounce_reason or "")
    assert [letter.to for letter in mails(kind="bounced")] == ["alice@example.org"]


def test_serve_starts_the_listener_and_says_where(
    game_app: Flask,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    import werkzeug.serving

    game = start()
    player, original = _turn(game)
    db.session.commit()
    port = free_port()
    served: list[Any] = []

    def run_simple(host: str, web_port: int, app: Any, threaded: bool) -> None:
        # While "serving": a reply arrives by SMTP.
        _send(port, player, original.reply_to, m.apple_mail(player, original, "2"))
        served.append(app)

    monkeypatch.setattr(werkzeug.serving, "run_simple", run_simple)
    monkeypatch.setattr(cli, "_every", lambda *args: None)  # no sweep or clock threads
    assert cli.main(["serve", "--port", "5999", "--mail-in-port", str(port)]) == 0
    assert served
    assert f"pbem: replies by mail to 127.0.0.1:{port}" in capsys.readouterr().err
    assert _ply(game.id) == 1
    with pytest.raises(OSError):  # the listener stopped with the server
        smtplib.SMTP(LOOPBACK, port, timeout=5)


def test_serve_without_the_option_has_no_listener(
    env: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import werkzeug.serving

    monkeypatch.setattr(werkzeug.serving, "run_simple", lambda *args, **kwargs: None)
    monkeypatch.setattr(cli, "_every", lambda *args: None)
    assert cli.main(["serve", "--port", "5999"]) == 0
    assert "replies by mail" not in capsys.readouterr().err
