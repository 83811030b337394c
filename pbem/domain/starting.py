"""Starting a game: the organiser's request, the invitations, the acceptances, and the deal once
the last seat is taken."""

from __future__ import annotations

import random
import secrets
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Any, cast

from sqlalchemy import Connection, bindparam, insert, select, update
from sqlalchemy.exc import IntegrityError

from pbem import games, i18n, links, mail
from pbem.config import Settings
from pbem.domain import bot_seats, clocks, letters, setup_checks, turn_ending, turns
from pbem.domain.access import check_claims
from pbem.domain.addresses import never_email, normalise_address
from pbem.domain.clocks import Clock
from pbem.domain.erased import erased
from pbem.domain.errors import NotFound, SetupError
from pbem.domain.names import SOMEONE, display_names, optional_name
from pbem.domain.outbox import last_message_ids, write_letters
from pbem.domain.titles import optional_title
from pbem.domain.turn_ending import UPDATE_GAME
from pbem.domain.views import SEAT_INFO, GameFacts, SeatInfo, engine, seat_names
from pbem.extensions import db
from pbem.games.base import check_players, resolve_options
from pbem.models import (
    INVITING,
    Game,
    GameEvent,
    Player,
    Seat,
    new_game_id,
    new_nonce,
    utcnow,
)


@dataclass(frozen=True)
class CreatedGame:
    game_id: str
    outbox_ids: list[int]
    started: bool = False  # every seat was taken at once (the organiser's and bots'): it runs


# Who starts a game, and so what its first emails are.
BY_STRANGER = "stranger"  # the web form: the organiser must confirm before anyone else is emailed
BY_OPERATOR = "operator"  # `pbem new-game`: every seat invited at once
BY_PLAYER = "player"  # from the organiser's own player link: confirmed, and their seat taken


def create_game(
    config: Settings,
    engine_name: str,
    options: Mapping[str, Any] | None,
    emails: Sequence[str],
    seed: int | None = None,
    started_by: str = BY_OPERATOR,
    clock: Clock | None = None,
    names: Sequence[str | None] | None = None,
    title: str | None = None,
    timeout_policy: str | None = None,
    language: str | None = None,
) -> CreatedGame:
    """A new game in the `inviting` state, and its first emails.

    `emails` is the players list: addresses, and bots as `bot:<kind>` (pbem.domain.bot_seats),
    which take their seats at once; the first entry, the organiser's, is an address. Started
    from the web form (`BY_STRANGER`), only the
    organiser is emailed: their POST on that link confirms the address and takes their seat,
    and only then are the others invited, so the form cannot make pbem mail strangers. Started
    by the operator, everyone is invited at once; started from the organiser's own player link,
    the organiser's seat is taken and the others invited. Seats are drawn at random from a
    recorded seed. `clock` is the time control (the service's default when None). `names`,
    beside `emails`, are the names the organiser gave (None: none); each is stored only for a
    player who has no name yet, so a name a player chose is never overwritten. `title` is the
    organiser's name for the game ("Friday Club"; None or empty: unnamed), BadTitle when it
    cannot be one. A name beside a bot is left out: a bot goes by its own. A game whose every
    seat is taken (its organiser's, from their player link, and bots) starts at once.
    `language` is the game's (pbem.i18n): its mail to whoever has not chosen one, invitations
    to newcomers first; English when None, SetupError when pbem does not speak it.
    """
    try:
        rules = games.get(engine_name)
    except KeyError as exc:
        raise SetupError(str(exc.args[0])) from exc
    entries = bot_seats.parse_entries(config, emails)
    given = [optional_name(name) for name in names or []]
    if len(given) > len(entries):
        raise SetupError(
            i18n.gettext("There are more names than players: give each name beside an address.")
        )
    named = {
        entry.address: name
        for entry, name in zip(entries, given, strict=False)
        if entry.address is not None
    }
    title = optional_title(title)
    seed = secrets.randbits(62) if seed is None else seed
    try:
        check_players(rules.name, len(entries), rules.min_players, rules.max_players)
        resolved = resolve_options(rules.name, rules.options, options)
        # The engine may refuse combinations the option lists cannot express; ask it now rather
        # than when the last player accepts.
        rules.new(len(entries), resolved, seed)
    except ValueError as exc:
        raise SetupError(str(exc)) from exc
    clock = setup_checks.check_clock(config, clock)
    policy = setup_checks.check_timeout_policy(timeout_policy, len(entries))
    spoken = setup_checks.check_language(language)
    facts = (
        config,
        rules,
        resolved,
        entries,
        named,
        seed,
        started_by,
        clock,
        title,
        policy,
        spoken,
    )
    try:
        return _create(*facts)
    except IntegrityError:
        # Another request created one of these players at the same moment; they exist now.
        db.session.rollback()
        return _create(*facts)


def _create(
    config: Settings,
    rules: games.Game,
    options: dict[str, Any],
    entries: list[bot_seats.Entry],
    named: Mapping[str, str | None],
    seed: int,
    started_by: str,
    clock: Clock,
    title: str | None,
    timeout_policy: str,
    language: str,
) -> CreatedGame:
    seated = _seat_players(config, entries, named)
    now = utcnow()
    game_id = new_game_id()
    game = Game(
        id=game_id,
        engine=rules.name,
        title=title,
        options=options,
        seed=seed,
        status=INVITING,
        thread_message_id=mail.new_message_id(game_id, config.mail_from),
        organiser=seated[0],  # the first entry is the organiser's address
        confirmed_at=None if started_by == BY_STRANGER else now,
        clock=clock.to_json(),
        timeout_policy=timeout_policy,
        language=language,
    )
    db.session.add(game)
    order = list(range(len(entries)))
    random.Random(f"seats:{seed}").shuffle(order)
    seats = [
        # A bot takes its seat the moment it is offered one.
        Seat(
            game=game,
            seat=seat_index,
            player=player,
            accepted_at=now if player.bot is not None else None,
        )
        for player, seat_index in zip(seated, order, strict=True)
    ]
    db.session.add_all(seats)
    db.session.flush()
    mine = seats[0]
    if started_by == BY_PLAYER:
        mine.accepted_at = now
    seats.sort(key=lambda seat: seat.seat)
    return _first_mail(config, game, seats, mine, started_by, now)


def _seat_players(
    config: Settings, entries: list[bot_seats.Entry], named: Mapping[str, str | None]
) -> list[Player]:
    """The player of each entry, in order: people by address (new ones added to the session,
    named as the organiser named them until they choose), bots by kind. SetupError when an
    address asked never to be emailed."""
    addresses = [entry.address for entry in entries if entry.address is not None]
    players = _players(config, addresses)
    bots_of = bot_seats.bot_players([entry.bot for entry in entries if entry.bot is not None])
    blocked = sorted({a for a in addresses if players[a].blocked_at is not None})
    if blocked:
        db.session.rollback()
        raise never_email(blocked)
    for address, name in named.items():
        if name is not None and players[address].name is None:
            players[address].name = name  # the organiser's name for them, until they choose
    return [
        players[entry.address] if entry.address is not None else bots_of[str(entry.bot)]
        for entry in entries
    ]


def _first_mail(
    config: Settings, game: Game, seats: list[Seat], mine: Seat, started_by: str, now: datetime
) -> CreatedGame:
    """A new game's first letters, by who started it: the stranger's confirmation, the
    invitations, or the deal when nobody is left to accept (the organiser's seat and bots)."""
    game_id = game.id
    who = display_names(game.engine, [seat.player.name for seat in seats])
    conn = db.session.connection()
    infos = [SeatInfo.of(seat) for seat in seats]
    if started_by == BY_STRANGER:
        invites = not _only_bots_beside(seats, mine)
        first = [letters.confirmation(config, game, SeatInfo.of(mine), who, invites=invites)]
    elif all(seat.accepted_at is not None for seat in seats):
        # The organiser's own seat and bots: nobody to wait for.
        db.session.flush()
        status, outbox_ids = _start(conn, config, game, infos, now)
        db.session.commit()
        return CreatedGame(game_id, outbox_ids, status != INVITING)
    else:
        creator = who[mine.seat]
        first = [
            letters.invitation(
                config,
                game,
                info,
                creator=creator,
                names=who,
                organiser=seat is mine,
                alone=_only_bots_beside(seats, seat),
            )
            for seat, info in zip(seats, infos, strict=True)
            if seat.accepted_at is None
        ]
    # A new game: no earlier message to thread after.
    outbox_ids = write_letters(conn, config, first, {})
    db.session.commit()
    return CreatedGame(game_id, outbox_ids)


def _players(config: Settings, addresses: Sequence[str]) -> dict[str, Player]:
    """The players of these addresses, new ones added to the session (one query in all); an
    address whose player was erased comes back as one who asked never to be emailed."""
    wanted = set(addresses)
    found = {
        player.address: player
        for player in db.session.execute(select(Player).where(Player.email.in_(wanted))).scalars()
    }
    new = sorted(wanted - found.keys())
    forgotten = erased(config, new)
    for email in new:
        found[email] = Player(email=email, blocked_at=utcnow() if email in forgotten else None)
        db.session.add(found[email])
    return found


@dataclass(frozen=True)
class InvitedGame:
    """A game and who has taken a seat in it: what an invitation page shows."""

    id: str
    engine: str
    options: dict[str, Any]
    status: str
    seats: list[SeatInfo]  # by seat index
    accepted: list[bool]  # by seat index
    confirmed: bool  # False until the organiser of a web-form game takes their seat
    organiser_id: int | None
    title: str | None = None  # the organiser's name for the game (Game.title)

    @classmethod
    def of(cls, game: Game) -> InvitedGame:
        return cls(
            game.id,
            game.engine,
            game.options,
            game.status,
            [SeatInfo.of(seat) for seat in game.seats],
            [seat.accepted_at is not None for seat in game.seats],
            game.confirmed_at is not None,
            game.organiser_id,
            game.title,
        )

    @property
    def organiser(self) -> str | None:
        """How the organiser is called (their name, else their seat's colour); None when the
        game does not record who started it."""
        return next(
            (self.names[s.seat] for s in self.seats if s.player_id == self.organiser_id), None
        )

    @property
    def names(self) -> list[str]:
        return seat_names(self, self.seats)

    @property
    def waiting(self) -> list[str]:
        return [name for name, ok in zip(self.names, self.accepted, strict=True) if not ok]


@dataclass(frozen=True)
class Acceptance:
    started: bool
    already: bool
    outbox_ids: list[int]
    game: InvitedGame  # as committed
    confirmed: bool = False  # this acceptance confirmed the organiser's game


_LOCK_INVITED_GAME = (
    select(
        Game.id,
        Game.engine,
        Game.title,
        Game.options,
        Game.seed,
        Game.status,
        Game.thread_message_id,
        Game.confirmed_at,
        Game.organiser_id,
        Game.clock,
        Game.language,
    )
    .where(Game.id == bindparam("game_id"))
    .with_for_update()
)
_CONFIRM_GAME = (
    update(Game).where(Game.id == bindparam("game_id")).values(confirmed_at=bindparam("now"))
)
_INVITED_SEATS = (
    select(*SEAT_INFO, Seat.accepted_at)
    .join(Player, Player.id == Seat.player_id)
    .where(Seat.game_id == bindparam("game_id"))
    .order_by(Seat.seat)
)
# Executed with `bank_seconds` as the parameter of the SET clause.
_SET_BANKS = update(Seat).where(Seat.game_id == bindparam("bank_game_id"))
_ACCEPT_SEAT = (
    update(Seat).where(Seat.id == bindparam("seat_id")).values(accepted_at=bindparam("now"))
)
_NAME_PLAYER = (
    update(Player).where(Player.id == bindparam("player_id")).values(name=bindparam("name"))
)


def accept_invitation(config: Settings, seat: links.SeatKey, name: str | None = None) -> Acceptance:
    """Take a seat; the last acceptance starts the game and emails the first player.

    The organiser taking their seat in a game still to be confirmed confirms it, and the other
    seats are invited then. `seat` is an ORM seat or the claims of an invitation token, checked
    here against the seat as it is under the game's row lock (so a rotated link is refused).
    Core statements on the session's connection: set-up runs once per player and game, but at
    hundreds of moves a second games start by the dozen. `name`, when given, is the name the
    player chose: it replaces any they had, and an empty one clears it (BadName, before
    anything is done, when it cannot be a name); None leaves their name as it is.
    """
    chosen = optional_name(name)
    conn = db.session.connection()
    # The game row locked, its seats read under the lock: the last acceptance, and only it,
    # starts the game.
    game = conn.execute(_LOCK_INVITED_GAME, {"game_id": seat.game_id}).one_or_none()
    rows = conn.execute(_INVITED_SEATS, {"game_id": seat.game_id}).all() if game else []
    mine = next((row for row in rows if row.seat == seat.seat), None)
    try:
        if isinstance(seat, links.LinkClaims):
            check_claims(seat, mine)
        if game is None or mine is None:
            raise NotFound(i18n.gettext("There is no such seat."))
        if game.confirmed_at is None and mine.player_id != game.organiser_id:
            raise NotFound(i18n.gettext("This invitation is not open yet."))
    except (links.LinkError, NotFound):
        db.session.rollback()  # releases the lock
        raise
    seats = [SeatInfo.of_row(row) for row in rows]
    if name is not None:
        conn.execute(_NAME_PLAYER, {"player_id": mine.player_id, "name": chosen})
        seats = [replace(s, name=chosen) if s.player_id == mine.player_id else s for s in seats]
    accepted = [row.accepted_at is not None for row in rows]

    def invited(status: str) -> InvitedGame:
        facts = (game.id, game.engine, game.options, status, seats, accepted)
        return InvitedGame(*facts, True, game.organiser_id, game.title)

    if accepted[mine.seat] or game.status != INVITING:
        db.session.commit()
        return Acceptance(started=False, already=True, outbox_ids=[], game=invited(game.status))
    now = utcnow()
    conn.execute(_ACCEPT_SEAT, {"seat_id": mine.id, "now": now})
    accepted[mine.seat] = True
    status, outbox_ids = game.status, list[int]()
    confirming = game.confirmed_at is None
    if confirming:
        conn.execute(_CONFIRM_GAME, {"game_id": game.id, "now": now})
        outbox_ids = _invite_the_others(conn, config, game, seats, accepted)
    if all(accepted):
        status, outbox_ids = _start(conn, config, game, seats, now)
    db.session.commit()
    started = status != INVITING
    return Acceptance(started, False, outbox_ids, invited(status), confirming)


def invited_on_confirmation(seat: links.SeatKey) -> list[str]:
    """The addresses taking this seat would invite: the other players', when it is the organiser's
    seat in a game still to be confirmed; none otherwise."""
    game = db.session.get(Game, seat.game_id)
    if game is None or game.confirmed_at is not None:
        return []
    if seat.player_id != game.organiser_id:
        return []
    return [
        s.player.address
        for s in game.seats
        if s.seat != seat.seat and s.accepted_at is None and s.player.bot is None
    ]


def _invite_the_others(
    conn: Connection, config: Settings, game: Any, seats: list[SeatInfo], accepted: list[bool]
) -> list[int]:
    """The invitations of a game its organiser has just confirmed."""
    who = seat_names(game, seats)
    organiser = next(
        (who[seat.seat] for seat in seats if seat.player_id == game.organiser_id), SOMEONE
    )
    invitations = [
        letters.invitation(config, game, seat, creator=organiser, names=who)
        for seat, done in zip(seats, accepted, strict=True)
        if not done
    ]
    return write_letters(conn, config, invitations, {})


def _only_bots_beside(seats: list[Seat], seat: Seat) -> bool:
    """Whether every seat but `seat` is a bot's: nobody else to invite or wait for."""
    return all(other.player.bot is not None for other in seats if other is not seat)


def _start(
    conn: Connection, config: Settings, game: Any, seats: list[SeatInfo], now: datetime
) -> tuple[str, list[int]]:
    """Deal the game and write its first emails; returns the new status and the outbox ids."""
    state = engine(game).new(len(seats), game.options, game.seed)
    outcome = state.outcome
    facts = GameFacts.at(game, state, len(state.history))
    clock = turns.game_clock(game.clock)
    bank = clocks.initial_bank(clock)
    if bank is not None:
        conn.execute(_SET_BANKS, {"bank_game_id": game.id, "bank_seconds": bank})
    seat_clocks = turn_ending.read_seats(conn, [game.id])[1][game.id]
    turn = turns.NO_TURN
    if outcome is None and state.to_move is not None:
        turn = turn_ending.new_turn(config, clock, seat_clocks[state.to_move], now)
    conn.execute(
        UPDATE_GAME,
        {
            "game_id": game.id,
            "state": state.to_json(),
            "ply": facts.ply,
            "to_move": facts.to_move,
            "status": facts.status,
            "started_at": now,
            "finished_at": now if outcome is not None else None,
            "outcome": facts.outcome,
            **turn.columns(),
        },
    )
    who = seat_names(game, seats)
    if outcome is not None:
        first = letters.results(config, facts, seats, state, who, [])
    else:
        # Against the computer alone, a bot's first move follows in seconds with the turn
        # email: a "the game has started" email just before it would only be noise.
        people = [seat for seat in seats if seat.bot is None]
        alone = len(people) == 1 and people[0].seat != state.to_move
        first = [
            letters.turn(
                config,
                facts,
                seat,
                state,
                who,
                [],
                deadline=turn_ending.move_by(clock, turn, seat_clocks[seat.seat], now),
                away_until=seat_clocks[seat.seat].away_until,
            )
            if seat.seat == state.to_move
            else letters.started(config, facts, seat, state, who)
            for seat in seats
            if not (alone and seat.bot is None)
        ]
    # Threaded after the invitations.
    return facts.status, write_letters(conn, config, first, last_message_ids(conn, [game.id]))


def reinvite(
    config: Settings,
    organiser: links.SeatKey,
    seat_index: int,
    email: str,
    name: str | None = None,
) -> list[int]:
    """The organiser invites `email` to a seat whose invitation lapsed; the outbox ids.

    The seat gets the new player and a fresh nonce (the old invitation stays dead); the game is
    still cancelled if it is short of players when its time runs out. `name` is the organiser's
    name for them, kept only if they have none.
    """
    address = normalise_address(config, email)
    name = optional_name(name)
    conn = db.session.connection()
    try:
        game = conn.execute(_LOCK_INVITED_GAME, {"game_id": organiser.game_id}).one_or_none()
        if game is None:
            raise NotFound(i18n.gettext("There is no such game."))
        rows = conn.execute(_INVITED_SEATS_WITH_EXPIRY, {"game_id": game.id}).all()
        mine = next((row for row in rows if row.seat == organiser.seat), None)
        if isinstance(organiser, links.LinkClaims):
            check_claims(organiser, mine)
        target = _lapsed_seat(game, rows, mine, seat_index, address)
    except (SetupError, NotFound, links.LinkError):
        db.session.rollback()
        raise
    player = _players(config, [address])[address]
    if player.blocked_at is not None:
        db.session.rollback()
        raise never_email([address], reinviting=True)
    if name is not None and player.name is None:
        player.name = name
    db.session.flush()
    conn.execute(
        update(Seat)
        .where(Seat.id == target.id)
        .values(
            player_id=player.id,
            nonce=new_nonce(),
            invited_at=utcnow(),
            expired_at=None,
        )
    )
    conn.execute(
        insert(GameEvent).values(
            game_id=game.id,
            ply=0,
            seat=seat_index,
            kind="reinvited",
            detail={"before": target.email, "after": address},
            created_at=utcnow(),
        )
    )
    seats = [SeatInfo.of_row(row) for row in conn.execute(_INVITED_SEATS, {"game_id": game.id})]
    who = seat_names(game, seats)
    # The locked row has every column an invitation reads of a game.
    invitation = letters.invitation(
        config, cast(Game, game), seats[seat_index], creator=who[organiser.seat], names=who
    )
    outbox_ids = write_letters(conn, config, [invitation], last_message_ids(conn, [game.id]))
    db.session.commit()
    return outbox_ids


def _lapsed_seat(game: Any, rows: Sequence[Any], mine: Any, seat_index: int, address: str) -> Any:
    """The lapsed seat the organiser (`mine`) may give to `address`, or SetupError why not."""
    if mine is None or mine.player_id != game.organiser_id:
        raise SetupError(
            i18n.gettext("Only the player who started the game can invite someone else.")
        )
    if game.status != INVITING:
        raise SetupError(
            i18n.gettext("The game has started or ended: its seats cannot change now.")
        )
    target = next((row for row in rows if row.seat == seat_index), None)
    if target is None or target.expired_at is None:
        raise SetupError(
            i18n.gettext(
                "Only a seat whose invitation lapsed can go to someone else; this one is "
                "taken or still open."
            )
        )
    if any(row.email == address for row in rows):
        raise SetupError(
            i18n.gettext("%(address)s has a seat in this game already.", address=address)
        )
    return target


_INVITED_SEATS_WITH_EXPIRY = (
    select(*SEAT_INFO, Seat.accepted_at, Seat.expired_at)
    .join(Player, Player.id == Seat.player_id)
    .where(Seat.game_id == bindparam("game_id"))
    .order_by(Seat.seat)
)
