"""A game named by its organiser, on the pages outside the home page: started from the
dashboard's form, and headed by its name on the page that confirms it was set up and on the
invitation."""

from __future__ import annotations

from flask.testing import FlaskClient

from pbem import links
from pbem.extensions import db, settings
from pbem.models import Game
from tests.web.flow import EMAILS, confirmed, create, links_in, mails


def test_the_dashboard_form_names_the_game(client: FlaskClient) -> None:
    first = confirmed(client)
    organiser = first.organiser
    assert organiser is not None
    me = links.player_url(settings(), organiser.id, organiser.nonce).removeprefix(
        "http://pbem.test"
    )
    response = client.post(
        f"{me}/new",
        data={"game": "countdown", "title": "Friday Club", "email": ["carol@example.org"]},
    )
    assert response.status_code == 303, response.text
    game = db.session.execute(db.select(Game).where(Game.title == "Friday Club")).scalar_one()
    (invite,) = mails(kind="invite", to="carol@example.org")
    assert invite.subject == f"[pbem] Friday Club ({game.id}): you are invited to a game"
    assert f"a game of Countdown, “Friday Club” (game {game.id})" in invite.text
    refused = client.post(
        f"{me}/new", data={"game": "countdown", "title": "x" * 61, "email": ["dan@example.org"]}
    )
    assert refused.status_code == 400 and "at most 60 characters" in refused.text


def test_the_set_up_page_and_the_invitation_are_headed_by_the_name(client: FlaskClient) -> None:
    game = create(client, title="Friday Club")
    page = client.get(f"/created/{game.id}").text
    assert f"<b>Friday Club</b> (Countdown game {game.id}) is set up" in page
    (confirm,) = mails(kind="confirm")
    invitation = client.get(links_in(confirm, "invite")[0]).text
    assert '<h1 id="game-name">Friday Club' in invitation
    assert "<title>Invitation to Friday Club (Countdown) — pbem</title>" in invitation
    plain = create(client, emails=["x@example.org", EMAILS[1]])
    assert f"Countdown game <b>{plain.id}</b> is set up" in client.get(f"/created/{plain.id}").text
