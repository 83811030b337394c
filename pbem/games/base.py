"""The engine contract every game follows (docs/design.md, "The engine contract")."""

from __future__ import annotations

import random
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from pbem.games.messages import ENGLISH, Language

if TYPE_CHECKING:
    from pbem.games.sprites import MailDrawing

JSON = dict[str, Any]
OptionValue = int | str
Options = dict[str, Any]
# A history as a chain: (the history before, the last move), or None before the first move.
# Each play adds a pair instead of copying a tuple of every move.
Past = tuple["Past", str] | None


class MoveError(ValueError):
    """A move was refused; the message is meant for the player."""


class InvalidMove(MoveError):
    """The move text cannot be parsed."""


class IllegalMove(MoveError):
    """The move parses but breaks a rule in this position."""


# The key of `Outcome.details` holding the sentence of an ending the service decided.
SAID = "said"


@dataclass(frozen=True)
class Outcome:
    """How a finished game ended.

    `winners` is empty for a draw or when nobody wins; several seats share a win.
    """

    winners: list[int]
    scores: list[int]
    reason: str
    details: dict[str, Any] = field(default_factory=dict, compare=False)

    def to_json(self) -> JSON:
        return {
            "winners": list(self.winners),
            "scores": list(self.scores),
            "reason": self.reason,
            "details": dict(self.details),
        }

    @property
    def said(self) -> str | None:
        """The sentence of an ending the service decided (`State.settled`), seats as placeholders;
        None for an ending of the rules, which each engine words itself."""
        said = self.details.get(SAID)
        return said if isinstance(said, str) else None

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Outcome:
        return cls(
            winners=[int(s) for s in data["winners"]],
            scores=[int(s) for s in data["scores"]],
            reason=str(data["reason"]),
            details=dict(data.get("details", {})),
        )


@dataclass(frozen=True)
class SeatSummary:
    """One seat's line in a page's player table, beside its name and score.

    `colour` is a colour word that is also a CSS colour ("red", "violet"); its first letter, in
    capitals (`seat_mark`), marks the seat's pieces and last turn on the board, so players are
    told apart by more than colour. The seats of a game have colours with different initials.
    """

    colour: str  # the CSS colour of the seat's pieces
    supplies: str  # what the seat has left to play, in words; "" when there is nothing to say


def seat_mark(colour: str) -> str:
    """The letter that marks a seat on the board: its colour word's initial ("V" for violet)."""
    return colour.strip()[:1].upper()


@dataclass(frozen=True)
class Summary:
    """What a page shows about a position besides the board, for one viewing seat."""

    score_label: str  # what the scores count, plural: "fish", "points"
    seats: list[SeatSummary]  # one per seat, in seat order
    hand: str  # what the viewing seat alone holds, in words; "" when it holds nothing hidden
    notes: str  # one line about the game as a whole ("12 tiles in the bag"); may be ""
    # The hand in a few words, for the page's first screen, whose board and hand buttons picture
    # it ("your tiles: #57, #8, #65"); "" when `hand` is short enough already.
    hand_brief: str = ""


_PLACEHOLDER = re.compile(r"\{(\d+)\}")


def fill_names(sentence: str, names: Sequence[str]) -> str:
    """Put seat names into a sentence of `describe`: `{0}` becomes the name of seat 0.

    Unlike str.format, braces in names or in the rest of the sentence are left alone.
    """

    def name(match: re.Match[str]) -> str:
        seat = int(match.group(1))
        return names[seat] if seat < len(names) else match.group(0)

    return _PLACEHOLDER.sub(name, sentence)


def shorten(text: str, limit: int = 40) -> str:
    """`text` as a message quotes it: cut to `limit` characters and marked, so it stays short."""
    return text if len(text) <= limit else text[: limit - 1] + "…"


def display_name(names: Sequence[str] | None, seat: int, limit: int = 0) -> str | None:
    """How a drawing names `seat`: printable, spaces collapsed, at most `limit` characters (0: no
    limit); None when no names were given."""
    if names is None or not 0 <= seat < len(names):
        return None
    name = " ".join("".join(ch if ch.isprintable() else " " for ch in str(names[seat])).split())
    if limit and len(name) > limit:
        name = name[: limit - 1] + "…"
    return name


@runtime_checkable
class State(Protocol):
    """An immutable position: `play` returns a new state and leaves this one alone."""

    @property
    def to_move(self) -> int | None: ...

    @property
    def outcome(self) -> Outcome | None: ...

    @property
    def history(self) -> list[str]: ...

    @property
    def players(self) -> int: ...

    def legal_moves(self) -> list[str]: ...

    def play(self, move: str) -> State: ...

    def scores(self) -> list[int]: ...

    def to_json(self) -> JSON: ...

    def view(self, seat: int | None) -> JSON: ...

    @property
    def mid_turn(self) -> bool:
        """Whether `to_move` has already acted in this turn and acts again before anyone else.

        True between the two actions of a Marram turn. False at the start of every turn,
        including a seat moving again because nobody else could: that is a new turn.
        """
        ...

    @property
    def actions_left(self) -> int:
        """How many actions `to_move` has left in this turn, this one included: 1 in a game of
        one action a turn, 2 then 1 in a Marram turn, 0 once the game is over."""
        ...

    @property
    def turn_number(self) -> int:
        """The number people give the turn being played, from 1: the ply's number in a game of
        one action a turn; both actions of a Marram turn have the same one. Once the game is
        over, the number the next turn would have had."""
        ...

    def describe(self, move: str) -> str:
        """A sentence for `move` played from this position, with what it caused.

        Seats are named by placeholders `{0}`, `{1}`… for `fill_names`. Raises InvalidMove or
        IllegalMove as `play` does. The same as `play_described(move)[1]`.
        """
        ...

    def describe_choice(self, move: str) -> str:
        """A sentence for `move` as a choice offered before it is played: what it does, saying
        nothing that only hidden information decides (the tiles a turn's end draws from the
        bag). Placeholders and raises as `describe`."""
        ...

    def play_described(self, move: str) -> tuple[State, str]:
        """`play` and `describe` at once, the move played once: the new state (as `play` gives
        it) and the sentence (as `describe` gives it). Raises as `play` does.

        The service stores each move's sentence when it applies the move, so a move's words cost
        no second play.
        """
        ...

    def describe_outcome(self) -> str | None:
        """A sentence for how the game ended (seats as placeholders); None while it runs.

        Like `describe`'s, it starts with a capital letter or a placeholder and has no full
        stop, so that pages and mail can put it in a sentence of their own.
        """
        ...

    def summary(self, seat: int | None) -> Summary:
        """Scores' label, each seat's colour and supplies, and what `seat` alone may see."""
        ...

    @property
    def dropped(self) -> list[int]:
        """Seats that have left the game (out of time or resigned), in the order they left; they
        take no more turns and rank last."""
        ...

    def worth(self) -> list[float]:
        """Each seat's score plus what the engine reckons the rest of its position is worth to
        it, in points (claim tokens still in hand, say), one number per seat: how searching bots
        weigh a position before the end. Read from what every seat can see, so that a sample
        is worth what the position is; the scores themselves once the game is over, and always
        in a game whose score says it all.
        """
        ...

    def point_weight(self) -> float:
        """How much a point of lead in `worth` over the best other seat counts towards winning
        from this position, in log-odds of winning a point (positive): what searching bots turn
        a lead into a chance of winning with. Read from what every seat can see, like `worth`.
        """
        ...

    def sample(self, seat: int | None, rng: random.Random) -> State:
        """A full position consistent with `view(seat)`: what `seat` cannot see (the other seats'
        hands, the order of the bag; everything hidden for a spectator, `seat` None) drawn at
        random with `rng`, the rest as it is, so that `sample(seat, rng).view(seat) ==
        view(seat)`.

        What searching bots play on instead of the true position of a game of hidden
        information: they never read the true position itself. The sample's own chance (the
        draws to come) follows from what was drawn, so the same `rng` state gives the same sample.
        A game of perfect information returns the position itself (states are immutable).
        Raises ValueError for a seat out of range.
        """
        ...

    def drop(self, seat: int) -> State:
        """The position once `seat` leaves the game: it takes no more turns, ranks last, and play
        goes on among the others.

        Not a move: `history` and the ply count are unchanged. When fewer than two seats would be
        left playing, the game ends and the one left wins (each rules page says how). Raises
        ValueError for a seat out of range, one already dropped, a finished game, or a game that
        cannot continue without it (every two-player game: there the service decides the result
        itself).
        """
        ...

    def settled(self, outcome: Outcome) -> State:
        """The position as the service ended it (a resignation, a timeout, a draw agreed, a
        cancellation): `outcome` its outcome, nobody to move, no legal move, no action left; the
        board, history, hands and scores as they are.

        Not a move and never stored: the service derives it from a finished game's last state
        each time it reads one, so that every surface shows the game as over. Drawings and
        `describe_outcome` say `outcome.said` (seats as placeholders) where they would say how
        the rules ended it. Raises ValueError for a game the rules have already ended.
        """
        ...


@runtime_checkable
class Game(Protocol):
    """A game's rules: metadata, set-up, deserialisation and drawing."""

    name: str
    title: str
    min_players: int
    max_players: int
    # Option name -> allowed values, the default first.
    options: Mapping[str, Sequence[OptionValue]]
    # False when a seat cannot see the whole position (hidden hands, the order of a bag): bots
    # then search over `State.sample`s of what the seat sees (information-set search).
    perfect_information: bool

    def new(
        self, players: int, options: Mapping[str, Any] | None = None, seed: int = 0
    ) -> State: ...

    def from_json(self, data: Mapping[str, Any]) -> State: ...

    def render_svg(
        self,
        state: State,
        seat: int | None = None,
        names: Sequence[str] | None = None,
        language: Language = ENGLISH,
    ) -> str:
        """The board from `seat`'s view as an SVG document; `names` are the seats' display
        names (escaped by the renderer), colour words when None. Its words (captions, keys,
        accessible names) are in `language`, made from the game's catalog.

        The root has role="group" and an aria-label saying what it shows. Every cell, square,
        tile or piece a page may click is a group with its accessible name in `data-name`
        (and a `<title>`). Each other seat's last turn, and `seat`'s own when nobody has moved
        since, is a `g.last-turn` (data-seat, data-plies: its plies counted from 0; data-name:
        what it did) drawn in the seat's colour with badges of its letter (`seat_mark`);
        pieces carry the letter or a shape of their own too, so seats differ by more than
        colour. Words are a person's: moves counted from 1, no reason codes."""
        ...

    def render_text(
        self,
        state: State,
        seat: int | None = None,
        names: Sequence[str] | None = None,
        language: Language = ENGLISH,
    ) -> str:
        """The board for a terminal or a mail's text part, its words in `language`."""
        ...

    def render_mail_svg(
        self,
        state: State,
        seat: int | None = None,
        names: Sequence[str] | None = None,
        last_turn: bool = True,
    ) -> str:
        """`mail_drawing` as one SVG document."""
        ...

    def mail_drawing(
        self,
        state: State,
        seat: int | None = None,
        names: Sequence[str] | None = None,
        last_turn: bool = True,
    ) -> MailDrawing:
        """The board for a turn or result email, 600 pixels wide, as sprites
        (pbem.games.sprites): what a phone shows well (the board from `seat`'s side where the
        game has sides, and with `last_turn` each seat's latest turn as a spectator's
        `render_svg` marks it, in the seat's colour, in a group of class "last-move"), without
        the page's interactive extras. Only what every reader may see and nothing in words:
        who is who, the scores, "you" and the hand are the email's, so the drawing is the same
        for every seat with the same `mail_side` and `names` change nothing."""
        ...

    def mail_side(self, seat: int | None) -> int | None:
        """Which side of the board `mail_drawing` shows `seat`: a seat number where the game
        draws from the reader's side, None where every seat sees the same drawing. Seats with
        the same side share one picture."""
        ...

    def board_assets(
        self,
        state: State,
        seat: int,
        names: Sequence[str] | None = None,
        language: Language = ENGLISH,
    ) -> JSON:
        """Extra drawings and data the interactive board needs on `seat`'s turn (Marram's tile
        previews, and what each flip would cost); an empty dict for games that need none.
        Sentences in it, in `language`, name seats by `names` (colour words when None) and the
        seat itself as "your"."""
        ...


def resolve_options(
    game_name: str,
    declared: Mapping[str, Sequence[OptionValue]],
    given: Mapping[str, Any] | None,
    extra: Sequence[str] = (),
) -> Options:
    """Validate options against the declared choices and fill in defaults.

    Values are matched by their text, so "16" from a form or a command line selects 16.
    `extra` names free-form options (scenario options such as Marram's `deck`) passed through as is.
    """
    given = dict(given or {})
    resolved: Options = {}
    for name, choices in declared.items():
        if name not in given or given[name] is None:
            resolved[name] = choices[0]
            continue
        raw = given.pop(name)
        for choice in choices:
            if str(choice).lower() == str(raw).strip().lower():
                resolved[name] = choice
                break
        else:
            allowed = ", ".join(str(c) for c in choices)
            raise ValueError(f"{game_name}: option {name}={raw!r} is not allowed; choose {allowed}")
    for name in extra:
        if name in given:
            resolved[name] = given.pop(name)
    if given:
        unknown = ", ".join(sorted(given))
        known = ", ".join([*declared, *extra]) or "none"
        raise ValueError(f"{game_name}: unknown option {unknown}; known options: {known}")
    return resolved


def check_unsettled(outcome: Outcome | None) -> None:
    """What `State.settled` checks first: only a game the rules have not ended can be ended."""
    if outcome is not None:
        raise ValueError(f"the game is already over ({outcome.reason}); it cannot end again")


def ending_words(outcome: Outcome, names: Sequence[str]) -> str | None:
    """An ending the service decided, in words with `names` for the seats; None for the rules'."""
    said = outcome.said
    return None if said is None else fill_names(said, names)


def check_players(game_name: str, players: int, low: int, high: int) -> None:
    if not isinstance(players, int) or not low <= players <= high:
        span = str(low) if low == high else f"{low} to {high}"
        raise ValueError(f"{game_name} is played by {span} players, not {players!r}")


def refuse_drop(title: str, seat: object, players: int = 2) -> ValueError:
    """The error a two-player engine's `drop` raises: such a game cannot go on without a player,
    so the service decides the result of a timeout or resignation itself."""
    if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < players:
        return ValueError(f"seat {seat!r} is not in this {players}-player game")
    return ValueError(
        f"{title} is a two-player game: it cannot go on without a player, "
        "so the service decides the result itself"
    )


def score_scaled_weight(scores: Sequence[int]) -> float:
    """`point_weight` for a game without a fitted one: a lead of a few points counts for more
    early in a low-scoring game than late in a high one."""
    return 2.0 / (1.5 + 0.25 * sum(abs(score) for score in scores) / len(scores))


def ranked_winners(values: Sequence[int]) -> list[int]:
    """Seats holding the best value (all of them when tied)."""
    best = max(values)
    return [seat for seat, value in enumerate(values) if value == best]


def unroll(past: Past) -> list[str]:
    """The moves of a history chain, oldest first."""
    moves = []
    while past is not None:
        past, move = past
        moves.append(move)
    moves.reverse()
    return moves
