"""The game page of one seat, move confirmation by POST, submission status.

The page also shows the game's clock (the deadline and the time left of the player to move, in
`<time>` elements that `pbem/static/clock.js` puts in the reader's own time), every seat's
standing (left the game, resigned, on vacation), a standing draw offer or proposal to cancel, and
the buttons of `pbem.web.game_actions` (offer a draw, resign, cancel, invite someone else).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from flask import Blueprint, redirect, render_template, request, url_for
from markupsafe import Markup
from werkzeug.wrappers import Response

from pbem import bots, dispatch, i18n
from pbem.domain import (
    bot_seats,
    cancelling,
    clock_task,
    endings,
    moves,
    turns,
    views,
    when,
    wording,
)
from pbem.domain.errors import GameOver, MoveRefused, NotYourTurn, StalePly
from pbem.extensions import settings
from pbem.games.base import seat_mark
from pbem.models import ACTIVE, DROPPED, INVITING, RESIGNED, RUNNING, Game, Seat, utcnow
from pbem.web import boardkit
from pbem.web.access import claims_for, seat_for, submission_for
from pbem.web.errors import refusal
from pbem.web.limits import shorten

bp = Blueprint("play", __name__)


@bp.get("/play/<token>")
def page(token: str) -> str:
    return game_page(seat_for(token=token), token)


@bp.post("/play/<token>")
def submit(token: str) -> Response | tuple[str, int]:
    claims = claims_for(token=token)
    move = request.form.get("move_text", "").strip() or request.form.get("move", "")
    try:
        ply = int(request.form["ply"])
    except (KeyError, ValueError):
        return refusal(
            "bad_request",
            i18n.gettext(
                "The form did not say which move of the game it was for. Reload the game page "
                "and send the move from there."
            ),
            400,
            back=url_for("play.page", token=token),
        )
    try:
        submission_id = moves.submit_move(claims, move, ply)
    except MoveRefused as exc:
        page = game_page(seat_for(token=token), token, error=exc.message, typed=shorten(move))
        return page, exc.status
    except (StalePly, NotYourTurn, GameOver) as exc:
        return refusal(exc.code, exc.message, exc.status, back=url_for("play.page", token=token))
    dispatch.apply_move_later(submission_id)
    return redirect(url_for("play.submission", submission_id=submission_id, token=token), 303)


@bp.app_template_global("game_history")
def game_history(seat: Seat, token: str) -> dict[str, Any]:
    """The game page's list of moves (templates/pages/_history.html): each in the engine's words
    with the players' names, its notation beside, and the link to the position after it."""
    game = seat.game
    names = views.names(game)
    colours = boardkit.seat_colours(game)
    moves = []
    for m in views.history(game):
        said = views.said(m.ply, m.seat, m.move, m.words, names, m.autopilot)
        colour = colours[m.seat] if 0 <= m.seat < len(colours) else ""
        moves.append(
            {
                "number": said.number,
                "seat": m.seat,
                "colour": colour,
                "mark": seat_mark(colour),
                "who": said.who,
                "move": m.move,
                "words": said.words,
                "autopilot": said.autopilot_note,
                "href": url_for("boardkit.replay_page", token=token, ply=said.number),
            }
        )
    return {
        "moves": moves,
        "plies": game.ply,
        "start_href": url_for("boardkit.replay_page", token=token, ply=0),
        "record_href": url_for("api.record", game_id=game.id, token=token),
        "dashboard_href": url_for("dashboard.signin_form"),
    }


@bp.get("/submission/<int:submission_id>")
def submission(submission_id: int) -> str:
    seat = seat_for()
    row = submission_for(seat, submission_id)
    return render_template(
        "pages/submission.html",
        submission=row,
        game=seat.game,
        title=views.engine(seat.game).title,
        pic=views.picture(seat),
        token=request.args.get("token", ""),
    )


@bp.get("/games/<game_id>/record.json")
def old_record(game_id: str) -> Response:
    """The game record's former address: it lives in the API now."""
    query = f"?{request.query_string.decode()}" if request.query_string else ""
    return redirect(url_for("api.record", game_id=game_id) + query, 308)


def game_page(
    seat: Seat,
    token: str,
    error: str | None = None,
    typed: str = "",
    **extra: object,
) -> str:
    """The game page; `extra` goes to the template (the reinvite form's error and values)."""
    pic = views.picture(seat)
    game = seat.game
    zone = seat.player.time_zone
    clock = clock_view(game, pic.names, zone)
    me = clock.seats[seat.seat] if seat.seat < len(clock.seats) else None
    active = me is None or me.state == ACTIVE
    legal = pic.legal_moves()
    to_move = turns.waiting_on(game)
    mover = game.seats[to_move] if to_move is not None else None
    offer = cancel_offer_for(game, pic.names)
    done = request.args.get("done", "")
    return render_template(
        "pages/play.html",
        pic=pic,
        game=game,
        seat=seat,
        token=token,
        board=board_svg(pic),
        legal=legal,
        groups=group_moves(legal),
        error=error,
        typed=typed,
        clock=clock,
        me=me,
        actions=actions_for(game, seat, clock, active, offer),
        cancel_offer=offer,
        players=players_of(game) if game.status == INVITING else [],
        cancel_by=instant(cancelled_by(game), zone),
        done=done_notice(done, game, seat),
        news=news_for(game, seat, pic.names),
        bot_name=autopilot_name(seat.autopilot_bot),
        autopilot_choices=AUTOPILOT_CHOICES,
        bot_to_move=mover is not None and views.SeatInfo.of(mover).played_by is not None,
        **extra,
    )


# The bots a player may hand their seat to, as the autopilot forms offer them, the default first.
# (The words are translated when shown; the dashboard shows what comes before the colon.)
AUTOPILOT_CHOICES = (
    ("greedy", i18n.lazy_gettext("pbem Greedy: quick, plays for the best score of each turn")),
    ("mcts", i18n.lazy_gettext("pbem MCTS: pbem's strongest, searches ahead")),
)


@bp.app_template_global("autopilot_name")
def autopilot_name(kind: str | None) -> str:
    """The name of the bot that plays (or would play) a seat on autopilot."""
    return bots.get(bot_seats.played_by(None, True, kind) or bot_seats.AUTOPILOT_DEFAULT).name


# --- the clock as the pages show it ------------------------------------------------------------

# A seat's standing in words, after its player's name (translated when shown).
STATE_WORDS = {
    DROPPED: i18n.lazy_gettext("left the game (out of time)"),
    RESIGNED: i18n.lazy_gettext("resigned"),
}

# What the page says after an action of `pbem.web.game_actions` (`?done=<key>`), translated
# when shown.
DONE = {
    "resigned": i18n.lazy_gettext("You resigned."),
    "left": i18n.lazy_gettext("You resigned and left the game; the others play on without you."),
    "draw_offered": i18n.lazy_gettext(
        "Your draw offer was sent. It lapses if you move before it is answered."
    ),
    "draw_accepted": i18n.lazy_gettext("You accepted the draw: the game is drawn."),
    "draw_declined": i18n.lazy_gettext("You declined the draw offer; the game goes on."),
    "cancelled": i18n.lazy_gettext("You cancelled the game; every player is told by email."),
    "cancel_agreed": i18n.lazy_gettext(
        "You agreed to cancel the game. It is cancelled, without a result, if every player "
        "agrees; the others are asked by email."
    ),
    "cancel_declined": i18n.lazy_gettext("You declined cancelling the game; it goes on."),
    "reinvited": i18n.lazy_gettext("The invitation is on its way."),
    "autopilot_on": i18n.lazy_gettext(
        "Your seat is on autopilot: pbem's bot plays it until you take it back."
    ),
    "autopilot_off": i18n.lazy_gettext("You play your seat again."),
}


@dataclass(frozen=True)
class Instant:
    """An instant for a `<time>` element: ISO 8601 UTC for the script, words for the reader."""

    iso: str
    words: str


def instant(at: datetime | None, zone: str | None = None) -> Instant | None:
    """`at` (naive UTC) in words: in `zone` with UTC beside, or in UTC when it has none."""
    if at is None:
        return None
    # Whole seconds: HTML's date-time strings take at most three digits of a second.
    iso = when.iso(at.replace(microsecond=0))
    assert iso is not None
    return Instant(iso, when.in_words(at, zone))


def time_left_words(seconds: float | None) -> str:
    """ "2 days 3 hours left", "5 hours 10 minutes left", "12 minutes left"; rounded down, so
    that the page never promises time there is not. "" without a clock."""
    if seconds is None:
        return ""
    whole = max(0, math.floor(seconds))
    if whole <= 0:
        return i18n.gettext("no time left")
    if whole < 60:
        return i18n.gettext("less than a minute left")
    days, rest = divmod(whole, 86_400)
    hours, rest = divmod(rest, 3_600)
    minutes = rest // 60
    day, hour, minute = wording.DAY, wording.HOUR, wording.MINUTE
    if days:
        parts = [wording.span(days, day)] + ([wording.span(hours, hour)] if hours else [])
    elif hours:
        parts = [wording.span(hours, hour)] + ([wording.span(minutes, minute)] if minutes else [])
    else:
        parts = [wording.span(minutes, minute)]
    return i18n.gettext("%(time)s left", time=" ".join(parts))


@dataclass(frozen=True)
class SeatClock:
    """One seat's line of the clock: its standing and, while away, its return."""

    seat: int
    name: str
    state: str  # active, dropped or resigned
    state_words: str  # "" while active
    away_until: Instant | None


@dataclass(frozen=True)
class ClockView:
    """A game's clock as its page shows it."""

    describe: str  # "3 days per move", "no time limit"
    kind: str
    weekends_free: bool
    deadline: Instant | None  # the player to move's; projected from their return while away
    time_left_s: int | None  # the player to move's counted seconds left
    time_left: str  # the same in words
    paused: bool  # the player to move is away: their clock is stopped
    to_move: int | None
    seats: list[SeatClock]
    draw_offered_by: int | None

    @property
    def mover(self) -> SeatClock | None:
        return self.seats[self.to_move] if self.to_move is not None else None


def clock_view(
    game: Game, names: list[str], zone: str | None, now: datetime | None = None
) -> ClockView:
    timing = views.timing(game, now or utcnow())
    left = timing.time_left_s
    seats = [
        SeatClock(
            s.seat,
            names[s.seat] if s.seat < len(names) else f"seat {s.seat}",
            s.state,
            str(STATE_WORDS.get(s.state, "")),
            instant(s.away_until, zone),
        )
        for s in timing.seats
    ]
    return ClockView(
        describe=timing.clock.describe(),
        kind=timing.clock.kind,
        weekends_free=timing.clock.weekends_free,
        deadline=instant(timing.deadline, zone),
        time_left_s=None if left is None else max(0, math.floor(left)),
        time_left=time_left_words(left) if timing.deadline is not None else "",
        paused=timing.paused,
        to_move=timing.to_move,
        seats=seats,
        draw_offered_by=timing.draw_offered_by,
    )


@dataclass(frozen=True)
class Actions:
    """What the viewing seat may do besides moving, each a button of the page."""

    offer_draw: bool
    answer_draw: bool
    resign: bool
    cancel: bool  # cancel a game not started (the organiser), or propose cancelling it
    # Agree to the proposal to cancel standing, or decline it (or withdraw one's agreement).
    agree_cancel: bool = False
    decline_cancel: bool = False
    # The seat's player may hand it to one of pbem's bots (autopilot), or take it back.
    autopilot: bool = False
    on_autopilot: bool = False

    @property
    def any(self) -> bool:
        return self.offer_draw or self.answer_draw or self.resign or self.cancel


def actions_for(
    game: Game, seat: Seat, clock: ClockView, active: bool, offer: CancelOffer | None = None
) -> Actions:
    running = game.status == RUNNING and active
    two = len(game.seats) == 2
    offered = clock.draw_offered_by
    piloted = seat.autopilot_since is not None
    return Actions(
        # While the bot plays the seat, it answers draw offers too.
        offer_draw=running and two and offered is None and not piloted,
        answer_draw=running
        and two
        and offered is not None
        and offered != seat.seat
        and not piloted,
        resign=running,
        # Before the start the organiser's alone; once started, any player's proposal (the
        # domain has the last word). Not by a player who has left: the others play on.
        cancel=active
        and can_be_cancelled(game)
        and (is_organiser(game, seat) if game.status == INVITING else offer is None),
        agree_cancel=running and offer is not None and seat.seat in offer.waiting,
        decline_cancel=running and offer is not None,
        autopilot=running and seat.player.bot is None,
        on_autopilot=piloted,
    )


@dataclass(frozen=True)
class CancelOffer:
    """A proposal to cancel a started game, as its page shows it."""

    agreed: tuple[int, ...]
    waiting: tuple[int, ...]  # the players still to answer
    agreed_names: str  # "Alice", "Alice and Bob"
    waiting_names: str


def cancel_offer_for(game: Game, names: list[str]) -> CancelOffer | None:
    """The proposal to cancel standing in a game nobody has moved in; None when there is
    none."""
    offer = cancelling.of_game(game)
    if not offer.standing:
        return None
    return CancelOffer(
        offer.agreed,
        offer.waiting,
        wording.and_list([names[s] for s in offer.agreed]),
        wording.and_list([names[s] for s in offer.waiting]),
    )


def is_organiser(game: Game, seat: Seat) -> bool:
    return game.organiser_id is not None and game.organiser_id == seat.player_id


def can_be_cancelled(game: Game) -> bool:
    """Nobody has moved yet (the domain has the last word)."""
    return game.status == INVITING or (game.status == RUNNING and game.ply == 0)


@dataclass(frozen=True)
class InvitedSeat:
    """A seat of a game still gathering players, as its organiser sees it."""

    seat: int
    email: str | None  # None for a bot's seat
    accepted: bool
    lapsed: bool  # the invitation expired unaccepted: the organiser may invite someone else


def players_of(game: Game) -> list[InvitedSeat]:
    return [
        InvitedSeat(s.seat, s.player.email, s.accepted_at is not None, s.expired_at is not None)
        for s in game.seats
    ]


def cancelled_by(game: Game) -> datetime | None:
    """When a game still short of players is cancelled (`pbem.domain.clock_task`: twice the
    invitation time after the organiser's confirmation); None once it has started."""
    if game.status != INVITING or game.confirmed_at is None:
        return None
    return clock_task.cancel_at(settings(), game.confirmed_at)


def done_notice(done: str, game: Game, seat: Seat) -> str:
    """What the page says after an action (`DONE`); nothing for a draw offer that still stands,
    since the offer's own notice (`_draw_offer.html`) says it already."""
    if done == "draw_offered" and game.status == RUNNING and game.draw_offered_by == seat.seat:
        return ""
    return str(DONE.get(done, ""))


def news_for(game: Game, seat: Seat, names: list[str]) -> str:
    """What happened since this seat's last look that the board does not show: the opponent
    declined its draw offer (told by email too)."""
    if game.status != RUNNING or game.draw_offered_by is not None:
        return ""
    happened = views.events(game)
    last = happened[-1] if happened else None
    if (
        last is not None
        and last.kind == endings.DRAW_DECLINED
        and last.ply == game.ply
        and last.seat is not None
        and last.seat != seat.seat
    ):
        return i18n.gettext(
            "%(name)s declined your draw offer; the game goes on.", name=names[last.seat]
        )
    return ""


def group_moves(moves: list[str]) -> list[tuple[str, list[str]]]:
    """Moves grouped by their first word ("place", "flip"), so a long list stays navigable.

    One group with an empty label when grouping would not help.
    """
    groups: dict[str, list[str]] = {}
    for move in moves:
        groups.setdefault(move.split(" ", 1)[0] if " " in move else "", []).append(move)
    if len(groups) < 2 or len(moves) < 20:
        return [("", moves)]
    return list(groups.items())


def board_svg(pic: views.SeatPicture) -> Markup | None:
    """The seat's board as inline SVG (trusted: drawn by our own renderers, which escape text)."""
    if pic.state is None:
        return None
    svg = views.engine(pic.game).render_svg(
        pic.state, pic.seat.seat, pic.names, wording.game_language(pic.game.engine)
    )
    # Inline SVG must not carry an XML prolog or doctype.
    svg = re.sub(r"^\s*<\?xml[^>]*\?>\s*", "", svg)
    svg = re.sub(r"^\s*<!DOCTYPE[^>]*>\s*", "", svg)
    return Markup(svg)
