"""A player's dashboard: from any seat link, or from a sign-in link asked for by email."""

from __future__ import annotations

import re

from flask.testing import FlaskClient

from pbem.extensions import db
from pbem.models import Game
from tests.web.flow import EMAILS, create, mails, start, turn_link


def test_dashboard_lists_every_game_turn_first(client: FlaskClient) -> None:
    waiting = start(client, "gorami", board="16")
    invited = create(client, "mmw")
    path = turn_link(waiting)
    db.session.expire_all()
    fresh = db.session.get(Game, waiting.id)
    assert fresh is not None and fresh.to_move is not None
    mover = fresh.seats[fresh.to_move].player.email
    token = path.rsplit("/", 1)[1]
    page = client.get(f"/me?token={token}")
    assert page.status_code == 200
    html = page.text
    assert mover in html
    rows = re.findall(r'<tr class="([^"]*)" data-game="([^"]+)"', html)
    ids = [game_id for _, game_id in rows]
    assert set(ids) == {waiting.id, invited.id}
    # The game waiting for this player's move and the invitation both need them: first.
    assert all("your-turn" in classes for classes, _ in rows)
    assert "your turn" in html and "accept the invitation" in html
    assert "/invite/" in html and "/play/" in html


def test_dashboard_refuses_a_forged_link(client: FlaskClient) -> None:
    page = client.get("/me/not-a-token")
    assert page.status_code == 403


def test_signin_by_email(client: FlaskClient) -> None:
    game = start(client, "gorami", board="16")
    form = client.get("/signin")
    assert form.status_code == 200 and 'name="email"' in form.text
    sent = client.post("/signin", data={"email": EMAILS[0]})
    assert sent.status_code == 200 and "on its way" in sent.text
    rows = mails(to=EMAILS[0], kind="signin")
    assert len(rows) == 1
    (link,) = re.findall(r"http://pbem\.test(/me/[^\s\"<]+)", rows[0].text)
    page = client.get(link)
    assert page.status_code == 200
    assert game.id in page.text and EMAILS[0] in page.text


def test_signin_does_not_tell_who_plays_here(client: FlaskClient) -> None:
    start(client, "gorami", board="16")
    stranger = client.post("/signin", data={"email": "nobody@example.org"})
    player = client.post("/signin", data={"email": EMAILS[1]})
    assert stranger.status_code == player.status_code == 200
    assert "on its way" in stranger.text
    assert mails(to="nobody@example.org") == []
    bad = client.post("/signin", data={"email": "not an address"})
    assert bad.status_code == 400


def test_a_signin_link_is_not_a_seat_link(client: FlaskClient) -> None:
    game = start(client, "gorami", board="16")
    client.post("/signin", data={"email": EMAILS[0]})
    (row,) = mails(to=EMAILS[0], kind="signin")
    (token,) = re.findall(r"/me/([^\s\"<]+)", row.text)
    page = client.get(f"/play/{token}")
    assert page.status_code == 403
    api = client.get(f"/api/games/{game.id}?token={token}")
    assert api.status_code == 403


def test_an_invitation_link_opens_the_dashboard(client: FlaskClient) -> None:
    game = create(client, "mmw")
    (row, *_) = [m for m in mails(kind="invite") if m.game_id == game.id]
    (token,) = re.findall(r"/invite/([^\s\"<]+)", row.text)
    page = client.get(f"/me?token={token}")
    assert page.status_code == 200
    assert game.id in page.text and "accept the invitation" in page.text


def test_invitation_and_refused_link_pages_lead_to_the_games(client: FlaskClient) -> None:
    game = create(client, "mmw")
    (row, *_) = [m for m in mails(kind="invite") if m.game_id == game.id]
    (path,) = re.findall(r"http://pbem\.test(/invite/[^\s\"<]+)", row.text)
    page = client.get(path)
    assert 'id="dashboard-link"' in page.text
    refused = client.get("/play/not-a-token")
    assert refused.status_code == 403
    assert 'href="/signin"' in refused.text


def test_every_game_email_links_the_players_games(client: FlaskClient) -> None:
    game = start(client, "gorami", board="16")
    rows = [m for m in mails() if m.game_id == game.id and m.kind in ("turn", "started")]
    assert rows
    for row in rows:
        (text_link,) = re.findall(r"All your games: http://pbem\.test(/me/[^\s\"<]+)", row.text)
        assert f'href="http://pbem.test{text_link}"' in row.html
        page = client.get(text_link)
        assert page.status_code == 200
        assert game.id in page.text and row.to in page.text
