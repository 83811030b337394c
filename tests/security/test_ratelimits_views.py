"""The pages that send email refuse, with 429, a client or address that asks too often: the
open relay that 100 anonymous `POST /` (400 emails, 100 to one address) and 50 `POST /signin`
(50 emails) made of pbem."""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from flask import Flask
from flask.testing import FlaskClient

from pbem.extensions import db
from pbem.models import Game
from tests.conftest import make_app
from tests.web.flow import EMAILS, mails, start

ATTACKER = {"REMOTE_ADDR": "203.0.113.66"}


@pytest.fixture
def limited(tmp_path: Path, countdown_engine: None) -> Iterator[Flask]:
    """The app with the limits on, at their defaults."""
    app = make_app(tmp_path, PBEM_RATE_LIMITS="on")
    with app.app_context():
        db.create_all()
        yield app
        db.session.remove()
        db.engine.dispose()


def new_game(client: FlaskClient, organiser: str, environ: dict[str, str] = ATTACKER):
    emails = f"{organiser}\nvictim-{organiser}"
    return client.post("/", data={"game": "countdown", "emails": emails}, environ_base=environ)


def test_a_hundred_anonymous_games_for_one_address_stop_at_ten(limited: Flask) -> None:
    client = limited.test_client()
    began = time.monotonic()
    answers = [new_game(client, "victim@example.org") for _ in range(100)]
    seconds = time.monotonic() - began
    assert [a.status_code for a in answers] == [303] * 10 + [429] * 90
    refused = answers[-1]
    assert 3590 <= int(refused.headers["Retry-After"]) <= 3600
    assert "try again in 1 hour." in refused.text and "Please wait a while" in refused.text
    assert Game.query.count() == 10
    assert len(mails(to="victim@example.org")) == 10
    assert len(mails()) == 10  # nobody else was emailed at all
    assert seconds < 20, f"100 refused or accepted requests took {seconds:.1f} s"


def test_one_client_starting_games_for_many_addresses_stops_at_ten(limited: Flask) -> None:
    client = limited.test_client()
    answers = [new_game(client, f"someone{n}@example.org") for n in range(30)]
    assert [a.status_code for a in answers] == [303] * 10 + [429] * 20
    assert "Too many games started from your network address; try again in 1 hour." in (
        answers[-1].text
    )
    assert len(mails()) == 10
    # The limit is the client's: someone else may still start a game.
    assert new_game(client, "me@example.org", {"REMOTE_ADDR": "198.51.100.1"}).status_code == 303


def test_fifty_signin_requests_send_three_emails(limited: Flask) -> None:
    client = limited.test_client()
    start(client)  # EMAILS[0] plays here now
    sent_before = len(mails())
    answers = [
        client.post(
            "/signin", data={"email": EMAILS[0]}, environ_base={"REMOTE_ADDR": f"192.0.2.{n}"}
        )
        for n in range(50)
    ]
    assert [a.status_code for a in answers] == [200] * 3 + [429] * 47
    refused = answers[-1]
    assert f"Too many sign-in links sent to {EMAILS[0]}; try again in 1 hour." in refused.text
    assert int(refused.headers["Retry-After"]) > 3500
    assert len(mails(kind="signin")) == 3 and len(mails()) == sent_before + 3


def test_signin_limits_say_nothing_of_who_plays_here(limited: Flask) -> None:
    client = limited.test_client()
    start(client)

    def ask(email: str, n: int) -> tuple[int, str]:
        answer = client.post(
            "/signin", data={"email": email}, environ_base={"REMOTE_ADDR": f"192.0.2.{n}"}
        )
        return answer.status_code, answer.text.replace(email, "ADDRESS")

    player = [ask(EMAILS[0], n) for n in range(4)]
    stranger = [ask("nobody@example.org", n) for n in range(4)]
    assert [status for status, _ in player] == [200, 200, 200, 429]
    assert player == stranger


def test_the_switch_off_lets_everything_through(tmp_path: Path, countdown_engine: None) -> None:
    app = make_app(tmp_path, PBEM_RATE_LIMITS="off")
    with app.app_context():
        db.create_all()
        client = app.test_client()
        answers = [new_game(client, "victim@example.org") for _ in range(15)]
        assert {a.status_code for a in answers} == {303}
        db.session.remove()
        db.engine.dispose()


def test_the_page_of_a_refusal_says_when_to_come_back(limited: Flask) -> None:
    client = limited.test_client()
    for _ in range(10):
        new_game(client, "victim@example.org")
    page = new_game(client, "victim@example.org")
    assert page.status_code == 429 and page.headers["Content-Type"].startswith("text/html")
    (message,) = re.findall(r'<p class="error" data-error="rate_limited">([^<]*)</p>', page.text)
    assert message.endswith("try again in 1 hour.")


def test_games_from_a_player_link_count_each_invitation(limited: Flask) -> None:
    client = limited.test_client()
    start(client)
    (link,) = {
        found
        for row in mails(to=EMAILS[0])
        for found in re.findall(r"http://pbem\.test(/me/[^\s\"<]+)", row.text)
    }

    def another(*others: str) -> int:
        form = {"game": "countdown", "emails": "\n".join(others)}
        return client.post(f"{link}/new", data=form, environ_base=ATTACKER).status_code

    # The game `start` confirmed invited EMAILS[1] once already today.
    invitations = len(mails(kind="invite"))
    assert [another(EMAILS[1]) for _ in range(5)] == [303] * 4 + [429]
    refused = client.post(
        f"{link}/new", data={"game": "countdown", "emails": EMAILS[1]}, environ_base=ATTACKER
    )
    assert f"Too many invitations sent to {EMAILS[1]}; try again in 24 hours." in refused.text
    assert len(mails(kind="invite")) == invitations + 4
    # Someone else may still be invited, until the organiser's own limit (10 an hour, the
    # first game included).
    answers = [another(f"friend{n}@example.org") for n in range(6)]
    assert answers == [303] * 5 + [429]


def test_confirming_games_invites_one_address_five_times_a_day_at_most(limited: Flask) -> None:
    """The invitations a confirmation sends count against their recipients' day, whoever
    organises: many organisers cannot flood one victim either."""
    client = limited.test_client()
    answers = []
    for n in range(7):
        organiser = f"organiser{n}@example.org"
        made = client.post(
            "/",
            data={"game": "countdown", "emails": f"{organiser}\nvictim@example.net"},
            environ_base={"REMOTE_ADDR": f"198.51.100.{n}"},
        )
        assert made.status_code == 303
        game_id = made.headers["Location"].rsplit("/", 1)[1]
        (row,) = [m for m in mails(kind="confirm") if m.game_id == game_id]
        (path,) = re.findall(r"http://pbem\.test(/invite/[^\s\"<]+)", row.text)
        answers.append(client.post(path).status_code)
    assert answers == [200] * 5 + [429] * 2
    assert len(mails(to="victim@example.net")) == 5
