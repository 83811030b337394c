"""The engine contract every game follows (see shared/design.md)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

JSON = dict[str, Any]
OptionValue = int | str
Options = dict[str, Any]


class MoveError(ValueError):
    """A move was refused; the message is meant for the player."""


class InvalidMove(MoveError):
    """The move text cannot be parsed."""


class IllegalMove(MoveError):
    """The move parses but breaks a rule in this position."""


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

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Outcome:
        return cls(
            winners=[int(s) for s in data["winners"]],
            scores=[int(s) for s in data["scores"]],
            reason=str(data["reason"]),
            details=dict(data.get("details", {})),
        )


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


@runtime_checkable
class Game(Protocol):
    """A game's rules: metadata, set-up, deserialisation and drawing."""

    name: str
    title: str
    min_players: int
    max_players: int
    # Option name -> allowed values, the default first.
    options: Mapping[str, Sequence[OptionValue]]

    def new(
        self, players: int, options: Mapping[str, Any] | None = None, seed: int = 0
    ) -> State: ...

    def from_json(self, data: Mapping[str, Any]) -> State: ...

    def render_svg(self, state: State, seat: int | None = None) -> str: ...

    def render_text(self, state: State, seat: int | None = None) -> str: ...


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


def check_players(game_name: str, players: int, low: int, high: int) -> None:
    if not isinstance(players, int) or not low <= players <= high:
        span = str(low) if low == high else f"{low} to {high}"
        raise ValueError(f"{game_name} is played by {span} players, not {players!r}")


def ranked_winners(values: Sequence[int]) -> list[int]:
    """Seats holding the best value (all of them when tied)."""
    best = max(values)
    return [seat for seat, value in enumerate(values) if value == best]
