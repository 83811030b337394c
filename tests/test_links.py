"""Signed links: genuine, forged, expired, revoked, wrong purpose."""

from __future__ import annotations

import time

import pytest

from pbem import links

SECRET = "a-test-secret-0123456789"
CLAIMS = links.LinkClaims(links.SEAT, "g4m3", 1, 42, "n0nce")


def test_a_genuine_token_round_trips() -> None:
    token = links.make_token(SECRET, CLAIMS)
    assert links.read_token(SECRET, token, links.SEAT, 3600) == CLAIMS
    assert all(c.isalnum() or c in "-_." for c in token)  # safe in a URL path


@pytest.mark.parametrize(
    "token",
    [
        links.make_token("another-secret-0123456789", CLAIMS),
        links.make_token(SECRET, CLAIMS)[:-3] + "abc",
        "not-a-token",
        "",
    ],
    # Tokens carry a timestamp: fixed ids keep the test names the same in every xdist worker.
    ids=["other-secret", "altered", "garbage", "empty"],
)
def test_forged_tokens_are_refused(token: str) -> None:
    with pytest.raises(links.ForgedLink, match="not valid") as refused:
        links.read_token(SECRET, token, links.SEAT, 3600)
    assert refused.value.status == 403 and refused.value.code == "bad_token"


def test_expired_tokens_are_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    token = links.make_token(SECRET, CLAIMS)
    later = time.time() + 3 * 86400
    monkeypatch.setattr(time, "time", lambda: later)
    with pytest.raises(links.ExpiredLink, match="expired: links stay valid for 2 days"):
        links.read_token(SECRET, token, links.SEAT, 2 * 86400)


def test_a_token_works_only_for_its_purpose() -> None:
    invite = links.make_token(SECRET, links.LinkClaims(links.INVITE, "g", 0, 1, "n"))
    with pytest.raises(links.WrongLink, match="for an invitation, not this page"):
        links.read_token(SECRET, invite, links.SEAT, 3600)


def test_a_token_without_claims_is_forged() -> None:
    from itsdangerous import URLSafeTimedSerializer

    odd = URLSafeTimedSerializer(SECRET, salt="pbem.links.v1").dumps({"game": "g"})
    with pytest.raises(links.ForgedLink):
        links.read_token(SECRET, odd, links.SEAT, 3600)
