"""What pages, mail and the API show of a game: its players' names, a seat's picture of it, its
moves, its record, and past positions replayed from the seed."""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime
from functools import cached_property
from typing import Any, Protocol, Self

from sqlalchemy import select

from pbem import games
from pbem.domain import bot_seats, clocks, outcomes, turns, wording
from pbem.domain.move_lists import RECENT_MOVES as RECENT_MOVES
from pbem.domain.move_lists import RecentMove as RecentMove
from pbem.domain.move_lists import move_json as move_json
from pbem.domain.move_lists import recent_moves as recent_moves
from pbem.domain.move_lists import said as said
from pbem.domain.names import display_names
from pbem.domain.turns import move_number as move_number
from pbem.extensions import db
from pbem.models import (
    ACTIVE,
    CANCELLED,
    EVERY_TURN,
    FINISHED,
    RUNNING,
    Game,
    GameEvent,
    Move,
    Player,
    Seat,
    utcnow,
)

# What plays a seat: a person, or a bot (pbem.domain.bot_seats).
HUMAN, BOT = "human", "bot"


class OfEngine(Protocol):
    @property
    def engine(self) -> str: ...


def engine(game: OfEngine) -> games.Game:
    """The rules a game is played by."""
    return games.get(game.engine)


def load_state(game: Game) -> games.State | None:
    """The engine state of a running or finished game; None while it is inviting.

    A game the service ended (a resignation, a timeout, a draw agreed, a cancellation) reads as
    settled with the service's outcome, so that every surface drawn from it shows it over."""
    if game.state is None:
        return None
    return settle(engine(game).from_json(game.state), game.outcome)


def settle(state: games.State, outcome: Mapping[str, Any] | None) -> games.State:
    """`state` ended by `outcome` (a game's stored one) when the service, not the rules, ended
    it; as it is otherwise."""
    sentence = outcomes.sentence(outcome)
    if outcome is None or state.outcome is not None or sentence is None:
        return state
    ended = games.Outcome.from_json(outcome)
    return state.settled(replace(ended, details={**ended.details, games.SAID: sentence}))


def names(game: Game) -> list[str]:
    """How each seat is called in pages and emails: its player's name, else its colour; never
    anything taken from an address (`pbem.domain.names`)."""
    return display_names(game.engine, [seat.player.name for seat in game.seats])


def who_plays(seat: Seat) -> dict[str, Any]:
    """What the API says of who plays a seat: `kind` (a person or a bot), the bot's kind for a
    bot's seat, and whether one of pbem's bots plays a person's seat for them (autopilot), and
    which."""
    bot = seat.player.bot
    piloted = seat.autopilot_since is not None
    return {
        "kind": HUMAN if bot is None else BOT,
        "bot": bot,
        "autopilot": piloted,
        "autopilot_bot": (seat.autopilot_bot or "greedy") if piloted else None,
    }


def seat_names(game: OfEngine, seats: Sequence[SeatInfo]) -> list[str]:
    """`names` for a game read with Core: `seats` are all its seats, in seat order."""
    return display_names(game.engine, [seat.name for seat in seats])


# The columns of a game that `GameFacts.of` reads.
GAME_FACTS = (
    Game.id,
    Game.engine,
    Game.status,
    Game.ply,
    Game.to_move,
    Game.thread_message_id,
    Game.outcome,
    Game.title,
    Game.language,
)


@dataclass
class GameFacts:
    """A game as a move left it, for the emails written in the same transaction."""

    id: str
    engine: str
    status: str
    ply: int
    to_move: int | None
    thread_message_id: str
    # Set when the game ended: the engine's outcome, or the service's (pbem.domain.outcomes).
    outcome: dict[str, Any] | None = None
    # The organiser's name for the game (Game.title); None: unnamed. Mail heads with it.
    # Keyword-only, so that subclasses' positional fields (applying.Playing) keep their places.
    title: str | None = field(default=None, kw_only=True)
    # The game's language (pbem.i18n): its mail to those who have not chosen one.
    language: str | None = field(default=None, kw_only=True)

    @classmethod
    def of(cls, row: Any, **more: Any) -> Self:
        """The facts of a game row (or ORM object) with its `id`, `engine`, `status`, `ply`,
        `to_move`, `thread_message_id`, `outcome`, `title` and `language`; `more` for a
        subclass's fields."""
        return cls(
            row.id,
            row.engine,
            row.status,
            row.ply,
            row.to_move,
            row.thread_message_id,
            row.outcome,
            title=row.title,
            language=row.language,
            **more,
        )

    @staticmethod
    def at(game: Any, state: games.State, ply: int) -> GameFacts:
        """`game` (with its `id`, `engine`, `thread_message_id`, `title` and `language`) once a
        move, or the deal, left it at `state` and `ply`."""
        outcome = state.outcome
        return GameFacts(
            game.id,
            game.engine,
            RUNNING if outcome is None else FINISHED,
            ply,
            state.to_move,
            game.thread_message_id,
            outcome.to_json() if outcome is not None else None,
            title=game.title,
            language=game.language,
        )


@dataclass(frozen=True)
class SeatInfo:
    """A seat with its player's address: what links and emails need of it."""

    id: int
    game_id: str
    seat: int
    player_id: int
    nonce: str
    email: str | None  # None for a bot: it is never written an email
    player_nonce: str  # signs the player's dashboard link
    time_zone: str | None = None  # the player's, for the times their emails give
    name: str | None = None  # the player's display name (None: called by the seat's colour)
    mail_preference: str = EVERY_TURN  # every, digest or none: which turn mail they want
    bounced: bool = False  # mail to the address bounced: nothing more is sent to it
    bot: str | None = None  # the kind of bot whose seat it is (None: a person's)
    autopilot: bool = False  # a person's seat a bot plays for them for now
    autopilot_bot: str | None = None  # the bot its player handed it to, while on autopilot
    language: str | None = None  # the player's (pbem.i18n); None: not chosen, the game's then

    @property
    def played_by(self) -> str | None:
        """The bot that plays the seat now (None: its player does)."""
        return bot_seats.played_by(self.bot, self.autopilot, self.autopilot_bot)

    @classmethod
    def of(cls, seat: Seat) -> SeatInfo:
        player = seat.player
        return cls(
            seat.id,
            seat.game_id,
            seat.seat,
            seat.player_id,
            seat.nonce,
            player.email,
            player.nonce,
            player.time_zone,
            player.name,
            player.mail_preference or EVERY_TURN,
            player.bounced_at is not None,
            player.bot,
            seat.autopilot_since is not None,
            seat.autopilot_bot,
            player.language,
        )

    @classmethod
    def of_row(cls, row: Any) -> SeatInfo:
        """From a Core row that selected the SEAT_INFO columns (and maybe more)."""
        return cls(
            row.id,
            row.game_id,
            row.seat,
            row.player_id,
            row.nonce,
            row.email,
            row.player_nonce,
            row.time_zone,
            row.name,
            row.mail_preference or EVERY_TURN,
            row.bounced_at is not None,
            row.bot,
            row.autopilot_since is not None,
            row.autopilot_bot,
            row.language,
        )


# SeatInfo's fields as columns (joined with Player), for Core reads.
SEAT_INFO = (
    Seat.id,
    Seat.game_id,
    Seat.seat,
    Seat.player_id,
    Seat.nonce,
    Player.email,
    Player.nonce.label("player_nonce"),
    Player.time_zone,
    Player.name,
    Player.mail_preference,
    Player.bounced_at,
    Player.bot,
    Seat.autopilot_since,
    Seat.autopilot_bot,
    Player.language,
)


@dataclass
class SeatPicture:
    """One seat's picture of a game: what its page, its emails and the API show."""

    game: Game | GameFacts
    seat: Seat | SeatInfo
    state: games.State | None
    names: list[str]
    # The last moves, oldest first: RecentMove, or plain (ply, who, move) tuples made into ones.
    recent: list[tuple[int, str, str]] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.recent = [m if isinstance(m, RecentMove) else RecentMove(*m[:3]) for m in self.recent]

    @property
    def title(self) -> str:
        return engine(self.game).title

    @property
    def turn_number(self) -> int:
        """The number people give the turn being played (`State.turn_number`): both actions of
        a turn of two have one."""
        return self.state.turn_number if self.state is not None else move_number(self.game.ply)

    @property
    def last_turn(self) -> list[RecentMove]:
        """The last turn's moves, oldest first: the last moves of one player, as many as a turn
        has actions (both actions of a turn of two, told together)."""
        most = max(1, self.state.actions_left) if self.state is not None else 1
        last: list[RecentMove] = []
        for move in reversed(self.recent):
            if len(last) == most or (last and move[1] != last[0][1]):
                break
            last.insert(0, move if isinstance(move, RecentMove) else RecentMove(*move[:3]))
        return last

    @property
    def your_turn(self) -> bool:
        """Whether the game waits on this seat (its bot may be the one to move: autopilot)."""
        return turns.waiting_on(self.game) == self.seat.seat

    @cached_property
    def verdict(self) -> turns.Verdict:
        """Whether the seat's player may move now (`turns.may_act`); pages and the API only:
        a letter's seat is a SeatInfo."""
        assert isinstance(self.seat, Seat)
        return may_move(self.seat)

    @property
    def may_move(self) -> bool:
        return bool(self.verdict)

    @property
    def opponents(self) -> list[str]:
        """The other players still in the game (not those who left it)."""
        gone = set(self.state.dropped) if self.state is not None else set()
        return [
            name
            for index, name in enumerate(self.names)
            if index != self.seat.seat and index not in gone
        ]

    @cached_property
    def scores(self) -> list[tuple[str, int]]:
        # Cached: a mail's text and HTML both show them, and some engines count them up.
        if self.state is None:
            return []
        return list(zip(self.names, self.state.scores(), strict=False))

    @cached_property
    def legend(self) -> list[tuple[str, int, str, str]]:
        """Each seat as the board picture shows it, beside its score: (name, score, colour word,
        letter). The picture has no words, so the email says which colour and letter is whom."""
        if self.state is None:
            return []
        seats = self.state.summary(None).seats
        out = []
        for i, (who, score) in enumerate(self.scores):
            colour = seats[i].colour.strip() if i < len(seats) else ""
            # A colour word goes into a style attribute: letters only, else no chip.
            colour = colour if colour.isascii() and colour.isalpha() else ""
            out.append((who, score, colour, games.seat_mark(colour)))
        return out

    @property
    def outcome_text(self) -> str:
        """How the game ended, in words with the players' names ("" while it runs)."""
        sentence = outcomes.sentence(self.game.outcome)
        if sentence is None and self.state is not None:
            ended = self.state.describe_outcome()
            sentence = wording.game_words(ended, self.game.engine) if ended else None
        return games.fill_names(sentence, self.names) if sentence else ""

    @cached_property
    def score_label(self) -> str:
        """What the scores count, plural ("fish", "points"); "" before the game starts."""
        if self.state is None:
            return ""
        label = self.state.summary(self.seat.seat).score_label
        return wording.game_words(label, self.game.engine)

    @cached_property
    def board_text(self) -> str:
        """The board from this seat as the engine draws it in text, for a mail's text part ("" until
        the game starts)."""
        if self.state is None:
            return ""
        return engine(self.game).render_text(
            self.state, self.seat.seat, self.names, wording.game_language(self.game.engine)
        )

    @property
    def to_move_name(self) -> str | None:
        to_move = turns.waiting_on(self.game)
        return self.names[to_move] if to_move is not None else None

    def legal_moves(self) -> list[str]:
        """The moves the seat's player may make now: none unless `may_move`."""
        if self.state is None or not self.may_move:
            return []
        return self.state.legal_moves()

    def view(self) -> dict[str, Any] | None:
        """The engine's view for this seat as pbem shows it (`seat_view`); None before the
        start."""
        if self.state is None:
            return None
        return seat_view(self.game.status, self.state, self.seat.seat, self.may_move)


def seat_view(status: str, state: games.State, seat: int, may_move: bool) -> dict[str, Any]:
    """`state.view(seat)` with the turn as `turns.may_act` has it: its legal moves are the
    seat's own, none unless it `may_move`; once the game is over nobody is to move.

    The service ends games whose engine state goes on (a resignation, a timeout, a draw agreed,
    a cancellation): that state would still offer the moves of the player who was to move; and
    an engine lists the mover's moves to every seat, the one on autopilot or out of time too.
    """
    view = state.view(seat)
    blanks: dict[str, Any] = {} if may_move else {"legal_moves": []}
    if status != RUNNING:
        blanks["to_move"] = None
    return {**view, **{key: blank for key, blank in blanks.items() if key in view}}


def may_move(seat: Seat, now: datetime | None = None) -> turns.Verdict:
    """Whether `seat`'s player may make a move now (`turns.may_act`)."""
    return turns.may_act(seat.game, turns.Sitter.of(seat), now or utcnow())


def picture(seat: Seat, recent: int = RECENT_MOVES) -> SeatPicture:
    game = seat.game
    who = names(game)
    moves = recent_moves(db.session.connection(), game.id, who, recent) if recent else []
    return SeatPicture(game, seat, load_state(game), who, moves)


def history(game: Game) -> list[Move]:
    return list(
        db.session.execute(select(Move).where(Move.game_id == game.id).order_by(Move.ply)).scalars()
    )


def events(game: Game) -> list[GameEvent]:
    """What happened to the game besides its moves, in order."""
    return list(
        db.session.execute(
            select(GameEvent).where(GameEvent.game_id == game.id).order_by(GameEvent.id)
        ).scalars()
    )


def _drops(game: Game) -> dict[int, list[int]]:
    """The seats that left the game (and the engine dropped), by the ply they left at."""
    drops: dict[int, list[int]] = {}
    for event in events(game):
        if event.seat is not None and (event.detail or {}).get("dropped"):
            drops.setdefault(event.ply, []).append(event.seat)
    return drops


def replay(game: Game) -> Iterator[games.State]:
    """Every position of the game from the start, replayed from its seed and recorded moves;
    a seat that left is dropped at the ply it left at, as it was in play."""
    drops = _drops(game)

    def dropping(state: games.State, ply: int) -> games.State:
        for seat in drops.get(ply, []):
            state = state.drop(seat)
        return state

    state = dropping(engine(game).new(len(game.seats), game.options, game.seed), 0)
    yield state
    for move in history(game):
        state = dropping(state.play(move.move), move.ply + 1)
        yield state


def position_after(game: Game, ply: int) -> games.State | None:
    """The state after `ply` moves (0 = the start); None when the game has no such position.
    The last position of a game the service ended is settled, as `load_state` reads it: its
    board says the game is over, not whose turn it was."""
    for index, state in enumerate(replay(game)):
        if index == ply:
            return settle(state, game.outcome) if ply == game.ply else state
    return None


# The record's version: 2 gives the seed only once the game is over.
RECORD_FORMAT = "pbem-record/2"


def game_record(game: Game, viewer: int | None = None) -> dict[str, Any]:
    """The game's record: options, players, moves and events; once the game is over, its seed
    too, so that it can be replayed and checked elsewhere.

    While the game runs the seed stays out: it orders the bag and deals the hands, so anyone
    holding it would see every tile to come. Addresses are shown to their owners only: the
    `viewer` seat's is given, every other is null, and event details that carry one (who a
    lapsed seat went to) leave it out.
    """
    who = names(game)
    over = game.status in (FINISHED, CANCELLED)
    return {
        "format": RECORD_FORMAT,
        "game": game.id,
        "engine": game.engine,
        "title": engine(game).title,
        "name": game.title,
        "options": game.options,
        **({"seed": game.seed} if over else {}),
        "clock": turns.game_clock(game.clock).to_json(),
        "players": [
            {
                "seat": s.seat,
                "name": who[s.seat],
                "email": s.player.email if s.seat == viewer else None,
                **who_plays(s),
                "accepted": s.accepted_at is not None,
                "state": s.state,
            }
            for s in game.seats
        ],
        "status": game.status,
        "ply": game.ply,
        "outcome": game.outcome,
        "moves": [move_json(m) for m in history(game)],
        # Not moves: a replay plays the moves, dropping a seat where an event says it left.
        "events": [
            {
                "ply": e.ply,
                "seat": e.seat,
                "kind": e.kind,
                "detail": _without_addresses(e.detail or {}),
                "at": e.created_at.isoformat() + "Z",
            }
            for e in events(game)
        ],
        "created_at": game.created_at.isoformat() + "Z",
        "started_at": game.started_at.isoformat() + "Z" if game.started_at else None,
        "finished_at": game.finished_at.isoformat() + "Z" if game.finished_at else None,
    }


def _without_addresses(detail: dict[str, Any]) -> dict[str, Any]:
    """An event's detail without the addresses it keeps for the operator (a name never holds
    an "@", so any text that does is an address)."""
    return {k: v for k, v in detail.items() if not (isinstance(v, str) and "@" in v)}


@dataclass(frozen=True)
class SeatTiming:
    """A seat's standing on the clock."""

    seat: int
    state: str  # active, dropped or resigned
    time_left_s: float | None  # the turn in play's, or the next turn's; None without a clock
    away_until: datetime | None  # on vacation until then


@dataclass(frozen=True)
class Timing:
    """A game's clock as pages, emails and the API show it."""

    clock: clocks.Clock
    deadline: datetime | None  # projected from the player's return while they are away
    paused: bool  # the player to move is away: their clock is stopped
    to_move: int | None
    seats: list[SeatTiming]
    draw_offered_by: int | None

    @property
    def time_left_s(self) -> float | None:
        """The player to move's time left."""
        if self.to_move is None:
            return None
        return self.seats[self.to_move].time_left_s


def timing(game: Game, now: datetime | None = None) -> Timing:
    """The clock of `game` at `now`: its deadline, every seat's time and state."""
    now = now or utcnow()
    clock = turns.game_clock(game.clock)
    turn = turns.TurnClock.of(game)
    running = game.status == RUNNING
    seats = []
    mover_away: datetime | None = None
    for seat in game.seats:
        player = seat.player
        away = player.vacation_until if player.vacation_since is not None else None
        bot_plays = player.bot is not None or seat.autopilot_since is not None
        # A bot's turns are not timed: it has no time to count.
        if not running or clock.kind == "none" or seat.state != ACTIVE or bot_plays:
            left = None
        elif seat.seat == game.to_move:
            left = turns.seconds_left(clock, turn, now)
            mover_away = away
        else:
            left = clocks.allowance(clock, seat.bank_seconds)
        seats.append(SeatTiming(seat.seat, seat.state, left, away))
    deadline = turns.shown_deadline(clock, turn, now, mover_away) if running else None
    return Timing(
        clock,
        deadline,
        running and turn.paused_at is not None,
        game.to_move if running else None,
        seats,
        game.draw_offered_by if running else None,
    )
