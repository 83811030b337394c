"""A player's dashboard: from the player link every email carries, or from a sign-in link
asked for by email; never from a seat or invitation link."""

from __future__ import annotations

import re

from flask.testing import FlaskClient

from pbem.domain import endings, views
from pbem.extensions import db, settings
from pbem.models import Game, Player
from tests.web.flow import EMAILS, confirmed, mails, start, turn_link


def _player_link(address: str) -> str:
    """The "All your games" link of the newest email to `address` that has one."""
    for row in reversed(mails(to=address)):
        found = re.findall(r"http://pbem\.test(/me/[^\s\"<]+)", row.text)
        if found:
            return found[0]
    raise AssertionError(f"no player link mailed to {address}")


def test_dashboard_lists_every_game_turn_first(client: FlaskClient) -> None:
    waiting = start(client, "gorami", board="16")
    invited = confirmed(client, "mmw", emails=[EMAILS[1], EMAILS[0]])
    turn_link(waiting)
    db.session.expire_all()
    fresh = db.session.get(Game, waiting.id)
    assert fresh is not None and fresh.to_move is not None
    mover = fresh.seats[fresh.to_move].player.email
    page = client.get(_player_link(mover))
    assert page.status_code == 200
    html = page.text
    assert mover in html
    rows = re.findall(r'<tr class="([^"]*)" data-game="([^"]+)"', html)
    ids = [game_id for _, game_id in rows]
    assert waiting.id in ids
    if mover == EMAILS[0]:
        # The game waiting for this player's move and the invitation both need them: first.
        assert set(ids) == {waiting.id, invited.id}
        assert all("your-turn" in classes for classes, _ in rows)
        assert "your turn" in html and "accept the invitation" in html
        assert "/invite/" in html and "/play/" in html


def test_a_finished_game_says_who_won_and_whose_score_is_whose(client: FlaskClient) -> None:
    game = start(client, pile="21")
    loser = next(seat for seat in game.seats if seat.player.email == EMAILS[1])
    endings.resign(settings(), loser)
    db.session.expire_all()
    game = db.session.get(Game, game.id)
    assert game is not None and game.status == "finished"
    who = views.names(game)
    winner = who[1 - loser.seat]
    mine = client.get(_player_link(EMAILS[0])).text
    theirs = client.get(_player_link(EMAILS[1])).text
    assert 'data-result="you won"' in mine and f'data-result="{winner} won"' in theirs
    # Each score is named, the reader's own first.
    score = re.compile(r'<span class="pbem-score-of">([^<]*) <b>(\d+)</b></span>')
    assert [name for name, _ in score.findall(mine)] == ["you", who[loser.seat]]
    assert [name for name, _ in score.findall(theirs)] == ["you", winner]


def test_dashboard_refuses_a_forged_link(client: FlaskClient) -> None:
    page = client.get("/me/not-a-token")
    assert page.status_code == 403


def test_signin_by_email_works_once(client: FlaskClient) -> None:
    game = start(client, "gorami", board="16")
    form = client.get("/signin")
    assert form.status_code == 200 and 'name="email"' in form.text
    sent = client.post("/signin", data={"email": EMAILS[0]})
    assert sent.status_code == 200 and "on its way" in sent.text
    rows = mails(to=EMAILS[0], kind="signin")
    assert len(rows) == 1
    (link,) = re.findall(r"http://pbem\.test(/signin/[^\s\"<]+)", rows[0].text)
    for _ in range(3):  # a mail scanner's GETs use up nothing
        page = client.get(link)
        assert page.status_code == 200 and 'id="signin-use-form"' in page.text
    used = client.post(link)
    assert used.status_code == 303 and "/me/" in used.headers["Location"]
    page = client.get(used.headers["Location"])
    assert page.status_code == 200
    assert game.id in page.text and EMAILS[0] in page.text
    again = client.post(link)
    assert again.status_code == 403 and "withdrawn" in again.text


def test_signin_does_not_tell_who_plays_here(client: FlaskClient) -> None:
    start(client, "gorami", board="16")
    stranger = client.post("/signin", data={"email": "nobody@example.org"})
    player = client.post("/signin", data={"email": EMAILS[1]})
    assert stranger.status_code == player.status_code == 200
    assert stranger.text.replace("nobody@example.org", EMAILS[1]) == player.text
    assert mails(to="nobody@example.org") == []
    bad = client.post("/signin", data={"email": "not an address"})
    assert bad.status_code == 400


def test_a_signin_link_opens_no_game(client: FlaskClient) -> None:
    game = start(client, "gorami", board="16")
    client.post("/signin", data={"email": EMAILS[0]})
    (row,) = mails(to=EMAILS[0], kind="signin")
    (token,) = re.findall(r"/signin/([^\s\"<]+)", row.text)
    assert client.get(f"/play/{token}").status_code == 403
    assert client.get(f"/api/games/{game.id}?token={token}").status_code == 403
    assert client.get(f"/me/{token}").status_code == 403


def test_seat_and_invitation_links_open_only_their_own_game(client: FlaskClient) -> None:
    game = start(client, "gorami", board="16")
    seat_token = turn_link(game).rsplit("/", 1)[1]
    other = confirmed(client, "mmw")
    (row,) = [m for m in mails(kind="invite") if m.game_id == other.id]
    (invite_token,) = re.findall(r"/invite/([^\s\"<]+)", row.text)
    for token in (seat_token, invite_token):
        page = client.get(f"/me/{token}")
        assert page.status_code == 403 and "not this page" in page.text
        assert client.get(f"/me?token={token}").status_code == 404


def test_invitation_and_refused_link_pages_lead_to_the_games(client: FlaskClient) -> None:
    game = confirmed(client, "mmw")
    (row, *_) = [m for m in mails(kind="invite") if m.game_id == game.id]
    (path,) = re.findall(r"http://pbem\.test(/invite/[^\s\"<]+)", row.text)
    page = client.get(path)
    assert 'id="dashboard-link"' in page.text and 'href="/signin"' in page.text
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


def test_sign_out_everywhere_withdraws_every_link(client: FlaskClient) -> None:
    game = start(client, "gorami", board="16")
    mine = _player_link(EMAILS[0])
    seat_link = next(
        re.findall(r"http://pbem\.test(/play/[^\s\"<]+)", m.text)[0]
        for m in reversed(mails(to=EMAILS[0]))
        if m.game_id == game.id and "/play/" in m.text
    )
    assert client.get(seat_link).status_code == 200
    page = client.post(f"{mine}/signout")
    assert page.status_code == 200 and 'id="signed-out"' in page.text
    assert client.get(mine).status_code == 403
    assert client.get(seat_link).status_code == 403
    # The other player keeps their links.
    assert client.get(_player_link(EMAILS[1])).status_code == 200


def test_a_game_started_from_the_dashboard_needs_no_confirmation(client: FlaskClient) -> None:
    start(client, "gorami", board="16")
    mine = _player_link(EMAILS[0])
    form = client.get(f"{mine}/new?game=countdown")
    assert form.status_code == 200 and EMAILS[0] in form.text
    made = client.post(f"{mine}/new", data={"game": "countdown", "emails": "carol@example.org"})
    assert made.status_code == 303
    game = Game.query.order_by(Game.created_at.desc()).first()
    assert game is not None and game.confirmed_at is not None
    by_email = {s.player.email: s for s in game.seats}
    assert by_email[EMAILS[0]].accepted_at is not None
    assert [m.to for m in mails(kind="invite") if m.game_id == game.id] == ["carol@example.org"]
    assert mails(kind="confirm") == [m for m in mails(kind="confirm") if m.game_id != game.id]


def test_never_email_me_again(client: FlaskClient) -> None:
    game = confirmed(client, "mmw", emails=[EMAILS[0], "dave@example.org"])
    (row,) = [m for m in mails(kind="invite") if m.game_id == game.id]
    (block,) = re.findall(r"http://pbem\.test(/block/[^\s\"<]+)", row.text)
    assert client.get(block).status_code == 200  # a GET blocks nothing
    assert Player.query.filter_by(email="dave@example.org").one().blocked_at is None
    page = client.post(block)
    assert page.status_code == 200 and 'id="blocked"' in page.text
    assert Player.query.filter_by(email="dave@example.org").one().blocked_at is not None
    again = client.post("/", data={"game": "mmw", "emails": f"{EMAILS[1]}\ndave@example.org"})
    assert again.status_code == 400 and "never to email" in again.text
