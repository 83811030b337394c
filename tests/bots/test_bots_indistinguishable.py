"""A bot decides from what its seat sees, nothing more: two positions its seat cannot tell apart
(the same view; another bag, other hands, drawn with the engine's `sample`) give every bot the
same move and the same rating, and the service's random source for a bot is keyed by a secret
and that view, never by the game's seed."""

from __future__ import annotations

import random
from collections.abc import Iterator
from types import SimpleNamespace

import pytest

from pbem import bots, games
from pbem.bots import Budget, Observation
from pbem.domain.bot_turns import rng_for

BUDGET = Budget(iterations=20)
# A few positions a game, early to late: searching every ply is bench/ work.
PLIES = (0, 7, 21, 49)


def _variants() -> Iterator[tuple[str, dict[str, object], int]]:
    for name in games.names():
        game = games.get(name)
        counts = range(game.min_players, game.max_players + 1)
        choices = [dict(zip(game.options, values, strict=True)) for values in _product(game)]
        for options in choices:
            for players in counts:
                yield name, options, players


def _product(game: games.Game) -> list[tuple[object, ...]]:
    combos: list[tuple[object, ...]] = [()]
    for values in game.options.values():
        combos = [(*c, v) for c in combos for v in values]
    return combos


VARIANTS = [
    pytest.param(n, o, p, id=f"{n}-{'-'.join(map(str, o.values())) or 'std'}-{p}p")
    for n, o, p in _variants()
]


def _positions(name: str, options: dict[str, object], players: int) -> list[games.State]:
    """Positions of a random game after each of PLIES moves, while it lasts."""
    rng = random.Random(len(options) + players)
    state = games.get(name).new(players, options, 5)
    kept = []
    while state.outcome is None and len(state.history) <= PLIES[-1]:
        if len(state.history) in PLIES:
            kept.append(state)
        state = state.play(rng.choice(state.legal_moves()))
    return kept


def _twin(state: games.State, seat: int, seed: int) -> games.State:
    """A position `seat` cannot tell from `state`: what it cannot see drawn again."""
    twin = state.sample(seat, random.Random(f"twin:{seed}"))
    assert twin.view(seat) == state.view(seat)
    return twin


@pytest.mark.parametrize(("name", "options", "players"), VARIANTS)
def test_positions_a_seat_cannot_tell_apart_get_the_same_decisions(
    name: str, options: dict[str, object], players: int
) -> None:
    perfect = games.get(name).perfect_information
    for state in _positions(name, options, players):
        seat = state.to_move
        assert seat is not None
        twin = _twin(state, seat, len(state.history))
        for kind in bots.kinds():
            bot = bots.get(kind)
            decided = [
                (
                    bot.choose(Observation.of(s, seat, perfect), random.Random(7), BUDGET),
                    bot.rate(Observation.of(s, seat, perfect), random.Random(7), BUDGET),
                )
                for s in (state, twin)
            ]
            assert decided[0] == decided[1], (kind, len(state.history))


def test_marram_samples_do_not_follow_the_true_order_of_the_bag() -> None:
    state = games.get("marram").new(3, {}, 11)
    while len(state.history) < 6:
        state = state.play(state.legal_moves()[0])
    seat = state.to_move
    assert seat is not None
    twin = _twin(state, seat, 1)
    assert twin.to_json()["bag"] != state.to_json()["bag"], "the twin holds another bag"
    drawn = [s.sample(seat, random.Random(5)).to_json() for s in (state, twin)]
    assert drawn[0]["bag"] == drawn[1]["bag"] and drawn[0]["hands"] == drawn[1]["hands"]
    assert drawn[0]["seed"] == 0, "a sample carries no seed"


def _game(seed: int) -> SimpleNamespace:
    return SimpleNamespace(id="g1", seed=seed)


def test_the_bots_random_source_is_keyed_by_the_secret_and_the_view_not_the_seed() -> None:
    state = games.get("marram").new(2, {}, 3)
    seat = state.to_move
    assert seat is not None
    seen = Observation.of(state, seat, False)
    twin = Observation.of(_twin(state, seat, 2), seat, False)

    def draws(secret: str, observation: Observation, ply: int = 0) -> list[float]:
        rng = rng_for(secret, "g1", ply, observation)
        return [rng.random() for _ in range(4)]

    assert draws("s3cret", seen) == draws("s3cret", twin), "a function of the view"
    assert draws("s3cret", seen) != draws("another", seen), "unknown without the secret"
    assert draws("s3cret", seen) != draws("s3cret", seen, ply=1)
    # What a player could compute from the seed is not the bot's source.
    assert draws("s3cret", seen) != [random.Random(f"move:3:0:{seat}").random() for _ in range(4)]
