"""The game page as a person reads it: the plain form starts on no move, and sending it so plays
nothing; each player is marked by a letter as well as a colour; moves are numbered from 1 and
read in words with the players' names, never "seat 0"."""

from __future__ import annotations

import html
import re

from flask.testing import FlaskClient

from pbem import links
from pbem.domain import views
from pbem.extensions import db, settings
from pbem.models import Game, Submission
from tests.web.flow import EMAILS, start, turn_link


def _fresh(game: Game) -> Game:
    db.session.expire_all()
    fresh = db.session.get(Game, game.id)
    assert fresh is not None
    return fresh


def _text(page: str) -> str:
    return html.unescape(re.sub(r"<[^>]+>", " ", page))


def _move(client: FlaskClient, game: Game, move: str) -> None:
    response = client.post(turn_link(game), data={"move": move, "ply": _fresh(game).ply})
    assert response.status_code == 303, response.text


def test_the_list_starts_on_no_move_and_sending_it_so_plays_nothing(client: FlaskClient) -> None:
    game = start(client, "gorami", board="16")
    link = turn_link(game)
    page = client.get(link).text
    select = re.search(
        r'<select id="move-select" name="move">\s*(<option[^>]*>[^<]*</option>)', page
    )
    assert select, "no move list"
    assert select.group(1) == '<option value="" selected>— choose a move —</option>'
    # The button pressed without choosing: refused in words, nothing stored or played.
    response = client.post(link, data={"move": "", "move_text": "", "ply": 0})
    assert response.status_code == 422
    assert "No move was given: choose one of the legal moves or type one." in response.text
    assert 'id="move-error"' in response.text
    assert _fresh(game).ply == 0 and Submission.query.count() == 0


def test_players_are_marked_by_a_letter_beside_their_colour(client: FlaskClient) -> None:
    game = start(client, "marram", emails=[*EMAILS, "carol@example.org"], variant="classic")
    page = client.get(turn_link(game)).text
    marks = re.findall(
        r'<span class="pbem-swatch pbem-swatch-(\w+)" title="\w+" aria-hidden="true">(\w)</span>',
        page,
    )
    assert marks == [("red", "R"), ("violet", "V"), ("white", "W")]


def test_moves_are_numbered_from_one_and_marked_by_their_player(client: FlaskClient) -> None:
    game = start(client, "gorami", board="16")
    state = views.load_state(_fresh(game))
    assert state is not None
    first = state.to_move
    _move(client, game, state.legal_moves()[0])
    state = views.load_state(_fresh(game))
    assert state is not None
    _move(client, game, state.legal_moves()[0])
    page = client.get(turn_link(game)).text
    items = re.findall(
        r'<li value="(\d+)" class="seat-(\d)"><span class="pbem-num">(\d+)\.</span>'
        r'<span class="pbem-swatch pbem-swatch-(\w+)" aria-hidden="true">(\w)</span>',
        page,
    )
    colours = ["yellow", "blue"]
    assert items == [
        ("1", str(first), "1", colours[first], colours[first][0].upper()),
        ("2", str(1 - first), "2", colours[1 - first], colours[1 - first][0].upper()),
    ]
    assert "It is your turn</b> (move 3)" in page


def test_marram_names_players_everywhere_never_by_seat_number(client: FlaskClient) -> None:
    game = start(client, "marram", emails=[*EMAILS, "carol@example.org"], variant="classic")
    for _ in range(5):
        state = views.load_state(_fresh(game))
        assert state is not None
        _move(client, game, state.legal_moves()[0])
    fresh = _fresh(game)
    names = views.names(fresh)
    text = _text(client.get(turn_link(game)).text)
    assert not re.search(r"\bseat \d", text, re.I), "a player called by seat number"
    for name in names:
        assert name in text


def test_the_hand_is_brief_on_your_turn_and_in_words_while_waiting(client: FlaskClient) -> None:
    """On its turn the seat picks from the board's hand buttons and the board must fit the first
    screen: the summary names the tiles by number. While waiting it reads them in full."""
    game = start(client, "marram", variant="classic")
    fresh = _fresh(game)
    mover = fresh.seats[fresh.to_move or 0]
    waiting = fresh.seats[((fresh.to_move or 0) + 1) % len(fresh.seats)]
    pages = {}
    for seat in (mover, waiting):
        token = links.token_for(settings().signing_key, seat, links.SEAT)
        pages[seat.seat] = _text(client.get(f"/play/{token}").text)
    assert re.search(r"your tiles: #\d+", pages[mover.seat])
    assert not re.search(r"your tiles: #\d+", pages[waiting.seat])
    assert re.search(r"your tiles: a [^;]+ \(#\d+\);", pages[waiting.seat])
