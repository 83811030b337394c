"""What the embedded default's SQLite file keeps a move, with board pictures on (a benchmark).

Plays GORami games to their end in-process, as `pbem serve` does (moves applied, emails written,
pictures drawn and emails sent into the outbox folder right after each commit), on a fresh
SQLite file migrated as `pbem serve` migrates it, running the sweep's pruning of pictures every
`--sweep-moves` moves. Reports the file's growth a move (database and WAL), what it holds after
VACUUM, and what it holds once the delivered bodies are emptied as PBEM_MAIL_KEEP_DAYS later.

    .venv/bin/python bench/embedded_storage.py [--moves 5000] [--sweep-moves 100] [--seed 1]
"""

from __future__ import annotations

import argparse
import random
import sys
import tempfile
import time
from datetime import timedelta
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from flask_migrate import upgrade  # noqa: E402

from pbem.domain import board_pictures, views  # noqa: E402
from pbem.domain import sweep as sweeping  # noqa: E402
from pbem.extensions import db, settings  # noqa: E402
from pbem.models import utcnow  # noqa: E402
from tests.conftest import make_app  # noqa: E402
from tests.domain.flow import play, start  # noqa: E402


def file_bytes(path: Path) -> int:
    return sum(p.stat().st_size for p in path.parent.glob(path.name + "*"))


def compact() -> None:
    """VACUUM, and the WAL written back into the file and emptied."""
    db.session.remove()
    with db.engine.connect() as conn:
        conn.exec_driver_sql("VACUUM")
        conn.exec_driver_sql("PRAGMA wal_checkpoint(TRUNCATE)")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--moves", type=int, default=5000)
    parser.add_argument("--sweep-moves", type=int, default=100)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    rng = random.Random(args.seed)
    with tempfile.TemporaryDirectory() as tmp:
        app = make_app(Path(tmp), PBEM_MAIL_PICTURES="on")
        path = Path(tmp) / "pbem.db"
        with app.app_context():
            upgrade()
            compact()
            before = file_bytes(path)
            moves = games = 0
            started = time.process_time()
            while moves < args.moves:
                game = start("gorami", {"board": 16}, seed=rng.randrange(2**31))
                games += 1
                while True:
                    db.session.refresh(game)
                    state = views.load_state(game)
                    if state is None or state.outcome is not None:
                        break
                    play(game, rng.choice(state.legal_moves()))
                    moves += 1
                    if moves % args.sweep_moves == 0:
                        board_pictures.prune()
            cpu = time.process_time() - started
            board_pictures.prune()
            db.session.commit()
            grown = file_bytes(path) - before
            compact()
            held = file_bytes(path) - before
            later = utcnow() + timedelta(days=settings().mail.keep_days, seconds=1)
            while sweeping.prune_bodies(settings(), later, limit=10_000):
                pass
            compact()
            pruned = file_bytes(path) - before
            db.session.remove()
            db.engine.dispose()
    kb = 1024.0 * moves
    print(f"{games} games, {moves} moves, {1000 * cpu / moves:.1f} ms of CPU a move")
    print(
        f"SQLite per move: grew {grown / kb:.1f} kB, holds {held / kb:.1f} kB (after VACUUM), "
        f"{pruned / kb:.1f} kB once delivered bodies are pruned"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
