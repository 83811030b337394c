"""Monte Carlo tree search: UCT for games of perfect information, information-set MCTS for games
with hidden information.

Each iteration walks down a tree of moves from the position, choosing by UCB1 the move that has
done best for the seat making it (with a bonus for moves tried less), adds one new move, plays
on at random for a while, and credits what it reached to every move on the way. Rewards are a
vector, one share per seat, so three or four players each pursue their own (max^n).

With hidden information the bot does not know the position, only its seat's view. Each
iteration then draws a position from that view (`State.sample`) and walks the one tree of moves
in it, considering only the moves legal in that draw (single-observer ISMCTS, Cowling, Powley
and Whitehouse 2012): a move's bonus counts how often it was available rather than how often its
parent was visited. The tree never holds anything the seat cannot see.

Random play-outs stop after `PLAYOUT_PLIES` moves and score the position by `standing`: long
games (eighty actions, or a hundred moves that may go round in circles) would otherwise spend the
whole budget on a few noisy finishes.
"""

from __future__ import annotations

import math
import random

from pbem.bots.budget import Budget
from pbem.bots.observation import Observation
from pbem.bots.standing import standing
from pbem.games.base import State

EXPLORATION = 0.7  # UCB1's constant, for rewards in [0, 1]
PLAYOUT_PLIES = 24


class _Node:
    """A move in the tree: how often it was tried and made available, and the rewards it led to,
    one total per seat."""

    __slots__ = ("available", "children", "totals", "untried", "visits")

    def __init__(self, players: int) -> None:
        self.children: dict[str, _Node] = {}
        self.untried: list[str] | None = None  # perfect information: moves not yet in the tree
        self.visits = 0
        self.available = 0
        self.totals = [0.0] * players


class MctsBot:
    kind = "mcts"
    name = "pbem MCTS"

    def __init__(self, exploration: float = EXPLORATION, playout_plies: int = PLAYOUT_PLIES):
        self.exploration = exploration
        self.playout_plies = playout_plies

    def choose(self, seen: Observation, rng: random.Random, budget: Budget) -> str:
        root = self.search(seen, rng, budget)
        if not root.children:
            return rng.choice(seen.sample(rng).legal_moves())
        # The most tried move (its value, then its name, decide between equals).
        return max(
            root.children.items(),
            key=lambda item: (item[1].visits, item[1].totals[seen.seat], item[0]),
        )[0]

    def rate(self, seen: Observation, rng: random.Random, budget: Budget) -> float:
        root = self.search(seen, rng, budget)
        return root.totals[seen.seat] / root.visits if root.visits else 0.5

    def search(self, seen: Observation, rng: random.Random, budget: Budget) -> _Node:
        """The tree grown from `seen` within `budget`."""
        first = seen.sample(rng)
        root = _Node(first.players)
        clock = budget.clock()
        if seen.perfect_information:
            while clock.more():
                self._uct(root, first, rng)
        else:
            state = first
            while clock.more():
                self._ismcts(root, state, rng)
                state = seen.sample(rng)
        return root

    def _uct(self, root: _Node, state: State, rng: random.Random) -> None:
        node, path = root, [root]
        while state.outcome is None:
            if node.untried is None:
                node.untried = state.legal_moves()
                rng.shuffle(node.untried)
            if node.untried:
                move = node.untried.pop()
                state = state.play(move)
                child = _Node(len(node.totals))
                node.children[move] = child
                path.append(child)
                break
            mover = state.to_move
            assert mover is not None
            scale = self.exploration * math.sqrt(math.log(node.visits))
            move, node = max(
                node.children.items(),
                key=lambda item: (
                    item[1].totals[mover] / item[1].visits + scale / math.sqrt(item[1].visits)
                ),
            )
            state = state.play(move)
            path.append(node)
        self._credit(path, self._playout(state, rng))

    def _ismcts(self, root: _Node, state: State, rng: random.Random) -> None:
        node, path = root, [root]
        while state.outcome is None:
            legal = state.legal_moves()
            children = node.children
            untried = [move for move in legal if move not in children]
            if untried:
                move = rng.choice(untried)
                state = state.play(move)
                child = _Node(len(node.totals))
                children[move] = child
                # Every move of the tree that this draw allowed was available once more.
                for other in legal:
                    known = children.get(other)
                    if known is not None:
                        known.available += 1
                path.append(child)
                break
            mover = state.to_move
            assert mover is not None
            best_move, best, best_score = legal[0], children[legal[0]], -1.0
            for move in legal:
                child = children[move]
                child.available += 1
                score = child.totals[mover] / child.visits + self.exploration * math.sqrt(
                    math.log(child.available) / child.visits
                )
                if score > best_score:
                    best_move, best, best_score = move, child, score
            state = state.play(best_move)
            node = best
            path.append(node)
        self._credit(path, self._playout(state, rng))

    def _playout(self, state: State, rng: random.Random) -> list[float]:
        for _ in range(self.playout_plies):
            if state.outcome is not None:
                break
            state = state.play(rng.choice(state.legal_moves()))
        return standing(state)

    @staticmethod
    def _credit(path: list[_Node], reward: list[float]) -> None:
        for node in path:
            node.visits += 1
            totals = node.totals
            for seat, share in enumerate(reward):
                totals[seat] += share
