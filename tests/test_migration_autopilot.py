"""Revision 0008 on a database that has games on autopilot and moves: seats on autopilot keep
the bot that played them then (the search bot), and every move stored before reads as made by
its player; the downgrade takes the columns away again. On SQLite and on PostgreSQL."""

from __future__ import annotations

from pathlib import Path

from flask import Flask
from flask_migrate import downgrade, upgrade
from sqlalchemy import inspect, text

from pbem.extensions import db
from tests.conftest import make_app
from tests.support.needs import missing

AT = "2026-11-01 10:00:00"


def _fill_at_0007() -> None:
    """A running game of two people at revision 0007, seat 1 on autopilot, one move played."""
    with db.engine.begin() as conn:
        for player, email in ((1, "a@example.org"), (2, "b@example.org")):
            conn.execute(
                text(
                    "insert into players (id, email, created_at, nonce)"
                    " values (:id, :email, :t, :nonce)"
                ),
                {"id": player, "email": email, "t": AT, "nonce": f"p{player}"},
            )
        conn.execute(
            text(
                "insert into games (id, engine, options, seed, ply, status, thread_message_id,"
                " created_at) values ('g1', 'countdown', '{}', 7, 1, 'running', '<t@x>', :t)"
            ),
            {"t": AT},
        )
        for seat, since in ((0, None), (1, AT)):
            conn.execute(
                text(
                    "insert into seats (game_id, seat, player_id, nonce, invited_at,"
                    " autopilot_since) values ('g1', :seat, :player, :nonce, :t, :piloted)"
                ),
                {"seat": seat, "player": seat + 1, "nonce": f"n{seat}", "t": AT, "piloted": since},
            )
        conn.execute(
            text(
                "insert into moves (game_id, ply, seat, move, created_at)"
                " values ('g1', 0, 1, '3', :t)"
            ),
            {"t": AT},
        )


def _upgrade_keeps_who_played(app: Flask) -> None:
    with app.app_context():
        upgrade(revision="0007_bots")
        _fill_at_0007()
        upgrade(revision="0008_autopilot_marks")
        with db.engine.connect() as conn:
            seats = conn.execute(text("select seat, autopilot_bot from seats order by seat")).all()
            moves = conn.execute(text("select autopilot from moves")).scalars().all()
        assert [tuple(row) for row in seats] == [(0, None), (1, "mcts")]
        assert moves == [None], "a move stored before reads as made by its player"
        downgrade(revision="0007_bots")
        columns = {c["name"] for c in inspect(db.engine).get_columns("moves")}
        assert "autopilot" not in columns
        db.engine.dispose()


def test_upgrade_to_0008_keeps_who_played_each_seat(tmp_path: Path) -> None:
    _upgrade_keeps_who_played(make_app(tmp_path))


def test_upgrade_to_0008_keeps_who_played_each_seat_on_postgresql(tmp_path: Path) -> None:
    from tests.support.pg import TempDatabase, server_available

    if (why := server_available()) is not None:
        missing(f"PostgreSQL unavailable: {why}")
    database = TempDatabase(prefix="pbem_autopilot").create()
    try:
        _upgrade_keeps_who_played(make_app(tmp_path, DATABASE_URL=database.url))
    finally:
        database.drop()
