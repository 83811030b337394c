"""Invariants of random Marram games: tokens and tiles are conserved, every laid side matches."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from pbem.games.marram.board import DELTAS, requirement
from pbem.games.marram.rules import KIND_INDEX, SHOVEL, SUPPLIES, MarramState
from pbem.games.marram.tiles import reverse_code
from tests.games.marram.scenario import GAME


def check_invariants(state: MarramState) -> None:
    data = state.to_json()
    initial = SUPPLIES[data["variant"]]
    for seat in range(state.players):
        on_board = [0, 0, 0, 0]
        for s, kind, *_ in data["tokens"]:
            if s == seat:
                on_board[KIND_INDEX[kind]] += 1
        for i in range(4):
            total = data["supplies"][seat][i] + on_board[i] + data["lost"][seat][i]
            assert total == initial[i], (seat, i, data)
        assert data["supplies"][seat][SHOVEL] >= 0
    laid = len(data["board"])
    held = sum(len(h) for h in data["hands"])
    assert len(data["bag"]) + held + laid + len(data["discarded"]) == 85
    ids = [b[2] for b in data["board"]] + data["bag"] + data["discarded"]
    ids += [t for h in data["hands"] for t in h]
    assert sorted(ids) == list(range(85))
    for (x, y), tile in state.board.items():
        for d, (dx, dy) in enumerate(DELTAS):
            other = state.board.get((x + dx, y + dy))
            if other is not None:
                assert tile.side(d) == reverse_code(other.side((d + 2) % 4)), ((x, y), d)
    for pos, req in state.frontier.items():
        assert pos not in state.board and req == requirement(state.board, pos)


@settings(max_examples=25)
@given(
    seed=st.integers(0, 10_000),
    players=st.integers(2, 4),
    variant=st.sampled_from(["classic", "pitchfork", "animals"]),
    length=st.sampled_from(["short", "long"]),
    data=st.data(),
)
def test_random_games_keep_the_invariants(
    seed: int, players: int, variant: str, length: str, data: st.DataObject
) -> None:
    state = GAME.new(players, {"variant": variant, "length": length}, seed=seed)
    assert isinstance(state, MarramState)
    check_invariants(state)
    scores = state.scores()
    for _ in range(data.draw(st.integers(1, 120))):
        if state.outcome is not None:
            break
        moves = state.legal_moves()
        state = state.play(moves[data.draw(st.integers(0, len(moves) - 1))])
        check_invariants(state)
        now = state.scores()
        assert all(a >= b for a, b in zip(now, scores, strict=True)), "scores never fall"
        scores = now
        plies = [e["ply"] for e in state.view(None)["log"]]
        assert plies == sorted(plies) and plies[-1] <= len(state.history)
