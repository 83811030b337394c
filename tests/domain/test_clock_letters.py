"""The letters of correspondence clocks and the endings the service decides: a turn with its
deadline, reminders, a player leaving, draw offers, cancellations, lapsed invitations and the
results of timeouts, resignations and agreed draws, rendered from `templates/mail/`."""

from __future__ import annotations

import random
from dataclasses import replace
from datetime import datetime
from functools import cache

import pytest

from pbem import games
from pbem.config import Settings, load_settings
from pbem.domain import letters, outbox, outcomes
from pbem.domain.outbox import Letter
from pbem.domain.views import GameFacts, SeatInfo
from pbem.models import FINISHED, RUNNING

ALICE, BOB, CAROL = "alice@example.org", "bob@example.org", "carol@example.org"
HOSTILE = '"<script>"@example.org'
ESCAPED = "&#34;&lt;script&gt;&#34;@example.org"
DEADLINE = datetime(2026, 12, 3, 18, 0)  # naive instants are UTC
DEADLINE_IN_PARIS = "Thursday 3 December, 19:00 CET (18:00 UTC)"
BACK = datetime(2026, 12, 1, 9, 30)
BACK_IN_PARIS = "Tuesday 1 December, 10:30 CET (09:30 UTC)"


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


def _seats(game_id: str, who: list[str]) -> list[SeatInfo]:
    return [
        SeatInfo(10 + index, game_id, index, 100 + index, f"n{index}", email, f"p{index}", zone)
        for index, (email, zone) in enumerate(zip(who, ["Europe/Paris", None, "UTC"], strict=False))
    ]


def _facts(game_id: str, engine: str, state: games.State) -> GameFacts:
    return GameFacts(game_id, engine, RUNNING, 0, state.to_move, f"<{game_id}@pbem.test>")


def _gorami(who: list[str]) -> tuple[GameFacts, list[SeatInfo], games.State]:
    state = games.get("gorami").new(2, None, 1)
    return _facts("gor1", "gorami", state), _seats("gor1", who), state


def _marram(who: list[str]) -> tuple[GameFacts, list[SeatInfo], games.State]:
    state = games.get("marram").new(3, None, 1)
    return _facts("mar1", "marram", state), _seats("mar1", who), state


def _render(letter: Letter) -> tuple[str, str, str]:
    """The letter's subject, text and HTML, checked for what every game letter must have."""
    subject, text, html = outbox.render(letter.kind, letter.context)
    game = letter.context["game"]
    assert subject.startswith(f"[pbem] {letter.context['title']} ({game.id}): ")
    assert "\n" not in subject and "  " not in subject
    for part in (subject, text, html):
        assert "{{" not in part and "{%" not in part and "None" not in part
    # Greeted by name, never by the address; plain "Hello," without a name.
    name = letter.context.get("name")
    assert text.startswith(f"Hello {name},\n\n" if name else "Hello,\n\n")
    assert "This link is yours alone" in text  # the footer
    assert html.startswith("<!doctype html>") and html.rstrip().endswith("</body></html>")
    # Every game letter's footer leads to the player's mail settings (a cancelled game's, about
    # a game that never started, has none to give).
    mail_link = letter.context["mail_link"] if letter.kind != "cancelled" else ""
    assert (
        not mail_link
        or f"Too much mail? Choose every turn, a daily digest or none: {mail_link}" in text
    )
    assert not mail_link or f'href="{mail_link}"' in html
    games_link = letter.context["games_link"]
    assert games_link in text and f'href="{games_link}"' in html
    if "link" in letter.context:
        assert letter.context["link"] in text and f'href="{letter.context["link"]}"' in html
    return subject, text, html


def _hostile_safe(html: str) -> None:
    assert "<script>" not in html and ESCAPED in html


# --- turn ----------------------------------------------------------------------------------------


def test_a_turn_without_a_clock_reads_as_before() -> None:
    facts, seats, state = _gorami([ALICE, BOB])
    subject, text, html = _render(letters.turn(_config(), facts, seats[0], state, [ALICE, BOB], []))
    assert subject == "[pbem] GORami (gor1): your turn (move 1)"
    assert f"It is your turn in GORami game gor1 against {BOB}: move 1.\n\nSee the board" in text
    assert "Move by" not in text and "Move by" not in html and "vacation" not in text


def test_a_turn_with_a_clock_says_when_to_move_by_in_the_players_zone() -> None:
    facts, seats, state = _gorami([ALICE, BOB])
    letter = letters.turn(_config(), facts, seats[0], state, [ALICE, BOB], [], deadline=DEADLINE)
    subject, text, html = _render(letter)
    assert subject == "[pbem] GORami (gor1): your turn (move 1)"
    assert f"against bob@example.org: move 1.\n\nMove by {DEADLINE_IN_PARIS}.\n\n" in text
    assert f"<b>Move by {DEADLINE_IN_PARIS}.</b>" in html
    # Bob has no time zone: UTC alone.
    letter = letters.turn(_config(), facts, seats[1], state, [ALICE, BOB], [], deadline=DEADLINE)
    assert "Move by Thursday 3 December, 18:00 UTC.\n" in _render(letter)[1]


def test_a_turn_while_away_says_the_clock_waits_for_the_return() -> None:
    facts, seats, state = _gorami([ALICE, BOB])
    letter = letters.turn(
        _config(), facts, seats[0], state, [ALICE, BOB], [], deadline=DEADLINE, away_until=BACK
    )
    _, text, html = _render(letter)
    sentence = (
        f"You are on vacation until {BACK_IN_PARIS}: your clock starts when you are back, "
        f"so move by {DEADLINE_IN_PARIS}."
    )
    assert f"move 1.\n\n{outbox.wrap(sentence)}\n\n" in text and sentence in html
    assert "Move by " not in text and "Move by " not in html


def test_a_turn_after_someone_left_says_so_first() -> None:
    who = [ALICE, BOB, CAROL]
    facts, seats, state = _marram(who)
    after = state.drop(0)
    facts = replace(facts, to_move=after.to_move)
    news = f"{ALICE} ran out of time and has left the game."
    letter = letters.turn(_config(), facts, seats[1], after, who, [], deadline=DEADLINE, news=news)
    _, text, html = _render(letter)
    assert text.startswith(f"Hello,\n\n{news}\n\nIt is your turn in Marram game mar1")
    assert "Move by Thursday 3 December, 18:00 UTC." in text
    assert html.index(news) < html.index("It is your turn")


def test_a_turn_escapes_a_hostile_address() -> None:
    facts, seats, state = _gorami([ALICE, HOSTILE])
    news = f"{HOSTILE} resigned and has left the game."
    letter = letters.turn(_config(), facts, seats[0], state, [ALICE, HOSTILE], [], news=news)
    _, text, html = _render(letter)
    assert news in text and f"against {HOSTILE}" in text
    _hostile_safe(html)


# --- reminder ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("hours", "due"),
    [
        (2.0, "in 2 hours"),
        (23.7, "in 24 hours"),
        (24.0, "in 24 hours"),
        (1.2, "in 1 hour"),
        (0.995, "in 1 hour"),
        (0.75, "in 45 minutes"),
        (1 / 60, "in 1 minute"),
        (0.0, "now"),
    ],
)
def test_a_reminder_says_how_soon_the_move_is_due(hours: float, due: str) -> None:
    facts, seats, _ = _gorami([ALICE, BOB])
    letter = letters.reminder(_config(), facts, seats[0], [ALICE, BOB], DEADLINE, hours)
    subject, text, _ = _render(letter)
    assert subject == f"[pbem] GORami (gor1): your move is due {due}"
    sentence = (
        f"It is still your turn in GORami game gor1 against {BOB}, and your move is due {due}."
    )
    assert f"{outbox.wrap(sentence)}\nMove by " in text


def test_a_reminder_gives_the_deadline_the_links_and_vacation() -> None:
    facts, seats, _ = _marram([ALICE, BOB, HOSTILE])
    letter = letters.reminder(_config(), facts, seats[0], [ALICE, BOB, HOSTILE], DEADLINE, 6.2)
    subject, text, html = _render(letter)
    assert subject == "[pbem] Marram (mar1): your move is due in 6 hours"
    assert f"It is still your turn in Marram game mar1 against {BOB}, {HOSTILE}" in " ".join(
        text.split()
    )
    assert f"Move by {DEADLINE_IN_PARIS}.\n" in text
    assert f"<b>Move by {DEADLINE_IN_PARIS}.</b>" in html
    assert "turn vacation on from your games page" in text
    assert "turn vacation on from <a href=" in html
    _hostile_safe(html)


# --- a player leaves a game that goes on ---------------------------------------------------------


def _left(reader: int, leaver: int, kind: str, who: list[str]) -> tuple[str, str, str]:
    facts, seats, state = _marram(who)
    after = state.drop(leaver)
    facts = replace(facts, to_move=after.to_move)
    return _render(letters.left(_config(), facts, seats[reader], after, who, leaver, kind))


def _unfolded(text: str) -> str:
    """A text email with its paragraphs unfolded: they fold at 78 columns (`outbox.wrap`)."""
    return " ".join(text.split())


def test_the_player_who_ran_out_of_time_is_told_they_left() -> None:
    subject, text, html = _left(0, 0, "timeout", [ALICE, BOB, CAROL])
    assert subject == "[pbem] Marram (mar1): you left the game"
    sentence = (
        "You ran out of time in Marram game mar1, so you have left the game; "
        "the others play on. You rank last."
    )
    assert outbox.wrap(sentence) in text
    assert "You ran out of time in <b>Marram</b> game mar1, so you have left the game" in html
    assert "Scores (points):" in text and "No moves yet" not in text


def test_the_player_who_resigned_is_told_they_left() -> None:
    subject, text, _ = _left(2, 2, "resigned", [ALICE, BOB, CAROL])
    assert subject == "[pbem] Marram (mar1): you left the game"
    assert "You resigned from Marram game mar1, so you have left the game; the others" in text
    assert "ran out of time" not in text


def test_the_others_are_told_who_left_and_whose_turn_it_is() -> None:
    who = [ALICE, BOB, CAROL]
    subject, text, html = _left(2, 0, "timeout", who)
    assert subject == f"[pbem] Marram (mar1): {ALICE} left the game"
    sentence = (
        f"{ALICE} ran out of time and has left the game; play goes on without them. "
        f"It is now {BOB}'s turn."
    )
    assert outbox.wrap(f"Marram game mar1: {sentence}") in text and sentence in html
    subject, text, _ = _left(1, 2, "resigned", who)  # Alice is still to move
    assert subject == f"[pbem] Marram (mar1): {CAROL} left the game"
    assert f"{CAROL} resigned and has left the game; play goes on without them." in _unfolded(text)
    assert f"It is now {ALICE}'s turn." in _unfolded(text)
    # The player to move, when the turn did not pass, is told it is theirs.
    _, text, html = _left(0, 2, "resigned", who)
    assert "play goes on without them. It is your turn." in _unfolded(text)
    assert "See the board and move" in html


def test_a_hostile_leaver_is_escaped() -> None:
    subject, text, html = _left(1, 0, "timeout", [HOSTILE, BOB, CAROL])
    assert subject == f"[pbem] Marram (mar1): {HOSTILE} left the game"
    assert f"{HOSTILE} ran out of time" in text
    _hostile_safe(html)


# --- draws ---------------------------------------------------------------------------------------


def test_a_draw_offer_tells_the_opponent_how_to_answer() -> None:
    facts, seats, _ = _gorami([HOSTILE, BOB])
    letter = letters.draw(_config(), facts, seats[1], [HOSTILE, BOB], 0, "draw_offer")
    subject, text, html = _render(letter)
    assert subject == f"[pbem] GORami (gor1): {HOSTILE} offers a draw"
    offer = f"{HOSTILE} offers a draw in GORami game gor1. Accept or decline it on the game "
    assert offer in _unfolded(text)
    assert "if you simply make your next move, the offer lapses." in _unfolded(text)
    assert "Accept or decline the draw" in html
    _hostile_safe(html)


def test_a_declined_draw_tells_the_offerer() -> None:
    facts, seats, _ = _gorami([ALICE, HOSTILE])
    letter = letters.draw(_config(), facts, seats[0], [ALICE, HOSTILE], 1, "draw_declined")
    subject, text, html = _render(letter)
    assert subject == "[pbem] GORami (gor1): draw declined"
    declined = f"{HOSTILE} declined your offer of a draw in GORami game gor1: the game goes on."
    assert outbox.wrap(declined) in text
    _hostile_safe(html)


# --- cancelled and lapsed invitations ------------------------------------------------------------


def test_a_game_cancelled_by_its_organiser() -> None:
    who = [ALICE, BOB, HOSTILE]
    facts, seats, _ = _marram(who)
    letter = letters.cancelled(_config(), facts, seats[1], who, by_organiser=True)
    subject, text, html = _render(letter)
    assert subject == "[pbem] Marram (mar1): cancelled"
    assert "Marram game mar1 was cancelled by its organiser before anyone moved." in text
    assert f"  2. {BOB} (you)\n" in text and f"  3. {HOSTILE}\n" in text
    assert "link" not in letter.context and "/seat" not in text
    _hostile_safe(html)


def test_a_game_cancelled_by_pbem_for_want_of_players() -> None:
    facts, seats, _ = _gorami([ALICE, BOB])
    letter = letters.cancelled(_config(), facts, seats[0], [ALICE, BOB], by_organiser=False)
    _, text, html = _render(letter)
    assert "pbem cancelled GORami game gor1: not every seat was taken in time" in text
    assert "organiser" not in text and "All your games" in html


def test_the_organiser_is_told_which_invitations_lapsed() -> None:
    facts, seats, _ = _marram([ALICE, BOB, CAROL])
    letter = letters.expired(_config(), facts, seats[0], [BOB, HOSTILE], DEADLINE)
    subject, text, html = _render(letter)
    assert subject == "[pbem] Marram (mar1): invitations not accepted"
    lapsed = (
        f"The invitations to {BOB}, {HOSTILE} for your game of Marram (game mar1) were not "
        "accepted in time and no longer work."
    )
    assert outbox.wrap(lapsed) in text
    assert "invite someone else to each of those seats from your game page" in _unfolded(text)
    deadline = f"If the seats are not all taken by {DEADLINE_IN_PARIS}, the game is cancelled"
    assert deadline in _unfolded(text)
    _hostile_safe(html)
    letter = letters.expired(_config(), facts, seats[0], [CAROL], DEADLINE)
    _, text, _ = _render(letter)
    assert f"The invitation to {CAROL} for your game" in text
    unfolded = _unfolded(text)
    assert "was not accepted in time and no longer works." in unfolded
    assert "to that seat" in unfolded


# --- results of the service's endings ------------------------------------------------------------


def _result(
    outcome: games.Outcome | None, reader: int, who: list[str], state: games.State | None = None
) -> tuple[str, str, str]:
    """The result letter to `reader`: of a game the service ended with `outcome`, or of `state`
    the engine ended (outcome None)."""
    facts, seats, start = _gorami(who)
    state = state or start
    over = replace(
        facts,
        status=FINISHED,
        to_move=None,
        outcome=outcome.to_json() if outcome else None,
        ply=len(state.history),
    )
    recent = [(ply, who[ply % 2], move) for ply, move in enumerate(state.history)][-8:]
    written = letters.results(_config(), over, seats, state, who, recent, outcome)
    return _render(written[reader])


def _service(reason: str, seat: int | None) -> games.Outcome:
    return games.Outcome.from_json(outcomes.ended_by(reason, seat, 2, [0, 0]))


def _played_out(choose: random.Random | None = None) -> games.State:
    """A game of GORami played to its end: the last legal move each time, or random ones."""
    state = games.get("gorami").new(2, None, 1)
    while state.outcome is None:
        moves = state.legal_moves()
        state = state.play(choose.choice(moves) if choose else moves[-1])
    return state


def test_a_result_by_timeout_names_the_loser_and_the_winner() -> None:
    subject, text, html = _result(_service(outcomes.TIMEOUT, 1), 0, [ALICE, BOB])
    assert subject == "[pbem] GORami (gor1): the game is over"
    ending = f"GORami game gor1 is over. {BOB} ran out of time; {ALICE} wins."
    assert f"{outbox.wrap(ending)}\n" in text
    assert "\nYou win. Congratulations!\n" in text and "Nobody wins" not in text
    assert f"<b>{BOB} ran out of time; {ALICE} wins.</b>" in html
    _, text, _ = _result(_service(outcomes.RESIGNATION, 0), 0, [ALICE, BOB])
    # The loser reads who won in the outcome's sentence, not twice.
    assert f"is over. {ALICE} resigned; {BOB} wins.\n\nSee the final board" in text


def test_an_agreed_draw_is_drawn_not_lost_by_all() -> None:
    _, text, html = _result(_service(outcomes.DRAW_AGREED, None), 1, [ALICE, HOSTILE])
    assert "GORami game gor1 is over. Drawn by agreement.\n\n" in text
    assert "<b>Drawn by agreement.</b>" in html
    assert "Nobody wins" not in text and "Nobody wins" not in html
    _hostile_safe(html)


def test_the_engines_endings_read_as_before() -> None:
    won = _played_out()
    assert won.outcome is not None and won.outcome.winners == [0]
    _, text, _ = _result(None, 0, [ALICE, BOB], won)
    ending = (
        "GORami game gor1 is over. Neither player could place; 5 fish each, so the interior "
        f"cells decide: {ALICE} wins 6 to 2."
    )
    assert f"{outbox.wrap(ending)}\nYou win. Congratulations!\n\nSee the final board" in text
    drawn = _played_out(random.Random(169))  # this seed's random game ends level
    assert drawn.outcome is not None and drawn.outcome.winners == []
    _, text, html = _result(None, 1, [ALICE, BOB], drawn)
    ending = (
        "GORami game gor1 is over. Draw: neither player could place; 6 fish each and the "
        "interior cells tied at 3."
    )
    assert f"{outbox.wrap(ending)}\n\n" in text
    assert "<b>Draw: neither player could place" in html and "The game is drawn" not in text
