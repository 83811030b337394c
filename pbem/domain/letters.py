"""Each kind of email pbem writes, as a function that gathers its template's context.

A kind of mail is its templates, `templates/mail/<kind>.{subject,txt,html}`, and one function
here; `pbem.domain.outbox.write_letters` renders and stores what these return.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Any

from pbem import bots, games, i18n, links
from pbem.config import Settings
from pbem.domain import board_pictures, glossary, views, when
from pbem.domain.move_groups import MoveGroup
from pbem.domain.outbox import Letter
from pbem.domain.views import GameFacts, SeatInfo, SeatPicture, engine, move_number, settle
from pbem.models import ACTIVE, DIGEST, EVERY_TURN, RUNNING, Game, Player

Recent = list[tuple[int, str, str]]


def _about(
    config: Settings, game: Game | GameFacts, seat: SeatInfo, kind: str, **context: Any
) -> Letter:
    """A letter to one seat about its game; every game template has these names to hand, among
    them `rules_link`, the game's rules for players (None for a game without them).

    Not written when the seat's address bounces: nothing more is sent to it (pbem.domain.bounces).
    It carries the player's one-click unsubscribe (`unsubscribe`).
    """
    context.update(game=game, seat=seat, title=engine(game).title, to=seat.email, name=seat.name)
    context.setdefault("rules_link", glossary.rules_url(config, game.engine))
    # A bot's seat has no address: it is never written an email.
    wanted = seat.email is not None and not seat.bounced
    return Letter(
        seat.email or "",
        kind,
        game,
        context,
        wanted=wanted,
        list_unsubscribe=unsubscribe(config, seat.player_id),
        # Unknown here (a row without it): the outbox reads it (outbox.languages_of).
        language=seat.language or getattr(game, "language", None),
    )


def unsubscribe(config: Settings, player_id: int) -> str:
    """The List-Unsubscribe link of every email to a player (RFC 8058): their mail settings,
    whose one-click POST turns turn mail off; invitations carry the block link instead."""
    return links.mail_settings_url(config, player_id)


def _turn_mail(config: Settings, game: GameFacts, seat: SeatInfo, letter: Letter) -> Letter:
    """A turn or reminder email as the seat's player wants it: written only when they take every
    turn by mail, and not while the search bot plays the seat for them (autopilot), with the
    board when pictures are on."""
    return replace(
        letter,
        wanted=letter.wanted and seat.mail_preference == EVERY_TURN and not seat.autopilot,
        picture=_picture_key(config, game, seat),
    )


def _picture_key(config: Settings, game: GameFacts, seat: SeatInfo) -> str | None:
    """The board picture of the seat's email (pbem.domain.board_pictures); None with pictures
    off."""
    if not config.mail.pictures:
        return None
    over = game.status != RUNNING
    return board_pictures.picture_key(game.id, game.engine, game.ply, seat.seat, over)


def _seat_links(config: Settings, seat: SeatInfo) -> dict[str, str]:
    """`link` to the seat's game page, `games_link` to all the player's games and `mail_link`
    to their mail settings."""
    return {
        "link": links.seat_url(config, seat),
        "games_link": links.player_url(config, seat.player_id, seat.player_nonce),
        "mail_link": links.mail_settings_url(config, seat.player_id),
    }


def invitation(
    config: Settings,
    game: Game,
    seat: SeatInfo,
    creator: str,
    names: list[str],
    organiser: bool = False,
    alone: bool = False,
) -> Letter:
    """`organiser`: the seat is the organiser's own, in a game an operator started for them
    (`pbem new-game`), so the letter does not say they invite themselves; `alone`: every other
    seat is a bot's, so the game starts on this acceptance."""
    letter = _about(
        config,
        game,
        seat,
        "invite",
        creator=creator,
        organiser=organiser,
        alone=alone,
        **_invitation_context(config, game, seat, names),
    )
    return _unasked(config, seat, letter)


def _unasked(config: Settings, seat: SeatInfo, letter: Letter) -> Letter:
    """An invitation (or its confirmation) goes to an address that may never have asked for
    pbem's mail: its List-Unsubscribe is the body's "never email me again" link, whose POST
    blocks invitations to it (turning turn mail off would not stop what the reader
    unsubscribes from)."""
    return replace(letter, list_unsubscribe=links.block_url(config, seat.player_id))


def confirmation(
    config: Settings, game: Game, seat: SeatInfo, names: list[str], invites: bool = True
) -> Letter:
    """To the organiser of a game started from the web form: nobody else is emailed until the
    organiser's POST on this link proves the address is theirs. `invites`: whether anyone is
    to be invited then (not when every other seat is a bot's: the game starts at once)."""
    letter = _about(
        config,
        game,
        seat,
        "confirm",
        invites=invites,
        **_invitation_context(config, game, seat, names),
    )
    return _unasked(config, seat, letter)


def _invitation_context(
    config: Settings, game: Game, seat: SeatInfo, names: list[str]
) -> dict[str, Any]:
    """What an invitation and its confirmation both say: the players, the game's options, the
    link that accepts and the one that refuses every invitation."""
    return {
        "names": names,
        "options": game.options,
        "link": links.invite_url(config, seat),
        "block_link": links.block_url(config, seat.player_id),
    }


def started(
    config: Settings, game: GameFacts, seat: SeatInfo, state: games.State, who: list[str]
) -> Letter:
    pic = SeatPicture(game, seat, state, who)
    letter = _at_board(config, game, seat, "started", pic, hand=own_hand(state, seat.seat))
    return replace(letter, picture=_picture_key(config, game, seat))


def _at_board(
    config: Settings, game: GameFacts, seat: SeatInfo, kind: str, pic: SeatPicture, **context: Any
) -> Letter:
    """A letter showing the game as the seat sees it (`pic`: the board, the last moves), with
    the seat's links."""
    return _about(config, game, seat, kind, pic=pic, **context, **_seat_links(config, seat))


def turn(
    config: Settings,
    game: GameFacts,
    seat: SeatInfo,
    state: games.State,
    who: list[str],
    recent: Recent,
    again: bool = False,
    deadline: datetime | None = None,
    away_until: datetime | None = None,
    news: str = "",
) -> Letter:
    """It is `seat`'s turn. `deadline` is when it runs out (from the player's return, when
    they are away until `away_until`); `news` says what happened first, when not a move.
    A reply to it plays the moves it holds (`pbem.mailin`): its Reply-To names the seat and ply.
    """
    letter = _playable(
        config,
        game,
        seat,
        "turn",
        pic=SeatPicture(game, seat, state, who, recent),
        again=again,
        move_by=_when(deadline, seat),
        away_until=_when(away_until, seat),
        news=news,
        two_actions=_two_actions_left(state),
        hand=own_hand(state, seat.seat),
    )
    return _turn_mail(config, game, seat, letter)


def own_hand(state: games.State, seat: int) -> str:
    """What the seat holds that only it sees ("your tiles: 4, 16, 47"; "" in a game without
    hands), from its own summary: the HTML part shows it beside the board picture, which
    shows only what everyone sees, as the text board does."""
    hand = state.summary(seat).hand
    return hand[:1].upper() + hand[1:] if hand else ""


def _playable(
    config: Settings,
    game: GameFacts,
    seat: SeatInfo,
    kind: str,
    yours: bool = True,
    **context: Any,
) -> Letter:
    """A letter to the seat whose reply plays while it is `yours` to move (`pbem.mailin`): its
    Reply-To, and its templates' `reply_to`, is the seat's reply address at the game's ply
    (None when not `yours`: replies go to MAIL_FROM); it carries the seat's links too."""
    reply_to = links.reply_address(config, seat, game.ply) if yours else None
    context.update(reply_to=reply_to, **_seat_links(config, seat))
    return replace(_about(config, game, seat, kind, **context), reply_to=reply_to)


def _two_actions_left(state: games.State) -> bool:
    """Whether the turn has two actions still to play, so a reply may carry both."""
    return state.actions_left >= 2


def _turn_number(game: GameFacts | Game, state: games.State | None) -> int:
    return state.turn_number if state is not None else move_number(game.ply)


def _when(at: datetime | None, seat: SeatInfo) -> when.Later | str:
    """An instant in the words, zone and language the seat's player reads it in ("" for none)."""
    return when.later(at, seat.time_zone)


def results(
    config: Settings,
    game: GameFacts,
    seats: list[SeatInfo],
    state: games.State,
    who: list[str],
    recent: Recent,
    outcome: games.Outcome | None = None,
) -> list[Letter]:
    """The result to every seat: the engine's `state.outcome`, or `outcome` when the service
    ended the game (a timeout, a resignation, a draw agreed); its board as the game ended."""
    state = settle(state, game.outcome)
    return [
        replace(
            _at_board(
                config,
                game,
                seat,
                "result",
                SeatPicture(game, seat, state, who, recent),
                outcome=outcome or state.outcome,
            ),
            picture=_picture_key(config, game, seat),
        )
        for seat in seats
    ]


def new_links(config: Settings, game: Game, seat: SeatInfo, invited: bool) -> Letter:
    link = links.invite_url(config, seat) if invited else links.seat_url(config, seat)
    return _about(config, game, seat, "links", link=link, invited=invited)


def undeliverable(
    config: Settings,
    game: GameFacts,
    organiser_id: int,
    organiser: str,
    organiser_nonce: str,
    invitee: str,
    reason: str,
) -> Letter:
    """To a game's organiser: the invitation to `invitee` could not be delivered, and why."""
    return Letter(
        organiser,
        "undeliverable",
        game,
        {
            "game": game,
            "title": engine(game).title,
            "to": organiser,
            "invitee": invitee,
            "reason": reason,
            "link": links.player_url(config, organiser_id, organiser_nonce),
            "rules_link": glossary.rules_url(config, game.engine),
        },
        list_unsubscribe=unsubscribe(config, organiser_id),
    )


def left(
    config: Settings,
    game: GameFacts,
    seat: SeatInfo,
    state: games.State,
    who: list[str],
    leaver: int,
    kind: str,
    recent: Recent | None = None,
) -> Letter:
    """A seat left a game that goes on (out of time, or resigned): to every seat but the one
    whose turn it is now (told by its turn email), the leaver included."""
    pic = SeatPicture(game, seat, state, who, recent or [])
    you, timed_out = leaver == seat.seat, kind == "timeout"
    return _at_board(
        config, game, seat, "left", pic, leaver=who[leaver], you=you, timed_out=timed_out
    )


def autopilot(
    config: Settings,
    game: GameFacts,
    seat: SeatInfo,
    state: games.State,
    who: list[str],
    pilot: int,
    recent: Recent | None = None,
    kind: str = bots.SEARCH,
) -> Letter:
    """A seat ran out of time in a game under the autopilot policy: the bot of that `kind`
    plays it from now on. To everyone, its own player told how to take the seat back."""
    pic = SeatPicture(game, seat, state, who, recent or [])
    # The player may hand the seat to the stronger bot instead: the letter names it.
    stronger = bots.get(bots.SEARCH).name if kind != bots.SEARCH else None
    extra = {"pilot": who[pilot], "bot": bots.get(kind).name, "you": pilot == seat.seat}
    return _at_board(config, game, seat, "autopilot", pic, stronger=stronger, **extra)


def draw(
    config: Settings, game: GameFacts, seat: SeatInfo, who: list[str], by: int, kind: str
) -> Letter:
    """A draw offer (`draw_offer`) to the opponent, or its refusal (`draw_declined`) to the
    player who offered it; `by` is the seat that acted."""
    return _about(config, game, seat, kind, by=who[by], **_seat_links(config, seat))


def cancel_offer(
    config: Settings, game: GameFacts, seat: SeatInfo, who: list[str], by: int, kind: str
) -> Letter:
    """A proposal to cancel a started game (`cancel_offer`) to each player still to answer it,
    or its refusal (`cancel_declined`) to those who had agreed; `by` is the seat that acted."""
    return _about(config, game, seat, kind, by=who[by], **_seat_links(config, seat))


def cancelled(
    config: Settings,
    game: GameFacts,
    seat: SeatInfo,
    who: list[str],
    by_organiser: bool,
    agreed: bool = False,
) -> Letter:
    """The game was cancelled before anyone moved: by its organiser before it started, by every
    player's agreement (`agreed`) once it had, or by pbem when its seats were not all taken in
    time."""
    return _about(
        config,
        game,
        seat,
        "cancelled",
        names=who,
        by_organiser=by_organiser,
        agreed=agreed,
        games_link=links.player_url(config, seat.player_id, seat.player_nonce),
    )


def reminder(
    config: Settings,
    game: GameFacts,
    seat: SeatInfo,
    who: list[str],
    deadline: datetime,
    hours_left: float,
) -> Letter:
    """To the player to move, some hours before their deadline; a reply to it plays, as a
    reply to the turn email does. A player on the daily digest gets it too, as its own email:
    the digest may come after the deadline, and missing it costs the game."""
    letter = _playable(
        config,
        game,
        seat,
        "reminder",
        names=who,
        opponents=[name for index, name in enumerate(who) if index != seat.seat],
        move_by=_when(deadline, seat),
        hours_left=hours_left,
    )
    if seat.mail_preference == DIGEST:
        return _turn_mail(config, game, replace(seat, mail_preference=EVERY_TURN), letter)
    return _turn_mail(config, game, seat, letter)


def expired(
    config: Settings,
    game: GameFacts,
    organiser: SeatInfo,
    invitees: list[str],
    cancel_at: datetime,
) -> Letter:
    """To a game's organiser: these invitations lapsed unaccepted; invite others to their
    seats from the game page before `cancel_at`, or the game is cancelled."""
    return _about(
        config,
        game,
        organiser,
        "expired",
        invitees=invitees,
        cancel_by=_when(cancel_at, organiser),
        **_seat_links(config, organiser),
    )


def reply(
    config: Settings,
    game: GameFacts,
    seat: SeatInfo,
    played: Sequence[str] = (),
    refused: str = "",
    sent: Sequence[str] = (),
    unplayed: Sequence[str] = (),
    legal: Sequence[MoveGroup] = (),
    more_legal: int = 0,
    state: games.State | None = None,
    yours: bool = False,
) -> Letter:
    """The answer to a player's reply by mail (`pbem.mailin.handle`): what was `played` (in
    words), why the rest was `refused` (with the lines `sent`), the lines left `unplayed` after
    the turn ended, or the `legal` moves asked for (grouped, `pbem.domain.move_groups`, and how
    many more there are). While it is still the seat's turn (`yours`: `turns.may_act` says it
    may move), replying to this answer plays too; `state`, the game now, tells whether that
    turn has both its actions still to play."""
    # Lazy: written in the recipient's language when the letter is.
    headline: object
    if legal or more_legal:
        number = _turn_number(game, state)
        headline = i18n.lazy_gettext("your legal moves (move %(number)d)", number=number)
    elif played and refused:
        headline = i18n.lazy_gettext("part of your reply was played")
    elif played:
        headline = i18n.lazy_ngettext("your move was played", "your moves were played", len(played))
    else:
        headline = i18n.lazy_gettext("your reply was not played")
    return _playable(
        config,
        game,
        seat,
        "reply",
        yours,
        headline=headline,
        played=list(played),
        refused=refused,
        sent=list(sent),
        unplayed=list(unplayed),
        legal=list(legal),
        more_legal=more_legal,
        your_turn=yours,
        two_actions=yours and state is not None and _two_actions_left(state),
        move=_turn_number(game, state),
    )


@dataclass(frozen=True)
class BouncedGame:
    """A game of the bouncing player's, as their organiser's letter lists it."""

    id: str
    title: str
    player: str  # how the bouncing player is called in it
    link: str  # the organiser's game page (their dashboard when they hold no seat)
    name: str | None = None  # the organiser's name for the game (Game.title)


def bounced(
    config: Settings, organiser: Player, player: Any, reason: str, held: Sequence[Game]
) -> Letter:
    """To an organiser: mail to `player` (a player's id and name) bounces, as the server's
    answer says (`reason`, without the address: `pbem.domain.bounces.quoted_reason`); `held`
    are the organiser's games it holds a seat in (ORM games with their seats and players).
    Threaded under the game when there is one, else a letter of its own."""
    listed = []
    for game in held:
        seats = {seat.player_id: seat for seat in game.seats}
        called = views.names(game)[seats[player.id].seat]
        mine = seats.get(organiser.id)
        link = (
            links.seat_url(config, mine)
            if mine is not None
            else links.player_url(config, organiser.id, organiser.nonce)
        )
        listed.append(BouncedGame(game.id, engine(game).title, called, link, game.title))
    only = held[0] if len(held) == 1 else None
    thread = None
    if only is not None:
        thread = GameFacts.of(only)
    context = {
        "to": organiser.email,
        "name": organiser.name,
        "who": player.name or listed[0].player,
        "reason": reason,
        "games": listed,
        "game": thread,
        "title": listed[0].title,
        "link": listed[0].link,
        "games_link": links.player_url(config, organiser.id, organiser.nonce),
        "signin_link": f"{config.base_url}/signin",
        # One game: its rules; several: the page of every game's.
        "rules_link": glossary.rules_url(config, only.engine) if only is not None else None,
        "rules_index": glossary.rules_index_url(config),
    }
    return Letter(
        organiser.address,
        "bounced",
        thread,
        context,
        list_unsubscribe=unsubscribe(config, organiser.id),
    )


DIGEST_MAX_GAMES = 50  # listed in one digest; the rest are counted, and on the player's games page


@dataclass(frozen=True)
class WaitingGame:
    """A game of the digest: where the player is to move."""

    id: str
    title: str
    opponents: list[str]
    move: int  # the move number, from 1
    deadline: datetime | None
    move_by: when.Later | str  # the deadline in the player's words; "" without a clock
    link: str  # the player's game page
    name: str | None = None  # the organiser's name for the game (Game.title)


def _waiting_game(config: Settings, game: Game, player: Player) -> WaitingGame:
    seat = next(s for s in game.seats if s.seat == game.to_move)
    who = views.names(game)
    opponents = [who[s.seat] for s in game.seats if s.seat != seat.seat and s.state == ACTIVE]
    deadline = game.deadline
    return WaitingGame(
        game.id,
        engine(game).title,
        opponents,
        _turn_number(game, views.load_state(game)),
        deadline,
        when.later(deadline, player.time_zone),
        links.seat_url(config, seat),
        game.title,
    )


def digest(config: Settings, player: Player, waiting: Sequence[Game], hour: int) -> Letter:
    """The daily digest (`pbem.domain.digest`) to `player` of the games `waiting` for their
    move (ORM games with their seats and players): the nearest deadline first, then the games
    without a clock, those waiting longest first."""
    started = {game.id: game.turn_started_at or datetime.min for game in waiting}
    listed = sorted(
        (_waiting_game(config, game, player) for game in waiting),
        key=lambda w: (w.deadline is None, w.deadline or started[w.id], w.id),
    )
    mail_link = unsubscribe(config, player.id)
    context = {
        "to": player.email,
        "name": player.name,
        "games": listed[:DIGEST_MAX_GAMES],
        "more": max(0, len(listed) - DIGEST_MAX_GAMES),
        "count": len(listed),
        "hour": hour,
        "zone": when.valid_zone(player.time_zone) or "UTC",
        "link": listed[0].link,
        "games_link": links.player_url(config, player.id, player.nonce),
        "mail_link": mail_link,
        "rules_index": glossary.rules_index_url(config),
    }
    return Letter(player.address, "digest", None, context, list_unsubscribe=mail_link)
