"""Resigning, draws, cancelling and inviting someone else, through the game page's forms: GET
shows a confirmation and changes nothing, POST acts and answers 303 to the game page, which
says what happened; every refusal is a page that says why."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from flask.testing import FlaskClient

from pbem import links
from pbem.domain import clock_task, rotation, views
from pbem.extensions import db, settings
from pbem.models import Game, GameEvent, Seat, utcnow
from pbem.web import ratelimits
from tests.web.flow import EMAILS, confirmed, fresh_game, mails, start

THREE = [*EMAILS, "carol@example.org"]


def _link(game_id: str, index: int, purpose: str = links.SEAT) -> str:
    """The game page of seat `index` (as its emails carry it)."""
    seat = fresh_game(game_id).seats[index]
    path = "play" if purpose == links.SEAT else "invite"
    return f"/{path}/{links.token_for(settings().signing_key, seat, purpose)}"


def _seat_of(game_id: str, email: str) -> int:
    return next(s.seat for s in fresh_game(game_id).seats if s.player.email == email)


def _mover(game_id: str) -> int:
    to_move = fresh_game(game_id).to_move
    assert to_move is not None
    return to_move


def _follow(client: FlaskClient, response) -> str:
    assert response.status_code == 303, response.text
    page = client.get(response.headers["Location"])
    assert page.status_code == 200
    return page.text


def _kinds(game_id: str) -> list[str]:
    return [m.kind for m in mails() if m.game_id == game_id]


# --- resigning -----------------------------------------------------------------------------------


def test_resigning_asks_first_and_ends_a_two_player_game(client: FlaskClient) -> None:
    game = start(client)
    loser = _mover(game.id)
    link = _link(game.id, loser)
    page = client.get(link)
    assert 'id="resign"' in page.text and "/resign" in page.text

    for _ in range(2):  # a mail scanner or a second look: GET changes nothing
        ask = client.get(f"{link}/resign")
        assert ask.status_code == 200
        assert f"Resign from Countdown game {game.id} against" in ask.text
        assert "This cannot be undone." in ask.text
        assert 'method="post"' in ask.text and 'id="confirm-form"' in ask.text
    assert fresh_game(game.id).status == "running"

    text = _follow(client, client.post(f"{link}/resign"))
    done = fresh_game(game.id)
    assert done.status == "finished"
    assert done.outcome is not None and done.outcome["reason"] == "resignation"
    assert done.outcome["winners"] == [1 - loser]
    assert "You resigned." in text and "resigned;" in text and "wins" in text
    assert 'id="move-form"' not in text and 'id="resign"' not in text
    assert 'id="offer-draw"' not in text
    result = [m for m in mails(kind="result") if m.game_id == game.id]
    assert len(result) == 2 and all("resigned" in m.text for m in result)

    again = client.post(f"{link}/resign")
    assert again.status_code == 409
    assert "The game is over" in again.text and "resigned" in again.text
    assert "Back to the game page" in again.text
    # The confirmation page of a finished game says so instead of asking.
    late = client.get(f"{link}/resign")
    assert late.status_code == 409 and "nothing to resign" in late.text


def test_resigning_from_a_game_of_three_leaves_it(client: FlaskClient) -> None:
    game = start(client, emails=THREE)
    quitter = _mover(game.id)
    link = _link(game.id, quitter)
    ask = client.get(f"{link}/resign")
    assert "the others play on without you" in ask.text
    text = _follow(client, client.post(f"{link}/resign"))
    assert fresh_game(game.id).status == "running"
    assert "You resigned and left the game" in text
    assert 'id="left-game"' in text and 'id="move-form"' not in text
    assert 'id="resign"' not in text and 'data-seat-state="resigned"' in text
    other = client.get(_link(game.id, (quitter + 1) % 3)).text
    assert re.search(rf'data-seat="{quitter}" data-state="resigned"', other)
    assert '<small class="pbem-standing">resigned</small>' in other
    twice = client.post(f"{link}/resign")
    assert twice.status_code == 409 and "You have left this game already" in twice.text


def test_a_seat_out_of_time_in_a_game_of_three(client: FlaskClient) -> None:
    game = start(client, emails=THREE)
    late = _mover(game.id)
    clock_task.run_clock(settings(), utcnow() + timedelta(days=4))
    assert fresh_game(game.id).seats[late].state == "dropped"
    page = client.get(_link(game.id, late))
    assert page.status_code == 200
    assert "You ran out of time and left this game" in page.text
    assert 'id="move-form"' not in page.text and 'id="resign"' not in page.text
    assert 'id="offer-draw"' not in page.text and 'id="cancel-game"' not in page.text
    other = client.get(_link(game.id, (late + 1) % 3)).text
    assert "left the game (out of time)" in other
    assert re.search(rf'data-seat="{late}" data-state="dropped"', other)
    refused = client.post(f"{_link(game.id, late)}/resign")
    assert refused.status_code == 409 and "left this game already" in refused.text


# --- draws ---------------------------------------------------------------------------------------


def test_a_draw_offered_and_accepted(client: FlaskClient) -> None:
    game = start(client)
    offerer = _mover(game.id)
    mine, theirs = _link(game.id, offerer), _link(game.id, 1 - offerer)
    assert 'id="offer-draw"' in client.get(mine).text
    text = _follow(client, client.post(f"{mine}/draw"))
    assert "You offered a draw; waiting for an answer" in text
    assert 'id="offer-draw"' not in text and 'id="accept-draw"' not in text
    assert fresh_game(game.id).draw_offered_by == offerer
    assert [m.to for m in mails(kind="draw_offer") if m.game_id == game.id] == [
        fresh_game(game.id).seats[1 - offerer].player.email
    ]
    twice = client.post(f"{mine}/draw")
    assert twice.status_code == 409 and "Your draw offer stands already" in twice.text

    other = client.get(theirs).text
    name = views.names(fresh_game(game.id))[offerer]  # by name (here its seat), never its address
    assert f"{name} offers a draw." in other
    assert 'id="accept-draw"' in other and 'id="decline-draw"' in other
    assert 'id="offer-draw"' not in other
    text = _follow(client, client.post(f"{theirs}/draw/accept"))
    done = fresh_game(game.id)
    assert done.status == "finished" and done.outcome is not None
    assert done.outcome["reason"] == "draw_agreed"
    assert "You accepted the draw" in text and "Drawn by agreement" in text
    assert len([m for m in mails(kind="result") if m.game_id == game.id]) == 2
    late = client.post(f"{theirs}/draw/accept")
    assert late.status_code == 409 and "The game is over" in late.text


def test_offering_while_the_opponent_s_offer_stands_accepts_it(client: FlaskClient) -> None:
    game = start(client)
    first = _mover(game.id)
    _follow(client, client.post(f"{_link(game.id, first)}/draw"))
    text = _follow(client, client.post(f"{_link(game.id, 1 - first)}/draw"))
    assert "You accepted the draw" in text
    assert fresh_game(game.id).status == "finished"


def test_a_draw_declined(client: FlaskClient) -> None:
    game = start(client)
    offerer = _mover(game.id)
    mine, theirs = _link(game.id, offerer), _link(game.id, 1 - offerer)
    _follow(client, client.post(f"{mine}/draw"))
    text = _follow(client, client.post(f"{theirs}/draw/decline"))
    assert "You declined the draw offer" in text and 'id="accept-draw"' not in text
    assert fresh_game(game.id).status == "running" and fresh_game(game.id).draw_offered_by is None
    assert len([m for m in mails(kind="draw_declined") if m.game_id == game.id]) == 1
    back = client.get(mine).text
    assert "declined your draw offer" in back and 'id="offer-draw"' in back
    nothing = client.post(f"{theirs}/draw/decline")
    assert nothing.status_code == 409 and "There is no draw offer to answer" in nothing.text


def test_a_draw_offer_lapses_when_the_opponent_moves(client: FlaskClient) -> None:
    game = start(client)
    mover = _mover(game.id)
    waiting = 1 - mover
    _follow(client, client.post(f"{_link(game.id, waiting)}/draw"))
    page = client.get(_link(game.id, mover)).text
    assert 'id="accept-draw"' in page and 'id="move-form"' in page
    moved = client.post(_link(game.id, mover), data={"move": "1", "ply": 0})
    assert moved.status_code == 303
    assert fresh_game(game.id).draw_offered_by is None
    assert 'id="accept-draw"' not in client.get(_link(game.id, mover)).text
    assert "You offered a draw" not in client.get(_link(game.id, waiting)).text
    stale = client.post(f"{_link(game.id, mover)}/draw/accept")
    assert stale.status_code == 409 and "There is no draw offer to answer" in stale.text


def test_no_draws_in_a_game_of_three(client: FlaskClient) -> None:
    game = start(client, emails=THREE)
    link = _link(game.id, 0)
    assert 'id="offer-draw"' not in client.get(link).text
    refused = client.post(f"{link}/draw")
    assert refused.status_code == 409 and "two-player games only" in refused.text


def test_the_confirmation_pages_call_a_named_game_by_its_name(client: FlaskClient) -> None:
    game = start(client, title="Tuesday Countdown")
    organiser = _link(game.id, _seat_of(game.id, EMAILS[0]))
    ask = client.get(f"{organiser}/resign")
    assert f"Resign from Tuesday Countdown (Countdown game {game.id}) against" in ask.text
    ask = client.get(f"{organiser}/cancel")
    assert f"Cancel Tuesday Countdown (Countdown game {game.id}) with" in ask.text


# --- cancelling ----------------------------------------------------------------------------------


def test_a_started_game_is_cancelled_when_every_player_agrees(client: FlaskClient) -> None:
    game = start(client)
    organiser = _seat_of(game.id, EMAILS[0])
    link, other = _link(game.id, organiser), _link(game.id, 1 - organiser)
    assert "Propose cancelling" in client.get(link).text
    ask = client.get(f"{link}/cancel")
    assert ask.status_code == 200 and f"Cancel Countdown game {game.id}" in ask.text
    assert "only if every player agrees" in ask.text and "Yes, propose cancelling" in ask.text
    assert fresh_game(game.id).status == "running"

    text = _follow(client, client.post(f"{link}/cancel"))
    assert fresh_game(game.id).status == "running", "the organiser alone does not cancel it"
    assert "You agreed to cancel the game" in text and 'id="cancel-offer"' in text
    assert 'id="cancel-game"' not in text and 'id="agree-cancel"' not in text
    assert 'id="decline-cancel"' in text and "Withdraw" in text
    assert [m.to for m in mails(kind="cancel_offer") if m.game_id == game.id] == [EMAILS[1]]

    page = client.get(other).text
    assert "proposes cancelling the game" in page
    assert 'id="agree-cancel"' in page and 'id="decline-cancel"' in page
    assert "Yes, agree to cancel" in client.get(f"{other}/cancel").text
    text = _follow(client, client.post(f"{other}/cancel"))
    assert fresh_game(game.id).status == "cancelled"
    assert "You cancelled the game" in text and "The game was cancelled" in text
    assert 'id="move-form"' not in text and 'id="cancel-game"' not in text
    assert sorted(m.to for m in mails(kind="cancelled") if m.game_id == game.id) == sorted(EMAILS)


def test_a_proposal_to_cancel_declined_and_refused_after_a_move(client: FlaskClient) -> None:
    game = start(client)
    organiser = _seat_of(game.id, EMAILS[0])
    link, other = _link(game.id, organiser), _link(game.id, 1 - organiser)
    _follow(client, client.post(f"{other}/cancel"))
    text = _follow(client, client.post(f"{link}/cancel/decline"))
    assert "You declined cancelling the game; it goes on." in text
    assert 'id="cancel-offer"' not in text and fresh_game(game.id).status == "running"
    assert [m.to for m in mails(kind="cancel_declined") if m.game_id == game.id] == [EMAILS[1]]
    stale = client.post(f"{link}/cancel/decline")
    assert stale.status_code == 409 and "no proposal to cancel" in stale.text

    mover = _mover(game.id)
    assert client.post(_link(game.id, mover), data={"move": "1", "ply": 0}).status_code == 303
    assert 'id="cancel-game"' not in client.get(link).text
    for response in (client.get(f"{link}/cancel"), client.post(f"{link}/cancel")):
        assert response.status_code == 409 and "A move has been made" in response.text
    assert fresh_game(game.id).status == "running"


def test_before_the_start_only_the_organiser_cancels(client: FlaskClient) -> None:
    game = confirmed(client)
    other = _link(game.id, _seat_of(game.id, EMAILS[1]))
    for response in (client.get(f"{other}/cancel"), client.post(f"{other}/cancel")):
        assert response.status_code == 409
        assert "Only the player who started the game can cancel it" in response.text
    assert fresh_game(game.id).status == "inviting"


def test_the_organiser_cancels_a_game_still_gathering_players(client: FlaskClient) -> None:
    game = confirmed(client)
    link = _link(game.id, _seat_of(game.id, EMAILS[0]))
    page = client.get(link).text
    assert 'id="players"' in page and "invited, not answered yet" in page
    assert 'id="cancel-game"' in page and 'id="resign"' not in page
    _follow(client, client.post(f"{link}/cancel"))
    assert fresh_game(game.id).status == "cancelled"


# --- another player for a lapsed invitation -------------------------------------------------------


def _lapsed(client: FlaskClient) -> tuple[Game, str, int]:
    """A game whose second invitation lapsed: the organiser's page, the lapsed seat."""
    game = confirmed(client)
    report = clock_task.run_clock(settings(), utcnow() + timedelta(days=8))
    assert report.invitations_expired == 1
    lapsed = _seat_of(game.id, EMAILS[1])
    return game, _link(game.id, _seat_of(game.id, EMAILS[0])), lapsed


def test_the_organiser_invites_someone_else_to_a_lapsed_seat(
    client: FlaskClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    game, link, lapsed = _lapsed(client)
    counted: list[list[str]] = []
    monkeypatch.setattr(ratelimits, "check_invitations", counted.append)
    page = client.get(link).text
    assert "the invitation lapsed" in page and f'id="reinvite-form-{lapsed}"' in page
    assert "If the seats are not all taken by <time" in page
    response = client.post(
        f"{link}/reinvite", data={"seat": str(lapsed), "email": "Carol@Example.org"}
    )
    text = _follow(client, response)
    assert counted == [["Carol@Example.org"]]
    assert "The invitation is on its way" in text
    # The seat is shown by its name, never by the address the organiser typed.
    assert views.names(fresh_game(game.id))[lapsed] in text and "invited, not answered yet" in text
    assert "Carol@" not in text
    assert "reinvite-form" not in text
    seat = db.session.get(Seat, fresh_game(game.id).seats[lapsed].id)
    assert seat is not None and seat.player.email == "Carol@example.org"
    assert seat.expired_at is None
    assert [m.to for m in mails(kind="invite") if m.game_id == game.id][-1] == "Carol@example.org"
    assert db.session.query(GameEvent).filter_by(game_id=game.id, kind="reinvited").count() == 1


def test_inviting_someone_else_is_refused_clearly(client: FlaskClient) -> None:
    game, link, lapsed = _lapsed(client)
    bad = client.post(f"{link}/reinvite", data={"seat": str(lapsed), "email": "not an address"})
    assert bad.status_code == 400 and 'id="reinvite-error"' in bad.text
    assert 'value="not an address"' in bad.text
    empty = client.post(f"{link}/reinvite", data={"seat": str(lapsed), "email": ""})
    assert empty.status_code == 400 and "Give the email address" in empty.text
    taken = client.post(
        f"{link}/reinvite", data={"seat": str(1 - lapsed), "email": "dave@example.org"}
    )
    assert taken.status_code == 400 and "Only a seat whose invitation lapsed" in taken.text
    already = client.post(f"{link}/reinvite", data={"seat": str(lapsed), "email": EMAILS[0]})
    assert already.status_code == 400 and "has a seat in this game already" in already.text
    no_seat = client.post(f"{link}/reinvite", data={"email": "dave@example.org"})
    assert no_seat.status_code == 400 and "which seat" in no_seat.text
    assert fresh_game(game.id).seats[lapsed].expired_at is not None


def test_only_the_organiser_invites_someone_else(client: FlaskClient) -> None:
    game = start(client, emails=THREE)
    other = _link(game.id, _seat_of(game.id, EMAILS[1]))
    refused = client.post(f"{other}/reinvite", data={"seat": "0", "email": "dave@example.org"})
    assert refused.status_code == 409 and "Only the player who started" in refused.text
    assert not [m for m in mails(kind="invite") if m.to == "dave@example.org"]


# --- links ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("method", "action"),
    [
        ("get", "resign"),
        ("post", "resign"),
        ("post", "draw"),
        ("post", "draw/accept"),
        ("post", "draw/decline"),
        ("get", "cancel"),
        ("post", "cancel"),
        ("post", "cancel/decline"),
        ("post", "reinvite"),
    ],
)
def test_forged_withdrawn_and_invitation_links_are_refused(
    client: FlaskClient, method: str, action: str
) -> None:
    game = start(client)
    seat = _seat_of(game.id, EMAILS[0])
    link = _link(game.id, seat)
    call = getattr(client, method)
    forged = call(f"{link[:-3]}xyz/{action}", data={"seat": "0", "email": "x@example.org"})
    assert forged.status_code == 403 and "This link is not valid" in forged.text
    # An invitation link opens the invitation, not the seat's actions.
    invitation = call(
        f"{_link(game.id, seat, links.INVITE)}/{action}".replace("/invite/", "/play/")
    )
    assert invitation.status_code == 403
    rotation.rotate_seat_links(settings(), game.id, seat, notify=False)
    withdrawn = call(f"{link}/{action}", data={"seat": "0", "email": "x@example.org"})
    assert withdrawn.status_code == 403 and "withdrawn" in withdrawn.text
    assert fresh_game(game.id).status == "running" and fresh_game(game.id).draw_offered_by is None
