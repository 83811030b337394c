"""Invitations: GET shows and changes nothing, POST accepts, the last acceptance starts."""

from __future__ import annotations

from flask.testing import FlaskClient

from pbem import links
from pbem.domain import rotation
from pbem.extensions import db, settings
from pbem.models import Game
from tests.web.flow import EMAILS, confirmation_link, confirmed, create, links_in, mails


def test_get_shows_the_invitation_and_changes_nothing(client: FlaskClient) -> None:
    game = create(client)
    path = confirmation_link(game)
    for _ in range(3):  # a mail scanner opening the link
        page = client.get(path)
        assert page.status_code == 200
        assert 'id="accept-form"' in page.text and "(you)" in page.text
    db.session.expire_all()
    assert all(s.accepted_at is None for s in db.session.get(Game, game.id).seats)


def test_post_accepts_and_the_last_acceptance_starts_the_game(client: FlaskClient) -> None:
    game = create(client)
    first = confirmation_link(game)
    page = client.post(first)
    assert "You have accepted" in page.text and "Waiting for" in page.text
    assert "Your address is confirmed" in page.text
    (second,) = (links_in(m, "invite")[0] for m in mails(kind="invite"))
    assert 'id="seat-link"' in page.text
    assert client.post(first).status_code == 200  # twice is harmless
    page = client.post(second)
    assert "The game is under way" in page.text
    db.session.expire_all()
    started = db.session.get(Game, game.id)
    assert started is not None and started.status == "running"
    assert len(mails(kind="turn")) == 1 and len(mails(kind="started")) == 1


def test_a_forged_invitation_is_refused(client: FlaskClient) -> None:
    game = create(client)
    path = confirmation_link(game)
    response = client.post(path[:-4] + "AAAA")
    assert response.status_code == 403 and "This link is not valid" in response.text


def test_an_invitation_withdrawn_by_a_rotation_is_refused_and_takes_no_seat(
    client: FlaskClient,
) -> None:
    game = confirmed(client)
    invitation = mails(kind="invite")[0]
    path = links_in(invitation, "invite")[0]
    seat = next(s for s in game.seats if s.player.email == invitation.to)
    rotation.rotate_seat_links(settings(), game.id, seat.seat, notify=False)

    response = client.post(path)

    assert response.status_code == 403 and "withdrawn" in response.text
    db.session.expire_all()
    assert db.session.get(Game, game.id).seats[seat.seat].accepted_at is None


def test_accepting_names_every_player_and_who_is_still_awaited(client: FlaskClient) -> None:
    game = create(client)
    page = client.post(confirmation_link(game))
    assert page.status_code == 200
    first, second = EMAILS
    db.session.expire_all()
    fresh = db.session.get(Game, game.id)
    other = next(s.seat for s in fresh.seats if s.player.email == second)
    # Countdown's seats have no colour words: unnamed players are "Player 1", "Player 2".
    assert "<li>Player 1" in page.text and "<li>Player 2" in page.text
    assert f"Waiting for: Player {other + 1}." in page.text
    assert first not in page.text and second not in page.text
    assert page.text.count("(you)") == 1
    accepted = [s.player.email for s in fresh.seats if s.accepted_at]
    assert accepted == [first]


def test_nobody_else_can_accept_before_the_organiser_confirms(client: FlaskClient) -> None:
    game = create(client)
    other = next(s for s in game.seats if s.player.email == EMAILS[1])
    token = links.token_for(settings().signing_key, other, links.INVITE)
    assert client.post(f"/invite/{token}").status_code == 404
    db.session.expire_all()
    assert all(s.accepted_at is None for s in db.session.get(Game, game.id).seats)
