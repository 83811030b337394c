"""Addresses as they enter: checked and normalised once."""

from __future__ import annotations

from dataclasses import replace

import pytest
from flask import Flask

from pbem.config import Settings
from pbem.domain.addresses import normalise_address
from pbem.domain.errors import SetupError
from pbem.extensions import settings


def test_addresses_are_trimmed_and_their_domain_lowercased(app: Flask) -> None:
    assert normalise_address(settings(), "  Bob.Smith@Example.ORG ") == "Bob.Smith@example.org"
    with pytest.raises(SetupError, match="is not an email address"):
        normalise_address(settings(), "bob@example.org, carol@example.org")


def _in(env: str) -> Settings:
    # Only the environment matters here; production proper would also want SMTP and more.
    return replace(settings(), env=env)


@pytest.mark.parametrize(
    ("given", "stored"),
    [
        ("jürgen@example.org", "jürgen@example.org"),
        ("Jürgen@Example.ORG", "Jürgen@example.org"),
        ("ab@EXÄMPLE.org", "ab@exämple.org"),
        ("ab@xn--exmple-cua.org", "ab@exämple.org"),  # IDNA: one mailbox, one player
        ("mu\u0308ller@example.org", "müller@example.org"),  # NFC
        ("用户@例子.广告", "用户@例子.广告"),
    ],
)
def test_internationalised_addresses_are_accepted_and_normalised(
    app: Flask, given: str, stored: str
) -> None:
    assert normalise_address(_in("production"), given) == stored


@pytest.mark.parametrize(
    ("given", "says"),
    [
        ("bob\u202e@example.org", "U+202E RIGHT-TO-LEFT OVERRIDE"),
        ("bob\u200b@example.org", "U+200B ZERO WIDTH SPACE"),
        ("bob@example.org\r\nBcc: eve@example.org", "U+000A"),
        ("bob\x00@example.org", "U+0000"),
        ("b" * 400 + "@example.org", "at most 320"),
        ("bob", "must have an @-sign"),
        ('"bob smith"@example.org', "Quoting"),
        ("bob@[127.0.0.1]", "bracketed IP address"),
        ("Bob <bob@example.org>", "display name"),
        ("bob@@example.org", "is not an email address"),
        ("bob@example..org", "is not an email address"),
    ],
)
def test_what_is_refused_is_said(app: Flask, given: str, says: str) -> None:
    with pytest.raises(SetupError, match="is not an email address") as refused:
        normalise_address(_in("production"), given)
    assert says in refused.value.message
    # The message quotes the address with its hidden characters escaped, never raw.
    assert "\u202e" not in refused.value.message and "\n" not in refused.value.message


@pytest.mark.parametrize(
    "address", ["a@pbem.test", "a@test", "a@LOCALHOST", "a@box.localhost", "a@x.invalid"]
)
def test_special_use_domains_are_for_development_and_tests_only(app: Flask, address: str) -> None:
    for env in ("development", "test"):
        assert normalise_address(_in(env), address) == address.lower()
    with pytest.raises(SetupError, match="is not an email address"):
        normalise_address(_in("production"), address)


def test_example_domains_are_accepted_everywhere(app: Flask) -> None:
    assert normalise_address(_in("production"), "p1@example.org") == "p1@example.org"


def test_no_dns_is_asked(app: Flask, monkeypatch: pytest.MonkeyPatch) -> None:
    import socket

    def no_dns(*args: object, **kwargs: object) -> None:
        raise AssertionError("DNS was asked")

    monkeypatch.setattr(socket, "getaddrinfo", no_dns)
    assert normalise_address(_in("production"), "bob@no-such-domain.example.com")
