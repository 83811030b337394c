"""The outbox: the one writer of its rows, the threading of a game's mail, and the templates every
kind of mail is made of (`templates/mail/<kind>.subject`, `.txt`, `.html`)."""

from __future__ import annotations

import itertools
from dataclasses import replace
from datetime import datetime

from flask import Flask
from sqlalchemy import func, select

from pbem import resources
from pbem.domain import dashboard, letters, outbox, player_letters, rotation, starting, views
from pbem.domain.move_groups import MoveGroup
from pbem.domain.outbox import Letter, write_letters
from pbem.domain.views import GameFacts, SeatInfo
from pbem.extensions import db, settings
from pbem.models import FINISHED, Game, OutboxMessage
from tests.domain.flow import EMAILS, mails, play, start

# --- threading -----------------------------------------------------------------------------------


def test_emails_of_a_game_thread_together(app: Flask) -> None:
    game = start(options={"pile": 5})
    play(game, "1")
    play(game, "1")
    for address in EMAILS:
        rows = mails(to=address)
        assert len(rows) >= 2
        root = game.thread_message_id
        assert rows[0].references == root
        for previous, row in itertools.pairwise(rows):
            assert row.in_reply_to == previous.message_id
            assert row.references == f"{root} {previous.message_id}"
    assert len({m.message_id for m in mails()}) == len(mails())


# --- the one writer ------------------------------------------------------------------------------


def _note(to: str, game: Game | None) -> Letter:
    """A letter whose templates need nothing of its game (the sign-in mail's)."""
    return Letter(to, "signin", game, {"link": "http://pbem.test/me/x", "minutes": 15})


def test_no_letters_write_no_rows(app: Flask) -> None:
    assert write_letters(db.session.connection(), settings(), []) == []
    assert db.session.execute(select(func.count(OutboxMessage.id))).scalar() == 0


def test_letters_thread_after_what_each_address_last_got_in_each_game(app: Flask) -> None:
    config = settings()
    first = db.session.get(Game, starting.create_game(config, "countdown", {}, EMAILS).game_id)
    second = db.session.get(Game, starting.create_game(config, "countdown", {}, EMAILS).game_id)
    assert first is not None and second is not None
    alice, bob = EMAILS
    invited = {(m.game_id, m.to): m.message_id for m in mails(kind="invite")}
    # Without `previous`, the writer reads each game's last Message-IDs itself.
    ids = write_letters(
        db.session.connection(),
        config,
        [_note(alice, first), _note(alice, first), _note(bob, second)],
    )
    db.session.commit()
    one, two, three = (db.session.get(OutboxMessage, i) for i in ids)
    assert one is not None and two is not None and three is not None
    assert (one.game_id, two.game_id, three.game_id) == (first.id, first.id, second.id)
    assert one.in_reply_to == invited[first.id, alice]
    assert one.references == f"{first.thread_message_id} {invited[first.id, alice]}"
    assert two.in_reply_to == one.message_id  # two letters in one call chain to each other
    assert two.references == f"{first.thread_message_id} {one.message_id}"
    assert three.in_reply_to == invited[second.id, bob]
    assert all(row.status == "pending" and row.attempts == 0 for row in (one, two, three))


def test_given_previous_ids_are_followed_and_updated(app: Flask) -> None:
    config = settings()
    game = db.session.get(Game, starting.create_game(config, "countdown", {}, EMAILS).game_id)
    assert game is not None
    # An empty map says "nothing before": the game's root heads the chain.
    previous: dict[str, dict[str, str]] = {}
    (row_id,) = write_letters(db.session.connection(), config, [_note(EMAILS[0], game)], previous)
    db.session.commit()
    row = db.session.get(OutboxMessage, row_id)
    assert row is not None
    assert row.in_reply_to == row.references == game.thread_message_id
    assert previous == {game.id: {EMAILS[0]: row.message_id}}


def test_a_letter_about_no_game_starts_no_thread(app: Flask) -> None:
    (row_id,) = write_letters(db.session.connection(), settings(), [_note(EMAILS[0], None)])
    db.session.commit()
    row = db.session.get(OutboxMessage, row_id)
    assert row is not None and row.game_id is None and row.kind == "signin"
    assert row.in_reply_to is None and row.references is None
    assert row.message_id.endswith("@pbem.test>")
    assert row.subject == "[pbem] your games"
    assert "http://pbem.test/me/x" in row.text and 'href="http://pbem.test/me/x"' in row.html


# --- the templates -------------------------------------------------------------------------------


def _one_letter_of_each_kind(game: Game) -> dict[str, list[Letter]]:
    """Every kind of letter pbem writes, its variants too, about a running game of Countdown."""
    config = settings()
    seats = [SeatInfo.of(seat) for seat in game.seats]
    who = views.names(game)
    state = views.load_state(game)
    assert state is not None
    facts = GameFacts.of(game)
    ended = state
    while ended.outcome is None:
        ended = ended.play(ended.legal_moves()[-1])
    over = replace(facts, status=FINISHED, ply=len(ended.history), to_move=None)
    recent = [(ply, who[ply % 2], move) for ply, move in enumerate(ended.history)]
    seat = seats[0]
    deadline = datetime(2026, 12, 3, 18, 0)
    return {
        "invite": [letters.invitation(config, game, seat, creator=who[1], names=who)],
        "confirm": [letters.confirmation(config, game, seat, names=who)],
        "started": [letters.started(config, facts, seat, state, who)],
        "turn": [
            letters.turn(config, facts, seat, state, who, []),
            letters.turn(config, facts, seat, state, who, recent[:1], again=True),
        ],
        "result": letters.results(config, over, seats, ended, who, recent),
        "links": [
            letters.new_links(config, game, seat, invited=True),
            letters.new_links(config, game, seat, invited=False),
        ],
        "signin": [
            player_letters.signin(
                config, seat.email, "http://pbem.test/signin/token", seat.player_id
            )
        ],
        "signedout": [player_letters.new_player_link(config, game.seats[0].player)],
        "erase": [
            player_letters.erase_request(config, game.seats[0].player, 2, 1),
            player_letters.erase_request(config, game.seats[0].player, 0, 0),
        ],
        "undeliverable": [
            letters.undeliverable(
                config, facts, seat.player_id, seat.email, seat.player_nonce, who[1], "550 no"
            )
        ],
        "reminder": [letters.reminder(config, facts, seat, who, deadline, 2.0)],
        "left": [
            letters.left(config, facts, seat, state, who, 1, "timeout"),
            letters.left(config, facts, seat, state, who, 0, "resigned"),
        ],
        "autopilot": [
            letters.autopilot(config, facts, seat, state, who, 0),
            letters.autopilot(config, facts, seat, state, who, 1),
        ],
        "draw_offer": [letters.draw(config, facts, seat, who, 1, "draw_offer")],
        "draw_declined": [letters.draw(config, facts, seat, who, 1, "draw_declined")],
        "cancel_offer": [letters.cancel_offer(config, facts, seat, who, 1, "cancel_offer")],
        "cancel_declined": [letters.cancel_offer(config, facts, seat, who, 1, "cancel_declined")],
        "cancelled": [
            letters.cancelled(config, facts, seat, who, by_organiser=True),
            letters.cancelled(config, facts, seat, who, by_organiser=False),
            letters.cancelled(config, facts, seat, who, by_organiser=False, agreed=True),
        ],
        "expired": [letters.expired(config, facts, seat, [who[1]], deadline)],
        "digest": [letters.digest(config, game.seats[0].player, [game], hour=7)],
        "bounced": [
            letters.bounced(
                config, game.seats[0].player, game.seats[1].player, "550 5.1.1 no user", [game]
            )
        ],
        "reply": [
            letters.reply(config, facts, seat, played=[f"{who[0]} took 2, leaving 3"]),
            letters.reply(config, facts, seat, refused="This move was for move 1.", sent=["2"]),
            letters.reply(config, facts, seat, ["a"], "b", ["c"], unplayed=["d"]),
            letters.reply(
                config, facts, seat, legal=[MoveGroup("You took 1", ["1"])], more_legal=2
            ),
        ],
    }


def test_every_kind_of_mail_has_its_three_templates_and_renders(app: Flask) -> None:
    folder = resources.templates_dir() / "mail"
    kinds = {path.stem for path in folder.iterdir() if not path.name.startswith("_")}
    written = _one_letter_of_each_kind(start(options={"pile": 5}))
    assert kinds == set(written)  # no template without a letter, no letter without templates
    for kind, variants in written.items():
        for extension in ("subject", "txt", "html"):
            assert (folder / f"{kind}.{extension}").is_file(), f"{kind}.{extension} is missing"
        for letter in variants:
            assert letter.kind == kind
            subject, text, html = outbox.render(kind, letter.context)
            assert subject.startswith("[pbem] ") and "\n" not in subject and "  " not in subject
            assert "{{" not in subject and "{{" not in text and "{{" not in html
            assert text.strip() and html.strip()
            # Every letter links somewhere: its game, or (a cancelled game) the player's games.
            link = letter.context.get("link") or letter.context["games_link"]
            assert link in text
            assert f'href="{link}"' in html
            if letter.game is not None:
                assert letter.game.id in subject
            # Greeted by name (or just "Hello,"), never by the address.
            assert letter.to not in text.splitlines()[0] and text.startswith("Hello")


def test_subjects_say_the_game_and_what_happened(app: Flask) -> None:
    config = settings()
    game = start(options={"pile": 5})
    title = f"[pbem] Countdown ({game.id})"
    play(game, "2")
    play(game, "3")
    rotation.rotate_seat_links(config, game.id, 0)
    dashboard.request_signin(config, EMAILS[1])
    db.session.commit()
    assert {m.kind: m.subject for m in mails()} == {
        "invite": f"{title}: you are invited to a game",
        "started": f"{title}: the game has started",
        "turn": f"{title}: your turn (move 2)",
        "result": f"{title}: the game is over",
        "links": f"{title}: your new link",
        "signin": "[pbem] your games",
    }
    assert [m.subject for m in mails(kind="turn")] == [
        f"{title}: your turn (move 1)",
        f"{title}: your turn (move 2)",
    ]
