"""The mail settings page, `/mail/<token>`, from the link in a real turn email: GET shows the
setting and changes nothing, a form POST changes it, and RFC 8058's one-click POST (a mail
provider's server, no cookie, no CSRF token) turns turn mail off; forged links are refused."""

from __future__ import annotations

from flask.testing import FlaskClient
from sqlalchemy import select

from pbem import links
from pbem.extensions import db, settings
from pbem.models import DIGEST, EVERY_TURN, NO_TURN_MAIL, Game, OutboxMessage, Player
from tests.security.test_production_headers import FORGED, assert_secured
from tests.web.flow import mails, start, turn_link

ONE_CLICK = "List-Unsubscribe=One-Click"  # RFC 8058's body, exactly


def _turn_email(client: FlaskClient) -> tuple[Game, OutboxMessage]:
    game = start(client)
    db.session.expire_all()
    fresh = db.session.get(Game, game.id)
    assert fresh is not None and fresh.to_move is not None
    to = fresh.seats[fresh.to_move].player.email
    (row,) = mails(to=to, kind="turn")
    return fresh, row


def _path(row: OutboxMessage) -> str:
    assert row.list_unsubscribe is not None
    assert row.list_unsubscribe.startswith("http://pbem.test/mail/")
    return row.list_unsubscribe.removeprefix("http://pbem.test")


def _preference(email: str) -> str:
    db.session.expire_all()
    return db.session.execute(
        select(Player.mail_preference).where(Player.email == email)
    ).scalar_one()


def test_the_page_shows_the_setting_and_a_get_changes_nothing(client: FlaskClient) -> None:
    _, row = _turn_email(client)
    path = _path(row)
    page = client.get(path)
    assert page.status_code == 200
    assert 'id="current">Every turn<' in page.text and "One daily digest" in page.text
    assert "always come" in page.text  # invitations, sign-in links and results still come
    assert page.headers["Cache-Control"] == "no-store"
    assert "noindex" in page.headers["X-Robots-Tag"] and 'name="robots"' in page.text
    assert_secured(page)
    assert _preference(row.to) == EVERY_TURN


def test_the_form_sets_the_preference(client: FlaskClient) -> None:
    _, row = _turn_email(client)
    saved = client.post(_path(row), data={"preference": "digest"})
    assert saved.status_code == 200 and 'id="saved"' in saved.text
    assert 'value="digest" checked' in saved.text
    assert _preference(row.to) == DIGEST
    client.post(_path(row), data={"preference": " EVERY "})
    assert _preference(row.to) == EVERY_TURN


def test_a_wrong_or_missing_choice_is_refused_and_changes_nothing(client: FlaskClient) -> None:
    _, row = _turn_email(client)
    wrong = client.post(_path(row), data={"preference": "weekly" + "x" * 90})
    assert wrong.status_code == 400
    assert "is not a mail setting: choose one of every" in wrong.text
    assert "x" * 60 not in wrong.text  # what was sent is quoted in short
    huge = client.post(_path(row), data={"preference": "x" * 5000})
    assert huge.status_code == 422  # refused at the edge (pbem.web.limits)
    missing = client.post(_path(row), data={})
    assert missing.status_code == 400 and "Choose which turn emails" in missing.text
    assert _preference(row.to) == EVERY_TURN


def test_one_click_unsubscribe_turns_turn_mail_off(client: FlaskClient) -> None:
    game, row = _turn_email(client)
    path = _path(row)
    # A mail provider's server: no cookie, no session, no token but the link's.
    provider = client.application.test_client(use_cookies=False)
    for _ in range(2):  # idempotent
        answer = provider.post(
            path, data=ONE_CLICK, content_type="application/x-www-form-urlencoded"
        )
        assert answer.status_code == 200 and 'id="unsubscribed"' in answer.text
        assert _preference(row.to) == NO_TURN_MAIL
    # As multipart/form-data too (RFC 8058 allows either).
    client.post(_path(row), data={"preference": "every"})
    answer = provider.post(
        path, data={"List-Unsubscribe": "One-Click"}, content_type="multipart/form-data"
    )
    assert answer.status_code == 200 and _preference(row.to) == NO_TURN_MAIL
    # They move: their opponent's turn email goes. The opponent moves: their own turn again,
    # and no email about it.
    assert client.post(turn_link(game), data={"move": "1", "ply": "0"}).status_code == 303
    assert [m for m in mails(kind="turn") if m.to != row.to]
    assert client.post(turn_link(game), data={"move": "1", "ply": "1"}).status_code == 303
    assert [m.id for m in mails(to=row.to, kind="turn")] == [row.id]


def test_forged_and_wrong_purpose_links_are_refused(client: FlaskClient) -> None:
    _, row = _turn_email(client)
    config = settings()
    player_id = db.session.execute(select(Player.id).where(Player.email == row.to)).scalar_one()
    block = links.block_url(config, player_id).removeprefix("http://pbem.test/block/")
    for token, code in ((FORGED, "bad_token"), (block, "wrong_token")):
        for answer in (
            client.get(f"/mail/{token}"),
            client.post(
                f"/mail/{token}", data=ONE_CLICK, content_type="application/x-www-form-urlencoded"
            ),
            client.post(f"/mail/{token}", data={"preference": "none"}),
        ):
            assert answer.status_code == 403 and f'data-error="{code}"' in answer.text
            assert answer.headers["Cache-Control"] == "no-store"
    assert "This link is for refusing invitations" in client.get(f"/mail/{block}").text
    unknown = links.mail_settings_url(config, 10**6).removeprefix("http://pbem.test")
    assert client.get(unknown).status_code == 403
    assert _preference(row.to) == EVERY_TURN


def test_a_bouncing_address_is_told_how_to_start_its_mail_again(client: FlaskClient) -> None:
    _, row = _turn_email(client)
    player = db.session.execute(select(Player).where(Player.email == row.to)).scalar_one()
    player.bounced_at = row.created_at
    db.session.commit()
    page = client.get(_path(row))
    assert 'id="bounced"' in page.text and 'href="http://pbem.test/signin"' in page.text
