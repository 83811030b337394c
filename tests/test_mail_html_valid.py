"""The Nu HTML checker finds no error in the HTML part of any kind of email, as sent (with its
picture where it has one), in each of the four languages. Audit tier: the checker is a Java
program. The emails of real games (their boards and hands) are checked by
tests/browser/test_pages_valid.py."""

from __future__ import annotations

import email
import email.policy
from email.message import EmailMessage

import pytest
from flask import Flask

from pbem import i18n
from tests.domain.flow import start
from tests.domain.test_outbox import _one_letter_of_each_kind
from tests.support import nu
from tests.test_spam_scores import _as_sent, board, deployed_app

pytestmark = pytest.mark.audit
__all__ = ["board", "deployed_app"]  # the fixtures this module borrows


def html_part(raw: bytes) -> str:
    message = email.message_from_bytes(raw, policy=email.policy.default)
    assert isinstance(message, EmailMessage)
    part = message.get_body(("html",))
    assert part is not None, message["Subject"]
    return str(part.get_content())


def test_every_kind_of_mail_is_valid_html(deployed_app: Flask, board: tuple[bytes, str]) -> None:
    nu.require_checker()
    documents = {}
    for kind, letters in _one_letter_of_each_kind(start(options={"pile": 5})).items():
        for number, letter in enumerate(letters):
            for language in i18n.LANGUAGES:
                sent = _as_sent(kind, number, letter, board, language)
                documents[f"{kind}#{number} ({language})"] = html_part(sent)
    assert len(documents) > 4 * 15
    found = nu.errors(documents)
    assert not found, "\n".join(found)
