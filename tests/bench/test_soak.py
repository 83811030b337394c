"""The chaos soak's verdict (bench/soak.py), from records made up here: no stack, no clock."""

from __future__ import annotations

import asyncio
import smtplib
from collections import Counter
from typing import Any

import pytest

from bench.smtp_sink import Sink
from bench.soak import (
    Fault,
    Probe,
    StoredGame,
    emails_verdict,
    fault_at,
    faults_verdict,
    findings,
    game_problems,
    grouped,
    moves_verdict,
    observe,
    outage_answers,
    schedule,
    server_errors_verdict,
    stalled,
    unexplained_red,
    verdict,
)
from pbem import games

# Times are seconds from an arbitrary origin: nothing here reads the clock.
T0 = 1_000.0


def fault(
    key: str, start: float, back: float, sees: bool = True, green: float | None = None
) -> Fault:
    return Fault(key, key, sees, 10.0, started_at=T0 + start, back_at=T0 + back, green_at=green)


def probes(*answers: tuple[float, int]) -> list[Probe]:
    return [Probe(T0 + at, status, () if status == 200 else (f"p{at}",)) for at, status in answers]


def test_faults_are_spread_evenly_and_one_after_the_other_when_the_run_is_short() -> None:
    assert schedule([10, 20, 10], 200, lead=30, tail=30, min_gap=5) == [30, 90, 160]
    # 30 + 40 + 30 + 3 gaps of 5 s: longer than the run, so the gaps are the least allowed.
    assert schedule([10, 20, 10], 60, lead=30, tail=30, min_gap=5) == [30, 45, 70]
    assert schedule([10], 60, lead=5, tail=5, min_gap=5) == [5]
    assert schedule([], 60, lead=5, tail=5, min_gap=5) == []


def test_readyz_red_while_down_and_green_once_back() -> None:
    f = fault("redis", start=10, back=20)
    observe(f, probes((9, 200), (11, 200), (12, 503), (19, 503), (21, 503), (23, 200), (30, 503)))
    assert f.red_at == T0 + 12
    assert f.green_at == T0 + 23
    assert f.red_problems == ["p12", "p19", "p21"]
    assert faults_verdict([f]) == []


def test_a_green_answer_before_the_part_is_back_is_not_green_after() -> None:
    f = fault("worker", start=10, back=20)
    observe(f, probes((11, 200), (15, 200)))
    assert f.red_at is None and f.green_at is None
    assert faults_verdict([f]) == [
        "worker: /readyz was never red while it was down",
        "worker: /readyz was not green again after it came back",
    ]


def test_red_is_not_required_of_a_part_readyz_does_not_watch() -> None:
    f = fault("smtp", start=10, back=70, sees=False)
    observe(f, probes((30, 200), (71, 200)))
    assert f.red_at is None and f.green_at == T0 + 71
    assert faults_verdict([f]) == []
    assert faults_verdict([Fault("beat", "beat", True, 1.0, note="stopped")]) == [
        "beat: the fault did not happen (stopped)"
    ]


def test_red_outside_every_fault_is_unexplained() -> None:
    faults = [fault("redis", 10, 20, green=T0 + 22), fault("postgres", 50, 60, green=None)]
    seen = probes((1, 503), (5, 503), (12, 503), (30, 0), (55, 503), (90, 503))
    # Before the service was ready (at 3) nothing counts; after an unfinished fault, all of it.
    assert [p.at - T0 for p in unexplained_red(seen, faults, since=T0 + 3)] == [5, 30]


def test_each_copy_of_an_email_belongs_to_the_last_fault_before_it() -> None:
    faults = [fault("worker", 10, 20), fault("redis", 40, 50)]
    assert fault_at(faults, T0 + 5) is None
    assert fault_at(faults, T0 + 10) is faults[0]
    assert fault_at(faults, T0 + 39) is faults[0]
    assert fault_at(faults, T0 + 400) is faults[1]


def test_a_move_is_lost_unless_stored_at_its_ply_and_stored_once() -> None:
    accepted = [
        (1, "g1", 0, "a1"),
        (2, "g1", 1, "b2"),
        # Sent again after the connection to a killed web worker was cut: the first copy (3) was
        # applied, this one (4) rejected as stale; the game has the move once.
        (4, "g1", 2, "c3"),
        (5, "g2", 0, "d4"),
        (6, "g2", 1, "e5"),
    ]
    moves = [
        ("g1", 0, "a1", 1),
        ("g1", 1, "b2", 2),
        ("g1", 2, "c3", 3),
        ("g2", 0, "x9", 7),
        ("g3", 0, "f6", 8),
        ("g3", 1, "g7", 8),
    ]
    found = moves_verdict(accepted, moves)
    assert found["lost"] == [
        "g2 ply 0: d4 (submission 5) stored as ['x9']",
        "g2 ply 1: e5 (submission 6) not stored",
    ]
    assert found["duplicated"] == ["submission 8 stored 2 times"]
    # A move still waiting for a worker is reported as pending, not as lost.
    assert moves_verdict(accepted, moves, pending=[6])["lost"] == [
        "g2 ply 0: d4 (submission 5) stored as ['x9']"
    ]


def test_emails_lost_written_twice_and_copies_by_fault() -> None:
    faults = [fault("worker", 10, 20), fault("smtp", 40, 100)]
    outbox = [
        ("<a@x>", "sent", "g1", "turn", "p@x", "your turn (move 1)"),
        ("<b@x>", "sent", "g1", "turn", "q@x", "your turn (move 2)"),
        ("<c@x>", "pending", "g1", "turn", "p@x", "your turn (move 3)"),
        ("<d@x>", "sent", "g2", "turn", "p@y", "your turn (move 1)"),
        # The same email in a second row: sent twice, under two Message-IDs.
        ("<e@x>", "sent", "g2", "turn", "p@y", "your turn (move 1)"),
    ]
    at_sink = Counter({"<a@x>": 2, "<b@x>": 3, "<d@x>": 1, "<e@x>": 1, "<z@x>": 1})
    repeats = [("<a@x>", T0 + 5), ("<b@x>", T0 + 15), ("<b@x>", T0 + 45)]
    found = emails_verdict(outbox, at_sink, repeats, faults)
    assert found["written"] == 5
    assert found["at_sink"] == 8
    assert found["not_sent"] == ["<c@x> (pending)"]
    assert found["lost"] == ["<c@x>"]
    assert found["unknown_at_sink"] == ["<z@x>"]
    assert found["written_twice"] == ["('g2', 'turn', 'p@y', 'your turn (move 1)')"]
    assert found["copies_by_fault"] == {"worker": 1, "smtp": 1}
    assert found["copies_unexplained"] == ["<a@x>"]


def test_only_a_503_with_retry_after_while_the_database_is_down_is_expected() -> None:
    faults = [fault("redis", 10, 20), fault("postgres", 40, 50), fault("smtp", 100, 160)]
    errors = [
        (T0 + 41, "POST", "/api/games/Ab3dEf6hIj9k/moves", 503, "5"),
        (T0 + 45, "GET", "/api/games/Ab3dEf6hIj9k/legal", 503, "5"),
        (T0 + 58, "POST", "/api/games/Zz3dEf6hIj9k/moves", 503, "5"),  # in flight as it came back
        (T0 + 46, "POST", "/invite/tok.en", 503, None),  # no Retry-After
        (T0 + 15, "POST", "/api/games/Ab3dEf6hIj9k/moves", 503, "5"),  # Redis was down
        (T0 + 120, "POST", "/", 500, None),
    ]
    found = server_errors_verdict(errors, faults)
    assert found["expected_503"] == {"POST /api/games/…/moves": 2, "GET /api/games/…/legal": 1}
    assert found["unexpected"] == [
        "503 (Retry-After None) to POST /invite/tok.en after the postgres fault",
        "503 (Retry-After 5) to POST /api/games/Ab3dEf6hIj9k/moves after the redis fault",
        "500 (Retry-After None) to POST / after the smtp fault",
    ]


def stored(moves: list[str], **changes: object) -> tuple[StoredGame, list[tuple[int, str]]]:
    """A GORami 16 game after `moves`, as the service would have stored it, then `changes`."""
    rules = games.get("gorami")
    state = rules.new(2, {"board": 16}, 7)
    for move in moves:
        state = state.play(move)
    fields: dict[str, object] = {
        "id": "g1",
        "engine": "gorami",
        "options": {"board": 16},
        "seed": 7,
        "seats": 2,
        "state": state.to_json(),
        "ply": len(moves),
        "status": "finished" if state.outcome else "running",
        "to_move": state.to_move,
        "events": 0,
    }
    fields.update(changes)
    return StoredGame(**fields), list(enumerate(moves))  # type: ignore[arg-type]


@pytest.fixture(scope="module")
def opening() -> list[str]:
    state = games.get("gorami").new(2, {"board": 16}, 7)
    moves = []
    for _ in range(6):
        move = state.legal_moves()[0]
        moves.append(move)
        state = state.play(move)
    return moves


def test_a_game_replays_to_what_is_stored(opening: list[str]) -> None:
    assert game_problems(*stored(opening)) == []
    assert game_problems(*stored([], state=None, status="inviting", to_move=None)) == []


def test_a_game_whose_record_disagrees_with_its_state_is_inconsistent(opening: list[str]) -> None:
    game, moves = stored(opening)
    assert game_problems(game, moves[:-1]) == [
        "g1: 5 moves stored, its ply is 6",
    ]
    assert game_problems(game, [moves[0], *moves[2:]]) == [
        "g1: its moves are at plies [0, 2, 3, 4, 5]…, not 0 to n-1",
        "g1: 5 moves stored, its ply is 6",
    ]
    earlier, _ = stored(opening[:-1])
    assert game_problems(*stored(opening, state=earlier.state)) == [
        "g1: its moves replayed do not give its stored state"
    ]
    assert game_problems(*stored(opening, status="finished")) == [
        "g1: finished, while its moves replayed are over: False"
    ]
    assert game_problems(*stored(opening, to_move=1 - game.to_move)) == [  # type: ignore[operator]
        f"g1: seat {1 - game.to_move} to move, replayed: {game.to_move}"  # type: ignore[operator]
    ]


def test_failures_are_reported_once_per_kind_with_a_count() -> None:
    failed = ["email not sent: <a> (pending)", "email not sent: <b> (pending)", "move lost: g1"]
    assert grouped(failed) == [
        "2 × email not sent: <a> (pending) (the first)",
        "move lost: g1",
    ]


def soak_record() -> dict[str, Any]:
    """What `findings` reads after a soak that went well: a worker killed (/readyz red, then
    green), PostgreSQL down (a 503 with Retry-After), SMTP down (/readyz green throughout); two
    moves stored, two emails sent, one of them twice after the kill (the same Message-ID);
    pictures after each fault; the visitor answered 503 while the database was down."""
    return {
        "faults": [
            fault("worker", start=10, back=20),
            fault("postgres", start=40, back=50),
            fault("smtp", start=80, back=140, sees=False),
        ],
        "probes": probes(
            (1, 503),  # before the service was ready: not counted
            (5, 200),
            (12, 200),
            (15, 503),
            (21, 200),
            (41, 503),
            (51, 200),
            (90, 200),
            (141, 200),
        ),
        "ready_since": T0 + 3,
        "accepted": [(1, "g1", 0, "a1"), (2, "g1", 1, "b2")],
        "moves": [("g1", 0, "a1", 1), ("g1", 1, "b2", 2)],
        "pending": [],
        "outbox": [
            ("<a@x>", "sent", "g1", "turn", "p@x", "your turn (move 1)"),
            ("<b@x>", "sent", "g1", "turn", "q@x", "your turn (move 2)"),
        ],
        "at_sink": Counter({"<a@x>": 2, "<b@x>": 1}),
        "repeats": [("<a@x>", T0 + 14)],
        "server_errors": [(T0 + 42, "POST", "/api/games/g1/moves", 503, "5")],
        "resent": [(T0 + 11, "POST", "/api/games/g1/moves")],
        "inconsistent": [],
        "abandoned": [(T0 + 43, "RuntimeError: creating a game answered 503")],
        "readyz_at_end": 200,
        "soak_errors": [],
        "started_at": T0,
        "pictures_at": [T0 + 25, T0 + 60, T0 + 150],
        "load_ended_at": T0 + 200,
        "visits": [(T0 + 41, 503, "5"), (T0 + 42, 0, None), (T0 + 60, 200, None)],
    }


def judged(**changes: Any) -> list[str]:
    """The verdict on the record above with `changes` made to it."""
    record = {**soak_record(), **changes}
    return verdict(findings(record.pop("faults"), record.pop("probes"), **record))


def test_a_clean_soak_passes() -> None:
    assert judged() == []


def test_a_lost_move_fails() -> None:
    assert judged(moves=[("g1", 0, "a1", 1)]) == [
        "move lost: g1 ply 1: b2 (submission 2) not stored"
    ]


def test_a_move_still_pending_at_the_end_fails() -> None:
    assert judged(moves=[("g1", 0, "a1", 1)], pending=[(2, "g1", 1)]) == [
        "move still pending at the end: g1 ply 1 (submission 2)"
    ]


def test_one_email_sent_twice_under_two_message_ids_fails() -> None:
    record = soak_record()
    again = ("<c@x>", "sent", "g1", "turn", "q@x", "your turn (move 2)")
    assert judged(
        outbox=[*record["outbox"], again], at_sink=record["at_sink"] + Counter({"<c@x>": 1})
    ) == ["one email written twice (two Message-IDs): ('g1', 'turn', 'q@x', 'your turn (move 2)')"]


def test_an_email_lost_or_copied_more_than_once_a_fault_fails() -> None:
    assert judged(at_sink=Counter({"<a@x>": 2})) == ["email not at the sink: <b@x>"]
    assert judged(
        at_sink=Counter({"<a@x>": 2, "<b@x>": 2}),
        repeats=[("<a@x>", T0 + 14), ("<b@x>", T0 + 16)],
    ) == ["2 emails sent twice after the worker fault (at most one)"]
    assert judged(repeats=[("<a@x>", T0 + 6)]) == ["email sent twice outside any fault: <a@x>"]


def test_a_500_fails_and_so_does_a_503_outside_the_database_outage() -> None:
    assert judged(server_errors=[(T0 + 42, "POST", "/api/games/g1/moves", 500, None)]) == [
        "answered 500 (Retry-After None) to POST /api/games/g1/moves after the postgres fault"
    ]
    assert judged(server_errors=[(T0 + 90, "GET", "/api/games/g1/legal", 503, "5")]) == [
        "answered 503 (Retry-After 5) to GET /api/games/g1/legal after the smtp fault"
    ]


def test_readyz_green_while_a_part_it_watches_was_down_fails() -> None:
    green = probes((5, 200), (12, 200), (15, 200), (21, 200), (41, 503), (51, 200), (141, 200))
    assert judged(probes=green) == ["worker: /readyz was never red while it was down"]


def test_readyz_red_after_a_fault_outside_any_fault_or_at_the_end_fails() -> None:
    assert judged(
        faults=[fault("worker", start=10, back=20)],
        probes=probes((5, 200), (15, 503), (21, 503), (30, 503)),
        server_errors=[],
        abandoned=[],
        readyz_at_end=503,
    ) == [
        "worker: /readyz was not green again after it came back",
        "/readyz answered 503 at the end",
    ]
    red_between = [*soak_record()["probes"], *probes((30, 503))]
    assert judged(probes=sorted(red_between, key=lambda p: p.at)) == [
        "/readyz red outside the faults: 503 at 30 s (p30)"
    ]
    assert judged(readyz_at_end=503) == ["/readyz answered 503 at the end"]


def test_an_inconsistent_game_a_game_given_up_or_a_harness_error_fails() -> None:
    assert judged(inconsistent=["g1: 1 moves stored, its ply is 2"]) == [
        "game inconsistent: g1: 1 moves stored, its ply is 2"
    ]
    assert judged(abandoned=[(T0 + 90, "RuntimeError: accepting an invitation answered 404")]) == [
        "player gave up a game: RuntimeError: accepting an invitation answered 404"
    ]
    assert judged(soak_errors=["TimeoutError: gunicorn to replace its killed worker"]) == [
        "soak: TimeoutError: gunicorn to replace its killed worker"
    ]


def test_no_picture_between_a_fault_and_the_next_is_a_stall() -> None:
    faults = [fault("redis", 10, 20), fault("smtp", 40, 100), fault("beat", 110, 112)]
    # After redis: nothing until smtp began. After smtp: 10 s, not judged. After beat: one.
    assert stalled(faults, [T0 + 5, T0 + 130], until=T0 + 200) == [
        "redis: no email with a board picture in the 20 s from its return to the next fault"
    ]
    assert stalled(faults, [T0 + 25], until=T0 + 200) == [
        "beat: no email with a board picture in the 88 s from its return to the end of the load"
    ]
    assert judged(pictures_at=[T0 + 25, T0 + 150]) == [
        "no work after a fault: postgres: no email with a board picture in the 30 s from its "
        "return to the next fault"
    ]


def test_the_visitors_answers_are_counted_by_fault() -> None:
    faults = [fault("worker", 10, 20), fault("postgres", 40, 50)]
    visits = [(T0 + 5, 200, None), (T0 + 12, 200, None), (T0 + 41, 503, "5"), (T0 + 42, 0, None)]
    assert outage_answers(visits, faults) == {"worker": {"200": 1}, "postgres": {"0": 1, "503": 1}}


def test_a_database_outage_no_request_met_leaves_the_503_check_unexercised() -> None:
    assert judged(visits=[(T0 + 41, 0, None), (T0 + 60, 200, None)]) == [
        "postgres: no request was answered while it was down (503s unchecked)"
    ]


MESSAGE = b"Subject: hi\r\nMessage-ID: <m@x>\r\n\r\nbody\r\n"


def test_the_sink_goes_down_cutting_its_sessions_and_comes_back_on_its_port() -> None:
    sink = Sink()
    accepted: list[bytes] = []

    def send() -> None:
        with smtplib.SMTP("127.0.0.1", sink.port, timeout=5) as smtp:
            smtp.sendmail("a@x.test", ["b@y.test"], MESSAGE)

    def session_cut(smtp: smtplib.SMTP) -> None:
        with pytest.raises(smtplib.SMTPServerDisconnected):
            smtp.noop()
        with pytest.raises(ConnectionRefusedError):
            smtplib.SMTP("127.0.0.1", sink.port, timeout=5)

    async def outage() -> None:
        await sink.serve(lambda _f, _t, raw, _at: accepted.append(raw))
        await asyncio.to_thread(send)
        # A client that keeps its connection open through the outage.
        smtp = await asyncio.to_thread(smtplib.SMTP, "127.0.0.1", sink.port, timeout=5)
        sink.pause()
        await asyncio.to_thread(session_cut, smtp)
        await sink.resume()
        await asyncio.to_thread(send)

    try:
        asyncio.run(outage())
    finally:
        sink.stop()
    assert len(accepted) == 2
