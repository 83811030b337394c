"""Every kind of email pbem sends, as a mail server receives it, scored by SpamAssassin (local
tests only: no network, no DNS lists): each must stay well below the usual 5.0 threshold."""

from __future__ import annotations

import re
import shutil
import subprocess
from types import SimpleNamespace

from flask import Flask

from pbem import mail
from pbem.domain import outbox
from pbem.extensions import settings
from pbem.models import utcnow
from tests.domain.flow import start
from tests.domain.test_outbox import _one_letter_of_each_kind
from tests.support.needs import missing

# The bar: every kind scores below 2.0.
MOST = 2.0
SCORE_RE = re.compile(r"^X-Spam-Status: \w+, score=(-?[0-9.]+)", re.M)


def _score(message: bytes) -> tuple[float, str]:
    done = subprocess.run(
        ["spamassassin", "--local", "--test-mode"],
        input=message,
        capture_output=True,
        timeout=120,
        check=True,
    )
    report = done.stdout.decode("utf-8", "replace")
    match = SCORE_RE.search(report)
    assert match, report[:2000]
    return float(match.group(1)), report


def test_every_kind_of_mail_scores_below_two(app: Flask) -> None:
    if shutil.which("spamassassin") is None:
        missing("spamassassin is not installed (scripts/services.sh installs it)")
    config = settings()
    scored: dict[str, float] = {}
    for kind, letters in _one_letter_of_each_kind(start(options={"pile": 5})).items():
        for number, letter in enumerate(letters):
            subject, text, html = outbox.render(kind, letter.context)
            row = SimpleNamespace(
                id=number + 1,
                kind=kind,
                to=letter.to,
                subject=subject,
                text=text,
                html=html,
                message_id=mail.new_message_id("g", config.mail_from),
                in_reply_to=None,
                references=None,
                # As sent: turn and digest mail carries List-Unsubscribe (RFC 8058).
                reply_to=letter.reply_to,
                list_unsubscribe=letter.list_unsubscribe,
                created_at=utcnow(),
            )
            score, report = _score(mail.message_bytes(row, config.mail_from))
            assert score < MOST, f"{kind} scored {score}:\n{report[-1500:]}"
            scored[f"{kind}#{number}"] = score
    assert {"invite", "turn", "reminder", "digest", "result", "signin", "bounced"} <= {
        k.split("#")[0] for k in scored
    }
