"""Self-play PPO for Xodd and Yodd, readable top to bottom (CleanRL style).

    python -m agents.ppo --game xodd --board-size 7 --total-minutes 5 --run-dir runs/x7

Sections: arguments, the per-player advantage scheme, the opponent pool,
the trainer (rollout, update, evaluation, checkpoints), the agent that plays a
trained network, and the command line.

Self-play
    ``num_games`` games run in a batched :class:`~odd_env.OddBatch`. In each
    game slot the learner holds one seat, alternating colour game by game, so
    it plays Black and White equally. The other seat is the latest network
    (probability ``latest_prob``) or a snapshot drawn from the pool of past
    networks. Every step played by the latest network, on either seat, is a
    training sample; snapshot steps are not.

Credit assignment (one player may act twice in a row)
    Observations are mover-relative and the value head predicts the outcome
    for the player to act, so each player's samples form their own chain:
    a sample's successor is the same player's next decision in the same game,
    whatever the other player did in between. Per game and player, backwards:

    * the step that ends the game gets its actor's final reward and no
      bootstrap; the other player's last step in that game also gets its own
      final reward (of the opposite sign) and no bootstrap, even though the
      opponent moved after it;
    * any other step has reward 0 and bootstraps on the value of the same
      player's next decision: ``delta = gamma * V(next own state) - V(s)``,
      ``A = delta + gamma * lambda * A(next own step)``;
    * at the end of a rollout the player to act bootstraps on ``V(s_T)`` and
      the other player on ``-V(s_T)``: with ``gamma = 1`` (the default, an
      episodic zero-sum game) the other player's value of the same position
      is exactly the negation. This is the only place a value crosses to the
      other player, and its sign is flipped.

    :func:`per_player_advantages` implements this and is tested on a
    hand-made two-player trajectory.

Masking
    Illegal actions get the dtype's minimum logit when sampling and in the
    update (masks are stored in the rollout buffer); the entropy bonus is the
    entropy over legal actions only.
"""

from __future__ import annotations

import argparse
import ast
import copy
import csv
import inspect
import json
import math
import os
import random
import time
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from typing import Any

import numpy as np
import torch
from torch import nn

from odd_env import OddBatch
from odd_env.core import NUM_PLANES, OBSERVATION_VERSION, GameState
from odd_env.core.geometry import geometry as make_geometry

from .base import Agent
from .network import NetConfig, PolicyValueNet, masked_entropy, masked_logits

CHECKPOINT_FORMAT = 1


# =============================================================== arguments
@dataclass
class Args:
    """Training options; each field's docstring is its ``--help`` text."""

    game: str = "xodd"
    """the game: xodd or yodd"""
    board_size: int = 7
    """board size (Xodd side, Yodd base)"""
    seed: int = 1
    """seed of every random choice (runs repeat exactly on one machine)"""
    device: str = "cpu"
    """torch device: cpu or cuda"""
    threads: int = 1
    """torch CPU threads (more than the free cores makes small networks many times slower)"""
    total_steps: int = 2_000_000
    """stop after this many environment steps (all games together)"""
    total_minutes: float = 0.0
    """stop after this much wall-clock training time too (0: no limit)"""
    num_games: int = 128
    """games stepped together in the batched engine"""
    rollout_steps: int = 64
    """engine steps per rollout (samples: up to num_games x rollout_steps)"""
    channels: int = 64
    """channels of the residual trunk"""
    blocks: int = 4
    """residual blocks"""
    lr: float = 3e-4
    """Adam learning rate"""
    anneal_lr: bool = False
    """anneal the learning rate linearly to 0 over total_steps"""
    gamma: float = 1.0
    """discount (1.0: the episodic zero-sum setting the scheme is exact for)"""
    gae_lambda: float = 0.95
    """GAE lambda"""
    update_epochs: int = 4
    """passes over each rollout"""
    minibatch_size: int = 1024
    """samples per gradient step"""
    clip_coef: float = 0.2
    """PPO clip range"""
    ent_coef: float = 0.01
    """entropy bonus (over legal actions)"""
    vf_coef: float = 0.5
    """value loss weight"""
    max_grad_norm: float = 0.5
    """gradient clipping"""
    target_kl: float = 0.0
    """stop an update's epochs early above this KL (0: never)"""
    latest_prob: float = 0.5
    """probability that a new game's opponent is the latest network (else a snapshot)"""
    scripted_opponents: str = ""
    """comma-separated agent specs also used as opponents (e.g. greedy); empty: pure self-play"""
    scripted_prob: float = 0.0
    """probability that a new game's opponent is one of scripted_opponents (drawn first)"""
    snapshot_every: int = 10
    """updates between snapshots added to the opponent pool"""
    pool_size: int = 10
    """snapshots kept in the pool (oldest dropped)"""
    eval_every: int = 20
    """updates between evaluations (0: only at the end)"""
    eval_games: int = 100
    """evaluation games per opponent (half with each colour)"""
    eval_opponents: str = "random,greedy"
    """comma-separated agent specs to evaluate against (e.g. random,greedy,mcts:simulations=100)"""
    checkpoint_every: int = 20
    """updates between checkpoints"""
    milestones: str = ""
    """comma-separated training minutes at which to keep a checkpoint at-<m>min.pt (e.g. 5,15)"""
    run_dir: str = "runs/ppo"
    """directory of logs (CSV, TensorBoard) and checkpoints"""
    resume: bool = False
    """continue the run in run_dir from its last checkpoint"""
    tensorboard: bool = True
    """also write TensorBoard logs (needs the tensorboard package)"""
    progress: bool = True
    """show a progress bar"""


def _field_docs(cls: type) -> dict[str, str]:
    """Attribute docstrings of a dataclass (the string literal after each field)."""
    tree = ast.parse(inspect.getsource(cls))
    body = tree.body[0].body  # type: ignore[attr-defined]
    docs = {}
    for node, nxt in zip(body, body[1:]):
        if isinstance(node, ast.AnnAssign) and isinstance(nxt, ast.Expr) and isinstance(nxt.value, ast.Constant):
            docs[node.target.id] = str(nxt.value.value)  # type: ignore[attr-defined]
    return docs


def build_parser() -> argparse.ArgumentParser:
    """An argparse parser generated from :class:`Args` and its field docstrings."""
    parser = argparse.ArgumentParser(
        prog="python -m agents.ppo", description="Self-play PPO for Xodd and Yodd.",
        formatter_class=argparse.ArgumentDefaultsHelpFormatter,
    )
    docs = _field_docs(Args)
    for f in fields(Args):
        flag = "--" + f.name.replace("_", "-")
        if f.type in ("bool", bool):
            parser.add_argument(flag, default=f.default, action=argparse.BooleanOptionalAction, help=docs.get(f.name))
        else:
            kind = {"int": int, "float": float, "str": str}[f.type if isinstance(f.type, str) else f.type.__name__]
            parser.add_argument(flag, type=kind, default=f.default, help=docs.get(f.name))
    return parser


def parse_args(argv: list[str] | None = None) -> Args:
    """Parse the command line into :class:`Args`."""
    return Args(**vars(build_parser().parse_args(argv)))


# ================================================ per-player advantages
def per_player_advantages(
    values: np.ndarray,
    actors: np.ndarray,
    recorded: np.ndarray,
    terminated: np.ndarray,
    final_rewards: np.ndarray,
    last_values: np.ndarray,
    last_to_play: np.ndarray,
    gamma: float,
    lam: float,
) -> tuple[np.ndarray, np.ndarray]:
    """GAE per game and per player over a rollout (the scheme of the module docstring).

    All arrays are (T, B) over rollout steps and games: ``values`` V(s_t) from
    the actor's side, ``actors`` the player who acted (0/1), ``recorded``
    whether the step is a training sample, ``terminated`` whether it ended the
    game, ``final_rewards`` (T, B, 2) both players' rewards at such steps.
    ``last_values`` / ``last_to_play`` (B,) describe the position after the
    rollout. Returns advantages and returns (T, B), zero where not recorded.
    """
    T, B = values.shape
    adv = np.zeros((T, B), dtype=np.float32)
    next_value = np.zeros((B, 2), dtype=np.float32)
    next_adv = np.zeros((B, 2), dtype=np.float32)
    pending = np.zeros((B, 2), dtype=np.float32)  # final reward awaiting a player's last step
    has_pending = np.zeros((B, 2), dtype=bool)
    rows = np.arange(B)
    next_value[rows, last_to_play] = last_values
    next_value[rows, 1 - last_to_play] = -last_values
    for t in reversed(range(T)):
        p = actors[t]
        o = 1 - p
        end = terminated[t]
        # A game ended here: both chains restart; the other player's last step gets its reward.
        pending[end] = 0.0
        has_pending[end] = False
        pending[rows[end], o[end]] = final_rewards[t, end, o[end]]
        has_pending[rows[end], o[end]] = True
        own_pending = has_pending[rows, p]
        reward = np.where(end, final_rewards[t, rows, p], np.where(own_pending, pending[rows, p], 0.0))
        cut = end | own_pending
        delta = reward + np.where(cut, 0.0, gamma * next_value[rows, p]) - values[t]
        a = delta + np.where(cut, 0.0, gamma * lam * next_adv[rows, p])
        rec = recorded[t]
        adv[t] = np.where(rec, a, 0.0)
        # Unrecorded steps belong to a snapshot seat: they do not join the learner's chains.
        upd = rec | end
        next_value[rows[upd], p[upd]] = np.where(rec, values[t], 0.0)[upd]
        next_adv[rows[upd], p[upd]] = np.where(rec, a, 0.0)[upd]
        clear = rec & own_pending
        has_pending[rows[clear], p[clear]] = False
    returns = np.where(recorded, adv + values, 0.0).astype(np.float32)
    return adv, returns


# ========================================================= opponent pool
class OpponentPool:
    """Past snapshots of the network (CPU state dicts), oldest dropped first."""

    def __init__(self, config: NetConfig, size: int, device: torch.device):
        self.config, self.size, self.device = config, size, device
        self.snapshots: list[dict[str, torch.Tensor]] = []
        self._nets: dict[int, PolicyValueNet] = {}

    def add(self, net: nn.Module) -> None:
        """Store a copy of ``net``'s weights."""
        self.snapshots.append({k: v.detach().cpu().clone() for k, v in net.state_dict().items()})
        if len(self.snapshots) > self.size:
            self.snapshots.pop(0)
        self._nets.clear()

    def net(self, index: int) -> PolicyValueNet:
        """The snapshot ``index`` as a network in eval mode (built once)."""
        if index not in self._nets:
            net = PolicyValueNet(self.config).to(self.device)
            net.load_state_dict(self.snapshots[index])
            net.eval()
            self._nets[index] = net
        return self._nets[index]


# ============================================================== trainer
LATEST = -1
# Opponent ids: LATEST, a pool index (>= 0), or SCRIPTED - k for scripted agent k.
SCRIPTED = -2


class Trainer:
    """Everything a run holds: network, optimizer, engine, pool, counters and RNGs."""

    def __init__(self, args: Args):
        self.args = args
        g = make_geometry(args.game, args.board_size)
        self.geometry = g
        self.device = torch.device(args.device)
        if self.device.type == "cpu":
            torch.set_num_threads(max(1, args.threads))
        self.config = NetConfig(g.game, g.size, g.height, g.width, NUM_PLANES,
                                channels=args.channels, blocks=args.blocks)
        self._seed_everything(args.seed)
        self.net = PolicyValueNet(self.config).to(self.device)
        self.optimizer = torch.optim.Adam(self.net.parameters(), lr=args.lr, eps=1e-5)
        self.pool = OpponentPool(self.config, args.pool_size, self.device)
        self.engine = OddBatch(g.game, g.size, args.num_games)
        self.engine.reset()
        B = args.num_games
        self.learner_seat = (np.arange(B) % 2).astype(np.int64)
        self.opponent = np.full(B, LATEST, dtype=np.int64)
        import agents

        self.scripted = [agents.load(spec, seed=args.seed + i)
                         for i, spec in enumerate(s for s in args.scripted_opponents.split(",") if s)]
        if args.scripted_prob and not self.scripted:
            raise ValueError("scripted_prob > 0 needs scripted_opponents (e.g. --scripted-opponents greedy)")
        self.global_step = 0
        self.update = 0
        self.train_seconds = 0.0
        self.episodes = 0
        self.history: list[dict[str, float]] = []

    def _seed_everything(self, seed: int) -> None:
        random.seed(seed)
        np.random.seed(seed)
        torch.manual_seed(seed)
        self.np_rng = np.random.default_rng(seed)

    # ------------------------------------------------------------ rollout
    def _policy(self, net: nn.Module, obs: torch.Tensor, mask: torch.Tensor):
        logits, value = net(obs)
        logits = masked_logits(logits, mask)
        dist = torch.distributions.Categorical(logits=logits)
        action = dist.sample()
        return action, dist.log_prob(action), value

    @torch.no_grad()
    def collect(self) -> dict[str, Any]:
        """Play ``rollout_steps`` engine steps; return the buffer with advantages."""
        a, T, B = self.args, self.args.rollout_steps, self.args.num_games
        g = self.geometry
        obs_buf = np.zeros((T, B, NUM_PLANES, g.height, g.width), dtype=np.int8)
        mask_buf = np.zeros((T, B, g.num_actions), dtype=bool)
        act_buf = np.zeros((T, B), dtype=np.int64)
        logp_buf = np.zeros((T, B), dtype=np.float32)
        val_buf = np.zeros((T, B), dtype=np.float32)
        actor_buf = np.zeros((T, B), dtype=np.int64)
        rec_buf = np.zeros((T, B), dtype=bool)
        term_buf = np.zeros((T, B), dtype=bool)
        final_buf = np.zeros((T, B, 2), dtype=np.float32)
        out = self.engine.last  # the current observations and masks
        self.net.eval()
        wins: dict[str, list[float]] = {}
        for t in range(T):
            obs_np, mask_np = out.observation, out.action_mask.astype(bool)
            actors = out.to_play.astype(np.int64)
            obs_buf[t], mask_buf[t], actor_buf[t] = obs_np, mask_np, actors
            obs = torch.from_numpy(obs_np).to(self.device)
            mask = torch.from_numpy(mask_np).to(self.device)
            action, logp, value = self._policy(self.net, obs, mask)
            action, logp, value = action.cpu().numpy(), logp.cpu().numpy(), value.cpu().numpy()
            by_snapshot = (actors != self.learner_seat) & (self.opponent != LATEST)
            for idx in np.unique(self.opponent[by_snapshot]):
                sel = np.flatnonzero(by_snapshot & (self.opponent == idx))
                if idx <= SCRIPTED:
                    agent = self.scripted[SCRIPTED - int(idx)]
                    action[sel] = [agent.act(self.engine.game_state(int(b))) for b in sel]
                    continue
                snap_action, _, _ = self._policy(self.pool.net(int(idx)), obs[sel], mask[sel])
                action[sel] = snap_action.cpu().numpy()
            act_buf[t], logp_buf[t], val_buf[t] = action, logp, value
            rec_buf[t] = ~by_snapshot
            out = self.engine.step(action)
            term_buf[t] = out.terminated
            final_buf[t] = out.info["final_rewards"]
            for b in np.flatnonzero(out.terminated):
                seat = self.learner_seat[b]
                if self.opponent[b] != LATEST:
                    kind = "scripted" if self.opponent[b] <= SCRIPTED else "pool"
                    wins.setdefault(kind, []).append(float(out.info["final_rewards"][b, seat] > 0))
                self.learner_seat[b] = 1 - seat
                self.opponent[b] = self._draw_opponent()
                self.episodes += 1
        obs = torch.from_numpy(out.observation).to(self.device)
        _, last_values = self.net(obs)
        adv, ret = per_player_advantages(
            val_buf, actor_buf, rec_buf, term_buf, final_buf, last_values.cpu().numpy(),
            out.to_play.astype(np.int64), a.gamma, a.gae_lambda)
        self.global_step += T * B
        keep = rec_buf.reshape(-1)
        return {
            "obs": obs_buf.reshape(T * B, *obs_buf.shape[2:])[keep],
            "mask": mask_buf.reshape(T * B, -1)[keep],
            "action": act_buf.reshape(-1)[keep],
            "logp": logp_buf.reshape(-1)[keep],
            "value": val_buf.reshape(-1)[keep],
            "adv": adv.reshape(-1)[keep],
            "ret": ret.reshape(-1)[keep],
            "win_rate_vs_pool": float(np.mean(wins["pool"])) if "pool" in wins else float("nan"),
            "win_rate_vs_scripted": float(np.mean(wins["scripted"])) if "scripted" in wins else float("nan"),
        }

    def _draw_opponent(self) -> int:
        if self.scripted and self.np_rng.random() < self.args.scripted_prob:
            return SCRIPTED - int(self.np_rng.integers(len(self.scripted)))
        if not self.pool.snapshots or self.np_rng.random() < self.args.latest_prob:
            return LATEST
        return int(self.np_rng.integers(len(self.pool.snapshots)))

    # ------------------------------------------------------------- update
    def learn(self, batch: dict[str, Any]) -> dict[str, float]:
        """PPO epochs over one rollout; returns the update's metrics."""
        a = self.args
        if a.anneal_lr:
            frac = max(0.0, 1.0 - self.global_step / a.total_steps)
            self.optimizer.param_groups[0]["lr"] = frac * a.lr
        dev = self.device
        obs = torch.from_numpy(batch["obs"]).to(dev)
        mask = torch.from_numpy(batch["mask"]).to(dev)
        actions = torch.from_numpy(batch["action"]).to(dev)
        old_logp = torch.from_numpy(batch["logp"]).to(dev)
        old_values = torch.from_numpy(batch["value"]).to(dev)
        adv_all = torch.from_numpy(batch["adv"]).to(dev)
        returns = torch.from_numpy(batch["ret"]).to(dev)
        n = len(actions)
        self.net.train()
        stats: dict[str, list[float]] = {k: [] for k in ("policy_loss", "value_loss", "entropy", "approx_kl", "clipfrac")}
        for _ in range(a.update_epochs):
            perm = torch.randperm(n, device=dev)
            for start in range(0, n, a.minibatch_size):
                idx = perm[start : start + a.minibatch_size]
                logits, values = self.net(obs[idx])
                logits = masked_logits(logits, mask[idx])
                logp = torch.log_softmax(logits, dim=-1).gather(1, actions[idx, None]).squeeze(1)
                ratio = (logp - old_logp[idx]).exp()
                adv = adv_all[idx]
                adv = (adv - adv.mean()) / (adv.std() + 1e-8)
                pg_loss = torch.max(-adv * ratio, -adv * ratio.clamp(1 - a.clip_coef, 1 + a.clip_coef)).mean()
                v_loss = 0.5 * ((values - returns[idx]) ** 2).mean()
                entropy = masked_entropy(logits, mask[idx]).mean()
                loss = pg_loss + a.vf_coef * v_loss - a.ent_coef * entropy
                self.optimizer.zero_grad()
                loss.backward()
                nn.utils.clip_grad_norm_(self.net.parameters(), a.max_grad_norm)
                self.optimizer.step()
                with torch.no_grad():
                    log_ratio = logp - old_logp[idx]
                    stats["approx_kl"].append(float(((log_ratio.exp() - 1) - log_ratio).mean()))
                    stats["clipfrac"].append(float(((ratio - 1).abs() > a.clip_coef).float().mean()))
                stats["policy_loss"].append(pg_loss.item())
                stats["value_loss"].append(v_loss.item())
                stats["entropy"].append(entropy.item())
            if a.target_kl and np.mean(stats["approx_kl"][-max(1, n // a.minibatch_size):]) > a.target_kl:
                break
        var = float(returns.var())
        explained = float("nan") if var == 0 else 1 - float((returns - old_values).var()) / var
        self.update += 1
        out = {k: float(np.mean(v)) for k, v in stats.items()}
        out.update(explained_variance=explained, samples=float(n), lr=self.optimizer.param_groups[0]["lr"])
        return out

    # --------------------------------------------------------- evaluation
    def evaluate(self, games: int | None = None, progress: bool = False) -> dict[str, float]:
        """Win rate of the current network (greedy policy) against each evaluation opponent, with the arena."""
        from .arena import round_robin

        games = games or self.args.eval_games
        games += games % 2
        player = PPOAgent(network=copy.deepcopy(self.net).cpu(), greedy=True)
        results = {}
        for spec in [s for s in self.args.eval_opponents.split(",") if s]:
            res = round_robin([player, spec], self.args.game, self.args.board_size, games_per_pair=games,
                              seed=self.args.seed + self.update, progress=progress, labels=["ppo", spec])
            rate, _, _, _ = res.win_rate(0, 1)
            results[f"win_rate/{spec}"] = float(rate)
        return results

    # -------------------------------------------------------- checkpoints
    def checkpoint(self) -> dict[str, Any]:
        """Everything needed to rebuild the agent and resume the run exactly."""
        return {
            "format": CHECKPOINT_FORMAT,
            "kind": "odd_env-ppo",
            "game": self.geometry.game,
            "board_size": self.geometry.size,
            "observation_version": OBSERVATION_VERSION,
            "net_config": self.config.to_dict(),
            "args": asdict(self.args),
            "global_step": self.global_step,
            "update": self.update,
            "episodes": self.episodes,
            "train_seconds": self.train_seconds,
            "model": self.net.state_dict(),
            "optimizer": self.optimizer.state_dict(),
            "pool": self.pool.snapshots,
            "engine_states": self.engine.get_states(),
            "learner_seat": self.learner_seat.copy(),
            "opponent": self.opponent.copy(),
            "scripted": self.scripted,  # agents with their RNGs and any turn in progress
            "rng": {
                "python": random.getstate(),
                "numpy_global": np.random.get_state(),
                "numpy": self.np_rng.bit_generator.state,
                "torch": torch.get_rng_state(),
                "cuda": torch.cuda.get_rng_state_all() if torch.cuda.is_available() else None,
            },
        }

    def save(self, path: str | os.PathLike) -> Path:
        """Write the checkpoint atomically (a killed run never leaves a half-written file)."""
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(".tmp")
        torch.save(self.checkpoint(), tmp)
        os.replace(tmp, path)
        return path

    def restore(self, ckpt: dict[str, Any]) -> None:
        """Continue from a checkpoint made by :meth:`checkpoint` for the same game and size."""
        check_checkpoint(ckpt, game=self.geometry.game, board_size=self.geometry.size)
        if ckpt["net_config"] != self.config.to_dict():
            raise ValueError(f"checkpoint network {ckpt['net_config']} differs from the run's {self.config.to_dict()}")
        self.net.load_state_dict(ckpt["model"])
        self.optimizer.load_state_dict(ckpt["optimizer"])
        self.pool.snapshots = list(ckpt["pool"])
        self.pool._nets.clear()
        self.engine.set_states(ckpt["engine_states"])
        self.learner_seat[:] = ckpt["learner_seat"]
        self.opponent[:] = ckpt["opponent"]
        if len(ckpt.get("scripted", [])) != len(self.scripted):
            raise ValueError("checkpoint has different scripted opponents than the run's --scripted-opponents")
        self.scripted = list(ckpt.get("scripted", []))
        self.global_step, self.update = ckpt["global_step"], ckpt["update"]
        self.episodes, self.train_seconds = ckpt["episodes"], ckpt["train_seconds"]
        rng = ckpt["rng"]
        random.setstate(rng["python"])
        np.random.set_state(rng["numpy_global"])
        self.np_rng.bit_generator.state = rng["numpy"]
        torch.set_rng_state(rng["torch"])
        if rng.get("cuda") is not None and torch.cuda.is_available():
            torch.cuda.set_rng_state_all(rng["cuda"])


def check_checkpoint(ckpt: Any, game: str | None = None, board_size: int | None = None) -> None:
    """Raise ValueError saying what is wrong if ``ckpt`` is not a usable PPO checkpoint."""
    if not isinstance(ckpt, dict) or ckpt.get("kind") != "odd_env-ppo":
        raise ValueError("not an odd_env PPO checkpoint (expected a dict with kind='odd_env-ppo')")
    missing = [k for k in ("format", "game", "board_size", "observation_version", "net_config", "model") if k not in ckpt]
    if missing:
        raise ValueError(f"checkpoint is missing {missing}")
    if ckpt["format"] != CHECKPOINT_FORMAT:
        raise ValueError(f"checkpoint format {ckpt['format']} is not supported (this version reads {CHECKPOINT_FORMAT})")
    if ckpt["observation_version"] != OBSERVATION_VERSION:
        raise ValueError(f"checkpoint was trained on observation version {ckpt['observation_version']}, "
                         f"this odd_env produces version {OBSERVATION_VERSION}")
    if game is not None and (ckpt["game"], ckpt["board_size"]) != (game, board_size):
        raise ValueError(f"checkpoint is for {ckpt['game']} {ckpt['board_size']}, not {game} {board_size}")


def load_checkpoint(path: str | os.PathLike, map_location: str = "cpu") -> dict[str, Any]:
    """Read and validate a checkpoint file; clear errors for missing, corrupt or foreign files."""
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"no checkpoint at {path}")
    try:
        ckpt = torch.load(path, map_location=map_location, weights_only=False)
    except Exception as err:  # torch raises several types for damaged files
        raise ValueError(f"checkpoint {path} is corrupt or not a torch file: {err}") from err
    check_checkpoint(ckpt)
    return ckpt


# ============================================================ the agent
class PPOAgent(Agent):
    """A trained network as a player: ``agents.load("ppo", path="run/last.pt")``.

    ``greedy=True`` plays the most probable legal action; otherwise it samples
    from the masked policy with the agent's seed.
    """

    name = "ppo"

    def __init__(self, path: str | None = None, network: PolicyValueNet | None = None,
                 greedy: bool = True, seed: int | None = None, device: str = "cpu"):
        super().__init__(seed=seed)
        if (path is None) == (network is None):
            raise ValueError("give exactly one of path= (a checkpoint) or network=")
        if path is not None:
            ckpt = load_checkpoint(path)
            network = PolicyValueNet(NetConfig(**ckpt["net_config"]))
            network.load_state_dict(ckpt["model"])
        self.path = path
        self.network = network.to(device).eval()
        self.greedy = greedy
        self.device = torch.device(device)
        cfg = self.network.config
        self.geometry = make_geometry(cfg.game, cfg.board_size)

    @torch.no_grad()
    def policy_value(self, state: GameState) -> tuple[np.ndarray, float]:
        """Masked action probabilities and the value for the player to act."""
        if state.geometry is not self.geometry:
            raise ValueError(f"this network plays {self.geometry.game} {self.geometry.size}, "
                             f"not {state.geometry.game} {state.geometry.size}")
        obs = torch.from_numpy(state.observation()[None]).to(self.device)
        mask = torch.from_numpy(state.legal_action_mask()[None].astype(bool)).to(self.device)
        logits, value = self.network(obs)
        probs = torch.softmax(masked_logits(logits, mask), dim=-1)[0]
        return probs.cpu().numpy(), float(value[0])

    def act(self, state: GameState) -> int:
        """The network's move for the player to act."""
        probs, _ = self.policy_value(state)
        if self.greedy:
            return int(np.argmax(probs))
        return int(self.rng.choice(len(probs), p=probs / probs.sum()))

    @property
    def options(self) -> dict[str, Any]:
        """Options that rebuild this agent."""
        return {"path": self.path, "greedy": self.greedy, "seed": self.seed}

    def __getstate__(self):
        state = self.__dict__.copy()
        state["network"] = (self.network.config, {k: v.cpu() for k, v in self.network.state_dict().items()})
        return state

    def __setstate__(self, state):
        # Unpickled in an arena worker process: one thread per process plays
        # single positions fastest and never oversubscribes the cores.
        torch.set_num_threads(1)
        config, weights = state["network"]
        net = PolicyValueNet(config)
        net.load_state_dict(weights)
        state["network"] = net.eval()
        self.__dict__.update(state)


# ============================================================ main loop
class RunLog:
    """Every metric to a CSV file (one row per update) and to TensorBoard."""

    def __init__(self, run_dir: Path, tensorboard: bool, resume: bool):
        self.path = run_dir / "metrics.csv"
        self.rows: list[dict[str, float]] = []
        if resume and self.path.exists():
            with open(self.path) as f:
                self.rows = [{k: float(v) if v != "" else float("nan") for k, v in r.items()} for r in csv.DictReader(f)]
        self.writer = None
        if tensorboard:
            try:
                from torch.utils.tensorboard import SummaryWriter

                self.writer = SummaryWriter(str(run_dir / "tb"))
            except ImportError:
                print("tensorboard not installed: logging to CSV only (pip install tensorboard)")

    def log(self, step: int, metrics: dict[str, float]) -> None:
        """Append one row and write the CSV."""
        self.rows.append({"global_step": float(step), **metrics})
        keys: list[str] = []
        for r in self.rows:
            keys += [k for k in r if k not in keys]
        with open(self.path, "w", newline="") as f:
            w = csv.DictWriter(f, fieldnames=keys)
            w.writeheader()
            w.writerows(self.rows)
        if self.writer is not None:
            for k, v in metrics.items():
                if not math.isnan(v):
                    self.writer.add_scalar(k, v, step)
            self.writer.flush()


def train(args: Args) -> Trainer:
    """Run (or resume) training as ``args`` says; returns the trainer at the end."""
    run_dir = Path(args.run_dir)
    run_dir.mkdir(parents=True, exist_ok=True)
    trainer = Trainer(args)
    last = run_dir / "last.pt"
    if args.resume:
        if not last.exists():
            raise FileNotFoundError(f"--resume: no checkpoint at {last}")
        trainer.restore(load_checkpoint(last, map_location=args.device))
    (run_dir / "args.json").write_text(json.dumps(asdict(args), indent=2))
    log = RunLog(run_dir, args.tensorboard, args.resume)
    bar = None
    if args.progress:
        from tqdm import tqdm

        bar = tqdm(total=args.total_steps, initial=trainer.global_step, unit="step", dynamic_ncols=True)
    latest_eval: dict[str, float] = {}
    milestones = sorted(m for m in (float(x) for x in args.milestones.split(",") if x.strip())
                        if 60 * m > trainer.train_seconds)
    while trainer.global_step < args.total_steps and (
            not args.total_minutes or trainer.train_seconds < 60 * args.total_minutes):
        t0 = time.perf_counter()
        batch = trainer.collect()
        t1 = time.perf_counter()
        metrics = trainer.learn(batch)
        t2 = time.perf_counter()
        trainer.train_seconds += t2 - t0
        if trainer.update % args.snapshot_every == 0:
            trainer.pool.add(trainer.net)
        metrics.update(win_rate_vs_pool=batch["win_rate_vs_pool"],
                       win_rate_vs_scripted=batch["win_rate_vs_scripted"], rollout_seconds=t1 - t0,
                       update_seconds=t2 - t1, steps_per_second=args.rollout_steps * args.num_games / (t2 - t0),
                       train_minutes=trainer.train_seconds / 60, episodes=float(trainer.episodes))
        done = trainer.global_step >= args.total_steps or (
            args.total_minutes and trainer.train_seconds >= 60 * args.total_minutes)
        if (args.eval_every and trainer.update % args.eval_every == 0) or done:
            latest_eval = trainer.evaluate()
            metrics.update(latest_eval)
        log.log(trainer.global_step, metrics)
        if trainer.update % args.checkpoint_every == 0 or done:
            trainer.save(last)
        while milestones and trainer.train_seconds >= 60 * milestones[0]:
            trainer.save(run_dir / f"at-{milestones.pop(0):g}min.pt")
        if bar is not None:
            bar.update(args.rollout_steps * args.num_games)
            bar.set_postfix({k.split("/")[-1]: f"{v:.2f}" for k, v in latest_eval.items()}
                            | {"ent": f"{metrics['entropy']:.2f}"})
    if bar is not None:
        bar.close()
    trainer.save(last)
    return trainer


def main(argv: list[str] | None = None) -> None:
    """Command-line entry point."""
    train(parse_args(argv))


if __name__ == "__main__":
    main()
