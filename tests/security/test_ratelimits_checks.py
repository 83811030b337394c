"""Rate limits, checked through small routes that call them as the views do: the counting, the
429 answer, the switch, and the client address behind a proxy."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from flask import Flask, request
from flask.testing import FlaskClient

from pbem.web import ratelimits
from pbem.web.ratelimits import RateLimited, in_words
from tests.conftest import make_app

TIGHT = {
    "PBEM_RATE_LIMITS": "on",
    "PBEM_LIMIT_GAMES_PER_CLIENT": "3 per hour",
    "PBEM_LIMIT_GAMES_PER_ORGANISER": "2 per hour",
    "PBEM_LIMIT_INVITATIONS_PER_RECIPIENT": "2 per day",
    "PBEM_LIMIT_SIGNIN_PER_ADDRESS": "2 per hour",
    "PBEM_LIMIT_SIGNIN_PER_CLIENT": "3 per hour",
}


def probed(app: Flask) -> Flask:
    """The app with one route per check, each answering "ok" when the check lets it through."""

    def game() -> str:
        ratelimits.check_game_creation(request.form.get("organiser", ""))
        return "ok"

    def invite() -> str:
        ratelimits.check_invitations(request.form.getlist("to"))
        return "ok"

    def signin() -> str:
        ratelimits.check_signin(request.form.get("email", ""))
        return "ok"

    for path, view in (("game", game), ("invite", invite), ("signin", signin)):
        app.add_url_rule(f"/probe/{path}", f"probe_{path}", view, methods=["POST"])
        app.add_url_rule(f"/api/probe/{path}", f"api_probe_{path}", view, methods=["POST"])
    return app


@pytest.fixture
def limited(tmp_path: Path) -> Iterator[FlaskClient]:
    app = probed(make_app(tmp_path, **TIGHT))
    with app.app_context():
        yield app.test_client()


def behind_proxy(tmp_path: Path, trusted: int) -> FlaskClient:
    return probed(make_app(tmp_path, **TIGHT, PBEM_TRUSTED_PROXIES=str(trusted))).test_client()


def post(client: FlaskClient, path: str, client_address: str = "192.0.2.1", **form: object):
    return client.post(path, data=form, environ_base={"REMOTE_ADDR": client_address})


def statuses(responses: list) -> list[int]:
    return [r.status_code for r in responses]


def test_games_from_one_client_stop_at_the_limit_with_a_page_that_says_when(
    limited: FlaskClient,
) -> None:
    answers = [post(limited, "/probe/game", organiser=f"p{n}@example.org") for n in range(10)]
    assert statuses(answers) == [200] * 3 + [429] * 7
    refused = answers[-1]
    assert 3590 <= int(refused.headers["Retry-After"]) <= 3600
    assert "Please wait a while" in refused.text
    assert 'data-error="rate_limited"' in refused.text
    assert "Too many games started from your network address; try again in 1 hour." in (
        refused.text
    )
    # Another client is not held back by the first.
    assert post(limited, "/probe/game", "192.0.2.2", organiser="q@example.org").status_code == 200


def test_the_api_answers_json_with_retry_after(limited: FlaskClient) -> None:
    for _ in range(3):
        assert post(limited, "/api/probe/game").status_code == 200
    refused = post(limited, "/api/probe/game")
    assert refused.status_code == 429 and int(refused.headers["Retry-After"]) > 3500
    assert refused.json == {
        "error": "rate_limited",
        "message": "Too many games started from your network address; try again in 1 hour.",
    }


def test_one_organiser_is_limited_across_client_addresses(tmp_path: Path) -> None:
    client = behind_proxy(tmp_path, 1)
    spellings = ["alice@example.org", "Alice@Example.ORG", "alice+again@example.org"]
    answers = [
        client.post(
            "/probe/game",
            data={"organiser": spelling},
            headers={"X-Forwarded-For": f"198.51.100.{n}"},
        )
        for n, spelling in enumerate(spellings)
    ]
    # Case and +tags reach the same mailbox, so they count as one organiser.
    assert statuses(answers) == [200, 200, 429]
    assert "Too many games started for alice+again@example.org; try again in 1 hour." in (
        answers[-1].text
    )
    other = client.post(
        "/probe/game", data={"organiser": "bob@example.org"}, headers={"X-Forwarded-For": "1.2.3.4"}
    )
    assert other.status_code == 200


def test_a_refused_request_uses_up_no_other_limit(limited: FlaskClient) -> None:
    # The organiser's limit (2) refuses the third game for alice: the client's count (3) must
    # not have moved, so bob's game goes through.
    for _ in range(2):
        assert post(limited, "/probe/game", organiser="alice@example.org").status_code == 200
    assert post(limited, "/probe/game", organiser="alice@example.org").status_code == 429
    assert post(limited, "/probe/game", organiser="bob@example.org").status_code == 200
    refused = post(limited, "/probe/game", organiser="carol@example.org")
    assert refused.status_code == 429 and "from your network address" in refused.text


def test_invitations_per_recipient_per_day_each_counted_once_per_game(
    limited: FlaskClient,
) -> None:
    game = ["bob@example.org", "carol@example.org", "BOB@example.org"]
    assert post(limited, "/probe/invite", to=game).status_code == 200
    assert post(limited, "/probe/invite", to=["bob@example.org"]).status_code == 200
    refused = post(limited, "/probe/invite", to=["dan@example.org", "bob@example.org"])
    assert refused.status_code == 429
    assert 23 * 3600 < int(refused.headers["Retry-After"]) <= 24 * 3600
    assert "Too many invitations sent to bob@example.org; try again in 24 hours." in refused.text
    # Refused as a whole: dan was not counted, and carol has one invitation left.
    assert post(limited, "/probe/invite", to=["dan@example.org"]).status_code == 200
    assert post(limited, "/probe/invite", to=["dan@example.org"]).status_code == 200
    assert post(limited, "/probe/invite", to=["carol@example.org"]).status_code == 200
    both = post(limited, "/probe/invite", to=["carol@example.org", "dan@example.org"])
    assert "Too many invitations sent to carol@example.org, dan@example.org;" in both.text


def test_signin_is_limited_per_address_across_clients(limited: FlaskClient) -> None:
    answers = [
        post(limited, "/probe/signin", f"192.0.2.{n}", email="alice@example.org") for n in range(4)
    ]
    assert statuses(answers) == [200, 200, 429, 429]
    assert "Too many sign-in links sent to alice@example.org; try again in 1 hour." in (
        answers[-1].text
    )


def test_signin_is_limited_per_client_across_addresses(limited: FlaskClient) -> None:
    answers = [post(limited, "/probe/signin", email=f"p{n}@example.org") for n in range(5)]
    assert statuses(answers) == [200, 200, 200, 429, 429]
    assert "Too many sign-in requests from your network address;" in answers[-1].text


def test_the_switch_turns_every_limit_off(tmp_path: Path) -> None:
    app = probed(make_app(tmp_path, **{**TIGHT, "PBEM_RATE_LIMITS": "off"}))
    client = app.test_client()
    for _ in range(20):
        assert post(client, "/probe/game", organiser="alice@example.org").status_code == 200
        assert post(client, "/probe/invite", to=["bob@example.org"]).status_code == 200
        assert post(client, "/probe/signin", email="alice@example.org").status_code == 200
    # Off means no counters at all, not counters that are never read.
    assert app.extensions[ratelimits.EXTENSION].counting is None


def test_behind_a_trusted_proxy_each_forwarded_client_is_counted_apart(tmp_path: Path) -> None:
    client = behind_proxy(tmp_path, 1)

    def from_(forwarded: str) -> int:
        # Every request arrives from the proxy's own address.
        return client.post(
            "/probe/signin",
            data={"email": ""},
            headers={"X-Forwarded-For": forwarded},
            environ_base={"REMOTE_ADDR": "10.0.0.1"},
        ).status_code

    assert [from_("203.0.113.7") for _ in range(4)] == [200, 200, 200, 429]
    assert from_("203.0.113.8") == 200
    # Only the address the proxy appended is believed: a client writing its own header first
    # is still counted as itself.
    assert from_("198.51.100.99, 203.0.113.7") == 429


def test_without_trusted_proxies_the_forwarded_header_is_ignored(limited: FlaskClient) -> None:
    answers = [
        limited.post(
            "/probe/signin",
            data={"email": ""},
            headers={"X-Forwarded-For": f"203.0.113.{n}"},
            environ_base={"REMOTE_ADDR": "10.0.0.1"},
        )
        for n in range(4)
    ]
    assert statuses(answers) == [200, 200, 200, 429]


def test_ipv6_clients_are_counted_by_their_slash_64(limited: FlaskClient) -> None:
    hosts = ["2001:db8:1:2::1", "2001:db8:1:2::2", "2001:db8:1:2:ffff::9", "2001:db8:1:2::3"]
    answers = [post(limited, "/probe/signin", host, email="") for host in hosts]
    assert statuses(answers) == [200, 200, 200, 429]
    assert post(limited, "/probe/signin", "2001:db8:1:3::1", email="").status_code == 200


def test_an_unreachable_redis_falls_back_to_counting_in_memory(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    app = probed(make_app(tmp_path, **TIGHT, REDIS_URL="redis://127.0.0.1:1/0"))
    client = app.test_client()
    answers = [post(client, "/probe/game", organiser=f"p{n}@example.org") for n in range(4)]
    assert statuses(answers) == [200, 200, 200, 429]
    assert "rate limit store unavailable, counting in memory" in caplog.text


def test_checks_called_directly_raise_rate_limited(tmp_path: Path) -> None:
    app = make_app(tmp_path, **TIGHT)
    context = {"environ_base": {"REMOTE_ADDR": "192.0.2.50"}}
    for _ in range(2):
        with app.test_request_context("/", method="POST", **context):
            ratelimits.check_signin("alice@example.org")
    with (
        app.test_request_context("/", method="POST", **context),
        pytest.raises(RateLimited) as refused,
    ):
        ratelimits.check_signin("alice@example.org")
    assert refused.value.status == 429 and refused.value.code == "rate_limited"
    assert 3590 <= refused.value.retry_after <= 3600
    assert re.search(r"try again in 1 hour\.$", refused.value.message)


@pytest.mark.parametrize(
    ("seconds", "words"),
    [
        (0.2, "1 minute"),
        (60, "1 minute"),
        (61, "2 minutes"),
        (40 * 60 - 5, "40 minutes"),
        (3599.5, "1 hour"),
        (3601, "2 hours"),
        (24 * 3600 - 30, "24 hours"),
        (47 * 3600, "47 hours"),
        (47.5 * 3600, "2 days"),
        (30 * 86400, "30 days"),
    ],
)
def test_waits_are_said_in_words_rounded_up(seconds: float, words: str) -> None:
    assert in_words(seconds) == words
