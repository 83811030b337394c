"""Every kind of email pbem sends, as a mail server receives it, scored by SpamAssassin: Debian's
package with its shipped rules, no network tests, unsigned, links on a DNS name over HTTPS.

In each of the four languages (issue 34). The bar (issue 31): at most 0.5 for a message
without a picture, 1.0 for one with the board picture; the usual spam threshold is 5.0. Each
message's score and the rules it fired are printed (`pytest -s` shows them; a failure quotes
SpamAssassin's report). Audit tier: one SpamAssassin run per message takes about a second
each."""

from __future__ import annotations

import re
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace

import pytest
from flask import Flask

from pbem import games, i18n, mail, pictures
from pbem.domain import outbox
from pbem.domain.outbox import Letter
from pbem.extensions import db, settings
from pbem.models import utcnow
from tests.conftest import make_app
from tests.domain.flow import start
from tests.domain.test_outbox import _one_letter_of_each_kind
from tests.support.needs import missing

pytestmark = pytest.mark.audit

WITHOUT_PICTURE = 0.5
WITH_PICTURE = 1.0
BASE_URL = "https://pbem.example.com"
SCORE_RE = re.compile(r"^X-Spam-Status: \w+, score=(-?[0-9.]+)", re.M)
# The report's table: "-0.0 NO_RELAYS  Informational: ...", one rule a line.
RULE_RE = re.compile(r"^\s*(-?[0-9.]+)\s+([A-Z][A-Z0-9_]+)\s", re.M)


@pytest.fixture
def deployed_app(tmp_path: Path, countdown_engine: None) -> Iterator[Flask]:
    """The app as deployed: links on a DNS name over HTTPS, board pictures on."""
    app = make_app(
        tmp_path,
        BASE_URL=BASE_URL,
        MAIL_FROM="pbem <pbem@example.com>",
        PBEM_MAIL_PICTURES="on",
    )
    with app.app_context():
        db.create_all()
        yield app
        db.session.remove()
        db.engine.dispose()


def _score(message: bytes) -> tuple[float, list[str], str]:
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
    table = report[report.find("Content analysis details:") :]
    fired = [f"{name} {points}" for points, name in RULE_RE.findall(table)]
    return float(match.group(1)), fired, report


@pytest.fixture(scope="module")
def board() -> tuple[bytes, str]:
    """A real board picture and its alt text, as the picture worker draws them (Marram's, the
    largest of the engines' pictures)."""
    state = games.get("marram").new(3, {}, seed=5)
    names = ["Ann", "Bob", "Carol"]
    return pictures.board_png("marram", state, 0, names), pictures.alt_text(
        "marram", state, 0, names
    )


def _as_sent(
    kind: str, number: int, letter: Letter, board: tuple[bytes, str], language: str = "en"
) -> bytes:
    """The message a mail server receives for `letter` in `language`, with its picture."""
    config = settings()
    subject, text, html = outbox.render(kind, letter.context, language)
    root = letter.game.thread_message_id if letter.game is not None else None
    row = SimpleNamespace(
        id=number + 1,
        kind=kind,
        to=letter.to,
        subject=subject,
        text=text,
        html=html,
        message_id=mail.new_message_id("g", config.mail_from),
        # Threaded under the game's first message, as outbox.write_letters threads it.
        in_reply_to=root,
        references=root,
        reply_to=letter.reply_to,
        list_unsubscribe=letter.list_unsubscribe,
        board_png=board[0] if letter.picture else None,
        board_alt=board[1] if letter.picture else None,
        created_at=utcnow(),
        language=language,
    )
    return mail.message_bytes(row, config.mail_from)


@pytest.mark.parametrize("language", i18n.LANGUAGES)
def test_every_kind_of_mail_scores_near_zero(
    deployed_app: Flask, board: tuple[bytes, str], language: str
) -> None:
    if shutil.which("spamassassin") is None:
        missing("spamassassin is not installed (scripts/services.sh installs it)")
    scored: dict[str, float] = {}
    failures: list[str] = []
    for kind, letters in _one_letter_of_each_kind(start(options={"pile": 5})).items():
        for number, letter in enumerate(letters):
            score, fired, report = _score(_as_sent(kind, number, letter, board, language))
            most = WITH_PICTURE if letter.picture else WITHOUT_PICTURE
            picture = " (with its picture)" if letter.picture else ""
            print(f"{language} {kind}#{number}{picture}: {score} {', '.join(fired)}")
            if score > most:
                failures.append(f"{kind}#{number}{picture} scored {score}:\n{report[-1500:]}")
            scored[f"{kind}#{number}"] = score
    assert not failures, "\n\n".join(failures)
    kinds = {key.split("#")[0] for key in scored}
    assert {"invite", "started", "turn", "reminder", "digest", "result", "signin"} <= kinds
    assert {"bounced", "reply", "draw_offer", "cancelled", "autopilot"} <= kinds
