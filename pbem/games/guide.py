"""What a game tells a new player: the words its pages use, and the positions its rules page
draws.

A game's package may hold a `guide` module whose `GUIDE` is a `Guide`, beside a `guide.html`
template with the rules written for people (`pbem.web.rules` renders it at /rules/<name>). Like
the rest of `pbem.games` this is pure: text, and positions built by playing the engine's own
moves, so that a worked example can never disagree with the engine that scores real games.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from pbem.games.base import State
from pbem.games.messages import N_

__all__ = ["N_"]


# An anchor on a rules page, and a term's key: lower-case words joined by hyphens.
ANCHOR = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*")
# The sections every rules page has, in this order (the tests hold every guide to them).
REQUIRED_SECTIONS = ("goal", "turn", "scoring", "end")


@dataclass(frozen=True)
class Term:
    """A word of the game that its pages use and a newcomer may not know.

    `forms` are the spellings the game page shows (matched whole and case-blind); `meaning` is
    one or two plain sentences; `anchor` is the id of the rule on the rules page that says it
    all; `headword` is how the glossary lists it (the first form when empty).
    """

    key: str
    forms: tuple[str, ...]
    meaning: str
    anchor: str
    headword: str = ""

    def __post_init__(self) -> None:
        if not ANCHOR.fullmatch(self.key) or not ANCHOR.fullmatch(self.anchor):
            raise ValueError(f"term {self.key!r}: key and anchor are lower-case-hyphenated")
        if not self.forms or not all(f.strip() == f and f for f in self.forms):
            raise ValueError(f"term {self.key!r}: give at least one form, without outer spaces")
        if not self.meaning.strip():
            raise ValueError(f"term {self.key!r}: say what it means")

    @property
    def word(self) -> str:
        return self.headword or self.forms[0]


@dataclass(frozen=True)
class Figure:
    """A position the rules page shows, drawn by the engine for `seat` (None: a spectator).

    `focus` is the class of a rectangle in the drawing (such as the board behind a wide panel)
    that a narrow screen shows on its own, larger; the whole drawing stays a tap away.
    """

    state: State
    seat: int | None = None
    names: tuple[str, ...] = ()
    focus: str = ""


@dataclass(frozen=True)
class Examples:
    """The drawn positions (`figures`, by name) and the numbers the worked examples quote
    (`facts`, read by the template), all taken from the engine."""

    figures: Mapping[str, Figure]
    facts: Mapping[str, Any] = field(default_factory=dict)

    @classmethod
    def of(cls, states: Mapping[str, State], facts: Mapping[str, Any]) -> Examples:
        """Examples whose figures are `states` drawn for a spectator, by name."""
        return cls({name: Figure(state) for name, state in states.items()}, facts)


@dataclass(frozen=True)
class Section:
    """A part of the rules page: its anchor and its heading (the page's contents list)."""

    anchor: str
    title: str
    # Sub-parts worth linking to on their own: (anchor, title), such as a variant or a board.
    parts: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True)
class Variant:
    """A way to play the game (an option's value) and the anchor of the part that explains it."""

    option: str
    value: str
    title: str
    anchor: str


@dataclass(frozen=True)
class Guide:
    """Everything the rules page and the glossary need from a game besides its template."""

    players: str  # "2 to 4 players"
    length: str  # how long a game takes, in words
    summary: str  # one paragraph: what the game is about
    sections: tuple[Section, ...]
    terms: tuple[Term, ...]
    # Built when first asked for: a rules page is read far less often than the engine is loaded.
    examples: Callable[[], Examples]
    variants: tuple[Variant, ...] = ()

    def __post_init__(self) -> None:
        anchors = self.anchors()
        missing = [s for s in REQUIRED_SECTIONS if s not in anchors]
        if missing:
            raise ValueError(f"a guide needs the sections {', '.join(missing)}")
        loose = [t.key for t in self.terms if t.anchor not in anchors]
        loose += [v.value for v in self.variants if v.anchor not in anchors]
        if loose:
            raise ValueError(f"these point at no section of the guide: {', '.join(loose)}")
        keys = [t.key for t in self.terms]
        if len(set(keys)) != len(keys):
            raise ValueError("two terms share a key")

    def anchors(self) -> list[str]:
        """Every anchor of the page's contents, sections and their parts, in page order."""
        found: list[str] = []
        for section in self.sections:
            found.append(section.anchor)
            found.extend(anchor for anchor, _ in section.parts)
        return found
