"""The rows a `pbem` command run under the `cli_env` fixture left in its SQLite database."""

from __future__ import annotations

from pathlib import Path

from sqlalchemy import create_engine, text


def rows(folder: Path, query: str) -> list[tuple[object, ...]]:
    engine = create_engine(f"sqlite:///{folder / 'cli.db'}")
    with engine.connect() as connection:
        found = [tuple(row) for row in connection.execute(text(query)).all()]
    engine.dispose()
    return found
