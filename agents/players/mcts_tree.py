"""The search tree of :class:`agents.players.mcts.MCTSAgent` in Python, one node per position: rollouts
(UCT, or PUCT on greedy priors) and searches guided by a ``policy_value_fn`` on positions.

:class:`PythonTreeSearch` holds the walk down (:meth:`~PythonTreeSearch._descend`), the choice of an
edge, the evaluations (a rollout, or the value function, several leaves per call with virtual loss)
and the backup by the player at each node; :class:`MCTSAgent` mixes it in and keeps the options.
A search guided by a ``network=`` runs compiled instead (:mod:`agents.search`).
"""

from __future__ import annotations

import math
import time
from typing import Any

import numpy as np

from odd_env.game import Position

GROUP_SCALE = 2.0
"""Groups of balance that make ``tanh(balance / GROUP_SCALE)`` about 0.76 (``group_weight``)."""


def _checked_policy_value(result: Any, state: Position) -> tuple[np.ndarray, float]:
    """``policy_value_fn``'s answer as (priors, value), or ValueError saying what is wrong with it."""
    if not (isinstance(result, (tuple, list)) and len(result) == 2):
        raise ValueError(f"mcts: policy_value_fn must return (priors, value), got {type(result).__name__}")
    priors, value = np.asarray(result[0], dtype=np.float64), result[1]
    game = getattr(state, "game", None)
    n = game.num_actions if game is not None else len(state.legal_action_mask())
    if priors.shape != (n,):
        raise ValueError(f"mcts: policy_value_fn's priors must be one number per action, shape ({n},), "
                         f"got {priors.shape}")
    if not (np.isfinite(priors).all() and (priors >= 0).all()):
        raise ValueError("mcts: policy_value_fn's priors must be finite and >= 0")
    try:
        value = float(value)
    except (TypeError, ValueError):
        raise ValueError(f"mcts: policy_value_fn's value must be a number in [-1, 1], got {value!r}") from None
    if not -1.0 <= value <= 1.0:  # NaN fails too
        raise ValueError(f"mcts: policy_value_fn's value must be a number in [-1, 1] (for the player to act), "
                         f"got {value}")
    return priors, value


def _value_for_first(state: Position) -> float:
    """The outcome of a finished game for player 0: 1 win, 0.5 draw, 0 loss."""
    return 0.5 * (1.0 + state.returns()[0])


def _no_group_balance(game: str) -> ValueError:
    return ValueError(f"mcts: group_weight blends in the group balance of Xodd and Yodd, which {game} does not "
                      "have: use group_weight=0")


class Node:
    """A position in the search tree; edge statistics live in arrays, one slot per legal action."""

    __slots__ = ("state", "to_move", "terminal", "winner", "actions", "prior",
                 "visits", "wins", "children", "total", "pending")

    def __init__(self, state: Position):
        self.state = state
        self.to_move = state.to_move
        self.terminal = state.is_terminal
        self.winner = state.winner
        self.actions = np.empty(0, dtype=np.int64) if self.terminal else state.legal_actions()
        k = len(self.actions)
        self.prior: np.ndarray | None = None
        self.visits = np.zeros(k)
        self.wins = np.zeros(k)  # summed values (0 loss, 0.5 draw, 1 win) for the player to act here
        self.children: list[Node | None] = [None] * k
        self.total = 0
        self.pending = False  # created by a batched simulation, not yet evaluated


class PythonTreeSearch:
    """The tree search over :class:`Node` objects (mixed into :class:`agents.players.mcts.MCTSAgent`,
    whose options and random generators it reads)."""

    def _act_tree(self, state: Position) -> int:
        """Search ``state`` in the Python tree (reused from the last search where it holds ``state``);
        return the most visited action."""
        deadline = None if self.time_budget is None else time.perf_counter() + self.time_budget
        root = self._find_root(state)
        try:
            self.last_simulations = self._search(root, deadline) if len(root.actions) > 1 else 0
        except BaseException:
            # A search stopped midway (a bad policy_value_fn, Ctrl-C) leaves leaves waiting for their
            # evaluation in the tree: it is dropped, or every later search would stop at them.
            self._root = None
            raise
        i = self._best_edge(root)
        action = int(root.actions[i])
        self._root = root  # kept for root_visits(); searched from again only with reuse_tree
        return action

    def _tree_root_visits(self) -> dict[int, int]:
        """Visit counts of the root's actions after the last search."""
        if self._root is None:
            return {}
        return {int(a): int(v) for a, v in zip(self._root.actions, self._root.visits)}

    def _find_root(self, state: Position) -> Node:
        if self._root is not None and self.reuse_tree:
            key = state.key()
            frontier = [self._root]
            for _ in range(4):  # my second step, or the opponent's one- or two-step turn
                nxt = []
                for node in frontier:
                    for child in node.children:
                        if child is None:
                            continue
                        if child.state.key() == key:
                            return child
                        nxt.append(child)
                frontier = nxt
        root = Node(state.copy())
        self._expand(root)
        return root

    def _best_edge(self, node: Node) -> int:
        v = node.visits
        best = np.flatnonzero(v == v.max())
        if len(best) > 1:
            q = node.wins[best] / np.maximum(v[best], 1)
            best = best[q == q.max()]
        return int(best[self.rng.integers(len(best))]) if len(best) > 1 else int(best[0])

    def _select(self, node: Node) -> int:
        v = node.visits
        if node.prior is None and self._prior == "greedy" and self.policy_value_fn is None:
            node.prior = self._greedy_prior(node)  # only nodes searched through need priors
        if node.prior is None:
            unvisited = np.flatnonzero(v == 0)
            if len(unvisited):
                return int(unvisited[self.rng.integers(len(unvisited))])
            score = node.wins / v + self._c * np.sqrt(math.log(node.total) / v)
        else:
            fpu = node.wins.sum() / node.total if node.total else 0.5
            if self.fpu_reduction:
                fpu -= self.fpu_reduction * math.sqrt(float(node.prior[v > 0].sum()))
            q = np.where(v > 0, node.wins / np.maximum(v, 1), fpu)
            score = q + self._c * node.prior * math.sqrt(node.total + 1) / (1.0 + v)
        best = np.flatnonzero(score == score.max())
        return int(best[self.rng.integers(len(best))]) if len(best) > 1 else int(best[0])

    def _expand(self, node: Node) -> float | None:
        """Set the node's priors; return the value function's value (for the player to act) if any."""
        if node.terminal:
            return None
        if self.policy_value_fn is not None:
            priors, value = _checked_policy_value(self.policy_value_fn(node.state), node.state)
            self._set_prior(node, priors)
            return value
        return None

    @staticmethod
    def _set_prior(node: Node, priors: np.ndarray) -> None:
        """The node's priors: the value function's, over its legal actions, renormalised."""
        p = np.asarray(priors, dtype=np.float64)[node.actions]
        total = p.sum()
        node.prior = p / total if total > 0 else np.full(len(p), 1.0 / len(p))

    def _greedy_prior(self, node: Node) -> np.ndarray:
        """Softmax over the greedy score of the best turn through each action."""
        s = node.state.game.heuristics.prior_scores(node.state, node.actions)
        w = np.exp((s - s.max()) / self.prior_temp)
        return w / w.sum()

    def _evaluate(self, node: Node) -> float:
        """Value for player 0 (1 win, 0.5 draw, 0 loss) of a rollout from ``node``."""
        state = node.state
        heuristics = state.game.heuristics
        if heuristics is not None:  # compiled rollouts
            winner = heuristics.rollout(state, self._rng_state, self._rollout == "greedy", self.epsilon)
            return 1.0 if winner == 0 else (0.5 if winner < 0 else 0.0)
        state = state.copy()
        while not state.is_terminal:
            legal = state.legal_actions()
            state.apply(int(legal[self.rng.integers(len(legal))]))
        return _value_for_first(state)

    def _search(self, root: Node, deadline: float | None) -> int:
        """Run the simulations from ``root``, ``batch`` leaves per evaluation; return how many ran."""
        sims = 0
        while sims < self.simulations:
            leaves: list[tuple[list[tuple[Node, int]], Node]] = []
            for _ in range(min(self.batch, self.simulations - sims)):
                path, leaf, v_first = self._descend(root)
                if path is None:  # reached a leaf of this batch: evaluate what we have first
                    break
                sims += 1
                if leaf is None:
                    self._backup(path, v_first)
                else:
                    leaves.append((path, leaf))
            if leaves:
                for (path, leaf), v_first in zip(leaves, self._evaluate_leaves([leaf for _, leaf in leaves])):
                    leaf.pending = False
                    self._backup(path, v_first)
            if deadline is not None and time.perf_counter() >= deadline:
                break
        return sims

    def _descend(self, root: Node) -> tuple[list[tuple[Node, int]] | None, Node | None, float]:
        """Walk down from ``root`` counting a visit on each edge taken (its value comes at
        :meth:`_backup`: until then the edge counts as a loss, the virtual loss that spreads a
        batch over several leaves). Returns ``(path, new leaf to evaluate, 0)``, ``(path, None,
        value for player 0)`` at the end of the game, or ``(None, None, 0)`` (nothing counted)
        when the walk reaches a leaf that awaits its evaluation in this batch."""
        node = root
        path: list[tuple[Node, int]] = []
        while True:
            if node.terminal:
                return path, None, _value_for_first(node.state)
            if node.pending:
                for n, i in path:
                    n.visits[i] -= 1
                    n.total -= 1
                return None, None, 0.0
            i = self._select(node)
            node.visits[i] += 1
            node.total += 1
            path.append((node, i))
            child = node.children[i]
            if child is None:
                child = Node(node.state.child(int(node.actions[i])))
                node.children[i] = child
                if child.terminal:
                    return path, None, _value_for_first(child.state)
                child.pending = True
                return path, child, 0.0
            node = child

    def _evaluate_leaves(self, leaves: list[Node]) -> list[float]:
        """Values for player 0 of new leaves (setting their priors): one network call for all
        of them with ``network=``, else the value function or a rollout for each."""
        if self.policy_value_fn is None:
            return [self._evaluate(leaf) for leaf in leaves]
        if self._policy_values is not None and len(leaves) > 1:
            results = self._policy_values([leaf.state for leaf in leaves])
        else:
            results = [self.policy_value_fn(leaf.state) for leaf in leaves]
        out = []
        w = self._group_weight
        for leaf, result in zip(leaves, results):
            priors, value = _checked_policy_value(result, leaf.state)
            self._set_prior(leaf, priors)
            if w:
                balance = leaf.state.game.heuristics.balance(leaf.state)
                value = (1.0 - w) * value + w * math.tanh(balance / GROUP_SCALE)
            out.append(0.5 * (1.0 + (value if leaf.to_move == 0 else -value)))
        return out

    @staticmethod
    def _backup(path: list[tuple[Node, int]], v_first: float) -> None:
        for n, i in path:
            n.wins[i] += v_first if n.to_move == 0 else 1.0 - v_first

