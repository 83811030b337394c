"""Submitting a move: a player's (or a bot's) move checked against the game as it stands and
stored as a pending submission, for a worker to apply (`pbem.domain.applying`).

1. Read the seat and its game in one statement (autocommit: nothing here needs a transaction,
   since the worker decides under the game's lock, and it saves the BEGIN and COMMIT).
2. Check the link's claims against the seat: a rotated link is refused.
3. A game that is over says so first, and how it ended, in the players' names.
4. Ask `turns.may_act` and check the ply (`turns.check_move`): the seat's player (or its bot)
   plays it, it is its turn, the ply is current, its time has not run out. Time is judged
   here, when the move is stored, not when a worker gets to it.
5. Ask the engine whether the move is legal.
6. Insert the submission (autocommit: durable when this returns) and return its id.
"""

from __future__ import annotations

from typing import Any, Protocol

from sqlalchemy import Connection, bindparam, insert, select

from pbem import games, i18n, links
from pbem.domain import outcomes, turns, wording
from pbem.domain.access import check_claims
from pbem.domain.errors import GameOver, MoveRefused, NotFound, ServiceError
from pbem.domain.names import display_names
from pbem.extensions import db
from pbem.models import CANCELLED, FINISHED, PENDING, Game, Player, Seat, Submission, utcnow
from pbem.ops import metrics

_SUBMIT_READ = (
    select(
        Seat.player_id,
        Seat.nonce,
        Seat.seat,
        Seat.state.label("seat_state"),
        Seat.autopilot_since,
        Player.bot,
        Game.engine,
        Game.state,
        Game.ply,
        Game.to_move,
        Game.status,
        Game.outcome,
        Game.deadline,
        Game.paused_at,
    )
    .join(Game, Game.id == Seat.game_id)
    .join(Player, Player.id == Seat.player_id)
    .where(Seat.game_id == bindparam("game_id"), Seat.seat == bindparam("seat"))
)
_INSERT_SUBMISSION = insert(Submission).returning(Submission.id)


def submit_move(
    seat: links.SeatKey, move: str, ply: int, by_bot: bool = False, autopilot: str | None = None
) -> int:
    """Check `move` for `ply` against the game as it stands and store it as a pending
    submission; returns its id. `by_bot`: the bot that plays the seat submits it, `autopilot`
    naming it when the seat is a person's on autopilot (its move is marked so). The worker
    checks again under the game's row lock, because another move may land before it applies."""
    move = move.strip()
    with db.engine.connect() as conn:
        autocommit = conn.execution_options(isolation_level="AUTOCOMMIT")
        return _submit(autocommit, seat, move, ply, by_bot, autopilot if by_bot else None)


def _submit(
    conn: Connection,
    seat: links.SeatKey,
    move: str,
    ply: int,
    by_bot: bool,
    autopilot: str | None = None,
) -> int:
    game = conn.execute(_SUBMIT_READ, {"game_id": seat.game_id, "seat": seat.seat}).one_or_none()
    if isinstance(seat, links.LinkClaims):
        check_claims(seat, game)
    elif game is None:
        raise NotFound(i18n.gettext("There is no such seat."))
    assert game is not None
    try:
        submission_id = _checked_insert(conn, seat, game, move, ply, by_bot, autopilot)
    except ServiceError as exc:
        metrics.MOVES_REFUSED.labels(game.engine, exc.code).inc()
        raise
    metrics.MOVES_SUBMITTED.labels(game.engine).inc()
    return submission_id


def _checked_insert(
    conn: Connection,
    seat: links.SeatKey,
    game: Any,
    move: str,
    ply: int,
    by_bot: bool,
    autopilot: str | None,
) -> int:
    """Steps 3 to 6 for the seat's row and its game's."""
    if game.status in (FINISHED, CANCELLED):
        raise game_over(conn, seat.game_id, game)
    now = utcnow()
    sitter = turns.Sitter.playing(game.seat, game.seat_state, game.bot, game.autopilot_since)
    turns.check_move(turns.may_act(game, sitter, now, by_bot), ply, game.ply)
    if not move:
        raise MoveRefused(
            i18n.gettext("No move was given: choose one of the legal moves or type one."), "no_move"
        )
    try:
        games.get(game.engine).from_json(game.state).play(move)
    except games.MoveError as exc:
        code = "invalid_move" if isinstance(exc, games.InvalidMove) else "illegal_move"
        said = wording.game_words(wording.engine_said(exc), game.engine)
        raise MoveRefused(said, code) from exc
    submission_id: int = conn.execute(
        _INSERT_SUBMISSION,
        {
            "game_id": seat.game_id,
            "seat": seat.seat,
            "ply": ply,
            "move": move,
            "autopilot": autopilot,
            "status": PENDING,
            "created_at": now,
        },
    ).scalar_one()
    return submission_id


class EndedGame(Protocol):
    @property
    def engine(self) -> str: ...

    @property
    def state(self) -> dict[str, Any] | None: ...

    @property
    def status(self) -> str: ...

    @property
    def outcome(self) -> dict[str, Any] | None: ...


_PLAYER_NAMES = (
    select(Player.name)
    .join(Seat, Seat.player_id == Player.id)
    .where(Seat.game_id == bindparam("game_id"))
    .order_by(Seat.seat)
)


def game_over(conn: Connection, game_id: str, game: EndedGame) -> GameOver:
    """The refusal of a move, a draw offer or a resignation in a game that is over, saying how
    it ended in the players' names (a refusal's extra read, never the hot path's)."""
    sentence = outcomes.sentence(game.outcome)
    if sentence is None and game.state is not None:
        ended = games.get(game.engine).from_json(game.state).describe_outcome()
        sentence = wording.game_words(ended, game.engine) if ended else None
    names = display_names(
        game.engine, list(conn.execute(_PLAYER_NAMES, {"game_id": game_id}).scalars())
    )
    if not sentence:
        return GameOver(
            i18n.gettext(
                "The game is over. It takes no more moves, draw offers or resignations: open the "
                "game page to see the final position and the result."
            )
        )
    return GameOver(
        i18n.gettext(
            "The game is over. %(how)s. It takes no more moves, draw offers or resignations: "
            "open the game page to see the final position and the result.",
            how=games.fill_names(sentence, names),
        )
    )
