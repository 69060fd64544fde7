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
(:mod:`agents.players.mcts_tree`) serves rollouts and ``policy_value_fn``; the compiled search is
:mod:`agents.players.mcts_compiled`. This module holds the agent: its options, label and state,
and which of the two searches a position goes to. A size-general network (no board of its own)
plays every board size of its game, in either search.

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

import os
from typing import Any, Callable

import numpy as np

from odd_env.game import Game, Position

from ..base import MAX_SECONDS, Agent, check_bool, check_float, check_int, check_position, new_rng_state
from .mcts_compiled import CompiledNetworkSearch
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

MAX_BATCH = 4096
"""Most leaves a network-guided search may evaluate together (``batch``)."""


def _greedy(game: Game | None) -> bool:
    """Whether ``game``'s heuristics have a greedy policy (Xodd and Yodd): greedy rollouts and
    priors, and the group balance, exist only there."""
    return game is not None and game.heuristics is not None and game.heuristics.greedy


def _check_search_options(rollout: str, prior: str | None, policy_value_fn: Any, simulations: Any, c: Any,
                          batch: Any, fpu_reduction: Any, group_weight: Any, time_budget: Any, epsilon: Any,
                          prior_temp: Any, reuse_tree: Any) -> dict[str, Any]:
    """The options that need no network, checked (ValueError naming the first bad one), as a dict."""
    if rollout not in ROLLOUTS:
        raise ValueError(f"mcts option rollout must be one of {ROLLOUTS}, got {rollout!r}")
    if prior in ("none", "None", ""):
        prior = None
    if prior not in PRIORS:
        raise ValueError(f"mcts option prior must be one of {PRIORS}, got {prior!r}")
    if policy_value_fn is not None and not callable(policy_value_fn):
        raise ValueError(f"mcts option policy_value_fn must be callable or None, got {policy_value_fn!r}")
    return dict(
        rollout=rollout, prior=prior,
        simulations=check_int("mcts option simulations", simulations, 1, MAX_SIMULATIONS),
        c=None if c is None else check_float("mcts option c", c, 0.0),
        batch=check_int("mcts option batch", batch, 1, MAX_BATCH),
        fpu_reduction=check_float("mcts option fpu_reduction", fpu_reduction, 0.0, 1.0),
        group_weight=None if group_weight is None else check_float("mcts option group_weight", group_weight,
                                                                   0.0, 1.0),
        time_budget=None if time_budget is None else check_float("mcts option time_budget", time_budget, 0.0,
                                                                 MAX_SECONDS, low_open=True),
        epsilon=check_float("mcts option epsilon", epsilon, 0.0, 1.0),
        # Priors are exp(score / prior_temp): a zero temperature divides by zero.
        prior_temp=check_float("mcts option prior_temp", prior_temp, 0.0, low_open=True),
        reuse_tree=check_bool("mcts option reuse_tree", reuse_tree),
    )


def _network_player(network: Any, policy_value_fn: Any, symmetries: Any, group_weight: float | None,
                    batch: int) -> Any:
    """The network's player (:class:`agents.players.network_player.PPOAgent`) of ``network=``, or None;
    ValueError where the options that need a value function or a network have neither."""
    player = None
    if network is not None:
        if policy_value_fn is not None:
            raise ValueError("mcts: give network= (a checkpoint) or policy_value_fn=, not both")
        player = load_search_network(network, "mcts")
        player.set_symmetries(symmetries, "mcts option symmetries")
    if isinstance(symmetries, bool) or not isinstance(symmetries, (int, np.integer)) or symmetries < 1:
        raise ValueError(f"mcts option symmetries must be an integer from 1 (the position as it is) to the "
                         f"board's symmetry count (8 on Xodd, 12 on Yodd and YINSH), got {symmetries!r}")
    if symmetries != 1 and player is None:
        raise ValueError(f"mcts option symmetries={symmetries!r} averages a network's answers over the board's "
                         "symmetries: it needs network=")
    if group_weight and player is not None and not _greedy(player.reference_game):
        raise _no_group_balance(player.reference_game.name)
    valued = player is not None or policy_value_fn is not None
    if group_weight and not valued:
        raise ValueError(f"mcts option group_weight={group_weight} blends a value function's values with the "
                         "group balance: it needs network= or policy_value_fn=")
    if batch > 1 and not valued:
        raise ValueError(f"mcts option batch={batch} needs a value function (network= or policy_value_fn=): "
                         "searches with rollouts evaluate one leaf at a time (batch=1)")
    return player


def _network_board(player: Any, board: Game | None, network: str) -> Game | None:
    """The board an agent guided by the network of ``player`` is tied to: the network's (``board``, of
    ``geometry=``, must be it), or for a size-general network ``board`` (None: every size of its game)."""
    if board is None or board is player.game:
        return player.game
    if player.game is not None:
        raise ValueError(f"mcts: the network {network!r} plays {player.game.label}, but geometry= says {board.label}")
    reason = player.cannot_play(board)
    if reason is not None:
        raise ValueError(f"mcts: the network {network!r} cannot play {board.label} (geometry=): {reason}")
    return board


def _check_network_plays(player: Any, board: Game | None, network: str, game: Game) -> None:
    """ValueError unless an agent tied to ``board`` by the network of ``player`` plays ``game``: the
    board, or where there is none (a size-general network) any board of the network's game."""
    if board is not None and game is not board:
        raise ValueError(f"mcts: the network {network!r} plays {board.label}, not {game.label}")
    reason = player.cannot_play(game)
    if reason is not None:
        raise ValueError(f"mcts: the network {network!r} cannot play {game.label}: {reason}")


def _resolve(rollout: str, prior: str | None, group_weight: float | None, valued: bool,
             state: Position) -> tuple[str, str | None, float]:
    """The rollout, prior and group weight of a search of ``state`` ("auto" and None fixed for its game,
    ``valued``: with a value function); ValueError for greedy parts outside Xodd/Yodd."""
    odd = _greedy(state.game)
    game_name = getattr(state, "game_name", type(state).__name__)
    rollout = ("greedy" if odd else "random") if rollout == "auto" else rollout
    prior = ("greedy" if odd else None) if prior == "auto" else prior
    if not odd and group_weight:
        raise _no_group_balance(game_name)
    if group_weight is None:
        group_weight = GROUP_WEIGHT if odd and valued else 0.0
    if not odd and "greedy" in (rollout, prior):
        raise ValueError(f"mcts: greedy rollouts and priors exist only for Xodd and Yodd, not {game_name}: use "
                         "rollout=random, prior=none (the defaults, rollout=auto and prior=auto, choose them)")
    return rollout, prior, group_weight


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
            ``policy_value_fn``); ties the agent to the network's board (a size-general
            network: to every board size of its game).
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
        options = _check_search_options(rollout, prior, policy_value_fn, simulations, c, batch, fpu_reduction,
                                        group_weight, time_budget, epsilon, prior_temp, reuse_tree)
        player = _network_player(network, policy_value_fn, symmetries, options["group_weight"], options["batch"])
        super().__init__(seed=seed, geometry=geometry)
        self.network = None if network is None else str(network)
        """The pretrained name or checkpoint path of the network guiding the search, or None."""
        self._player = player  # the network's PPOAgent, or None
        if player is not None:
            self.game = _network_board(player, self.game, self.network)
            policy_value_fn = player.policy_value
        for name, value in options.items():  # simulations, c, batch, time_budget, rollout, prior, ...
            setattr(self, name, value)
        self.policy_value_fn = policy_value_fn
        self.symmetries = 1 if player is None else player.symmetries
        self.compiled = check_bool("mcts option compiled", compiled)
        self._sha256 = None if player is None else player.network_sha256
        self._c = self.c if self.c is not None else (C_ROLLOUT if policy_value_fn is None else C_VALUE)
        self._group_weight = 0.0  # group_weight resolved for the game searched (_resolve)
        self._policy_values = None if player is None else player.policy_values
        self._rng_state = new_rng_state(self.rng)
        self._root: Node | None = None  # the Python tree's root, once searched
        # network= with compiled: the compiled search (agents.search) evaluates with the network
        self._backend = None if player is None or not self.compiled else CompiledNetworkSearch(
            player, self._c, self.fpu_reduction, self.batch)
        self.last_simulations = 0
        """Simulations run by the last call to :meth:`act`."""

    # ------------------------------------------------------------ bookkeeping
    def _drop_trees(self) -> None:
        self._root = None
        if self._backend is not None:
            self._backend.drop_tree()

    def reset(self, seed: int | None = None) -> None:
        """Drop the search tree; reseed when ``seed`` is given."""
        super().reset(seed)
        if seed is not None:
            self._rng_state = new_rng_state(self.rng)
        self._drop_trees()

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
        self._drop_trees()

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
        """Greedy rollouts and priors, and the group balance, exist for Xodd and Yodd only; a
        size-general network plays every size of its own game only."""
        if self.game is None and self._player is not None:
            reason = self._player.cannot_play(game)
            if reason is not None:
                return reason
        if _greedy(game):
            return None
        if "greedy" in (self.rollout, self.prior):
            return ("greedy rollouts and priors exist only for Xodd and Yodd: use rollout=random, prior=none "
                    "(the defaults, rollout=auto and prior=auto, choose them)")
        if self.group_weight:
            return "group_weight blends in the group balance of Xodd and Yodd: use group_weight=0"
        return None

    # ------------------------------------------------------------ search
    def act(self, state: Position) -> int:
        """Search from ``state`` and return the most visited action."""
        check_position(self.name, state)
        if self.network is not None:
            _check_network_plays(self._player, self.game, self.network, state.game)
        self._rollout, self._prior, self._group_weight = _resolve(self.rollout, self.prior, self.group_weight,
                                                                  self.policy_value_fn is not None, state)
        heuristics = state.game.heuristics
        shortcut = None if heuristics is None else heuristics.decided_action(state)
        if shortcut is not None:  # e.g. Xodd/Yodd's winning pass, whatever guides the search
            self._root = None
            self.last_simulations = 0
            return shortcut
        if self._backend is None:  # rollouts, policy_value_fn, or network= with compiled=False
            return self._act_tree(state)
        self._root = None
        self._backend.group_weight = self._group_weight
        action, self.last_simulations = self._backend.act(state, self.simulations, self.time_budget,
                                                          self.reuse_tree, self.rng)
        return action

    def root_visits(self) -> dict[int, int]:
        """Visit counts of the root's actions after the last search (for inspection)."""
        if self._backend is not None:
            return self._backend.root_visits()
        return self._tree_root_visits()

    @property
    def _compiled(self) -> Any:
        """The compiled search (:class:`agents.search.BatchedSearch`) of the board last searched, or None."""
        return None if self._backend is None else self._backend.active
