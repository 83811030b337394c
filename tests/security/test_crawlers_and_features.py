"""Crawlers are kept out of what a token opens (robots.txt and X-Robots-Tag), and every answer
refuses the browser features pbem never uses (Permissions-Policy)."""

from __future__ import annotations

import re

from flask import Flask
from flask.testing import FlaskClient

from tests.web.flow import links_in, mails, start, turn_link

# A token of the right shape whose signature is wrong: the pages refuse it (403).
FORGED = "WyJzZWF0IiwiZm9yZ2VkIiwwLDEsIm4iXQ.ZmFrZQ.c2lnbmF0dXJlLWZvcmdlZA"

# The features browsers know today (the Permissions Policy registry); withdrawn ones such as
# FLoC's interest-cohort make the browser log an error instead.
KNOWN_FEATURES = {
    "accelerometer",
    "ambient-light-sensor",
    "autoplay",
    "bluetooth",
    "camera",
    "display-capture",
    "encrypted-media",
    "fullscreen",
    "gamepad",
    "geolocation",
    "gyroscope",
    "hid",
    "idle-detection",
    "magnetometer",
    "microphone",
    "midi",
    "payment",
    "picture-in-picture",
    "publickey-credentials-get",
    "screen-wake-lock",
    "serial",
    "usb",
    "web-share",
    "xr-spatial-tracking",
}
MUST_REFUSE = {"camera", "microphone", "geolocation", "payment", "usb"}


def disallowed(robots: str) -> list[str]:
    return re.findall(r"^Disallow: (\S+)$", robots, re.M)


def token_prefixes(app: Flask) -> set[str]:
    """`/play/`, `/me/` …: the first segment of every route whose second is a token."""
    found = set()
    for rule in app.url_map.iter_rules():
        match = re.match(r"^(/[^/<]+/)<(?:[a-z]+:)?token>", rule.rule)
        if match:
            found.add(match[1])
    return found


def test_robots_keeps_crawlers_out_of_every_token_route(app: Flask, client: FlaskClient) -> None:
    response = client.get("/robots.txt")
    assert response.status_code == 200 and response.mimetype == "text/plain"
    assert response.text.startswith("User-agent: *\n")
    closed = disallowed(response.text)
    prefixes = token_prefixes(app)
    assert {"/play/", "/invite/", "/me/", "/signin/", "/block/", "/mail/"} <= prefixes
    assert prefixes <= set(closed)
    assert {"/api/", "/submission/"} <= set(closed)


def test_robots_lets_crawlers_read_the_public_pages(client: FlaskClient) -> None:
    robots = client.get("/robots.txt")
    assert robots.status_code == 200 and "\nAllow: /\n" in robots.text
    closed = disallowed(robots.text)
    for path in ("/", "/rules", "/rules/gorami", "/signin", "/favicon.ico"):
        assert not any(path.startswith(prefix) for prefix in closed), path
        assert "X-Robots-Tag" not in client.get(path).headers, path


def test_every_page_a_token_opened_is_not_indexed(client: FlaskClient) -> None:
    game = start(client)
    link = turn_link(game)
    token = link.split("/play/")[1]
    invitation = links_in(mails(kind="invite")[0], "invite")[0]
    answers = {
        "game page": client.get(link),
        "replay": client.get(f"{link}/replay/0"),
        "invitation": client.get(invitation),
        "submission page": client.get(f"/submission/1?token={token}"),
        "dashboard": client.get(f"/me/{FORGED}"),
        "sign-in link": client.get(f"/signin/{FORGED}"),
        "block link": client.get(f"/block/{FORGED}"),
        "api, header": client.get(
            f"/api/games/{game.id}", headers={"Authorization": f"Bearer {token}"}
        ),
        "api, query": client.get(f"/api/games/{game.id}/legal?token={token}"),
    }
    for name, response in answers.items():
        assert "noindex" in response.headers.get("X-Robots-Tag", ""), name


def test_every_answer_refuses_the_features_pbem_never_uses(client: FlaskClient) -> None:
    game = start(client)
    for path in ("/", "/robots.txt", "/static/base.css", "/no/such/page", turn_link(game)):
        policy = client.get(path).headers.get("Permissions-Policy", "")
        directives = [part.strip() for part in policy.split(",")]
        # Structured-field syntax: feature=() with an empty allow-list, nothing else.
        for directive in directives:
            assert re.fullmatch(r"[a-z-]+=\(\)", directive), (path, directive)
        features = {directive.split("=")[0] for directive in directives}
        assert MUST_REFUSE <= features <= KNOWN_FEATURES, (path, features - KNOWN_FEATURES)
