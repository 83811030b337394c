"""The hidden-information walk at full length: every engine and variant, more seeds, every ply.

tests/security/test_hidden_information.py runs the same walk (tests/support/surfaces.py) on 3
seeds a variant, every 7th ply and the last. This plays more games and checks each seat's every
answer at every ply against a twin the seat cannot tell apart; it prints one row per variant and
exits 1 if any answer differed.

    .venv/bin/python bench/hidden_walk.py --seeds 5 --every 1

`--shard 0/2` and `--shard 1/2` in two processes split the games between two cores.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

import time_machine  # noqa: E402

from pbem.extensions import db  # noqa: E402
from tests.conftest import make_app  # noqa: E402
from tests.support import surfaces  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=5, help="games per variant (default 5)")
    parser.add_argument("--every", type=int, default=1, help="check every Nth ply (default 1)")
    parser.add_argument("--engine", help="only this engine")
    parser.add_argument("--shard", default="0/1", help="I/N: every Nth game from the Ith (0/1)")
    args = parser.parse_args()
    first, every = (int(part) for part in args.shard.split("/"))
    cases = [c for c in surfaces.cases(range(args.seeds)) if args.engine in (None, c.engine)]
    cases = cases[first::every]
    print("| game | games | plies checked | answers differing | seconds |")
    print("|---|---:|---:|---:|---:|")
    failed = False
    rows: dict[str, list[float]] = {}
    for case in cases:
        started = time.monotonic()
        with tempfile.TemporaryDirectory() as folder:
            app = make_app(Path(folder))
            with app.app_context(), time_machine.travel(surfaces.AT, tick=False):
                db.create_all()
                checked, found = surfaces.walk(app, case, every=args.every)
                db.session.remove()
                db.engine.dispose()
        for line in found:
            print(f"{case.name}: {line}", file=sys.stderr)
        failed = failed or bool(found)
        key = case.name.rsplit("-", 2)[0]
        row = rows.setdefault(key, [0, 0, 0, 0.0])
        row[0] += 1
        row[1] += checked
        row[2] += len(found)
        row[3] += time.monotonic() - started
    for key, (count, checked, differing, seconds) in rows.items():
        print(f"| {key} | {count:.0f} | {checked:.0f} | {differing:.0f} | {seconds:.0f} |")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
