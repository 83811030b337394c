"""Board pictures through the real stack: PostgreSQL, Redis, gunicorn, the move worker, the
picture worker of the Procfile (`-Q pictures`) and an SMTP server. A move's email arrives with
the PNG of the board, drawn by the picture worker, put together when sent (its row keeps no
picture) from its own bounce address; the picture is deleted once its email went. Without the
picture worker the email arrives all the same, without the board, once its wait is over."""

from __future__ import annotations

import re
import time
from collections.abc import Iterator

import pytest

from pbem.config import load_settings
from pbem.mailin.tokens import read_bounce_address
from pbem.pictures import PNG_SIGNATURE
from tests.integration.picture_stack import PICTURES_ON, PictureStack
from tests.support import procs
from tests.support.flow import GameFlow, token_of
from tests.support.smtp import Received
from tests.support.stack import PICTURES_QUEUE, Stack

pytestmark = [pytest.mark.integration, pytest.mark.audit, pytest.mark.timeout(600)]

# How long a turn email waits for its picture here (5 s by default).
PICTURE_TIMEOUT = 8
# How late an email whose picture never came may go, past its wait: the send queued for the end
# of the wait, taken from Redis by the worker (not the next sweep: beat is stopped).
ON_TIME_SLACK = 4


@pytest.fixture(scope="module")
def picture_stack(stack_session: Stack) -> Iterator[Stack]:
    """The session's stack with pictures in mail and the picture worker, for this module's
    tests: its processes started again with these settings, and again as before at the end."""
    pictures = PICTURES_ON | {"PBEM_PICTURE_TIMEOUT_SECONDS": str(PICTURE_TIMEOUT)}
    with stack_session.reconfigured(pictures, queues=(PICTURES_QUEUE,)):
        yield stack_session


@pytest.fixture
def stack(picture_stack: Stack, stack: Stack) -> Stack:
    return stack


def _board(mail: Received) -> bytes | None:
    """The PNG the message shows in its HTML (checked to be the cid its <img> names)."""
    pngs = [p for p in mail.message.walk() if p.get_content_type() == "image/png"]
    if not pngs:
        assert "cid:" not in mail.html
        return None
    (png,) = pngs
    content_id = png["Content-ID"].strip("<>")
    (img,) = re.findall(r"<img [^>]*>", mail.html)
    assert f'src="cid:{content_id}"' in img and 'alt="' in img
    data: bytes = png.get_content()
    assert data.startswith(PNG_SIGNATURE)
    return data


# What a turn email's row may take in the database: its text, HTML and headers, no picture
# (the 600-pixel PNG alone is 20 to 70 kB).
ROW_BYTES = 12_000


def _check_sent_from_its_row(stack: PictureStack, mail: Received) -> None:
    """Sent from the row's own bounce address; the row holds its parts, never the picture."""
    outbox_id, size = stack.db.query(
        "select id, pg_column_size(outbox.*) from outbox where message_id = %s", mail.message_id
    )[0]
    assert size < ROW_BYTES, size
    config = load_settings(stack.env)
    assert read_bounce_address(config, mail.mail_from) == outbox_id
    assert mail["From"].endswith("<pbem@pbem.test>") or mail["From"] == "pbem@pbem.test"


def test_a_moves_email_arrives_with_the_board_drawn_by_the_picture_worker(
    stack: PictureStack,
) -> None:
    flow = GameFlow(stack.http, stack.smtp, "gorami", {"board": 16}).start()
    game = flow.game_id
    first = flow.turn_mail(0)
    assert _board(first) is not None
    _check_sent_from_its_row(stack, first)

    link = first.link("/play/")
    assert link
    moves = flow.legal(token_of(link))["moves"]
    assert flow.post_move(link, moves[0], 0).status == 200
    second = flow.turn_mail(1)
    png = _board(second)
    assert png is not None
    _check_sent_from_its_row(stack, second)
    # Kept only while an email needs it: once they went, the sweep deletes the game's pictures.
    procs.wait_until(
        lambda: not stack.db.query("select key from pictures where key like %s", f"{game}/%"),
        timeout=30,
        message="the sweep to delete the pictures no email needs",
    )
    # By the picture worker, which consumes the pictures queue only; never by the worker that
    # applies moves, which does not consume it.
    assert stack.picture_worker is not None
    log = stack.picture_worker.log_tail(200_000)
    # Each worker names the queues it takes at start (workers.heartbeat).
    assert "pictures: drew 1 (0 failed)" in log and ": queues pictures, concurrency" in log
    for worker in stack.workers.values():
        log = worker.log_tail(500_000)
        assert "pictures: drew" not in log and ": queues celery, concurrency" in log
        assert "queues pictures" not in log


def test_without_the_picture_worker_the_email_goes_without_the_board_once_its_wait_is_over(
    stack: PictureStack,
) -> None:
    """Overload degrades, never delays: with the picture worker gone, and beat too (so no sweep
    rescues the email), the email goes without its picture when its wait is over, not later,
    and its row says it went without."""
    flow = GameFlow(stack.http, stack.smtp, "gorami", {"board": 16}).start()
    first = flow.turn_mail(0)
    assert stack.picture_worker is not None and stack.beat is not None
    stack.picture_worker.stop()
    stack.beat.stop()
    try:
        link = first.link("/play/")
        assert link
        moves = flow.legal(token_of(link))["moves"]
        posted = time.time()
        assert flow.post_move(link, moves[0], 0).status == 200
        second = flow.turn_mail(1)
        waited = second.accepted_at - posted
        assert PICTURE_TIMEOUT - 1 <= waited <= PICTURE_TIMEOUT + ON_TIME_SLACK, waited
        assert _board(second) is None and "<!-- pbem:board -->" not in second.html
        _check_sent_from_its_row(stack, second)
        assert stack.db.query(
            "select without_picture from outbox where message_id = %s", second.message_id
        ) == [(True,)]
    finally:
        stack.start()
    # The picture task queued meanwhile finds its email gone and draws nothing.
    procs.wait_until(lambda: stack.queue_empty(), timeout=60, message="the queues to drain")
    assert stack.db.query("select key from pictures where key = %s", f"{flow.game_id}/1/1") == []
