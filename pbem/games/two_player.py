"""What the two-player engines (GORami, Martian Mud Wrestling) share: the defaults of a position
of two seats in a game of perfect information (`TwoPlayerState`), the registry adapter
(`TwoPlayerGame`), and how their drawings name the seats.

An engine's state class lists `TwoPlayerState` among its bases and supplies the rest of the
contract; its `Game` subclass names the state class and the module that draws it. Both stay in
the engine's own package, which is where the service looks for its board script and rules page.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, ClassVar, Generic, Protocol, Self, TypeVar

from pbem.games.base import (
    JSON,
    Options,
    OptionValue,
    Outcome,
    Past,
    SeatSummary,
    State,
    Summary,
    check_players,
    check_unsettled,
    display_name,
    fill_names,
    refuse_drop,
    resolve_options,
    score_scaled_weight,
    unroll,
)
from pbem.games.messages import ENGLISH, Language
from pbem.games.sprites import MailDrawing

PLAYERS = "2 players"  # how a guide says who plays
SEATS = range(2)
Names = Sequence[str] | None  # the seats' display names for a drawing; None: colour words


class TwoPlayerState:
    """The parts of the State contract that are the same in every two-player game where each
    turn is one action, nothing is hidden and nobody leaves a game that goes on.

    Hooks for the engine: `_sentence` (the words of a move, from the position after it),
    `_result` (an ending of the rules in words), `_supplies` (a seat's line in the summary) and
    `_ended` (a copy that nobody moves in, ended with an outcome, for `settled`).
    """

    __slots__ = ()

    TITLE: ClassVar[str]  # the game's name in refusals
    COLOURS: ClassVar[tuple[str, str]]
    SCORE_LABEL: ClassVar[str]
    # A seat out of range, refused; `{seat!r}` stands for it.
    NO_SUCH_SEAT: ClassVar[str]

    _past: Past  # the history, newest move first
    _outcome: Outcome | None

    # Declared for the type checker alone: an engine that lacks one fails loudly at its first
    # use rather than running a do-nothing default.
    if TYPE_CHECKING:

        def play(self, move: str) -> Self: ...

        def scores(self) -> list[int]: ...

        def _sentence(self, after: Self) -> str: ...

        def _result(self, outcome: Outcome) -> str: ...

        def _supplies(self, seat: int) -> str: ...

        def _ended(self, outcome: Outcome) -> Self: ...

    @property
    def players(self) -> int:
        return 2

    @property
    def outcome(self) -> Outcome | None:
        return self._outcome

    @property
    def history(self) -> list[str]:
        return unroll(self._past)

    @property
    def mid_turn(self) -> bool:
        """Always False: a turn is one action. A seat moving again because the other cannot
        starts a new turn."""
        return False

    @property
    def turn_number(self) -> int:
        """A turn is one action: the ply's number."""
        return len(self.history) + 1

    @property
    def actions_left(self) -> int:
        return 0 if self.outcome is not None else 1

    @property
    def dropped(self) -> list[int]:
        """Always empty: a two-player game never goes on without a player."""
        return []

    def worth(self) -> list[float]:
        """The scores: nothing a seat holds is worth points beyond them."""
        return [float(score) for score in self.scores()]

    def point_weight(self) -> float:
        """Not fitted: the search's scale by the size of the scores."""
        return score_scaled_weight(self.scores())

    def sample(self, seat: int | None, rng: random.Random) -> Self:
        """The position itself: every seat sees the whole of it (perfect information)."""
        self.check_seat(seat)
        return self

    def drop(self, seat: int) -> Self:
        """Always refused: when a player runs out of time or resigns, the service ends the game
        itself."""
        raise refuse_drop(self.TITLE, seat)

    def settled(self, outcome: Outcome) -> Self:
        """This position with the game ended by the service: nobody to move, no move legal."""
        check_unsettled(self._outcome)
        return self._ended(outcome)

    def play_described(self, move: str) -> tuple[Self, str]:
        """`play` and `describe` at once, the move played once: the service stores the sentence
        with the move it applies."""
        after = self.play(move)
        return after, self._sentence(after)

    def describe(self, move: str) -> str:
        """The sentence of `move` (seats as {0}/{1} for `fill_names`). Raises InvalidMove or
        IllegalMove as `play` does."""
        return self.play_described(move)[1]

    def describe_choice(self, move: str) -> str:
        """As `describe`: nothing in a two-player game here is hidden."""
        return self.describe(move)

    def describe_outcome(self) -> str | None:
        """How the game ended (seats as placeholders); None while it runs."""
        outcome = self._outcome
        if outcome is None:
            return None
        if outcome.said is not None:
            return outcome.said
        return self._result(outcome)

    def summary(self, seat: int | None) -> Summary:
        """The scores' label and each seat's colour and supplies; nothing is hidden."""
        self.check_seat(seat)
        return Summary(
            score_label=self.SCORE_LABEL,
            seats=[SeatSummary(colour=self.COLOURS[s], supplies=self._supplies(s)) for s in SEATS],
            hand="",
            notes="",
        )

    def check_seat(self, seat: int | None) -> None:
        """Refuse a seat that is neither 0, 1 nor None (a spectator)."""
        if seat is not None and (
            isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < 2
        ):
            raise ValueError(self.NO_SUCH_SEAT.format(seat=seat))


S = TypeVar("S", bound=TwoPlayerState)
S_contra = TypeVar("S_contra", bound=TwoPlayerState, contravariant=True)


class Drawings(Protocol[S_contra]):
    """What an engine's `render` module offers: the page, text and mail drawings."""

    def render_svg(
        self,
        state: S_contra,
        seat: int | None = None,
        names: Names = None,
        lang: Language = ENGLISH,
    ) -> str:
        """The page's board."""
        ...

    def render_text(
        self,
        state: S_contra,
        seat: int | None = None,
        names: Names = None,
        lang: Language = ENGLISH,
    ) -> str:
        """The terminal's board."""
        ...

    def render_mail_svg(
        self, state: S_contra, seat: int | None = None, names: Names = None, last_turn: bool = True
    ) -> str:
        """The board of a turn or result email."""
        ...

    def mail_drawing(
        self, state: S_contra, seat: int | None = None, names: Names = None, last_turn: bool = True
    ) -> MailDrawing:
        """The same board as sprites."""
        ...


class TwoPlayerGame(Generic[S]):
    """A two-player engine for the registry. A subclass, defined in the engine's package, names
    the game, its options, its state class and drawings, and says how to start and load."""

    name: str
    title: str
    min_players = 2
    max_players = 2
    options: Mapping[str, Sequence[OptionValue]] = {}
    perfect_information = True
    state_type: type[S]
    drawings: Drawings[S]

    def start(self, options: Options, seed: int) -> S:
        """A new game with the options resolved."""
        raise NotImplementedError

    def from_json(self, data: Mapping[str, Any]) -> S:
        raise NotImplementedError

    def new(self, players: int, options: Mapping[str, Any] | None = None, seed: int = 0) -> S:
        check_players(self.name, players, self.min_players, self.max_players)
        return self.start(resolve_options(self.name, self.options, options), seed)

    def render_svg(
        self,
        state: State,
        seat: int | None = None,
        names: Names = None,
        language: Language = ENGLISH,
    ) -> str:
        return self.drawings.render_svg(self._ours(state), seat, names, language)

    def render_text(
        self,
        state: State,
        seat: int | None = None,
        names: Names = None,
        language: Language = ENGLISH,
    ) -> str:
        return self.drawings.render_text(self._ours(state), seat, names, language)

    def render_mail_svg(
        self, state: State, seat: int | None = None, names: Names = None, last_turn: bool = True
    ) -> str:
        return self.drawings.render_mail_svg(self._ours(state), seat, names, last_turn)

    def mail_drawing(
        self, state: State, seat: int | None = None, names: Names = None, last_turn: bool = True
    ) -> MailDrawing:
        return self.drawings.mail_drawing(self._ours(state), seat, names, last_turn)

    def mail_side(self, seat: int | None) -> int | None:
        """One drawing for every seat, unless the engine turns the board for its reader."""
        return None

    def board_assets(
        self, state: State, seat: int, names: Names = None, language: Language = ENGLISH
    ) -> JSON:
        """The board needs no drawings beyond the SVG."""
        self._ours(state)
        return {}

    def _ours(self, state: State) -> S:
        if not isinstance(state, self.state_type):
            raise TypeError(f"{self.name} cannot draw a {type(state).__name__}")
        return state


def seat_word(
    names: Names,
    seat: int,
    colours: Sequence[str],
    limit: int = 0,
    capital: bool = True,
    lang: Language = ENGLISH,
) -> str:
    """How a drawing calls `seat`: its display name (at most `limit` characters), else its
    colour word in `lang`, "Yellow" (or "yellow" without `capital`)."""
    name = display_name(names, seat, limit)
    if name is not None:
        return name
    # A seat's name is its colour as a name ("Yellow"), a key of the game's catalog of its own:
    # a colour word elsewhere agrees with a noun ("une pièce jaune", "de gele schijf").
    word = lang(colours[seat].capitalize())
    return word if capital else word.lower()


def colour_words(sentence: str, colours: Sequence[str]) -> str:
    """A sentence of `describe` with the seats called by their colours, for a rules page."""
    return fill_names(sentence, [colour.capitalize() for colour in colours])
