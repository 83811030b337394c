"""Bots through the pages and the API: "play against the computer" on the home page, `bot:`
entries in the start form, the timeout policy, bot seats and autopilot on the game page, the
dashboard's autopilot switch, and the API's player objects."""

from __future__ import annotations

from flask.testing import FlaskClient

from pbem import links
from pbem.extensions import settings
from pbem.models import Game, Seat
from tests.web.flow import EMAILS, confirmation_link, create, fresh_game, links_in, mails, turn_link

ALICE = EMAILS[0]


def _alice(game: Game) -> Seat:
    return next(s for s in game.seats if s.player.email == ALICE)


def _page_of(seat: Seat) -> str:
    return f"/play/{links.token_for(settings().signing_key, seat, links.SEAT)}"


def _against_the_computer(client: FlaskClient, bot: str = "bot:greedy") -> Game:
    """The home page's form: a game, an address and a bot; then the confirmation."""
    response = client.post("/", data={"game": "countdown", "email": [ALICE, bot], "name": ""})
    assert response.status_code == 303, response.text
    game = fresh_game(response.headers["Location"].rsplit("/", 1)[1])
    assert client.post(confirmation_link(game)).status_code == 200
    return fresh_game(game.id)


def test_the_home_page_offers_to_play_against_the_computer(client: FlaskClient) -> None:
    page = client.get("/").text
    assert 'id="computer"' in page and "Play against the computer" in page
    for entry in ("bot:mcts", "bot:greedy", "bot:random"):
        assert f'value="{entry}"' in page
    # The strongest first: what someone asking for "the computer" wants.
    assert page.index('value="bot:mcts"') < page.index('value="bot:random"')


def test_a_game_against_the_computer_starts_on_confirmation_and_the_bot_answers(
    client: FlaskClient,
) -> None:
    game = _against_the_computer(client)
    assert game.status == "running"
    bot = next(s for s in game.seats if s.player.bot == "greedy")
    assert bot.accepted_at is not None
    assert {m.to for m in mails()} == {ALICE}, "nothing is written to a bot"
    # Nobody to invite: the confirmation says the game begins on it.
    (confirm,) = mails(kind="confirm")
    assert "The game begins when you confirm" in confirm.text
    assert "The game begins when you confirm" in confirm.html
    assert "invitations" not in confirm.text and "invitations" not in confirm.html
    # Whoever moved first, it is Alice's turn now; she moves and the bot answers at once.
    assert game.to_move == _alice(game).seat
    response = client.post(turn_link(game), data={"move": "1", "ply": str(game.ply)})
    assert response.status_code in (200, 303)
    game = fresh_game(game.id)
    assert game.to_move == _alice(game).seat and game.ply >= 2
    page = client.get(_page_of(_alice(game))).text
    assert "pbem Greedy" in page and 'class="pbem-bot" data-bot="greedy"' in page


def test_the_start_form_takes_bot_entries_and_says_how(client: FlaskClient) -> None:
    form = client.get("/?game=countdown").text
    assert 'id="bot-hint"' in form and '<datalist id="bot-entries">' in form
    assert 'list="bot-entries"' in form and 'id="email-0"' in form
    game = create(client, emails=[ALICE, "bot:random", "BOT:mcts"])
    kinds = sorted(s.player.bot or "" for s in game.seats)
    assert kinds == ["", "mcts", "random"]
    response = client.post("/", data={"game": "countdown", "email": [ALICE, "bot:hal"]})
    assert response.status_code == 400 and "is not one of pbem&#39;s bots" in response.text
    response = client.post("/", data={"game": "countdown", "email": ["bot:mcts", ALICE]})
    assert response.status_code == 400 and "must be a person" in response.text


def test_the_timeout_policy_is_offered_for_three_or_more(client: FlaskClient) -> None:
    assert 'name="on_timeout"' in client.get("/?game=countdown").text  # 2 to 3 players
    assert 'name="on_timeout"' not in client.get("/?game=mmw").text
    game = create(client, emails=[ALICE, EMAILS[1], "bot:greedy"], on_timeout="autopilot")
    assert game.timeout_policy == "autopilot"
    response = client.post(
        "/", data={"game": "countdown", "email": [ALICE, EMAILS[1]], "on_timeout": "sleep"}
    )
    assert response.status_code == 400 and "is not a timeout policy" in response.text


def test_the_game_page_hands_the_seat_to_autopilot_and_back(client: FlaskClient) -> None:
    game = _against_the_computer(client)
    page_link = _page_of(_alice(game))
    page = client.get(page_link).text
    assert 'id="autopilot-on"' in page and 'data-autopilot="off"' in page
    done = client.post(f"{page_link}/autopilot", data={"autopilot": "on"})
    assert done.status_code == 303
    game = fresh_game(game.id)
    alice = _alice(game)
    assert alice.autopilot_since is not None
    # The bots played on: Alice's seat by pbem MCTS, the other by its own bot, to the end.
    assert game.status == "finished"
    page = client.get(done.headers["Location"]).text
    assert 'id="outcome"' in page and 'id="autopilot-form"' not in page, "over: nothing to hand"
    assert client.post(f"{page_link}/autopilot", data={"autopilot": "maybe"}).status_code == 400


def test_the_page_says_who_is_on_autopilot(client: FlaskClient) -> None:
    game = create(client, emails=[ALICE, EMAILS[1]])
    assert client.post(confirmation_link(game)).status_code == 200
    (invite,) = mails(kind="invite")
    assert client.post(links_in(invite, "invite")[0]).status_code == 200
    game = fresh_game(game.id)
    alice = _alice(game)
    bob = next(s for s in game.seats if s.seat != alice.seat)
    if game.to_move == alice.seat:
        assert client.post(
            turn_link(game), data={"move": "1", "ply": str(game.ply)}
        ).status_code in (200, 303)
    # Bob is to move; Alice hands her seat over while waiting.
    assert client.post(f"{_page_of(alice)}/autopilot", data={"autopilot": "on"}).status_code == 303
    mine = client.get(_page_of(alice)).text
    assert 'id="autopilot-off"' in mine and "Your seat is on autopilot" in mine
    theirs = client.get(_page_of(bob)).text
    assert 'data-autopilot="yes"' in theirs and "plays their seat" in theirs
    api = client.get(
        f"/api/games/{game.id}", headers={"Authorization": f"Bearer {_page_of(bob)[6:]}"}
    ).get_json()
    players = {p["seat"]: p for p in api["players"]}
    assert players[alice.seat]["autopilot"] is True and players[alice.seat]["kind"] == "human"
    assert players[bob.seat]["autopilot"] is False and players[bob.seat]["bot"] is None
    assert api["on_timeout"] == "drop"


def test_the_dashboard_switches_autopilot_per_game(client: FlaskClient) -> None:
    game = create(client, emails=[ALICE, EMAILS[1]])
    assert client.post(confirmation_link(game)).status_code == 200
    game = fresh_game(game.id)
    alice = _alice(game)
    home = links.player_url(settings(), alice.player.id, alice.player.nonce)
    path = home.removeprefix("http://pbem.test")
    (invite,) = mails(kind="invite")
    assert client.post(links_in(invite, "invite")[0]).status_code == 200
    page = client.get(path).text
    assert f'id="autopilot-{game.id}"' in page
    form = {"game": game.id, "seat": str(alice.seat), "autopilot": "on"}
    done = client.post(f"{path}/autopilot", data=form)
    assert done.status_code == 303 and "done=autopilot_on" in done.headers["Location"]
    page = client.get(done.headers["Location"]).text
    # No `bot` sent: the default, greedy.
    assert "Take my seat back" in page and "on autopilot: pbem Greedy plays your seat" in page
    back = client.post(f"{path}/autopilot", data={**form, "autopilot": "off"})
    assert back.status_code == 303
    assert _alice(fresh_game(game.id)).autopilot_since is None
    wrong = client.post(f"{path}/autopilot", data={**form, "seat": "7"})
    assert wrong.status_code == 400 and 'id="autopilot-error"' in wrong.text


def test_the_api_calls_a_bot_a_bot(client: FlaskClient) -> None:
    game = _against_the_computer(client, "bot:random")
    token = _page_of(_alice(game))[len("/play/") :]
    body = client.get(f"/api/games/{game.id}", headers={"Authorization": f"Bearer {token}"})
    players = body.get_json()["players"]
    bot = next(p for p in players if p["kind"] == "bot")
    assert bot == {
        **bot,
        "name": "pbem Random",
        "email": None,
        "bot": "random",
        "autopilot": False,
        "time_left_s": None,
    }
    record = client.get(
        f"/api/games/{game.id}/record", headers={"Authorization": f"Bearer {token}"}
    )
    kinds = {p["kind"] for p in record.get_json()["players"]}
    assert kinds == {"human", "bot"}
