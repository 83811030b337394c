"""What the mail templates make of a letter: greeted by name, players named by the names given
(never by an address), moves and endings in words, the board's place in the HTML and the text
board in the text part, the mail-settings link in every game email's footer, and HTML a mail
client shows well on a phone (one column, inline styles, nothing fetched from elsewhere)."""

from __future__ import annotations

import re
from dataclasses import replace
from datetime import datetime
from functools import cache

import pytest
from flask import Flask

from pbem import games
from pbem.config import Settings, load_settings
from pbem.domain import letters, outbox, outcomes, views
from pbem.domain.outbox import Letter
from pbem.domain.views import GameFacts, SeatInfo
from pbem.extensions import db
from pbem.models import FINISHED, RUNNING
from tests.domain.flow import start
from tests.domain.test_outbox import _one_letter_of_each_kind

NAMES = ["Alice", "Bob"]
ADDRESSES = ["alice@example.org", "bob@example.org"]
MARKER = "<!-- pbem:board -->"
WITH_BOARD = {"turn", "started", "result"}
DEADLINE = datetime(2026, 12, 3, 18, 0)
# The kinds drawn in templates/mail/_layout.html.
FRAMED = {
    "turn",
    "started",
    "result",
    "reminder",
    "left",
    "draw_offer",
    "draw_declined",
    "cancel_offer",
    "cancel_declined",
    "cancelled",
    "expired",
    "invite",
    "confirm",
    "links",
    "signin",
    "signedout",
    "erase",
    "reply",
    "undeliverable",
}


@cache
def _config() -> Settings:
    return load_settings(
        {
            "PBEM_ENV": "test",
            "SECRET_KEY": "test-secret-key-0123456789",
            "BASE_URL": "http://pbem.test",
            "DATABASE_URL": "sqlite:///:memory:",
        }
    )


def _seats(names: list[str | None]) -> list[SeatInfo]:
    return [
        SeatInfo(10 + i, "gor1", i, 100 + i, f"n{i}", ADDRESSES[i], f"p{i}", None, name)
        for i, name in enumerate(names)
    ]


def _gorami(plies: int = 0) -> tuple[GameFacts, games.State, list[tuple[int, str, str]]]:
    """A game of GORami after `plies` moves (the last legal move each time), and those moves as
    the letters list them: in the engine's words, with the names in."""
    state = games.get("gorami").new(2, None, 1)
    recent = []
    for ply in range(plies):
        seat = state.to_move
        assert seat is not None
        move = state.legal_moves()[-1]
        state, words = state.play_described(move)
        recent.append(views.said(ply, seat, state.history[-1], words, NAMES))
    facts = GameFacts("gor1", "gorami", RUNNING, plies, state.to_move, "<gor1@pbem.test>")
    return facts, state, recent[-8:]


def _render(letter: Letter) -> tuple[str, str]:
    _, text, html = outbox.render(letter.kind, letter.context)
    return text, html


def test_a_turn_names_the_players_and_gives_the_last_moves_in_words() -> None:
    facts, state, recent = _gorami(5)
    seat = _seats(list(NAMES))[facts.to_move or 0]
    text, html = _render(letters.turn(_config(), facts, seat, state, NAMES, recent))
    other = NAMES[1 - seat.seat]
    assert text.startswith(f"Hello {NAMES[seat.seat]},\n\n")
    assert f"against {other}: move 6." in text
    last = recent[-1]
    assert f"Last move: {last.sentence}.\n" in text
    assert last.sentence.startswith(f"{other} placed a ")
    for m in recent:
        assert f"  {m.number}. {m.sentence} ({m.move})\n" in text
        assert m.sentence in html
    assert "Scores (fish):" in text and "(you)" in text
    for address in ADDRESSES:
        assert address not in text and address not in html


def test_the_reply_hint_mentions_a_second_action_only_where_the_turn_has_one() -> None:
    # Game ids as pbem makes them, so the letters carry a reply address and its hint.
    facts, state, recent = _gorami(1)
    facts = replace(facts, id="GcWeCyMfyycb")
    seat = replace(_seats(list(NAMES))[facts.to_move or 0], game_id=facts.id)
    text, html = _render(letters.turn(_config(), facts, seat, state, NAMES, recent))
    assert "reply to this email with your move on the first line," in text
    assert "both actions" not in text and "both actions" not in html
    marram = games.get("marram").new(2, None, 1)
    facts = GameFacts("lDEeIIkl7D18", "marram", RUNNING, 0, 0, "<mar1@pbem.test>")
    seat = replace(_seats(list(NAMES))[0], game_id=facts.id)
    text, html = _render(letters.turn(_config(), facts, seat, marram, NAMES, []))
    assert "(or both actions of\nyour turn, one a line)" in text
    assert "(or both actions of your turn, one a line)" in html
    # Half-way through the turn one action is left, and the hint says so no more.
    half = marram.play(marram.legal_moves()[0])
    assert half.mid_turn
    facts = replace(facts, ply=1)
    text, html = _render(letters.turn(_config(), facts, seat, half, NAMES, []))
    assert "both actions" not in text and "both actions" not in html


def test_without_a_name_the_greeting_is_plain_and_never_the_address() -> None:
    facts, state, recent = _gorami(2)
    seat = _seats([None, None])[facts.to_move or 0]
    text, html = _render(letters.turn(_config(), facts, seat, state, ["Yellow", "Blue"], recent))
    assert text.startswith("Hello,\n\n")
    assert ">Hello,</p>" in html
    assert seat.email not in text and seat.email not in html


def test_the_text_part_has_the_text_board_and_the_html_the_boards_place() -> None:
    facts, state, recent = _gorami(3)
    seats = _seats(NAMES)
    seat = seats[facts.to_move or 0]
    board = games.get("gorami").render_text(state, seat.seat, NAMES)
    for letter in [
        letters.turn(_config(), facts, seat, state, NAMES, recent),
        letters.started(_config(), facts, seat, state, NAMES),
    ]:
        text, html = _render(letter)
        assert f"The board:\n\n{board.rstrip()}\n" in text
        assert html.count(MARKER) == 1
    over = state
    while over.outcome is None:
        over = over.play(over.legal_moves()[-1])
    done = replace(facts, status=FINISHED, to_move=None, ply=len(over.history))
    for letter in letters.results(_config(), done, seats, over, NAMES, recent):
        text, html = _render(letter)
        final = games.get("gorami").render_text(over, letter.context["seat"].seat, NAMES)
        assert f"The board:\n\n{final.rstrip()}\n" in text
        assert html.count(MARKER) == 1


def test_a_result_says_how_the_game_ended_in_words_and_congratulates_the_winner() -> None:
    facts, state, _ = _gorami()
    while state.outcome is None:
        state = state.play(state.legal_moves()[-1])
    assert state.outcome.reason == "no-move"
    done = replace(facts, status=FINISHED, to_move=None, ply=len(state.history))
    sentence = games.fill_names(state.describe_outcome() or "", NAMES)
    assert sentence.startswith("Neither player could place; ")
    winner = state.outcome.winners[0]
    for letter in letters.results(_config(), done, _seats(NAMES), state, NAMES, []):
        text, html = _render(letter)
        assert outbox.wrap(f"GORami game gor1 is over. {sentence}.") + "\n" in text
        assert f"<b>{sentence}.</b>" in html
        assert "no-move" not in text and "no-move" not in html
        won = letter.context["seat"].seat == winner
        assert ("You win. Congratulations!" in text) is won
        assert ("You win. Congratulations!" in html) is won


def test_the_service_endings_read_in_words_too() -> None:
    facts, state, _ = _gorami(2)
    ended = games.Outcome.from_json(outcomes.ended_by(outcomes.TIMEOUT, 1, 2, [0, 0]))
    done = replace(facts, status=FINISHED, to_move=None, outcome=ended.to_json())
    texts = [
        _render(x)[0]
        for x in letters.results(_config(), done, _seats(NAMES), state, NAMES, [], ended)
    ]
    assert all("is over. Bob ran out of time; Alice wins.\n" in text for text in texts)
    assert "timeout" not in "".join(texts)


@pytest.mark.parametrize("kind", ["turn", "started", "result", "reminder", "left", "draw_offer"])
def test_every_game_email_leads_to_the_mail_settings(kind: str) -> None:
    facts, state, recent = _gorami(2)
    seats = _seats(NAMES)
    seat = seats[facts.to_move or 0]
    config = _config()
    made = {
        "turn": lambda: letters.turn(config, facts, seat, state, NAMES, recent),
        "started": lambda: letters.started(config, facts, seat, state, NAMES),
        "result": lambda: letters.results(config, facts, seats, state, NAMES, recent)[0],
        "reminder": lambda: letters.reminder(config, facts, seat, NAMES, DEADLINE, 3.0),
        "left": lambda: letters.left(config, facts, seat, state, NAMES, 1, "timeout"),
        "draw_offer": lambda: letters.draw(config, facts, seat, NAMES, 1, "draw_offer"),
    }[kind]()
    text, html = _render(made)
    mail_link = made.context["mail_link"]
    assert "\n-- \n" in text
    footer = text.split("\n-- \n", 1)[1]
    assert f"Too much mail? Choose every turn, a daily digest or none: {mail_link}\n" in footer
    assert "Too much mail? Choose every turn, a daily digest or none: <a href=" in html
    assert f'href="{mail_link}"' in html


def test_names_are_escaped_in_html_and_plain_in_text() -> None:
    hostile = ['<b>Ann & "Bo"</b>', "Cy <script>x</script>"]
    facts, state, _ = _gorami(1)
    seat = replace(_seats(NAMES)[facts.to_move or 0], name=hostile[facts.to_move or 0])
    recent = [views.said(0, 0, state.history[0], "{0} placed it", hostile)]
    text, html = _render(letters.turn(_config(), facts, seat, state, hostile, recent))
    assert "<script>" not in html and "<b>Ann" not in html
    assert "&lt;script&gt;" in html and "&lt;b&gt;Ann &amp; &#34;Bo&#34;&lt;/b&gt;" in html
    assert hostile[0] in text and hostile[1] in text


def test_every_html_email_is_one_phone_sized_column_with_nothing_from_elsewhere(
    app: Flask,
) -> None:
    written = _one_letter_of_each_kind(start(options={"pile": 5}))
    assert set(written) >= FRAMED
    for kind, variants in written.items():
        for letter in variants:
            _, html = _render(letter)
            if kind not in FRAMED:
                continue
            where = f"{kind}: "
            assert 'name="viewport"' in html, where + "no viewport"
            assert "max-width:600px" in html, where + "no 600px column"
            # Inline styles only: no sheet, no class for a sheet to style.
            assert "<style" not in html and "<link" not in html, where + "a style sheet"
            # Nothing to fetch: no image, font or script from anywhere.
            assert not re.search(r"<(img|script|iframe|object)\b", html), where + "fetches"
            assert "src=" not in html and "url(" not in html and "@import" not in html
            assert html.count(MARKER) == (1 if kind in WITH_BOARD else 0), where + "marker"
            # The main link is a button: a bold, padded link on a coloured cell, the cell's
            # colours in its inline CSS (spam filters read a button's white text on a cell
            # coloured by `bgcolor` as text hidden on white: HTML_FONT_LOW_CONTRAST).
            link = letter.context.get("link") or letter.context["games_link"]
            assert re.search(
                r'<td style="background-color:#[0-9a-f]{6};color:#ffffff;[^"]*">'
                rf'<a href="{re.escape(link)}" style="display:inline-block;padding:',
                html,
            ), where + "no button"
            assert "bgcolor" not in html and "background:" not in html, where + "bgcolor"


@pytest.mark.parametrize("language", ["en", "fr", "da"])
def test_a_games_name_is_escaped_in_every_html_email(app: Flask, language: str) -> None:
    """Its organiser chose it: in every kind of email, heading and <title> included, it is text."""
    game = start(options={"pile": 5})
    game.title = '<i>Club</i> & "Co"'
    db.session.commit()
    for kind, variants in _one_letter_of_each_kind(game).items():
        for letter in variants:
            _, _, html = outbox.render(kind, letter.context, language)
            assert "<i>Club</i>" not in html, kind


# English words a translated letter must not carry: a date or a deadline written before the
# recipient's language was known.
_ENGLISH_DATES = re.compile(
    r"\b(?:Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday|January|February|March|"
    r"April|June|July|August|September|October|November|December)\b"
)


@pytest.mark.parametrize("language", ["fr", "nl", "da"])
def test_every_kind_of_letter_is_written_in_its_recipients_language(
    app: Flask, language: str
) -> None:
    """A letter is made before its recipient's language is known and written in it after:
    nothing of it, its deadlines least of all, is fixed in English when it is made."""
    for kind, variants in _one_letter_of_each_kind(start(options={"pile": 5})).items():
        for number, letter in enumerate(variants):
            english = outbox.render(kind, letter.context, "en")
            subject, text, html = outbox.render(kind, letter.context, language)
            assert subject != english[0] and text != english[1], f"{kind}#{number}"
            assert f'<html lang="{language}">' in html, f"{kind}#{number}"
            assert not _ENGLISH_DATES.search(subject + text + html), f"{kind}#{number}"
