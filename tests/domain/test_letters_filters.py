"""What spam filters and mail clients look for in pbem's letters (issue 31): a List-Unsubscribe
on every email to a player, which works with one click; subjects whose game id reads as no
broken word; the player's own hand beside the board picture, in their email alone."""

from __future__ import annotations

import re
from dataclasses import replace

from flask import Flask
from flask.testing import FlaskClient

from pbem import games
from pbem.domain import letters, outbox
from pbem.domain.views import GameFacts, SeatInfo
from pbem.extensions import db, settings
from pbem.models import NO_TURN_MAIL, RUNNING, Player
from tests.domain.flow import start
from tests.domain.test_outbox import _one_letter_of_each_kind

NAMES = ["Alice", "Bob"]
# SpamAssassin's SUBJ_BRKN_WORDNUMS (72_active.cf): a word broken by a capital after a space,
# and letters, digits and letters run together.
BROKEN_WORD = re.compile(r"\s(?!i[PTM][aoh][bcdou]|e[MP]a[is])[a-z]{1,3}[A-Z][a-z]{2}")
NUMBERS_IN_WORD = re.compile(r"[a-z]{3,}\d+[a-z]{2,}", re.I)
# A game id as pbem makes them that trips both halves after a space.
TRIPPING_ID = "wvXyzl7Wthzl"


def test_every_email_to_a_player_carries_a_one_click_unsubscribe(app: Flask) -> None:
    game = start(options={"pile": 5})
    written = _one_letter_of_each_kind(game)
    block = {"invite", "confirm"}
    for kind, variants in written.items():
        for letter in variants:
            link = letter.list_unsubscribe
            assert link is not None, f"{kind} has no List-Unsubscribe"
            path = "/block/" if kind in block else "/mail/"
            assert link.startswith(f"{settings().base_url}{path}"), (kind, link)


def test_the_one_click_posts_unsubscribe_and_block(app: Flask, client: FlaskClient) -> None:
    game = start(options={"pile": 5})
    written = _one_letter_of_each_kind(game)
    base = settings().base_url
    one_click = {"List-Unsubscribe": "One-Click"}
    player = game.seats[0].player
    # A result email's link: turn mail off (what pbem may stop sending), 200.
    (result, _) = written["result"]
    assert result.list_unsubscribe is not None
    answer = client.post(result.list_unsubscribe.removeprefix(base), data=one_click)
    assert answer.status_code == 200
    db.session.expire_all()
    assert db.session.get(Player, player.id).mail_preference == NO_TURN_MAIL
    # An invitation's link: no more invitations to the address.
    (invite,) = written["invite"]
    assert invite.list_unsubscribe is not None
    answer = client.post(invite.list_unsubscribe.removeprefix(base), data=one_click)
    assert answer.status_code == 200
    db.session.expire_all()
    assert db.session.get(Player, player.id).blocked_at is not None


def test_subjects_keep_the_game_id_where_no_filter_reads_a_broken_word(app: Flask) -> None:
    game = start(options={"pile": 5})
    for kind, variants in _one_letter_of_each_kind(game).items():
        for letter in variants:
            context = dict(letter.context)
            if context.get("game") is not None:
                context["game"] = replace(_facts(context["game"]), id=TRIPPING_ID)
            subject, _, _ = outbox.render(kind, context)
            if context.get("game") is not None:
                # Mail filters still find the game by its id.
                assert f"({TRIPPING_ID})" in subject, subject
            assert not (BROKEN_WORD.search(subject) and NUMBERS_IN_WORD.search(subject)), subject


def _facts(game: object) -> GameFacts:
    if isinstance(game, GameFacts):
        return game
    return GameFacts.of(game)


def _seat(index: int) -> SeatInfo:
    return SeatInfo(10 + index, "mar1", index, 100 + index, f"n{index}", f"p{index}@x.org", "pn")


def test_the_html_turn_email_shows_the_own_hand_and_no_other(app: Flask) -> None:
    state = games.get("marram").new(2, None, 1)
    facts = GameFacts("mar1", "marram", RUNNING, 0, 0, "<mar1@pbem.test>")
    hands = [state.summary(seat).hand for seat in (0, 1)]
    assert hands[0] != hands[1] and all(h.startswith("your tiles: ") for h in hands)
    for seat in (0, 1):
        letter = letters.turn(settings(), facts, _seat(seat), state, NAMES, [])
        _, _, html = outbox.render("turn", letter.context)
        own = hands[seat].removeprefix("your tiles: ")
        other = hands[1 - seat].removeprefix("your tiles: ")
        shown = re.search(r"<b>Your hand</b> \(only you see it\): Your tiles: ([^<]+)</", html)
        assert shown is not None and shown.group(1) == own
        assert other not in html
        # Beside the board picture: right after its place.
        assert html.index("<!-- pbem:board -->") < html.index("Your hand")
    # A game without hands has no such line.
    gorami = games.get("gorami").new(2, None, 1)
    facts = GameFacts("gor1", "gorami", RUNNING, 0, 0, "<gor1@pbem.test>")
    letter = letters.turn(settings(), facts, _seat(0), gorami, NAMES, [])
    assert "Your hand" not in outbox.render("turn", letter.context)[2]
