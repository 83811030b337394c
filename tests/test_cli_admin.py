"""`pbem admin …`: failed mail listed and sent again, stuck work found, the figures; each in
words and as JSON."""

from __future__ import annotations

import json
from datetime import timedelta
from pathlib import Path

import pytest
from sqlalchemy import create_engine, text

from pbem import cli
from pbem.models import utcnow

# Nothing listens on port 1: every attempt fails, and with one attempt allowed it is given up.
DEAD_SMTP = "smtp://127.0.0.1:1"


def _sql(tmp_path: Path, statement: str, **params: object) -> list[tuple[object, ...]]:
    engine = create_engine(f"sqlite:///{tmp_path / 'cli.db'}")
    with engine.begin() as connection:
        result = connection.execute(text(statement), params)
        rows = [tuple(row) for row in result] if result.returns_rows else []
    engine.dispose()
    return rows


@pytest.fixture
def failed_invitations(
    cli_env: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> Path:
    """A game whose two invitations could not be sent: the mail server was down."""
    monkeypatch.setenv("SMTP_URL", DEAD_SMTP)
    monkeypatch.setenv("PBEM_MAIL_MAX_ATTEMPTS", "1")
    assert cli.main(["new-game", "countdown", "ann@example.org", "bob@example.org"]) == 0
    monkeypatch.delenv("SMTP_URL")
    capsys.readouterr()
    return cli_env


def test_failed_mail_says_what_and_why(
    failed_invitations: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert cli.main(["admin", "mail", "failed"]) == 0
    out = capsys.readouterr().out
    # The organiser's confirmation, the other's invitation, and the letter telling the
    # organiser that invitation could not be delivered, which failed in its turn.
    assert out.count("failed after 1 tries: ") == 3, out
    assert "the mail server could not be reached" in out
    assert ": undeliverable (game " in out and ": invite (game " in out
    assert "pbem admin mail resend ID" in out

    assert cli.main(["admin", "mail", "failed", "--json", "--limit", "1"]) == 0
    (email,) = json.loads(capsys.readouterr().out)
    assert email["kind"] == "undeliverable" and email["attempts"] == 1
    assert email["why"].startswith("ConnectionRefusedError: the mail server could not be reached")
    assert email["written_at"].endswith("Z")


def test_resend_sends_the_same_message_again(
    failed_invitations: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ((outbox_id, message_id),) = _sql(
        failed_invitations,
        "select id, message_id from outbox where \"to\" = 'bob@example.org'",
    )
    assert cli.main(["admin", "mail", "resend", str(outbox_id)]) == 0
    assert f"email {outbox_id} to bob@example.org (failed before) is due again" in (
        capsys.readouterr().out
    )
    # Embedded, the queue runs in-process: it went, to the outbox folder, as the same message.
    assert _sql(failed_invitations, "select status from outbox where id = :i", i=outbox_id) == [
        ("sent",)
    ]
    (saved,) = [p for p in (failed_invitations / "outbox").glob("*.eml")]
    assert message_id in saved.read_text()

    assert cli.main(["admin", "mail", "failed", "--json"]) == 0
    assert [e["to"] for e in json.loads(capsys.readouterr().out)] == ["ann@example.org"] * 2


def test_resend_refuses_what_it_cannot_do(
    failed_invitations: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert cli.main(["admin", "mail", "resend", "999"]) == 2
    assert "there is no email 999 in the outbox" in capsys.readouterr().err
    ((outbox_id,),) = _sql(failed_invitations, "select min(id) from outbox")
    _sql(
        failed_invitations,
        "update outbox set status = 'sent', sent_at = :t, text = :e, html = :e where id = :i",
        t=utcnow() - timedelta(days=40),
        e=b"",
        i=outbox_id,
    )
    assert cli.main(["admin", "mail", "resend", str(outbox_id)]) == 2
    assert "its text is gone (kept 30 days after delivery" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        cli.main(["admin", "mail", "resend", "nine"])
    assert "'nine' is not a whole number above 0" in capsys.readouterr().err


def test_stuck_finds_a_move_nobody_applied(
    cli_env: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert cli.main(["admin", "games", "stuck"]) == 0
    assert "nothing is stuck" in capsys.readouterr().out
    assert cli.main(["new-game", "countdown", "ann@example.org", "bob@example.org"]) == 0
    ((game_id,),) = _sql(cli_env, "select id from games")
    _sql(
        cli_env,
        "insert into submissions (game_id, seat, ply, move, status, created_at) "
        "values (:g, 0, 0, '1', 'pending', :t)",
        g=game_id,
        t=utcnow() - timedelta(minutes=10),
    )
    capsys.readouterr()
    assert cli.main(["admin", "games", "stuck"]) == 1
    out = capsys.readouterr().out
    assert f"submission: game {game_id}, submission " in out
    assert "overdue 6" in out  # 600 s, give or take the test's own time
    assert "is the worker running?" in out
    assert cli.main(["admin", "games", "stuck", "--older-than", "900", "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == []


def test_stats_count_games_players_and_mail(
    failed_invitations: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert cli.main(["admin", "stats", "--json"]) == 0
    figures = json.loads(capsys.readouterr().out)
    assert figures["games"] == {"countdown": {"inviting": 1}}
    assert figures["players"]["people"] == 2
    assert figures["emails"]["failed"] == 3
    assert figures["moves"] == {"total": 0, "last_24h": 0}
    assert cli.main(["admin", "stats"]) == 0
    out = capsys.readouterr().out
    assert "countdown: 1 inviting" in out and "3 failed" in out
