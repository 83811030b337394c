"""The dashboard's clock: games by deadline, the vacation switch, the time zone (from the form,
and from the browser the first time)."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
import time_machine
from flask.testing import FlaskClient

from pbem import links
from pbem.domain import starting
from pbem.domain.clocks import NO_CLOCK
from pbem.extensions import db, settings
from pbem.models import Game, Player, utcnow
from tests.web.flow import EMAILS, confirmed, fresh_game, links_in, mails, start

ALICE, BOB = EMAILS


def _player(email: str) -> Player:
    db.session.expire_all()
    player = db.session.query(Player).filter_by(email=email).one()
    return player


def _dashboard(email: str) -> str:
    player = _player(email)
    return f"/me/{links.player_token(settings().signing_key, player.id, player.nonce)}"


def _seat_link(game_id: str, email: str) -> str:
    db.session.expire_all()
    game = db.session.get(Game, game_id)
    assert game is not None
    seat = next(s for s in game.seats if s.player.email == email)
    return f"/play/{links.token_for(settings().signing_key, seat, links.SEAT)}"


def _turn_to(client: FlaskClient, game: Game, email: str) -> None:
    """Make it `email`'s turn: the other player moves when it is theirs."""
    db.session.expire_all()
    fresh = db.session.get(Game, game.id)
    assert fresh is not None and fresh.to_move is not None
    mover = fresh.seats[fresh.to_move].player.email
    if mover != email:
        moved = client.post(_seat_link(game.id, mover), data={"move": "1", "ply": fresh.ply})
        assert moved.status_code == 303


def _started_without_clock(client: FlaskClient) -> Game:
    created = starting.create_game(
        settings(), "countdown", {}, [BOB, ALICE], clock=NO_CLOCK, started_by=starting.BY_OPERATOR
    )
    for row in mails(kind="invite"):
        if row.game_id == created.game_id:
            (path,) = links_in(row, "invite")
            assert client.post(path).status_code == 200
    game = db.session.get(Game, created.game_id)
    assert game is not None and game.status == "running"
    return game


def _rows(html: str) -> list[tuple[str, str]]:
    return re.findall(r'<tr class="[^"]*" data-game="([^"]+)" data-status="([^"]+)"', html)


def test_games_waiting_for_the_player_come_first_by_deadline(client: FlaskClient) -> None:
    now = utcnow()
    games = {}
    # Turns started two days, one day and no time ago: deadlines in 1, 2 and 3 days.
    for name, days_ago in (("soonest", 2), ("middle", 1), ("latest", 0)):
        with time_machine.travel(now - timedelta(days=days_ago, minutes=5), tick=False):
            game = start(client)
            _turn_to(client, game, ALICE)
        games[name] = game.id
    games["untimed"] = _started_without_clock(client).id
    _turn_to(client, db.session.get(Game, games["untimed"]), ALICE)
    games["invited"] = confirmed(client, emails=[BOB, ALICE]).id
    # Waiting for Bob: their turn, the nearer deadline first.
    for name, days_ago in (("bob_later", 0), ("bob_sooner", 1)):
        with time_machine.travel(now - timedelta(days=days_ago, minutes=5), tick=False):
            game = start(client)
            _turn_to(client, game, BOB)
        games[name] = game.id

    page = client.get(_dashboard(ALICE))
    assert page.status_code == 200
    order = [game_id for game_id, _ in _rows(page.text)]
    expected = ["soonest", "middle", "latest", "untimed", "invited", "bob_sooner", "bob_later"]
    assert order == [games[name] for name in expected]
    assert page.text.count("move by <time") == 5
    assert "no time limit" in page.text and "3 days per move" in page.text
    # Whole seconds: HTML's date-time strings allow at most three digits of a second.
    stamps = re.findall(r'<time datetime="([^"]+)" data-local>\w+day ', page.text)
    assert len(stamps) == 5
    assert all(re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", stamp) for stamp in stamps)


def test_the_vacation_switch(client: FlaskClient) -> None:
    game = start(client)
    _turn_to(client, game, ALICE)
    home = _dashboard(ALICE)
    page = client.get(home).text
    assert "14 vacation days left" in page and 'id="vacation-form"' in page
    assert 'id="come-back"' not in page

    gone = client.post(f"{home}/vacation", data={"days": "5"})
    assert gone.status_code == 303 and gone.headers["Location"].endswith(home)
    page = client.get(home).text
    assert "On vacation until <time" in page and 'id="come-back"' in page
    assert 'id="vacation-form"' not in page
    assert "clock stopped (on vacation)" in page
    player = _player(ALICE)
    assert player.vacation_until is not None
    assert abs(player.vacation_until - (utcnow() + timedelta(days=5))) < timedelta(minutes=1)

    # The opponent's game page says so, with the return as a <time>; so does Alice's own.
    theirs = client.get(_seat_link(game.id, BOB)).text
    alice = next(s.seat for s in fresh_game(game.id).seats if s.player.email == ALICE)
    assert f"Player {alice + 1} is on vacation until <time" in theirs  # her seat, not her address
    assert "their clock is stopped" in theirs and "data-time-left" not in theirs
    mine = client.get(_seat_link(game.id, ALICE)).text
    assert "You are on vacation until" in mine and "your clock is stopped" in mine
    assert 'id="move-form"' in mine  # a player away may still move

    again = client.post(f"{home}/vacation", data={"days": "2"})
    assert again.status_code == 409 and "You are on vacation already" in again.text

    back = client.post(f"{home}/vacation/end")
    assert back.status_code == 303
    page = client.get(home).text
    assert 'id="come-back"' not in page and 'id="vacation-form"' in page
    assert "14 vacation days left" in page  # a few seconds away cost no tenth of a day
    assert "their clock is stopped" not in client.get(_seat_link(game.id, BOB)).text
    assert _player(ALICE).vacation_since is None


@pytest.mark.parametrize(
    ("days", "status", "message"),
    [
        ("soon", 400, "Give the number of days"),
        ("0", 409, "more than 0"),
        ("-3", 409, "more than 0"),
        ("nan", 409, "more than 0"),
        ("", 400, "Give the number of days"),
    ],
)
def test_a_vacation_refused(client: FlaskClient, days: str, status: int, message: str) -> None:
    start(client)
    home = _dashboard(ALICE)
    refused = client.post(f"{home}/vacation", data={"days": days})
    assert refused.status_code == status
    assert 'id="vacation-error"' in refused.text and message in refused.text
    assert _player(ALICE).vacation_since is None


def test_the_time_zone_from_the_form(client: FlaskClient) -> None:
    start(client)
    home = _dashboard(ALICE)
    page = client.get(home).text
    assert 'data-zone-missing="yes"' in page and "<option>Europe/Paris</option>" in page
    saved = client.post(f"{home}/timezone", data={"zone": "Europe/Paris"})
    assert saved.status_code == 303
    page = client.get(saved.headers["Location"]).text
    assert "Your time zone is saved" in page
    assert "<option selected>Europe/Paris</option>" in page and "data-zone-missing" not in page
    # A required select keeps its empty first option, set or not (the HTML checker asks for it).
    assert '<select id="zone-select" name="zone" required>' in page
    first = page.split('<select id="zone-select" name="zone" required>')[1].split("<option", 2)[1]
    assert first.startswith(' value="" disabled>Choose your time zone')
    assert _player(ALICE).time_zone == "Europe/Paris"
    # Deadlines are given in it, UTC beside.
    assert re.search(r"move by <time[^>]*>\w+ \d+ \w+, \d\d:\d\d CES?T \(", page)

    unknown = client.post(f"{home}/timezone", data={"zone": "Mars/Olympus_Mons"})
    assert unknown.status_code == 400 and 'id="zone-error"' in unknown.text
    assert "is not a time zone pbem knows" in unknown.text
    long = client.post(f"{home}/timezone", data={"zone": "Europe/" + "x" * 60})
    assert long.status_code == 422 and "at most 64" in long.text
    huge = client.post(f"{home}/timezone", data={"zone": "x" * 5000})
    assert huge.status_code == 422
    assert _player(ALICE).time_zone == "Europe/Paris"


def test_the_time_zone_first_seen_from_the_browser(client: FlaskClient) -> None:
    start(client)
    home = _dashboard(ALICE)
    json_headers = {"Accept": "application/json"}
    first = client.post(
        f"{home}/timezone", data={"zone": "Asia/Tokyo", "if_unset": "1"}, headers=json_headers
    )
    assert first.status_code == 200
    assert first.get_json() == {"time_zone": "Asia/Tokyo", "changed": True}
    # Once set, the browser's guess no longer overrides the player's choice.
    second = client.post(
        f"{home}/timezone", data={"zone": "Europe/Paris", "if_unset": "1"}, headers=json_headers
    )
    assert second.get_json() == {"time_zone": "Asia/Tokyo", "changed": False}
    assert _player(ALICE).time_zone == "Asia/Tokyo"
    bad = client.post(f"{home}/timezone", data={"zone": "Nowhere/Else"}, headers=json_headers)
    assert bad.status_code == 400 and bad.get_json()["error"] == "bad_setup"
    long = client.post(f"{home}/timezone", data={"zone": "A" * 80}, headers=json_headers)
    assert long.status_code == 422 and long.get_json()["error"] == "too_long"
    forged = client.post("/me/not-a-token/timezone", data={"zone": "UTC"}, headers=json_headers)
    assert forged.status_code == 403
    assert _player(ALICE).time_zone == "Asia/Tokyo"


def test_a_new_game_from_the_dashboard_with_its_clock(client: FlaskClient) -> None:
    start(client)
    home = _dashboard(ALICE)
    form = client.get(f"{home}/new?game=countdown").text
    assert 'id="clock"' in form and "3 days per move (default)" in form
    assert 'name="weekends_free"' in form and 'name="clock_custom"' in form
    data = {"game": "countdown", "emails": BOB, "clock": "days:7", "weekends_free": "1"}
    made = client.post(f"{home}/new", data=data)
    assert made.status_code == 303
    newest = db.session.query(Game).order_by(Game.created_at.desc()).first()
    assert newest is not None
    assert newest.clock == {"kind": "days", "days": 7, "weekends_free": True}
    bad = {"game": "countdown", "emails": BOB, "clock": "custom", "clock_custom": "hourly"}
    refused = client.post(f"{home}/new", data=bad)
    assert refused.status_code == 400 and "Unknown clock" in refused.text
