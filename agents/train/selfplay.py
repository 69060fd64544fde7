"""Self-play rollouts of the PPO trainer: the opponent pool, the game slots of each board size,
the rollout itself and the per-player advantages (the scheme of :mod:`agents.train.ppo`).

A run plays one board size, or several side by side (``--board-sizes``): each size is a
:class:`Lane`, its own batched engine with its game slots, and a rollout steps every lane once
per step, so that each network call sees planes of one shape.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any, Sequence

import numpy as np
import torch
from torch import nn

from odd_env.game import Game

from ..base import Agent, plays
from .network import NetConfig, PolicyValueNet, masked_logits

LATEST = -1
"""Opponent id of the latest network; a pool index (>= 0) is a snapshot."""
SCRIPTED = -2
"""Opponent id ``SCRIPTED - k``: scripted agent ``k``."""


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
    """GAE per game and per player over a rollout (the scheme of :mod:`agents.train.ppo`'s docstring).

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

    def replace(self, snapshots: list[dict[str, torch.Tensor]]) -> None:
        """Hold ``snapshots`` (a restored run's) in place of the present ones."""
        self.snapshots = [dict(snap) for snap in snapshots]
        self._nets.clear()

    def net(self, index: int) -> PolicyValueNet:
        """The snapshot ``index`` as a network in eval mode (built once, drawing nothing
        from torch's random generator: a resumed run rebuilds these networks at other
        moments than the uninterrupted run built them)."""
        if index not in self._nets:
            net = PolicyValueNet.from_weights(self.config, self.snapshots[index])
            self._nets[index] = net.to(self.device).eval()
        return self._nets[index]


# ============================================================ the lanes
@dataclass
class Lane:
    """The game slots of one board size: its batched engine, and in each slot the learner's seat
    (alternating colour game by game) and the opponent id (:data:`LATEST`, a pool index, or
    ``SCRIPTED - k``)."""

    game: Game
    engine: Any
    learner_seat: np.ndarray
    opponent: np.ndarray

    @classmethod
    def new(cls, game: Game, slots: int) -> Lane:
        """``slots`` fresh games of ``game``, the learner Black in the even slots."""
        engine = game.new_batch(slots)
        engine.reset()
        return cls(game, engine, (np.arange(slots) % 2).astype(np.int64), np.full(slots, LATEST, dtype=np.int64))

    @property
    def slots(self) -> int:
        """Games stepped together."""
        return len(self.learner_seat)


def split_slots(num_games: int, weights: Sequence[float]) -> list[int]:
    """``num_games`` game slots shared in proportion to ``weights`` (largest remainders first);
    ValueError if a share would get no slot."""
    total = float(sum(weights))
    exact = [num_games * w / total for w in weights]
    slots = [int(x) for x in exact]
    for i in sorted(range(len(exact)), key=lambda i: (slots[i] - exact[i], i))[: num_games - sum(slots)]:
        slots[i] += 1
    if min(slots) < 1:
        raise ValueError(f"--num-games {num_games} shared by --size-weights {list(weights)} leaves a size without "
                         f"a game ({slots}): give more --num-games or more even weights")
    return slots


# ============================================================ the rollout
def _policy(net: nn.Module, obs: torch.Tensor, mask: torch.Tensor):
    logits, value = net(obs)
    logits = masked_logits(logits, mask)
    dist = torch.distributions.Categorical(logits=logits)
    action = dist.sample()
    return action, dist.log_prob(action), value


class SelfPlay:
    """Plays rollouts in every lane: the learner's network against the latest network, a pool
    snapshot or a scripted agent, drawn per new game from ``np_rng``."""

    def __init__(self, args: Any, lanes: list[Lane], pool: OpponentPool, scripted: list[Agent],
                 np_rng: np.random.Generator, device: torch.device):
        self.args, self.lanes, self.pool, self.scripted = args, lanes, pool, scripted
        self.np_rng, self.device = np_rng, device
        # the scripted agents that play each lane's board (a per-size network plays its own lane only)
        self.scripted_of = [[k for k, agent in enumerate(scripted) if plays(agent, lane.game)] for lane in lanes]

    def draw_opponent(self, lane: int = 0) -> int:
        """The opponent id of a new game in lane ``lane``."""
        fitting = self.scripted_of[lane]
        if fitting and self.np_rng.random() < self.args.scripted_prob:
            return SCRIPTED - fitting[int(self.np_rng.integers(len(fitting)))]
        if not self.pool.snapshots or self.np_rng.random() < self.args.latest_prob:
            return LATEST
        return int(self.np_rng.integers(len(self.pool.snapshots)))

    @torch.no_grad()
    def collect(self, net: nn.Module, deadline: float | None = None) -> tuple[list[dict[str, Any]], dict[str, Any]]:
        """Play ``rollout_steps`` steps of every lane; return one batch per lane (its samples with
        advantages, ``lane`` its index) and a summary (``steps``, ``episodes``, ``wins``: the
        learner's results against pool snapshots and scripted agents, per lane).

        ``deadline`` (a :func:`time.perf_counter` time): stop stepping when it has passed (after at
        least one step), so that a time limit is not overshot by a whole rollout; the batches are then shorter.
        """
        T = self.args.rollout_steps
        bufs = [self._buffers(lane, T) for lane in self.lanes]
        outs = [lane.engine.last for lane in self.lanes]  # the current observations and masks
        wins: list[dict[str, list[float]]] = [{} for _ in self.lanes]
        episodes = 0
        net.eval()
        for t in range(T):
            if deadline is not None and t and time.perf_counter() >= deadline:
                T = t
                bufs = [{k: v[:T] for k, v in buf.items()} for buf in bufs]
                break
            for i, lane in enumerate(self.lanes):
                outs[i], ended = self._step(net, i, outs[i], bufs[i], t, wins[i])
                episodes += ended
        batches = []
        for i, (lane, buf, out) in enumerate(zip(self.lanes, bufs, outs)):
            _, last_values = net(torch.from_numpy(out.observation).to(self.device))
            adv, ret = per_player_advantages(
                buf["value"], buf["actor"], buf["recorded"], buf["terminated"], buf["final"],
                last_values.cpu().numpy(), out.to_play.astype(np.int64), self.args.gamma, self.args.gae_lambda)
            keep = buf["recorded"].reshape(-1)
            B = lane.slots
            batches.append({
                "lane": i, "steps": T * B,
                "obs": buf["obs"].reshape(T * B, *buf["obs"].shape[2:])[keep],
                "mask": buf["mask"].reshape(T * B, -1)[keep],
                **{k: buf[k].reshape(-1)[keep] for k in ("action", "logp", "value")},
                "adv": adv.reshape(-1)[keep], "ret": ret.reshape(-1)[keep],
            })
        return batches, {"steps": sum(b["steps"] for b in batches), "episodes": episodes, "wins": wins}

    @staticmethod
    def _buffers(lane: Lane, T: int) -> dict[str, np.ndarray]:
        G, B = lane.game, lane.slots
        return {
            "obs": np.zeros((T, B, *G.observation_shape), dtype=np.int8),
            "mask": np.zeros((T, B, G.num_actions), dtype=bool),
            "action": np.zeros((T, B), dtype=np.int64), "logp": np.zeros((T, B), dtype=np.float32),
            "value": np.zeros((T, B), dtype=np.float32), "actor": np.zeros((T, B), dtype=np.int64),
            "recorded": np.zeros((T, B), dtype=bool), "terminated": np.zeros((T, B), dtype=bool),
            "final": np.zeros((T, B, 2), dtype=np.float32),
        }

    def _step(self, net: nn.Module, index: int, out: Any, buf: dict[str, np.ndarray], t: int,
              wins: dict[str, list[float]]) -> tuple[Any, int]:
        """One engine step of lane ``index``, recorded at row ``t``; returns the engine's output and the games ended."""
        lane = self.lanes[index]
        obs_np, mask_np = out.observation, out.action_mask.astype(bool)
        actors = out.to_play.astype(np.int64)
        buf["obs"][t], buf["mask"][t], buf["actor"][t] = obs_np, mask_np, actors
        obs = torch.from_numpy(obs_np).to(self.device)
        mask = torch.from_numpy(mask_np).to(self.device)
        action, logp, value = _policy(net, obs, mask)
        action, logp, value = action.cpu().numpy(), logp.cpu().numpy(), value.cpu().numpy()
        by_snapshot = (actors != lane.learner_seat) & (lane.opponent != LATEST)
        for idx in np.unique(lane.opponent[by_snapshot]):
            sel = np.flatnonzero(by_snapshot & (lane.opponent == idx))
            if idx <= SCRIPTED:
                agent = self.scripted[SCRIPTED - int(idx)]
                action[sel] = [agent.act(lane.engine.game_state(int(b))) for b in sel]
                continue
            snap_action, _, _ = _policy(self.pool.net(int(idx)), obs[sel], mask[sel])
            action[sel] = snap_action.cpu().numpy()
        buf["action"][t], buf["logp"][t], buf["value"][t] = action, logp, value
        buf["recorded"][t] = ~by_snapshot
        out = lane.engine.step(action)
        buf["terminated"][t] = out.terminated
        buf["final"][t] = out.info["final_rewards"]
        ended = np.flatnonzero(out.terminated)
        for b in ended:
            seat = lane.learner_seat[b]
            if lane.opponent[b] != LATEST:
                kind = "scripted" if lane.opponent[b] <= SCRIPTED else "pool"
                wins.setdefault(kind, []).append(float(out.info["final_rewards"][b, seat] > 0))
            lane.learner_seat[b] = 1 - seat
            lane.opponent[b] = self.draw_opponent(index)
        return out, len(ended)
