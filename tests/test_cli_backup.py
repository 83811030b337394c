"""`pbem backup` and `pbem restore` on the embedded SQLite database: a backup taken while moves
are being made, restored into an empty database, every link renewed and mailed, and every game
played on from there to its end."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from flask import Flask
from flask_migrate import upgrade
from sqlalchemy import func, select, update

from pbem import cli
from pbem.app import create_app
from pbem.extensions import db
from pbem.models import FAILED, Game, OutboxMessage
from pbem.ops.backups import SUPERSEDED
from tests.support.restored import move, play_to_end, seat_links
from tests.web.flow import start, turn_link

GAMES = 3


def _app() -> Flask:
    return create_app({"PBEM_RATE_LIMITS": "off"})


@pytest.fixture
def played(cli_env: Path) -> Iterator[tuple[Flask, list[str]]]:
    """Three running games of the embedded database, one move made in each."""
    app = _app()
    with app.app_context():
        upgrade()
        client = app.test_client()
        ids = []
        for _ in range(GAMES):
            game = start(client)
            move(client, game.id, turn_link(game))
            ids.append(game.id)
        yield app, ids
        db.session.remove()
        db.engine.dispose()


def test_a_backup_under_load_restores_into_an_empty_database_and_plays_on(
    played: tuple[Flask, list[str]],
    cli_env: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    app, ids = played
    client = app.test_client()
    backup = cli_env / "pbem.backup"
    with app.app_context():
        # An email still to send when the backup is taken (its picture not drawn yet, say).
        unsent = db.session.execute(select(func.max(OutboxMessage.id))).scalar_one()
        db.session.execute(
            update(OutboxMessage).where(OutboxMessage.id == unsent).values(status="pending")
        )
        db.session.commit()
    # Moves are made in one game while the backup is taken.
    busy = threading.Event()

    def keep_playing() -> None:
        with app.app_context():
            while not busy.is_set():
                game = db.session.get(Game, ids[0])
                db.session.expire_all()
                if game is None or game.status != "running":
                    return
                move(client, ids[0], turn_link(game))

    mover = threading.Thread(target=keep_playing)
    mover.start()
    try:
        assert cli.main(["backup", str(backup)]) == 0
    finally:
        busy.set()
        mover.join()
    assert "restore it with: pbem restore" in capsys.readouterr().out
    with app.app_context():
        game = db.session.get(Game, ids[1])
        assert game is not None
        old_link, ply_at_backup = turn_link(game), game.ply
        # A move after the backup: lost with the restore.
        move(client, ids[1], old_link)

    monkeypatch.setenv("DATABASE_URL", f"sqlite:///{cli_env / 'restored.db'}")
    assert cli.main(["restore", str(backup)]) == 0
    out = capsys.readouterr().out
    assert "every link withdrawn; 2 players emailed a fresh one" in out
    restored = _app()
    with restored.app_context():
        client = restored.test_client()
        # A link from before the restore opens nothing.
        assert client.get(old_link).status_code == 403
        game = db.session.get(Game, ids[1])
        assert game is not None and game.ply == ply_at_backup
        letters = (
            db.session.execute(select(OutboxMessage).where(OutboxMessage.kind == "signedout"))
            .scalars()
            .all()
        )
        assert sorted(row.status for row in letters) == ["sent", "sent"]
        assert all("pbem was restored from a backup" in row.text for row in letters)
        pending = (
            db.session.execute(select(OutboxMessage).where(OutboxMessage.kind != "signedout"))
            .scalars()
            .all()
        )
        assert all(row.status != "pending" for row in pending)
        assert any(row.status == FAILED and row.last_error == SUPERSEDED for row in pending) or all(
            row.status == "sent" for row in pending
        )
        # Every game is played on to its end from the links in the fresh emails.
        seats = seat_links(client, "http://pbem.test")
        for game_id in ids:
            play_to_end(client, game_id, seats[game_id])
            game = db.session.get(Game, game_id)
            assert game is not None and game.status == "finished"
        db.session.remove()
        db.engine.dispose()


def test_restore_refuses_a_database_in_use_and_a_file_that_is_no_backup(
    played: tuple[Flask, list[str]], cli_env: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    backup = cli_env / "pbem.backup"
    assert cli.main(["backup", str(backup)]) == 0
    capsys.readouterr()
    assert cli.main(["restore", str(backup)]) == 2
    assert "the database is not empty: restore into an empty database" in capsys.readouterr().err
    junk = cli_env / "junk.backup"
    junk.write_text("not a database")
    assert cli.main(["restore", str(junk), "--replace"]) == 2
    assert f"{junk} is not a backup of a SQLite database" in capsys.readouterr().err
    assert cli.main(["restore", str(cli_env / "missing.backup")]) == 2
    assert "is not a file" in capsys.readouterr().err
