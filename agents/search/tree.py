"""The search trees of a batch of games as fixed-size arrays (mctx style), and their upkeep.

A :class:`Tree` holds ``B`` trees side by side: node arrays ``[B, N]``, edge arrays ``[B, E]``
and one position array per node (``states[B, N, state_size]``, the flat ``int32`` position of
:class:`odd_env.game.CompiledRules`). Node 0 of every tree is its root. A node's edges are the
legal actions of its position, stored contiguously (``first_edge``, ``num_edges``) once the
node is expanded; ``num_edges`` is -1 before that. Edge statistics are from the point of view
of the player who chooses at the edge's node (``to_move``), on the [-1, 1] scale of returns
(a win +1, a loss -1), so the same player may choose at two levels in a row (a YINSH row
removal, an Xodd/Yodd two-stone turn) and nothing alternates signs.

The arrays only grow (:func:`grow`, doubling) and are numpy: the compiled kernels of
:mod:`agents.search.kernels` read and write them in place. :func:`reroot_tree` keeps the
subtree of a node (tree reuse), renumbered from 0.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit


class Tree(NamedTuple):
    """The arrays of ``B`` search trees (see the module docstring); a NamedTuple, so numba reads it."""

    parent: np.ndarray
    """int32[B, N]: the parent node (-1 at the root)."""
    parent_edge: np.ndarray
    """int32[B, N]: the edge of the parent that leads here (-1 at the root)."""
    first_edge: np.ndarray
    """int32[B, N]: where the node's edges start in the edge arrays."""
    num_edges: np.ndarray
    """int32[B, N]: the node's edge count (its legal actions); -1 until it is expanded."""
    to_move: np.ndarray
    """int8[B, N]: the player who decides at the node."""
    terminal: np.ndarray
    """int8[B, N]: 1 where the game is over."""
    pending: np.ndarray
    """int8[B, N]: 1 while the node waits for its evaluation in the current wave."""
    node_visits: np.ndarray
    """int32[B, N]: simulations through the node (the sum of its edges' visits)."""
    value: np.ndarray
    """float32[B, N]: the evaluation of the node for player 0 (a terminal node's return)."""
    states: np.ndarray
    """int32[B, N, state_size]: the node's position."""
    action: np.ndarray
    """int32[B, E]: the edge's action."""
    child: np.ndarray
    """int32[B, E]: the node the edge leads to (-1 until it is created)."""
    prior: np.ndarray
    """float32[B, E]: the prior of the edge's action (renormalised over the legal actions)."""
    visits: np.ndarray
    """int32[B, E]: simulations through the edge (virtual visits included during a wave)."""
    value_sum: np.ndarray
    """float64[B, E]: summed values for the player choosing at the edge's node."""
    num_nodes: np.ndarray
    """int32[B]: nodes in use."""
    num_edges_used: np.ndarray
    """int32[B]: edges in use."""
    root_prior: np.ndarray
    """float32[B, max_legal]: the root's priors as the search uses them (with exploration noise)."""

    @property
    def num_trees(self) -> int:
        """B."""
        return self.parent.shape[0]

    @property
    def node_capacity(self) -> int:
        """N."""
        return self.parent.shape[1]

    @property
    def edge_capacity(self) -> int:
        """E."""
        return self.action.shape[1]


NODE_FIELDS = ("parent", "parent_edge", "first_edge", "num_edges", "to_move", "terminal", "pending",
               "node_visits", "value")
EDGE_FIELDS = ("action", "child", "prior", "visits", "value_sum")
_FILL = {"parent": -1, "parent_edge": -1, "first_edge": 0, "num_edges": -1, "child": -1}
_DTYPES = {"parent": np.int32, "parent_edge": np.int32, "first_edge": np.int32, "num_edges": np.int32,
           "to_move": np.int8, "terminal": np.int8, "pending": np.int8, "node_visits": np.int32,
           "value": np.float32, "action": np.int32, "child": np.int32, "prior": np.float32,
           "visits": np.int32, "value_sum": np.float64}


def new_tree(num_trees: int, nodes: int, edges: int, state_size: int, max_legal: int) -> Tree:
    """Empty trees (no node in use) with room for ``nodes`` nodes and ``edges`` edges each."""
    arrays = {}
    for name in NODE_FIELDS:
        arrays[name] = np.full((num_trees, nodes), _FILL.get(name, 0), _DTYPES[name])
    for name in EDGE_FIELDS:
        arrays[name] = np.full((num_trees, edges), _FILL.get(name, 0), _DTYPES[name])
    return Tree(**arrays, states=np.zeros((num_trees, nodes, state_size), np.int32),
                num_nodes=np.zeros(num_trees, np.int32), num_edges_used=np.zeros(num_trees, np.int32),
                root_prior=np.zeros((num_trees, max_legal), np.float32))


def grow(tree: Tree, nodes: int, edges: int) -> Tree:
    """``tree`` with room for at least ``nodes`` nodes and ``edges`` edges per tree (capacities
    doubled until they fit; the same object when they already do)."""
    n, e = tree.node_capacity, tree.edge_capacity
    new_n, new_e = n, e
    while new_n < nodes:
        new_n *= 2
    while new_e < edges:
        new_e *= 2
    if (new_n, new_e) == (n, e):
        return tree
    parts = tree._asdict()
    b = tree.num_trees
    for name in NODE_FIELDS:
        extra = np.full((b, new_n - n), _FILL.get(name, 0), _DTYPES[name])
        parts[name] = np.concatenate([parts[name], extra], axis=1)
    for name in EDGE_FIELDS:
        extra = np.full((b, new_e - e), _FILL.get(name, 0), _DTYPES[name])
        parts[name] = np.concatenate([parts[name], extra], axis=1)
    parts["states"] = np.concatenate([tree.states, np.zeros((b, new_n - n, tree.states.shape[2]), np.int32)], axis=1)
    return Tree(**parts)


@njit(cache=True)
def _clear_slots(tree, b, used):
    """Reset the first ``used`` nodes and every used edge of tree ``b`` to empty."""
    for n in range(used):
        tree.parent[b, n] = -1
        tree.parent_edge[b, n] = -1
        tree.num_edges[b, n] = -1
        tree.pending[b, n] = 0
        tree.node_visits[b, n] = 0
    for e in range(tree.num_edges_used[b]):
        tree.child[b, e] = -1
        tree.visits[b, e] = 0
        tree.value_sum[b, e] = 0.0


@njit(cache=True)
def clear_tree(tree, b, state, to_move, terminal, value):
    """Make tree ``b`` a lone, unexpanded root at position ``state``."""
    _clear_slots(tree, b, tree.num_nodes[b])
    tree.states[b, 0, :] = state
    tree.to_move[b, 0] = to_move
    tree.terminal[b, 0] = terminal
    tree.value[b, 0] = value
    tree.num_nodes[b] = 1
    tree.num_edges_used[b] = 0


@njit(cache=True)
def reroot_tree(tree, b, new_root):
    """Keep only the subtree of node ``new_root`` in tree ``b``, renumbered breadth first (its
    root becomes node 0); its statistics are kept as they are."""
    used = tree.num_nodes[b]
    order = np.empty(used, np.int32)
    new_index = np.full(used, -1, np.int32)
    order[0] = new_root
    new_index[new_root] = 0
    head, tail = 0, 1
    while head < tail:
        n = order[head]
        head += 1
        if tree.num_edges[b, n] > 0:
            for e in range(tree.first_edge[b, n], tree.first_edge[b, n] + tree.num_edges[b, n]):
                c = tree.child[b, e]
                if c >= 0:
                    new_index[c] = tail
                    order[tail] = c
                    tail += 1
    kept = tail
    # Copies of what is kept, gathered in the new order, then written back from index 0.
    parent = np.empty(kept, np.int32)
    parent_edge = np.empty(kept, np.int32)
    num_edges = np.empty(kept, np.int32)
    to_move = np.empty(kept, np.int8)
    terminal = np.empty(kept, np.int8)
    visits_n = np.empty(kept, np.int32)
    value = np.empty(kept, np.float32)
    states = np.empty((kept, tree.states.shape[2]), np.int32)
    old_first = np.empty(kept, np.int32)
    edge_count = 0
    for i in range(kept):
        n = order[i]
        parent[i] = -1 if i == 0 else new_index[tree.parent[b, n]]
        parent_edge[i] = tree.parent_edge[b, n]  # an old edge index: remapped below
        num_edges[i] = tree.num_edges[b, n]
        to_move[i] = tree.to_move[b, n]
        terminal[i] = tree.terminal[b, n]
        visits_n[i] = tree.node_visits[b, n]
        value[i] = tree.value[b, n]
        states[i, :] = tree.states[b, n, :]
        old_first[i] = tree.first_edge[b, n]
        if num_edges[i] > 0:
            edge_count += num_edges[i]
    action = np.empty(edge_count, np.int32)
    child = np.empty(edge_count, np.int32)
    prior = np.empty(edge_count, np.float32)
    visits = np.empty(edge_count, np.int32)
    value_sum = np.empty(edge_count, np.float64)
    first_edge = np.zeros(kept, np.int32)
    new_edge = 0
    for i in range(kept):
        first_edge[i] = new_edge
        for k in range(max(num_edges[i], 0)):
            e = old_first[i] + k
            action[new_edge] = tree.action[b, e]
            c = tree.child[b, e]
            child[new_edge] = -1 if c < 0 else new_index[c]
            if c >= 0:
                parent_edge[new_index[c]] = new_edge
            prior[new_edge] = tree.prior[b, e]
            visits[new_edge] = tree.visits[b, e]
            value_sum[new_edge] = tree.value_sum[b, e]
            new_edge += 1
    parent_edge[0] = -1
    _clear_slots(tree, b, used)  # clear the old nodes, then write the kept ones
    for i in range(kept):
        tree.parent[b, i] = parent[i]
        tree.parent_edge[b, i] = parent_edge[i]
        tree.first_edge[b, i] = first_edge[i]
        tree.num_edges[b, i] = num_edges[i]
        tree.to_move[b, i] = to_move[i]
        tree.terminal[b, i] = terminal[i]
        tree.node_visits[b, i] = visits_n[i]
        tree.value[b, i] = value[i]
        tree.states[b, i, :] = states[i, :]
    for e in range(edge_count):
        tree.action[b, e] = action[e]
        tree.child[b, e] = child[e]
        tree.prior[b, e] = prior[e]
        tree.visits[b, e] = visits[e]
        tree.value_sum[b, e] = value_sum[e]
    tree.num_nodes[b] = kept
    tree.num_edges_used[b] = edge_count


@njit(cache=True)
def find_position(tree, b, state, max_depth):
    """The node of tree ``b`` within ``max_depth`` plies of the root whose position is ``state``
    (breadth first: the shallowest), or -1."""
    used = tree.num_nodes[b]
    depth = np.full(used, -1, np.int32)
    queue = np.empty(used, np.int32)
    queue[0] = 0
    depth[0] = 0
    head, tail = 0, 1
    size = state.shape[0]
    while head < tail:
        n = queue[head]
        head += 1
        same = True
        for i in range(size):
            if tree.states[b, n, i] != state[i]:
                same = False
                break
        if same:
            return n
        if depth[n] < max_depth and tree.num_edges[b, n] > 0:
            for e in range(tree.first_edge[b, n], tree.first_edge[b, n] + tree.num_edges[b, n]):
                c = tree.child[b, e]
                if c >= 0:
                    depth[c] = depth[n] + 1
                    queue[tail] = c
                    tail += 1
    return -1
