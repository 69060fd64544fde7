"""Gumbel root selection with sequential halving (Danihelka et al., ICLR 2022; mctx's ``gumbel_muzero_policy``).

At the root of each tree, ``g(a) + logits(a)`` with Gumbel noise ``g`` ranks the legal actions;
the simulations go to the best ``considered`` of them, then to the better half by
``g + logits + sigma(q)``, and so on (sequential halving: the visit schedule of
:func:`considered_visits`). The action played is the best of the most visited by the same score,
and the training target is the improved policy ``softmax(logits + sigma(completed q))``, where an
unvisited action's q is completed by the root's mixed value and ``sigma`` scales the min-max
normalised q by ``(c_visit + max visits) * c_scale``. Below the root the search stays PUCT.

Everything here is numpy over the roots of all trees at once, once per wave: the compiled walk
only takes the root edge it is given (:func:`agents.search.kernels.select_leaves`).
:func:`run_gumbel` is :meth:`agents.search.BatchedSearch.run` with ``SearchConfig(gumbel=...)``.
"""

from __future__ import annotations

import math
import time
from functools import lru_cache
from typing import Any

import numpy as np

C_VISIT = 50.0
"""sigma's visit offset (mctx's ``maxvisit_init``)."""

C_SCALE = 0.1
"""sigma's scale (mctx's ``value_scale``)."""


@lru_cache(maxsize=None)
def considered_visits(considered: int, simulations: int) -> np.ndarray:
    """int32[simulations]: before simulation ``k``, the root action it goes to is one of the considered ones
    with exactly ``sequence[k]`` visits of this search (sequential halving's schedule, as mctx has it)."""
    if considered <= 1:
        return np.arange(simulations, dtype=np.int32)
    log2max = int(math.ceil(math.log2(considered)))
    sequence: list[int] = []
    visits = [0] * considered
    num_considered = considered
    while len(sequence) < simulations:
        extra = max(1, int(simulations / (log2max * num_considered)))
        for _ in range(extra):
            sequence.extend(visits[:num_considered])
            for i in range(num_considered):
                visits[i] += 1
        num_considered = max(2, num_considered // 2)
    return np.array(sequence[:simulations], dtype=np.int32)


class GumbelRoots:
    """The Gumbel state of every root during one search: noise, this search's root visits, the schedule.

    ``logits``, ``legal`` are ``[B, K]`` over each root's edges (K the most edges of any root; padding
    illegal); ``gumbel`` the noise drawn once per search (zeros for a deterministic search);
    ``simulations`` the search's simulations, one count or one per root."""

    def __init__(self, logits: np.ndarray, legal: np.ndarray, gumbel: np.ndarray, considered: int,
                 simulations: int | np.ndarray):
        self.logits = np.where(legal, logits, -np.inf)
        self.legal = legal
        self.gumbel = np.where(legal, gumbel, 0.0)
        self.visits = np.zeros(legal.shape, np.int64)
        self.step = np.zeros(len(legal), np.int64)
        count = legal.sum(1)
        sims = np.broadcast_to(np.asarray(simulations, np.int64), count.shape)
        self.schedules = [considered_visits(int(max(1, min(considered, c))), int(max(1, n)))
                          for c, n in zip(count, sims)]

    def sigma(self, q: np.ndarray, visits: np.ndarray, root_value: np.ndarray) -> np.ndarray:
        """sigma(completed q) per root edge: ``q``/``visits`` from the tree (for the root's player),
        ``root_value`` the network's value of each root for its player."""
        visited = visits > 0
        top = np.where(self.legal.any(1, keepdims=True), self.logits.max(1, keepdims=True), 0.0)  # (a root not
        prior = np.exp(self.logits - top)                                                      # searched: none)
        prior /= np.maximum(prior.sum(1, keepdims=True), 1e-30)
        total = visits.sum(1)
        mass = np.where(visited, prior, 0.0).sum(1)
        weighted = np.where(visited, prior * np.where(visited, q, 0.0), 0.0).sum(1) / np.maximum(mass, 1e-12)
        mixed = np.where(total > 0, (root_value + total * weighted) / (1.0 + total), root_value)
        completed = np.where(visited, q, mixed[:, None])
        low = np.where(self.legal, completed, np.inf).min(1, keepdims=True)
        high = np.where(self.legal, completed, -np.inf).max(1, keepdims=True)
        normalised = (completed - low) / np.maximum(high - low, 1e-8)
        return (C_VISIT + visits.max(1, keepdims=True)) * C_SCALE * normalised

    def choose(self, sigma: np.ndarray, trees: np.ndarray) -> np.ndarray:
        """int32[B]: the root edge each of ``trees`` (bool[B]) goes to next (-1 for the others)."""
        target = np.array([s[min(k, len(s) - 1)] for s, k in zip(self.schedules, self.step)])
        score = np.where(self.legal & (self.visits == target[:, None]), self.gumbel + self.logits + sigma, -np.inf)
        out = np.argmax(score, axis=1).astype(np.int32)
        return np.where(trees & np.isfinite(score.max(1)), out, -1).astype(np.int32)

    def record(self, edges: np.ndarray, ran: np.ndarray) -> None:
        """Count the walks that ran down their given root edge."""
        rows = np.flatnonzero((edges >= 0) & (ran > 0))
        self.visits[rows, edges[rows]] += 1
        self.step[rows] += 1

    def action_edges(self, sigma: np.ndarray) -> np.ndarray:
        """int[B]: the edge played at each root, the best by ``g + logits + sigma`` of the most visited."""
        most = self.visits == self.visits.max(1, keepdims=True)
        score = np.where(self.legal & most, self.gumbel + self.logits + sigma, -np.inf)
        return np.argmax(score, axis=1)

    def improved_policy(self, sigma: np.ndarray) -> np.ndarray:
        """float[B, K]: ``softmax(logits + sigma)`` over each root's legal edges (the training target)."""
        z = np.where(self.legal, self.logits + sigma, -np.inf)
        top = np.where(self.legal.any(1, keepdims=True), z.max(1, keepdims=True), 0.0)
        z = np.where(self.legal, np.exp(z - top), 0.0)
        return z / np.maximum(z.sum(1, keepdims=True), 1e-300)


def root_arrays(tree: Any) -> dict[str, np.ndarray]:
    """The roots' edges of a :class:`agents.search.tree.Tree` as ``[B, K]`` arrays (K the most edges of a
    root): visits, q for the root's player, priors, legal, their edge ``index``; and each root's value
    for its player."""
    t = tree
    count = np.maximum(t.num_edges[:, 0], 0)
    k = max(int(count.max()), 1)
    legal = np.arange(k)[None, :] < count[:, None]
    index = np.minimum(t.first_edge[:, 0][:, None] + np.arange(k)[None, :], t.edge_capacity - 1)
    visits = np.where(legal, np.take_along_axis(t.visits, index, 1), 0)
    summed = np.where(legal, np.take_along_axis(t.value_sum, index, 1), 0.0)
    prior = np.where(legal, np.take_along_axis(t.prior, index, 1), 0.0)
    value = np.where(t.to_move[:, 0] == 0, t.value[:, 0], -t.value[:, 0]).astype(np.float64)
    return {"visits": visits, "q": summed / np.maximum(visits, 1), "prior": prior, "legal": legal,
            "value": value, "index": index}


def run_gumbel(search: Any, simulations: np.ndarray, deadline: float | None, noise: np.ndarray,
               wanted: np.ndarray) -> np.ndarray:
    """:meth:`agents.search.BatchedSearch.run` with Gumbel root selection and sequential halving (one walk
    per tree per wave) for the ``wanted`` trees, ``simulations[b]`` each, with Gumbel noise where
    ``noise[b]``; leaves the search's Gumbel choice
    (the action played, the improved policy, the root actions) for ``best_action`` and ``improved_policy``.
    Returns int64[B]: the simulations each tree ran."""
    B = search.num_trees
    roots = root_arrays(search.tree)
    legal = roots["legal"] & wanted[:, None]
    K = legal.shape[1]
    with np.errstate(divide="ignore"):
        logits = np.log(roots["prior"])
    noise_draw = search.rng.gumbel(size=legal.shape) * noise[:, None] if noise.any() else np.zeros(legal.shape)
    gumbel = GumbelRoots(logits, legal, noise_draw, search.config.gumbel, simulations)
    done = np.zeros(B, np.int64)
    while True:
        budget = np.where(wanted, simulations - done, 0).astype(np.int32)
        if not budget.any():
            break
        roots = root_arrays(search.tree)
        sigma = gumbel.sigma(roots["q"][:, :K], roots["visits"][:, :K], roots["value"])
        edges = gumbel.choose(sigma, budget > 0)
        ran = search._wave(budget, 1, edges)
        if not ran.any():
            raise RuntimeError("a search wave ran no simulation: the tree holds leaves that wait for an evaluation")
        gumbel.record(edges, ran)
        done += ran
        if deadline is not None and time.perf_counter() >= deadline:
            break
    roots = root_arrays(search.tree)
    sigma = gumbel.sigma(roots["q"][:, :K], roots["visits"][:, :K], roots["value"])
    actions = search.tree.action[np.arange(B)[:, None], roots["index"][:, :K]]
    search._gumbel = (np.where(wanted, actions[np.arange(B), gumbel.action_edges(sigma)], -1),
                      gumbel.improved_policy(sigma), np.where(legal, actions, -1))
    return done
