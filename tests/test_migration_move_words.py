"""Revisions 0016 and 0017 on a database with games played before moves' words were messages:
a game's moves, stored in English, are replayed from its seed and stored as the engine's messages
(read in English as before, and in French); a game that no longer replays keeps its words; going
down to 0015 writes English back. 0017 does it again for Marram, which spoke English when 0016
ran. On SQLite and on PostgreSQL."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path

import pytest
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


def _played(engine: str = "gorami") -> list[tuple[str, str]]:
    """Three moves of `engine` from the start of seed SEED and their English words."""
    state = games.get(engine).new(2, {}, SEED)
    out = []
    for _ in range(3):
        move = state.legal_moves()[0]
        state, words = state.play_described(move)
        out.append((move, str(words)))
    return out


def _fill(moves: list[tuple[str, str]], engine: str = "gorami", first: bool = True) -> None:
    """Games g1 and g2 of `engine` (`first`: and their players), both with `moves`; g2's
    record damaged. Named g3 and g4 when not `first`."""
    names = ("g1", "g2") if first else ("g3", "g4")
    with db.engine.begin() as conn:
        for player in (1, 2) if first else ():
            conn.execute(
                text(
                    "insert into players (id, email, created_at, nonce)"
                    " values (:id, :email, :t, :nonce)"
                ),
                {"id": player, "email": f"p{player}@example.org", "t": AT, "nonce": f"p{player}"},
            )
        for game in names:
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
                stored = "zz9" if game == names[1] and ply == 1 else move
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


def _restated(game: str, engine: str, english: list[str], french: re.Pattern[str]) -> list[str]:
    """Game `game`'s words as the upgrade stored them: `engine`'s messages, said as `english`
    and, in French, each matching `french`; its damaged twin (the next game) kept as it was."""
    stored = _words(game)
    assert all(json.loads(s)["game"] == engine for s in stored), stored
    assert [wording.read_english(s) for s in stored] == english
    with i18n.using("fr"):
        said = [wording.read_words(s) for s in stored]
    assert all(french.search(s) for s in said), said
    twin = f"g{int(game[1:]) + 1}"
    assert _words(twin) == english, "a game that does not replay keeps its words"
    return stored


def _migrate(app: Flask) -> None:
    moves = _played()
    english = [words for _, words in moves]
    with app.app_context():
        upgrade(revision="0015_languages")
        _fill(moves)
        upgrade(revision="0016_move_words_as_messages")
        _restated("g1", "gorami", english, re.compile(" a posé un "))
        downgrade(revision="0015_languages")
        assert _words("g1") == english
        db.engine.dispose()


def _migrate_marram(app: Flask) -> None:
    """A database at 0016 (GORami's words messages) with Marram games stored in English."""
    marram = _played("marram")
    english = [words for _, words in marram]
    with app.app_context():
        upgrade(revision="0015_languages")
        _fill(_played())
        upgrade(revision="0016_move_words_as_messages")
        at_0016 = _words("g1")
        _fill(marram, "marram", first=False)
        upgrade(revision="0017_move_words_restated")
        french = re.compile(" a (posé|retourné) (une|la) tuile ")
        stored = _restated("g3", "marram", english, french)
        assert _words("g1") == at_0016, "GORami's messages are left as they were"
        downgrade(revision="0016_move_words_as_messages")
        assert _words("g3") == stored, "0016 reads the messages as they are"
        downgrade(revision="0015_languages")
        assert _words("g3") == english
        db.engine.dispose()


def test_upgrade_to_0016_stores_moves_as_messages(tmp_path: Path) -> None:
    _migrate(make_app(tmp_path))


def test_upgrade_to_0017_stores_marram_moves_as_messages(tmp_path: Path) -> None:
    _migrate_marram(make_app(tmp_path))


@pytest.mark.parametrize("migrate", [_migrate, _migrate_marram])
def test_the_upgrades_store_moves_as_messages_on_postgresql(
    tmp_path: Path, migrate: Callable[[Flask], None]
) -> None:
    from tests.support.pg import TempDatabase, server_available

    if (why := server_available()) is not None:
        missing(f"PostgreSQL unavailable: {why}")
    database = TempDatabase(prefix="pbem_words").create()
    try:
        migrate(make_app(tmp_path, DATABASE_URL=database.url))
    finally:
        database.drop()
