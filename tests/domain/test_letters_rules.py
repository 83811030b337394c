"""Every email about a game links its rules for players, in the text and the HTML; the invitation
says so where a newcomer reads it, not only in the footer."""

from __future__ import annotations

import pytest
from flask import Flask

from pbem.domain import outbox
from tests.domain.flow import start
from tests.domain.test_outbox import _one_letter_of_each_kind

# Letters about no one game of the reader's: they link the page of every game's rules.
NOT_ABOUT_A_GAME = {"signin", "signedout", "digest"}
# Letters about leaving: no invitation to play.
NOT_ABOUT_PLAYING = {"erase"}


@pytest.mark.parametrize(("engine", "options"), [("gorami", {"board": 16}), ("mmw", {})])
def test_every_email_links_the_rules(app: Flask, engine: str, options: dict) -> None:
    written = _one_letter_of_each_kind(start(engine, options))
    link = f"http://pbem.test/rules/{engine}"
    index = "http://pbem.test/rules"
    checked = set()
    for kind, variants in written.items():
        for letter in variants:
            _, text, html = outbox.render(kind, letter.context)
            if kind in NOT_ABOUT_PLAYING:
                assert "/rules" not in text and "/rules" not in html, kind
                continue
            if kind in NOT_ABOUT_A_GAME:
                assert letter.context.get("rules_link") is None, kind
                assert f"How to play each game, the rules with pictures: {index}\n" in text, kind
                assert f'<a href="{index}"' in html and "How to play each game</a>" in html, kind
                continue
            assert letter.context["rules_link"] == link, kind
            title = letter.context["title"]
            assert f"How to play {title}, the rules with pictures: {link}\n" in text, kind
            assert f'<a href="{link}"' in html and f"How to play {title}</a>" in html, kind
        checked.add(kind)
    assert checked == set(written) and len(checked) == 22


def test_the_invitation_offers_the_rules_before_the_footer(app: Flask) -> None:
    written = _one_letter_of_each_kind(start("gorami", {"board": 16}))
    (invitation,) = written["invite"]
    _, text, html = outbox.render("invite", invitation.context)
    body, _, footer = text.partition("\n-- \n")
    assert "New to GORami? How to play it, in plain words and with pictures:\n" in body
    assert "http://pbem.test/rules/gorami" in body and "http://pbem.test/rules/gorami" in footer
    assert 'id="rules"' in html


def test_a_game_without_rules_for_players_has_no_link(app: Flask) -> None:
    written = _one_letter_of_each_kind(start(options={"pile": 5}))
    (turn, *_) = written["turn"]
    assert turn.context["rules_link"] is None
    _, text, html = outbox.render("turn", turn.context)
    assert "How to play" not in text and "How to play" not in html
