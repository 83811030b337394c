"""Seats played by the computer: a players list's `bot:<kind>` entries, the bots' player rows,
and who plays a seat now.

A bot is a kind of seat, not a person: it has a name ("pbem MCTS") and no address, accepts its
invitation the moment the game is made, and is never written an email, never counted against a
rate limit and never checked as an address. One `players` row per kind of bot (`players.bot`)
plays every seat of that kind. A person's seat may also be played for them by a bot while it is
on autopilot (`seats.autopilot_since`): the one its player chose (`seats.autopilot_bot`, greedy
by default, also when running out of time handed the seat over).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from sqlalchemy import select
from sqlalchemy.exc import IntegrityError

from pbem import bots, i18n
from pbem.config import Settings
from pbem.domain.addresses import normalise_address
from pbem.domain.errors import SetupError
from pbem.extensions import db
from pbem.games.base import shorten
from pbem.models import NO_TURN_MAIL, Player

# The bots a player may hand their seat to, weakest first; the default, also for a timeout.
AUTOPILOT_BOTS = ("greedy", "mcts")
AUTOPILOT_DEFAULT = "greedy"

ORGANISER_IS_A_PERSON = i18n.lazy_gettext(
    "The first player is the organiser, who must be a person with an email address: put the "
    "bots (bot:random, bot:greedy, bot:mcts) after them."
)


@dataclass(frozen=True)
class Entry:
    """One player of a players list: a person's address, or a bot's kind."""

    address: str | None = None
    bot: str | None = None


def parse_entry(config: Settings, text: str) -> Entry:
    """`bot:mcts` (any case) is a bot; anything else an address, checked and normalised.
    SetupError saying what is wrong otherwise."""
    try:
        kind = bots.seat_kind(text)
    except ValueError as exc:
        raise SetupError(
            i18n.gettext(
                "%(entry)s is not one of pbem's bots: choose %(bots)s.",
                entry=repr(text.strip()),
                bots=", ".join(bots.PREFIX + known for known in bots.kinds()),
            )
        ) from exc
    if kind is not None:
        return Entry(bot=kind)
    return Entry(address=normalise_address(config, text))


def parse_entries(config: Settings, texts: Sequence[str]) -> list[Entry]:
    """A game's players list: the organiser first, and a person."""
    entries = [parse_entry(config, text) for text in texts]
    if entries and entries[0].bot is not None:
        raise SetupError(str(ORGANISER_IS_A_PERSON))
    return entries


def is_bot_entry(text: str) -> bool:
    """Whether a typed players-list entry names a bot (known or not): such entries are no
    addresses, so no address check or rate limit counts them."""
    return text.strip().lower().startswith(bots.PREFIX)


def addresses(texts: Sequence[str]) -> list[str]:
    """The entries of a typed players list that are addresses, not bots."""
    return [text for text in texts if not is_bot_entry(text)]


def bot_players(kinds: Sequence[str]) -> dict[str, Player]:
    """The player row of each of these kinds of bot, made when missing (in the session)."""
    wanted = set(kinds)
    if not wanted:
        return {}
    query = select(Player).where(Player.bot.in_(sorted(wanted)))
    found: dict[str, Player] = {
        player.bot: player for player in db.session.execute(query).scalars() if player.bot
    }
    for kind in sorted(wanted - found.keys()):
        player = Player(
            email=None, bot=kind, name=bots.get(kind).name, mail_preference=NO_TURN_MAIL
        )
        # Two games made at once may both add the row: the loser takes the winner's.
        try:
            with db.session.begin_nested():
                db.session.add(player)
                db.session.flush()
        except IntegrityError:
            player = db.session.execute(select(Player).where(Player.bot == kind)).scalar_one()
        found[kind] = player
    return found


def autopilot_bot(text: str | None) -> str:
    """The bot a player hands their seat to, as a form sends it (`greedy` or `mcts`, any case;
    nothing: the default). SetupError naming the choices for anything else."""
    kind = (text or "").strip().lower() or AUTOPILOT_DEFAULT
    if kind not in AUTOPILOT_BOTS:
        raise SetupError(
            i18n.gettext(
                "%(text)s is not a bot autopilot can hand your seat to: choose greedy (quick and "
                "plain) or mcts (pbem's strongest).",
                text=repr(shorten(text or "")),
            )
        )
    return kind


def played_by(bot: str | None, autopilot: bool, chosen: str | None = None) -> str | None:
    """The bot that plays a seat now: its own kind for a bot's seat, for a person's seat on
    autopilot the bot its player `chosen` (the default when none is recorded); None when its
    player plays it."""
    if bot is not None:
        return bot
    return (chosen or AUTOPILOT_DEFAULT) if autopilot else None
