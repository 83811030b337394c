"""The home page's games: for each engine, a picture of a game under way (drawn by the engine
itself, once per process), who plays it, how long it lasts, and what it is like.

The picture is the engine's drawing for mail (`render_mail_svg`) where it has one: made to be
read small, on a phone, and cropped to the board, it reads far better on a card than the game
page's drawing with its side panels. An engine without it is drawn by `render_svg`.

What a game is like is the engine's to say, beside its rules: an `about.json` in the engine's
package holds the paragraph, the length of a game in turns (how it was found is in its
`turns_note`) and the position to draw. An engine without one (a test engine, a new game) still
gets a card, from the facts every engine has.
"""

from __future__ import annotations

import json
import logging
import random
import re
import sys
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any

from pbem import games, i18n
from pbem.domain import wording

log = logging.getLogger(__name__)

# A picture's position when the engine's about.json names none: a few turns in.
DEFAULT_PICTURE_MOVES = 12
# Bounds on what an about.json may ask for, so that a slip cannot stall the first page view.
MAX_PICTURE_MOVES = 200
_SIZE = re.compile(r'<svg\b[^>]*?\bwidth="([\d.]+)"[^>]*?\bheight="([\d.]+)"')


@dataclass(frozen=True)
class Card:
    """One game as the home page shows it."""

    name: str  # the engine's, for links: /rules/<name>, /?game=<name>
    title: str
    players: str  # "2–4 players"
    length: str  # "20–48 turns in all"; "" when the engine does not say
    pace: str  # "3–7 weeks if each turn takes a day"; "" when the engine does not say
    about: str  # one paragraph; "" when the engine does not say
    picture: Picture | None  # None when the engine cannot draw one

    @property
    def facts(self) -> list[str]:
        return [fact for fact in (self.players, self.length, self.pace) if fact]


@dataclass(frozen=True)
class Picture:
    svg: str
    width: int | None  # the drawing's own size, for the page to keep its place before it loads
    height: int | None


def card(game: games.Game) -> Card:
    about = about_of(game)
    turns = about.get("turns")
    low, high = _turns(turns)
    return Card(
        name=game.name,
        title=game.title,
        players=players_text(game.min_players, game.max_players),
        length=length_text(low, high) if low else "",
        pace=pace_text(low, high) if low else "",
        about=i18n.game_gettext(game.name, str(about.get("about", ""))),
        picture=picture(game.name),
    )


def players_text(least: int, most: int) -> str:
    if least == most:
        return i18n.ngettext("%(num)d player", "%(num)d players", least)
    return i18n.gettext("%(least)d–%(most)d players", least=least, most=most)


def length_text(low: int, high: int | None) -> str:
    """The turns of a whole game, every player's together."""
    if high is None:
        return i18n.gettext("%(low)d turns or more", low=low)
    if high == low:
        return i18n.gettext("about %(low)d turns in all", low=low)
    return i18n.gettext("%(low)d–%(high)d turns in all", low=low, high=high)


def pace_text(low: int, high: int | None) -> str:
    """How long that takes by email when each turn takes a day (the mail is the slow part)."""
    first, unit = _span(low)
    if high is None:
        return i18n.gettext("%(time)s or more if each turn takes a day", time=_amount(first, unit))
    last, last_unit = _span(high)
    if last_unit != unit:
        return i18n.gettext(
            "%(first)s to %(last)s if each turn takes a day",
            first=_amount(first, unit),
            last=_amount(last, last_unit),
        )
    if first == last:
        return i18n.gettext("about %(time)s if each turn takes a day", time=_amount(first, unit))
    if unit == "days":
        return i18n.gettext(
            "%(first)d–%(last)d days if each turn takes a day", first=first, last=last
        )
    if unit == "weeks":
        return i18n.gettext(
            "%(first)d–%(last)d weeks if each turn takes a day", first=first, last=last
        )
    return i18n.gettext(
        "%(first)d–%(last)d months if each turn takes a day", first=first, last=last
    )


def _amount(number: int, unit: str) -> str:
    """ "9 days", "3 weeks", "4 months"."""
    if unit == "days":
        return wording.span(number, wording.DAY)
    if unit == "weeks":
        return i18n.ngettext("%(num)d week", "%(num)d weeks", number)
    return i18n.ngettext("%(num)d month", "%(num)d months", number)


def _span(days: int) -> tuple[int, str]:
    """A number of days as people say it: days, then weeks, then months."""
    if days < 14:
        return days, "days"
    if days < 70:
        return round(days / 7), "weeks"
    return round(days / 30.4), "months"


def _turns(value: Any) -> tuple[int | None, int | None]:
    """`turns` of an about.json: [least, most], most null for no bound."""
    if not isinstance(value, list) or len(value) != 2:
        return None, None
    low, high = value
    if not isinstance(low, int) or low < 1:
        return None, None
    if high is not None and (not isinstance(high, int) or high < low):
        return None, None
    return low, high


def about_of(game: games.Game) -> dict[str, Any]:
    """The engine's about.json, read once; empty for an engine that has none or a broken one."""
    return _about(type(game).__module__, game.name)


@cache
def _about(module_name: str, name: str) -> dict[str, Any]:
    module = sys.modules.get(module_name)
    spec = getattr(module, "__spec__", None)
    if spec is None or spec.submodule_search_locations is None:
        return {}  # a module, not a package: nowhere for the file to be
    try:
        text = resources.files(spec.name).joinpath("about.json").read_text(encoding="utf-8")
    except (FileNotFoundError, OSError):
        return {}
    try:
        found = json.loads(text)
    except ValueError:
        log.exception("the about.json of %s is not JSON", name)
        return {}
    return found if isinstance(found, dict) else {}


@cache
def picture(name: str) -> Picture | None:
    """The engine's drawing of a game under way (the position its about.json names, reached by
    seeded random legal moves), drawn once per process; None when the engine cannot draw it:
    one engine's failure leaves its card without a picture, never the page broken."""
    try:
        game = games.get(name)
        spec = about_of(game).get("picture") or {}
        players = int(spec.get("players", game.min_players))
        seed = int(spec.get("seed", 1))
        moves = min(int(spec.get("moves", DEFAULT_PICTURE_MOVES)), MAX_PICTURE_MOVES)
        state = game.new(players, spec.get("options"), seed)
        chance = random.Random(seed)
        for _ in range(moves):
            legal = state.legal_moves()
            if state.outcome is not None or not legal:
                break
            state = state.play(chance.choice(legal))
        mail_drawing = getattr(game, "render_mail_svg", None)
        if callable(mail_drawing):
            svg = str(mail_drawing(state, None, None, True))
        else:
            svg = game.render_svg(state, None, None)
    except Exception:
        log.exception("no home page picture for %s", name)
        return None
    size = _SIZE.search(svg)
    width, height = (round(float(size[1])), round(float(size[2]))) if size else (None, None)
    return Picture(svg, width, height)
