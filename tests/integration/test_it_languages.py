"""A whole game of each engine in French, Dutch and Danish through the real stack (issue 34):
made in that language on the start form, played by players whose browsers ask for it, the first
moves by replies to the turn emails (delivered by `pbem mail-in`, as an MTA's pipe does), the
rest by the emailed links; every email of the game in the language and saying so."""

from __future__ import annotations

import random

import pytest

from tests.mailin.messages import Original, gmail
from tests.support.flow import GameFlow, token_of
from tests.support.procs import wait_until
from tests.support.smtp import Received
from tests.support.stack import Stack

pytestmark = [pytest.mark.integration, pytest.mark.audit, pytest.mark.timeout(1500)]

ENGINES = [
    ("gorami", {"board": 16}),
    ("mmw", {}),
    ("marram", {"variant": "classic", "length": "short"}),
]
# The first plies of each game are played by reply, the rest through the emailed link.
BY_REPLY = 4
MOST_PLIES = 1500


def _latest(flow: GameFlow, email: str) -> Received:
    """The newest mail of the game to `email` that one can reply to with a move."""
    mails = [m for m in flow.mails(to=email) if m["Reply-To"] and "/play/" in m.text]
    assert mails, f"no turn email for {email}"
    return mails[-1]


def _reply(stack: Stack, email: str, mail: Received, move: str) -> str:
    original = Original(mail["Reply-To"], mail.subject, mail.message_id, mail.text)
    return stack.mail_in(gmail(email, original, move))


@pytest.mark.parametrize("language", ["fr", "nl", "da"])
@pytest.mark.parametrize(("engine", "options"), ENGINES)
def test_a_whole_game_in_each_language(
    stack: Stack, language: str, engine: str, options: dict[str, str]
) -> None:
    flow = GameFlow(stack.http, stack.smtp, engine, options, language=language).start()
    seats = {seat: email for seat, (email, _) in flow.seats().items()}
    rng = random.Random(f"{engine}-{language}")
    replied = 0
    for ply in range(MOST_PLIES):
        status, at, to_move = stack.db.query(
            "select status, ply, to_move from games where id = %s", flow.game_id
        )[0]
        if status != "running":
            break
        assert at == ply
        email = seats[to_move]
        mail = _latest(flow, email)
        link = mail.link("/play/")
        assert link is not None
        move = rng.choice(flow.legal(token_of(link))["moves"])
        if ply < BY_REPLY:
            _reply(stack, email, mail, move)
            replied += 1
        else:
            response = flow.post_move(link, move, ply)
            assert response.status == 200 and "/submission/" in response.url, response
        wait_until(
            lambda p=ply: stack.db.scalar("select ply from games where id = %s", flow.game_id) > p,
            timeout=flow.timeout,
            message=f"{engine} ({language}) move {ply + 1} to be applied",
        )
    assert stack.db.scalar("select status from games where id = %s", flow.game_id) == "finished"
    over = flow.said("the game is over")
    flow.wait_mail(lambda m: over in m.subject, count=len(seats), what="the result emails")

    # Every email of the game is in its language and says so; the replies were answered.
    mails = flow.mails()
    assert [m.subject for m in mails if m["Content-Language"] != language] == []
    assert all(f'<html lang="{language}"' in m.html for m in mails)
    answered = flow.said("your move was played")
    assert len([m for m in mails if m.subject.endswith(answered)]) == replied
    assert any(flow.said("your turn (move %(n)s)", n=2) in m.subject for m in mails)
    # The players took the language of the pages they acted on; nothing was refused.
    languages = stack.db.query(
        "select distinct p.language from players p join seats s on s.player_id = p.id "
        "where s.game_id = %s",
        flow.game_id,
    )
    assert languages == [(language,)]
    applied = stack.db.query(
        "select status, count(*) from submissions where game_id = %s group by status",
        flow.game_id,
    )
    assert [status for status, _ in applied] == ["applied"]
