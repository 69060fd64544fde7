"""The compiled steps of a search wave on a :class:`agents.search.tree.Tree`: select, expand, back up.

A wave walks down every active tree up to ``leaves`` times (PUCT, with a virtual loss on every
edge taken so that the walks of one wave spread over different leaves), creating each new
node's position with the game's compiled ``apply`` (:class:`odd_env.game.CompiledRules`), and
writes the observation planes of every new leaf into one buffer: the caller evaluates them all
in one network call, and :func:`expand_leaves` then expands them and backs their values up.
A walk that ends the game backs the game's return up at once; one that reaches a leaf already
waiting in this wave is undone and ends that tree's wave.

The rules functions are arguments, so numba compiles these kernels once per game (its
dispatchers are part of the signature). Values are for player 0 while they travel up
(``v0``); each edge adds them from the side of the player who chooses at its node.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit


@njit(cache=True)
def xorshift_uniform(rng_state):
    """A float in [0, 1) from the xorshift64* generator whose state is ``rng_state[0]`` (advanced)."""
    x = rng_state[0]
    x ^= x >> np.uint64(12)
    x ^= x << np.uint64(25)
    x ^= x >> np.uint64(27)
    rng_state[0] = x
    return ((x * np.uint64(2685821657736338717)) >> np.uint64(11)) * (1.0 / 9007199254740992.0)


@njit(cache=True)
def backup(tree, b, n, v0, virtual_loss):
    """Add ``v0`` (the value for player 0) to the edges from the root of tree ``b`` down to node
    ``n``, each from the side of the player choosing there, and remove their virtual loss."""
    while n != 0:
        e = tree.parent_edge[b, n]
        p = tree.parent[b, n]
        tree.value_sum[b, e] += (v0 if tree.to_move[b, p] == 0 else -v0) + virtual_loss
        n = p


@njit(cache=True)
def undo_walk(tree, b, n, virtual_loss):
    """Take back the visits and virtual losses a walk from the root to node ``n`` counted."""
    while n != 0:
        e = tree.parent_edge[b, n]
        p = tree.parent[b, n]
        tree.visits[b, e] -= 1
        tree.value_sum[b, e] += virtual_loss
        tree.node_visits[b, p] -= 1
        n = p


@njit(cache=True)
def select_edge(tree, b, n, c_puct, fpu_reduction):
    """The edge of highest PUCT score at expanded node ``n``: ``Q + c * P * sqrt(N + 1) / (1 + n)``,
    an unvisited edge valued at the node's mean minus ``fpu_reduction * sqrt(visited prior mass)``;
    ties go to the first edge (the lowest action). The root reads :attr:`Tree.root_prior`."""
    first = tree.first_edge[b, n]
    count = tree.num_edges[b, n]
    total = tree.node_visits[b, n]
    summed = 0.0
    visited_prior = 0.0
    for i in range(count):
        e = first + i
        summed += tree.value_sum[b, e]
        if tree.visits[b, e] > 0:
            visited_prior += tree.root_prior[b, i] if n == 0 else tree.prior[b, e]
    fpu = summed / total if total > 0 else 0.0
    if fpu_reduction > 0.0:
        fpu -= fpu_reduction * math.sqrt(visited_prior)
    scale = c_puct * math.sqrt(total + 1.0)
    best = first
    best_score = -np.inf
    for i in range(count):
        e = first + i
        v = tree.visits[b, e]
        q = tree.value_sum[b, e] / v if v > 0 else fpu
        p = tree.root_prior[b, i] if n == 0 else tree.prior[b, e]
        score = q + scale * p / (1.0 + v)
        if score > best_score:
            best_score = score
            best = e
    return best


@njit  # takes the game's kernels: a new process compiles anew (no disk cache)
def new_child(apply, is_terminal, to_move, returns, tables, tree, b, n, e):
    """Create the node edge ``e`` of node ``n`` leads to: its position, player and end."""
    c = tree.num_nodes[b]
    tree.num_nodes[b] = c + 1
    tree.states[b, c, :] = tree.states[b, n, :]
    s = tree.states[b, c]
    apply(s, tables, tree.action[b, e])
    tree.parent[b, c] = n
    tree.parent_edge[b, c] = e
    tree.num_edges[b, c] = -1
    tree.pending[b, c] = 0
    tree.node_visits[b, c] = 0
    if is_terminal(s, tables):
        tree.terminal[b, c] = 1
        tree.to_move[b, c] = 0
        tree.value[b, c] = returns(s, tables)[0]
    else:
        tree.terminal[b, c] = 0
        tree.to_move[b, c] = to_move(s, tables)
        tree.value[b, c] = 0.0
    tree.child[b, e] = c
    return c


@njit  # takes the game's kernels: a new process compiles anew (no disk cache)
def select_leaves(apply, is_terminal, to_move, returns, observe, legal_mask, tables, tree, budget, leaves, c_puct,
                  fpu_reduction, virtual_loss, root_edge, leaf_tree, leaf_node, planes, masks, done):
    """One wave's walks: up to ``min(leaves, budget[b])`` per tree ``b``.

    New leaves go to ``leaf_tree``/``leaf_node`` with their planes (for the player to decide
    there) in ``planes[k]`` (``int8[L, C, H * W]``) and their legal actions in ``masks[k]``
    (``int8[L, num_actions]``), neither written when ``planes`` has no rows;
    ``done[b]`` counts the simulations each tree ran (leaves and finished games). A walk of tree ``b``
    takes the root's edge ``root_edge[b]`` (counted from its first) where that is >= 0 (Gumbel root
    selection), PUCT's choice elsewhere. Returns the number of leaves to evaluate.
    """
    num_leaves = 0
    write_planes = planes.shape[0] > 0
    for b in range(tree.parent.shape[0]):
        done[b] = 0
        if tree.num_nodes[b] == 0 or tree.terminal[b, 0] == 1:
            continue
        for _ in range(min(leaves, budget[b])):
            n = 0
            collided = False
            while True:
                if tree.terminal[b, n] == 1:
                    backup(tree, b, n, tree.value[b, n], virtual_loss)
                    break
                if tree.num_edges[b, n] < 0:
                    if tree.pending[b, n] == 1:
                        undo_walk(tree, b, n, virtual_loss)
                        collided = True
                    else:
                        tree.pending[b, n] = 1
                        leaf_tree[num_leaves] = b
                        leaf_node[num_leaves] = n
                        if write_planes:
                            observe(tree.states[b, n], tables, tree.to_move[b, n], planes[num_leaves])
                            legal_mask(tree.states[b, n], tables, masks[num_leaves])
                        num_leaves += 1
                    break
                if n == 0 and root_edge[b] >= 0:
                    e = tree.first_edge[b, 0] + root_edge[b]
                else:
                    e = select_edge(tree, b, n, c_puct, fpu_reduction)
                tree.visits[b, e] += 1
                tree.value_sum[b, e] -= virtual_loss
                tree.node_visits[b, n] += 1
                c = tree.child[b, e]
                if c < 0:
                    c = new_child(apply, is_terminal, to_move, returns, tables, tree, b, n, e)
                n = c
            if collided:
                break
            done[b] += 1
    return num_leaves


@njit  # takes the game's kernels: a new process compiles anew (no disk cache)
def rollout_value(apply, is_terminal, legal_actions, returns, tables, state, actions, rng_state):
    """The return for player 0 of a game played on from ``state`` (copied) by uniformly random actions."""
    s = state.copy()
    while not is_terminal(s, tables):
        count = legal_actions(s, tables, actions)
        apply(s, tables, actions[int(xorshift_uniform(rng_state) * count)])
    return returns(s, tables)[0]


@njit  # takes the game's kernels: a new process compiles anew (no disk cache)
def expand_leaves(legal_actions, apply, is_terminal, returns, tables, tree, leaf_tree, leaf_node, num_leaves,
                  logits, values, rollouts, virtual_loss, actions, rng_state):
    """Expand the wave's leaves and back their values up.

    Leaf ``k``'s priors are the softmax of ``logits[k]`` over its legal actions (uniform where
    ``logits`` has no rows); its value, for the player to decide there, is ``values[k]``, or with
    ``rollouts`` the mean return of that many random games from it. The edge arrays must have
    room for ``max_legal`` edges per leaf."""
    for k in range(num_leaves):
        b = leaf_tree[k]
        n = leaf_node[k]
        s = tree.states[b, n]
        count = legal_actions(s, tables, actions)
        for i in range(1, count):  # ascending, so that ties go to the lowest action whatever the game's order
            a = actions[i]
            j = i - 1
            while j >= 0 and actions[j] > a:
                actions[j + 1] = actions[j]
                j -= 1
            actions[j + 1] = a
        first = tree.num_edges_used[b]
        tree.first_edge[b, n] = first
        tree.num_edges[b, n] = count
        tree.num_edges_used[b] = first + count
        if logits.shape[0] > 0:
            top = -np.inf
            for i in range(count):
                top = max(top, logits[k, actions[i]])
            total = 0.0
            for i in range(count):
                total += math.exp(logits[k, actions[i]] - top)
            for i in range(count):
                tree.prior[b, first + i] = math.exp(logits[k, actions[i]] - top) / total
        else:
            for i in range(count):
                tree.prior[b, first + i] = 1.0 / count
        for i in range(count):
            e = first + i
            tree.action[b, e] = actions[i]
            tree.child[b, e] = -1
            tree.visits[b, e] = 0
            tree.value_sum[b, e] = 0.0
        if rollouts > 0:
            v0 = 0.0
            for _ in range(rollouts):
                v0 += rollout_value(apply, is_terminal, legal_actions, returns, tables, s, actions, rng_state)
            v0 /= rollouts
        else:
            v0 = values[k] if tree.to_move[b, n] == 0 else -values[k]
        tree.value[b, n] = v0
        tree.pending[b, n] = 0
        backup(tree, b, n, v0, virtual_loss)
