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

from .search_network import load_search_network
from ..base import MAX_SECONDS, Agent, check_bool, check_float, check_int, check_position, new_rng_state

ROLLOUTS = ("auto", "random", "greedy")
PRIORS = ("auto", None, "greedy")

PolicyValueFn = Callable[[Position], tuple[np.ndarray, float]]
"""``f(state) -> (priors over all actions, value in [-1, 1] for the player to act)``."""

C_ROLLOUT = 1.4
"""The exploration constant of searches with rollouts (UCT, or PUCT with greedy priors)."""

C_VALUE = 0.5
"""The exploration constant of PUCT with a value function (network-guided search); values are in
[0, 1], so this is AlphaZero's c_puct of 1.0 on its [-1, 1] scale (measured: see docs/pretrained.md)."""

GROUP_SCALE = 2.0
"""Groups of balance that make ``tanh(balance / GROUP_SCALE)`` about 0.76 (``group_weight``)."""

GROUP_WEIGHT = 0.5
"""``group_weight`` of network-guided searches on Xodd and Yodd unless given (measured: see docs/pretrained.md)."""


MAX_SIMULATIONS = 1_000_000
"""Most ``simulations`` a search may be given: a tree of a node a simulation, about a gigabyte and
minutes a move at this bound (``simulations=1e30`` would never return a move)."""

MAX_BATCH = 4096
"""Most leaves a network-guided search may evaluate together (``batch``)."""


def _greedy(game: Game | None) -> bool:
    """Whether ``game``'s heuristics have a greedy policy (Xodd and Yodd): greedy rollouts and
    priors, and the group balance, exist only there."""
    return game is not None and game.heuristics is not None and game.heuristics.greedy


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


class MCTSAgent(Agent):
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
        self.last_simulations = 0
        """Simulations run by the last call to :meth:`act`."""

    # ------------------------------------------------------------ bookkeeping
    def reset(self, seed: int | None = None) -> None:
        """Drop the search tree; reseed when ``seed`` is given."""
        super().reset(seed)
        if seed is not None:
            self._rng_state = new_rng_state(self.rng)
        self._root = None

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

    @property
    def options(self) -> dict[str, Any]:
        """The constructor's options (without ``policy_value_fn``)."""
        return {
            "simulations": self.simulations, "c": self.c, "time_budget": self.time_budget,
            "rollout": self.rollout, "epsilon": self.epsilon, "prior": self.prior,
            "prior_temp": self.prior_temp, "reuse_tree": self.reuse_tree, "seed": self.seed,
            "network": self.network, "batch": self.batch, "fpu_reduction": self.fpu_reduction,
            "symmetries": self.symmetries, "group_weight": self.group_weight,
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
        root = self._find_root(state)
        deadline = None if self.time_budget is None else time.perf_counter() + self.time_budget
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
