"""`pbem backup` and `pbem restore` on PostgreSQL (pg_dump's custom format): a backup taken
while a game is being played over HTTP on the real stack, restored into an empty database,
every link withdrawn and mailed afresh, and every game played on from there to its end."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import select

from pbem.extensions import db
from pbem.models import Game
from tests.conftest import make_app
from tests.support.flow import GameFlow
from tests.support.pg import TempDatabase
from tests.support.procs import VENV_BIN, run
from tests.support.restored import fresh_letters, play_to_end, seat_links
from tests.support.stack import Stack

pytestmark = [pytest.mark.integration, pytest.mark.audit, pytest.mark.timeout(600)]


@pytest.fixture
def empty_database() -> Iterator[TempDatabase]:
    database = TempDatabase(prefix="pbem_restore").create()
    yield database
    database.drop()


def test_a_backup_under_load_restores_and_every_game_plays_on(
    stack: Stack, empty_database: TempDatabase, tmp_path: Path
) -> None:
    flows = []
    for _ in range(3):
        flow = GameFlow(stack.http, stack.smtp, "gorami", {"board": 16})
        flow.create()
        flow.accept_all()
        flows.append(flow)
    # One game is played to its end over HTTP while the backup is taken.
    player = threading.Thread(target=flows[0].play_to_end)
    player.start()
    time.sleep(1.0)
    backup = tmp_path / "pbem.dump"
    done = stack.run(str(VENV_BIN / "pbem"), "backup", str(backup))
    player.join()
    assert done.returncode == 0, done.stderr
    assert f"backup written to {backup}" in done.stdout

    # Restored on the command line, as an operator would: mail to files, no queue.
    env = {
        **stack.env,
        "DATABASE_URL": empty_database.url,
        "PBEM_OUTBOX_DIR": str(tmp_path / "outbox"),
    }
    for name in ("REDIS_URL", "SMTP_URL"):
        env.pop(name)
    restored = run([str(VENV_BIN / "pbem"), "restore", str(backup)], env)
    assert restored.returncode == 0, restored.stderr
    assert "players emailed a fresh one" in restored.stdout

    app = make_app(
        tmp_path,
        DATABASE_URL=empty_database.url,
        SECRET_KEY=stack.secret_key,
        BASE_URL=stack.base_url,
    )
    with app.app_context():
        client = app.test_client()
        assert len(fresh_letters()) == len({e for f in flows for e in f.emails})
        seats = seat_links(client, stack.base_url)
        ids = [flow.game_id for flow in flows]
        for game_id in ids:
            play_to_end(client, game_id, seats[game_id])
        finished = db.session.execute(select(Game.status).where(Game.id.in_(ids))).scalars()
        assert list(finished) == ["finished"] * len(ids)
        db.session.remove()
        db.engine.dispose()
