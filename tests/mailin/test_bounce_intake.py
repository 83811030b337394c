"""Delivery reports arriving at a message's bounce address (`bounce+<token>@`, VERP), end to end
in-process: a game's email to Bob comes back as Postfix, Exim, Gmail or Microsoft reports it;
Bob is marked as bouncing, the organiser is told once, nothing is ever answered, and Bob's
sign-in starts his mail again."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from flask import Flask
from sqlalchemy import func, select

from pbem import links
from pbem.domain import access, dashboard
from pbem.extensions import db, settings
from pbem.mailin import handle
from pbem.mailin.handle import handle_message
from pbem.models import SENT, Game, OutboxMessage, Player
from tests.domain.flow import EMAILS, mails, play, start
from tests.mailin import dsns
from tests.mailin import messages as m

ALICE, BOB = EMAILS  # Alice started the game


def _returned(to: str = BOB) -> dsns.Returned:
    """The last email `to` got, as the server that refused it reports it."""
    row = mails(to=to)[-1]
    return dsns.Returned(links.bounce_address(settings(), row.id), to, row.subject, row.message_id)


def _player(email: str) -> Player:
    db.session.expire_all()
    return db.session.execute(select(Player).where(Player.email == email)).scalar_one()


def _rows() -> int:
    return int(db.session.execute(select(func.count(OutboxMessage.id))).scalar_one())


Report = Callable[[dsns.Returned], tuple[bytes, list[str]]]
# Each server's report, and the envelope recipients the MTA's pipe hands over (none: the
# address is found in the headers the receiving MTA added, or in To).
SERVERS: list[tuple[str, Report]] = [
    ("postfix", lambda r: (dsns.postfix(r, delivered_to=False), [r.bounce_to])),
    ("exim", lambda r: (dsns.exim(r), [r.bounce_to.upper()])),
    ("gmail", lambda r: (dsns.gmail(r), [])),
    ("microsoft", lambda r: (dsns.microsoft(r), [])),
]


@pytest.mark.parametrize(("server", "report"), SERVERS, ids=[s for s, _ in SERVERS])
def test_a_permanent_failure_marks_the_address_and_tells_the_organiser(
    app: Flask, server: str, report: Report
) -> None:
    game = start()
    returned = _returned()
    raw, recipients = report(returned)
    before = _rows()
    outcome = handle_message(settings(), raw, recipients, envelope_sender="")
    assert outcome.status == handle.BOUNCED, outcome.line()
    bob = _player(BOB)
    assert bob.bounced_at is not None and bob.bounce_reason
    assert bob.bounce_reason.startswith("550 5.")
    # One letter, to the organiser, sent at once; nothing answered to the report's sender.
    (letter,) = mails(kind="bounced")
    assert _rows() == before + 1 and list(outcome.outbox_ids) == [letter.id]
    assert letter.to == ALICE and letter.game_id == game.id and letter.status == SENT
    assert "their clock still runs" in letter.text and "sign in" in letter.text
    assert BOB not in letter.text + letter.html + letter.subject  # only the owner sees it


def test_the_same_report_twice_tells_the_organiser_once(app: Flask) -> None:
    start()
    raw = dsns.postfix(_returned())
    first = handle_message(settings(), raw)
    reason = _player(BOB).bounce_reason
    again = handle_message(settings(), dsns.exim(_returned()))
    assert first.status == again.status == handle.BOUNCED
    assert again.outbox_ids == () and len(mails(kind="bounced")) == 1
    assert _player(BOB).bounce_reason == reason  # the first bounce wins


@pytest.mark.parametrize(
    "report",
    [
        lambda r: dsns.postfix(r, "delayed", "4.4.1", "smtp; 451 4.4.1 Connection timed out"),
        lambda r: dsns.gmail(r, delayed=True),
        lambda r: dsns.postfix(r, "failed", "4.4.7", "X-Postfix; delivery temporarily suspended"),
    ],
    ids=["postfix-delayed", "gmail-delayed", "failed-4xx"],
)
def test_a_delay_records_nothing(app: Flask, report: Callable[[dsns.Returned], bytes]) -> None:
    start()
    before = _rows()
    outcome = handle_message(settings(), report(_returned()))
    assert outcome.status == handle.IGNORED and "nothing recorded" in outcome.detail
    assert _player(BOB).bounced_at is None and _rows() == before


def test_a_forged_bounce_address_is_ignored(app: Flask) -> None:
    start()
    returned = _returned()
    token = returned.bounce_to.split("+")[1].split("@")[0]
    forged = token[:-1] + ("a" if token[-1] != "a" else "b")
    outcome = handle_message(
        settings(), dsns.postfix(dsns.Returned(returned.bounce_to.replace(token, forged), BOB))
    )
    assert outcome.status == handle.DROPPED
    assert _player(BOB).bounced_at is None and not mails(kind="bounced")


@pytest.mark.parametrize("robot", [m.auto_reply, m.vacation], ids=["auto-reply", "vacation"])
def test_other_mail_to_a_bounce_address_is_dropped_unanswered(
    app: Flask, robot: Callable[[str, m.Original], bytes]
) -> None:
    start()
    before = _rows()
    # Auto-responders answer the envelope sender (RFC 3834): the bounce address.
    outcome = handle_message(settings(), robot(BOB, m.Original(_returned().bounce_to)))
    assert outcome.status == handle.IGNORED and "no report" in outcome.detail
    assert _player(BOB).bounced_at is None and _rows() == before


def test_a_person_writing_to_a_bounce_address_is_not_answered(app: Flask) -> None:
    start()
    before = _rows()
    raw = m.gmail(BOB, m.Original(_returned().bounce_to), "2")
    assert handle_message(settings(), raw).status == handle.IGNORED
    assert _rows() == before


def _bob_to_move(game_id: str) -> bool:
    db.session.expire_all()
    game = db.session.get(Game, game_id)
    assert game is not None and game.to_move is not None
    return game.seats[game.to_move].player.email == BOB


def test_no_game_mail_goes_to_a_bouncing_address_until_it_signs_in(app: Flask) -> None:
    config = settings()
    game = start(options={"pile": 21})
    handle_message(config, dsns.postfix(_returned()))
    before = len(mails(to=BOB))
    for _ in range(4):  # two turns of Bob's among them
        play(game, "1")
    assert len(mails(to=BOB)) == before  # neither turn emails nor anything else
    assert len(mails(to=ALICE, kind="turn")) >= 2  # the others' mail goes on
    turns = len(mails(to=BOB, kind="turn"))
    # A sign-in link still goes, and using it proves the address works.
    dashboard.request_signin(config, BOB)
    (signin,) = mails(to=BOB, kind="signin")
    access.use_signin(config, signin.text.split("/signin/")[1].split()[0])
    bob = _player(BOB)
    assert bob.bounced_at is None and bob.bounce_reason is None
    if _bob_to_move(game.id):
        play(game, "1")
    play(game, "1")  # Alice's move: Bob's turn, by mail again
    assert _bob_to_move(game.id) and len(mails(to=BOB, kind="turn")) == turns + 1


def test_a_report_about_a_message_to_nobody_known_marks_nothing(app: Flask) -> None:
    start()
    db.session.add(
        OutboxMessage(
            kind="signin",
            to="stranger@example.org",
            subject="s",
            text="t",
            html="h",
            message_id="<x.1@pbem.test>",
        )
    )
    db.session.commit()
    returned = _returned("stranger@example.org")
    outcome = handle_message(settings(), dsns.postfix(returned))
    assert outcome.status == handle.BOUNCED and outcome.outbox_ids == ()
    assert not mails(kind="bounced")
