"""The home page: each game with its picture, who plays it, how long it lasts and what it is
like; how pbem works in three steps; then the start form, which may name the game."""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest
from flask.testing import FlaskClient

from pbem import games
from pbem.extensions import db
from pbem.models import Game
from pbem.web import game_cards
from tests.countdown import Countdown
from tests.web.flow import EMAILS, create, mails

BUILT_IN = ("gorami", "marram", "mmw")


def _card(page: str, name: str) -> str:
    found = re.search(rf'<li class="home-card" id="card-{name}".*?</li>', page, re.S)
    assert found, f"no card for {name}"
    return found[0]


def test_each_game_has_a_card_with_its_picture_facts_paragraph_and_rules(
    client: FlaskClient,
) -> None:
    page = client.get("/").text
    for name in BUILT_IN:
        card = _card(page, name)
        game = games.get(name)
        assert f'<h3 id="card-title-{name}">{game.title}</h3>' in card
        assert re.search(
            rf'<img src="/picture/{name}\.svg" alt="[^"]+" width="\d+" height="\d+"', card
        )
        assert 'href="/rules/' + name + '"' in card and "How to play" in card
        assert f'href="/?game={name}#start"' in card and "Start a game" in card
        about = re.search(r'<p class="home-about">(.+?)</p>', card, re.S)
        assert about and 200 < len(about[1]) < 700, name
    # The facts, from the rules: who plays, how many turns in all, how long by email.
    facts = {
        name: re.sub(
            r"<[^>]+>", "", re.search(r'"home-facts">(.*?)</p>', _card(page, name), re.S)[1]
        )
        for name in BUILT_IN
    }  # type: ignore[index]
    assert facts["gorami"] == "2 players · 14–24 turns in all · 2–3 weeks if each turn takes a day"
    assert (
        facts["marram"] == "2–4 players · 20–48 turns in all · 3–7 weeks if each turn takes a day"
    )
    assert (
        facts["mmw"] == "2 players · 130 turns or more · 4 months or more if each turn takes a day"
    )


def test_a_game_that_says_nothing_of_itself_still_gets_a_card(client: FlaskClient) -> None:
    card = _card(client.get("/").text, "countdown")
    assert "2–3 players" in card and "turns" not in card and "home-about" not in card
    assert 'href="/?game=countdown#start"' in card


def test_how_it_works_in_three_steps_then_the_form(client: FlaskClient) -> None:
    page = client.get("/").text
    steps = re.findall(
        r"<li><h3>(.*?)</h3>", re.search(r'<ol class="home-steps">.*?</ol>', page, re.S)[0]
    )  # type: ignore[index]
    assert steps == ["Invite by email", "Move from the link", "The next player is emailed"]
    assert page.index('id="games"') < page.index('id="how"') < page.index('id="start"')
    assert page.index('id="start"') < page.index('id="choose-game"')
    assert "<h1" in page and page.count("<h1") == 1


def test_choosing_a_game_goes_to_the_form_with_a_field_to_name_it(client: FlaskClient) -> None:
    page = client.get("/?game=countdown").text
    assert 'action="/#start"' in page  # the page opens at the form, below the cards
    field = re.search(r'<input id="game-title"[^>]*>', page)
    assert field and 'name="title"' in field[0] and 'maxlength="60"' in field[0]
    assert 'placeholder="Tuesday Countdown"' in field[0]
    assert '<label for="game-title">Name this game (optional)</label>' in page
    assert page.index('id="game-title"') < page.index('id="players-choice"')


def test_a_name_given_on_the_form_names_the_game(client: FlaskClient) -> None:
    game = create(client, title=" Friday   Club ")
    assert game.title == "Friday Club"
    (confirm,) = mails(kind="confirm")
    assert confirm.subject == f"[pbem] Friday Club ({game.id}): confirm your new game"
    unnamed = create(client, title="")
    assert unnamed.title is None


def test_a_bad_name_on_the_form_is_refused_with_what_was_typed(client: FlaskClient) -> None:
    response = client.post(
        "/",
        data={"game": "countdown", "title": "x" * 61, "email": EMAILS, "name": ["", ""]},
    )
    assert response.status_code == 400
    assert "A game&#39;s name has at most 60 characters; this one has 61" in response.text
    assert 'id="start-error"' in response.text
    assert f'value="{"x" * 61}"' in response.text and f'value="{EMAILS[1]}"' in response.text
    response = client.post(
        "/", data={"game": "countdown", "title": "see www.spam.example", "emails": " ".join(EMAILS)}
    )
    assert response.status_code == 400 and "holds an address or a link" in response.text
    assert Game.query.count() == 0 and mails() == []


def test_the_start_form_alone_on_the_dashboard(client: FlaskClient) -> None:
    from pbem import links
    from pbem.extensions import settings

    game = create(client)
    organiser = game.organiser
    assert organiser is not None
    me = links.player_url(settings(), organiser.id, organiser.nonce).removeprefix(
        "http://pbem.test"
    )
    page = client.get(f"{me}/new?game=countdown").text
    assert 'id="game-title"' in page and 'id="new-game"' in page
    assert "home-card" not in page and 'id="how"' not in page
    assert '<h1 id="start-title">Start a game</h1>' in page


# --- the pictures -------------------------------------------------------------------------------


def test_each_picture_is_the_engines_drawing_of_a_game_under_way(client: FlaskClient) -> None:
    for name in BUILT_IN:
        response = client.get(f"/picture/{name}.svg")
        assert response.status_code == 200 and response.mimetype == "image/svg+xml"
        assert response.headers["Cache-Control"] == "public, max-age=3600"
        svg = response.text
        assert svg.lstrip().startswith("<svg") and svg.rstrip().endswith("</svg>")
        game = games.get(name)
        start = game.new(game.min_players, None, 0)
        assert svg != game.render_mail_svg(start, None, None, True)  # moves were played
        # Drawn once per process: the same text every time.
        assert game_cards.picture(name) is game_cards.picture(name)
    assert client.get("/picture/chess.svg").status_code == 404


class _Broken(Countdown):
    name = "broken"
    title = "Broken"

    def render_svg(
        self, state: object, seat: int | None = None, names: object = None, language: object = None
    ) -> str:
        raise RuntimeError("this engine cannot draw")


@pytest.fixture
def broken_engine() -> Iterator[None]:
    games.register("broken", _Broken())
    game_cards.picture.cache_clear()
    yield
    games.unregister("broken")
    game_cards.picture.cache_clear()


def test_an_engine_that_cannot_draw_leaves_its_card_without_a_picture(
    client: FlaskClient, broken_engine: None
) -> None:
    page = client.get("/")
    assert page.status_code == 200
    card = _card(page.text, "broken")
    assert "<img" not in card and "Start a game" in card
    assert "<img" in _card(page.text, "gorami")
    assert client.get("/picture/broken.svg").status_code == 404


# --- what the engines say of themselves ---------------------------------------------------------


@pytest.mark.parametrize("name", BUILT_IN)
def test_every_built_in_game_says_what_it_is_like(name: str) -> None:
    game = games.get(name)
    about = game_cards.about_of(game)
    assert isinstance(about["about"], str) and about["about"].strip() == about["about"]
    low, high = about["turns"]
    assert isinstance(low, int) and (high is None or high >= low)
    assert about["turns_note"]
    picture = about["picture"]
    assert game.min_players <= picture["players"] <= game.max_players
    game.new(picture["players"], picture["options"], picture["seed"])  # options the engine takes
    card = game_cards.card(game)
    assert card.picture is not None and card.picture.width and card.picture.height


@pytest.mark.parametrize(
    ("low", "high", "length", "pace"),
    [
        (14, 24, "14–24 turns in all", "2–3 weeks if each turn takes a day"),
        (22, 22, "about 22 turns in all", "about 3 weeks if each turn takes a day"),
        (5, 9, "5–9 turns in all", "5–9 days if each turn takes a day"),
        (10, 40, "10–40 turns in all", "10 days to 6 weeks if each turn takes a day"),
        (130, None, "130 turns or more", "4 months or more if each turn takes a day"),
    ],
)
def test_lengths_in_words(low: int, high: int | None, length: str, pace: str) -> None:
    assert game_cards.length_text(low, high) == length
    assert game_cards.pace_text(low, high) == pace


def test_a_get_of_the_home_page_changes_nothing(client: FlaskClient) -> None:
    client.get("/?game=countdown&title=Friday+Club")
    assert db.session.query(Game).count() == 0
