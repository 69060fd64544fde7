"""Monte Carlo tree search over environment steps (PUCT with greedy or network priors, or UCT).

Every node of the tree is a position with a player to act; its edges are the
legal actions of that *step* (docs/rules/xodd_yodd.md section 3), so the same player may act
at two levels in a row. Values are therefore backed up from the point of view
of the player to act at each node (a win of that player counts 1, a loss 0),
never by alternating signs.

One simulation walks down the tree, choosing at each node the edge of highest

* PUCT (with priors ``P``): ``Q + c * P * sqrt(N + 1) / (1 + n)``, an
  unvisited edge valued at the node's own mean (first-play urgency);
* UCT (``prior=None``): ``Q + c * sqrt(ln N / n)``, unvisited edges first, in
  random order;

expands the first new position and evaluates it: by a rollout to the end of
the game (compiled, on the flat state of :mod:`odd_env.games.odd.kernels`), or by
a value function. Rollout policies:

* ``"auto"`` (default): ``"greedy"`` on Xodd and Yodd, ``"random"`` on YINSH;
* ``"greedy"``: the greedy agent's whole-turn choice
  (:func:`agents.players.greedy.best_turn`), with a uniformly random step instead with
  probability ``epsilon``;
* ``"random"``: uniform over the legal actions of each step.

Priors come from ``prior="greedy"`` (the default ``"auto"`` on Xodd and
Yodd; on YINSH ``"auto"`` is ``None``, plain UCT) -- a softmax over the greedy
score of the best turn each action leads to, at temperature ``prior_temp``,
computed when a node is first searched through -- or from
``policy_value_fn(state) -> (priors over all actions, value in [-1, 1]
for the player to act)``, which then also replaces the rollouts.

Network-guided search: ``agents.load("mcts", network="run/last.pt")`` loads
a trained PPO network (:class:`agents.train.ppo.PPOAgent`, imported only then) and
uses its masked policy as the priors and its value head instead of rollouts,
AlphaZero-style, in every game; ``network="xodd9"`` names a network shipped
with the package (:mod:`agents.pretrained`), and where that name ships a
search network (its value refit on its own games, :mod:`agents.train.refit`)
the search uses that one. The option is a string, so the
agent rebuilds from its options and pickles (with the network's weights) for
the arena's workers; the agent is tied to the
network's game (:attr:`Agent.game`), and a position of another game is
refused. Without priors, 200 simulations barely visit each of
the ~100-200 first stones once on the larger boards; the priors make the
search beat the greedy player there too.

A network-guided search runs compiled: the batched search of :mod:`agents.search`
(one tree; the same PUCT, first-play urgency, virtual loss and reuse, on the game's
compiled rules), the network, averaged over ``symmetries`` and blended with the group
balance (``group_weight``), as its evaluator; ties between equally visited and valued
actions are drawn with the seed as before, ties inside the tree go to the lowest action.
``compiled=False`` searches the Python tree instead (the search before it; the same
visit counts, several times slower: ``benchmarks/bench_search.py``). The Python tree
(:mod:`agents.players.mcts_tree`) serves rollouts and ``policy_value_fn``.

With a value function, ``batch`` leaves are gathered before they are
evaluated (one network call for all of them with ``network=``): each walk
down counts its visits at once and its value only when its leaf is evaluated
(virtual loss), so the walks of one batch spread over different leaves; a
walk that reaches a leaf already waiting is undone and ends the batch early.
``batch=1`` is the plain one-leaf-at-a-time search. The exploration constant
defaults to :data:`C_ROLLOUT` with rollouts and :data:`C_VALUE` with a value
function.

The search stops after ``simulations`` simulations or ``time_budget`` seconds,
whichever comes first (only the simulation count is reproducible), and plays
the most visited action; a pass that ends the game with a win is played
without searching. The subtree of the position reached is kept for the next
call when that position is found in it (a second step of the same turn, or
the reply the search expected).
"""

from __future__ import annotations

import math
import os
import time
from typing import Any, Callable

import numpy as np

from odd_env.game import Game, Position

from ..base import MAX_SECONDS, Agent, check_bool, check_float, check_int, check_position, new_rng_state
from ..search import BatchedSearch, SearchConfig
from .mcts_tree import GROUP_SCALE, Node, PythonTreeSearch, _no_group_balance
from .search_network import load_search_network

ROLLOUTS = ("auto", "random", "greedy")
PRIORS = ("auto", None, "greedy")

PolicyValueFn = Callable[[Position], tuple[np.ndarray, float]]
"""``f(state) -> (priors over all actions, value in [-1, 1] for the player to act)``."""

C_ROLLOUT = 1.4
"""The exploration constant of searches with rollouts (UCT, or PUCT with greedy priors)."""

C_VALUE = 0.5
"""The exploration constant of PUCT with a value function (network-guided search); values are in
[0, 1], so this is AlphaZero's c_puct of 1.0 on its [-1, 1] scale (measured: see docs/pretrained.md)."""

__all__ = ["C_ROLLOUT", "C_VALUE", "GROUP_SCALE", "GROUP_WEIGHT", "MCTSAgent", "Node"]

GROUP_WEIGHT = 0.5
"""``group_weight`` of network-guided searches on Xodd and Yodd unless given (measured: see docs/pretrained.md)."""


MAX_SIMULATIONS = 1_000_000
"""Most ``simulations`` a search may be given: a tree of a node a simulation, about a gigabyte and
minutes a move at this bound (``simulations=1e30`` would never return a move)."""

REUSE_DEPTH = 4
"""Plies below the last root searched for the new position (my second step, or the opponent's one- or
two-step turn)."""

MAX_BATCH = 4096
"""Most leaves a network-guided search may evaluate together (``batch``)."""


def _greedy(game: Game | None) -> bool:
    """Whether ``game``'s heuristics have a greedy policy (Xodd and Yodd): greedy rollouts and
    priors, and the group balance, exist only there."""
    return game is not None and game.heuristics is not None and game.heuristics.greedy


class MCTSAgent(PythonTreeSearch, Agent):
    """Monte Carlo tree search over environment steps (see the module docstring).

    Args:
        simulations: simulations per action (the main strength knob).
        c: exploration constant (UCT, or PUCT when there are priors); None
            (default) chooses :data:`C_ROLLOUT` for searches with rollouts and
            :data:`C_VALUE` for searches with a value function (network).
        batch: leaves evaluated together, with virtual loss (a visit counted on
            the way down, its value added when the leaf is evaluated), in one
            network call with ``network=``: faster per move, a little weaker per
            simulation (see docs/pretrained.md); 1 (default) is the plain search.
            Rollout searches evaluate one leaf at a time (batch 1).
        fpu_reduction: PUCT values an unvisited edge at the node's mean value
            minus ``fpu_reduction`` times the square root of the prior mass of
            the visited edges (first-play urgency; 0, the default: the mean).
        symmetries: with ``network=``, the network's priors and value are the
            means over this many images of each position under the board's
            symmetries (:class:`agents.train.ppo.PPOAgent` ``symmetries``); 1 (default)
            evaluates the position as it is.
        group_weight: Xodd/Yodd with a value function: a new leaf's value is
            ``(1 - w) * value + w * tanh((opponent's groups - own groups) /``
            :data:`GROUP_SCALE` ``)`` for the player to act (the count that
            decides the game at its end, which the networks' value heads read
            poorly; see docs/pretrained.md), as AlphaGo mixed its value network with
            rollouts; 0 uses the value alone (plain PUCT). None (default):
            :data:`GROUP_WEIGHT` for searches with a value function on Xodd
            and Yodd, 0 otherwise (rollouts; YINSH, which has no groups).
        time_budget: seconds per action; ``None`` for no limit. The search
            stops at whichever of ``simulations`` and ``time_budget`` comes first.
        rollout: ``"auto"`` (default: ``"greedy"`` on Xodd and Yodd, ``"random"`` on YINSH),
            ``"greedy"`` or ``"random"``.
        epsilon: probability of a random step in greedy rollouts.
        prior: ``"auto"`` (default: ``"greedy"`` on Xodd and Yodd, ``None`` on YINSH),
            ``"greedy"`` for heuristic priors (PUCT) or ``None`` (UCT).
        prior_temp: softmax temperature of the greedy priors, in group counts.
        policy_value_fn: a function giving priors and a value; overrides
            ``prior`` and replaces rollouts.
        network: a pretrained network's name (:func:`agents.pretrained_networks`;
            its search network where it ships one) or the path of a PPO
            checkpoint, whose network gives the priors
            and values (the same as its ``PPOAgent.policy_value`` as
            ``policy_value_fn``); ties the agent to the network's game.
        reuse_tree: keep the subtree of the position reached for the next call.
        compiled: with ``network=``, search with the compiled batched search
            (:mod:`agents.search`, default); False searches the Python tree as
            ``policy_value_fn=`` does (the search before it, kept to measure against:
            ``benchmarks/bench_search.py``).
        seed: seeds every random choice (tie-breaks, rollouts).
    """

    name = "mcts"

    def __init__(
        self,
        simulations: int = 200,
        c: float | None = None,
        time_budget: float | None = None,
        rollout: str = "auto",
        epsilon: float = 0.1,
        prior: str | None = "auto",
        prior_temp: float = 0.5,
        policy_value_fn: PolicyValueFn | None = None,
        reuse_tree: bool = True,
        seed: int | None = None,
        geometry: Any = None,
        network: str | os.PathLike | None = None,
        batch: int = 1,
        fpu_reduction: float = 0.0,
        symmetries: int = 1,
        group_weight: float | None = None,
        compiled: bool = True,
    ):
        if rollout not in ROLLOUTS:
            raise ValueError(f"mcts option rollout must be one of {ROLLOUTS}, got {rollout!r}")
        if prior in ("none", "None", ""):
            prior = None
        if prior not in PRIORS:
            raise ValueError(f"mcts option prior must be one of {PRIORS}, got {prior!r}")
        if policy_value_fn is not None and not callable(policy_value_fn):
            raise ValueError(f"mcts option policy_value_fn must be callable or None, got {policy_value_fn!r}")
        simulations = check_int("mcts option simulations", simulations, 1, MAX_SIMULATIONS)
        if c is not None:
            c = check_float("mcts option c", c, 0.0)
        batch = check_int("mcts option batch", batch, 1, MAX_BATCH)
        fpu_reduction = check_float("mcts option fpu_reduction", fpu_reduction, 0.0, 1.0)
        if group_weight is not None:
            group_weight = check_float("mcts option group_weight", group_weight, 0.0, 1.0)
        if time_budget is not None:
            time_budget = check_float("mcts option time_budget", time_budget, 0.0, MAX_SECONDS, low_open=True)
        epsilon = check_float("mcts option epsilon", epsilon, 0.0, 1.0)
        # Priors are exp(score / prior_temp): a zero temperature divides by zero.
        prior_temp = check_float("mcts option prior_temp", prior_temp, 0.0, low_open=True)
        reuse_tree = check_bool("mcts option reuse_tree", reuse_tree)
        player = None
        if network is not None:
            if policy_value_fn is not None:
                raise ValueError("mcts: give network= (a checkpoint) or policy_value_fn=, not both")
            player = load_search_network(network, "mcts")
            player.set_symmetries(symmetries, "mcts option symmetries")
            policy_value_fn = player.policy_value
        if isinstance(symmetries, bool) or not isinstance(symmetries, (int, np.integer)) or symmetries < 1:
            raise ValueError(f"mcts option symmetries must be an integer from 1 (the position as it is) to the "
                             f"board's symmetry count (8 on Xodd, 12 on Yodd and YINSH), got {symmetries!r}")
        if symmetries != 1 and player is None:
            raise ValueError(f"mcts option symmetries={symmetries!r} averages a network's answers over the board's "
                             "symmetries: it needs network=")
        if group_weight and player is not None and not _greedy(player.game):
            raise _no_group_balance(player.game.name)
        if group_weight and policy_value_fn is None:
            raise ValueError(f"mcts option group_weight={group_weight} blends a value function's values with the "
                             "group balance: it needs network= or policy_value_fn=")
        if batch > 1 and policy_value_fn is None:
            raise ValueError(f"mcts option batch={batch} needs a value function (network= or policy_value_fn=): "
                             "searches with rollouts evaluate one leaf at a time (batch=1)")
        super().__init__(seed=seed, geometry=geometry)
        if player is not None:
            if self.game is not None and self.game is not player.game:
                raise ValueError(f"mcts: the network {str(network)!r} plays {player.game.label}, "
                                 f"but geometry= says {self.game.label}")
            self.game = player.game
        self.network = None if network is None else str(network)
        """The pretrained name or checkpoint path of the network guiding the search, or None."""
        self._sha256 = None if player is None else player.network_sha256
        self.simulations = simulations
        self.c = c
        self._c = c if c is not None else (C_ROLLOUT if policy_value_fn is None else C_VALUE)
        self.batch = batch
        self.fpu_reduction = fpu_reduction
        self.group_weight = group_weight
        self._group_weight = 0.0  # group_weight resolved for the game searched (_resolve)
        self.symmetries = 1 if player is None else player.symmetries
        self._policy_values = None if player is None else player.policy_values
        self.time_budget = time_budget
        self.rollout = rollout
        self.epsilon = epsilon
        self.prior = prior
        self.prior_temp = prior_temp
        self.policy_value_fn = policy_value_fn
        self.reuse_tree = reuse_tree
        self._rng_state = new_rng_state(self.rng)
        self._root: Node | None = None
        self.compiled = check_bool("mcts option compiled", compiled)
        # network= with compiled: the compiled search (agents.search) evaluates with the network
        self._player = player if self.compiled else None
        self._compiled: BatchedSearch | None = None
        self._searched: Game | None = None  # the game the compiled tree holds, once searched
        self.last_simulations = 0
        """Simulations run by the last call to :meth:`act`."""

    # ------------------------------------------------------------ bookkeeping
    def reset(self, seed: int | None = None) -> None:
        """Drop the search tree; reseed when ``seed`` is given."""
        super().reset(seed)
        if seed is not None:
            self._rng_state = new_rng_state(self.rng)
        self._root = None
        self._searched = None

    def get_state(self) -> dict[str, Any]:
        """The random generators (see :meth:`Agent.get_state`).

        The search tree kept by ``reuse_tree`` is not part of it: after
        :meth:`set_state` the next search starts from a fresh tree, so an
        agent with ``reuse_tree=True`` may then choose differently than the
        uninterrupted one would.
        """
        return {**super().get_state(), "xorshift": int(self._rng_state[0])}

    def set_state(self, state: Any) -> None:
        """Restore what :meth:`get_state` returned; drops the search tree."""
        try:
            xorshift = check_int("mcts saved xorshift state", state["xorshift"], 1)
            rng_state = np.array([xorshift], dtype=np.uint64)
        except (KeyError, TypeError, ValueError, OverflowError) as err:
            raise ValueError(f"bad saved state for agent {self.label}: {err!r}") from err
        super().set_state(state)  # the last check: nothing is assigned before every part is read
        self._rng_state = rng_state
        self._root = None
        self._searched = None

    @property
    def options(self) -> dict[str, Any]:
        """The constructor's options (without ``policy_value_fn``)."""
        return {
            "simulations": self.simulations, "c": self.c, "time_budget": self.time_budget,
            "rollout": self.rollout, "epsilon": self.epsilon, "prior": self.prior,
            "prior_temp": self.prior_temp, "reuse_tree": self.reuse_tree, "seed": self.seed,
            "network": self.network, "batch": self.batch, "fpu_reduction": self.fpu_reduction,
            "symmetries": self.symmetries, "group_weight": self.group_weight, "compiled": self.compiled,
        }

    @property
    def label(self) -> str:
        """``mcts:simulations=...`` and the options that differ from the defaults."""
        defaults = MCTSAgent().options
        parts = [f"simulations={self.simulations}"]
        for k, v in self.options.items():
            if k not in ("simulations", "seed") and v != defaults[k]:
                parts.append(f"{k}={v}")
        if self.policy_value_fn is not None and self.network is None:
            parts.append("pv")
        return f"{self.name}:" + ",".join(parts)

    @property
    def network_sha256(self) -> str | None:
        """The sha256 of the ``network=`` file guiding the search, or None."""
        return self._sha256

    def cannot_play(self, game: Any) -> str | None:
        """Greedy rollouts and priors, and the group balance, exist for Xodd and Yodd only."""
        if _greedy(game):
            return None
        if "greedy" in (self.rollout, self.prior):
            return ("greedy rollouts and priors exist only for Xodd and Yodd: use rollout=random, prior=none "
                    "(the defaults, rollout=auto and prior=auto, choose them)")
        if self.group_weight:
            return "group_weight blends in the group balance of Xodd and Yodd: use group_weight=0"
        return None

    # ------------------------------------------------------------ search
    def _resolve(self, state: Position) -> None:
        """Fix "auto" choices for the game of ``state``; refuse greedy parts outside Xodd/Yodd."""
        odd = _greedy(state.game)
        self._rollout = ("greedy" if odd else "random") if self.rollout == "auto" else self.rollout
        self._prior = ("greedy" if odd else None) if self.prior == "auto" else self.prior
        if not odd and self.group_weight:
            raise _no_group_balance(getattr(state, "game_name", type(state).__name__))
        if self.group_weight is not None:
            self._group_weight = self.group_weight
        else:
            self._group_weight = GROUP_WEIGHT if odd and self.policy_value_fn is not None else 0.0
        if not odd and "greedy" in (self._rollout, self._prior):
            raise ValueError(f"mcts: greedy rollouts and priors exist only for Xodd and Yodd, not "
                             f"{getattr(state, 'game_name', type(state).__name__)}: use rollout=random, prior=none "
                             "(the defaults, rollout=auto and prior=auto, choose them)")

    def act(self, state: Position) -> int:
        """Search from ``state`` and return the most visited action."""
        check_position(self.name, state)
        if self.network is not None and state.game is not self.game:
            raise ValueError(f"mcts: the network {self.network!r} plays {self.game.label}, "
                             f"not {state.game.label}")
        self._resolve(state)
        heuristics = state.game.heuristics
        shortcut = None if heuristics is None else heuristics.decided_action(state)
        if shortcut is not None:  # e.g. Xodd/Yodd's winning pass, whatever guides the search
            self._root = None
            self.last_simulations = 0
            return shortcut
        if self._player is not None:
            return self._act_compiled(state)
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

    def root_visits(self) -> dict[int, int]:
        """Visit counts of the root's actions after the last search (for inspection)."""
        if self._player is not None:
            return {} if self._searched is None else self._compiled.root_visits(0)
        if self._root is None:
            return {}
        return {int(a): int(v) for a, v in zip(self._root.actions, self._root.visits)}

    # ------------------------------------------------------------ network= : the compiled search
    def _act_compiled(self, state: Position) -> int:
        """Search ``state`` with the compiled batched search (one tree), the network as its evaluator."""
        if self._compiled is None:
            config = SearchConfig(c_puct=2.0 * self._c, fpu_reduction=2.0 * self.fpu_reduction, leaves=self.batch)
            self._compiled = BatchedSearch(state.game, 1, self._evaluate_planes, config)
            self._compiled.compile()  # numba compiles on first use: before the time budget starts
            self._searched = None
        search = self._compiled
        deadline = None if self.time_budget is None else time.perf_counter() + self.time_budget
        if self.reuse_tree and self._searched is not None:
            search.reuse(0, state, REUSE_DEPTH)
        else:
            search.set_root(0, state)
        self._searched = None  # until the search has finished (a search stopped midway leaves pending leaves)
        try:
            multiple = len(state.legal_actions()) > 1
            self.last_simulations = int(search.run(self.simulations, deadline)[0]) if multiple else 0
        finally:
            self._root = None
        self._searched = state.game
        if not multiple:
            return int(state.legal_actions()[0])
        edges = search.root_edges(0)
        v = edges["visits"]
        best = np.flatnonzero(v == v.max())
        if len(best) > 1:
            q = edges["q"][best]
            best = best[q == q.max()]
        i = int(best[self.rng.integers(len(best))]) if len(best) > 1 else int(best[0])
        return int(edges["actions"][i])

    def _evaluate_planes(self, planes: np.ndarray, masks: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The compiled search's evaluator: the network's masked policy (as log-probabilities) and value,
        blended with the group balance by ``group_weight`` (of the leaves' positions, from the search)."""
        probs, values = self._player.evaluate_planes(planes, masks, self._compiled.game)
        w = self._group_weight
        if w:
            rules, heuristics = self._compiled.rules, self._compiled.game.heuristics
            for k, data in enumerate(self._compiled.leaf_states()):
                balance = heuristics.balance(rules.decode(data))
                values[k] = (1.0 - w) * values[k] + w * math.tanh(balance / GROUP_SCALE)
        with np.errstate(divide="ignore"):
            return np.log(probs), values

    def __getstate__(self) -> dict[str, Any]:
        state = self.__dict__.copy()
        state["_compiled"], state["_searched"] = None, None  # compiled rules do not pickle: rebuilt on use
        return state
