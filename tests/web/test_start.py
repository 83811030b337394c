"""Starting a game from the web form."""

from __future__ import annotations

from flask.testing import FlaskClient

from pbem.models import Game
from tests.web.flow import EMAILS, create, links_in, mails


def test_the_form_lists_the_games_and_then_their_options(client: FlaskClient) -> None:
    page = client.get("/")
    assert page.status_code == 200
    assert 'value="countdown"' in page.text and 'value="gorami"' in page.text
    form = client.get("/?game=countdown").text
    assert 'name="pile"' in form and 'name="actions"' in form and 'name="emails"' in form


def test_creating_a_game_emails_the_organiser_alone_until_confirmed(client: FlaskClient) -> None:
    game = create(client, pile="21")
    assert game.options == {"pile": 21, "actions": 1}
    assert game.organiser is not None and game.organiser.email == EMAILS[0]
    assert game.confirmed_at is None
    assert [m.to for m in mails()] == [EMAILS[0]]
    (confirm,) = mails(kind="confirm")
    assert len(links_in(confirm, "invite")) == 1
    page = client.get(f"/created/{game.id}")
    assert "Check your email" in page.text and 'id="confirm-notice"' in page.text
    assert 'href="/outbox"' in page.text
    # The organiser's POST confirms, takes their seat, and only then invites the others.
    assert client.post(links_in(confirm, "invite")[0]).status_code == 200
    invites = mails(kind="invite")
    assert [m.to for m in invites] == [EMAILS[1]]
    assert all(len(links_in(m, "invite")) == 1 for m in invites)


def test_bad_set_up_shows_the_form_again_with_the_reason(client: FlaskClient) -> None:
    response = client.post(
        "/", data={"game": "countdown", "pile": "8", "emails": "a@example.org b@example.org"}
    )
    assert response.status_code == 400
    assert "option pile=&#39;8&#39; is not allowed; choose 10, 5, 21" in response.text
    assert "a@example.org b@example.org" in response.text  # what was typed is kept
    response = client.post("/", data={"game": "countdown", "emails": "a@example.org"})
    assert response.status_code == 400 and "played by 2 to 3 players" in response.text
    response = client.post("/", data={"game": "chess", "emails": "a@x.org b@x.org"})
    assert response.status_code == 400 and "unknown game" in response.text
    assert Game.query.count() == 0


def test_a_get_never_creates_a_game(client: FlaskClient) -> None:
    client.get("/?game=countdown&emails=a@example.org+b@example.org")
    assert Game.query.count() == 0
