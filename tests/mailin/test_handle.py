"""Replies by mail end to end, in-process: a game started, its turn email's Reply-To read from the
outbox row, a reply written to it as a client would, handled, the move played and answered."""

from __future__ import annotations

import re
from collections.abc import Callable

import pytest
from flask import Flask
from sqlalchemy import func, select

from pbem import links
from pbem.domain import rotation, views
from pbem.extensions import db, settings
from pbem.mailin import handle
from pbem.mailin.handle import handle_message
from pbem.models import FINISHED, Game, OutboxMessage, Submission
from tests.domain.flow import mails, play, start
from tests.mailin import messages as m


def _turn_email(game: Game) -> tuple[str, m.Original]:
    """The address of the player to move, and their latest turn email as a reply sees it."""
    db.session.refresh(game)
    to = game.seats[game.to_move].player.email
    row = mails(to=to, kind="turn")[-1]
    assert row.reply_to is not None
    return to, m.Original(row.reply_to, row.subject, row.message_id, row.text)


def _name(game: Game, email: str) -> str:
    """How pages and mail call the player of `email` in `game`."""
    game = _game(game.id)
    (seat,) = [s.seat for s in game.seats if s.player.email == email]
    return views.names(game)[seat]


def _answers(to: str) -> list[OutboxMessage]:
    db.session.expire_all()
    return mails(to=to, kind="reply")


def _unfolded(text: str) -> str:
    """An answer's text with its paragraphs unfolded: they fold at 78 columns."""
    return " ".join(text.split())


def _game(game_id: str) -> Game:
    db.session.expire_all()
    game = db.session.get(Game, game_id)
    assert game is not None
    return game


def _outbox_count() -> int:
    return int(db.session.execute(select(func.count(OutboxMessage.id))).scalar_one())


Client = Callable[[str, m.Original, str], bytes]
CLIENTS: list[Client] = [m.gmail, m.apple_mail, m.outlook_html, m.outlook_plain, m.thunderbird]


@pytest.mark.parametrize("client", CLIENTS, ids=lambda c: c.__name__)
def test_a_reply_plays_the_move_and_is_answered(app: Flask, client: Client) -> None:
    game = start(options={"pile": 10})
    player, original = _turn_email(game)
    outcome = handle_message(settings(), client(player, original, "2"))
    assert outcome.status == handle.APPLIED, outcome.line()
    assert (outcome.game_id, outcome.ply) == (game.id, 0)
    after = _game(game.id)
    assert after.ply == 1 and after.state["pile"] == 8
    (answer,) = _answers(player)
    assert answer.subject == f"[pbem] Countdown ({game.id}): your move was played"
    assert f"{_name(game, player)} took 2, leaving 8" in answer.text
    assert answer.game_id == game.id and answer.in_reply_to  # threaded under the game
    assert answer.reply_to is None  # no longer their turn
    # The next player's turn email has its own reply address.
    other, next_turn = _turn_email(after)
    assert other != player and next_turn.reply_to != original.reply_to


def test_the_same_reply_twice_is_played_once(app: Flask) -> None:
    game = start()
    player, original = _turn_email(game)
    raw = m.gmail(player, original, "2")
    assert handle_message(settings(), raw).status == handle.APPLIED
    again = handle_message(settings(), raw)
    assert again.status == handle.APPLIED and "played already" in again.detail
    assert _game(game.id).ply == 1
    assert len(db.session.execute(select(Submission)).scalars().all()) == 1


def test_a_stale_reply_is_refused_with_the_reason(app: Flask) -> None:
    game = start()
    player, original = _turn_email(game)
    play(game, "1")
    play(game, "1")  # the game moved on from the ply the email was about
    outcome = handle_message(settings(), m.gmail(player, original, "3"))
    assert outcome.status == handle.REFUSED
    (answer,) = _answers(player)
    assert answer.subject.endswith("your reply was not played")
    assert "This move was for move 1; the game is at move 3." in _unfolded(answer.text)
    assert "  3\n" in answer.text  # what was read
    assert "It is your turn (move 3)" in answer.text
    assert answer.reply_to == links.reply_address(settings(), _game(game.id).seats[0], 2)
    assert _game(game.id).ply == 2


def test_an_illegal_move_is_refused_with_the_engines_message(app: Flask) -> None:
    game = start()
    player, original = _turn_email(game)
    outcome = handle_message(settings(), m.apple_mail(player, original, "7"))
    assert outcome.status == handle.REFUSED
    (answer,) = _answers(player)
    assert "'7': take 1 to 3 counters" in _unfolded(answer.text)
    # Still their turn: the answer's own Reply-To takes the next try.
    assert answer.reply_to == original.reply_to
    retry = m.Original(answer.reply_to, answer.subject, answer.message_id, answer.text)
    assert handle_message(settings(), m.gmail(player, retry, "3")).status == handle.APPLIED


def test_two_actions_of_one_turn_in_one_reply(app: Flask) -> None:
    game = start(options={"pile": 10, "actions": 2})
    player, original = _turn_email(game)
    outcome = handle_message(settings(), m.thunderbird(player, original, "1\n2"))
    assert outcome.status == handle.APPLIED, outcome.line()
    after = _game(game.id)
    assert (
        after.ply == 2
        and after.state["pile"] == 7
        and after.seats[after.to_move].player.email != player
    )
    (answer,) = _answers(player)
    assert answer.subject.endswith("your moves were played")
    assert f"{_name(game, player)} took 1, leaving 9" in answer.text
    assert f"{_name(game, player)} took 2, leaving 7" in answer.text


def test_one_action_then_the_second_by_replying_to_the_answer(app: Flask) -> None:
    game = start(options={"pile": 10, "actions": 2})
    player, original = _turn_email(game)
    assert handle_message(settings(), m.gmail(player, original, "1")).status == handle.APPLIED
    (answer,) = _answers(player)
    assert "It is your turn (move 1)" in answer.text  # the turn's second action: still move 1
    assert "both actions" not in answer.text  # one action is left
    assert answer.reply_to is not None and answer.reply_to != original.reply_to
    second = m.Original(answer.reply_to, answer.subject, answer.message_id, answer.text)
    assert handle_message(settings(), m.gmail(player, second, "3")).status == handle.APPLIED
    assert _game(game.id).ply == 2


def test_lines_after_the_turn_ended_are_not_played(app: Flask) -> None:
    game = start(options={"pile": 10})
    player, original = _turn_email(game)
    outcome = handle_message(settings(), m.gmail(player, original, "1\n2"))
    assert outcome.status == handle.APPLIED and "not played" in outcome.detail
    assert _game(game.id).ply == 1
    (answer,) = _answers(player)
    assert "Your turn ended there, so these lines were not played:\n  2" in answer.text


def test_second_action_refused_after_the_first_is_played(app: Flask) -> None:
    game = start(options={"pile": 10, "actions": 2})
    player, original = _turn_email(game)
    outcome = handle_message(settings(), m.gmail(player, original, "1\nseven"))
    assert outcome.status == handle.APPLIED and "then refused" in outcome.detail
    (answer,) = _answers(player)
    assert answer.subject.endswith("part of your reply was played")
    assert "not a number of counters" in answer.text
    assert answer.reply_to is not None  # the second action is still to come


def test_moves_answers_with_the_legal_moves(app: Flask) -> None:
    game = start(options={"pile": 10})
    player, original = _turn_email(game)
    outcome = handle_message(settings(), m.outlook_html(player, original, "moves"))
    assert outcome.status == handle.ANSWERED
    (answer,) = _answers(player)
    assert answer.subject == f"[pbem] Countdown ({game.id}): your legal moves (move 1)"
    # Each move in words, as the game will record it, then what to reply.
    assert "Your legal moves (move 1), each as the game will record it:\n" in answer.text
    assert "  You took 1, leaving 9: 1\n  You took 2, leaving 8: 2\n" in answer.text
    # Each move in a <code> (however the template styles it).
    assert re.search(r"You took 3, leaving 7: <code[^>]*>3</code>", answer.html)
    assert _game(game.id).ply == 0
    # A turn of one action: the answer speaks of one move, never of a second action.
    assert "your move on the first line," in _unfolded(answer.text)
    assert "both actions" not in _unfolded(answer.text)


def test_the_answer_says_a_reply_may_carry_both_actions_of_a_turn_of_two(app: Flask) -> None:
    game = start(options={"pile": 10, "actions": 2})
    player, original = _turn_email(game)
    assert "(or both actions of\nyour turn, one a line)" in original.text
    outcome = handle_message(settings(), m.gmail(player, original, "moves"))
    assert outcome.status == handle.ANSWERED
    (answer,) = _answers(player)
    assert "(or both actions of your turn, one a line)" in _unfolded(answer.text)
    assert "(or both actions of your turn, one a line)" in answer.html


def test_resign_ends_the_game(app: Flask) -> None:
    game = start()
    player, original = _turn_email(game)
    outcome = handle_message(settings(), m.apple_mail(player, original, "resign"))
    assert outcome.status == handle.RESIGNED
    assert _game(game.id).status == FINISHED
    assert mails(to=player, kind="result") and not _answers(player)
    # Replying to the game over: refused, with the reason.
    outcome = handle_message(settings(), m.gmail(player, original, "2"))
    assert outcome.status == handle.REFUSED
    assert "The game is over" in _answers(player)[-1].text


def test_an_unreadable_reply_is_answered_with_what_was_read(app: Flask) -> None:
    game = start()
    player, original = _turn_email(game)
    outcome = handle_message(settings(), m.subject_only(player, original))
    assert outcome.status == handle.REFUSED
    (answer,) = _answers(player)
    unread = "could not read a move in it: there was no text above the quoted email"
    assert unread in _unfolded(answer.text)
    outcome = handle_message(settings(), m.gmail(player, original, "1\n1\n1\n1\n1"))
    assert outcome.status == handle.REFUSED
    assert "It read:\n  1\n  1" in _answers(player)[-1].text
    assert _game(game.id).ply == 0


def test_why_a_reply_was_unreadable_is_said_in_the_players_language(app: Flask) -> None:
    game = start()
    player, original = _turn_email(game)
    db.session.refresh(game)
    game.seats[game.to_move].player.language = "fr"
    db.session.commit()
    outcome = handle_message(settings(), m.gmail(player, original, "1\n" + "x" * 300))
    assert outcome.status == handle.REFUSED
    (answer,) = _answers(player)
    said = _unfolded(answer.text)
    assert "pbem n’a pas pu y lire de coup : une ligne dépasse 200 caractères." in said
    assert "longer than" not in said


@pytest.mark.parametrize(
    "robot",
    [
        lambda player, original: m.auto_reply(player, original),
        lambda player, original: m.vacation(player, original),
        lambda player, original: m.dsn(original),
        lambda player, original: m.bare_dsn_headers_only(original),
    ],
    ids=["auto-reply", "vacation", "dsn", "dsn-bare"],
)
def test_robots_are_never_played_nor_answered(
    app: Flask, robot: Callable[[str, m.Original], bytes]
) -> None:
    game = start()
    player, original = _turn_email(game)
    before = _outbox_count()
    outcome = handle_message(settings(), robot(player, original))
    assert outcome.status == handle.IGNORED
    assert _outbox_count() == before and _game(game.id).ply == 0
    assert db.session.execute(select(func.count(Submission.id))).scalar_one() == 0


def test_a_null_envelope_sender_is_a_bounce(app: Flask) -> None:
    game = start()
    player, original = _turn_email(game)
    outcome = handle_message(settings(), m.gmail(player, original, "2"), envelope_sender="<>")
    assert outcome.status == handle.IGNORED and _game(game.id).ply == 0


def test_another_sender_is_dropped_unanswered(app: Flask) -> None:
    game = start()
    player, original = _turn_email(game)
    before = _outbox_count()
    for sender in ("mallory@example.org", "", "pbem@pbem.test"):
        outcome = handle_message(settings(), m.gmail(sender, original, "2"))
        assert outcome.status in (handle.DROPPED, handle.IGNORED), sender
    assert _outbox_count() == before and _game(game.id).ply == 0
    # The From address in another case is the same player.
    assert handle_message(settings(), m.gmail(player.upper(), original, "2")).status == "applied"


def test_forged_and_withdrawn_addresses_are_dropped(app: Flask) -> None:
    game = start()
    player, original = _turn_email(game)
    token = original.reply_to.split("+")[1].split("@")[0]
    forged = token[:-1] + ("a" if token[-1] != "a" else "b")
    forgery = m.Original(original.reply_to.replace(token, forged))
    assert handle_message(settings(), m.gmail(player, forgery, "2")).status == handle.DROPPED
    rotation.rotate_seat_links(settings(), game.id, game.to_move, notify=False)
    db.session.commit()
    assert handle_message(settings(), m.gmail(player, original, "2")).status == handle.DROPPED
    assert _game(game.id).ply == 0 and not _answers(player)


def test_the_address_is_found_in_the_envelope_or_delivery_headers(app: Flask) -> None:
    game = start()
    player, original = _turn_email(game)
    # The player wrote to pbem@ (the To lost), but the MTA says where it was delivered.
    elsewhere = m.Original("pbem@pbem.test", original.subject, original.message_id, original.text)
    raw = m.gmail(player, elsewhere, "1")
    assert handle_message(settings(), raw).status == handle.DROPPED
    assert handle_message(settings(), raw, [original.reply_to.upper()]).status == handle.APPLIED
    player2, second = _turn_email(_game(game.id))
    raw = b"Delivered-To: " + second.reply_to.encode() + b"\r\n" + m.gmail(player2, elsewhere, "1")
    assert handle_message(settings(), raw).status == handle.APPLIED
    assert _game(game.id).ply == 2


def test_a_control_character_in_a_move_is_unreadable(app: Flask) -> None:
    game = start()
    player, original = _turn_email(game)
    outcome = handle_message(settings(), m.gmail(player, original, "2\x00"))
    assert outcome.status == handle.REFUSED and "control character" in outcome.detail
    assert _game(game.id).ply == 0


def test_on_postgresql(pg_app: Flask) -> None:
    game = start(options={"pile": 10, "actions": 2})
    player, original = _turn_email(game)
    assert handle_message(settings(), m.vacation(player, original)).status == handle.IGNORED
    outcome = handle_message(settings(), m.gmail(player, original, "1\x00"))
    assert outcome.status == handle.REFUSED  # never sent to the database
    outcome = handle_message(settings(), m.outlook_html(player, original, "1\n2"))
    assert outcome.status == handle.APPLIED, outcome.line()
    assert _game(game.id).ply == 2
    outcome = handle_message(settings(), m.gmail(player, original, "3"))
    assert outcome.status == handle.REFUSED and "the game is at move 3" in outcome.detail
    assert [a.subject.rsplit(": ", 1)[1] for a in _answers(player)] == [
        "your reply was not played",
        "your moves were played",
        "your reply was not played",
    ]


def test_answers_to_one_seat_are_bounded(app: Flask) -> None:
    game = start()
    player, original = _turn_email(game)
    raw = m.subject_only(player, original)
    outcomes = [handle_message(settings(), raw) for _ in range(handle.ANSWERS_PER_HOUR + 2)]
    assert all(outcome.status == handle.REFUSED for outcome in outcomes)
    assert [bool(o.outbox_ids) for o in outcomes][-3:] == [True, False, False]
    assert len(_answers(player)) == handle.ANSWERS_PER_HOUR
