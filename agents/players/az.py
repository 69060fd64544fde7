"""AlphaZero-style search as a player: ``agents.load("az", network="xodd9", simulations=200)``.

PUCT on a policy-value network's priors and values, searched by the compiled batched search
(:class:`agents.search.BatchedSearch`, one tree here) through the game's compiled rules
(:attr:`odd_env.game.Game.compiled`): every game that has them, nothing game-specific. Each
wave walks down ``batch`` times (virtual loss spreads the walks) and evaluates the new leaves
in one network call. The search stops after ``simulations`` simulations or ``time`` seconds,
whichever comes first, and plays the most visited action (ties: the higher mean value, then the
lower action). The subtree of the position reached is kept for the next call (``reuse_tree``).

``network=`` is a shipped network's name (:func:`agents.pretrained_networks`) or a PPO checkpoint's
path, as ``mcts:network=`` takes it, and ties the player to that network's game. Without one the
priors are uniform and each new leaf is valued by ``rollouts`` random games (default 1).

The first move of a game compiles the search for that game (tens of seconds on a busy machine,
once per process); a time budget counts from after it.
"""

from __future__ import annotations

import os
from time import perf_counter
from typing import Any

from odd_env.game import Game, Position

from ..base import MAX_SECONDS, MAX_THREADS, Agent, check_bool, check_float, check_int, check_position
from ..search import MAX_LEAVES, MAX_SIMULATIONS, BatchedSearch, SearchConfig
from ..search.search import MAX_ROLLOUTS, check_precision
from .search_network import load_search_network

DEFAULT_SIMULATIONS = 200
"""Simulations per decision when neither ``simulations`` nor ``time`` is given."""

DEFAULT_BATCH = 8
"""Walks per wave unless ``batch`` is given (1 with ``gumbel``)."""

REUSE_DEPTH = 4
"""Plies below the last root searched for the new position (my second step, the opponent's turn)."""


class AZAgent(Agent):
    """PUCT search guided by a policy-value network, compiled and batched (see the module docstring).

    Args:
        network: a pretrained network's name or a PPO checkpoint path; None: uniform priors and
            random-rollout values.
        simulations: simulations per decision (at most :data:`agents.search.MAX_SIMULATIONS`);
            None: 200, or the most there are when ``time`` is given.
        time: seconds per decision (a budget checked after every wave); None: no limit.
        c: PUCT's exploration constant on the [-1, 1] value scale.
        batch: walks per wave, evaluated in one network call (virtual loss); 1 is plain PUCT; None: 8,
            or 1 with ``gumbel``.
        fpu_reduction: an unvisited action is valued at its node's mean value minus this times the
            square root of the visited actions' prior mass.
        noise: share of Dirichlet noise in the root's priors (0: none; AlphaZero's self-play: 0.25),
            with concentration ``dirichlet_alpha``; draws from the seed. With ``gumbel``, any noise > 0
            draws the Gumbel noise instead.
        gumbel: Gumbel root selection with sequential halving over this many considered actions
            (:mod:`agents.search.gumbel`; 16 in the paper; needs ``batch=1``); 0: PUCT at the root.
        rollouts: random games per new leaf for its value; None: 0 with a network, 1 without.
        reuse_tree: keep the subtree of the position reached for the next decision.
        device: where the network runs (``cpu``, ``cuda``).
        threads: torch CPU threads of the network calls (None: the process's setting).
        precision: the network's arithmetic, ``float32`` or ``bfloat16`` (a bfloat16 copy of the network:
            faster on CPUs with bfloat16 units at ``batch`` 8 and more, outputs within about 1e-2;
            :class:`agents.search.NetworkEvaluator`).
        compile: run the network through ``torch.compile`` (1.3-1.9 times as fast on CPU, outputs equal to
            rounding; compiled on the first move, outside any time budget; needs a C++ compiler on CPU).
        seed: seeds the noise and the rollouts; the same seed and positions give the same moves
            (with ``time``, the simulation count, and so the move, may vary).
    """

    name = "az"

    def __init__(self, network: str | os.PathLike | None = None, simulations: int | None = None,
                 time: float | None = None, c: float = 1.0, batch: int | None = None, fpu_reduction: float = 0.0,
                 noise: float = 0.0, dirichlet_alpha: float = 0.3, rollouts: int | None = None,
                 reuse_tree: bool = True, device: str = "cpu", threads: int | None = 1, seed: int | None = None,
                 game: Game | str | None = None, gumbel: int = 0, precision: str = "float32",
                 compile: bool = False):
        if simulations is not None:
            simulations = check_int("az option simulations", simulations, 1, MAX_SIMULATIONS)
        if time is not None:
            time = check_float("az option time", time, 0.0, MAX_SECONDS, low_open=True)
        gumbel = check_int("az option gumbel", gumbel, 0, MAX_LEAVES)
        if batch is not None:
            batch = check_int("az option batch", batch, 1, MAX_LEAVES)
        if rollouts is not None:
            rollouts = check_int("az option rollouts", rollouts, 0, MAX_ROLLOUTS)
        threads = None if threads is None else check_int("az option threads", threads, 1, MAX_THREADS)
        self.reuse_tree = check_bool("az option reuse_tree", reuse_tree)
        c = check_float("az option c", c, 0.0)
        fpu_reduction = check_float("az option fpu_reduction", fpu_reduction, 0.0, 2.0)
        noise = check_float("az option noise", noise, 0.0, 1.0)
        dirichlet_alpha = check_float("az option dirichlet_alpha", dirichlet_alpha, 0.0, 100.0, low_open=True)
        precision = check_precision(precision, "az option precision")
        if precision != "float32" and network is None:
            raise ValueError(f"az option precision={precision} is the network's arithmetic: give network= too")
        compile = check_bool("az option compile", compile)
        if compile and network is None:
            raise ValueError("az option compile=true compiles the network: give network= too")
        if gumbel and batch not in (None, 1):
            raise ValueError(f"az option gumbel={gumbel} (Gumbel root selection) walks one leaf per wave: "
                             f"give batch=1, got batch={batch}")
        self.config = SearchConfig(c_puct=c, leaves=batch or (1 if gumbel else DEFAULT_BATCH),
                                   fpu_reduction=fpu_reduction, noise_fraction=noise,
                                   dirichlet_alpha=dirichlet_alpha, gumbel=gumbel,
                                   rollouts=rollouts if rollouts is not None else (0 if network else 1))
        player = None
        if network is not None:
            player = load_search_network(network, "az")
            from ..search.evaluate import NetworkEvaluator

            try:
                self._evaluator = NetworkEvaluator(player.network, device, threads, precision=precision,
                                                   compile=compile)
            except ValueError as err:
                raise ValueError(f"az option device: {err}") from None
        else:
            self._evaluator = None
        super().__init__(seed=seed, game=game)
        if player is not None:
            if self.game is not None and self.game is not player.game:
                raise ValueError(f"az: the network {str(network)!r} plays {player.game.label}, "
                                 f"but game= says {self.game.label}")
            self.game = player.game
        if self.game is not None and self.game.compiled is None:
            raise ValueError(f"az cannot play {self.game.label}: it has no compiled rules (Game.compiled)")
        self.network = None if network is None else str(network)
        """The pretrained name or checkpoint path of the guiding network, or None."""
        self._sha256 = None if player is None else player.network_sha256
        self._player = player  # asked which games a size-general network plays (cannot_play)
        self.simulations = simulations
        self.time = time
        self.c, self.batch, self.fpu_reduction = float(c), batch, float(fpu_reduction)
        self.noise, self.dirichlet_alpha, self.rollouts = float(noise), float(dirichlet_alpha), rollouts
        self.device, self.threads, self.gumbel, self.precision = str(device), threads, gumbel, precision
        self.compile = compile
        self._searches: dict[Game, BatchedSearch] = {}
        self._searched: Game | None = None
        self.last_simulations = 0
        """Simulations run by the last call to :meth:`act`."""

    # ------------------------------------------------------------ bookkeeping
    @property
    def options(self) -> dict[str, Any]:
        """The constructor's options."""
        return {"network": self.network, "simulations": self.simulations, "time": self.time, "c": self.c,
                "batch": self.batch, "fpu_reduction": self.fpu_reduction, "noise": self.noise,
                "dirichlet_alpha": self.dirichlet_alpha, "rollouts": self.rollouts, "reuse_tree": self.reuse_tree,
                "device": self.device, "threads": self.threads, "gumbel": self.gumbel, "precision": self.precision,
                "compile": self.compile, "seed": self.seed}

    @property
    def label(self) -> str:
        """``az:`` and the options that differ from the defaults."""
        defaults = AZAgent().options
        parts = [f"{k}={v}" for k, v in self.options.items() if k != "seed" and v != defaults[k]]
        return f"{self.name}:" + ",".join(parts) if parts else self.name

    @property
    def network_sha256(self) -> str | None:
        """The sha256 of the ``network=`` file, or None."""
        return self._sha256

    def cannot_play(self, game: Game) -> str | None:
        """The search plays through compiled rules: games without them cannot be searched; a
        size-general network plays every board of its own game and variant, and no other game."""
        if game.compiled is None:
            return "it has no compiled rules (Game.compiled), which the az search plays through"
        return None if self._player is None else self._player.cannot_play(game)

    def reset(self, seed: int | None = None) -> None:
        """Drop the search trees; reseed when ``seed`` is given."""
        super().reset(seed)
        self._searches.clear()
        self._searched = None

    def get_state(self) -> dict[str, Any]:
        """The random generator (the search tree is not part of it: the next search starts afresh)."""
        return super().get_state()

    def set_state(self, state: Any) -> None:
        """Restore what :meth:`get_state` returned; drops the search trees."""
        super().set_state(state)
        self._searches.clear()
        self._searched = None

    def __getstate__(self) -> dict[str, Any]:
        state = self.__dict__.copy()
        state["_searches"] = {}  # compiled rules do not pickle; a worker rebuilds its search
        state["_searched"] = None
        return state

    # ------------------------------------------------------------ search
    def _search(self, game: Game) -> BatchedSearch:
        """The search of ``game``, built (and compiled, with one tiny search) on its first use."""
        search = self._searches.get(game)
        if search is None:
            seed = int(self.rng.integers(2**63 - 1))
            search = BatchedSearch(game, 1, self._evaluator, self.config, seed=seed)
            search.compile()  # outside any time budget
            self._searches[game] = search
        return search

    def act(self, state: Position) -> int:
        """Search from ``state`` and return the most visited action."""
        check_position(self.name, state)
        if self.game is not None and state.game is not self.game:
            raise ValueError(f"az: the network {self.network!r} plays {self.game.label}, not {state.game.label}")
        reason = self.cannot_play(state.game)
        if reason is not None:
            raise ValueError(f"az cannot play {state.game.label}: {reason}")
        search = self._search(state.game)
        start = perf_counter()
        if self.reuse_tree and self._searched is state.game:
            search.reuse(0, state, REUSE_DEPTH)
        else:
            search.set_root(0, state)
        self._searched = state.game
        legal = state.legal_actions()
        if len(legal) == 1:
            self.last_simulations = 0
            return int(legal[0])
        simulations = self.simulations
        if simulations is None:
            simulations = DEFAULT_SIMULATIONS if self.time is None else MAX_SIMULATIONS
        deadline = None if self.time is None else start + self.time
        self.last_simulations = int(search.run(simulations, deadline, noise=self.noise > 0)[0])
        return search.best_action(0)  # with gumbel: the action sequential halving chose

    def root_visits(self) -> dict[int, int]:
        """Visit counts of the root's actions after the last search (for inspection)."""
        if self._searched is None:
            return {}
        return self._searches[self._searched].root_visits(0)

    def root_values(self) -> dict[int, float]:
        """Mean values (for the player to decide, in [-1, 1]) of the root's visited actions after the last search."""
        if self._searched is None:
            return {}
        edges = self._searches[self._searched].root_edges(0)
        return {int(a): float(q) for a, q, v in zip(edges["actions"], edges["q"], edges["visits"]) if v > 0}


__all__ = ["AZAgent", "DEFAULT_BATCH", "DEFAULT_SIMULATIONS"]
