"""Revision 0016 on a database with games played before moves' words were messages: a GORami
game's moves, stored in English, are replayed from its seed and stored as the engine's messages
(read in English as before, and in French); a game that no longer replays keeps its words; the
downgrade writes English back. On SQLite and on PostgreSQL."""

from __future__ import annotations

import json
from pathlib import Path

from flask import Flask
from flask_migrate import downgrade, upgrade
from sqlalchemy import text

from pbem import games, i18n
from pbem.domain import wording
from pbem.extensions import db
from tests.conftest import make_app
from tests.support.needs import missing

AT = "2026-11-01 10:00:00"
SEED = 7


def _played() -> list[tuple[str, str]]:
    """Three GORami moves from the start of seed SEED and their English words."""
    state = games.get("gorami").new(2, {}, SEED)
    out = []
    for _ in range(3):
        move = state.legal_moves()[0]
        state, words = state.play_described(move)
        out.append((move, str(words)))
    return out


def _fill_at_0015(moves: list[tuple[str, str]]) -> None:
    with db.engine.begin() as conn:
        for player in (1, 2):
            conn.execute(
                text(
                    "insert into players (id, email, created_at, nonce)"
                    " values (:id, :email, :t, :nonce)"
                ),
                {"id": player, "email": f"p{player}@example.org", "t": AT, "nonce": f"p{player}"},
            )
        for game, engine in (("g1", "gorami"), ("g2", "gorami")):
            conn.execute(
                text(
                    "insert into games (id, engine, options, seed, state, ply, status,"
                    " thread_message_id, created_at, language, timeout_policy)"
                    " values (:id, :engine, '{}', :seed, '{}', 3, 'running', '<t@x>', :t, 'en',"
                    " 'drop')"
                ),
                {"id": game, "engine": engine, "seed": SEED, "t": AT},
            )
            for seat in (0, 1):
                conn.execute(
                    text(
                        "insert into seats (game_id, seat, player_id, nonce, invited_at)"
                        " values (:game, :seat, :player, :nonce, :t)"
                    ),
                    {
                        "game": game,
                        "seat": seat,
                        "player": seat + 1,
                        "nonce": f"{game}{seat}",
                        "t": AT,
                    },
                )
            for ply, (move, words) in enumerate(moves):
                # g2's record was damaged by hand: its second move is not a move.
                stored = "zz9" if game == "g2" and ply == 1 else move
                conn.execute(
                    text(
                        "insert into moves (game_id, ply, seat, move, words, created_at)"
                        " values (:game, :ply, :seat, :move, :words, :t)"
                    ),
                    {
                        "game": game,
                        "ply": ply,
                        "seat": ply % 2,
                        "move": stored,
                        "words": words,
                        "t": AT,
                    },
                )


def _words(game: str) -> list[str]:
    with db.engine.connect() as conn:
        return list(
            conn.execute(
                text("select words from moves where game_id = :g order by ply"), {"g": game}
            ).scalars()
        )


def _migrate(app: Flask) -> None:
    moves = _played()
    english = [words for _, words in moves]
    with app.app_context():
        upgrade(revision="0015_languages")
        _fill_at_0015(moves)
        upgrade(revision="0016_move_words_as_messages")
        stored = _words("g1")
        assert all(json.loads(s)["game"] == "gorami" for s in stored), stored
        assert [wording.read_english(s) for s in stored] == english
        with i18n.using("fr"):
            french = [wording.read_words(s) for s in stored]
        assert all(" a posé un " in s for s in french), french
        assert _words("g2") == english, "a game that does not replay keeps its words"
        downgrade(revision="0015_languages")
        assert _words("g1") == english
        db.engine.dispose()


def test_upgrade_to_0016_stores_moves_as_messages(tmp_path: Path) -> None:
    _migrate(make_app(tmp_path))


def test_upgrade_to_0016_stores_moves_as_messages_on_postgresql(tmp_path: Path) -> None:
    from tests.support.pg import TempDatabase, server_available

    if (why := server_available()) is not None:
        missing(f"PostgreSQL unavailable: {why}")
    database = TempDatabase(prefix="pbem_words").create()
    try:
        _migrate(make_app(tmp_path, DATABASE_URL=database.url))
    finally:
        database.drop()
