"""A tiny engine for the service tests, independent of the real games.

Players take 1 to 3 counters from a pile in turn; whoever takes the last one wins. With
`actions=2` each seat takes twice per turn, as Marram's two actions keep `to_move` unchanged.
A seat may be dropped (out of time in a game of three): turns skip it, and when one seat is
left it wins.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from pbem.games.base import (
    IllegalMove,
    InvalidMove,
    Outcome,
    SeatSummary,
    Summary,
    check_players,
    check_unsettled,
    resolve_options,
    score_scaled_weight,
)


@dataclass(frozen=True)
class CountdownState:
    pile: int
    players: int
    actions: int
    history: list[str] = field(default_factory=list)
    taken: tuple[int, ...] = ()
    seat: int = 0  # whose turn it is
    acted: int = 0  # actions taken in this turn
    last: int | None = None  # who took last
    dropped: list[int] = field(default_factory=list)
    ended: Outcome | None = None  # an ending the service decided (`settled`)
    turns: int = 0  # turns over so far

    @property
    def playing(self) -> list[int]:
        return [s for s in range(self.players) if s not in self.dropped]

    @property
    def to_move(self) -> int | None:
        if self.outcome is not None:
            return None
        return self.seat

    @property
    def outcome(self) -> Outcome | None:
        if self.ended is not None:
            return self.ended
        if self.pile and len(self.playing) > 1:
            return None
        details = {"dropped": list(self.dropped)} if self.dropped else {}
        if self.pile:
            return Outcome(self.playing, self.scores(), "last-player", details)
        assert self.last is not None
        return Outcome([self.last], self.scores(), "last-counter", details)

    @property
    def mid_turn(self) -> bool:
        return self.outcome is None and self.acted != 0

    @property
    def actions_left(self) -> int:
        return self.actions - self.acted if self.outcome is None else 0

    @property
    def turn_number(self) -> int:
        return self.turns + 1

    def _next(self, seat: int, dropped: list[int]) -> int:
        for step in range(1, self.players + 1):
            candidate = (seat + step) % self.players
            if candidate not in dropped:
                return candidate
        return seat

    def drop(self, seat: int) -> CountdownState:
        if self.players == 2:
            raise ValueError("countdown of two: the service ends it instead")
        if seat in self.dropped or not 0 <= seat < self.players or self.outcome is not None:
            raise ValueError(f"seat {seat} cannot leave")
        dropped = [*self.dropped, seat]
        turn, acted, turns = self.seat, self.acted, self.turns
        if seat == self.seat:
            turn, acted = self._next(seat, dropped), 0
            turns += 1 if self.acted else 0
        return CountdownState(
            self.pile,
            self.players,
            self.actions,
            list(self.history),
            self.taken,
            turn,
            acted,
            self.last,
            dropped,
            turns=turns,
        )

    def settled(self, outcome: Outcome) -> CountdownState:
        check_unsettled(self.outcome)
        return replace(self, ended=outcome)

    def play_described(self, move: str) -> tuple[CountdownState, str]:
        after = self.play(move)
        count = after.history[-1]
        return after, f"{{{self.to_move}}} took {count}, leaving {after.pile}"

    def describe(self, move: str) -> str:
        return self.play_described(move)[1]

    def describe_choice(self, move: str) -> str:
        return self.describe(move)

    def describe_outcome(self) -> str | None:
        outcome = self.outcome
        if outcome is None or outcome.said is not None:
            return None if outcome is None else outcome.said
        return f"{{{outcome.winners[0]}}} took the last counter"

    def summary(self, seat: int | None) -> Summary:
        return Summary("counters", [SeatSummary("", "")] * self.players, "", f"{self.pile} left")

    def legal_moves(self) -> list[str]:
        if self.outcome is not None:
            return []
        return [str(n) for n in range(1, min(3, self.pile) + 1)]

    def play(self, move: str) -> CountdownState:
        text = move.strip().lower()
        if not text.isdigit():
            raise InvalidMove(f"{move!r} is not a number of counters; type 1, 2 or 3")
        if self.outcome is not None:
            raise IllegalMove(f"{move!r}: the game is over")
        count = int(text)
        if not 1 <= count <= min(3, self.pile):
            raise IllegalMove(f"{move!r}: take 1 to {min(3, self.pile)} counters")
        seat = self.to_move
        assert seat is not None
        taken = list(self.taken or [0] * self.players)
        taken[seat] += count
        acted = self.acted + 1
        turn, turns = seat, self.turns
        if acted == self.actions:
            turn, acted, turns = self._next(seat, self.dropped), 0, turns + 1
        return CountdownState(
            self.pile - count,
            self.players,
            self.actions,
            [*self.history, str(count)],
            tuple(taken),
            turn,
            acted,
            seat,
            list(self.dropped),
            turns=turns,
        )

    def scores(self) -> list[int]:
        return list(self.taken or [0] * self.players)

    def worth(self) -> list[float]:
        return [float(score) for score in self.scores()]

    def point_weight(self) -> float:
        return score_scaled_weight(self.scores())

    def to_json(self) -> dict[str, Any]:
        return {
            "pile": self.pile,
            "players": self.players,
            "actions": self.actions,
            "history": list(self.history),
            "taken": list(self.scores()),
            "seat": self.seat,
            "acted": self.acted,
            "last": self.last,
            "dropped": list(self.dropped),
            "turns": self.turns,
        }

    def sample(self, seat: int | None, rng: Any) -> CountdownState:
        self.view(seat)  # refuses a seat out of range
        return self  # nothing is hidden

    def view(self, seat: int | None) -> dict[str, Any]:
        if seat is not None and not 0 <= seat < self.players:
            raise ValueError(f"no seat {seat}")
        # Like Marram, a turn of several actions counts them down in the view.
        left = self.actions - self.acted if self.outcome is None else 0
        return {"pile": self.pile, "to_move": self.to_move, "seat": seat, "actions_left": left}


class Countdown:
    name = "countdown"
    title = "Countdown"
    min_players = 2
    max_players = 3
    options: Mapping[str, tuple[Any, ...]] = {"pile": (10, 5, 21), "actions": (1, 2)}
    perfect_information = True

    def new(
        self, players: int, options: Mapping[str, Any] | None = None, seed: int = 0
    ) -> CountdownState:
        check_players(self.name, players, self.min_players, self.max_players)
        resolved = resolve_options(self.name, self.options, options)
        return CountdownState(resolved["pile"], players, resolved["actions"])

    def from_json(self, data: Mapping[str, Any]) -> CountdownState:
        return CountdownState(
            data["pile"],
            data["players"],
            data["actions"],
            list(data["history"]),
            tuple(data["taken"]),
            data.get("seat", 0),
            data.get("acted", 0),
            data.get("last"),
            list(data.get("dropped", [])),
            turns=data.get("turns", 0),
        )

    # The test engine draws no words: its drawings are the same in every `language`.
    def board_assets(
        self, state: CountdownState, seat: int, names: Any = None, language: Any = None
    ) -> dict[str, Any]:
        return {}

    def render_svg(
        self,
        state: CountdownState,
        seat: int | None = None,
        names: Any = None,
        language: Any = None,
    ) -> str:
        dots = "".join(
            f'<circle cx="{10 + 20 * i}" cy="20" r="8" data-counter="{i}"/>'
            for i in range(state.pile)
        )
        return f'<?xml version="1.0"?>\n<svg xmlns="http://www.w3.org/2000/svg">{dots}</svg>'

    def render_text(
        self,
        state: CountdownState,
        seat: int | None = None,
        names: Any = None,
        language: Any = None,
    ) -> str:
        return "o" * state.pile


GAME = Countdown()
