"""The roots of :class:`~agents.search.search.BatchedSearch`: setting them (a fresh root, a subtree
kept between moves, the move played) and reading them after a search (the root's edges, the visit
shares, the best action, the Gumbel improved policy).

A mixin: it works on the search's ``tree`` (:mod:`agents.search.tree`), ``rules``
(:class:`odd_env.game.CompiledRules`), ``game``, ``num_trees`` and, after a Gumbel search, ``_gumbel``.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np

from odd_env.game import Position

from ..base import check_int
from . import tree as T
from .gumbel import root_arrays


class SearchRoots:
    """Setting and reading the roots of a batched search's trees (mixed into ``BatchedSearch``)."""

    # ------------------------------------------------------------ roots
    def _array(self, position: Position | np.ndarray) -> np.ndarray:
        if isinstance(position, np.ndarray):
            data = np.ascontiguousarray(position, dtype=np.int32)
            if data.shape != (self.rules.state_size,):
                raise ValueError(f"a position array of {self.game.label} has shape ({self.rules.state_size},), "
                                 f"got {position.shape}")
            return data
        if getattr(position, "game", None) is not self.game:
            what = position.game.label if hasattr(position, "game") else type(position).__name__
            raise ValueError(f"this search plays {self.game.label}, not {what}")
        return self.rules.encode(position)

    def _check_tree(self, b: int) -> int:
        return check_int("tree index", b, 0, self.num_trees - 1)

    def set_root(self, b: int, position: Position | np.ndarray) -> None:
        """Start tree ``b`` afresh at ``position`` (a position of the game or its compiled array)."""
        b = self._check_tree(b)
        s = self._array(position)
        self._forget(b)
        r, t = self.rules, self.rules.tables
        terminal = bool(r.is_terminal(s, t))
        T.clear_tree(self.tree, b, s, 0 if terminal else r.to_move(s, t), int(terminal),
                     r.returns(s, t)[0] if terminal else 0.0)

    def set_roots(self, positions: Sequence[Position | np.ndarray]) -> None:
        """Start every tree afresh: tree ``b`` at ``positions[b]``."""
        if len(positions) != self.num_trees:
            raise ValueError(f"set_roots takes one position per tree ({self.num_trees}), got {len(positions)}")
        for b, position in enumerate(positions):
            self.set_root(b, position)

    def reuse(self, b: int, position: Position | np.ndarray, max_depth: int = 4) -> bool:
        """Make ``position`` the root of tree ``b``, keeping its subtree when the tree holds it within
        ``max_depth`` plies of the root (True), else starting afresh (False)."""
        b = self._check_tree(b)
        s = self._array(position)
        self._forget(b)
        node = T.find_position(self.tree, b, s, max_depth) if self.tree.num_nodes[b] else -1
        if node < 0:
            self.set_root(b, s)
            return False
        if node > 0:
            T.reroot_tree(self.tree, b, node)
        return True

    def advance(self, b: int, action: int) -> None:
        """Play ``action`` at the root of tree ``b``: its child becomes the root, with its subtree
        (a fresh root if the search never went there). ValueError if ``action`` is not legal there."""
        b = self._check_tree(b)
        self._forget(b)
        tree = self.tree
        if tree.num_nodes[b] == 0:
            raise ValueError(f"tree {b} has no root: set_root first")
        first, count = tree.first_edge[b, 0], tree.num_edges[b, 0]
        for e in range(first, first + max(count, 0)):
            if tree.action[b, e] == action:
                if tree.child[b, e] >= 0:
                    T.reroot_tree(tree, b, tree.child[b, e])
                    return
                break
        s = tree.states[b, 0].copy()
        mask = np.zeros(self.rules.num_actions, np.int8)
        self.rules.legal_mask(s, self.rules.tables, mask)
        if not (isinstance(action, (int, np.integer)) and 0 <= action < len(mask) and mask[action]):
            raise ValueError(f"action {action!r} is not legal at the root of tree {b}")
        self.rules.apply(s, self.rules.tables, int(action))
        self.set_root(b, s)

    def _forget(self, b: int) -> None:
        """Drop the Gumbel choice of tree ``b`` (its root changes)."""
        if self._gumbel is not None:
            self._gumbel[0][b] = -1
            self._gumbel[1][b] = 0.0
            self._gumbel[2][b] = -1

    def root_position(self, b: int) -> Position:
        """The position at the root of tree ``b``."""
        return self.rules.decode(self.tree.states[self._check_tree(b), 0].copy())

    # ------------------------------------------------------------ results
    def root_edges(self, b: int) -> dict[str, np.ndarray]:
        """The root's edges of tree ``b``: ``actions``, ``visits``, ``q`` (mean value for the player
        to decide; 0 where unvisited), ``prior`` (its own, without noise)."""
        b = self._check_tree(b)
        t = self.tree
        first, count = t.first_edge[b, 0], max(int(t.num_edges[b, 0]), 0)
        sl = slice(first, first + count)
        visits = t.visits[b, sl].copy()
        q = np.where(visits > 0, t.value_sum[b, sl] / np.maximum(visits, 1), 0.0)
        return {"actions": t.action[b, sl].copy(), "visits": visits, "q": q, "prior": t.prior[b, sl].copy()}

    def root_visits(self, b: int) -> dict[int, int]:
        """The visit count of every legal action at the root of tree ``b``."""
        edges = self.root_edges(b)
        return {int(a): int(v) for a, v in zip(edges["actions"], edges["visits"])}

    def visit_policy(self) -> np.ndarray:
        """float32[B, num_actions]: each root's visit counts as shares (zeros for a tree without edges)."""
        roots = root_arrays(self.tree)
        out = np.zeros((self.num_trees, self.rules.num_actions), np.float32)
        total = roots["visits"].sum(1)
        rows, cols = np.nonzero(roots["legal"] & (total > 0)[:, None])
        actions = self.tree.action[rows, roots["index"][rows, cols]]
        out[rows, actions] = roots["visits"][rows, cols] / total[rows]
        return out

    def best_action(self, b: int) -> int:
        """The most visited action at the root of tree ``b`` (ties: the higher mean value, then the
        lower action); after a Gumbel search, the action sequential halving chose. ValueError if the
        root has no edge (never searched, or the game is over)."""
        edges = self.root_edges(b)
        if not len(edges["actions"]):
            raise ValueError(f"tree {b} has no searched root (run the search first; a finished game has none)")
        if self._gumbel is not None and self._gumbel[0][b] >= 0:
            return int(self._gumbel[0][b])
        order = np.lexsort((edges["actions"], -edges["q"], -edges["visits"]))
        return int(edges["actions"][order[0]])

    def improved_policy(self) -> np.ndarray:
        """float32[B, num_actions]: after a Gumbel search (``config.gumbel``), each searched root's improved
        policy ``softmax(logits + sigma(completed q))`` (the policy target of Gumbel AlphaZero); zeros
        for the trees that search did not search. ValueError after a PUCT search."""
        if self._gumbel is None:
            raise ValueError("the improved policy comes from a Gumbel search (SearchConfig(gumbel=16)): "
                             "after a PUCT search, use visit_policy()")
        _, policy, actions = self._gumbel
        out = np.zeros((self.num_trees, self.rules.num_actions), np.float32)
        rows, cols = np.nonzero(actions >= 0)
        out[rows, actions[rows, cols]] = policy[rows, cols]
        return out
