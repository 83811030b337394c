"""Sending the outbox: each row transmitted at most once, a failed attempt retried with backoff,
given up after too many."""

from __future__ import annotations

import smtplib
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import timedelta

import pytest
from flask import Flask

from pbem.domain import starting
from pbem.domain.delivery import Delivery, send_outbox
from pbem.extensions import db, settings
from pbem.models import PENDING, OutboxMessage, utcnow
from tests.domain.flow import EMAILS


def test_failed_sends_back_off_then_succeed_once(
    app: Flask, monkeypatch: pytest.MonkeyPatch
) -> None:
    config = settings()
    created = starting.create_game(config, "countdown", {}, EMAILS)
    row_id = created.outbox_ids[0]
    sent: list[int] = []

    @contextmanager
    def down(row: OutboxMessage, settings: object, built: object = None) -> Iterator[None]:
        raise smtplib.SMTPServerDisconnected("connection refused")
        yield

    monkeypatch.setattr("pbem.mail.delivering", down)
    now = utcnow()
    assert send_outbox(config, row_id, now) == Delivery("retry", 10)
    assert send_outbox(config, row_id, now) == Delivery("retry", 20)
    row = db.session.get(OutboxMessage, row_id)
    assert row is not None and row.attempts == 2 and row.status == PENDING
    assert row.next_attempt_at == now + timedelta(seconds=20)
    assert "connection refused" in (row.last_error or "")

    @contextmanager
    def up(row: OutboxMessage, settings: object, built: object = None) -> Iterator[None]:
        sent.append(row.id)
        yield

    monkeypatch.setattr("pbem.mail.delivering", up)
    assert send_outbox(config, row_id).status == "sent"
    assert send_outbox(config, row_id).status == "skipped"
    assert sent == [row_id]


def test_sending_gives_up_after_max_attempts(app: Flask, monkeypatch: pytest.MonkeyPatch) -> None:
    config = settings()
    row_id = starting.create_game(config, "countdown", {}, EMAILS).outbox_ids[0]

    @contextmanager
    def down(row: OutboxMessage, settings: object, built: object = None) -> Iterator[None]:
        raise OSError("no route")
        yield

    monkeypatch.setattr("pbem.mail.delivering", down)
    statuses = [send_outbox(config, row_id).status for _ in range(12)]
    assert statuses == ["retry"] * 11 + ["failed"]
