"""A bad message never holds up the others, on the real stack.

Fifty invitations fall due at once, as the sweep finds them after a crash: one is poisoned (an
address holding U+202E, written before addresses were checked at the door, or one the SMTP server
refuses with 550), one goes to an address outside ASCII. The worker sends the other 49 (the
internationalised one with SMTPUTF8), marks the poisoned one failed after one attempt, writes its
organiser one notice, and goes idle: its CPU time stays flat and its log quiet. Before, the
poisoned row stayed pending with 0 attempts and the worker queued its batch again in a hot loop.
"""

from __future__ import annotations

import os
import secrets
import time

import pytest

from tests.support.procs import VENV_BIN, wait_until
from tests.support.stack import Stack

pytestmark = [pytest.mark.integration, pytest.mark.audit, pytest.mark.timeout(600)]

ROWS = 50
POISONED = 17  # which of the fifty
INTERNATIONAL = 33
ORGANISER = "olga-it-poison@example.org"

CLK_TCK = os.sysconf("SC_CLK_TCK")


def _group_cpu_seconds(pgid: int) -> float:
    """CPU seconds (user + system) used so far by every live process of a process group."""
    total = 0.0
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            with open(f"/proc/{entry.name}/stat") as fh:
                raw = fh.read()
        except OSError:
            continue
        fields = raw[raw.rindex(")") + 2 :].split()
        if int(fields[2]) == pgid:
            total += (int(fields[11]) + int(fields[12])) / CLK_TCK
    return total


def _game_with_an_invitation(stack: Stack) -> tuple[str, int]:
    """A game the operator started (its organiser recorded), and its invitation to the other
    player, sent: (game id, that row's id), a real row to copy."""
    other = f"bob-{secrets.token_hex(3)}@example.org"
    made = stack.run(str(VENV_BIN / "pbem"), "new-game", "gorami", ORGANISER, other)
    assert made.returncode == 0, made.stderr
    game_id = made.stdout.split()[1].rstrip(":")
    row_id = wait_until(
        lambda: stack.db.scalar(
            "select id from outbox where game_id = %s and \"to\" = %s and status = 'sent'",
            game_id,
            other,
        ),
        timeout=90,
        message="the game's invitation to be sent",
    )
    return game_id, int(row_id)


def _fifty_due_invitations(stack: Stack, template_id: int, poison: str, tag: str) -> None:
    """Fifty copies of a real invitation row, each to its own address, due an hour ago, written
    in one statement so that the sweep finds them together."""
    with stack.db.connect() as conn:
        conn.execute(
            """
            insert into outbox (game_id, kind, "to", subject, text, html, message_id,
                                in_reply_to, "references", status, attempts, next_attempt_at,
                                created_at)
            select o.game_id, o.kind,
                   case n when %(poisoned)s then %(poison)s
                          when %(international)s then 'jürgen-' || %(tag)s || '@example.org'
                          else 'p' || n || '-' || %(tag)s || '@example.org' end,
                   o.subject, o.text, o.html,
                   '<it-poison.' || %(tag)s || '.' || n || '@pbem.test>',
                   o.in_reply_to, o."references", 'pending', 0,
                   now() at time zone 'utc' - interval '1 hour',
                   now() at time zone 'utc' - interval '1 hour'
            from outbox o, generate_series(1, %(rows)s) as n
            where o.id = %(template)s
            """,
            {
                "poisoned": POISONED,
                "poison": poison,
                "international": INTERNATIONAL,
                "tag": tag,
                "rows": ROWS,
                "template": template_id,
            },
        )


@pytest.mark.parametrize(
    ("poison", "reason"),
    [
        ("hidden", "U+202E"),  # cannot be written: before, a UnicodeEncodeError and a hot loop
        ("refused", "550 5.1.1"),  # the server refuses the recipient
    ],
)
def test_one_poisoned_row_among_fifty(stack: Stack, poison: str, reason: str) -> None:
    tag = secrets.token_hex(4)
    address = f"bob\u202e-{tag}@example.org" if poison == "hidden" else f"refused-{tag}@example.org"
    if poison == "refused":
        stack.smtp.refuse(address, "550 5.1.1 no such user here")
    game_id, template = _game_with_an_invitation(stack)
    workers = list(stack.workers.values())
    log_at = {w.name: w.log_path.stat().st_size for w in workers}
    _fifty_due_invitations(stack, template, address, tag)

    ours = f"message_id like '<it-poison.{tag}.%%'"
    wait_until(
        lambda: (
            stack.db.scalar(f"select count(*) from outbox where {ours} and status = 'pending'") == 0
        ),
        timeout=120,
        message=lambda: (
            "the fifty rows to be done with; the worker's log:\n" + workers[0].log_tail()
        ),
    )
    rows = stack.db.query(
        f'select "to", status, attempts, last_error from outbox where {ours} order by id'
    )
    assert len(rows) == ROWS
    bad = [r for r in rows if r[0] == address]
    good = [r for r in rows if r[0] != address]
    assert [(status, attempts) for _, status, attempts, _ in bad] == [("failed", 1)]
    assert reason in (bad[0][3] or ""), bad
    assert {(status, attempts) for _, status, attempts, _ in good} == {("sent", 1)}

    # Each of the 49 arrived once; the one outside ASCII with SMTPUTF8.
    arrived = [m for m in stack.smtp.messages if m.message_id.startswith(f"<it-poison.{tag}.")]
    assert sorted(m.rcpt_tos[0] for m in arrived) == sorted(to for to, *_ in good)
    (international,) = [m for m in arrived if m.rcpt_tos[0].startswith("jürgen-")]
    assert "SMTPUTF8" in international.mail_options

    # The organiser is told, once, in plain words.
    notices = stack.smtp.wait_for(
        lambda m: m.subject.endswith("could not be delivered") and ORGANISER in m.recipients(),
        what="the organiser's notice",
    )
    assert len([n for n in notices if game_id in n.subject]) == 1
    notice = next(n for n in notices if game_id in n.subject)
    assert reason in notice.text and "could not be" in notice.text

    # Idle: nothing pending, and the worker's CPU time flat while beat sweeps every second.
    wait_until(lambda: stack.settled(game_id), message="the game's work to be done")
    before = sum(_group_cpu_seconds(w.pid) for w in workers)
    time.sleep(3.0)
    used = sum(_group_cpu_seconds(w.pid) for w in workers) - before
    # A hot loop took half a core (1.5 s here); a sweep a second takes a few milliseconds.
    assert used < 0.5, f"the worker used {used:.2f} s of CPU in 3 s while idle"

    # The log: one line for the poisoned row, no traceback, nothing queued again.
    log = ""
    for w in workers:
        with open(w.log_path, "rb") as fh:
            fh.seek(log_at[w.name])
            log += fh.read().decode(errors="replace")
    bad_id = stack.db.scalar(f'select id from outbox where {ours} and "to" = %s', address)
    about_it = [line for line in log.splitlines() if f"outbox {bad_id}:" in line]
    assert len(about_it) == 1 and "given up" in about_it[0], about_it
    assert "Traceback" not in log and "queued again" not in log
