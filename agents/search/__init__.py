"""Compiled, batched tree search for every game with compiled rules (:attr:`odd_env.game.Game.compiled`).

* :mod:`agents.search.tree`: the trees of a batch of games as fixed-size arrays, reuse;
* :mod:`agents.search.kernels`: a wave's selection, expansion and backup, in numba;
* :mod:`agents.search.search`: :class:`BatchedSearch`, the driver (one evaluator call per wave);
* :mod:`agents.search.gumbel`: Gumbel root selection with sequential halving, the improved policy;
* :mod:`agents.search.evaluate`: :class:`NetworkEvaluator`, a policy-value network as the evaluator
  (imports torch; loaded on first use).

The ``az`` player (:class:`agents.players.az.AZAgent`) searches one game with it.
"""

from __future__ import annotations

from typing import Any

from .search import MAX_LEAVES, MAX_SIMULATIONS, BatchedSearch, Evaluator, SearchConfig

__all__ = ["BatchedSearch", "Evaluator", "MAX_LEAVES", "MAX_SIMULATIONS", "NetworkEvaluator", "SearchConfig"]


def __getattr__(name: str) -> Any:
    if name == "NetworkEvaluator":  # torch loads only when a network evaluates
        from .evaluate import NetworkEvaluator

        return NetworkEvaluator
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
