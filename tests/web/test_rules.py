"""The rules for players: /rules lists every game, /rules/<game> explains one with the goal, a
turn, scoring and the end, and pictures the engine draws of real positions; every variant has a
URL; the game page explains each game word and links it to its rule."""

from __future__ import annotations

from html import unescape
from html.parser import HTMLParser

import pytest
from flask.testing import FlaskClient

from pbem import games
from pbem.domain import glossary
from tests.web.flow import start, turn_link

GAMES = ["gorami", "marram", "mmw"]
SECTIONS = ("goal", "turn", "scoring", "end")


class Page(HTMLParser):
    """The ids, links and pictures of a page, and the text of each element with an id."""

    def __init__(self, html: str) -> None:
        super().__init__()
        self.ids: list[str] = []
        self.links: list[str] = []
        self.pictures: list[dict[str, str]] = []
        self.terms: list[dict[str, str]] = []
        self.feed(html)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found = {name: value or "" for name, value in attrs}
        if "id" in found:
            self.ids.append(found["id"])
        if tag == "a" and "href" in found:
            self.links.append(found["href"])
            if "pbem-term-rule" in found.get("class", ""):
                self.terms.append(found)
        if tag == "img" and "data-picture" in found:
            self.pictures.append(found)


def _page(client: FlaskClient, path: str) -> Page:
    response = client.get(path)
    assert response.status_code == 200, (path, response.text[:300])
    return Page(response.text)


def test_the_index_lists_every_game_and_its_variants(client: FlaskClient) -> None:
    response = client.get("/rules")
    assert response.status_code == 200
    page = Page(response.text)
    assert glossary.guided() == GAMES  # the test engine `countdown` has no rules page
    for name in GAMES:
        assert f"/rules/{name}" in page.links
        assert f"How to play {games.get(name).title}" in response.text
        guide = glossary.guide(name)
        assert guide is not None
        for way in guide.variants:
            assert f"/rules/{name}#{way.anchor}" in page.links


@pytest.mark.parametrize("name", GAMES)
def test_every_rules_page_has_its_sections_and_pictures_the_engine_drew(
    client: FlaskClient, name: str
) -> None:
    response = client.get(f"/rules/{name}")
    assert response.status_code == 200
    assert response.headers["Content-Type"].startswith("text/html")
    page = Page(response.text)
    for section in SECTIONS:
        assert section in page.ids, f"/rules/{name} has no section #{section}"
    guide = glossary.guide(name)
    assert guide is not None
    # Every anchor of the contents, and every link within the page, lands on something.
    for anchor in guide.anchors():
        assert anchor in page.ids, f"/rules/{name} has no #{anchor}"
    for link in page.links:
        if link.startswith("#"):
            assert link[1:] in page.ids, f"/rules/{name}: {link} leads nowhere"
    assert len(page.ids) == len(set(page.ids)), "an id is used twice"
    # The pictures are the engine's own drawings of the guide's positions.
    examples = guide.examples()
    assert page.pictures
    assert {p["data-picture"] for p in page.pictures} == set(examples.figures)
    engine = games.get(name)
    for picture in page.pictures:
        assert picture["alt"].strip(), picture
        # A close-up (two pictures side by side) shows the drawing's focus: the same drawing,
        # only its root's viewBox and size rewritten.
        whole = picture["src"].removesuffix(".focus.svg")
        drawn = client.get(whole if whole.endswith(".svg") else f"{whole}.svg")
        assert drawn.status_code == 200 and drawn.mimetype == "image/svg+xml"
        figure = examples.figures[picture["data-picture"]]
        names = list(figure.names) if figure.names else None
        assert drawn.text == engine.render_svg(figure.state, figure.seat, names)
        assert drawn.text.startswith("<svg")
        if picture["src"].endswith(".focus.svg"):
            close = client.get(picture["src"])
            assert close.status_code == 200 and close.mimetype == "image/svg+xml"
            assert close.text.split(">", 1)[1] == drawn.text.split(">", 1)[1]


@pytest.mark.parametrize("name", GAMES)
def test_every_variant_has_a_url_that_leads_to_its_part(client: FlaskClient, name: str) -> None:
    guide = glossary.guide(name)
    assert guide is not None
    ids = _page(client, f"/rules/{name}").ids
    declared = {option: set(map(str, values)) for option, values in games.get(name).options.items()}
    covered: dict[str, set[str]] = {option: set() for option in declared}
    for way in guide.variants:
        assert way.anchor in ids
        response = client.get(f"/rules/{name}/{way.value}")
        assert response.status_code == 302
        assert response.headers["Location"] == f"/rules/{name}#{way.anchor}"
        covered[way.option].add(way.value)
    # Every choice the engine offers is explained somewhere.
    assert covered == declared


def test_a_wide_picture_has_a_close_up_for_narrow_screens(client: FlaskClient) -> None:
    whole = client.get("/rules/marram/pictures/tuft.svg").text
    close = client.get("/rules/marram/pictures/tuft.focus.svg")
    assert close.status_code == 200 and close.mimetype == "image/svg+xml"
    width = float(whole.split('width="', 1)[1].split('"', 1)[0])
    close_width = float(close.text.split('width="', 1)[1].split('"', 1)[0])
    assert close_width < width * 0.7
    # Only the root element changed: the drawing inside is the same.
    assert close.text[close.text.index(">") :] == whole[whole.index(">") :]
    page = client.get("/rules/marram").text
    assert 'srcset="/rules/marram/pictures/tuft.focus.svg"' in page
    # A picture without a focus has no close-up.
    assert client.get("/rules/gorami/pictures/final.focus.svg").status_code == 404


@pytest.mark.parametrize(
    ("path", "says"),
    [
        ("/rules/chess", "no rules here for a game called 'chess'"),
        ("/rules/countdown", "no rules here for a game called 'countdown'"),
        ("/rules/marram/chess960", "Marram has no variant 'chess960'; it has: classic"),
        ("/rules/gorami/pictures/nothing.svg", "There is no picture 'nothing'"),
        ("/rules/gorami/pictures/..%2Fsecret.svg", "not found"),
        ("/rules/" + "x" * 300, "no such page"),
    ],
)
def test_what_is_not_there_is_a_clear_404(client: FlaskClient, path: str, says: str) -> None:
    response = client.get(path)
    assert response.status_code == 404
    assert says in unescape(response.text)
    assert "x" * 41 not in response.text  # what was asked is quoted in short


def test_rules_pages_and_pictures_may_be_cached(client: FlaskClient) -> None:
    for path in ("/rules/mmw", "/rules/mmw/pictures/start.svg"):
        response = client.get(path)
        assert response.cache_control.public and response.cache_control.max_age == 86400


@pytest.mark.parametrize(
    ("name", "options", "words"),
    [
        ("gorami", {"board": "16"}, {"fish"}),
        ("mmw", {}, {"on-the-board", "sizes", "sinking"}),
        ("marram", {"variant": "animals"}, {"boot", "pitchfork", "shovel", "bet", "bag"}),
    ],
)
def test_the_game_page_explains_its_words_and_links_each_to_its_rule(
    client: FlaskClient, name: str, options: dict[str, str], words: set[str]
) -> None:
    game = start(client, name, **options)
    response = client.get(turn_link(game))
    assert response.status_code == 200
    page = Page(response.text)
    assert f'href="/rules/{name}"' in response.text and "How to play" in response.text
    rules = _page(client, f"/rules/{name}").ids
    # Each explanation links to an anchor that exists on the rules page.
    assert page.terms
    for link in page.terms:
        path, _, anchor = link["href"].partition("#")
        assert path == f"/rules/{name}" and anchor in rules, link["href"]
    # Every word of the glossary is offered, and the words of the summary are explained in place.
    offered = {key for key in _term_keys(response.text)}
    assert {term.key for term in glossary.terms(name)} <= offered
    summary = response.text.split('id="summary"', 1)[1].split('id="glossary"', 1)[0]
    assert words <= set(_term_keys(summary)), summary
    # Each explanation is a button that opens its popover, which names the button.
    for uid in _popover_targets(response.text):
        assert f'id="{uid}" popover' in response.text
        assert f'aria-describedby="{uid}"' in response.text


def _term_keys(html: str) -> list[str]:
    return [part.split('"', 1)[0] for part in html.split('class="pbem-term" data-term="')[1:]]


def _popover_targets(html: str) -> list[str]:
    return [part.split('"', 1)[0] for part in html.split('popovertarget="')[1:]]


def test_gloss_explains_whole_words_only_and_escapes_the_rest() -> None:
    html = str(glossary.gloss("fish & <b>fishing</b> stripes; Fish", "gorami"))
    assert html.count('class="pbem-term"') == 3  # fish, stripes, Fish: not "fishing"
    assert "&amp; &lt;b&gt;fishing&lt;/b&gt;" in html
    assert ">Fish</button>" in html and ">stripes</button>" in html
    # The longest form wins: "dead tiles" is one word of the game, not "tiles".
    marram = str(glossary.gloss("2 dead tiles discarded", "marram"))
    assert 'data-term="dead-tile"' in marram and ">dead tiles</button>" in marram
    # A game without a guide gets its text back, escaped.
    assert str(glossary.gloss("a < b", "countdown")) == "a &lt; b"


def test_the_invitation_page_links_the_rules(client: FlaskClient) -> None:
    from tests.web.flow import confirmation_link, create

    game = create(client, "mmw")
    response = client.get(confirmation_link(game))
    assert response.status_code == 200
    assert 'id="rules-link"' in response.text
    assert 'href="/rules/mmw"' in response.text
