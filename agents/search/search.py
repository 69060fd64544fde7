"""A batched PUCT search: the trees of many games searched together, one network call per wave.

::

    from agents.search import BatchedSearch, NetworkEvaluator, SearchConfig

    search = BatchedSearch(game, num_trees=64, evaluator=NetworkEvaluator(net), config=SearchConfig(leaves=4))
    search.set_roots(positions)                     # or set_root(b, position) tree by tree
    search.run(simulations=200)                     # every tree 200 simulations (or a deadline)
    policy = search.visit_policy()                  # float32[B, num_actions]: root visit shares
    search.advance(b, action)                       # keep the subtree of the action played

Each wave selects up to ``config.leaves`` leaves per tree in compiled code
(:func:`agents.search.kernels.select_leaves`, PUCT with virtual loss), evaluates all of them in
one call of the evaluator, and expands them and backs their values up in compiled code
(:func:`agents.search.kernels.expand_leaves`). The game is played only through its
:class:`odd_env.game.CompiledRules`; a finished game's value is its return, never the
network's.

An evaluator takes ``int8[L, C, H, W]`` planes (each leaf seen by the player to decide there)
and ``int8[L, num_actions]`` legal-action masks, and returns ``(logits float32[L, num_actions],
values float32[L])``, the values in [-1, 1] for that player (:class:`NetworkEvaluator` wraps a :class:`agents.train.network.PolicyValueNet`).
Without one the priors are uniform and the value is 0, or, with ``config.rollouts``, the mean
return of random games played from the leaf.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any, Callable, Sequence

import numpy as np

from odd_env.game import Game

from ..base import check_float, check_int
from . import kernels as K
from . import tree as T
from .gumbel import run_gumbel
from .roots import SearchRoots

Evaluator = Callable[[np.ndarray, np.ndarray], tuple[np.ndarray, np.ndarray]]
"""``f(planes int8[L, C, H, W], masks int8[L, A]) -> (logits float32[L, A], values float32[L])``: the values in
[-1, 1] for the player to decide; the masks are the legal actions (the search renormalises the priors over
them itself: an evaluator may ignore them)."""

MAX_LEAVES = 4096
"""Most leaves one tree may add in a wave (``SearchConfig.leaves``)."""

MAX_TREES = 65536
"""Most trees one :class:`BatchedSearch` holds."""

MAX_SIMULATIONS = 1_000_000
"""Most simulations per tree of one :meth:`BatchedSearch.run` (a tree of a node a simulation)."""

MAX_ROLLOUTS = 1000
"""Most random games per leaf (``SearchConfig.rollouts``)."""

PRECISIONS = ("float32", "bfloat16")
"""What :class:`NetworkEvaluator` computes in (``precision``): ``float32``, or ``bfloat16`` (a bfloat16 copy
of the network)."""


def check_precision(precision: object, what: str = "precision") -> str:
    """``precision`` if it is one of :data:`PRECISIONS`, else a ValueError naming ``what``."""
    if not isinstance(precision, str) or precision not in PRECISIONS:
        raise ValueError(f"{what} must be one of {', '.join(PRECISIONS)}, got {precision!r}")
    return precision


@dataclass(frozen=True)
class SearchConfig:
    """How the trees are searched (checked when built: ValueError naming the field)."""

    c_puct: float = 1.0
    """The exploration constant of PUCT on the [-1, 1] value scale (AlphaZero's 1.0)."""
    fpu_reduction: float = 0.0
    """An unvisited edge is valued at its node's mean value minus this times the square root of the
    prior mass of the visited edges (first-play urgency; 0: the mean)."""
    leaves: int = 1
    """Walks per tree per wave (virtual loss spreads them over different leaves); 1 is plain PUCT."""
    virtual_loss: float = 1.0
    """What a walk in flight counts as a loss on each edge it took (on the [-1, 1] scale)."""
    noise_fraction: float = 0.0
    """Self-play: the share of Dirichlet noise mixed into the root's priors at each :meth:`BatchedSearch.run`
    with ``noise=True`` (AlphaZero: 0.25)."""
    dirichlet_alpha: float = 0.3
    """The Dirichlet noise's concentration (AlphaZero: 0.3 for chess, 0.03 for Go: about 10 / legal moves)."""
    rollouts: int = 0
    """Without an evaluator's value: random games per new leaf, whose mean return is the leaf's value
    (0: the evaluator's value, or 0 with none)."""
    gumbel: int = 0
    """Gumbel root selection with sequential halving (:mod:`agents.search.gumbel`) over this many considered
    actions (Danihelka et al.: 16); 0: PUCT at the root too. Needs ``leaves=1``; with ``noise=True`` the
    Gumbel noise is drawn (self-play), without it the search is deterministic."""

    def __post_init__(self) -> None:
        check_float("search c_puct", self.c_puct, 0.0)
        check_float("search fpu_reduction", self.fpu_reduction, 0.0, 2.0)
        check_int("search leaves", self.leaves, 1, MAX_LEAVES)
        check_float("search virtual_loss", self.virtual_loss, 0.0, 2.0)
        check_float("search noise_fraction", self.noise_fraction, 0.0, 1.0)
        check_float("search dirichlet_alpha", self.dirichlet_alpha, 0.0, 100.0, low_open=True)
        check_int("search rollouts", self.rollouts, 0, MAX_ROLLOUTS)
        check_int("search gumbel", self.gumbel, 0, MAX_LEAVES)
        if self.gumbel and self.leaves != 1:
            raise ValueError(f"search gumbel={self.gumbel} walks down one leaf per tree per wave: it needs leaves=1, "
                             f"got leaves={self.leaves}")


class BatchedSearch(SearchRoots):
    """``num_trees`` search trees of one game, searched together (see the module docstring).

    Args:
        game: the game; it must offer compiled rules (:attr:`odd_env.game.Game.compiled`).
        num_trees: B, the trees (games) searched together.
        evaluator: priors and values of leaves (:data:`Evaluator`), or None (uniform priors; value 0
            or ``config.rollouts`` random games).
        config: the search's constants (:class:`SearchConfig`).
        seed: seeds the root noise and the rollouts.
        nodes: the nodes reserved per tree at first (the arrays grow as needed).
    """

    def __init__(self, game: Game, num_trees: int, evaluator: Evaluator | None = None,
                 config: SearchConfig | None = None, seed: int | None = None, nodes: int = 256):
        if not isinstance(game, Game):
            raise ValueError(f"BatchedSearch needs an odd_env.game.Game (odd_env.game.make(...)), got {game!r}")
        if game.compiled is None:
            raise ValueError(f"{game.label} has no compiled rules (Game.compiled), which the batched search plays "
                             "through")
        if evaluator is not None and not callable(evaluator):
            raise ValueError(f"evaluator must be callable (planes -> (logits, values)) or None, got {evaluator!r}")
        self.game = game
        self.rules = game.compiled()
        self.num_trees = check_int("search num_trees", num_trees, 1, MAX_TREES)
        self.evaluator = evaluator
        self.config = config if config is not None else SearchConfig()
        if not isinstance(self.config, SearchConfig):
            raise ValueError(f"config must be a SearchConfig, got {type(self.config).__name__}")
        nodes = check_int("search nodes", nodes, 2, 1 << 24)
        r = self.rules
        self.tree = T.new_tree(self.num_trees, nodes, nodes * 8, r.state_size, r.max_legal)
        self.rng = np.random.default_rng(seed)
        self._rng_state = np.array([int(self.rng.integers(1, 2**63 - 1))], np.uint64)
        rows = self.num_trees * self.config.leaves
        self._planes = np.zeros((rows if evaluator is not None else 0, r.num_planes, r.height * r.width), np.int8)
        self._masks = np.zeros((rows if evaluator is not None else 0, r.num_actions), np.int8)
        self._leaf_tree = np.zeros(rows, np.int32)
        self._leaf_node = np.zeros(rows, np.int32)
        self._done = np.zeros(self.num_trees, np.int32)
        self._evaluating = 0
        self._no_root_edge = np.full(self.num_trees, -1, np.int32)
        self._gumbel: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None  # after a Gumbel run
        self._actions = np.zeros(r.num_actions, np.int32)
        self._no_logits = np.zeros((0, r.num_actions), np.float32)
        self.stats = {"waves": 0, "leaves": 0, "evaluate_s": 0.0, "search_s": 0.0}
        """Running totals: waves, leaves evaluated, seconds in the evaluator and in compiled code."""

    def compile(self) -> None:
        """Compile the search's kernels for this game now (numba compiles on first use: tens of seconds on a
        busy machine), with a one-simulation search, a reroot and a look-up in tree 0 from the start
        position; tree 0 is left a lone root at the start position. What a player calls before timing a move."""
        start = self.game.new_state()
        self.set_root(0, start)
        self.run(1, trees=[0])
        self.advance(0, self.best_action(0))
        self.reuse(0, start)  # not found below the new root: tree 0 starts afresh at the start position

    # ------------------------------------------------------------ search
    def _ensure_room(self, leaves: int) -> None:
        t = self.tree
        need_nodes = int(t.num_nodes.max()) + leaves + 1
        need_edges = int(t.num_edges_used.max()) + leaves * self.rules.max_legal
        self.tree = T.grow(t, need_nodes, need_edges)

    def _wave(self, budget: np.ndarray, leaves: int, root_edge: np.ndarray | None = None) -> np.ndarray:
        """One wave of at most ``leaves`` walks per tree (``budget[b]`` for tree ``b``), down the root edges
        ``root_edge`` where given; returns the simulations each tree ran."""
        r, c = self.rules, self.config
        self._ensure_room(leaves)
        t0 = time.perf_counter()
        n = K.select_leaves(r.apply, r.is_terminal, r.to_move, r.returns, r.observe, r.legal_mask, r.tables,
                            self.tree, budget, leaves, c.c_puct, c.fpu_reduction, c.virtual_loss,
                            self._no_root_edge if root_edge is None else root_edge, self._leaf_tree,
                            self._leaf_node, self._planes, self._masks, self._done)
        t1 = time.perf_counter()
        logits, values = self._no_logits, np.zeros(n, np.float32)
        if n and self.evaluator is not None:
            try:
                logits, values = self._evaluate(n)
            except BaseException:
                # Take the wave's walks back (a bad evaluator, Ctrl-C): no leaf stays waiting, no loss virtual.
                for k in range(n):
                    b, node = self._leaf_tree[k], self._leaf_node[k]
                    self.tree.pending[b, node] = 0
                    K.undo_walk(self.tree, b, node, c.virtual_loss)
                raise
        t2 = time.perf_counter()
        K.expand_leaves(r.legal_actions, r.apply, r.is_terminal, r.returns, r.tables, self.tree, self._leaf_tree,
                        self._leaf_node, n, logits, values, c.rollouts, c.virtual_loss, self._actions,
                        self._rng_state)
        t3 = time.perf_counter()
        self.stats["waves"] += 1
        self.stats["leaves"] += n
        self.stats["evaluate_s"] += t2 - t1
        self.stats["search_s"] += (t1 - t0) + (t3 - t2)
        return self._done

    def leaf_states(self) -> np.ndarray:
        """int32[L, state_size]: copies of the positions of the leaves being evaluated (for an evaluator that
        needs more than the planes: ``rules.decode`` makes them positions); empty outside an evaluation."""
        n = self._evaluating
        return self.tree.states[self._leaf_tree[:n], self._leaf_node[:n]]

    def _evaluate(self, n: int) -> tuple[np.ndarray, np.ndarray]:
        r = self.rules
        planes = self._planes[:n].reshape(n, r.num_planes, r.height, r.width)
        self._evaluating = n
        try:
            logits, values = self.evaluator(planes, self._masks[:n])
        finally:
            self._evaluating = 0
        logits = np.ascontiguousarray(logits, dtype=np.float32)
        values = np.ascontiguousarray(values, dtype=np.float32).reshape(-1)
        if logits.shape != (n, r.num_actions) or values.shape != (n,):
            raise ValueError(f"the evaluator must return logits ({n}, {r.num_actions}) and values ({n},) for {n} "
                             f"leaves, got {logits.shape} and {values.shape}")
        if not (np.isfinite(values).all() and (np.abs(values) <= 1.0).all()):
            raise ValueError("the evaluator's values must be finite numbers in [-1, 1] (for the player to decide)")
        if np.isnan(logits).any() or np.isposinf(logits).any():
            raise ValueError("the evaluator's logits hold NaN or +inf (-inf is an action it rules out)")
        return logits, values

    def _prepare_roots(self, noise: np.ndarray, live: np.ndarray) -> None:
        """Expand the roots of the ``live`` trees that are not yet (one evaluation each, not counted as a
        simulation) and set the priors the root's choices use: its own, mixed with Dirichlet noise when ``noise``."""
        t = self.tree
        fresh = live & (t.num_edges[:, 0] < 0)
        if fresh.any():
            self._wave(fresh.astype(np.int32), 1)
        t = self.tree
        fraction = self.config.noise_fraction if not self.config.gumbel else 0.0
        for b in np.flatnonzero(live):
            first, count = t.first_edge[b, 0], t.num_edges[b, 0]
            prior = t.prior[b, first:first + count]
            if fraction > 0.0 and count > 1 and noise[b]:
                eta = self.rng.dirichlet(np.full(count, self.config.dirichlet_alpha))
                prior = (1.0 - fraction) * prior + fraction * eta
            t.root_prior[b, :count] = prior

    def _simulations(self, simulations: int | Sequence[int] | np.ndarray) -> np.ndarray:
        """int64[B]: ``simulations`` (one count, or one per tree) checked."""
        if isinstance(simulations, (int, np.integer)) and not isinstance(simulations, bool):
            return np.full(self.num_trees, check_int("search simulations", simulations, 1, MAX_SIMULATIONS), np.int64)
        counts = np.asarray(simulations)
        if counts.shape != (self.num_trees,) or counts.dtype.kind not in "iu" or (
                counts.size and not 0 <= counts.min() <= counts.max() <= MAX_SIMULATIONS) or not counts.any():
            raise ValueError(f"search simulations must be an integer from 1 to {MAX_SIMULATIONS:,} or one count "
                             f"per tree ({self.num_trees} integers from 0 to {MAX_SIMULATIONS:,}, not all 0), "
                             f"got {simulations!r}")
        return counts.astype(np.int64)

    def _noise(self, noise: bool | Sequence[bool] | np.ndarray) -> np.ndarray:
        """bool[B]: ``noise`` (one flag, or one per tree) checked."""
        flags = np.asarray(noise)
        if flags.ndim == 0:
            return np.full(self.num_trees, bool(flags))
        if flags.shape != (self.num_trees,) or flags.dtype.kind not in "biu":
            raise ValueError(f"search noise must be a flag or one flag per tree ({self.num_trees}), got {noise!r}")
        return flags.astype(bool)

    def run(self, simulations: int | Sequence[int] | np.ndarray, deadline: float | None = None,
            noise: bool | Sequence[bool] | np.ndarray = False,
            trees: Sequence[int] | np.ndarray | None = None) -> np.ndarray:
        """Search every tree (or those of ``trees``) for ``simulations`` more simulations, or until
        ``time.perf_counter()`` passes ``deadline`` (checked after each wave: at least one wave runs);
        ``simulations`` may also be one count per tree (0: that tree is not searched), so that trees with
        different budgets share every wave's evaluator call. ``noise`` mixes Dirichlet noise into the
        roots' priors (``config.noise_fraction``), or draws the Gumbel noise with ``config.gumbel``; it may
        also be one flag per tree (self-play's fast searches go without).
        Returns int64[B]: the simulations each tree ran. Trees whose game is over are skipped."""
        simulations = self._simulations(simulations)
        if deadline is not None:
            deadline = check_float("search deadline", deadline, 0.0)
        wanted = np.zeros(self.num_trees, bool)
        if trees is None:
            wanted[:] = True
        else:
            wanted[[self._check_tree(int(b)) for b in trees]] = True
        t = self.tree
        wanted &= (t.num_nodes > 0) & (t.terminal[:, 0] == 0) & (simulations > 0)
        noise = self._noise(noise)
        self._prepare_roots(noise, wanted)
        if self.config.gumbel:
            return run_gumbel(self, simulations, deadline, noise, wanted)
        self._gumbel = None
        done = np.zeros(self.num_trees, np.int64)
        while True:
            budget = np.where(wanted, simulations - done, 0).astype(np.int32)
            if not budget.any():
                break
            ran = self._wave(budget, self.config.leaves)
            if not ran.any():
                raise RuntimeError("a search wave ran no simulation: the tree holds leaves that wait for an evaluation")
            done += ran
            if deadline is not None and time.perf_counter() >= deadline:
                break
        return done

    def get_rng_state(self) -> dict[str, Any]:
        """The state of the search's random generators (root noise, rollouts), for :meth:`set_rng_state`."""
        return {"noise": self.rng.bit_generator.state, "rollouts": int(self._rng_state[0])}

    def set_rng_state(self, state: dict[str, Any]) -> None:
        """Restore what :meth:`get_rng_state` returned (a resumed self-play run draws as the uninterrupted one)."""
        self.rng.bit_generator.state = state["noise"]
        self._rng_state[0] = np.uint64(state["rollouts"])

    def info(self) -> dict[str, Any]:
        """Sizes and totals: nodes in use per tree, capacities, :attr:`stats`."""
        t = self.tree
        return {"nodes": t.num_nodes.copy(), "node_capacity": t.node_capacity, "edge_capacity": t.edge_capacity,
                **self.stats}
