"""A bot's turn: what a bot does in a game when it is asked to act, and the games the sweep
finds where a bot should have acted and has not.

`act(config, game_id)` is the whole of the bot task (workers.tasks.play_bot, on its own queue):

1. Read the game as it stands, without a lock: thinking takes seconds, and nobody else's move
   may wait on it.
2. A draw offer standing against a seat a bot plays: the bot rates the position and accepts
   when it is even or worse for it, else declines, through `endings.answer_draw` like a person.
3. The seat to move played by a bot (its own, or a person's on autopilot: the bot its player
   chose, `seats.autopilot_bot`), and no submission of this ply stored yet: the bot chooses
   within PBEM_BOT_SECONDS, from what its seat sees (pbem.bots.Observation), and its move is
   stored by `moves.submit_move`, bound to the ply, like a person's; on autopilot it is marked
   with the bot, so that the record, the pages and the mail say the bot made it. The caller
   queues `apply_move` for it. A move made meanwhile makes the bot's stale, and it is refused
   as a person's would be: a bot never moves twice in one turn.

Running it twice, or for a game where no bot is due, does nothing more.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import logging
import random
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import and_, bindparam, exists, or_, select

from pbem import bots, games
from pbem.config import Settings
from pbem.domain import endings, moves, turn_ending
from pbem.domain.errors import ServiceError
from pbem.domain.views import SeatInfo
from pbem.extensions import db
from pbem.models import PENDING, REJECTED, RUNNING, Game, Player, Seat, Submission, utcnow
from pbem.ops import metrics

log = logging.getLogger(__name__)

_GAME = select(
    Game.id,
    Game.engine,
    Game.state,
    Game.ply,
    Game.to_move,
    Game.status,
    Game.draw_offered_by,
).where(Game.id == bindparam("game_id"))
_SUBMITTED = select(
    exists().where(
        Submission.game_id == bindparam("game_id"),
        Submission.ply == bindparam("ply"),
        Submission.status != REJECTED,
    )
)


@dataclass
class Acted:
    """What a bot did: a stored submission to apply, and emails to send."""

    submission_id: int | None = None
    outbox_ids: list[int] = field(default_factory=list)
    what: str = "nothing to do"


def budget(config: Settings) -> bots.Budget:
    return bots.Budget(seconds=config.bot_seconds)


def rng_for(
    secret: str, game_id: str, ply: int, seen: bots.Observation, purpose: str = "move"
) -> random.Random:
    """The bot's random generator for one decision, keyed by the server's secret over the game,
    the ply, the seat and what the seat sees: a player cannot work out the bot's next move (the
    game's seed plays no part), two positions its seat cannot tell apart give the same
    decision, and a redelivered task thinks the same thoughts, time allowing."""
    position = json.dumps(seen.view, sort_keys=True, separators=(",", ":"))
    message = f"{purpose}:{game_id}:{ply}:{seen.seat}:{position}".encode()
    digest = hmac.new(secret.encode(), message, hashlib.sha256).digest()
    return random.Random(int.from_bytes(digest, "big"))


def act(config: Settings, game_id: str) -> Acted:
    """Let the bots of a game do what is theirs to do now (see the module's steps)."""
    acted = Acted()
    game, infos = _read(game_id)
    if game is None:
        return acted
    offered_by = game.draw_offered_by
    if offered_by is not None and len(infos) == 2 and infos[1 - offered_by].played_by:
        acted = _answer_draw(config, game, infos[1 - offered_by])
        game, infos = _read(game_id)  # the answer may have ended the game
        if game is None:
            return acted
    to_move = game.to_move
    if to_move is None or infos[to_move].played_by is None:
        return acted
    conn = db.session.connection()
    stored = conn.execute(_SUBMITTED, {"game_id": game.id, "ply": game.ply}).scalar()
    db.session.commit()  # ends the read: nothing is held while the bot thinks
    if stored:
        return Acted(None, acted.outbox_ids, "a move for this turn is stored already")
    seat = infos[to_move]
    bot = bots.get(str(seat.played_by))
    seen = _seen(game, to_move)
    started = time.monotonic()
    move = bot.choose(seen, rng_for(config.signing_key, game.id, game.ply, seen), budget(config))
    metrics.BOT_SECONDS.labels(bot.kind).observe(time.monotonic() - started)
    pilot = bot.kind if seat.bot is None else None
    try:
        submission_id = moves.submit_move(seat, move, game.ply, by_bot=True, autopilot=pilot)
    except ServiceError as exc:
        # Something happened while it thought (a move, a resignation, its player took the seat
        # back): the turn is not the bot's any more.
        db.session.rollback()
        return Acted(None, acted.outbox_ids, f"its move was refused: {exc.message}")
    return Acted(submission_id, acted.outbox_ids, f"{bot.name} played {move}")


def _read(game_id: str) -> tuple[Any, list[SeatInfo]]:
    """The game if it is running, with its seats; the read's transaction ended."""
    conn = db.session.connection()
    game = conn.execute(_GAME, {"game_id": game_id}).one_or_none()
    if game is None or game.status != RUNNING or game.state is None:
        db.session.commit()
        return None, []
    infos = turn_ending.read_seats(conn, [game.id])[0].get(game.id, [])
    db.session.commit()
    return game, infos


def _seen(game: Any, seat: int) -> bots.Observation:
    """What `seat` knows of the game: its view, and samples of it."""
    engine = games.get(game.engine)
    state = engine.from_json(game.state)
    return bots.Observation.of(state, seat, engine.perfect_information)


def _answer_draw(config: Settings, game: Any, seat: SeatInfo) -> Acted:
    bot = bots.get(str(seat.played_by))
    seen = _seen(game, seat.seat)
    rng = rng_for(config.signing_key, game.id, game.ply, seen, "draw")
    rating = bot.rate(seen, rng, budget(config))
    accept = rating <= 0.5
    try:
        outbox_ids = endings.answer_draw(config, seat, accept=accept)
    except ServiceError as exc:
        db.session.rollback()
        return Acted(what=f"the draw offer was gone: {exc.message}")
    verdict = "accepted" if accept else "declined"
    return Acted(None, outbox_ids, f"{bot.name} {verdict} a draw (rating {rating:.2f})")


# --- what the sweep finds ------------------------------------------------------------------------

_BOT_PLAYED = or_(Player.bot.is_not(None), Seat.autopilot_since.is_not(None))


def stalled(config: Settings, now: datetime | None = None, limit: int = 200) -> list[str]:
    """Running games where a bot should have acted a while ago and no move of this ply is
    stored: the queue lost the task, or the bot worker was down. A bot's turn has no deadline
    (pbem.domain.turn_ending.new_turn), so such games are among those the partial index of running,
    unclocked games holds."""
    now = now or utcnow()
    since = now - timedelta(seconds=max(60.0, 5 * config.bot_seconds))
    mover = and_(Seat.game_id == Game.id, Seat.seat == Game.to_move)
    query = (
        select(Game.id)
        .join(Seat, mover)
        .join(Player, Player.id == Seat.player_id)
        .where(
            Game.status == RUNNING,
            Game.deadline.is_(None),
            _BOT_PLAYED,
            Game.turn_started_at < since,
            ~exists().where(
                Submission.game_id == Game.id,
                Submission.ply == Game.ply,
                Submission.status == PENDING,
            ),
        )
        .order_by(Game.turn_started_at)
        .limit(limit)
    )
    return list(db.session.execute(query).scalars())


def with_bots(game_ids: Sequence[str]) -> list[str]:
    """Those of these games a bot plays a seat in (its own, or a person's on autopilot): after
    something happened to a game (it started, a player left, a draw was offered), these are
    the games to hand to the bot worker."""
    wanted = sorted(set(game_ids))
    if not wanted:
        return []
    query = (
        select(Seat.game_id)
        .join(Player, Player.id == Seat.player_id)
        .where(Seat.game_id.in_(wanted), _BOT_PLAYED)
        .distinct()
    )
    found = list(db.session.execute(query).scalars())
    db.session.commit()
    return sorted(found)
