"""The language of pages, mail and refusals: the player's once they have one, else `?lang=`
(remembered by a cookie), else Accept-Language; chosen by POST on the games page or a seat's
page, and stored from the first page a player acts on, never by a GET."""

from __future__ import annotations

from email import message_from_bytes, policy
from pathlib import Path

import pytest
from flask.testing import FlaskClient
from sqlalchemy import create_engine, select, text

from pbem import cli, links
from pbem.domain import rotation
from pbem.extensions import db, settings
from pbem.mail import building
from pbem.models import Game, OutboxMessage, Player
from tests.web.flow import EMAILS, confirmation_link, create, fresh_game, links_in, mails, start

ANN, BOB = EMAILS
HEADER = {"en": "play-by-email board games", "fr": "jeux de plateau par e-mail"}
HEADER |= {"nl": "bordspellen per e-mail", "da": "brætspil over e-mail"}


def _player(email: str) -> Player:
    db.session.expire_all()
    return db.session.execute(select(Player).where(Player.email == email)).scalar_one()


def _games_page(email: str) -> str:
    player = _player(email)
    return f"/me/{links.player_token(settings().signing_key, player.id, player.nonce)}"


def _speaks(page: str) -> str:
    for code, words in HEADER.items():
        if f"— {words}" in page:
            return code
    raise AssertionError("no header found")


@pytest.mark.parametrize(
    ("accept", "expected"),
    [
        ("fr-FR,fr;q=0.9,en;q=0.5", "fr"),
        ("nl-BE", "nl"),
        ("da", "da"),
        ("de, it", "en"),
        ("", "en"),
    ],
)
def test_public_pages_follow_accept_language(
    client: FlaskClient, accept: str, expected: str
) -> None:
    page = client.get("/signin", headers={"Accept-Language": accept})
    assert page.status_code == 200
    assert f'<html lang="{expected}">' in page.text and _speaks(page.text) == expected
    assert page.headers["Content-Language"] == expected
    assert {"Accept-Language", "Cookie"} <= set(page.headers["Vary"].replace(" ", "").split(","))


def test_lang_switches_a_public_page_and_a_cookie_remembers_it(client: FlaskClient) -> None:
    page = client.get("/?lang=nl&game=marram", headers={"Accept-Language": "fr"})
    assert _speaks(page.text) == "nl"
    cookie = page.headers["Set-Cookie"]
    assert cookie.startswith("pbem_lang=nl;") and "HttpOnly" in cookie and "SameSite=Lax" in cookie
    # The switch keeps the page's own arguments.
    assert 'href="?game=marram&amp;lang=da"' in page.text
    assert _speaks(client.get("/signin", headers={"Accept-Language": "fr"}).text) == "nl"
    assert "Set-Cookie" not in client.get("/?lang=nl").headers
    # A language pbem does not speak changes nothing.
    assert _speaks(client.get("/signin?lang=de").text) == "nl"


def test_a_refusal_speaks_the_browsers_language(client: FlaskClient) -> None:
    missing = client.get("/no/such/page", headers={"Accept-Language": "da"})
    assert missing.status_code == 404 and '<html lang="da">' in missing.text


def test_the_first_page_acted_on_gives_its_language_and_a_get_never_does(
    client: FlaskClient,
) -> None:
    game = create(client, emails=[ANN, BOB])
    link = confirmation_link(game)
    assert client.get(link, headers={"Accept-Language": "da"}).status_code == 200
    assert _player(ANN).language is None, "a GET (a mail scanner) stores nothing"
    assert client.post(link, headers={"Accept-Language": "da"}).status_code == 200
    assert _player(ANN).language == "da"
    # Bob's invitation is written in the game's language (the page's when it was made: en).
    (invitation,) = mails(to=BOB, kind="invite")
    assert invitation.language == "en"
    # Acting again in another language changes nothing: only a choice does.
    client.get(f"{_games_page(ANN)}?lang=fr")
    client.post(f"{_games_page(ANN)}/name", data={"name": "Ann"}, headers={"Accept-Language": "fr"})
    assert _player(ANN).language == "da"


def test_the_players_language_wins_on_their_pages(client: FlaskClient) -> None:
    game = start(client, emails=[ANN, BOB])
    page = _games_page(ANN)
    chosen = client.post(f"{page}/language", data={"language": "nl"})
    assert chosen.status_code == 303 and chosen.headers["Location"].endswith(page)
    assert _player(ANN).language == "nl"
    shown = client.get(page, headers={"Accept-Language": "fr"}, query_string={"lang": "da"})
    assert _speaks(shown.text) == "nl" and '<html lang="nl">' in shown.text
    # The switch there is a form storing the choice, not a link.
    assert f'action="{page}/language"' in shown.text and 'name="language" value="fr"' in shown.text
    seat = fresh_game(game.id).seats[0]
    seat = next(s for s in fresh_game(game.id).seats if s.player.email == ANN)
    play = f"/play/{links.token_for(settings().signing_key, seat, links.SEAT)}"
    assert _speaks(client.get(play).text) == "nl"
    assert client.post(f"{play}/language", data={"language": "fr"}).status_code == 303
    assert _player(ANN).language == "fr" and _speaks(client.get(play).text) == "fr"


@pytest.mark.parametrize("value", ["de", "", "fr-FR", "français", "x" * 5000])
def test_a_language_pbem_does_not_speak_is_refused(client: FlaskClient, value: str) -> None:
    start(client, emails=[ANN, BOB])
    page = _games_page(ANN)
    client.post(f"{page}/language", data={"language": "fr"})
    refused = client.post(f"{page}/language", data={"language": value})
    assert refused.status_code in (400, 413, 422)
    if refused.status_code == 400:
        assert "pbem parle English, Français, Nederlands, Dansk" in refused.text
    assert _player(ANN).language == "fr"


def test_mail_goes_in_the_recipients_language_and_says_so(client: FlaskClient) -> None:
    game = start(client, emails=[ANN, BOB])
    ann = _player(ANN)
    ann.language = "da"
    db.session.commit()
    config = settings()
    rotation.rotate_player_links(config, BOB)
    (english,) = mails(to=BOB, kind="signedout")
    assert english.language == "en"
    rotation.rotate_player_links(config, ANN)
    (danish,) = mails(to=ANN, kind="signedout")
    assert danish.language == "da"
    sent = message_from_bytes(building.envelope(danish, settings().mail_from).message)
    assert sent["Content-Language"] == "da"
    assert db.session.get(Game, game.id) is not None


def test_a_game_made_in_french_invites_in_french(client: FlaskClient) -> None:
    made = client.post("/", data={"game": "countdown", "emails": f"{ANN}\n{BOB}", "language": "fr"})
    assert made.status_code == 303
    game_id = made.headers["Location"].rsplit("/", 1)[1]
    assert fresh_game(game_id).language == "fr"
    (confirm,) = mails(to=ANN, kind="confirm")
    assert confirm.language == "fr"
    # Without the field, the page's language.
    page_made = client.post("/?lang=nl", data={"game": "countdown", "emails": f"{ANN}\n{BOB}"})
    assert fresh_game(page_made.headers["Location"].rsplit("/", 1)[1]).language == "nl"
    bad = client.post("/", data={"game": "countdown", "emails": f"{ANN}\n{BOB}", "language": "de"})
    assert bad.status_code == 400
    assert links_in(confirm, "invite")


def test_new_game_takes_a_language(cli_env: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["new-game", "countdown", "--language", "nl", ANN, BOB]) == 0
    assert cli.main(["new-game", "countdown", "--language=de", ANN, BOB]) == 2
    assert "pbem speaks en, fr, nl, da" in capsys.readouterr().err
    engine = create_engine(f"sqlite:///{cli_env / 'cli.db'}")
    with engine.connect() as connection:
        assert connection.execute(text("select language from games")).scalars().all() == ["nl"]
        languages = connection.execute(text("select distinct language from outbox")).scalars()
        assert list(languages) == ["nl"]
    engine.dispose()
    invitations = list((cli_env / "outbox").glob("*-invite.eml"))
    assert invitations
    for path in invitations:
        assert (
            message_from_bytes(path.read_bytes(), policy=policy.default)["Content-Language"] == "nl"
        )
    assert OutboxMessage.__tablename__ == "outbox"


def test_a_mail_clients_one_click_the_api_and_a_script_store_no_language(
    client: FlaskClient,
) -> None:
    game = start(client, emails=[ANN, BOB])
    ann = _player(ANN)
    assert ann.language == "en"  # her acceptance's page was English
    ann.language = None
    db.session.commit()
    mail_link = links.mail_settings_url(settings(), ann.id).removeprefix("http://pbem.test")
    one_click = client.post(
        mail_link, data={"List-Unsubscribe": "One-Click"}, headers={"Accept-Language": "nl"}
    )
    assert one_click.status_code == 200
    assert _player(ANN).language is None
    seat = next(s for s in fresh_game(game.id).seats if s.player.email == ANN)
    token = links.token_for(settings().signing_key, seat, links.SEAT)
    client.get(
        f"/api/games/{game.id}/legal",
        headers={"Authorization": f"Bearer {token}", "Accept-Language": "da"},
    )
    client.post(
        f"/api/games/{game.id}/draw",
        headers={"Authorization": f"Bearer {token}", "Accept-Language": "da"},
    )
    assert _player(ANN).language is None
    # Nor does the games page's script sending the browser's time zone by itself.
    zone = client.post(
        f"{_games_page(ANN)}/timezone",
        data={"zone": "Europe/Paris", "if_unset": "1"},
        headers={"Accept": "application/json", "Accept-Language": "fr"},
    )
    assert zone.status_code == 200
    assert _player(ANN).language is None
    # The settings page itself, a person's choice, does.
    client.post(mail_link, data={"preference": "digest"}, headers={"Accept-Language": "nl"})
    assert _player(ANN).language == "nl"
