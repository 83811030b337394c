"""Bots: programs that play a seat, through the engine contract alone (they never name a game).

`get(kind)` gives the bot a players list names as `bot:<kind>`: `random`, `greedy` or `mcts`.
Each is given an `Observation` (its seat's view and samples drawn from it, never the position
itself), a seeded random generator and a `Budget`, and answers with a move, or with its rating
of the position when asked to accept a draw.
"""

from __future__ import annotations

from pbem.bots.base import Bot
from pbem.bots.budget import Budget
from pbem.bots.mcts import MctsBot
from pbem.bots.observation import Observation
from pbem.bots.simple import GreedyBot, RandomBot

__all__ = ["PREFIX", "SEARCH", "Bot", "Budget", "Observation", "get", "kinds", "seat_kind"]

PREFIX = "bot:"
# The bot that plays for a seat on autopilot.
SEARCH = "mcts"

_BOTS: dict[str, Bot] = {bot.kind: bot for bot in (RandomBot(), GreedyBot(), MctsBot())}


def kinds() -> list[str]:
    """The bots a players list may name, weakest first."""
    return list(_BOTS)


def get(kind: str) -> Bot:
    """The bot of that kind; KeyError naming the known ones."""
    try:
        return _BOTS[kind]
    except KeyError:
        known = ", ".join(PREFIX + k for k in _BOTS)
        raise KeyError(f"there is no bot {PREFIX}{kind}; the bots are {known}") from None


def seat_kind(entry: str) -> str | None:
    """The bot a players-list entry names ("bot:mcts" -> "mcts", any case and spacing); None for
    anything else (an address). ValueError for `bot:` followed by no known bot."""
    text = entry.strip().lower()
    if not text.startswith(PREFIX):
        return None
    kind = text[len(PREFIX) :].strip()
    if kind not in _BOTS:
        known = ", ".join(PREFIX + k for k in _BOTS)
        raise ValueError(f"{entry.strip()!r} is not one of pbem's bots: choose {known}")
    return kind
