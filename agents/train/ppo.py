"""Self-play PPO for Xodd, Yodd and YINSH, readable top to bottom (CleanRL style).

    python -m agents.ppo --game xodd --board-size 7 --total-minutes 5 --run-dir runs/x7

Sections: arguments (and their checks), the per-player advantage scheme, the
opponent pool, the trainer (rollout, update, evaluation, checkpoints), the
agent that plays a trained network, and the run (logs, progress, command line).

Self-play
    ``num_games`` games run in the game's batched engine (:class:`~odd_env.OddBatch`,
    :class:`~odd_env.YinshBatch` for YINSH). In each
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

Symmetry augmentation (``--augment``)
    The rules see only adjacency and lines, so a rotated or reflected
    position has the same value and the mapped legal actions
    (:mod:`odd_env.symmetry`). With ``--augment`` every sample of a rollout is
    replaced, before the update, by its image under a symmetry drawn at random
    (:meth:`Trainer.augment`); the network then sees every orientation of
    the positions it plays. Off by default.

Masking
    Illegal actions get the dtype's minimum logit when sampling and in the
    update (masks are stored in the rollout buffer); the entropy bonus is the
    entropy over legal actions only.

Checkpoints and resume
    ``last.pt`` (every ``checkpoint_every`` updates and at the end) is a file of
    :mod:`agents.train.checkpoint`: tensors and plain values only, checksummed. It
    holds the network, the optimizer, the snapshot pool, the engine's games,
    the seats and opponents of every game slot, each scripted opponent as its
    spec and :meth:`~agents.base.Agent.get_state`, and every random
    generator, so that ``--resume`` continues exactly as the uninterrupted
    run would (same machine, same flags; networks are built without drawing
    from torch's generator, so the snapshot networks rebuilt after a resume
    draw nothing). ``metrics.csv`` is cut back to the checkpoint's step.
"""

from __future__ import annotations

import contextlib
import copy
import io
import csv
import json
import math
import os
import random
import shutil
import sys
import time
from dataclasses import asdict
from pathlib import Path
from typing import Any

import numpy as np
import torch
from torch import nn

from odd_env._files import JOURNAL_LIMIT, check_can_make_dir, lock_dir, read_text, report_os_error, unlock_dir, write_atomic
from odd_env.game import Game
from odd_env import map_batch, symmetries as board_symmetries

from . import checkpoint as ckpt_io
from ..registry import load as load_agent
from ..registry import split_specs
from ..base import Agent, check_board, check_int
from .network import NetConfig, PolicyValueNet, check_device, masked_entropy, masked_logits
from ..players.network_player import PPOAgent, torch_threads  # noqa: F401 (PPOAgent: agents.train.ppo.PPOAgent too)
from .ppo_args import (  # noqa: F401 (MUTABLE_ON_RESUME: agents.train.ppo's too)
    MUTABLE_ON_RESUME, Args, _resume_conflicts, build_parser, game_of, no_checkpoint, parse_args, parse_milestones,
    saved_args,
    validate_args,
)


CHECKPOINT_FORMAT = ckpt_io.FORMAT


def init_weights(net: PolicyValueNet, source: str) -> tuple[str, list[str]]:
    """Copy the weights of network ``source`` (a checkpoint path or a pretrained name) into ``net``.

    ``source`` must play the same game and variant with the same channels and
    blocks; its board size may differ, since the trunk, the policy and pass heads
    and the value head's convolution do not depend on it. Weights whose shape
    differs (only the value head's hidden layer, when the boards differ) keep
    ``net``'s own, bias included. Returns the source file's sha256 and their
    names. ValueError (``net`` unchanged) if ``source`` does not fit;
    FileNotFoundError if it is neither a file nor a pretrained name.
    """
    from ..pretrained import network_file

    try:
        path = network_file(source)
    except FileNotFoundError as err:
        raise FileNotFoundError(f"--init-from {err}") from err
    ckpt = ckpt_io.load(path)  # read once: the digest is that of the weights copied
    src = ckpt_io.network_of(ckpt, path)
    digest = ckpt["sha256"]
    mine, theirs = net.config, src.config
    if (theirs.game, theirs.variant) != (mine.game, mine.variant):
        raise ValueError(f"--init-from {source}: its network plays {theirs.game} {theirs.variant}".rstrip()
                         + f", this run {mine.game} {mine.variant}".rstrip())
    if (theirs.channels, theirs.blocks, theirs.value_hidden) != (mine.channels, mine.blocks, mine.value_hidden):
        raise ValueError(f"--init-from {source}: its network has {theirs.channels} channels x {theirs.blocks} blocks, "
                         f"this run {mine.channels} x {mine.blocks}: give --channels {theirs.channels} "
                         f"--blocks {theirs.blocks}")
    own = net.state_dict()
    layers = {k.rsplit(".", 1)[0] for k, v in src.state_dict().items() if own[k].shape != v.shape}
    fresh = [k for k in own if k.rsplit(".", 1)[0] in layers]  # a misfit layer starts fresh whole (bias too)
    with torch.no_grad():
        for k, v in src.state_dict().items():
            if k not in fresh:
                own[k].copy_(v)
    return digest, fresh


def eval_opponents(text: str, game: Game) -> str:
    """``--eval-opponents`` with ``auto`` resolved for ``game``: random and greedy where greedy
    can play (Xodd and Yodd), else random alone (YINSH); other text unchanged."""
    if text.strip() != "auto":
        return text
    from ..players.greedy import GreedyAgent

    return "random" if GreedyAgent().cannot_play(game) else "random,greedy"


def build_agents(text: str, game: Game, what: str, seed: int | None = None) -> list[tuple[str, Agent]]:
    """(spec, agent) for each spec of a comma-separated list, checked to play ``game``.

    Agent ``i`` gets ``seed + i`` when ``seed`` is given. Raises ValueError
    naming the option ``what`` and the spec for an unknown agent, a bad
    option, a missing checkpoint or a network for another board.
    """
    out = []
    for i, spec in enumerate(split_specs(text)):
        try:
            agent = load_agent(spec) if seed is None else load_agent(spec, seed=seed + i)
        except (ValueError, FileNotFoundError) as err:
            raise ValueError(f"{what}: agent {spec!r}: {err}") from err
        try:
            check_board(agent, game, spec)
        except ValueError as err:
            raise ValueError(f"{what}: {err}") from err
        out.append((spec, agent))
    return out


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
        """The snapshot ``index`` as a network in eval mode (built once, drawing nothing
        from torch's random generator: a resumed run rebuilds these networks at other
        moments than the uninterrupted run built them)."""
        if index not in self._nets:
            net = PolicyValueNet.from_weights(self.config, self.snapshots[index])
            self._nets[index] = net.to(self.device).eval()
        return self._nets[index]


# ============================================================== trainer
LATEST = -1
# Opponent ids: LATEST, a pool index (>= 0), or SCRIPTED - k for scripted agent k.
SCRIPTED = -2


class Trainer:
    """Everything a run holds: network, optimizer, engine, pool, counters and RNGs."""

    def __init__(self, args: Args):
        if not isinstance(args, Args):
            raise ValueError(f"Trainer takes an agents.train.ppo.Args (e.g. Args(game='xodd', board_size=9)), "
                             f"got {type(args).__name__}")
        validate_args(args)
        self.args = args
        G = game_of(args)
        self.game = G
        # Agents first: a bad spec fails before anything is allocated or seeded.
        scripted = build_agents(args.scripted_opponents, G, "--scripted-opponents", seed=args.seed)
        self.scripted_specs = [spec for spec, _ in scripted]
        self.scripted = [agent for _, agent in scripted]
        self.eval_agents = build_agents(eval_opponents(args.eval_opponents, G), G, "--eval-opponents")
        self.device = check_device(args.device, "--device")
        # The process-wide settings this changes are put back if it fails (a bad --init-from, say).
        saved = (random.getstate(), np.random.get_state(), torch.get_rng_state(), torch.get_num_threads())
        try:
            if self.device.type == "cpu":
                torch.set_num_threads(args.threads)
            self.config = NetConfig.for_game(G, channels=args.channels, blocks=args.blocks)
            self._seed_everything(args.seed)
            self.net = PolicyValueNet(self.config).to(self.device)
            self.init_sha256 = ""
            if args.init_from and not args.resume:  # (a resumed run's weights come from its checkpoint)
                self.init_sha256, _ = init_weights(self.net, args.init_from)
        except BaseException:
            random.setstate(saved[0])
            np.random.set_state(saved[1])
            torch.set_rng_state(saved[2])
            torch.set_num_threads(saved[3])
            raise
        self.optimizer = torch.optim.Adam(self.net.parameters(), lr=args.lr, eps=1e-5)
        self.pool = OpponentPool(self.config, args.pool_size, self.device)
        self.engine = G.new_batch(args.num_games)
        self.engine.reset()
        B = args.num_games
        self.learner_seat = (np.arange(B) % 2).astype(np.int64)
        self.opponent = np.full(B, LATEST, dtype=np.int64)
        self.global_step = 0
        self.update = 0
        self.train_seconds = 0.0
        self.episodes = 0

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
    def collect(self, deadline: float | None = None) -> dict[str, Any]:
        """Play ``rollout_steps`` engine steps; return the buffer with advantages.

        ``deadline`` (a :func:`time.perf_counter` time): stop stepping when it has passed (after at
        least one step), so that a time limit is not overshot by a whole rollout; the batch is then shorter.
        """
        a, T, B = self.args, self.args.rollout_steps, self.args.num_games
        G = self.game
        obs_buf = np.zeros((T, B, *G.observation_shape), dtype=np.int8)
        mask_buf = np.zeros((T, B, G.num_actions), dtype=bool)
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
            if deadline is not None and t and time.perf_counter() >= deadline:
                T = t
                obs_buf, mask_buf, act_buf, logp_buf, val_buf = (x[:T] for x in (obs_buf, mask_buf, act_buf,
                                                                                  logp_buf, val_buf))
                actor_buf, rec_buf, term_buf, final_buf = (x[:T] for x in (actor_buf, rec_buf, term_buf, final_buf))
                break
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
            "steps": T * B,
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
    @torch.no_grad()
    def augment(self, batch: dict[str, Any]) -> dict[str, Any]:
        """The rollout ``batch`` with each sample's observation, mask and action replaced by
        their image under a board symmetry drawn from the trainer's generator.

        The old log-probabilities and values are recomputed on the new
        observations with the current network, which has not changed since the
        rollout: they are the old policy's probability of the mapped action and
        its value of the mapped position. Advantages and returns carry over, since
        symmetric positions have the same value.
        """
        group = board_symmetries(self.game)
        which = self.np_rng.integers(len(group), size=len(batch["action"]))
        obs, mask, action = map_batch(group, which, batch["obs"], batch["mask"], batch["action"])
        logp = np.empty(len(action), dtype=np.float32)
        value = np.empty(len(action), dtype=np.float32)
        self.net.eval()
        step = self.args.minibatch_size
        for start in range(0, len(action), step):
            part = slice(start, start + step)
            logits, v = self.net(torch.from_numpy(obs[part]).to(self.device))
            logits = masked_logits(logits, torch.from_numpy(mask[part]).to(self.device))
            picked = torch.from_numpy(action[part]).to(self.device)[:, None]
            logp[part] = torch.log_softmax(logits, dim=-1).gather(1, picked).squeeze(1).cpu().numpy()
            value[part] = v.cpu().numpy()
        return {**batch, "obs": obs, "mask": mask, "action": action, "logp": logp, "value": value}

    def learn(self, batch: dict[str, Any], deadline: float | None = None) -> dict[str, float]:
        """PPO epochs over one rollout (first mapped by :meth:`augment` with ``augment``);
        returns the update's metrics. ``deadline`` (a :func:`time.perf_counter` time): no
        minibatch starts after it (one always runs)."""
        a = self.args
        if a.augment:
            batch = self.augment(batch)
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
        # Nearly equal minibatches (sizes differ by at most one) rather than slices of minibatch_size
        # and a remainder: a remainder of one sample has no standard deviation, and its NaN
        # advantages destroyed the network (seen on YINSH, where the sample count varies).
        chunks = max(1, round(n / a.minibatch_size))
        late = False
        for _ in range(a.update_epochs):
            perm = torch.randperm(n, device=dev)
            for idx in torch.tensor_split(perm, chunks):
                if deadline is not None and stats["policy_loss"] and time.perf_counter() >= deadline:
                    late = True
                    break
                logits, values = self.net(obs[idx])
                logits = masked_logits(logits, mask[idx])
                logp = torch.log_softmax(logits, dim=-1).gather(1, actions[idx, None]).squeeze(1)
                ratio = (logp - old_logp[idx]).exp()
                adv = adv_all[idx]
                adv = (adv - adv.mean()) / (adv.std() + 1e-8) if len(adv) > 1 else adv - adv.mean()
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
            if late:
                break
            if a.target_kl and np.mean(stats["approx_kl"][-chunks:]) > a.target_kl:
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
        from ..arena import round_robin

        games = self.args.eval_games if games is None else check_int("evaluate games", games, 2)
        if games % 2:
            raise ValueError(f"evaluate games must be even (half with each colour), got {games}")
        # The evaluation plays on the CPU with --threads torch threads, also when training on a GPU
        # (torch's default there, every core, crowds a machine shared with other processes).
        player = PPOAgent(network=copy.deepcopy(self.net).cpu(), greedy=True, threads=self.args.threads)
        results = {}
        for spec, agent in self.eval_agents:
            res = round_robin([player, agent], self.game, games_per_pair=games,
                              seed=self.args.seed + self.update, progress=progress, labels=["ppo", spec])
            rate, _, _, _ = res.win_rate(0, 1)
            results[f"win_rate/{spec}"] = float(rate)
        return results

    # -------------------------------------------------------- checkpoints
    def checkpoint(self) -> tuple[dict[str, Any], dict[str, Any]]:
        """(metadata, data) of a checkpoint: everything needed to rebuild the agent and resume exactly."""
        metadata = {
            "kind": ckpt_io.PPO_KIND,
            "game": self.game.name,
            "board_size": self.game.size,
            "variant": self.game.variant,
            "observation_version": self.game.observation_version,
            "net_config": self.config.to_dict(),
            "args": asdict(self.args),
            "global_step": self.global_step,
            "update": self.update,
            "episodes": self.episodes,
            "train_seconds": self.train_seconds,
            "torch_version": torch.__version__,
            **({"init_sha256": self.init_sha256} if self.init_sha256 else {}),
        }
        data = {
            "model": dict(self.net.state_dict()),
            "optimizer": self.optimizer.state_dict(),
            "pool": self.pool.snapshots,
            "engine_states": self.engine.get_states(),
            "learner_seat": self.learner_seat.copy(),
            "opponent": self.opponent.copy(),
            "scripted": [{"spec": spec, "state": agent.get_state()}
                         for spec, agent in zip(self.scripted_specs, self.scripted)],
            "rng": _rng_data(random.getstate(), np.random.get_state(), self.np_rng.bit_generator.state,
                             torch.get_rng_state(),
                             torch.cuda.get_rng_state_all() if torch.cuda.is_available() else None),
        }
        return metadata, data

    def save(self, path: str | os.PathLike) -> Path:
        """Write the checkpoint atomically (a killed run never leaves a half-written file)."""
        return ckpt_io.save(path, *self.checkpoint())

    def restore(self, ckpt: dict[str, Any]) -> None:
        """Continue from a checkpoint (as :func:`load_checkpoint` returns it) of a run with these arguments.

        Raises ValueError saying what does not fit, and then the trainer is as
        it was (network, optimizer, games, pool, counters and every random
        generator). A new ``lr`` (allowed on resume) replaces the saved one
        from the next update.
        """
        before = self._state()
        try:
            self._restore(ckpt)
        except BaseException as err:
            self._set_state(before)
            if isinstance(err, (KeyError, IndexError, TypeError, RuntimeError)):
                raise ValueError(f"cannot resume from this checkpoint: {type(err).__name__}: {err}") from err
            raise

    def _state(self) -> dict[str, Any]:
        """A copy of everything :meth:`restore` changes, for :meth:`_set_state` to put back."""
        return {
            "net": copy.deepcopy(self.net.state_dict()), "optimizer": copy.deepcopy(self.optimizer.state_dict()),
            "engine": self.engine.get_states(), "pool": [dict(s) for s in self.pool.snapshots],
            "seats": self.learner_seat.copy(), "opponent": self.opponent.copy(),
            "scripted": [agent.get_state() for agent in self.scripted],
            "counters": (self.global_step, self.update, self.episodes, self.train_seconds, self.init_sha256),
            "rng": (random.getstate(), np.random.get_state(), self.np_rng.bit_generator.state, torch.get_rng_state(),
                    torch.cuda.get_rng_state_all() if torch.cuda.is_available() else None),
        }

    def _set_state(self, state: dict[str, Any]) -> None:
        self.net.load_state_dict(state["net"])
        self.optimizer.load_state_dict(state["optimizer"])
        self.engine.set_states(state["engine"])
        self.pool.snapshots = state["pool"]
        self.pool._nets.clear()
        self.learner_seat[:] = state["seats"]
        self.opponent[:] = state["opponent"]
        for agent, saved in zip(self.scripted, state["scripted"]):
            agent.set_state(saved)
        self.global_step, self.update, self.episodes, self.train_seconds, self.init_sha256 = state["counters"]
        py, npg, npr, tr, cuda = state["rng"]
        random.setstate(py)
        np.random.set_state(npg)
        self.np_rng.bit_generator.state = npr
        torch.set_rng_state(tr)
        if cuda is not None:
            torch.cuda.set_rng_state_all(cuda)

    def _restore(self, ckpt: dict[str, Any]) -> None:
        ckpt_io.check_metadata(ckpt, self.game.name, self.game.size)
        if ckpt["kind"] != ckpt_io.PPO_KIND:
            raise ValueError(f"a {ckpt['kind']!r} checkpoint holds no PPO run to resume")
        if ckpt["net_config"] != self.config.to_dict():
            raise ValueError(f"checkpoint network {ckpt['net_config']} differs from the run's {self.config.to_dict()}")
        missing = [k for k in ("model", "optimizer", "pool", "engine_states", "learner_seat", "opponent",
                               "scripted", "rng", "args", "global_step", "update", "episodes", "train_seconds")
                   if k not in ckpt]
        if missing:
            raise ValueError(f"the checkpoint lacks {missing} (it holds a network, not a run to resume)")
        specs = [entry["spec"] for entry in ckpt["scripted"]]
        if specs != self.scripted_specs:
            raise ValueError(f"checkpoint has scripted opponents {specs}, the run has {self.scripted_specs}")
        B = self.args.num_games
        seats, opponent = ckpt["learner_seat"].numpy(), ckpt["opponent"].numpy()
        pool = list(ckpt["pool"])
        if seats.shape != (B,) or not np.isin(seats, (0, 1)).all():
            raise ValueError(f"learner_seat must be {B} seats of 0 or 1")
        valid = (opponent == LATEST) | ((opponent >= 0) & (opponent < len(pool))) | (
            (opponent <= SCRIPTED) & (opponent > SCRIPTED - len(specs)))
        if opponent.shape != (B,) or not valid.all():
            raise ValueError(f"opponent must be {B} ids of the latest network, a pool snapshot or a scripted agent")
        if len(pool) > self.args.pool_size:
            raise ValueError(f"the pool holds {len(pool)} snapshots, more than pool_size {self.args.pool_size}")
        shapes = {k: v.shape for k, v in ckpt["model"].items()}
        for i, snap in enumerate(pool):
            if {k: v.shape for k, v in snap.items()} != shapes:
                raise ValueError(f"pool snapshot {i} does not fit the network")
        counters = {k: ckpt[k] for k in ("global_step", "update", "episodes")}
        if not all(isinstance(v, int) and v >= 0 for v in counters.values()):
            raise ValueError(f"bad counters {counters}")
        seconds = ckpt["train_seconds"]
        if isinstance(seconds, bool) or not isinstance(seconds, (int, float)) or not 0 <= seconds < math.inf:
            raise ValueError(f"train_seconds must be a finite number >= 0, got {seconds!r}")
        conflict = _resume_conflicts(asdict(self.args), saved_args(ckpt))  # what prepare_run checks, for API users
        if conflict:
            raise ValueError(conflict)
        self.engine.set_states(ckpt["engine_states"].numpy())  # validates every game's state
        self.net.load_state_dict(ckpt["model"])
        groups = [dict(g, betas=tuple(g["betas"])) for g in ckpt["optimizer"]["param_groups"]]  # stored as lists
        self.optimizer.load_state_dict(dict(ckpt["optimizer"], param_groups=groups))
        if self.args.lr != ckpt["args"]["lr"]:
            for group in self.optimizer.param_groups:
                group["lr"] = self.args.lr
        self.pool.snapshots = [dict(snap) for snap in pool]
        self.pool._nets.clear()
        self.learner_seat[:] = seats
        self.opponent[:] = opponent
        for entry, agent in zip(ckpt["scripted"], self.scripted):
            agent.set_state(entry["state"])
        self.global_step, self.update, self.episodes = counters["global_step"], counters["update"], counters["episodes"]
        self.train_seconds = float(ckpt["train_seconds"])
        self.init_sha256 = str(ckpt.get("init_sha256", ""))
        rng = ckpt["rng"]
        python = rng["python"]
        random.setstate((python["version"], tuple(python["words"].tolist()), python["gauss"]))
        numpy_global = rng["numpy_global"]
        np.random.set_state(dict(numpy_global, state=dict(
            numpy_global["state"], key=numpy_global["state"]["key"].numpy().astype(np.uint32))))
        self.np_rng.bit_generator.state = rng["numpy"]
        torch.set_rng_state(rng["torch"])
        if rng["cuda"] is not None and torch.cuda.is_available() and len(rng["cuda"]) == torch.cuda.device_count():
            torch.cuda.set_rng_state_all(rng["cuda"])


def _rng_data(python: Any, numpy_global: Any, numpy: dict[str, Any], torch_state: torch.Tensor,
              cuda: list[torch.Tensor] | None) -> dict[str, Any]:
    """Every random generator's state as tensors and plain values (a checkpoint's ``rng``).

    The Mersenne Twister words (of Python's ``random`` and numpy's global
    generator) go in int64 tensors: hundreds of plain ints would make the
    file slow to read. ``numpy_global`` may be the legacy tuple of
    :func:`numpy.random.get_state` or its dict form.
    """
    if isinstance(numpy_global, tuple):  # ('MT19937', key, pos, has_gauss, cached_gaussian)
        _, key, pos, has_gauss, gauss = numpy_global
        numpy_global = {"bit_generator": "MT19937", "state": {"key": key, "pos": pos},
                        "has_gauss": has_gauss, "gauss": gauss}
    key = torch.tensor(np.asarray(numpy_global["state"]["key"], dtype=np.int64))
    version, words, gauss = python
    return {"python": {"version": version, "words": torch.tensor(words, dtype=torch.int64), "gauss": gauss},
            "numpy_global": dict(numpy_global, state=dict(numpy_global["state"], key=key)),
            "numpy": numpy, "torch": torch_state, "cuda": cuda}


def load_checkpoint(path: str | os.PathLike, game: str | None = None, board_size: int | None = None,
                    map_location: str = "cpu") -> dict[str, Any]:
    """Read and verify a PPO checkpoint (:func:`agents.train.checkpoint.load`): its metadata
    (``game``, ``board_size``, ``global_step``, ``net_config``, ...) and data in one dict.

    Clear errors (ValueError, FileNotFoundError) for missing, corrupt,
    unsafe, outdated or foreign files, and for another game or board size.
    """
    return ckpt_io.load(path, game, board_size, kind=ckpt_io.PPO_KIND, map_location=map_location)


def upgrade_format1(old: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """(metadata, data) in the current format from a format-1 checkpoint already unpickled
    (by :func:`agents.train.checkpoint.convert`, on the user's explicit trust)."""
    args = {**asdict(Args()), **{k: v for k, v in old["args"].items() if k in Args.__dataclass_fields__}}
    specs = split_specs(args["scripted_opponents"])
    scripted = old.get("scripted", [])
    if len(scripted) != len(specs):
        raise ValueError(f"the checkpoint has {len(scripted)} scripted agents for the specs {specs}")
    metadata = {k: old[k] for k in ("game", "board_size", "observation_version", "net_config",
                                    "global_step", "update", "episodes", "train_seconds")}
    metadata.update(kind=ckpt_io.PPO_KIND, args=args, torch_version=torch.__version__, converted_from_format=1)
    rng = old["rng"]
    data = {
        "model": dict(old["model"]), "optimizer": old["optimizer"], "pool": [dict(s) for s in old["pool"]],
        "engine_states": np.asarray(old["engine_states"], dtype=np.int32),
        "learner_seat": np.asarray(old["learner_seat"], dtype=np.int64),
        "opponent": np.asarray(old["opponent"], dtype=np.int64),
        "scripted": [{"spec": spec, "state": agent.get_state()} for spec, agent in zip(specs, scripted)],
        "rng": _rng_data(rng["python"], rng["numpy_global"], rng["numpy"], rng["torch"], rng.get("cuda")),
    }
    return metadata, data


# ============================================================ the run
class RunLog:
    """Every metric to a CSV file (one row per update) and to TensorBoard.

    ``resume_step``: the step of the checkpoint a run resumes from; rows
    logged after it (by the run that was interrupted) are dropped from the
    CSV, and TensorBoard hides their events.
    """

    def __init__(self, run_dir: Path, tensorboard: bool, resume_step: int | None = None):
        self.path = run_dir / "metrics.csv"
        self.rows: list[dict[str, float]] = []
        if resume_step is not None and self.path.exists():
            text = read_text(self.path, "metrics file", JOURNAL_LIMIT)
            # An empty cell is a metric that row did not log (e.g. no evaluation): leave it out.
            rows = [{k: float(v) for k, v in r.items() if v != ""} for r in csv.DictReader(io.StringIO(text, newline=""))]
            self.rows = [r for r in rows if r.get("global_step", math.inf) <= resume_step]
            self._write()
        self.writer = None
        if tensorboard:
            try:
                from torch.utils.tensorboard import SummaryWriter
            except ImportError:
                print("tensorboard is not installed: logging to metrics.csv only "
                      "(pip install tensorboard, or the project's agents or dev extra)")
            else:
                purge = None if resume_step is None else resume_step + 1
                self.writer = SummaryWriter(str(run_dir / "tb"), purge_step=purge)

    def _write(self) -> None:
        keys: list[str] = []
        for r in self.rows:
            keys += [k for k in r if k not in keys]
        buf = io.StringIO(newline="")
        w = csv.DictWriter(buf, fieldnames=keys)
        w.writeheader()
        w.writerows(self.rows)
        write_atomic(self.path, buf.getvalue(), what="metrics file")  # a killed run never leaves a half-written CSV

    def log(self, step: int, metrics: dict[str, float]) -> None:
        """Append one row and rewrite the CSV atomically."""
        self.rows.append({"global_step": float(step), **metrics})
        self._write()
        if self.writer is not None:
            for k, v in metrics.items():
                if not math.isnan(v):
                    self.writer.add_scalar(k, v, step)
            self.writer.flush()

    def close(self) -> None:
        """Close the TensorBoard writer."""
        if self.writer is not None:
            self.writer.close()


RUN_FILES = ("last.pt", "last.pt*.tmp", "args.json", "metrics.csv", "metrics.csv*.tmp", "at-*min.pt", "at-*min.pt*.tmp",
             "tb")
"""What a run writes in its directory (and ``--overwrite`` deletes)."""


def check_run(args: Args) -> None:
    """The checks of :func:`prepare_run` that need no trainer: ``args`` and the run directory
    (ValueError / FileNotFoundError saying what is wrong; nothing is written). Tools that start
    several runs check them all with it first."""
    validate_args(args)
    run_dir = check_can_make_dir(args.run_dir, "--run-dir")
    last = run_dir / "last.pt"
    if args.resume:
        if not last.is_file():
            raise no_checkpoint(run_dir)
        G = game_of(args)
        conflict = _resume_conflicts(asdict(args), saved_args(ckpt_io.read_metadata(last, G.name, G.size)))
        if conflict:
            raise ValueError(conflict)
    elif not args.overwrite and not last.exists() and (run_dir / "args.json").exists():
        raise ValueError(f"{run_dir} holds a run that was stopped before its first checkpoint (args.json, no "
                         f"last.pt): --resume has nothing to continue; add --overwrite to start again there "
                         f"(deletes its args.json, metrics.csv and tb/), or choose another --run-dir")
    elif not args.overwrite and (last.exists() or (run_dir / "args.json").exists()):
        raise ValueError(f"{run_dir} already holds a run: add --resume to continue it, or --overwrite to start "
                         f"a new one there (deletes its last.pt, args.json, metrics.csv, at-*min.pt and tb/), "
                         f"or choose another --run-dir")


def prepare_run(args: Args) -> Trainer:
    """Check ``args`` and the run directory (:func:`check_run`); return the trainer, restored
    from the run's checkpoint with ``resume``. Raises ValueError / FileNotFoundError saying
    what is wrong before anything is written."""
    check_run(args)
    run_dir = Path(args.run_dir)
    last = run_dir / "last.pt"
    existed = run_dir.is_dir()
    # One process a run directory: a second trainer there would write the same checkpoint and CSV.
    # The lock lasts until run() ends or the process does (a kill included).
    lock_dir(run_dir, "--run-dir")
    try:
        return _prepare_locked(args, run_dir, last)
    except BaseException:
        unlock_dir(run_dir)
        if not existed:  # leave no trace of a run that did not start
            with contextlib.suppress(OSError):
                (run_dir / ".lock").unlink()
                run_dir.rmdir()
        raise


def _prepare_locked(args: Args, run_dir: Path, last: Path) -> Trainer:
    trainer = Trainer(args)
    if args.resume:
        G = game_of(args)
        ckpt = load_checkpoint(last, G.name, G.size)
        try:
            trainer.restore(ckpt)
        except ValueError as err:
            raise ValueError(f"{last}: {err}") from err
        reached = _stop_reason(args, trainer)
        if reached is not None:  # nothing to train: refused before args.json is rewritten with these limits
            raise ValueError(f"--resume: {run_dir} is already at the {reached} ({trainer.global_step:,} steps, "
                             f"--total-steps {args.total_steps}; {trainer.train_seconds / 60:.2f} training minutes, "
                             f"--total-minutes {args.total_minutes:g}): raise the limit to train on")
        lr = "" if args.lr == ckpt["args"]["lr"] else f"; learning rate {args.lr:g} (was {ckpt['args']['lr']:g})"
        print(f"resuming {run_dir} at update {trainer.update} ({trainer.global_step:,} steps, "
              f"{trainer.train_seconds / 60:.1f} training minutes){lr}")
    elif args.overwrite:
        for pattern in RUN_FILES:
            for p in run_dir.glob(pattern):
                shutil.rmtree(p) if p.is_dir() else p.unlink()
    run_dir.mkdir(parents=True, exist_ok=True)
    (run_dir / "args.json").write_text(json.dumps(asdict(args), indent=2))
    return trainer


def progress_toward_limit(args: Args, trainer: Trainer) -> tuple[float, str]:
    """(fraction done, "steps" or "time"): how far the run is toward whichever limit ends it first."""
    steps = trainer.global_step / args.total_steps
    if args.total_minutes:
        minutes = trainer.train_seconds / (60 * args.total_minutes)
        if minutes > steps:
            return min(1.0, minutes), "time"
    return min(1.0, steps), "steps"


def _stop_reason(args: Args, trainer: Trainer) -> str | None:
    if trainer.global_step >= args.total_steps:
        return "step limit"
    if args.total_minutes and trainer.train_seconds >= 60 * args.total_minutes:
        return "time limit"
    return None


class _Progress:
    """A tqdm bar in percent of the nearer limit (or nothing, with a note, without tqdm)."""

    def __init__(self, args: Args, trainer: Trainer):
        self.args, self.trainer, self.bar = args, trainer, None
        try:
            from tqdm import tqdm
        except ImportError:
            print("tqdm is not installed: no progress bar (pip install tqdm)")
            return
        fraction, desc = self._where()
        self.bar = tqdm(total=100.0, initial=100 * fraction, desc=desc, unit="%", dynamic_ncols=True,
                        bar_format="{desc}: {percentage:3.0f}%|{bar}| [{elapsed}<{remaining}{postfix}]")

    def _where(self) -> tuple[float, str]:
        a, t = self.args, self.trainer
        fraction, limit = progress_toward_limit(a, t)
        if limit == "steps":
            return fraction, f"{t.global_step:,}/{a.total_steps:,} steps"
        return fraction, f"{t.train_seconds / 60:.1f}/{a.total_minutes:g} min"

    def show(self, postfix: dict[str, str]) -> None:
        """Move the bar to the run's progress."""
        if self.bar is None:
            return
        fraction, desc = self._where()
        self.bar.set_description_str(desc, refresh=False)
        self.bar.set_postfix(postfix, refresh=False)
        self.bar.update(100 * fraction - self.bar.n)

    def close(self) -> None:
        """Close the bar."""
        if self.bar is not None:
            self.bar.close()


def run(trainer: Trainer) -> Trainer:
    """Train until the step or time limit, logging and checkpointing; returns the trainer.

    Ends with one line saying which limit stopped the run, the step count and
    the checkpoint's path.
    """
    args = trainer.args
    run_dir = Path(args.run_dir)
    last = run_dir / "last.pt"
    lock_dir(run_dir, "--run-dir")  # (taken by prepare_run already; a no-op then)
    log = RunLog(run_dir, args.tensorboard, trainer.global_step if args.resume else None)
    bar = _Progress(args, trainer) if args.progress else None
    latest_eval: dict[str, float] = {}
    milestones = [m for m in parse_milestones(args.milestones) if 60 * m > trainer.train_seconds]
    try:
        while _stop_reason(args, trainer) is None:
            t0 = time.perf_counter()
            # The clock is checked inside the rollout and the update too: on a busy machine one update
            # can take minutes, which --total-minutes would otherwise overshoot.
            deadline = t0 + 60 * args.total_minutes - trainer.train_seconds if args.total_minutes else None
            batch = trainer.collect(deadline)
            t1 = time.perf_counter()
            metrics = trainer.learn(batch, deadline)
            t2 = time.perf_counter()
            trainer.train_seconds += t2 - t0
            if trainer.update % args.snapshot_every == 0:
                trainer.pool.add(trainer.net)
            metrics.update(win_rate_vs_pool=batch["win_rate_vs_pool"],
                           win_rate_vs_scripted=batch["win_rate_vs_scripted"], rollout_seconds=t1 - t0,
                           update_seconds=t2 - t1, steps_per_second=batch["steps"] / (t2 - t0),
                           train_minutes=trainer.train_seconds / 60, episodes=float(trainer.episodes))
            done = _stop_reason(args, trainer) is not None
            if (args.eval_every and trainer.update % args.eval_every == 0) or done:
                latest_eval = trainer.evaluate()
                metrics.update(latest_eval)
            log.log(trainer.global_step, metrics)
            if trainer.update % args.checkpoint_every == 0 or done:
                trainer.save(last)
            while milestones and trainer.train_seconds >= 60 * milestones[0]:
                trainer.save(run_dir / f"at-{milestones.pop(0):g}min.pt")
            if bar is not None:
                bar.show({k.split("/")[-1]: f"{v:.2f}" for k, v in latest_eval.items()}
                         | {"ent": f"{metrics['entropy']:.2f}"})
    finally:
        if bar is not None:
            bar.close()
        log.close()
        unlock_dir(run_dir)
    print(f"stopped at the {_stop_reason(args, trainer)}: {trainer.global_step:,} steps "
          f"(--total-steps {args.total_steps}), {trainer.train_seconds / 60:.2f} training minutes "
          f"(--total-minutes {args.total_minutes:g}); checkpoint: {last}")
    return trainer


def train(args: Args) -> Trainer:
    """Run (or resume) training as ``args`` says; returns the trainer at the end."""
    return run(prepare_run(args))


def main(argv: list[str] | None = None) -> int:
    """Command-line entry point: every mistake in the arguments or the run directory
    is one message and exit status 2."""
    parser = build_parser()
    try:
        trainer = prepare_run(parse_args(argv))
    except (ValueError, OSError) as err:  # OSError: a run directory that cannot be made or read
        parser.error(str(err))
    try:
        run(trainer)
    except OSError as err:  # a full disk, a quota, a folder removed meanwhile: one line, not a traceback
        last = Path(trainer.args.run_dir) / "last.pt"
        saved = f"the last checkpoint saved is {last}" if last.is_file() else "no checkpoint was saved"
        print(f"{parser.prog}: {report_os_error(err, 'writing the run')}; {saved}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
