"""Invariants of random Marram games: tokens and tiles are conserved, every laid side matches,
and every feature scored is complete (and every complete one scored) by an independent search."""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any
from unittest import mock

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pbem.games.marram.board import DELTAS, Laid, Pos, requirement, unpack
from pbem.games.marram.features import Creature, Region
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
    # What the engine keeps up to date action by action, found again from the board.
    groups: dict[int, set[str]] = {}
    for (x, y), req in state.frontier.items():
        groups.setdefault(req, set()).add(f"{x},{y} ")
    assert {req: set(members) for req, members in state.frontier_groups.items()} == groups
    flips = {}
    for pos, laid in state.board.items():
        back = state.tile(laid.tile).back
        if back is not None and laid.face_index == 0:
            need = unpack(requirement(state.board, pos))
            rots = tuple(
                k
                for k in range(4)
                if all(need[d] < 0 or back.sides[k][d] == need[d] for d in range(4))
            )
            if rots:
                flips[pos] = rots
    assert state.flips == flips


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


# -- scoring only what is complete ----------------------------------------------------------------
#
# A fresh search written from the rules' words (3.1, 3.2), sharing no code with the engine's:
# quadrant q lies between spokes q-1 and q and on sides q-1 and q; across side d it faces
# quadrant 2d+3-q (mod 4) of the neighbour.

Quad = tuple[Pos, int]
Piece = tuple[Pos, int]


def _neighbour(pos: Pos, side: int) -> Pos:
    dx, dy = DELTAS[side]
    return pos[0] + dx, pos[1] + dy


def fresh_region(board: dict[Pos, Laid], start: Quad) -> tuple[frozenset[Quad], bool]:
    """The quadrants of the region holding `start`, and whether it is complete."""
    terrain = board[start[0]].face.terr[board[start[0]].k][start[1]]
    found = {start}
    todo = [start]
    complete = True
    while todo:
        pos, q = todo.pop()
        laid = board[pos]
        joined: list[Quad] = []
        for spoke, other in ((q, (q + 1) % 4), ((q - 1) % 4, (q - 1) % 4)):
            if laid.piece_at(spoke) >= 0:
                complete = False  # touches a creature: not surrounded
            elif laid.face.terr[laid.k][other] == terrain:
                joined.append((pos, other))
        for side in (q, (q - 1) % 4):
            there = _neighbour(pos, side)
            if there in board:
                joined.append((there, (2 * side + 3 - q) % 4))
            else:
                complete = False  # on a side with nothing laid beyond: not closed
        for node in joined:
            if node not in found:
                found.add(node)
                todo.append(node)
    return frozenset(found), complete


def fresh_creature(board: dict[Pos, Laid], start: Piece) -> tuple[frozenset[Piece], bool]:
    """The pieces of the creature holding `start`, and whether every spoke faces a laid tile."""
    found = {start}
    todo = [start]
    complete = True
    while todo:
        pos, index = todo.pop()
        laid = board[pos]
        for spoke in range(4):
            if laid.piece_at(spoke) != index:
                continue
            there = _neighbour(pos, spoke)
            other = board[there].piece_at((spoke + 2) % 4) if there in board else -1
            if other < 0:
                complete = False
            elif (there, other) not in found:
                found.add((there, other))
                todo.append((there, other))
    return frozenset(found), complete


class ScoringWitness:
    """Checks, as the engine scores, that each feature scored is complete by `fresh_*`, and after
    each action that no complete feature with a part on the acted tile (or beside a freed spoke)
    went unscored."""

    def __init__(self) -> None:
        self.regions: list[frozenset[Quad]] = []
        self.creatures: list[frozenset[Piece]] = []
        self.scored = 0

    def region(self, state: MarramState, r: Region) -> None:
        start = min(r.nodes)
        nodes, complete = fresh_region(state.board, start)
        assert complete, f"an incomplete region was scored: {sorted(nodes)} in {state.history}"
        assert nodes == r.nodes, "the region scored is not the whole region"
        self.regions.append(nodes)
        self.scored += 1

    def creature(self, state: MarramState, c: Creature) -> None:
        nodes, complete = fresh_creature(state.board, min(c.nodes))
        assert complete, f"an incomplete creature was scored: {sorted(nodes)} in {state.history}"
        assert nodes == c.nodes, "the creature scored is not the whole creature"
        self.creatures.append(nodes)
        self.scored += 1

    def action(self, state: MarramState, pos: Pos, run: Callable[[], None]) -> None:
        board = state.board
        expected_creatures = set()
        for spoke in range(4):
            index = board[pos].piece_at(spoke)
            if index >= 0:
                nodes, complete = fresh_creature(board, (pos, index))
                if complete:
                    expected_creatures.add(nodes)
        removed_before = {p: laid.removed for p, laid in board.items()}
        self.regions, self.creatures = [], []
        run()
        board = state.board
        assert set(self.creatures) == expected_creatures, "a complete creature went unscored"
        assert len(self.creatures) == len(expected_creatures), "a creature was scored twice"
        starts = [(pos, q) for q in range(4)]
        for p, laid in board.items():
            freed = laid.removed & ~removed_before.get(p, 0)
            for spoke in range(4):
                if freed >> spoke & 1:
                    starts += [(p, spoke), (p, (spoke + 1) % 4)]
        expected_regions = set()
        for start in starts:
            nodes, complete = fresh_region(board, start)
            if complete:
                expected_regions.add(nodes)
        assert set(self.regions) == expected_regions, "a complete region went unscored"
        assert len(self.regions) == len(expected_regions), "a region was scored twice"


@contextmanager
def witnessed() -> Iterator[ScoringWitness]:
    """Run the engine with its scoring steps checked by a `ScoringWitness`."""
    witness = ScoringWitness()
    score_region = MarramState._score_region
    score_creature = MarramState._score_creature
    score_action = MarramState._score_action

    def on_region(self: MarramState, r: Region, ply: int) -> None:
        witness.region(self, r)
        score_region(self, r, ply)

    def on_creature(self: MarramState, c: Creature, ply: int) -> None:
        witness.creature(self, c)
        score_creature(self, c, ply)

    def on_action(self: MarramState, pos: Pos, ply: int) -> None:
        witness.action(self, pos, lambda: score_action(self, pos, ply))

    with (
        mock.patch.object(MarramState, "_score_region", on_region),
        mock.patch.object(MarramState, "_score_creature", on_creature),
        mock.patch.object(MarramState, "_score_action", on_action),
    ):
        yield witness


@settings(max_examples=40, deadline=None)
@given(
    seed=st.integers(0, 10_000),
    players=st.integers(2, 4),
    variant=st.sampled_from(["classic", "pitchfork", "animals"]),
    data=st.data(),
)
def test_random_games_score_only_complete_features(
    seed: int, players: int, variant: str, data: st.DataObject
) -> None:
    with witnessed():
        state = GAME.new(players, {"variant": variant, "length": "long"}, seed=seed)
        assert isinstance(state, MarramState)
        while state.outcome is None:
            moves = state.legal_moves()
            state = state.play(moves[data.draw(st.integers(0, len(moves) - 1))])


def _greedy_playout(variant: str, players: int, seed: int) -> Any:
    """A whole long game that claims often (so that many features score) and flips sometimes."""
    rng = random.Random(seed)
    state = GAME.new(players, {"variant": variant, "length": "long"}, seed=seed)
    while state.outcome is None:
        moves = state.legal_moves()
        claims = [m for m in moves if " boot " in m or " fork " in m]
        flips = [m for m in moves if m.startswith("flip")]
        roll = rng.random()
        pool = flips if flips and roll < 0.15 else claims if claims and roll < 0.7 else moves
        state = state.play(rng.choice(pool))
    return state


@pytest.mark.parametrize("variant", ["classic", "pitchfork", "animals"])
def test_whole_games_score_only_complete_features(variant: str) -> None:
    with witnessed() as witness:
        for seed in range(20):
            _greedy_playout(variant, 2 + seed % 3, seed)
    assert witness.scored > 100, "the sweep should score plenty of features"


@settings(max_examples=30)
@given(
    seed=st.integers(0, 10_000),
    players=st.integers(2, 4),
    variant=st.sampled_from(["classic", "pitchfork", "animals"]),
    data=st.data(),
)
def test_legal_moves_kept_from_the_first_action_are_those_found_afresh(
    seed: int, players: int, variant: str, data: st.DataObject
) -> None:
    """A second action's legal moves are the first action's, changed where it changed the
    board; they must be exactly those a position read from JSON finds from scratch."""
    state = GAME.new(players, {"variant": variant, "length": "long"}, seed=seed)
    assert isinstance(state, MarramState)
    while state.outcome is None:
        moves = state.legal_moves()
        assert moves == MarramState.from_json(state.to_json()).legal_moves()
        state = state.play(moves[data.draw(st.integers(0, len(moves) - 1))])
