"""The migrations build exactly the models' schema, and the schema guards its invariants."""

from __future__ import annotations

from pathlib import Path

import pytest
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from flask import Flask
from flask_migrate import upgrade
from sqlalchemy.exc import IntegrityError

from pbem.extensions import db
from pbem.models import Game, Move, Submission
from tests.conftest import make_app
from tests.support.needs import missing


def test_upgrade_on_an_empty_database_yields_the_models_schema(tmp_path: Path) -> None:
    _assert_migrations_match_models(make_app(tmp_path))


def test_upgrade_on_an_empty_postgresql_database_yields_the_models_schema(tmp_path: Path) -> None:
    from tests.support.pg import TempDatabase, server_available

    if (why := server_available()) is not None:
        missing(f"PostgreSQL unavailable: {why}")
    database = TempDatabase(prefix="pbem_models").create()
    try:
        _assert_migrations_match_models(make_app(tmp_path, DATABASE_URL=database.url))
    finally:
        database.drop()


def _assert_migrations_match_models(app: Flask) -> None:
    with app.app_context():
        upgrade()
        with db.engine.connect() as connection:
            context = MigrationContext.configure(
                connection, opts={"compare_type": True, "render_as_batch": True}
            )
            assert compare_metadata(context, db.metadata) == []
        db.engine.dispose()


def _game() -> Game:
    game = Game(engine="countdown", options={}, seed=1, thread_message_id="<t@x>")
    db.session.add(game)
    db.session.flush()
    return game


def test_game_ids_are_random_and_url_safe(app: Flask) -> None:
    ids = {_game().id for _ in range(20)}
    assert len(ids) == 20
    assert all(len(i) >= 12 and i.replace("-", "").replace("_", "").isalnum() for i in ids)


def test_a_ply_holds_one_move(app: Flask) -> None:
    game = _game()
    db.session.add(Move(game_id=game.id, ply=0, seat=0, move="1"))
    db.session.commit()
    db.session.add(Move(game_id=game.id, ply=0, seat=1, move="2"))
    with pytest.raises(IntegrityError):
        db.session.commit()


def test_a_ply_has_at_most_one_applied_submission(app: Flask) -> None:
    game = _game()
    for move in ("1", "2"):
        db.session.add(Submission(game_id=game.id, seat=0, ply=0, move=move, status="rejected"))
    db.session.add(Submission(game_id=game.id, seat=0, ply=0, move="3", status="applied"))
    db.session.commit()
    db.session.add(Submission(game_id=game.id, seat=0, ply=0, move="1", status="applied"))
    with pytest.raises(IntegrityError):
        db.session.commit()


def _games_made_before_the_organiser(app: Flask) -> None:
    """A database at the first revision, with a running game in it, upgraded to the head."""
    from sqlalchemy import text

    with app.app_context():
        upgrade(revision="0001_initial")
        with db.engine.begin() as conn:
            conn.execute(
                text("insert into players (id, email, created_at) values (1, 'a@example.org', :t)"),
                {"t": "2026-11-01 10:00:00"},
            )
            conn.execute(
                text(
                    "insert into games (id, engine, options, seed, ply, status, thread_message_id,"
                    " created_at) values ('g1', 'countdown', '{}', 7, 3, 'running', '<t@x>',"
                    " '2026-11-01 10:00:00')"
                )
            )
            conn.execute(
                text(
                    "insert into seats (game_id, seat, player_id, nonce, invited_at)"
                    " values ('g1', 0, 1, 'n0', '2026-11-01 10:00:00')"
                )
            )
        upgrade()
        with db.engine.connect() as conn:
            game = conn.execute(text("select * from games")).mappings().one()
            player = conn.execute(text("select * from players")).mappings().one()
            seat = conn.execute(text("select * from seats")).mappings().one()
        assert game["id"] == "g1" and game["ply"] == 3 and game["status"] == "running"
        assert game["organiser_id"] is None and game["confirmed_at"] is not None
        assert player["email"] == "a@example.org" and len(player["nonce"]) >= 12
        assert seat["nonce"] == "n0"  # the seat's links keep working
        db.engine.dispose()


def test_upgrade_keeps_every_game_made_before(tmp_path: Path) -> None:
    _games_made_before_the_organiser(make_app(tmp_path))


def test_upgrade_keeps_every_game_made_before_on_postgresql(tmp_path: Path) -> None:
    from tests.support.pg import TempDatabase, server_available

    if (why := server_available()) is not None:
        missing(f"PostgreSQL unavailable: {why}")
    database = TempDatabase(prefix="pbem_upgrade").create()
    try:
        _games_made_before_the_organiser(make_app(tmp_path, DATABASE_URL=database.url))
    finally:
        database.drop()


def test_a_game_id_never_looks_like_a_command_line_option(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from pbem import models

    drawn = iter(["-Bm5clIncSs6", "xBm5clIncSs6"])
    monkeypatch.setattr(models.secrets, "token_urlsafe", lambda n: next(drawn))
    assert models.new_game_id() == "xBm5clIncSs6"
