"""Signed links: genuine, forged, expired, revoked, wrong purpose; reply and bounce addresses."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from pbem import links
from pbem.extensions import settings
from tests.conftest import make_app

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


def test_game_ids_pbem_did_not_make_have_no_reply_address() -> None:
    assert links.reply_token("k" * 32, "not-a-pbem-id", 0, 0, "n") is None
    assert links.reply_token("k" * 32, "AAAAAAAAAAAA", 8, 0, "n") is None  # seat beyond 3 bits
    assert links.reply_token("k" * 32, "AAAAAAAAAAAA", 0, 1 << 21, "n") is None
    assert links.reply_token("k" * 32, "AAAAAAAAAAAA", 0, 0, "n") is not None


def test_a_reply_token_unpacks_to_what_it_names_and_its_mac_fits_only_its_nonce() -> None:
    token = links.reply_token(SECRET, "AAAAAAAAAAAA", 7, (1 << 21) - 1, "n0nce")
    assert token is not None and len(token) == links.ADDRESS_TOKEN_CHARS and token.islower()
    unpacked = links.unpack_reply_token(token.upper())
    assert unpacked is not None
    game_id, seat, ply, mac = unpacked
    assert (game_id, seat, ply) == ("AAAAAAAAAAAA", 7, (1 << 21) - 1)
    assert links.reply_mac_fits(SECRET, game_id, seat, ply, "n0nce", mac)
    assert not links.reply_mac_fits(SECRET, game_id, seat, ply, "n3w", mac)
    assert links.unpack_reply_token(token[:-1]) is None


def test_a_bounce_token_names_its_row_and_cannot_be_forged(tmp_path: Path) -> None:
    app = make_app(tmp_path)
    with app.app_context():
        config = settings()
        address = links.bounce_address(config, 123456)
        local, _, domain = address.partition("@")
        token = local.removeprefix(f"{links.BOUNCE_LOCAL_PART}+")
        assert domain == links.reply_domain(config) and len(token) == links.ADDRESS_TOKEN_CHARS
        assert links.read_bounce_token(config, token.upper()) == 123456
        assert links.read_bounce_token(config, "a" * links.ADDRESS_TOKEN_CHARS) is None
        assert links.read_bounce_token(config, "1") is None


def test_an_international_mail_domain_is_written_in_ascii(tmp_path: Path) -> None:
    app = make_app(tmp_path, MAIL_FROM="pbem <pbem@Spiele.Bücher.example>")
    with app.app_context():
        assert links.reply_domain(settings()) == "spiele.xn--bcher-kva.example"


def test_a_mail_domain_idna_refuses_is_kept_as_written(tmp_path: Path) -> None:
    app = make_app(tmp_path, MAIL_FROM="pbem <pbem@-Bü-.example.>")
    with app.app_context():
        assert links.reply_domain(settings()) == "-bü-.example"
