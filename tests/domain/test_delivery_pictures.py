"""Board pictures in mail: a turn email waits for its picture, which the picture task draws once
(from the reader's seat, at the email's ply) and keeps while an email needs it; it goes without
it when drawing fails or its wait is over, and the sweep sends it then. The message is put
together with its picture when it is sent, never stored. Embedded, pictures are drawn in-process
after the commit."""

from __future__ import annotations

import email
import email.policy
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path

import pytest
from flask import Flask
from sqlalchemy import select

from pbem import games, pictures
from pbem.domain import board_pictures, delivery, views
from pbem.domain import sweep as sweeping
from pbem.extensions import db, settings
from pbem.games.sprites import MailDrawing, Sprite
from pbem.models import PENDING, SENT, Game, OutboxMessage, Picture, utcnow
from tests.conftest import make_app
from tests.domain.flow import mails, start
from workers import tasks

GORAMI = ("gorami", {"board": 16})


@pytest.fixture
def picture_app(tmp_path: Path, countdown_engine: None) -> Iterator[Flask]:
    app = make_app(tmp_path, PBEM_MAIL_PICTURES="on")
    with app.app_context():
        db.create_all()
        yield app
        db.session.remove()
        db.engine.dispose()


def _game() -> Game:
    game = start(*GORAMI)
    db.session.expire_all()
    return game


def _move(game: Game) -> int:
    """Play the first legal move from the domain, leaving its emails unsent; the turn row's id."""
    from pbem.domain import moves

    db.session.refresh(game)
    state = views.load_state(game)
    assert state is not None
    seat = game.seats[game.to_move]
    submission = moves.submit_move(seat, state.legal_moves()[0], game.ply)
    written = moves.apply_moves(settings(), [submission])
    (turn,) = [i for i in written if _row(i).kind == "turn"]
    return turn


def _row(outbox_id: int) -> OutboxMessage:
    db.session.expire_all()
    row = db.session.get(OutboxMessage, outbox_id)
    assert row is not None
    return row


def _sent_bytes(tmp_path: Path, row: OutboxMessage) -> bytes:
    (path,) = (tmp_path / "outbox").glob(f"*-{row.id:07d}-*.eml")
    return path.read_bytes()


def _sent_message(tmp_path: Path, row: OutboxMessage) -> email.message.EmailMessage:
    parsed = email.message_from_bytes(_sent_bytes(tmp_path, row), policy=email.policy.default)
    assert isinstance(parsed, email.message.EmailMessage)
    return parsed


def _has_board(message: email.message.EmailMessage) -> bool:
    return any(part.get_content_type() == "image/png" for part in message.walk())


def test_a_moves_turn_email_arrives_with_its_board_drawn_in_process(
    picture_app: Flask, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tests.domain.flow import play

    monkeypatch.setattr(board_pictures, "PRUNE_SECONDS", 0.0)
    game = _game()
    state = views.load_state(game)
    assert state is not None
    play(game, state.legal_moves()[0])
    # GORami draws one board for both seats: the key names every side.
    turn = [m for m in mails(kind="turn") if m.picture == f"{game.id}/1/all"]
    (row,) = turn
    assert row.status == SENT
    assert _has_board(_sent_message(tmp_path, row))
    # Its emails gone, the picture went too: the picture task deletes what it has sent.
    assert db.session.get(Picture, row.picture) is None
    (png,) = _images(_sent_bytes(tmp_path, row))
    db.session.expire_all()
    game = db.session.get(Game, game.id)
    assert game is not None
    at_move = views.position_after(game, 1)
    assert at_move is not None
    assert png == pictures.board_png(game.engine, at_move, None, views.names(game))
    # The row keeps the message's parts, never the picture.
    assert all(png[:64] not in (value or "").encode() for value in (row.text, row.html))
    html = _sent_message(tmp_path, row).get_body(("html",))
    assert html is not None and "GORami board after move 1" in html.get_content()


def _images(raw: bytes) -> list[bytes]:
    parsed = email.message_from_bytes(raw, policy=email.policy.default)
    return [p.get_content() for p in parsed.walk() if p.get_content_type() == "image/png"]


def test_a_row_waits_for_its_picture_then_goes_with_it(picture_app: Flask, tmp_path: Path) -> None:
    game = _game()
    row_id = _move(game)
    row = _row(row_id)
    assert row.picture and row.next_attempt_at > utcnow()
    now = row.next_attempt_at - timedelta(seconds=3.5)
    # Waiting, and saying when its wait is over: the send that is then queued goes on time
    # whether the picture came or not.
    assert delivery.send_outbox(settings(), row_id, now=now) == delivery.Delivery("waiting", 4)
    row = _row(row_id)
    assert (row.status, row.attempts) == (PENDING, 0)

    assert board_pictures.waiting([row_id]) == {row.picture: [row_id]}
    drawn = board_pictures.render(row.picture)
    assert drawn.ok and drawn.seconds > 0
    assert board_pictures.waiting([row_id]) == {}
    assert delivery.send_outbox(settings(), row_id).status == "sent"
    png = db.session.get(Picture, row.picture).png  # type: ignore[union-attr]
    assert _images(_sent_bytes(tmp_path, _row(row_id))) == [png]
    assert _row(row_id).without_picture is False


def test_a_picture_is_drawn_from_the_readers_seat_at_the_emails_ply(picture_app: Flask) -> None:
    game = _game()
    first = _move(game)
    _move(game)  # the game has moved on before the first picture is drawn
    key = _row(first).picture
    assert key is not None and key.split("/")[1] == "1"
    board_pictures.render(key)
    db.session.expire_all()
    game = db.session.get(Game, game.id)
    assert game is not None and game.ply == 2
    assert key.split("/")[2] == "all"  # GORami draws one board for both seats
    at_ply = views.position_after(game, 1)
    assert at_ply is not None
    expected = pictures.board_png(game.engine, at_ply, None, views.names(game))
    assert db.session.get(Picture, key).png == expected  # type: ignore[union-attr]


def test_a_picture_that_cannot_be_drawn_lets_its_email_go_without_it(
    picture_app: Flask, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    game = _game()
    row_id = _move(game)
    # The engine's drawing is one librsvg refuses: the renderer's own error.
    broken = MailDrawing(
        600, 100, "#ffffff", ((Sprite("<unclosed", 0, 0, 9, 9), 0, 0, ""),), "x", "x"
    )
    monkeypatch.setattr(games.get("gorami"), "mail_drawing", lambda *args, **kwargs: broken)
    key = _row(row_id).picture
    assert key is not None
    drawn = board_pictures.render(key)
    stored = db.session.get(Picture, key)
    assert not drawn.ok and stored is not None and stored.png is None
    assert "could not be drawn" in (stored.error or "")
    tasks.render_pictures.run([_request(row_id)])
    row = _row(row_id)
    assert row.status == SENT and row.without_picture is True
    message = _sent_message(tmp_path, row)
    assert not _has_board(message)
    html = message.get_body(("html",))
    assert html is not None and "<!-- pbem:board -->" not in html.get_content()


def test_a_picture_for_a_game_that_is_gone_is_an_error_not_a_crash(picture_app: Flask) -> None:
    drawn = board_pictures.render("nosuchgame00/3/1")
    assert not drawn.ok and "does not exist" in (drawn.error or "")
    assert db.session.get(Picture, "nosuchgame00/3/1").error  # type: ignore[union-attr]


def test_a_row_whose_wait_is_over_goes_without_the_picture_and_the_sweep_sends_it(
    picture_app: Flask, tmp_path: Path
) -> None:
    config = settings()
    game = _game()
    row_id = _move(game)
    due = _row(row_id).next_attempt_at
    assert due - _row(row_id).created_at == timedelta(seconds=config.mail.picture_timeout_seconds)
    # Before its wait is over the sweep leaves it to the picture task; once it is, the sweep
    # hands it back at once (not PBEM_SWEEP_SECONDS later, as it does a failed attempt).
    assert row_id not in sweeping.sweep(config, due - timedelta(seconds=1)).outbox_ids
    assert row_id in sweeping.sweep(config, due).outbox_ids
    assert delivery.send_outbox(config, row_id, now=due).status == "sent"
    row = _row(row_id)
    assert not _has_board(_sent_message(tmp_path, row)) and row.without_picture is True
    # Nobody drew it; a picture task arriving late draws nothing and sends nothing again.
    assert db.session.get(Picture, row.picture) is None
    tasks.render_pictures.run([_request(row_id)])
    assert db.session.get(Picture, row.picture) is None
    assert _row(row_id).attempts == 1


def test_the_sweep_task_sends_a_row_whose_picture_never_came(
    picture_app: Flask, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    game = _game()
    row_id = _move(game)
    due = _row(row_id).next_attempt_at
    monkeypatch.setattr(sweeping, "utcnow", lambda: due)
    monkeypatch.setattr(delivery, "utcnow", lambda: due)
    tasks.sweep()
    row = _row(row_id)
    assert row.status == SENT and not _has_board(_sent_message(tmp_path, row))


def _reminder(game: Game, to: str, key: str, number: int) -> int:
    """Another email at the same ply and seat, as the clock writes a reminder."""
    later = OutboxMessage(
        game_id=game.id,
        kind="reminder",
        to=to,
        subject="[pbem] reminder",
        text="t",
        html="<p>x</p><!-- pbem:board -->",
        message_id=f"<reminder.{number}@pbem.test>",
        picture=key,
        next_attempt_at=utcnow() + timedelta(minutes=1),
    )
    db.session.add(later)
    db.session.commit()
    return later.id


def test_a_picture_is_kept_while_an_email_needs_it_and_drawn_again_after(
    picture_app: Flask, tmp_path: Path
) -> None:
    game = _game()
    row_id = _move(game)
    key = _row(row_id).picture
    assert key is not None
    # Drawn and sent as the picture task does, but for its pruning (the last test shows it).
    assert board_pictures.render(key).ok
    assert delivery.send_outbox(settings(), row_id).status == "sent"
    png = db.session.get(Picture, key).png  # type: ignore[union-attr]
    # Still there (not pruned yet): another email at the same ply and side goes at once, with
    # the same picture, nothing drawn again.
    first = _reminder(game, _row(row_id).to, key, 1)
    kept = db.session.execute(select(Picture.key, Picture.created_at)).all()
    assert delivery.send_outbox(settings(), first).status == "sent"
    assert _images(_sent_bytes(tmp_path, _row(first))) == [png]
    assert db.session.execute(select(Picture.key, Picture.created_at)).all() == kept
    # A pending email keeps its picture from the sweep; once nobody needs it, it goes.
    pending = _reminder(game, _row(row_id).to, key, 2)
    board_pictures.prune()
    assert db.session.get(Picture, key) is not None
    assert delivery.send_outbox(settings(), pending).status == "sent"
    assert board_pictures.prune() == 1
    db.session.expire_all()
    assert db.session.get(Picture, key) is None
    # A later email at that position waits for it, and it is drawn again from the record.
    again = _reminder(game, _row(row_id).to, key, 3)
    assert delivery.send_outbox(settings(), again).status == "waiting"
    tasks.render_pictures.run([_request(again)])
    assert _row(again).status == SENT and _row(again).without_picture is False
    assert _images(_sent_bytes(tmp_path, _row(again))) == [png]


def test_the_sweep_task_deletes_the_pictures_no_email_needs(picture_app: Flask) -> None:
    game = _game()
    sent = _move(game)
    tasks.render_pictures.run([_request(sent)])
    waiting = _move(game)
    board_pictures.render(_row(waiting).picture or "")
    assert _row(sent).status == SENT and _row(waiting).status == PENDING
    tasks.sweep()
    db.session.expire_all()
    assert set(db.session.execute(select(Picture.key)).scalars()) == {_row(waiting).picture}


def test_a_resignation_at_the_ply_of_a_turn_email_gets_a_picture_of_the_game_over(
    picture_app: Flask,
) -> None:
    """The turn email's picture says whose turn it is; the result at the same ply must not reuse
    it, but show the game as the service ended it."""
    from pbem.domain import endings

    game = _game()
    turn_row = _move(game)
    turn_key = _row(turn_row).picture
    assert turn_key is not None and board_pictures.render(turn_key).ok
    db.session.expire_all()
    game = db.session.get(Game, game.id)
    assert game is not None and turn_key is not None
    resigner = game.seats[game.to_move]
    endings.resign(settings(), resigner)
    results = mails(kind="result")
    # Both players' results show the same drawing (GORami's board has no side): one picture.
    assert len(results) == 2 and len({row.picture for row in results}) == 1
    assert {row.picture for row in results} == {
        board_pictures.picture_key(game.id, game.engine, game.ply, seat.seat, over=True)
        for seat in game.seats
    }
    (result_key,) = {row.picture for row in results}
    assert result_key is not None and board_pictures.render(result_key).ok
    turn_alt = db.session.get(Picture, turn_key).alt  # type: ignore[union-attr]
    assert "to move" in turn_alt
    picture = db.session.get(Picture, result_key)
    assert picture is not None and picture.png is not None
    assert "resigned" in picture.alt and "to move" not in picture.alt
    tasks.render_pictures.run([_request(row.id) for row in results])
    for row in results:
        assert _row(row.id).status == SENT and not _row(row.id).without_picture


def test_pictures_go_to_a_queue_of_their_own(picture_app: Flask) -> None:
    router = picture_app.extensions["celery"].amqp.router
    assert router.route({}, "workers.tasks.render_pictures")["queue"].name == "pictures"
    for other in ("apply_move", "send_emails", "send_email", "send_due_emails", "sweep", "clock"):
        assert router.route({}, f"workers.tasks.{other}")["queue"].name == "celery"


def _request(outbox_id: int) -> object:
    from types import SimpleNamespace

    return SimpleNamespace(args=[outbox_id], kwargs={})


def test_with_pictures_turned_off_since_a_row_goes_at_once_without_one(
    picture_app: Flask, tmp_path: Path
) -> None:
    import dataclasses

    game = _game()
    row_id = _move(game)
    config = settings()
    off = dataclasses.replace(config, mail=dataclasses.replace(config.mail, pictures=False))
    assert delivery.send_outbox(off, row_id).status == "sent"
    assert not _has_board(_sent_message(tmp_path, _row(row_id)))


def test_a_waiting_row_is_queued_for_its_picture_and_for_the_end_of_its_wait(
    picture_app: Flask, monkeypatch: pytest.MonkeyPatch
) -> None:
    from pbem import dispatch

    game = _game()
    row_id = _move(game)
    now = _row(row_id).next_attempt_at - timedelta(seconds=5)
    monkeypatch.setattr(delivery, "utcnow", lambda: now)
    queued: list[tuple[str, list[int], int | None]] = []
    monkeypatch.setattr(
        dispatch,
        "_enqueue",
        lambda name, args, countdown=None: queued.append((name, args, countdown)) or True,
    )
    monkeypatch.setitem(picture_app.extensions["celery"].conf, "task_always_eager", False)
    tasks.send_now([row_id])
    # The picture on its own worker; the email on the mail queue when its wait is over, however
    # starved that worker (not at the next sweep, PBEM_SWEEP_SECONDS later).
    assert queued == [
        ("workers.tasks.render_pictures", [row_id], None),
        ("workers.tasks.send_due_emails", [row_id], 5),
    ]
    assert _row(row_id).status == PENDING


def test_on_postgresql_the_pictures_table_is_vacuumed_when_pictures_go(
    pg_app: Flask, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every picture is written once and soon deleted: its space must be reusable at once, not
    when autovacuum comes by (if it is on at all)."""
    from sqlalchemy import text

    monkeypatch.setattr(board_pictures, "_last_vacuum", 0.0)
    db.session.add(Picture(key="g/1/0", png=b"\x89PNG" * 10_000, alt="a"))
    db.session.commit()
    assert board_pictures.prune() == 1
    with db.engine.connect() as conn:
        vacuumed = conn.execute(
            text("select last_vacuum from pg_stat_user_tables where relname = 'pictures'")
        ).scalar()
    assert vacuumed is not None
    assert board_pictures.prune() == 0


def test_the_picture_task_deletes_the_pictures_it_has_sent(
    picture_app: Flask, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Once its emails have gone a picture is deleted by the task that sent them (a second
    later at most), not left for the sweep: the table holds seconds of pictures."""
    monkeypatch.setattr(board_pictures, "PRUNE_SECONDS", 0.0)
    game = _game()
    row_id = _move(game)
    key = _row(row_id).picture
    # Every email that shows this drawing (GORami's is the same for both seats).
    sharing = [row.id for row in mails() if row.picture == key and row.status == PENDING]
    assert row_id in sharing
    tasks.render_pictures.run([_request(one) for one in sharing])
    assert all(_row(one).status == SENT and not _row(one).without_picture for one in sharing)
    db.session.rollback()  # a fresh read, not this session's snapshot
    assert db.session.get(Picture, key) is None
