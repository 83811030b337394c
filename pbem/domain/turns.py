"""Whose turn it is and the turn on the clock.

`may_act` is the one answer to "may this seat act now?" (game over, seat left, autopilot, turn,
deadline): submitting and applying a move ask it, and the API's `your_turn` and legal moves, the
game page's controls, the reply-by-mail answer and the dashboard's "your turn" derive from it.

The turn on the clock is what a game row keeps of it (`turn_started_at`, `deadline`,
`paused_at`, `reminder_at`), worked out when a turn starts, when a clock stops for a vacation
and when it runs again, and when a seat is taken back from the bot; and whether a turn's time
has run out. Pure, like `pbem.domain.clocks`, whose arithmetic it applies."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, Protocol

from pbem import i18n
from pbem.domain import clocks, outcomes, when
from pbem.domain.clocks import NO_CLOCK, Clock
from pbem.domain.errors import (
    GameNotStarted,
    GameOver,
    NotYourTurn,
    OutOfTime,
    ServiceError,
    StalePly,
)
from pbem.models import ACTIVE, CANCELLED, INVITING, RUNNING


def game_clock(data: Mapping[str, Any] | None) -> Clock:
    """A game's stored clock; games made before clocks have none."""
    return NO_CLOCK if data is None else Clock.from_json(data)


@dataclass(frozen=True)
class TurnClock:
    turn_started_at: datetime | None = None
    deadline: datetime | None = None
    paused_at: datetime | None = None  # the player to move is away: their clock stopped then
    reminder_at: datetime | None = None

    def columns(self) -> dict[str, datetime | None]:
        return {
            "turn_started_at": self.turn_started_at,
            "deadline": self.deadline,
            "paused_at": self.paused_at,
            "reminder_at": self.reminder_at,
        }

    @classmethod
    def of(cls, row: Any) -> TurnClock:
        """From a row or object with the four columns."""
        return cls(row.turn_started_at, row.deadline, row.paused_at, row.reminder_at)


# A finished (or not yet started) game has no turn on the clock.
NO_TURN = TurnClock()


def start_turn(
    clock: Clock,
    at: datetime,
    bank_seconds: float | None,
    away: bool,
    reminder_hours: Sequence[float],
) -> TurnClock:
    """A turn starting at `at` for a seat with `bank_seconds` (Fischer). A turn whose player is
    away starts paused: it runs from their return with the whole allowance."""
    deadline = clocks.deadline(clock, at, bank_seconds)
    if deadline is None:
        return TurnClock(at)
    if away:
        return TurnClock(at, deadline, paused_at=at)
    return TurnClock(at, deadline, reminder_at=next_reminder(reminder_hours, at, deadline, at))


def next_reminder(
    reminder_hours: Sequence[float], turn_started: datetime, deadline: datetime, after: datetime
) -> datetime | None:
    """The earliest reminder due after `after` that fits in the turn (a 24-hour reminder does
    not fit in a turn of 12 hours); None when none is left."""
    due = sorted(deadline - timedelta(hours=hours) for hours in reminder_hours)
    return next((at for at in due if at > after and at > turn_started), None)


def pause(turn: TurnClock, at: datetime) -> TurnClock:
    """The clock stopped at `at` (the player to move went away); no reminders while it is."""
    if turn.deadline is None or turn.paused_at is not None:
        return turn
    return TurnClock(turn.turn_started_at, turn.deadline, paused_at=at)


def resume(
    clock: Clock, turn: TurnClock, at: datetime, reminder_hours: Sequence[float]
) -> TurnClock:
    """The clock of a paused turn running again from `at`, with the time it had left."""
    if turn.paused_at is None or turn.deadline is None:
        return turn
    deadline = clocks.resumed(clock, turn.deadline, turn.paused_at, at)
    assert deadline is not None
    started = turn.turn_started_at or turn.paused_at
    return TurnClock(
        started, deadline, reminder_at=next_reminder(reminder_hours, started, deadline, at)
    )


def late(turn: TurnClock, now: datetime) -> bool:
    """Whether the turn's time has run out by `now`. A paused turn is judged at the instant its
    clock stopped: a vacation taken in time keeps it in time, and none can save a turn already
    out of time."""
    if turn.deadline is None:
        return False
    return not clocks.in_time(turn.deadline, turn.paused_at or now)


def taken_back(
    turn: TurnClock, now: datetime, away: bool, reminder_hours: Sequence[float]
) -> TurnClock:
    """A turn its player takes back from the bot at `now`: the start and deadline it had, the
    reminders still ahead, and the clock stopped at once while its player is away."""
    if turn.deadline is None:
        return TurnClock(turn.turn_started_at)
    started = turn.turn_started_at or now
    back = TurnClock(
        started,
        turn.deadline,
        reminder_at=next_reminder(reminder_hours, started, turn.deadline, now),
    )
    return pause(back, now) if away else back


def shifted(turn: TurnClock, gap_seconds: float) -> TurnClock:
    """The turn's deadline and reminder moved later by downtime of `gap_seconds`."""
    gap = timedelta(seconds=gap_seconds)
    return TurnClock(
        turn.turn_started_at,
        clocks.extended(turn.deadline, gap_seconds),
        turn.paused_at,
        turn.reminder_at + gap if turn.reminder_at is not None else None,
    )


def shown_deadline(
    clock: Clock, turn: TurnClock, now: datetime, back_at: datetime | None
) -> datetime | None:
    """The deadline to show: while paused, the one the turn will have if its player comes back
    at `back_at` (the end of their vacation), as things stand at `now`."""
    if turn.deadline is None or turn.paused_at is None:
        return turn.deadline
    return clocks.resumed(clock, turn.deadline, turn.paused_at, max(now, back_at or now))


def seconds_left(clock: Clock, turn: TurnClock, now: datetime) -> float | None:
    """The counted seconds the player to move has left: frozen while the clock is paused."""
    if turn.deadline is None:
        return None
    at = turn.paused_at if turn.paused_at is not None else now
    return clocks.time_left(clock, turn.deadline, at)


# --- may this seat act now? ----------------------------------------------------------------------


class InPlay(Protocol):
    """Whose turn a game is: its status and its engine's seat to move."""

    @property
    def status(self) -> str: ...

    @property
    def to_move(self) -> int | None: ...


class TurnGame(InPlay, Protocol):
    """What deciding a turn reads of a game (a row, an ORM object, a locked game)."""

    @property
    def outcome(self) -> Mapping[str, Any] | None: ...

    @property
    def deadline(self) -> datetime | None: ...

    @property
    def paused_at(self) -> datetime | None: ...


@dataclass(frozen=True)
class Sitter:
    """A seat as deciding its turn sees it: still in the game or not, and whether a bot plays
    it (a bot seat, or one on autopilot). `bot_plays` None: who plays it is not asked (a stored
    move being applied: who sent it was checked when it was stored)."""

    seat: int
    active: bool = True
    bot_plays: bool | None = None

    @classmethod
    def of(cls, seat: Any) -> Sitter:
        """From a Seat with its player."""
        return cls.playing(seat.seat, seat.state, seat.player.bot, seat.autopilot_since)

    @classmethod
    def playing(
        cls, seat: int, state: str, bot: str | None, autopilot_since: datetime | None
    ) -> Sitter:
        """From a seat's columns: its state, its player's bot (None: a person), and when it
        went on autopilot (None: it is not)."""
        return cls(seat, state == ACTIVE, bot is not None or autopilot_since is not None)


# To a seat that resigned, or ran out of time, in a game of three or more that went on.
# (Translated when shown: str() them where a str is needed.)
LEFT_THE_GAME = i18n.lazy_gettext(
    "You have left this game (resigned or out of time): the others play on without you."
)
ON_AUTOPILOT = i18n.lazy_gettext(
    "Your seat is on autopilot: pbem's bot plays it for you. Take it back first (on the game "
    "page or your games page), then make your move."
)
TAKEN_BACK = i18n.lazy_gettext(
    "The seat is played by its player again: the bot's move is not wanted."
)
NOT_YOUR_TURN = i18n.lazy_gettext(
    "It is not your turn: wait for the email telling you it is, then use its link."
)
GAME_OVER = i18n.lazy_gettext("The game is over; no more moves can be made.")
_GAME_OVER = {
    outcomes.TIMEOUT: i18n.lazy_gettext(
        "The game is over: it was lost on time before this move was played."
    ),
    outcomes.RESIGNATION: i18n.lazy_gettext(
        "The game is over: a player resigned before this move was played."
    ),
    outcomes.DRAW_AGREED: i18n.lazy_gettext(
        "The game is over: it was drawn by agreement before this move."
    ),
}


@dataclass(frozen=True)
class Verdict:
    """The answer of `may_act`: true when the seat may act; otherwise `refusal` says why, and
    `whatever_the_ply` whether it holds for any ply (the game not running, the seat gone, the
    wrong one playing it), so that it is said before a stale ply is."""

    refusal: ServiceError | None = None
    whatever_the_ply: bool = False

    def __bool__(self) -> bool:
        return self.refusal is None

    def check(self) -> None:
        if self.refusal is not None:
            raise self.refusal


MAY = Verdict()


def move_number(ply: int) -> int:
    """Plies count from 0; people count moves from 1."""
    return ply + 1


def check_move(verdict: Verdict, ply: int, game_ply: int) -> None:
    """Refuse a move made for `ply` in a game at `game_ply`: what holds whatever the ply first,
    then a stale ply (reloading the page helps), then the rest of the verdict."""
    if verdict.whatever_the_ply:
        verdict.check()
    if ply != game_ply:
        raise StalePly(
            i18n.gettext(
                "This move was for move %(move)d; the game is at move %(now)d. Reload the game "
                "page to see the board as it is now.",
                move=move_number(ply),
                now=move_number(game_ply),
            )
        )
    verdict.check()


def waiting_on(game: InPlay) -> int | None:
    """The seat the game waits on: its seat to move while it runs; nobody once it is over."""
    return game.to_move if game.status == RUNNING else None


def may_act(game: TurnGame, seat: Sitter, now: datetime, by_bot: bool = False) -> Verdict:
    """Whether `seat` may make a move now (`by_bot`: the bot that plays it may), in the order a
    player is told: the game not running, the seat gone, the wrong one playing it (a seat on
    autopilot takes no move from its player, one taken back none from the bot), not its turn,
    its time run out (a paused turn is judged when its clock stopped)."""
    if game.status == INVITING:
        return _outright(
            GameNotStarted(
                i18n.gettext(
                    "The game has not started yet: it starts when every invited player has "
                    "accepted."
                )
            )
        )
    if game.status == CANCELLED:
        return _outright(GameOver(i18n.gettext("The game was cancelled; no moves can be made.")))
    if game.status != RUNNING:
        reason = str((game.outcome or {}).get("reason"))
        return _outright(GameOver(str(_GAME_OVER.get(reason, GAME_OVER))))
    if not seat.active:
        return _outright(NotYourTurn(str(LEFT_THE_GAME)))
    if seat.bot_plays is not None and seat.bot_plays != by_bot:
        return _outright(NotYourTurn(str(TAKEN_BACK if by_bot else ON_AUTOPILOT)))
    if waiting_on(game) != seat.seat:
        return Verdict(NotYourTurn(str(NOT_YOUR_TURN)))
    if game.deadline is not None and not clocks.in_time(game.deadline, game.paused_at or now):
        return Verdict(out_of_time(game.deadline))
    return MAY


def _outright(refusal: ServiceError) -> Verdict:
    return Verdict(refusal, whatever_the_ply=True)


def out_of_time(deadline: datetime) -> OutOfTime:
    """The refusal of anything but a timeout once the turn's time ran out at `deadline`."""
    return OutOfTime(
        i18n.gettext(
            "Your time for this move ran out at %(deadline)s: the game is being settled as a "
            "timeout. Open the game page to see how it ended.",
            deadline=when.in_words(deadline),
        )
    )
