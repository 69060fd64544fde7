"""The PPO update of :mod:`agents.train.ppo`: clipped policy loss, value loss and the masked entropy
bonus, in minibatches of one board size each (a run over several sizes holds one batch per size:
a minibatch's planes have one shape), with one optimiser; and the symmetry augmentation of a batch.
"""

from __future__ import annotations

import time
from typing import Any, Sequence

import numpy as np
import torch
from torch import nn

from odd_env import map_batch

from .network import masked_entropy, masked_logits

STATS = ("policy_loss", "value_loss", "entropy", "approx_kl", "clipfrac")
"""The per-minibatch statistics an update reports (their means)."""


class PPOUpdate:
    """PPO epochs over a rollout's batches, with the run's options ``args`` (clip, coefficients,
    epochs, minibatch size, learning-rate annealing, target KL)."""

    def __init__(self, args: Any, net: nn.Module, optimizer: torch.optim.Optimizer, device: torch.device):
        self.args, self.net, self.optimizer, self.device = args, net, optimizer, device

    @torch.no_grad()
    def augment(self, batch: dict[str, Any], group: Sequence[Any], np_rng: np.random.Generator) -> dict[str, Any]:
        """``batch`` with each sample's observation, mask and action replaced by their image under a
        symmetry of ``group`` drawn from ``np_rng``.

        The old log-probabilities and values are recomputed on the new
        observations with the current network, which has not changed since the
        rollout: they are the old policy's probability of the mapped action and
        its value of the mapped position. Advantages and returns carry over, since
        symmetric positions have the same value.
        """
        which = np_rng.integers(len(group), size=len(batch["action"]))
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

    def _tensors(self, batch: dict[str, Any]) -> dict[str, torch.Tensor]:
        return {k: torch.from_numpy(batch[k]).to(self.device) for k in ("obs", "mask", "action", "logp", "adv", "ret")}

    def learn(self, batches: list[dict[str, Any]], global_step: int,
              deadline: float | None = None) -> tuple[dict[str, float], list[dict[str, float]]]:
        """PPO epochs over ``batches`` (one per board size); returns the update's metrics and, per
        batch, the means of its own minibatches' statistics. ``deadline`` (a
        :func:`time.perf_counter` time): no minibatch starts after it (one always runs)."""
        a = self.args
        if a.anneal_lr:
            frac = max(0.0, 1.0 - global_step / a.total_steps)
            self.optimizer.param_groups[0]["lr"] = frac * a.lr
        parts = [self._tensors(b) for b in batches]
        self.net.train()
        stats: dict[str, list[float]] = {k: [] for k in STATS}
        own: list[dict[str, list[float]]] = [{k: [] for k in STATS} for _ in parts]
        # Nearly equal minibatches (sizes differ by at most one) rather than slices of minibatch_size
        # and a remainder: a remainder of one sample has no standard deviation, and its NaN
        # advantages destroyed the network (seen on YINSH, where the sample count varies).
        chunks = [max(1, round(len(p["action"]) / a.minibatch_size)) for p in parts]
        late = False
        for _ in range(a.update_epochs):
            order = [(i, idx) for i, p in enumerate(parts)
                     for idx in torch.tensor_split(torch.randperm(len(p["action"]), device=self.device), chunks[i])]
            if len(order) > 1 and len(parts) > 1:  # the sizes' minibatches interleaved
                order = [order[j] for j in torch.randperm(len(order)).tolist()]
            for i, idx in order:
                if deadline is not None and stats["policy_loss"] and time.perf_counter() >= deadline:
                    late = True
                    break
                for k, v in self._minibatch(parts[i], idx).items():
                    stats[k].append(v)
                    own[i][k].append(v)
            if late:
                break
            if a.target_kl and np.mean(stats["approx_kl"][-sum(chunks):]) > a.target_kl:
                break
        returns = torch.cat([p["ret"] for p in parts])
        old_values = torch.from_numpy(np.concatenate([b["value"] for b in batches])).to(self.device)
        var = float(returns.var())
        explained = float("nan") if var == 0 else 1 - float((returns - old_values).var()) / var
        out = {k: float(np.mean(v)) for k, v in stats.items()}
        out.update(explained_variance=explained, samples=float(len(returns)), lr=self.optimizer.param_groups[0]["lr"])
        per_batch = [{k: float(np.mean(v)) if v else float("nan") for k, v in s.items()} for s in own]
        return out, per_batch

    def _minibatch(self, part: dict[str, torch.Tensor], idx: torch.Tensor) -> dict[str, float]:
        """One gradient step on the samples ``idx`` of one batch; returns its statistics."""
        a = self.args
        logits, values = self.net(part["obs"][idx])
        logits = masked_logits(logits, part["mask"][idx])
        old_logp = part["logp"][idx]
        logp = torch.log_softmax(logits, dim=-1).gather(1, part["action"][idx, None]).squeeze(1)
        ratio = (logp - old_logp).exp()
        adv = part["adv"][idx]
        adv = (adv - adv.mean()) / (adv.std() + 1e-8) if len(adv) > 1 else adv - adv.mean()
        pg_loss = torch.max(-adv * ratio, -adv * ratio.clamp(1 - a.clip_coef, 1 + a.clip_coef)).mean()
        v_loss = 0.5 * ((values - part["ret"][idx]) ** 2).mean()
        entropy = masked_entropy(logits, part["mask"][idx]).mean()
        loss = pg_loss + a.vf_coef * v_loss - a.ent_coef * entropy
        self.optimizer.zero_grad()
        loss.backward()
        nn.utils.clip_grad_norm_(self.net.parameters(), a.max_grad_norm)
        self.optimizer.step()
        with torch.no_grad():
            log_ratio = logp - old_logp
            approx_kl = float(((log_ratio.exp() - 1) - log_ratio).mean())
            clipfrac = float(((ratio - 1).abs() > a.clip_coef).float().mean())
        return {"policy_loss": pg_loss.item(), "value_loss": v_loss.item(), "entropy": entropy.item(),
                "approx_kl": approx_kl, "clipfrac": clipfrac}
