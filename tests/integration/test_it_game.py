"""A whole game through the real stack: web form, invitations, moves from emailed links, results."""

from __future__ import annotations

import random
from collections.abc import Iterator

import pytest

from tests.support.flow import GameFlow, token_of
from tests.support.lines import line
from tests.support.procs import wait_until
from tests.support.smtp import Received
from tests.support.stack import Stack

pytestmark = [pytest.mark.integration, pytest.mark.timeout(600)]


@pytest.fixture(scope="module")
def finished(stack_session: Stack) -> Iterator[tuple[GameFlow, list[Received]]]:
    """One GORami (board 16) game played to the end over HTTP, shared by the checks below."""
    stack_session.start()
    flow = GameFlow(stack_session.http, stack_session.smtp, "gorami", {"board": 16})
    flow.create()
    flow.accept_all()
    results = flow.play_to_end(flow.follow(line("gorami", {"board": 16})))
    yield flow, results


def test_a_game_is_played_to_the_end_through_http_and_email(
    stack: Stack, finished: tuple[GameFlow, list[Received]]
) -> None:
    flow, results = finished
    assert sorted(r.to for r in results) == sorted(flow.emails)
    game = stack.db.query(
        "select status, ply, outcome is not null from games where id = %s", flow.game_id
    )
    expected = line("gorami", {"board": 16})
    assert game == [("finished", len(expected), True)]
    moves = stack.db.query(
        "select ply, move from moves where game_id = %s order by ply", flow.game_id
    )
    assert moves == list(enumerate(expected))
    statuses = stack.db.query(
        "select status, count(*) from submissions where game_id = %s group by status", flow.game_id
    )
    assert statuses == [("applied", len(expected))]
    # Every player's result email names the outcome and links to the final board.
    for result in results:
        assert "over" in result.text.lower()
        link = result.link("/play/")
        assert link is not None
        page = stack.http.get(link)
        assert page.status == 200 and 'id="move-form"' not in page.text


def test_every_outbox_row_is_delivered_exactly_once(
    stack: Stack, finished: tuple[GameFlow, list[Received]]
) -> None:
    flow, _ = finished
    rows = stack.db.query(
        "select message_id, status, kind from outbox where game_id = %s", flow.game_id
    )
    assert rows and all(status == "sent" for _, status, _ in rows), rows
    at_sink = [m.message_id for m in flow.mails()]
    assert sorted(at_sink) == sorted(mid for mid, _, _ in rows)
    kinds = sorted(kind for _, _, kind in rows)
    plies = len(line("gorami", {"board": 16}))
    # The organiser's confirmation and the other's invitation, the first turn and "started",
    # one turn email per later move, two results.
    assert kinds.count("confirm") == 1 and kinds.count("invite") == 1
    assert kinds.count("result") == 2
    assert kinds.count("turn") == plies and kinds.count("started") == 1


def test_emails_of_a_game_thread_together(
    stack: Stack, finished: tuple[GameFlow, list[Received]]
) -> None:
    flow, _ = finished
    root = stack.db.scalar("select thread_message_id from games where id = %s", flow.game_id)
    assert root
    for email in flow.emails:
        mails = flow.mails(to=email)
        assert len(mails) >= 3
        ordered = sorted(mails, key=lambda m: int(_outbox_id(stack, m.message_id)))
        previous = None
        for mail in ordered:
            references = mail["References"].split()
            assert references[0] == root, mail.subject
            if previous is None:
                assert mail["In-Reply-To"] == root
            else:
                assert mail["In-Reply-To"] == previous.message_id
                assert previous.message_id in references
            assert mail.message_id not in references
            previous = mail


def test_the_api_tells_the_same_story(
    stack: Stack, finished: tuple[GameFlow, list[Received]]
) -> None:
    flow, results = finished
    token = token_of(results[0].link("/play/") or "")
    game = stack.http.get(f"/api/games/{flow.game_id}", token=token).json()
    assert game["status"] == "finished" and game["to_move"] is None
    history = stack.http.get(f"/api/games/{flow.game_id}/history", token=token).json()
    assert [m["move"] for m in history["moves"]] == line("gorami", {"board": 16})
    legal = stack.http.get(f"/api/games/{flow.game_id}/legal", token=token).json()
    assert legal["moves"] == [] and not legal["your_turn"]
    late = stack.http.post_json(
        f"/api/games/{flow.game_id}/moves", {"move": "1a1", "ply": game["ply"]}, token=token
    )
    assert late.status == 409 and late.json()["error"] == "game_over"


def test_opening_links_changes_nothing(stack: Stack) -> None:
    """Mail scanners GET every link: invitations stay open until someone POSTs."""
    flow = GameFlow(stack.http, stack.smtp, "mmw", {})
    flow.create()
    # The organiser's confirmation, opened again and again, confirms nothing.
    link = flow.invitation(flow.emails[0]).link("/invite/")
    assert link
    for _ in range(3):
        assert stack.http.get(link).status == 200
    accepted = stack.db.scalar(
        "select count(*) from seats where game_id = %s and accepted_at is not null", flow.game_id
    )
    confirmed = stack.db.scalar(
        "select count(*) from games where id = %s and confirmed_at is not null", flow.game_id
    )
    assert accepted == 0 and confirmed == 0
    flow.accept_all()
    first = flow.turn_mail(0)
    link = first.link("/play/")
    assert link
    for _ in range(3):
        assert stack.http.get(link).status == 200
    assert stack.db.scalar("select count(*) from submissions where game_id = %s", flow.game_id) == 0


@pytest.mark.audit
def test_a_player_who_moves_again_after_a_skip_gets_an_email(stack: Stack) -> None:
    """GORami skips a player who cannot place: the other moves again and must be emailed.

    The service writes a turn email only when the seat to move changes (meant for Marram's two
    actions per turn), so after a skip nobody is told it is their turn and the game stalls.
    """
    moves = line("gorami", {"board": 16}, repeat_turn=True)
    flow = GameFlow(stack.http, stack.smtp, "gorami", {"board": 16}).start()
    tokens = flow.seat_tokens()
    for ply, move in enumerate(moves):
        to_move = flow.http.get(f"/api/games/{flow.game_id}", token=tokens[0]).json()["to_move"]
        assert flow.api_move(tokens[to_move], move, ply).status == 202
        wait_until(
            lambda p=ply: (
                stack.db.scalar("select ply from games where id = %s", flow.game_id) == p + 1
            ),
            message=f"move {ply + 1} to be applied",
        )
    subjects = [
        row[0]
        for row in stack.db.query(
            "select subject from outbox where game_id = %s and kind = 'turn'", flow.game_id
        )
    ]
    missing = [n for n in range(1, len(moves) + 1) if not any(f"(move {n})" in s for s in subjects)]
    assert not missing, f"no turn email for move(s) {missing} of {moves}"


def _outbox_id(stack: Stack, message_id: str) -> int:
    value = stack.db.scalar("select id from outbox where message_id = %s", message_id)
    assert value is not None, message_id
    return int(value)


def test_refusals_change_nothing_and_say_why(stack: Stack) -> None:
    """Stale ply, other seat's token, forged token and an illegal move, through gunicorn."""
    flow = GameFlow(stack.http, stack.smtp, "gorami", {"board": 16}).start()
    tokens = flow.seat_tokens()
    to_move = flow.legal(tokens[0])["to_move"]
    mover, other = tokens[to_move], tokens[1 - to_move]
    move = flow.legal(mover)["moves"][0]

    stale = flow.post_move(f"/play/{mover}", move, 5)
    assert stale.status == 409 and "move 6" in stale.text and "move 1" in stale.text
    not_yours = flow.api_move(other, move, 0)
    assert not_yours.status == 409 and not_yours.json()["error"] == "not_your_turn"
    forged = flow.api_move(mover[:-3] + "xyz", move, 0)
    assert forged.status == 403 and forged.json()["error"] == "bad_token"
    elsewhere = stack.http.post_json("/api/games/nosuchgame/moves", {"move": move, "ply": 0}, mover)
    assert elsewhere.status == 403
    illegal = flow.api_move(mover, "9z9", 0)
    assert illegal.status == 422 and "9z9" in illegal.json()["message"]
    page = flow.post_move(f"/play/{mover}", "9z9", 0)
    assert page.status == 422 and "9z9" in page.text

    assert stack.db.scalar("select count(*) from submissions where game_id = %s", flow.game_id) == 0
    assert stack.db.scalar("select ply from games where id = %s", flow.game_id) == 0


@pytest.mark.audit
@pytest.mark.parametrize(
    ("engine", "options", "players"),
    [
        ("gorami", {"board": 24}, 2),
        ("mmw", {}, 2),
        ("marram", {"variant": "pitchfork", "length": "short"}, 3),
    ],
)
def test_every_engine_plays_through_the_stack(
    stack: Stack, engine: str, options: dict[str, str], players: int
) -> None:
    """A few moves of each registered engine: JSON state in PostgreSQL, turns by email."""
    flow = GameFlow(stack.http, stack.smtp, engine, options, players=players).start()
    tokens = flow.seat_tokens()
    rng = random.Random(engine)
    turn_mails = 1
    for ply in range(6):
        game = stack.http.get(f"/api/games/{flow.game_id}", token=tokens[0]).json()
        if game["status"] != "running":
            break
        before = game["to_move"]
        move = rng.choice(flow.legal(tokens[before])["moves"])
        assert flow.api_move(tokens[before], move, ply).status == 202
        wait_until(
            lambda p=ply: (
                stack.db.scalar("select ply from games where id = %s", flow.game_id) == p + 1
            ),
            message=f"{engine} move {ply + 1} to be applied",
        )
        after = stack.http.get(f"/api/games/{flow.game_id}", token=tokens[0]).json()
        if after["to_move"] is not None and after["to_move"] != before:
            turn_mails += 1
            # Turn emails count turns, not plies (a Marram turn is two): this is turn turn_mails.
            flow.turn_mail(turn_mails - 1)
    history = stack.http.get(f"/api/games/{flow.game_id}/history", token=tokens[0]).json()
    assert [m["ply"] for m in history["moves"]] == list(range(history["ply"]))
    assert len(flow.mails("your turn")) >= turn_mails
