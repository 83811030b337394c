"""What an engine says reaches each reader in their language (issue 34, point 2): a GORami or Marram
move's sentence is stored as the engine's message and said in French on a French player's page
and in English on the other's; a refused move's reason comes in the player's language, through
the API and as the submission's stored error."""

from __future__ import annotations

import json
import re

from flask.testing import FlaskClient
from sqlalchemy import select

from pbem.extensions import db
from pbem.models import Game, Move
from tests.web.flow import fresh_game, start, turn_link


def _token(link: str) -> str:
    return link.split("/play/")[1]


def _french(client: FlaskClient, link: str) -> None:
    response = client.post(f"/play/{_token(link)}/language", data={"language": "fr"})
    assert response.status_code in (200, 303), response.text


def _words_on(page: str) -> list[str]:
    return re.findall(r'<span class="pbem-words">([^<]*)</span>', page)


def _play_first_legal(client: FlaskClient, game: Game) -> tuple[str, str]:
    link = turn_link(game)
    headers = {"Authorization": f"Bearer {_token(link)}"}
    legal = client.get(f"/api/games/{game.id}/legal", headers=headers).get_json()
    move = legal["moves"][0]
    response = client.post(
        f"/api/games/{game.id}/moves", json={"move": move, "ply": legal["ply"]}, headers=headers
    )
    assert response.status_code == 202, response.text
    return link, move


def test_a_move_is_stored_as_a_message_and_said_in_each_readers_language(
    client: FlaskClient,
) -> None:
    game = start(client, "gorami")
    mover, move = _play_first_legal(client, game)
    stored = db.session.scalars(select(Move.words).where(Move.game_id == game.id)).one()
    assert stored is not None and json.loads(stored)["game"] == "gorami"
    other = turn_link(fresh_game(game.id))
    _french(client, mover)
    french_page = client.get(f"/play/{_token(mover)}").text
    english_page = client.get(f"/play/{_token(other)}").text
    french, english = _words_on(french_page), _words_on(english_page)
    # The summary's supplies and colours too, and the scores' label.
    supplies = re.findall(r'<small class="pbem-supplies">([^<]*)', french_page)
    assert {s.split(" · ")[0] for s in supplies} == {"jaune", "bleu"}, supplies
    assert "pièces en réserve" in french_page and "Poissons" in french_page
    assert "discs left" in english_page and "pièces" not in english_page
    # The board's own words too: its title, whose turn it is, its key.
    assert re.search(r"GORami · plateau de \d+ cases", french_page), "the drawing's title"
    assert "sommes jaune:bleu" in french_page and "yellow:blue sums" not in french_page
    assert re.search(r"GORami · \d+-cell board", english_page)
    assert len(french) == len(english) == 1
    assert f" a posé un {move[0]} en {move[1:]}" in french[0], french
    assert f" placed a {move[0]} on {move[1:]}" in english[0], english


def test_a_refusal_comes_in_the_players_language(client: FlaskClient) -> None:
    game = start(client, "gorami")
    _, move = _play_first_legal(client, game)
    link = turn_link(fresh_game(game.id))
    _french(client, link)
    headers = {"Authorization": f"Bearer {_token(link)}"}
    refused = client.post(
        f"/api/games/{game.id}/moves", json={"move": move, "ply": 1}, headers=headers
    )
    assert refused.status_code == 422, refused.text
    message = refused.get_json()["message"]
    assert "porte déjà une pièce" in message and "place on" not in message, message
    unreadable = client.post(
        f"/api/games/{game.id}/moves", json={"move": "9z9", "ply": 1}, headers=headers
    )
    assert "aucune pièce ne porte le nombre 9" in unreadable.get_json()["message"]


def test_marram_speaks_each_readers_language_too(client: FlaskClient) -> None:
    """Marram's sentence, its summary's supplies and notes, and its refusals: in French for a
    French reader, English for the other."""
    game = start(client, "marram")
    mover, move = _play_first_legal(client, game)
    _play_first_legal(client, game)  # a turn is two actions: the other seat is to move next
    stored = db.session.scalars(select(Move.words).where(Move.game_id == game.id)).all()
    assert [json.loads(s)["game"] for s in stored] == ["marram", "marram"]
    _french(client, mover)
    french_page = client.get(f"/play/{_token(mover)}").text
    french = _words_on(french_page)[0]
    assert " a posé une tuile " in french and f"(#{move.split()[1]})" in french, french
    # The glossary's terms are marked up on the page: read its text.
    said = re.sub(r"<[^>]*>", "", french_page)
    assert "rouge · bottes" in said and "tuiles dans le sac" in said, said
    assert "tiles in the bag" not in said
    # The board's panel: the hand, the key, the last turns.
    assert "Votre main" in said and "Légende" in said and "Derniers tours" in said
    assert "Your hand" not in said and "Last turns" not in said
    link = turn_link(fresh_game(game.id))
    english_page = client.get(f"/play/{_token(link)}").text
    assert " placed a " in _words_on(english_page)[0]
    assert "tiles in the bag" in re.sub(r"<[^>]*>", "", english_page)
    _french(client, link)
    headers = {"Authorization": f"Bearer {_token(link)}"}
    refused = client.post(
        f"/api/games/{game.id}/moves", json={"move": "place 999 0,0 0", "ply": 2}, headers=headers
    )
    assert refused.status_code == 422, refused.text
    message = refused.get_json()["message"]
    assert "n’est pas dans votre main" in message and "your hand" not in message, message
    unreadable = client.post(
        f"/api/games/{game.id}/moves", json={"move": "jump", "ply": 2}, headers=headers
    )
    said = unreadable.get_json()["message"]
    assert "n’est pas un coup de Marram" in said and "boot : botte" in said, said
