"""Board pictures for mail: each rendered once, off the path of a move, and kept.

A turn, reminder or result email names the picture it carries (`OutboxMessage.picture`, the key
"<game id>/<ply>/<side>", with "/over" for a result's: `picture_key`; the side is the seat's when
the engine draws the board from the reader's side, "all" when it draws one board for every
seat, so emails showing the same drawing share one picture) and waits for it until its
`next_attempt_at`. Sending leaves such a row alone while the picture is missing
(`delivery.waits_for_picture`) and hands it to the `render_pictures` task, which runs on a queue
and worker of its own (`workers.tasks`): it renders every missing picture here, stores it in the
`pictures` table (the PNG and its alt text, or why it could not be drawn) and then sends the rows.
A row whose picture failed goes without it; one whose wait ran out is sent without it by the
`send_email` queued for that instant (the sweep, should the queue lose it).

The `pictures` table holds a picture only while a pending email names it: the sweep deletes the
rest (`prune`), and the message, never stored, is put together with its picture at each attempt
(`pbem.mail.prepare`). A later email at the same position (a reminder) draws it again from the
game's record; `pbem.pictures` keeps a small cache in each process.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import Connection, bindparam, delete, exists, insert, select
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.exc import SQLAlchemyError

from pbem import games, pictures
from pbem.domain import views
from pbem.domain.names import display_names
from pbem.extensions import db
from pbem.models import PENDING, Game, OutboxMessage, Picture, Player, Seat, utcnow
from pbem.ops import metrics

log = logging.getLogger(__name__)

# How much of a rendering failure the `pictures` row keeps.
ERROR_CHARS = 500

# Rows still waiting for a picture nobody has rendered (no `pictures` row, not even a failure).
_WAITING = (
    select(OutboxMessage.id, OutboxMessage.picture)
    .select_from(
        OutboxMessage.__table__.outerjoin(Picture.__table__, Picture.key == OutboxMessage.picture)
    )
    .where(
        OutboxMessage.id.in_(bindparam("outbox_ids", expanding=True)),
        OutboxMessage.status == PENDING,
        OutboxMessage.picture.is_not(None),
        OutboxMessage.attempts == 0,
        OutboxMessage.next_attempt_at > bindparam("now"),
        Picture.key.is_(None),
    )
    .order_by(OutboxMessage.id)
)


def waiting(outbox_ids: Sequence[int], now: datetime | None = None) -> dict[str, list[int]]:
    """The pictures the rows still wait for: key -> the ids of the rows waiting for it. A row
    already sent, whose picture is there (or failed), or whose wait is over needs none."""
    if not outbox_ids:
        return {}
    found: dict[str, list[int]] = {}
    with db.engine.connect() as conn:
        params = {"outbox_ids": sorted(set(outbox_ids)), "now": now or utcnow()}
        for row in conn.execute(_WAITING, params):
            found.setdefault(row.picture, []).append(row.id)
    return found


@dataclass(frozen=True)
class Rendered:
    key: str
    ok: bool  # False: the rows go without a picture, `error` says why
    error: str | None = None
    seconds: float = 0.0  # CPU time this process spent drawing it
    engine: str = "unknown"  # the game's, when it could be read


# The last part of the key of a finished game's picture: the game as it ended. A game the
# service ended (a resignation, say) ends at the ply of a turn email already pictured with
# someone to move, so the result's picture needs a key of its own.
OVER = "over"


# The middle part of the key of a picture every seat shares: the engine draws one board for all.
EVERY_SIDE = "all"


def picture_key(game_id: str, engine: str, ply: int, seat: int, over: bool) -> str:
    """The key of the picture `seat`'s email shows: the board after `ply` moves as the engine
    draws it for that seat (`pictures.side`: the seat's side of the board, or one drawing for
    every seat); `over`: as the game ended. Emails that show the same drawing share the key,
    and so the picture."""
    side = pictures.side(engine, seat)
    return f"{game_id}/{ply}/{EVERY_SIDE if side is None else side}" + (f"/{OVER}" if over else "")


def parse_key(key: str) -> tuple[str, int, int | None, bool]:
    """(game id, ply, side or None for every side, over) of a key made by `picture_key`;
    ValueError otherwise."""
    game_id, ply, side, *rest = key.split("/")
    if (
        not game_id
        or not ply.isdigit()
        or not (side.isdigit() or side == EVERY_SIDE)
        or rest not in ([], [OVER])
    ):
        raise ValueError(
            f"a picture key is <game>/<ply>/<side or {EVERY_SIDE}>[/{OVER}], not {key!r}"
        )
    return game_id, int(ply), None if side == EVERY_SIDE else int(side), bool(rest)


def render(key: str) -> Rendered:
    """Draw the picture `key` names and store it (committed); a failure is stored too, so the
    emails waiting for it go without it. Database errors propagate."""
    (rendered,) = render_all([key])
    return rendered


def render_all(keys: Sequence[str]) -> list[Rendered]:
    """`render` for several pictures, stored in one transaction once all are drawn (a commit
    costs the database more than a picture costs to draw)."""
    rows: list[tuple[str, bytes | None, str, str | None]] = []
    out: list[Rendered] = []
    for key in keys:
        started = time.process_time()
        png: bytes | None = None
        alt = ""
        engine = "unknown"
        error: str | None = None
        try:
            png, alt, engine = _draw(key)
        except SQLAlchemyError:
            raise
        except pictures.RenderError as exc:
            error = str(exc)
        except Exception as exc:
            # An engine that cannot draw this position must not hold its emails back.
            log.exception("picture %s could not be drawn", key)
            error = f"{type(exc).__name__}: {exc}"
        finally:
            db.session.rollback()
        if error is not None:
            log.warning("picture %s: %s; its emails go without it", key, error)
        rows.append((key, png, alt, error[:ERROR_CHARS] if error else None))
        out.append(Rendered(key, error is None, error, time.process_time() - started, engine))
    if rows:
        with db.engine.connect() as conn:
            for row in rows:
                _store(conn, *row)
            conn.commit()
    for one in out:
        metrics.PICTURES_DRAWN.labels(one.engine, "ok" if one.ok else "failed").inc()
        if one.ok:
            metrics.PICTURE_SECONDS.labels(one.engine).observe(one.seconds)
    return out


# The game as the picture needs it, and its players' names in seat order: two small reads, where
# loading the Game with its seats and players through the ORM cost more than the drawing.
_GAME = select(Game.engine, Game.ply, Game.state, Game.outcome).where(
    Game.id == bindparam("game_id")
)
_NAMES = (
    select(Player.name)
    .join(Seat, Seat.player_id == Player.id)
    .where(Seat.game_id == bindparam("game_id"))
    .order_by(Seat.seat)
)


def _draw(key: str) -> tuple[bytes, str, str]:
    """The PNG, alt text and engine of the board after `ply` moves, from the key's side, the
    last turns marked; the alt text names the players as everywhere else (`views.names`) and is
    the same for every reader."""
    game_id, ply, seat, over = parse_key(key)
    with db.engine.connect() as conn:
        game = conn.execute(_GAME, {"game_id": game_id}).one_or_none()
        chosen = list(conn.execute(_NAMES, {"game_id": game_id}).scalars())
    if game is None:
        raise LookupError(f"game {game_id} does not exist")
    if seat is not None and not 0 <= seat < len(chosen):
        raise LookupError(f"game {game_id} has no seat {seat}")
    # The game row holds the latest position: the usual case, since the picture is drawn right
    # after the move. A later move means replaying the record up to `ply`. Only a result's
    # picture shows the game as it ended; a turn's at the same ply shows the turn.
    state: games.State | None = None
    if ply == game.ply and game.state is not None:
        state = games.get(game.engine).from_json(game.state)
        if over:
            state = views.settle(state, game.outcome)
    elif ply < game.ply:
        stored = db.session.get(Game, game_id)
        state = None if stored is None else views.position_after(stored, ply)
    if state is None:
        raise LookupError(f"game {game_id} has no position after {ply} moves")
    names = display_names(game.engine, chosen)
    png = pictures.board_png(game.engine, state, seat, names, game_id=game_id)
    return png, pictures.alt_text(game.engine, state, None, names), game.engine


def _store(conn: Connection, key: str, png: bytes | None, alt: str, error: str | None) -> None:
    """Insert the picture's row; one already there (another worker drew it too) is kept."""
    values = {"key": key, "png": png, "alt": alt, "error": error, "created_at": utcnow()}
    if conn.dialect.name == "postgresql":
        conn.execute(postgresql.insert(Picture).values(values).on_conflict_do_nothing())
    elif conn.dialect.name == "sqlite":
        conn.execute(sqlite.insert(Picture).values(values).on_conflict_do_nothing())
    else:  # pragma: no cover - pbem runs on PostgreSQL or SQLite
        conn.execute(insert(Picture).values(values))


# Pictures no pending email names: their emails went, with them or without.
_UNNEEDED = (
    select(Picture.key)
    .where(~exists().where(OutboxMessage.status == PENDING, OutboxMessage.picture == Picture.key))
    .limit(bindparam("limit"))
)


PRUNE_SECONDS = 1.0
_last_prune = 0.0


def prune_soon() -> int:
    """`prune`, at most every `PRUNE_SECONDS` in this process: the picture task calls it after
    each batch it sends, so the table holds a second or two of pictures, not a sweep period's,
    for one query a second."""
    global _last_prune
    now = time.monotonic()
    if now - _last_prune < PRUNE_SECONDS:
        return 0
    _last_prune = now
    return prune()


def prune(limit: int = 1000) -> int:
    """Delete up to `limit` pictures no pending email needs any more; how many went. A row
    written meanwhile that names one waits for it and has it drawn again, like any new row.

    The picture task prunes every second or so (`prune_soon`), the sweep whatever is left.
    On PostgreSQL the table is vacuumed right after, at most every `VACUUM_SECONDS`: every
    picture is written once and deleted seconds later, and its space (some 15 kB, in TOAST) is
    reused only once a VACUUM has seen it dead. Left to autovacuum (a minute apart at best, off
    on some servers) the table would grow by every picture drawn in between; vacuumed here, by
    a few seconds' pictures at most. Plain VACUUM blocks neither readers nor writers."""
    with db.engine.connect() as conn:
        gone = list(conn.execute(_UNNEEDED, {"limit": limit}).scalars())
        if gone:
            conn.execute(delete(Picture).where(Picture.key.in_(gone)))
        conn.commit()
    if gone and db.engine.dialect.name == "postgresql":
        _vacuum()
    return len(gone)


VACUUM_SECONDS = 2.0
_last_vacuum = 0.0


def _vacuum() -> None:
    global _last_vacuum
    now = time.monotonic()
    if now - _last_vacuum < VACUUM_SECONDS:
        return
    _last_vacuum = now
    with db.engine.connect().execution_options(isolation_level="AUTOCOMMIT") as conn:
        conn.exec_driver_sql(f"VACUUM {Picture.__tablename__}")
