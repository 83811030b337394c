"""Not a relay: the web form makes pbem mail the address that asked and nobody else until that
address confirms; what a stranger typed never speaks in pbem's voice."""

from __future__ import annotations

import pytest
from flask.testing import FlaskClient

from pbem.models import Game
from pbem.web import dashboard
from tests.web.flow import EMAILS, confirmation_link, create, mails


def test_an_anonymous_form_post_mails_the_organiser_alone(client: FlaskClient) -> None:
    # Finding: 100 anonymous POST / wrote 400 emails, 100 of them to one address.
    victims = ["victim@example.net", "victim2@example.net", "victim3@example.net"]
    for _ in range(5):
        response = client.post(
            "/", data={"game": "marram", "emails": "\n".join(["me@example.org", *victims])}
        )
        assert response.status_code == 303
    assert {m.to for m in mails()} == {"me@example.org"}
    assert {m.kind for m in mails()} == {"confirm"}


def test_the_organisers_text_is_not_in_the_subject(client: FlaskClient) -> None:
    # Finding: "invitation from https://evil.example/login?next=@x.y" in the victim's Subject.
    game = create(client, emails=["mallory@example.org", "victim@example.net"])
    client.post(confirmation_link(game))
    (invite,) = mails(kind="invite")
    assert invite.to == "victim@example.net"
    assert "mallory" not in invite.subject
    assert invite.subject == f"[pbem] Countdown ({game.id}): you are invited to a game"


def test_an_address_that_is_a_link_is_refused(client: FlaskClient) -> None:
    response = client.post(
        "/",
        data={
            "game": "countdown",
            "emails": "https://evil.example/login?next=@x.y\nvictim@example.net",
        },
    )
    assert response.status_code == 400
    assert Game.query.count() == 0 and mails() == []
    # Shown back as text in the form, never as a link.
    assert 'href="https://evil.example' not in response.text


def test_signin_takes_the_same_time_whether_or_not_the_address_plays(
    client: FlaskClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Finding: /signin told known addresses from unknown ones by timing (12.1 ms against 4.1).
    # Both answers wait until the same floor; the clock is faked, so no test depends on speed.
    create(client, emails=EMAILS)
    clock = [100.0]
    slept: list[float] = []
    monkeypatch.setattr(dashboard.time, "monotonic", lambda: clock[0])

    def sleep(seconds: float) -> None:
        slept.append(seconds)
        clock[0] += seconds

    monkeypatch.setattr(dashboard.time, "sleep", sleep)
    for address in (EMAILS[0], "stranger@example.org"):
        start = clock[0]
        assert client.post("/signin", data={"email": address}).status_code == 200
        assert clock[0] - start == dashboard.SIGNIN_ANSWER_SECONDS
    assert len(slept) == 2
