"""Players' names through the web: the organiser's form, the invitation, the dashboard, the API;
and no page or API answer showing anyone an address but their own."""

from __future__ import annotations

import re
from datetime import timedelta

from flask.testing import FlaskClient

from pbem import links
from pbem.domain import clock_task, views
from pbem.extensions import db, settings
from pbem.models import DIGEST, EVERY_TURN, NO_TURN_MAIL, Player, utcnow
from tests.web.flow import fresh_game, links_in, mails

ALICE, BOB, CAROL = "alice@example.org", "bob@example.org", "carol@example.org"
SCRIPT = "<script>alert(1)</script>"


def _player(email: str) -> Player:
    db.session.expire_all()
    return Player.query.filter_by(email=email).one()


def _seat(game_id: str, email: str) -> int:
    return next(s.seat for s in fresh_game(game_id).seats if s.player.email == email)


def _play_link(game_id: str, email: str) -> str:
    seat = fresh_game(game_id).seats[_seat(game_id, email)]
    return f"/play/{links.token_for(settings().signing_key, seat, links.SEAT)}"


def _invite_link(game_id: str, email: str) -> str:
    seat = fresh_game(game_id).seats[_seat(game_id, email)]
    return f"/invite/{links.token_for(settings().signing_key, seat, links.INVITE)}"


def _dashboard(email: str) -> str:
    player = _player(email)
    return f"/me/{links.player_token(settings().signing_key, player.id, player.nonce)}"


def _create(client: FlaskClient, *players: tuple[str, str], game: str = "countdown") -> str:
    """A game from the public form, one row per player (the first the organiser's)."""
    response = client.post(
        "/",
        data={
            "game": game,
            "email": [address for address, _ in players],
            "name": [name for _, name in players],
        },
    )
    assert response.status_code == 303, response.text
    return response.headers["Location"].rsplit("/", 1)[1]


def _accept(client: FlaskClient, game_id: str, email: str, **form: str) -> str:
    page = client.post(_invite_link(game_id, email), data=form)
    assert page.status_code == 200, page.text
    return page.text


def _others(text: str, *mine: str) -> list[str]:
    """The addresses of this module's players that `text` shows, but for `mine`."""
    shown = text.lower()
    return [a for a in (ALICE, BOB, CAROL) if a not in mine and a in shown]


# --- naming -------------------------------------------------------------------------------------


def test_accepting_with_a_name_or_without_one(client: FlaskClient) -> None:
    game_id = _create(client, (ALICE, "Alice"), (BOB, "Bobby"), (CAROL, "Caz"))
    page = _accept(client, game_id, ALICE)
    # Bob's invitation page offers the organiser's name for him; he picks his own.
    form = client.get(_invite_link(game_id, BOB)).text
    assert 'name="name"' in form and 'value="Bobby"' in form
    assert "Started by Alice." in form
    _accept(client, game_id, BOB, name="  Robert  ")
    assert _player(BOB).name == "Robert"
    # A plain POST with no fields still accepts, as it always has, and keeps the name as it is
    # (Alice's, from the form); Carol empties the field she was offered: her colour it is.
    assert _player(ALICE).name == "Alice"
    page = _accept(client, game_id, CAROL, name="")
    assert "The game is under way" in page and _player(CAROL).name is None
    names = views.names(fresh_game(game_id))
    assert sorted(names) == sorted(["Alice", "Robert", f"Player {_seat(game_id, CAROL) + 1}"])


def test_a_bad_name_on_the_invitation_takes_no_seat(client: FlaskClient) -> None:
    game_id = _create(client, (ALICE, ""), (BOB, ""))
    for typed, reason in [
        ("bob@example.org", "must not carry an address"),
        ("x" * 41, "at most 40 characters"),
        ("Bob\u200f", "U+200F RIGHT-TO-LEFT MARK"),
    ]:
        page = client.post(_invite_link(game_id, ALICE), data={"name": typed})
        assert page.status_code == 400 and reason in page.text
        assert 'id="accept-form"' in page.text and 'id="name-error"' in page.text
        assert fresh_game(game_id).confirmed_at is None
    assert all(s.accepted_at is None for s in fresh_game(game_id).seats)
    assert [m.kind for m in mails()] == ["confirm"]  # nobody else was invited


def test_an_organiser_never_overwrites_a_players_name(client: FlaskClient) -> None:
    first = _create(client, (ALICE, "Alice"), (BOB, "Bob"))
    _accept(client, first, ALICE)
    _accept(client, first, BOB, name="Robert")
    # Another game names Bob otherwise, from the public form and from Alice's dashboard: his
    # own name stays; Carol, who has none, gets the one she is given.
    _create(client, (CAROL, "Carol"), (BOB, "Bobby the Great"))
    created = client.post(
        f"{_dashboard(ALICE)}/new",
        data={"game": "countdown", "email": [BOB, CAROL], "name": ["Bobbo", "Caz"]},
    )
    assert created.status_code == 303, created.text
    assert _player(BOB).name == "Robert" and _player(CAROL).name == "Carol"
    assert _player(ALICE).name == "Alice"


def test_the_dashboard_sets_and_clears_the_name_and_the_mail_choice(client: FlaskClient) -> None:
    game_id = _create(client, (ALICE, ""), (BOB, ""))
    _accept(client, game_id, ALICE)
    home = _dashboard(ALICE)
    page = client.get(home).text
    assert 'id="name-form"' in page and 'id="zone-form"' in page and 'id="vacation"' in page
    assert 'id="mail-form"' in page
    assert re.search(r'<option value="every" selected>Every turn', page)
    assert "invitations, sign-in links and game results still come by email" in page

    saved = client.post(f"{home}/name", data={"name": " Alice  Liddell "})
    assert saved.status_code == 303 and saved.headers["Location"].endswith("done=name")
    assert _player(ALICE).name == "Alice Liddell"
    page = client.get(saved.headers["Location"]).text
    assert "Your name is saved" in page and 'value="Alice Liddell"' in page
    assert "Alice Liddell" in client.get(_play_link(game_id, ALICE)).text

    refused = client.post(f"{home}/name", data={"name": "me@example.org"})
    assert refused.status_code == 400 and 'id="name-error"' in refused.text
    assert 'value="me@example.org"' in refused.text  # what was typed, to correct it
    assert _player(ALICE).name == "Alice Liddell"

    cleared = client.post(f"{home}/name", data={"name": "  "})
    assert cleared.status_code == 303 and _player(ALICE).name is None
    assert "called by your seat" in client.get(cleared.headers["Location"]).text

    for choice in (DIGEST, NO_TURN_MAIL, EVERY_TURN):
        done = client.post(f"{home}/mail", data={"preference": choice})
        assert done.status_code == 303 and _player(ALICE).mail_preference == choice
    page = client.get(f"{home}?done=mail").text
    assert "Your mail choice is saved" in page
    bad = client.post(f"{home}/mail", data={"preference": "hourly"})
    assert bad.status_code == 400 and "not a mail choice" in bad.text
    assert _player(ALICE).mail_preference == EVERY_TURN
    # The other forms of the page still work beside them.
    zone = client.post(f"{home}/timezone", data={"zone": "Europe/Paris"})
    assert zone.status_code == 303 and _player(ALICE).time_zone == "Europe/Paris"
    # Another player's link cannot change Alice's name.
    assert client.post("/me/not-a-token/name", data={"name": "X"}).status_code == 403


# --- the API ------------------------------------------------------------------------------------


def _running(client: FlaskClient) -> str:
    game_id = _create(client, (ALICE, "Alice"), (BOB, ""), (CAROL, SCRIPT))
    for email in (ALICE, BOB, CAROL):
        _accept(client, game_id, email)
    assert fresh_game(game_id).status == "running"
    return game_id


def test_the_api_names_every_player_and_gives_an_address_to_its_owner_only(
    client: FlaskClient,
) -> None:
    game_id = _running(client)
    bob = _seat(game_id, BOB)
    player = _player(CAROL)
    player.bounced_at = utcnow()
    db.session.commit()
    token = _play_link(game_id, BOB).rsplit("/", 1)[1]
    body = client.get(f"/api/games/{game_id}", headers={"Authorization": f"Bearer {token}"}).json
    assert body is not None
    players = body["players"]
    assert [p["seat"] for p in players] == [0, 1, 2]
    assert [p["name"] for p in players] == views.names(fresh_game(game_id))
    assert players[_seat(game_id, ALICE)]["name"] == "Alice"
    assert players[bob]["name"] == f"Player {bob + 1}"
    assert players[_seat(game_id, CAROL)]["name"] == SCRIPT  # JSON is plain text
    assert [p["email"] for p in players] == [BOB if p["seat"] == bob else None for p in players]
    assert all(p["kind"] == "human" and p["state"] == "active" for p in players)
    assert [p["mail_bounces"] for p in players] == [
        p["seat"] == _seat(game_id, CAROL) for p in players
    ]
    assert {"time_left_s", "on_vacation_until"} <= set(players[0])
    record = client.get(f"/api/games/{game_id}/record?token={token}").json
    assert record is not None
    assert [p["email"] for p in record["players"]] == [
        BOB if p["seat"] == bob else None for p in record["players"]
    ]


def test_no_page_and_no_api_answer_shows_another_players_address(client: FlaskClient) -> None:
    # An inviting game first: its players list, the invitation pages.
    game_id = _create(client, (ALICE, "Alice"), (BOB, ""), (CAROL, ""))
    _accept(client, game_id, ALICE)
    for email in (ALICE, BOB, CAROL):
        for url in (_invite_link(game_id, email), _play_link(game_id, email)):
            assert _others(client.get(url).text, email) == [], (email, url)
    _accept(client, game_id, BOB)
    _accept(client, game_id, CAROL)
    # A running game, a move in, seen by every seat through every page and endpoint.
    mover = fresh_game(game_id).seats[fresh_game(game_id).to_move]
    moved = client.post(_play_link(game_id, mover.player.email), data={"move": "1", "ply": 0})
    assert moved.status_code == 303
    for email in (ALICE, BOB, CAROL):
        link = _play_link(game_id, email)
        token = link.rsplit("/", 1)[1]
        answers = {
            "game page": client.get(link).text,
            "invitation": client.get(_invite_link(game_id, email)).text,
            "dashboard": client.get(_dashboard(email)).text,
            "replay": client.get(f"{link}/replay/1").text,
            "resign form": client.get(f"{link}/resign").text,
            "submission": client.get(f"{moved.headers['Location']}").text,
        }
        for path in ("", "/legal", "/history", "/record", "/positions/1", "/board.svg"):
            answers[f"api{path}"] = client.get(f"/api/games/{game_id}{path}?token={token}").text
        for what, text in answers.items():
            assert _others(text, email) == [], (email, what)
    # The dashboard and the own game page do show the owner's own address where it helps.
    assert ALICE in client.get(_dashboard(ALICE)).text


def test_a_lapsed_and_reinvited_seat_keeps_the_addresses_out_of_the_record(
    client: FlaskClient,
) -> None:
    game_id = _create(client, (ALICE, "Alice"), (BOB, ""))
    _accept(client, game_id, ALICE)
    report = clock_task.run_clock(settings(), utcnow() + timedelta(days=8))
    assert report.invitations_expired == 1
    organiser = _play_link(game_id, ALICE)
    bob = _seat(game_id, BOB)
    response = client.post(f"{organiser}/reinvite", data={"seat": str(bob), "email": CAROL})
    assert response.status_code == 303
    token = organiser.rsplit("/", 1)[1]
    record = client.get(f"/api/games/{game_id}/record?token={token}").text
    assert _others(record, ALICE) == []
    assert '"kind":"reinvited"' in record.replace(" ", "")


# --- plain text ---------------------------------------------------------------------------------


def test_a_name_is_plain_text_on_every_page(client: FlaskClient) -> None:
    game_id = _running(client)
    escaped = "&lt;script&gt;alert(1)&lt;/script&gt;"
    for email in (ALICE, BOB):
        page = client.get(_play_link(game_id, email)).text
        assert SCRIPT not in page and escaped in page
        assert "alert(1)</a>" not in page  # and never a link
        invitation = client.get(_invite_link(game_id, email)).text
        assert SCRIPT not in invitation and escaped in invitation
        dashboard = client.get(_dashboard(email)).text
        assert SCRIPT not in dashboard and escaped in dashboard
    own = client.get(_dashboard(CAROL)).text
    assert SCRIPT not in own and f'value="{escaped}"' in own


def test_the_player_table_says_whose_mail_bounces(client: FlaskClient) -> None:
    game_id = _running(client)
    player = _player(BOB)
    player.bounced_at = utcnow()
    db.session.commit()
    theirs = client.get(_play_link(game_id, ALICE)).text
    assert "their email bounces" in theirs and theirs.count('data-mail-bounces="yes"') == 1
    mine = client.get(_play_link(game_id, BOB)).text
    assert "email to you bounces" in mine


def test_the_invitation_mail_names_the_organiser_and_no_address_but_the_recipients(
    client: FlaskClient,
) -> None:
    game_id = _create(client, (ALICE, "Alice"), (BOB, ""), (CAROL, "Carol"))
    _accept(client, game_id, ALICE)
    invitations = [m for m in mails(kind="invite") if m.game_id == game_id]
    assert sorted(m.to for m in invitations) == [BOB, CAROL]
    for row in invitations:
        assert "Alice invites you" in row.text
        assert _others(row.text, row.to) == [] and _others(row.html, row.to) == []
        assert links_in(row, "invite")
