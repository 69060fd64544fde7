"""Self-play of the AlphaZero trainer (:mod:`agents.train.alphazero`): ``num_games`` games searched
together by one :class:`agents.search.BatchedSearch`, one tree a game, every wave's leaves in one
network call.

Each move of every game:

* playout-cap randomisation (KataGo): with probability ``full_search_prob`` the move gets a full
  search of ``simulations`` and its position is recorded as a training sample, else a fast search
  of ``fast_simulations`` that only chooses the move; full and fast trees share the same waves
  (:meth:`~agents.search.BatchedSearch.run` takes one budget per tree);
* root noise, in full searches only (a fast search plays its best, as KataGo's do): Gumbel noise
  (``--policy-target gumbel``: a Gumbel root search) or Dirichlet noise (``visits``: a PUCT search);
* the policy target: the improved policy ``softmax(logits + sigma(completed q))`` (gumbel) or the
  root's visit shares (visits);
* the move: sampled from the policy target for a game's first ``temperature_moves`` moves, then the
  search's choice (the action sequential halving chose, or the most visited);
* the tree is kept: the child of the move becomes the root (:meth:`~agents.search.BatchedSearch.advance`).

A game's samples wait until it ends; then each gets its value target, the outcome for the player to
move at that sample (``returns[to_move]``: in Xodd and Yodd a player may move twice in a row, so
the sign does not simply alternate), and they go to the replay buffer together. Everything runs
through the game's compiled rules (:class:`odd_env.game.CompiledRules`).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import torch

from odd_env.game import Game

from ..search import BatchedSearch, SearchConfig
from ..search.evaluate import NetworkEvaluator
from .network import PolicyValueNet

PENDING = ("planes", "mask", "policy", "player", "game")
"""The arrays of the samples of unfinished games (``game``: the slot they were played in)."""


class AZSelfPlay:
    """The games in progress, their search trees and their samples not yet valued (see the module
    docstring); ``args`` are the trainer's options (:class:`agents.train.az_args.Args`); ``num_games``
    games of ``game`` (None: ``args.num_games``; a run over several board sizes has one of these per
    size, sharing the games)."""

    def __init__(self, args: Any, game: Game, seed: int, num_games: int | None = None):
        self.args, self.game = args, game
        self.num_games = B = int(args.num_games if num_games is None else num_games)
        self.rules = r = game.compiled()
        gumbel = args.policy_target == "gumbel"
        self.config = SearchConfig(c_puct=args.c_puct, leaves=1, gumbel=args.considered if gumbel else 0,
                                   noise_fraction=0.0 if gumbel else args.noise,
                                   dirichlet_alpha=args.dirichlet_alpha)
        self._network: NetworkEvaluator | None = None
        self._kept: tuple[tuple, NetworkEvaluator] | None = None
        self.search = BatchedSearch(game, B, self._evaluate, self.config, seed=seed)
        self.states = np.stack([r.new_state(r.tables) for _ in range(B)]).astype(np.int32)
        self.moves = np.zeros(B, np.int64)
        """Moves played in each game so far."""
        self.pending: dict[str, list[np.ndarray]] = {k: [] for k in PENDING}
        self._mask = np.zeros(r.num_actions, np.int8)

    # ------------------------------------------------------------ play
    def play(self, net: PolicyValueNet, moves: int, rng: np.random.Generator, device: torch.device,
             threads: int) -> dict[str, Any]:
        """Play ``moves`` moves of every game with ``net``'s evaluations; returns the finished games' samples
        (``planes``, ``mask``, ``policy``, ``value`` arrays) and counts (``moves``, ``recorded``, ``games``,
        ``first_player_wins``, ``game_length``). The trees start afresh from the games' positions (so that a
        resumed run, whose trees are not saved, searches exactly as the uninterrupted one)."""
        a, r, search = self.args, self.rules, self.search
        self._network = self._evaluator_of(net, device, threads)
        for b in range(self.num_games):
            search.set_root(b, self.states[b])
        done: list[dict[str, np.ndarray]] = []
        info = {"moves": 0, "recorded": 0, "games": 0, "first_player_wins": 0.0, "game_length": 0.0}
        for _ in range(moves):
            full = rng.random(self.num_games) < a.full_search_prob
            search.run(np.where(full, a.simulations, a.fast_simulations), noise=full)
            target = search.improved_policy() if self.config.gumbel else search.visit_policy()
            for b in range(self.num_games):
                s = self.states[b]
                if full[b]:
                    self._record(b, s, target[b])
                if self.moves[b] < a.temperature_moves:
                    p = target[b].astype(np.float64)
                    action = int(rng.choice(len(p), p=p / p.sum()))
                else:
                    action = search.best_action(b)
                r.apply(s, r.tables, action)
                self.moves[b] += 1
                info["moves"] += 1
                if r.is_terminal(s, r.tables):
                    returns = r.returns(s, r.tables)
                    done.append(self._finish(b, returns))
                    info["games"] += 1
                    info["first_player_wins"] += float(returns[0] > 0)
                    info["game_length"] += float(self.moves[b])
                    self.states[b] = r.new_state(r.tables)
                    self.moves[b] = 0
                    search.set_root(b, self.states[b])
                else:
                    search.advance(b, action)
            info["recorded"] += int(full.sum())
        self._network = None
        samples = {k: np.concatenate([d[k] for d in done]) if done else self._empty(k)
                   for k in ("planes", "mask", "policy", "value")}
        return {**samples, **info}

    def compile(self, net: PolicyValueNet, device: torch.device, threads: int) -> None:
        """Compile the search for this game now (numba, once per process: tens of seconds), outside any
        measured time; it draws no random number, and :meth:`play` rebuilds the trees afterwards."""
        self._network = self._evaluator_of(net, device, threads)
        try:
            self.search.compile()
        finally:
            self._network = None

    def _evaluator_of(self, net: PolicyValueNet, device: torch.device, threads: int) -> NetworkEvaluator:
        """The self-play evaluator, holding a copy of ``net``'s present weights: built once (and compiled
        once, with ``--compile``), its weights refreshed on every later call (the network changes between
        calls; a copy in place of the network computes the same as a fresh copy)."""
        a = self.args
        key = (str(device), threads, a.selfplay_precision, a.compile)
        if self._kept is None or self._kept[0] != key:
            self._kept = (key, NetworkEvaluator(net, device, threads, precision=key[2], compile=key[3]))
        else:
            self._kept[1].load_weights(net)
        return self._kept[1]

    def _evaluate(self, planes: np.ndarray, masks: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The search's evaluator: the network of the current :meth:`play`."""
        if self._network is None:
            raise RuntimeError("the self-play search evaluates only during play()")
        return self._network(planes, masks)

    def _record(self, b: int, s: np.ndarray, policy: np.ndarray) -> None:
        r = self.rules
        player = int(r.to_move(s, r.tables))
        planes = np.zeros((r.num_planes, r.height * r.width), np.int8)
        r.observe(s, r.tables, player, planes)
        r.legal_mask(s, r.tables, self._mask)
        self.pending["planes"].append(planes.reshape(r.num_planes, r.height, r.width))
        self.pending["mask"].append(self._mask.copy())
        self.pending["policy"].append(policy.astype(np.float32))
        self.pending["player"].append(np.int64(player))
        self.pending["game"].append(np.int64(b))

    def _finish(self, b: int, returns: Any) -> dict[str, np.ndarray]:
        """Take game ``b``'s samples out of the pending ones, valued by ``returns`` (of players 0 and 1)."""
        mine = [i for i, g in enumerate(self.pending["game"]) if g == b]
        out = {k: [self.pending[k][i] for i in mine] for k in ("planes", "mask", "policy", "player")}
        keep = [i for i, g in enumerate(self.pending["game"]) if g != b]
        self.pending = {k: [v[i] for i in keep] for k, v in self.pending.items()}
        if not mine:
            return {k: self._empty(k) for k in ("planes", "mask", "policy", "value")}
        value = np.array([returns[int(p)] for p in out["player"]], np.float32)
        return {"planes": np.stack(out["planes"]), "mask": np.stack(out["mask"]), "policy": np.stack(out["policy"]),
                "value": value}

    def _empty(self, key: str) -> np.ndarray:
        r = self.rules
        shapes = {"planes": ((0, r.num_planes, r.height, r.width), np.int8), "mask": ((0, r.num_actions), np.int8),
                  "policy": ((0, r.num_actions), np.float32), "value": ((0,), np.float32),
                  "player": ((0,), np.int64), "game": ((0,), np.int64)}
        shape, dtype = shapes[key]
        return np.zeros(shape, dtype)

    # ------------------------------------------------------------ checkpoints
    def state_dict(self) -> dict[str, Any]:
        """The games, the samples of unfinished games and the search's random generators (the trees are
        not saved: each :meth:`play` rebuilds them)."""
        pending = {k: torch.from_numpy(np.stack(v) if v else self._empty(k)) for k, v in self.pending.items()}
        return {"states": torch.from_numpy(self.states.copy()), "moves": torch.from_numpy(self.moves.copy()),
                "pending": pending, "search_rng": self.search.get_rng_state()}

    def load_state_dict(self, state: dict[str, Any]) -> None:
        """Restore what :meth:`state_dict` returned (ValueError if it does not fit these games)."""
        r, B = self.rules, self.num_games
        states, moves = state["states"].numpy(), state["moves"].numpy()
        if states.shape != self.states.shape or moves.shape != (B,) or (moves < 0).any():
            raise ValueError(f"the checkpoint holds {len(states)} games of {states.shape[1:]} positions, "
                             f"the run plays {B} of ({r.state_size},)")
        for s in states:
            r.decode(s.copy())  # ValueError for a position play cannot reach
        pending = {k: state["pending"][k].numpy() for k in PENDING}
        n = len(pending["game"])
        if any(len(v) != n for v in pending.values()) or (n and not 0 <= pending["game"].min() <= pending["game"].max() < B):
            raise ValueError("the checkpoint's pending samples do not fit the run's games")
        self.states[:] = states
        self.moves[:] = moves
        self.pending = {k: list(v) for k, v in pending.items()}
        self.search.set_rng_state(state["search_rng"])
