"""Being forgotten from the games page: the button only emails a link, the link's page shows
what erasing ends and changes nothing, its POST erases as `pbem admin player erase` does, and
the link then works no more; it lives a day, and signing out everywhere withdraws it."""

from __future__ import annotations

from datetime import timedelta

import time_machine
from flask.testing import FlaskClient
from sqlalchemy import select

from pbem import links
from pbem.extensions import db, settings
from pbem.models import Game, OutboxMessage, Player, utcnow
from pbem.ops.player_data import FORMER_PLAYER
from tests.web.flow import EMAILS, create, fresh_game, links_in, mails, start

ANN, BOB = EMAILS
CAT = "cat@example.org"


def _ann() -> Player:
    db.session.expire_all()
    return db.session.execute(select(Player).where(Player.email == ANN)).scalar_one()


def _games_page() -> str:
    ann = _ann()
    return f"/me/{links.player_token(settings().signing_key, ann.id, ann.nonce)}"


def _ask(client: FlaskClient) -> str:
    """Press the games page's button; the path of the emailed erase link."""
    page = _games_page()
    response = client.post(f"{page}/erase")
    assert response.status_code == 303
    assert response.headers["Location"].endswith(f"{page}?done=erase")
    assert 'id="done"' in client.get(response.headers["Location"]).text
    [letter] = mails(to=ANN, kind="erase")
    [link] = links_in(letter, "erase")
    return link


def test_the_button_emails_a_link_and_only_its_post_erases(client: FlaskClient) -> None:
    duel = start(client, emails=[ANN, BOB])
    gathering = create(client, emails=[ANN, CAT])
    assert 'id="erase-request-form"' in client.get(_games_page()).text
    link = _ask(client)
    assert "We emailed you a link to confirm" in client.get(_games_page() + "?done=erase").text
    [letter] = mails(to=ANN, kind="erase")
    assert letter.subject == "[pbem] confirm: erase your data"
    assert "You will resign 1 running game. 1 game still gathering players" in letter.text
    assert "works for 24 hours" in letter.text
    # Its page says what erasing ends, and a GET (a mail scanner's) erases nothing.
    page = client.get(link)
    assert page.status_code == 200
    assert page.headers["Cache-Control"] == "no-store"
    assert "noindex" in page.headers["X-Robots-Tag"]
    assert f"({duel.id})" in page.text
    assert f"({gathering.id})" in page.text
    assert _ann().email == ANN and fresh_game(duel.id).status == "running"
    done = client.post(link)
    assert done.status_code == 200 and 'id="erased"' in done.text
    assert "You resigned 1 running game." in done.text
    db.session.expire_all()
    assert db.session.execute(select(Player).where(Player.email == ANN)).first() is None
    assert fresh_game(duel.id).status == "finished"
    assert fresh_game(gathering.id).status == "cancelled"
    # The others were told; nothing is left for her, and no row names her.
    assert mails(to=ANN) == []
    for row in db.session.execute(select(OutboxMessage)).scalars():
        assert ANN not in row.text and ANN not in row.html
    erased = db.session.execute(select(Player).where(Player.erased_at.is_not(None))).scalar_one()
    assert erased.name == FORMER_PLAYER
    # The link erased once: it is withdrawn with every other.
    again = client.post(link)
    assert again.status_code == 403 and "withdrawn" in again.text


def test_the_link_lives_a_day(client: FlaskClient) -> None:
    start(client, emails=[ANN, BOB])
    link = _ask(client)
    with time_machine.travel(utcnow() + timedelta(hours=25), tick=False):
        expired = client.get(link)
        assert expired.status_code == 403
        assert "works for 24 hours" in expired.text and "games page" in expired.text
        assert client.post(link).status_code == 403
    assert _ann().email == ANN


def test_signing_out_everywhere_withdraws_it(client: FlaskClient) -> None:
    start(client, emails=[ANN, BOB])
    link = _ask(client)
    assert client.post(f"{_games_page()}/signout").status_code == 200
    refused = client.post(link)
    assert refused.status_code == 403 and "withdrawn" in refused.text
    assert _ann().email == ANN


def test_other_links_do_not_erase(client: FlaskClient) -> None:
    game = start(client, emails=[ANN, BOB])
    ann = _ann()
    player_token = links.player_token(settings().signing_key, ann.id, ann.nonce)
    wrong = client.post(f"/erase/{player_token}")
    assert wrong.status_code == 403 and "your list of games, not this page" in wrong.text
    seat = fresh_game(game.id).seats[0]
    seat_token = links.token_for(settings().signing_key, seat, links.SEAT)
    assert client.post(f"/erase/{seat_token}").status_code == 403
    assert client.post(f"/erase/{player_token}x").status_code == 403
    # The button needs the games link itself.
    assert client.post(f"/me/{player_token}x/erase").status_code == 403
    assert mails(kind="erase") == []
    assert _ann().email == ANN and db.session.get(Game, game.id) is not None


def test_the_confirmation_speaks_the_players_language(client: FlaskClient) -> None:
    start(client, emails=[ANN, BOB])
    ann = _ann()
    ann.language = "fr"
    db.session.commit()
    link = _ask(client)
    [letter] = mails(to=ANN, kind="erase")
    assert letter.language == "fr"
    assert letter.subject == "[pbem] confirmez : effacer vos données"
    assert "Vous abandonnerez 1 partie en cours." in letter.text
    page = client.get(link, headers={"Accept-Language": "da"})
    assert '<html lang="fr">' in page.text and "Effacer mes données" in page.text
