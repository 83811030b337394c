"""Starting a game from the web form."""

from __future__ import annotations

from flask.testing import FlaskClient

from pbem.extensions import db
from pbem.models import Game, Player
from tests.web.flow import EMAILS, create, links_in, mails


def test_the_form_lists_the_games_and_then_their_options(client: FlaskClient) -> None:
    page = client.get("/")
    assert page.status_code == 200
    assert 'value="countdown"' in page.text and 'value="gorami"' in page.text
    form = client.get("/?game=countdown").text
    assert 'name="pile"' in form and 'name="actions"' in form
    # A row for each possible player, each with an address and a name: the first is the
    # organiser's own.
    start = form[form.index('id="new-game"') :]
    assert start.count('name="email"') == 3 and start.count('name="name"') == 3
    assert 'id="email-0"' in form and "Your email address" in form and "Your name" in form


def test_creating_a_game_emails_the_organiser_alone_until_confirmed(client: FlaskClient) -> None:
    game = create(client, pile="21")
    assert game.options == {"pile": 21, "actions": 1}
    assert game.organiser is not None and game.organiser.email == EMAILS[0]
    assert game.confirmed_at is None
    assert [m.to for m in mails()] == [EMAILS[0]]
    (confirm,) = mails(kind="confirm")
    assert len(links_in(confirm, "invite")) == 1
    assert "Nobody else has been emailed yet" in confirm.text
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
    # What was typed is kept, one player a row.
    assert 'value="a@example.org"' in response.text and 'value="b@example.org"' in response.text
    response = client.post("/", data={"game": "countdown", "emails": "a@example.org"})
    assert response.status_code == 400 and "played by 2 to 3 players" in response.text
    response = client.post("/", data={"game": "chess", "emails": "a@x.org b@x.org"})
    assert response.status_code == 400 and "unknown game" in response.text
    assert Game.query.count() == 0


def test_a_get_never_creates_a_game(client: FlaskClient) -> None:
    client.get("/?game=countdown&emails=a@example.org+b@example.org")
    assert Game.query.count() == 0


def _form(*players: tuple[str, str], **fields: str) -> dict[str, object]:
    """The form as a browser posts it: one `email` and one `name` field per row."""
    return {
        "game": "countdown",
        "email": [address for address, _ in players],
        "name": [name for _, name in players],
        **fields,
    }


def _names(game_id: str) -> dict[str, str | None]:
    db.session.expire_all()
    found = db.session.get(Game, game_id)
    assert found is not None
    return {seat.player.email: seat.player.name for seat in found.seats}


def test_the_organiser_names_themselves_and_the_invitees_in_the_form(
    client: FlaskClient,
) -> None:
    response = client.post(
        "/",
        data=_form(
            ("alice@example.org", "  Alice   Smith "),
            ("bob@example.org", "Bob"),
            ("carol@example.org", ""),
        ),
    )
    assert response.status_code == 303, response.text
    game_id = response.headers["Location"].rsplit("/", 1)[1]
    assert _names(game_id) == {
        "alice@example.org": "Alice Smith",
        "bob@example.org": "Bob",
        "carol@example.org": None,
    }
    # An address field may hold "Name <address>" too, as mail clients write it.
    response = client.post(
        "/", data=_form(("Dan Dare <dan@example.org>", ""), ("e@example.org", ""))
    )
    assert response.status_code == 303
    assert _names(response.headers["Location"].rsplit("/", 1)[1])["dan@example.org"] == "Dan Dare"


def test_a_bad_name_in_the_form_is_refused_with_the_reason_and_nothing_is_made(
    client: FlaskClient,
) -> None:
    cases = [
        (("alice@example.org", "alice@example.org"), "must not carry an address"),
        (("alice@example.org", "x" * 41), "at most 40 characters"),
        (("alice@example.org", "Al\u202eice"), "RIGHT-TO-LEFT OVERRIDE"),
        (("", "Nobody"), "has no email address beside it"),
        (("Alice <alice@example.org", ""), "is not one player"),
    ]
    for first, reason in cases:
        response = client.post("/", data=_form(first, ("bob@example.org", "Bob")))
        assert response.status_code == 400, first
        assert reason in response.text, (first, response.text)
        assert 'value="bob@example.org"' in response.text and 'value="Bob"' in response.text
    assert Game.query.count() == 0
    assert Player.query.count() == 0
