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
"""

from __future__ import annotations

import math
from functools import lru_cache

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
    illegal); ``gumbel`` the noise drawn once per search (zeros for a deterministic search)."""

    def __init__(self, logits: np.ndarray, legal: np.ndarray, gumbel: np.ndarray, considered: int, simulations: int):
        self.logits = np.where(legal, logits, -np.inf)
        self.legal = legal
        self.gumbel = np.where(legal, gumbel, 0.0)
        self.visits = np.zeros(legal.shape, np.int64)
        self.step = np.zeros(len(legal), np.int64)
        count = legal.sum(1)
        self.schedules = [considered_visits(int(max(1, min(considered, c))), simulations) for c in count]

    def sigma(self, q: np.ndarray, visits: np.ndarray, root_value: np.ndarray) -> np.ndarray:
        """sigma(completed q) per root edge: ``q``/``visits`` from the tree (for the root's player),
        ``root_value`` the network's value of each root for its player."""
        visited = visits > 0
        prior = np.exp(self.logits - self.logits.max(1, keepdims=True))
        prior /= prior.sum(1, keepdims=True)
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
