"""Every public page has a meta description of its own, for search results and shared links."""

from __future__ import annotations

import html
import re

from flask.testing import FlaskClient

from pbem import games
from pbem.domain import glossary

DESCRIPTION = re.compile(r'<meta name="description" content="([^"]*)">')


def description(page: str) -> str:
    found = DESCRIPTION.findall(page)
    assert len(found) == 1, found
    return html.unescape(found[0])


def test_every_public_page_is_described(client: FlaskClient) -> None:
    guided = glossary.guided()
    assert guided
    paths = ["/", "/?game=gorami", "/rules", "/signin", "/no/such/page"]
    paths += [f"/rules/{name}" for name in guided]
    found = {}
    for path in paths:
        response = client.get(path)
        assert response.status_code in (200, 404), path
        text = description(response.text)
        assert 50 <= len(text) <= 200, (path, text)
        found[path] = text
    # The pages a search finds say what each of them is, not one sentence for all.
    distinct = {found["/"], found["/rules"], found["/signin"], found["/no/such/page"]}
    distinct |= {found[f"/rules/{name}"] for name in guided}
    assert len(distinct) == 4 + len(guided)
    for name in guided:
        assert games.get(name).title in found[f"/rules/{name}"]
        assert games.get(name).title in found["/rules"]
        assert games.get(name).title in found["/"]


def test_a_new_games_page_after_a_refusal_keeps_the_home_description(
    client: FlaskClient,
) -> None:
    refused = client.post("/", data={"game": "gorami", "emails": "not an address"})
    assert refused.status_code == 400
    assert description(refused.text) == description(client.get("/").text)
