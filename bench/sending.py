"""CPU cost of sending one email on the worker's path, end to end (a benchmark, not a test).

What `pbem.domain.delivery.send_outboxes` does for each row, as the worker does it after a move:
claim the row (PostgreSQL, SKIP LOCKED), build the message (never stored: built at every
attempt), send it over SMTP to a sink in another process (aiosmtpd's Sink handler, whose CPU is
not counted), mark the row sent and commit. Rows are copies of a real GORami turn email
(written by the domain on a throwaway PostgreSQL database), sent in batches of 64 like the
worker's.

Reported per email, best of `--repeat` rounds: the CPU of this process (the worker's share) and
of its PostgreSQL backend (from /proc), in milliseconds. Cases: no picture; with the board
picture (the picture rendered beforehand: its cost is bench/pictures.py's); each also DKIM-signed
with an RSA key of 2048 bits. Run from a checkout of any version: cases the code cannot do are
left out.

    .venv/bin/python bench/sending.py [--emails 1024] [--repeat 3]

Needs PostgreSQL at PBEM_TEST_DATABASE_URL (default postgresql://postgres@127.0.0.1:5432/test).
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from sqlalchemy import insert, select, text  # noqa: E402

from bench.opening import play_opening  # noqa: E402
from pbem.app import create_app  # noqa: E402
from pbem.domain import delivery  # noqa: E402
from pbem.extensions import db, settings  # noqa: E402
from pbem.models import PENDING, OutboxMessage, utcnow  # noqa: E402
from tests.support.pg import TempDatabase  # noqa: E402
from tests.support.procs import LOOPBACK, Proc, free_port, port_open, wait_until  # noqa: E402

BATCH = 64
CLK_TCK = os.sysconf("SC_CLK_TCK")


def backend_cpu(pid: int) -> float:
    with open(f"/proc/{pid}/stat") as fh:
        fields = fh.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / CLK_TCK


def a_turn_row(config: Any) -> dict[str, Any]:
    """A turn email of a GORami game a few moves in, as the domain wrote it."""
    play_opening(config, 4)
    row = (
        db.session.execute(
            select(OutboxMessage)
            .where(OutboxMessage.kind == "turn")
            .order_by(OutboxMessage.id.desc())
        )
        .scalars()
        .first()
    )
    assert row is not None
    columns = OutboxMessage.__table__.columns.keys()
    return {name: getattr(row, name) for name in columns if name != "id"}


def copies(template: dict[str, Any], count: int, tag: str, **changes: Any) -> list[int]:
    now = utcnow()
    rows = [
        {
            **template,
            "message_id": f"<bench.{tag}.{n}@pbem.test>",
            "status": PENDING,
            "attempts": 0,
            "sent_at": None,
            "picture": None,
            "next_attempt_at": now,
            "created_at": now,
            **changes,
        }
        for n in range(count)
    ]
    with db.engine.begin() as conn:
        return list(conn.execute(insert(OutboxMessage).returning(OutboxMessage.id), rows).scalars())


def measure(config: Any, ids: list[int]) -> tuple[float, float]:
    """(worker ms, PostgreSQL ms) of CPU per email for sending `ids` in batches."""
    with db.engine.connect() as conn:
        pids = {conn.execute(text("select pg_backend_pid()")).scalar_one()}
    before = time.process_time()
    backend_before = {pid: backend_cpu(pid) for pid in pids}
    for start in range(0, len(ids), BATCH):
        results = delivery.send_outboxes(config, ids[start : start + BATCH])
        assert {r.status for r in results.values()} == {"sent"}, results
    worker = time.process_time() - before
    # The pool hands the same connection back each time (one thread): its backend did the work.
    backend = sum(backend_cpu(pid) - backend_before[pid] for pid in pids)
    return 1000 * worker / len(ids), 1000 * backend / len(ids)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--emails", type=int, default=1024, help="emails per round and case")
    parser.add_argument("--repeat", type=int, default=3, help="rounds (the best is kept)")
    args = parser.parse_args()
    port = free_port()
    sink = Proc(
        "sink",
        [
            sys.executable,
            "-m",
            "aiosmtpd",
            "-n",
            "-c",
            "aiosmtpd.handlers.Sink",
            "-l",
            f"{LOOPBACK}:{port}",
        ],
    ).start()
    wait_until(lambda: port_open(port), timeout=30, message="the SMTP sink")
    database = TempDatabase(prefix="pbem_bench").create()
    folder = Path(tempfile.mkdtemp(prefix="pbem-sending-"))
    try:
        app = create_app(
            {
                "PBEM_ENV": "test",
                "DATABASE_URL": database.url,
                "REDIS_URL": None,
                "SMTP_URL": f"smtp://{LOOPBACK}:{port}",
                "SECRET_KEY": "bench-secret-key-0123456789",
                "BASE_URL": "https://pbem.example",
                "MAIL_FROM": "pbem <games@pbem.example>",
                "PBEM_VAR_DIR": str(folder / "var"),
                "PBEM_MAIL_PICTURES": "off",
                "PBEM_RATE_LIMITS": "off",
            }
        )
        with app.app_context():
            db.create_all()
            config = settings()
            template = a_turn_row(config)
            cases: list[tuple[str, Any, dict[str, Any]]] = [("no picture", config, {})]
            mail_settings = getattr(config, "mail", None)
            if (REPO / "pbem" / "domain" / "board_pictures.py").exists() and mail_settings:
                from pbem import games, pictures
                from pbem.models import Picture

                state = games.get("gorami").new(2, {"board": 16}, seed=7)
                png = pictures.board_png("gorami", state, 0, ["Zoë", "Bob"])
                with db.engine.begin() as conn:
                    conn.execute(
                        insert(Picture).values(
                            key="bench/0/0", png=png, alt="the board", created_at=utcnow()
                        )
                    )
                key = folder / "dkim.pem"
                subprocess.run(
                    ["openssl", "genrsa", "-out", str(key), "2048"], check=True, capture_output=True
                )
                signed = dataclasses.replace(
                    config, mail=dataclasses.replace(mail_settings, dkim_key_file=key)
                )
                cases += [
                    ("picture", config, {"picture": "bench/0/0"}),
                    ("no picture, DKIM", signed, {}),
                    ("picture, DKIM", signed, {"picture": "bench/0/0"}),
                ]
            print(f"{platform.python_implementation()} {platform.python_version()}, {REPO}")
            print(f"{args.emails} emails per round, batches of {BATCH}, best of {args.repeat}\n")
            print("| case | worker ms CPU per email | PostgreSQL ms CPU per email |")
            print("|---|---:|---:|")
            for label, case_config, changes in cases:
                best: tuple[float, float] | None = None
                for round_ in range(args.repeat):
                    ids = copies(template, args.emails, f"{label}.{round_}", **changes)
                    got = measure(case_config, ids)
                    best = got if best is None or sum(got) < sum(best) else best
                assert best is not None
                print(f"| {label} | {best[0]:.3f} | {best[1]:.3f} |")
            db.session.remove()
            db.engine.dispose()
    finally:
        database.drop()
        sink.stop()


if __name__ == "__main__":
    main()
