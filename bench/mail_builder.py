"""CPU cost of building one email, as the sending worker builds it (a benchmark, not a test).

Plays a few moves of a GORami game through the domain, in-process on SQLite with board pictures
on, and takes the last turn email's outbox row as the claim reads it (with its picture). Then
times, with the process's CPU clock, one thread:

- pbem.mail.envelope: the message built from the row (`pbem.mail.building`), its bytes written by
  `pbem.mail.writer` (EmailMessage, BytesGenerator, policy SMTP, the headers handed over as
  finished header objects), without and with the board picture;
- the same plus the DKIM signature (pbem.dkim_signing, dkimpy, an RSA key of `--key-bits`);
- for reference, the same message built the usual way with the email package: `EmailMessage`
  with policy SMTP, every header set as a string (parsed and refolded by the policy) and the
  bodies set with `set_content`/`add_related`.

Prints the mean milliseconds per message (best of `--repeat` rounds of `--count` builds) and the
size of each message.

    .venv/bin/python bench/mail_builder.py [--count 2000] [--repeat 5] [--key-bits 2048]
"""

from __future__ import annotations

import argparse
import dataclasses
import platform
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from email.message import EmailMessage
from email.policy import SMTP
from email.utils import format_datetime
from pathlib import Path
from types import SimpleNamespace
from typing import Any

REPO = Path(__file__).resolve().parent.parent
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from bench.opening import play_opening  # noqa: E402
from pbem import mail  # noqa: E402
from pbem.app import create_app  # noqa: E402
from pbem.domain import delivery  # noqa: E402
from pbem.extensions import db, settings  # noqa: E402
from pbem.models import OutboxMessage  # noqa: E402

NAMES = ["Zoë Ångström", "Bob"]


def a_turn_row(folder: Path) -> Any:
    """The outbox row of a turn email in a GORami game 6 moves in, read as the claim reads it."""
    app = create_app(
        {
            "PBEM_ENV": "test",
            "DATABASE_URL": f"sqlite:///{folder / 'pbem.db'}",
            "REDIS_URL": None,
            "SMTP_URL": None,
            "SECRET_KEY": "bench-secret-key-0123456789",
            "BASE_URL": "https://pbem.example",
            "MAIL_FROM": "pbem <games@pbem.example>",
            "PBEM_VAR_DIR": str(folder / "var"),
            "PBEM_OUTBOX_DIR": str(folder / "outbox"),
            "PBEM_MAIL_PICTURES": "on",
            "PBEM_RATE_LIMITS": "off",
        }
    )
    with app.app_context():
        db.create_all()
        config = settings()
        play_opening(config, 6)
        last = db.session.query(OutboxMessage).filter_by(kind="turn").order_by(OutboxMessage.id)
        row_id = last.all()[-1].id
        with db.engine.connect() as conn:
            row = conn.execute(delivery._OUTBOX_ROW, {"outbox_id": row_id}).one()
        found = SimpleNamespace(**row._mapping)
        # The row as first built: no bytes stored yet.
        found.raw = None
        return found, config


def usual(row: Any, mail_from: str) -> bytes:
    """The message built as the email package's documentation shows it (policy SMTP)."""
    message = EmailMessage(policy=SMTP)
    message["From"] = mail_from
    message["To"] = row.to
    message["Subject"] = row.subject
    message["Date"] = format_datetime(row.created_at)
    message["Message-ID"] = row.message_id
    if row.in_reply_to:
        message["In-Reply-To"] = row.in_reply_to
    if row.references:
        message["References"] = row.references
    if row.reply_to:
        message["Reply-To"] = row.reply_to
    if row.list_unsubscribe:
        message["List-Unsubscribe"] = f"<{row.list_unsubscribe}>"
        message["List-Unsubscribe-Post"] = "List-Unsubscribe=One-Click"
    message["Auto-Submitted"] = "auto-generated"
    message.set_content(row.text)
    html = row.html.replace(mail.BOARD_MARKER, '<img src="cid:board@pbem.example" alt="">')
    message.add_alternative(html, subtype="html")
    if row.board_png:
        message.get_payload()[1].add_related(
            row.board_png, "image", "png", cid="<board@pbem.example>"
        )
    return message.as_bytes()


def per_message_ms(build: Callable[[], bytes], count: int, repeat: int) -> tuple[float, int]:
    best = float("inf")
    size = len(build())
    for _ in range(repeat):
        started = time.process_time()
        for _ in range(count):
            build()
        best = min(best, (time.process_time() - started) / count)
    return best * 1000, size


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=2000, help="builds per round")
    parser.add_argument("--repeat", type=int, default=5, help="rounds (the best is kept)")
    parser.add_argument("--key-bits", type=int, default=2048, help="RSA key size for DKIM")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder_name:
        folder = Path(folder_name)
        row, config = a_turn_row(folder)
        key = folder / "dkim.pem"
        subprocess.run(
            ["openssl", "genrsa", "-out", str(key), str(args.key_bits)],
            check=True,
            capture_output=True,
        )
        signed = dataclasses.replace(
            config, mail=dataclasses.replace(config.mail, dkim_key_file=key)
        )
        plain = SimpleNamespace(**{**vars(row), "board_png": None, "board_alt": None})
        assert row.board_png, "the picture was not rendered"
        mail_from = config.mail_from
        cases: list[tuple[str, Callable[[], bytes], int]] = [
            ("pbem.mail, no picture", lambda: mail.envelope(plain, mail_from).message, 1),
            ("pbem.mail, picture", lambda: mail.envelope(row, mail_from).message, 1),
            ("pbem.mail + DKIM, no picture", lambda: mail.prepare(plain, signed).message, 10),
            ("pbem.mail + DKIM, picture", lambda: mail.prepare(row, signed).message, 10),
            (
                "usual EmailMessage (policy SMTP), no picture",
                lambda: usual(plain, mail_from),
                4,
            ),
            ("usual EmailMessage (policy SMTP), picture", lambda: usual(row, mail_from), 4),
        ]
        print(
            f"{platform.python_implementation()} {platform.python_version()}, {platform.machine()}"
        )
        print(
            f"a GORami 16 turn email (text {len(row.text)} chars, HTML {len(row.html)} chars, "
            f"PNG {len(row.board_png)} bytes); DKIM RSA {args.key_bits} bits, relaxed/relaxed\n"
        )
        print("| build | ms CPU per message | message bytes |")
        print("|---|---:|---:|")
        for label, build, slower in cases:
            ms, size = per_message_ms(build, max(1, args.count // slower), args.repeat)
            print(f"| {label} | {ms:.3f} | {size:,} |")


if __name__ == "__main__":
    main()
