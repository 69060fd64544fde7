"""The compiled back-end of :class:`agents.players.mcts.MCTSAgent`: ``network=`` with ``compiled=True``.

:class:`CompiledNetworkSearch` drives the batched search of :mod:`agents.search` (one tree, on the game's
compiled rules) with the network as its evaluator, blended with the group balance by ``group_weight``.
It keeps one search per board it has played: a per-size network plays one, a size-general network
(no board of its own) every size of its game. :class:`MCTSAgent` checks the options and the position; the
Python tree (rollouts, ``policy_value_fn``, ``compiled=False``) is :mod:`agents.players.mcts_tree`.
"""

from __future__ import annotations

import math
import time
from typing import Any

import numpy as np

from odd_env.game import Game, Position

from ..search import BatchedSearch, SearchConfig
from .mcts_tree import GROUP_SCALE

REUSE_DEPTH = 4
"""Plies below the last root searched for the new position (my second step, or the opponent's one- or
two-step turn)."""


class CompiledNetworkSearch:
    """The network-guided search of an ``mcts`` agent, compiled (see the module docstring).

    Args:
        player: the :class:`agents.players.network_player.PPOAgent` whose ``evaluate_planes`` evaluates.
        c: the agent's exploration constant on the [0, 1] value scale (doubled here: the search's
            values are on [-1, 1]); ``fpu_reduction`` likewise.
        batch: leaves walked down to per network call.
    """

    def __init__(self, player: Any, c: float, fpu_reduction: float, batch: int):
        self.player = player
        self.config = SearchConfig(c_puct=2.0 * c, fpu_reduction=2.0 * fpu_reduction, leaves=batch)
        self.group_weight = 0.0
        """The agent's ``group_weight`` resolved for the game searched (set before each search)."""
        self._searches: dict[Game, BatchedSearch] = {}
        self.active: BatchedSearch | None = None
        """The search of the board last searched (or being built), whose leaves the evaluator reads."""
        self.searched: Game | None = None
        """The game whose tree holds a finished search (reused for the next position), or None."""

    def drop_tree(self) -> None:
        """Search the next position from a fresh tree."""
        self.searched = None

    def _search_of(self, game: Game) -> BatchedSearch:
        """The search of ``game``, built and compiled on its first use (before any time budget starts)."""
        search = self._searches.get(game)
        if search is None:
            search = self.active = BatchedSearch(game, 1, self._evaluate_planes, self.config)
            search.compile()  # numba compiles on first use
            self._searches[game] = search
        self.active = search
        return search

    def act(self, state: Position, simulations: int, time_budget: float | None, reuse_tree: bool,
            rng: np.random.Generator) -> tuple[int, int]:
        """Search ``state``; return the most visited action (ties: the higher mean value, then ``rng``)
        and the simulations run."""
        search = self._search_of(state.game)
        deadline = None if time_budget is None else time.perf_counter() + time_budget
        if reuse_tree and self.searched is state.game:
            search.reuse(0, state, REUSE_DEPTH)
        else:
            search.set_root(0, state)
        self.searched = None  # until the search has finished (a search stopped midway leaves pending leaves)
        legal = state.legal_actions()
        ran = int(search.run(simulations, deadline)[0]) if len(legal) > 1 else 0
        self.searched = state.game
        if len(legal) == 1:
            return int(legal[0]), ran
        edges = search.root_edges(0)
        v = edges["visits"]
        best = np.flatnonzero(v == v.max())
        if len(best) > 1:
            q = edges["q"][best]
            best = best[q == q.max()]
        i = int(best[rng.integers(len(best))]) if len(best) > 1 else int(best[0])
        return int(edges["actions"][i]), ran

    def root_visits(self) -> dict[int, int]:
        """Visit counts of the root's actions after the last search."""
        return {} if self.searched is None else self._searches[self.searched].root_visits(0)

    def _evaluate_planes(self, planes: np.ndarray, masks: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The search's evaluator: the network's masked policy (as log-probabilities) and value,
        blended with the group balance by ``group_weight`` (of the leaves' positions, from the search)."""
        search = self.active
        probs, values = self.player.evaluate_planes(planes, masks, search.game)
        w = self.group_weight
        if w:
            rules, heuristics = search.rules, search.game.heuristics
            for k, data in enumerate(search.leaf_states()):
                balance = heuristics.balance(rules.decode(data))
                values[k] = (1.0 - w) * values[k] + w * math.tanh(balance / GROUP_SCALE)
        with np.errstate(divide="ignore"):
            return np.log(probs), values

    def __getstate__(self) -> dict[str, Any]:
        state = self.__dict__.copy()
        state["_searches"], state["active"], state["searched"] = {}, None, None  # compiled rules do not pickle
        return state
