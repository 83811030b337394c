"""Replies checked against the Authentication-Results the MTA adds (RFC 8601), when
PBEM_MAIL_AUTHSERV_ID names it: a forged From with the seat's reply address no longer plays or
resigns the seat."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from pathlib import Path

import pytest
from flask import Flask

from pbem.extensions import db, settings
from pbem.mailin import handle
from pbem.mailin.authentication import MAX_LENGTH, MAX_TRUSTED, aligned, check
from pbem.mailin.handle import handle_message
from pbem.models import RUNNING
from tests.conftest import make_app
from tests.domain.flow import start
from tests.mailin import messages as m
from tests.mailin.test_handle import _answers, _game, _turn_email

MTA = "mx.pbem.test"
ALICE = "alice@example.org"


# --- the verdict ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "headers",
    [
        [f"{MTA}; dkim=pass header.d=example.org header.s=s1"],
        [f"{MTA}; dkim=pass header.d=mail.example.org"],  # a subdomain of From's
        [f"{MTA}; dkim=pass header.i=@example.org"],  # no d=: the i= domain
        [f"{MTA}; spf=pass smtp.mailfrom={ALICE}"],
        [f"{MTA}; spf=pass smtp.mailfrom=bounces.example.org"],
        [f"{MTA}; dmarc=pass header.from=example.org"],  # the MTA found an aligned pass
        [f"{MTA}; dkim=fail header.d=example.org; spf=pass smtp.mailfrom={ALICE}"],
        # OpenDKIM and OpenDMARC each add a header of their own.
        [f"{MTA}; dkim=pass header.d=example.org", f"{MTA}; dmarc=pass header.from=example.org"],
        ["MX.PBEM.TEST; DKIM=Pass header.d=EXAMPLE.org."],  # case and a root dot
        [f"(by OpenDKIM) {MTA} 1;\r\n\tdkim=pass (2048-bit key) header.d=example.org"],
    ],
)
def test_an_aligned_pass_lets_the_reply_through(headers: list[str]) -> None:
    assert check(MTA, headers, ALICE).refusal == ""
    assert check(MTA, headers, ALICE).checked


@pytest.mark.parametrize(
    ("headers", "reason"),
    [
        ([f"{MTA}; dmarc=fail (p=reject) header.from=example.org"], "DMARC fails for example.org"),
        ([f"{MTA}; dmarc=fail"], "DMARC fails"),  # no header.from: the message's one From
        # An aligned DKIM pass does not outweigh the MTA's DMARC failure.
        (
            [f"{MTA}; dkim=pass header.d=example.org; dmarc=fail header.from=example.org"],
            "DMARC fails",
        ),
        ([f"{MTA}; dkim=pass header.d=example.org", f"{MTA}; dmarc=fail"], "DMARC fails"),
        ([f"{MTA}; dkim=none; spf=none; dmarc=none"], "neither DKIM nor SPF passes"),
        ([f"{MTA}; none"], "neither DKIM nor SPF passes"),
        ([f"{MTA}; dkim=fail header.d=example.org"], "neither DKIM nor SPF passes"),
        ([f"{MTA}; dkim=pass header.d=forger.example"], "neither DKIM nor SPF passes"),
        ([f"{MTA}; dkim=pass header.d=notexample.org"], "neither DKIM nor SPF passes"),
        ([f"{MTA}; dkim=pass header.d=org"], "neither DKIM nor SPF passes"),
        ([f"{MTA}; spf=softfail smtp.mailfrom={ALICE}"], "neither DKIM nor SPF passes"),
        ([f"{MTA}; spf=pass smtp.mailfrom=forger.example"], "neither DKIM nor SPF passes"),
        ([f"{MTA}; spf=pass smtp.helo=example.org"], "neither DKIM nor SPF passes"),
        ([f"{MTA}; dmarc=pass header.from=forger.example"], "neither DKIM nor SPF passes"),
        # The sender's own header, below the MTA's, names another host and is not believed.
        (
            [f"{MTA}; dkim=none; spf=fail smtp.mailfrom={ALICE}", "mx.forger.example; dkim=pass"],
            "neither DKIM nor SPF passes",
        ),
        ([f"{MTA}; dkim=pass header.d=example.org;; ="], "unreadable"),
        # Ours by its name, in a form the parser does not take: not taken on its word.
        ([f'"{MTA}"; dkim=pass header.d=example.org'], "unreadable"),
        ([f"{MTA}; dkim=pass " + "(" * 2000 + ")" * 2000], "unreadable"),
        ([f"{MTA}; dkim=pass header.d=example.org (" + "x" * MAX_LENGTH + ")"], "unreadable"),
    ],
)
def test_a_failure_or_no_aligned_pass_refuses_the_reply(headers: list[str], reason: str) -> None:
    verdict = check(MTA, headers, ALICE)
    assert verdict.checked and reason in verdict.refusal, verdict


def test_only_the_named_mta_counts() -> None:
    # Other hosts' headers (the sender's own, a forwarder's) say nothing here, pass or fail.
    others = [
        "mx.forger.example; dkim=pass header.d=example.org; dmarc=pass header.from=example.org",
        "mx.other.example; dmarc=fail header.from=example.org",
        "mx.pbem.test.forger.example; dmarc=fail",
        "=?us-ascii?q?mx.pbem.test?=; dmarc=fail",  # an encoded word is not the MTA's name
    ]
    assert check(MTA, others, ALICE) == check(MTA, [], ALICE)
    assert not check(MTA, others, ALICE).checked and not check(MTA, others, ALICE).refusal


def test_the_mtas_header_counts_wherever_it_was_added() -> None:
    # Some milters add theirs at the end, below however many the sender wrote.
    junk = [f"mx.forger.example; dkim=pass header.d=example.org ({n})" for n in range(200)]
    failed = f"{MTA}; dkim=none; dmarc=fail header.from=example.org"
    assert "DMARC fails" in check(MTA, [*junk, failed], ALICE).refusal


def test_too_many_headers_of_the_mta_refuse_the_reply() -> None:
    passed = f"{MTA}; dkim=pass header.d=example.org"
    assert check(MTA, [passed] * MAX_TRUSTED, ALICE).refusal == ""
    verdict = check(MTA, [passed] * (MAX_TRUSTED + 1), ALICE)
    assert f"it has {MAX_TRUSTED + 1} Authentication-Results headers of {MTA}" == verdict.refusal


def test_internationalised_domains_compare_as_a_labels() -> None:
    headers = [f"{MTA}; dkim=pass header.d=xn--bcher-kva.example"]
    assert check(MTA, headers, "anna@bücher.example").refusal == ""


def test_alignment_is_equal_or_a_subdomain_either_way() -> None:
    assert aligned("example.org", "example.org")
    assert aligned("mail.example.org", "example.org")
    assert aligned("example.org", "eu.example.org")
    assert not aligned("a.example.org", "b.example.org")  # siblings: DMARC's pass lets them by
    assert not aligned("notexample.org", "example.org")
    assert not aligned("org", "example.org") and not aligned("", "example.org")


# --- replies by mail -----------------------------------------------------------------------------


@pytest.fixture
def checked_app(tmp_path: Path, countdown_engine: None) -> Iterator[Flask]:
    """The app of the `app` fixture, trusting the Authentication-Results of MTA."""
    app = make_app(tmp_path, PBEM_MAIL_AUTHSERV_ID=MTA)
    with app.app_context():
        db.create_all()
        yield app
        db.session.remove()
        db.engine.dispose()


def test_an_authenticated_reply_is_played(checked_app: Flask) -> None:
    game = start()
    player, original = _turn_email(game)
    passed = f"{MTA}; dkim=pass header.d=example.org; dmarc=pass header.from=example.org"
    outcome = handle_message(settings(), m.delivered(m.gmail(player, original, "2"), passed))
    assert outcome.status == handle.APPLIED, outcome.line()
    assert _game(game.id).ply == 1


@pytest.mark.parametrize("body", ["2", "resign"])
def test_a_forged_from_neither_plays_nor_resigns_the_seat(
    checked_app: Flask, body: str, caplog: pytest.LogCaptureFixture
) -> None:
    game = start()
    player, original = _turn_email(game)
    # What a forger's mail looks like to the MTA: From the seat's player, sent from elsewhere.
    failed = f"{MTA}; dkim=none; spf=fail smtp.mailfrom=forger.example; dmarc=fail (p=none)"
    raw = m.delivered(m.gmail(player, original, body), failed)
    with caplog.at_level(logging.INFO, logger="pbem.mailin"):
        outcome = handle_message(settings(), raw)
    assert outcome.status == handle.DROPPED
    after = _game(game.id)
    assert after.ply == 0 and after.status == RUNNING and not _answers(player)
    # One line says why, naming the game and the domain, never the reply address's token.
    (line,) = [r.getMessage() for r in caplog.records if r.name == "pbem.mailin.handle"]
    assert caplog.records[-1].levelno == logging.WARNING
    assert f"dropped game {game.id}" in line
    assert f"From not authenticated by {MTA}: DMARC fails for example.org" in line
    assert original.reply_to.split("@")[0].split("+")[1] not in caplog.text


def test_without_the_mtas_header_a_reply_is_taken_as_before_and_logged(
    checked_app: Flask, caplog: pytest.LogCaptureFixture
) -> None:
    game = start()
    player, original = _turn_email(game)
    # Only a header in the sender's hand, the MTA's name in an encoded word: not the MTA's.
    encoded = "=?us-ascii?q?mx.pbem.test?=; dmarc=fail header.from=example.org"
    with caplog.at_level(logging.WARNING, logger="pbem.mailin"):
        outcome = handle_message(settings(), m.delivered(m.gmail(player, original, "2"), encoded))
    assert outcome.status == handle.APPLIED, outcome.line()
    assert f"game {game.id} seat {outcome.seat}: no Authentication-Results of {MTA}" in caplog.text


def test_without_the_setting_nothing_is_checked(app: Flask) -> None:
    game = start()
    player, original = _turn_email(game)
    failed = f"{MTA}; dmarc=fail header.from=example.org"
    outcome = handle_message(settings(), m.delivered(m.gmail(player, original, "2"), failed))
    assert outcome.status == handle.APPLIED, outcome.line()
