"""A player's games, those waiting for them first, and the sign-in mail that opens the list."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import joinedload

from pbem import i18n, links
from pbem.config import Settings
from pbem.domain import player_letters, when
from pbem.domain.access import signin_token
from pbem.domain.errors import SetupError
from pbem.domain.names import optional_name
from pbem.domain.outbox import write_letters
from pbem.domain.outcomes import CANCELLED as CANCELLED_REASON
from pbem.domain.views import engine, load_state, may_move, names, timing
from pbem.domain.wording import and_list
from pbem.extensions import db
from pbem.games.base import shorten
from pbem.models import (
    ACTIVE,
    CANCELLED,
    FINISHED,
    INVITING,
    MAIL_PREFERENCES,
    RUNNING,
    Game,
    Player,
    Seat,
    utcnow,
)


@dataclass
class GameLine:
    game_id: str
    title: str
    status: str
    your_turn: bool
    move_number: int
    opponents: list[str]
    scores: list[tuple[str, int]]  # (who, score), the player's own first, "you" for theirs
    href: str
    invited: bool
    last_activity: datetime
    clock: str = ""  # the clock in words, "3 days per move" (Clock.describe, translated)
    deadline: datetime | None = None  # the player to move's (projected while they are away)
    paused: bool = False  # the player to move is on vacation
    name: str | None = None  # the organiser's name for the game (Game.title); None: unnamed
    seat: int = 0  # the player's seat in it
    autopilot: bool = False  # one of pbem's bots plays the player's seat for them
    autopilot_bot: str | None = None  # which (greedy or mcts), while on autopilot
    active: bool = True  # the player is still in the game (not resigned or out of time)
    result: str = ""  # a finished game's, from the player's side: "you won", "Blue won"

    @property
    def rank(self) -> int:
        """Waiting for this player first: their move, then an invitation to answer; then games
        waiting for others, then those still gathering players, then the ended ones."""
        if self.your_turn:
            return 0
        if self.invited:
            return 1
        return {RUNNING: 2, INVITING: 3, FINISHED: 4, CANCELLED: 4}.get(self.status, 5)

    @property
    def order(self) -> tuple[int, bool, datetime, float]:
        # Within a rank, the most urgent first: the nearest deadline, then games without one,
        # the most recently active first.
        return (
            self.rank,
            self.deadline is None,
            self.deadline or datetime.max,
            -self.last_activity.timestamp(),
        )


def game_lines(config: Settings, player: Player, now: datetime | None = None) -> list[GameLine]:
    """The player's games, most urgent first. Four queries whatever their number: the seats
    with their games, every seat of those games, and their players."""
    now = now or utcnow()
    seats = (
        db.session.execute(
            select(Seat)
            .where(Seat.player_id == player.id)
            .options(
                joinedload(Seat.game).selectinload(Game.seats).joinedload(Seat.player),
            )
        )
        .unique()
        .scalars()
        .all()
    )
    lines = []
    for seat in seats:
        game = seat.game
        if game.confirmed_at is None and game.organiser_id != player.id:
            continue  # not invited yet: the organiser has to confirm first
        who = names(game)
        state = load_state(game)
        invited = seat.accepted_at is None and game.status == INVITING
        purpose, path = (links.INVITE, "invite") if invited else (links.SEAT, "play")
        clock = timing(game, now)
        gone = set(state.dropped) if state is not None else set()
        lines.append(
            GameLine(
                game_id=game.id,
                title=engine(game).title,
                status=game.status,
                # While on autopilot the bot moves: nothing waits for the player.
                your_turn=bool(may_move(seat, now)),
                move_number=state.turn_number if state is not None else game.ply + 1,
                opponents=[n for i, n in enumerate(who) if i != seat.seat and i not in gone],
                scores=_scores(state.scores(), who, seat.seat) if state is not None else [],
                href=f"/{path}/{links.token_for(config.signing_key, seat, purpose)}",
                invited=invited,
                last_activity=game.finished_at or game.started_at or game.created_at,
                clock=clock.clock.describe(),
                deadline=clock.deadline,
                paused=clock.paused,
                name=game.title,
                seat=seat.seat,
                autopilot=seat.autopilot_since is not None,
                autopilot_bot=seat.autopilot_bot,
                active=seat.state == ACTIVE,
                result=_result(game.outcome, who, seat.seat) if game.status == FINISHED else "",
            )
        )
    lines.sort(key=lambda line: line.order)
    return lines


def _scores(scores: list[int], who: list[str], mine: int) -> list[tuple[str, int]]:
    """Each seat's score by name, the player's own first ("you")."""
    order = [mine, *(i for i in range(len(scores)) if i != mine)]
    you = i18n.gettext("you")
    return [(you if i == mine else who[i], scores[i]) for i in order]


def _result(outcome: dict[str, Any] | None, who: list[str], mine: int) -> str:
    """Who won a finished game, said to the player of seat `mine`."""
    if not outcome or outcome.get("reason") == CANCELLED_REASON:
        return ""
    winners = [w for w in outcome.get("winners") or [] if isinstance(w, int) and w < len(who)]
    if not winners:
        return i18n.gettext("drawn")
    if mine in winners:
        return i18n.gettext("you won") if len(winners) == 1 else i18n.gettext("you shared the win")
    # One form in English; other languages agree the verb with one winner or several.
    return i18n.ngettext(
        "%(winners)s won",
        "%(winners)s won",
        len(winners),
        winners=and_list([who[w] for w in winners]),
    )


def seat_of(player: Player, game_id: str, seat: str) -> Seat | None:
    """The player's seat `seat` (as a form gives it) of the game; None when they hold no such
    seat."""
    if not seat.isdigit() or len(seat) > 2 or len(game_id) > 32:
        return None
    query = select(Seat).where(
        Seat.game_id == game_id, Seat.seat == int(seat), Seat.player_id == player.id
    )
    return db.session.execute(query).scalar_one_or_none()


def request_signin(config: Settings, address: str) -> list[int]:
    """Write a sign-in email when `address` plays here; the outbox ids to send (none if not)."""
    player = db.session.execute(select(Player).where(Player.email == address)).scalar_one_or_none()
    if player is None:
        return []
    link = f"{config.base_url}/signin/{signin_token(config, player)}"
    outbox_ids = write_letters(
        db.session.connection(), config, [player_letters.signin(config, address, link, player.id)]
    )
    db.session.commit()
    return outbox_ids


def set_time_zone(player: Player, zone: str) -> str:
    """Set the zone the player's emails give times in; SetupError for a zone nobody knows."""
    name = when.valid_zone(zone.strip())
    if name is None:
        raise SetupError(
            i18n.gettext(
                "%(zone)s is not a time zone pbem knows: choose one from the list, such as "
                "Europe/Paris or America/New_York.",
                zone=repr(shorten(zone)),
            )
        )
    player.time_zone = name
    db.session.commit()
    return name


def set_name(player: Player, text: str) -> str | None:
    """The name the player chose for themselves (BadName when it cannot be one); empty clears
    it, and they are called by their seat's colour again."""
    player.name = optional_name(text)
    db.session.commit()
    return player.name


def set_mail_preference(player: Player, preference: str) -> str:
    """Which turn mail the player wants: every turn, one daily digest, or none."""
    if preference not in MAIL_PREFERENCES:
        raise SetupError(
            i18n.gettext(
                "%(choice)s is not a mail choice pbem has: choose every turn, one daily digest or "
                "no turn emails.",
                choice=repr(shorten(preference)),
            )
        )
    player.mail_preference = preference
    db.session.commit()
    return preference
