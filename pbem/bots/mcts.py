"""Monte Carlo tree search: UCT for games of perfect information, information-set MCTS for games
with hidden information.

Each iteration walks down a tree of moves from the position, choosing by UCB1 the move that has
done best for the seat making it (with a bonus for moves tried less), adds one new move, plays
on for a while, and credits what it reached to every move on the way. Rewards are a vector, one
share per seat, so three or four players each pursue their own (max^n).

With hidden information the bot does not know the position, only its seat's view. Each
iteration then draws a position from that view (`State.sample`) and walks the one tree of moves
in it, considering only the moves legal in that draw (single-observer ISMCTS, Cowling, Powley
and Whitehouse 2012): a move's bonus counts how often it was available rather than how often its
parent was visited. The tree never holds anything the seat cannot see.

Games with hundreds of moves a turn need two more things to search well with a few thousand
iterations (Chaslot et al. 2008, "Progressive strategies for MCTS"):

- **Progressive widening in the order of a prior.** A node whose moves are the same in every
  draw (every node of a perfect-information game; the searching seat's own moves otherwise)
  ranks its moves once by what each gains at once (the mover's lead in worth right after it:
  `State.worth`, the score and what the engine reckons the seat holds beyond it), and lets
  its visits open them in that order, a few more as it is visited more. The root ranks by the
  best whole turn each move begins, as the greedy bot chooses but by worth, so that the
  search starts from greedy's move (less any token it spends for nothing) and leaves it only
  for what its play-outs find better. Other nodes open their moves at random.
- **Play-outs that try.** Each play-out move is the best, by that same immediate gain, of a few
  moves drawn at random (`PLAYOUT_CHOICES`): play-out players take the points in front of them,
  so a claim on a feature someone will complete pays off in the play-out as it would in a game.
  Play-outs stop after `PLAYOUT_PLIES` moves and the position is scored by `standing`, each
  seat's chance of winning by its lead in worth: a play-out that ends with the tokens a player
  kept ends better for it than one in which it spent them on claims that never scored.
"""

from __future__ import annotations

import math
import random

from pbem.bots.budget import Budget
from pbem.bots.observation import Observation
from pbem.bots.standing import after_turn, margin, standing
from pbem.games.base import State

# UCB1's constant. Rewards are chances of winning, and a fitted chance moves by a few hundredths
# for a lead of a few points: at 0.7 the bonus for moves tried less drowned what the play-outs
# found (the pilots in bench/RESULTS.md).
EXPLORATION = 0.1
PLAYOUT_PLIES = 8
PLAYOUT_CHOICES = 3
# A node visited n times may have opened WIDEN * (n + 1) ** WIDEN_POWER of its moves.
WIDEN = 2.0
WIDEN_POWER = 0.5


class _Node:
    """A move in the tree: how often it was tried and made available, the rewards it led to
    (one total per seat), and its moves in the order they are opened."""

    __slots__ = ("available", "children", "order", "totals", "visits")

    def __init__(self, players: int) -> None:
        self.children: dict[str, _Node] = {}
        self.order: list[str] | None = None  # the moves by prior, best first (ranked nodes)
        self.visits = 0
        self.available = 0
        self.totals = [0.0] * players


class MctsBot:
    kind = "mcts"
    name = "pbem MCTS"

    def __init__(
        self,
        exploration: float = EXPLORATION,
        playout_plies: int = PLAYOUT_PLIES,
        playout_choices: int = PLAYOUT_CHOICES,
    ) -> None:
        self.exploration = exploration
        self.playout_plies = playout_plies
        self.playout_choices = playout_choices

    def choose(self, seen: Observation, rng: random.Random, budget: Budget) -> str:
        first = seen.sample(rng)
        legal = first.legal_moves()
        if len(legal) == 1:
            return legal[0]  # nothing to think about
        root = self.search(seen, rng, budget, first)
        if not root.children:
            return rng.choice(legal)
        # The most tried move (its value, then its name, decide between equals).
        return max(
            root.children.items(),
            key=lambda item: (item[1].visits, item[1].totals[seen.seat], item[0]),
        )[0]

    def rate(self, seen: Observation, rng: random.Random, budget: Budget) -> float:
        root = self.search(seen, rng, budget)
        return root.totals[seen.seat] / root.visits if root.visits else 0.5

    def search(
        self,
        seen: Observation,
        rng: random.Random,
        budget: Budget,
        first: State | None = None,
    ) -> _Node:
        """The tree grown from `seen` within `budget`."""
        state = first if first is not None else seen.sample(rng)
        root = _Node(state.players)
        clock = budget.clock()
        perfect = seen.perfect_information
        while clock.more():
            self._iterate(root, state, rng, seen.seat, perfect)
            if not perfect:
                state = seen.sample(rng)
        return root

    def _iterate(
        self, root: _Node, state: State, rng: random.Random, me: int, perfect: bool
    ) -> None:
        node, path = root, [root]
        while state.outcome is None:
            mover = state.to_move
            assert mover is not None
            legal = state.legal_moves()
            children = node.children
            # Ranked: the same moves in every draw (all of a perfect-information game's; the
            # searching seat's own otherwise).
            if perfect or mover == me:
                if node.order is None:
                    node.order = self._ranked(state, legal, mover, rng, whole_turn=node is root)
                allowed = math.ceil(WIDEN * (node.visits + 1) ** WIDEN_POWER)
                offered = [m for m in node.order[:allowed] if m in legal] or legal[:1]
            else:
                offered = legal
            untried = [move for move in offered if move not in children]
            if untried:
                move = untried[0] if perfect or mover == me else rng.choice(untried)
                state = state.play(move)
                child = _Node(len(node.totals))
                children[move] = child
                # Every move of the tree this draw offered was available once more.
                for other in offered:
                    known = children.get(other)
                    if known is not None:
                        known.available += 1
                path.append(child)
                break
            best_move, best, best_score = offered[0], children[offered[0]], -1.0
            for move in offered:
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

    @staticmethod
    def _ranked(
        state: State, legal: list[str], mover: int, rng: random.Random, whole_turn: bool
    ) -> list[str]:
        """The moves by what each gains the mover at once (or, `whole_turn`, by the end of the
        best turn it begins), best first; equals in a random order (the seed's)."""
        value = after_turn if whole_turn else margin
        keyed = [(value(state.play(move), mover, True), rng.random(), move) for move in legal]
        keyed.sort(reverse=True)
        return [move for _, _, move in keyed]

    def _playout(self, state: State, rng: random.Random) -> list[float]:
        choices = self.playout_choices
        for _ in range(self.playout_plies):
            if state.outcome is not None:
                break
            mover = state.to_move
            assert mover is not None
            legal = state.legal_moves()
            if len(legal) <= 1 or choices <= 1:
                state = state.play(rng.choice(legal))
                continue
            best_state, best_value = state, -math.inf
            for move in rng.sample(legal, min(choices, len(legal))):
                after = state.play(move)
                value = margin(after, mover, True)
                if value > best_value:
                    best_state, best_value = after, value
            state = best_state
        return standing(state)

    @staticmethod
    def _credit(path: list[_Node], reward: list[float]) -> None:
        for node in path:
            node.visits += 1
            totals = node.totals
            for seat, share in enumerate(reward):
                totals[seat] += share
