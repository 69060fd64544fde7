"""AlphaZero-style training for Xodd, Yodd and YINSH: batched self-play search, a replay buffer, a learner.

    python -m agents.alphazero --game xodd --board-size 5 --total-minutes 10 --run-dir runs/az5

The run alternates, in one process, two phases (an *iteration*):

* self-play (:mod:`~agents.train.az_selfplay`): ``--moves-per-iteration`` moves of each of the
  ``--num-games`` games, all searched together by one :class:`~agents.search.BatchedSearch` guided by the
  current network (playout-cap randomisation, Gumbel or Dirichlet root noise, the policy target of
  ``--policy-target``); finished games' positions go to the replay buffer;
* learning: ``new positions x --replay-ratio / --minibatch-size`` gradient steps (the fraction carried
  over) on minibatches drawn uniformly from the buffer (:mod:`~agents.train.replay`), each position mapped
  by a random board symmetry (``--augment``); loss = cross-entropy(policy target, masked logits)
  + ``--vf-coef`` x MSE(value, outcome), Adam with L2 weight decay.

With ``--board-sizes`` (one size-general network on several boards) every size has its own self-play
and replay buffer, sharing the games and the buffer's positions by ``--size-weights``, and each gradient
step trains on a minibatch of one size, drawn in proportion to the positions held.

The options are :class:`~agents.train.az_args.Args`; the run directory, ``--resume``, ``--overwrite``, the
logs (``metrics.csv``, TensorBoard), the progress bar, checkpoints and milestones work as the PPO trainer's
(:mod:`agents.train.ppo`, whose helpers this reuses). ``last.pt`` is a checkpoint of
:mod:`agents.train.checkpoint` (kind ``odd_env-alphazero``) holding the network as a PPO checkpoint does,
so ``agents.load("ppo", path=...)``, ``agents.load("az", network=...)`` and ``mcts:network=`` load it; it
also holds the optimiser, the replay buffer, the games in progress with their unvalued samples, and every
random generator (the search's included), so ``--resume`` continues exactly as the uninterrupted run
(same machine and flags): the search trees are not saved, and every iteration starts them afresh.

The profile (``*_s_per_1k`` in ``metrics.csv``, and printed at the end) splits the time per 1,000 self-play
moves into tree work (compiled selection, expansion, backup), network inference, the rest of self-play
(Python bookkeeping) and the learner's updates.
"""

from __future__ import annotations

import dataclasses
import math
import random
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np
import torch

from odd_env import symmetries as board_symmetries

from . import checkpoint as ckpt_io
from .az_args import AZ_COMMAND, Args, size_shares, validate_args
from .az_selfplay import AZSelfPlay
from .evaluation import evaluate
from .network import NetConfig, PolicyValueNet, check_device, masked_logits
from .ppo import build_agents, check_growable, drive, eval_opponents, init_weights, main as ppo_main
from .ppo_args import _resume_conflicts, saved_args
from .replay import ReplayBuffer
from .run_state import all_rng, set_rng

PROFILE = ("search", "inference", "selfplay_other", "update")
"""The parts of the profile: seconds per 1,000 self-play moves of each (``<part>_s_per_1k``)."""


def source_config(source: str) -> NetConfig:
    """The network configuration of ``--init-from`` (a checkpoint path or a pretrained name)."""
    from ..pretrained import network_file

    try:
        path = network_file(source)
    except FileNotFoundError as err:
        raise FileNotFoundError(f"--init-from {err}") from err
    return ckpt_io.network_config(ckpt_io.read_metadata(path), str(path))


class AZTrainer:
    """An AlphaZero run: the network, its optimiser, the self-play games and search, the replay buffer,
    counters and random generators (see the module docstring)."""

    KIND = ckpt_io.AZ_KIND
    """The kind of the run's checkpoints."""

    def __init__(self, args: Args):
        validate_args(args)
        self.args = args
        self.games, slots, capacity = size_shares(args)
        self.game = self.games[0]
        """The run's (first) game and board: the one its checkpoints name."""
        several = self.several_sizes
        self.eval_agents = build_agents(eval_opponents(args.eval_opponents, self.game), self.games, "--eval-opponents")
        self.device = check_device(args.device, "--device")
        if args.init_from and not args.resume:  # the architecture comes from the source (saved in args.json)
            src = source_config(args.init_from)
            if (src.game, src.variant) != (self.game.name, self.game.variant):
                raise ValueError(f"--init-from {args.init_from}: its network plays {src.game} {src.variant}".rstrip()
                                 + f", this run {self.game.label}")
            if several and not src.general:
                raise ValueError(f"--init-from {args.init_from}: its network plays {src.game} {src.board_size} only; "
                                 f"--board-sizes {args.board_sizes} needs a size-general network (e.g. "
                                 f"{self.game.name}, or a run with --general)")
            if args.grow:  # (checked before anything is seeded or allocated)
                check_growable(args.init_from, src, dataclasses.replace(src, channels=args.channels,
                                                                        blocks=args.blocks))
            else:
                args.channels, args.blocks = src.channels, src.blocks
            args.general = src.general
        if self.device.type == "cpu":
            torch.set_num_threads(args.threads)
        self.config = NetConfig.for_game(self.game, channels=args.channels, blocks=args.blocks,
                                         general=args.general or several)
        self.np_rng = np.random.default_rng(args.seed)
        random.seed(args.seed)
        np.random.seed(args.seed)
        torch.manual_seed(args.seed)
        self.net = PolicyValueNet(self.config).to(self.device)
        self.init_sha256 = ""
        if args.init_from and not args.resume:
            self.init_sha256, _ = init_weights(self.net, args.init_from, grow=args.grow)
        if args.update_precision == "bfloat16":  # channels-last convolutions: the faster bfloat16 kernels on CPU
            self.net = self.net.to(memory_format=torch.channels_last)
        self.optimizer = torch.optim.Adam(self.net.parameters(), lr=args.lr, weight_decay=args.weight_decay)
        self.selfplays = [AZSelfPlay(args, game, int(self.np_rng.integers(2**63 - 1)), n)
                          for game, n in zip(self.games, slots)]
        """One self-play (games, search trees) per board size, in the order of ``--board-sizes``."""
        self.buffers = [ReplayBuffer(n, game.observation_shape, game.num_actions)
                        for game, n in zip(self.games, capacity)]
        """One replay buffer per board size (positions of one size stack into one minibatch)."""
        self.groups = [board_symmetries(game) if args.augment else None for game in self.games]
        self._compiled = False
        self.global_step = 0
        """Self-play moves played."""
        self.update = 0
        """Iterations done."""
        self.train_seconds = 0.0
        self.counters = {"games": 0, "gradient_steps": 0, "positions": 0, "carry": 0.0,
                         **{f"{part}_s": 0.0 for part in PROFILE},
                         **({f"games@{g.size}": 0 for g in self.games} if several else {})}
        """Totals: games finished, gradient steps, positions recorded, the fraction of a gradient step carried
        over, and the seconds of each part of the profile."""

    @property
    def several_sizes(self) -> bool:
        """Whether the run plays several board sizes (``--board-sizes``)."""
        return len(self.games) > 1

    @property
    def selfplay(self) -> AZSelfPlay:
        """The self-play of the first board size (a run's only one, without ``--board-sizes``)."""
        return self.selfplays[0]

    @property
    def buffer(self) -> ReplayBuffer:
        """The replay buffer of the first board size (a run's only one, without ``--board-sizes``)."""
        return self.buffers[0]

    # ------------------------------------------------------------ an iteration
    def iteration(self) -> dict[str, float]:
        """Self-play then learning (see the module docstring); returns the iteration's metrics."""
        a, c = self.args, self.counters
        if not self._compiled:  # (numba's compilation, once per process, stays out of the profile and the clock)
            self.net.eval()
            for selfplay in self.selfplays:
                selfplay.compile(self.net, self.device, a.threads)
            self._compiled = True
        stats = [selfplay.search.stats for selfplay in self.selfplays]
        before = [(st["search_s"], st["evaluate_s"]) for st in stats]
        t0 = time.perf_counter()
        self.net.eval()
        outs = [selfplay.play(self.net, a.moves_per_iteration, self.np_rng, self.device, a.threads)
                for selfplay in self.selfplays]
        t1 = time.perf_counter()
        for buffer, game, part in zip(self.buffers, self.games, outs):
            buffer.add(part["planes"], part["mask"], part["policy"], part["value"])
            if self.several_sizes:
                c[f"games@{game.size}"] += part["games"]
        out = {k: sum(part[k] for part in outs) for k in ("moves", "recorded", "games", "first_player_wins",
                                                          "game_length")}
        new = sum(len(part["value"]) for part in outs)
        learned = self.learn(new)
        t2 = time.perf_counter()
        search_s = sum(st["search_s"] - b[0] for st, b in zip(stats, before))
        inference_s = sum(st["evaluate_s"] - b[1] for st, b in zip(stats, before))
        parts = {"search": search_s, "inference": inference_s, "selfplay_other": t1 - t0 - search_s - inference_s,
                 "update": t2 - t1}
        for part, seconds in parts.items():
            c[f"{part}_s"] += seconds
        self.train_seconds += t2 - t0
        self.global_step += out["moves"]
        self.update += 1
        c["games"] += out["games"]
        c["positions"] += new
        games = max(out["games"], 1)
        per_size = {}
        if self.several_sizes:
            for game, buffer in zip(self.games, self.buffers):
                per_size.update({f"games@{game.size}": float(c[f"games@{game.size}"]),
                                 f"buffer@{game.size}": float(len(buffer))})
        metrics = {"games": float(c["games"]), "positions": float(c["positions"]),
                   "buffer": float(sum(len(b) for b in self.buffers)), **per_size,
                   "recorded_moves": float(out["recorded"]),
                   "first_player_win_rate": out["first_player_wins"] / games if out["games"] else float("nan"),
                   "game_length": out["game_length"] / games if out["games"] else float("nan"), **learned,
                   **{f"{part}_s_per_1k": 1000 * s / out["moves"] for part, s in parts.items()},
                   "moves_per_second": out["moves"] / (t2 - t0), "train_minutes": self.train_seconds / 60}
        return metrics

    def loss(self, planes: np.ndarray, mask: np.ndarray, policy: np.ndarray,
             value: np.ndarray) -> tuple[torch.Tensor, torch.Tensor]:
        """(policy cross-entropy, value MSE) of the network on a minibatch (means over its positions)."""
        dev = self.device
        x = torch.from_numpy(planes).to(dev)
        if self.args.update_precision == "bfloat16":  # the forward pass under autocast; the losses in float32
            with torch.autocast(dev.type, dtype=torch.bfloat16):
                logits, v = self.net(x.contiguous(memory_format=torch.channels_last))
            logits, v = logits.float(), v.float()
        else:
            logits, v = self.net(x)
        legal = torch.from_numpy(mask).to(dev).bool()
        logp = torch.log_softmax(masked_logits(logits, legal), dim=-1)
        target = torch.from_numpy(policy).to(dev)
        policy_loss = -torch.where(legal, target * logp, torch.zeros_like(logp)).sum(-1).mean()
        value_loss = torch.mean((v - torch.from_numpy(value).to(dev)) ** 2)
        return policy_loss, value_loss

    def learn(self, new_positions: int) -> dict[str, float]:
        """The gradient steps ``new_positions`` buy at ``--replay-ratio`` (none while the buffer holds fewer
        than ``--min-buffer``); returns the mean losses (NaN without a step) and the steps so far."""
        a, c = self.args, self.counters
        held = np.array([len(b) for b in self.buffers], np.float64)
        if held.sum() < a.min_buffer:
            return {"policy_loss": float("nan"), "value_loss": float("nan"), "gradient_steps": float(c["gradient_steps"])}
        c["carry"] += new_positions * a.replay_ratio / a.minibatch_size
        steps = int(c["carry"])
        c["carry"] -= steps
        self.net.train()
        losses = []
        for _ in range(steps):
            # A minibatch of one size (their planes stack); the size drawn in proportion to the positions held.
            k = 0 if len(self.buffers) == 1 else int(self.np_rng.choice(len(self.buffers), p=held / held.sum()))
            batch = self.buffers[k].sample(a.minibatch_size, self.np_rng, self.groups[k])
            policy_loss, value_loss = self.loss(*batch)
            self.optimizer.zero_grad()
            (policy_loss + a.vf_coef * value_loss).backward()
            torch.nn.utils.clip_grad_norm_(self.net.parameters(), a.max_grad_norm)
            self.optimizer.step()
            losses.append((policy_loss.item(), value_loss.item()))
        self.net.eval()
        c["gradient_steps"] += steps
        mean = np.mean(losses, axis=0) if losses else (float("nan"), float("nan"))
        return {"policy_loss": float(mean[0]), "value_loss": float(mean[1]), "gradient_steps": float(c["gradient_steps"])}

    def evaluate(self, games: int | None = None, progress: bool = False) -> dict[str, float]:
        """Win rate of the network's policy (its most probable legal action, no search) against each
        evaluation opponent (:func:`~agents.train.evaluation.evaluate`)."""
        return evaluate(self.net, self.games, self.eval_agents, self.args.eval_games if games is None else games,
                        self.args.seed + self.update, self.args.threads, progress, opening=self.args.eval_opening)

    def profile(self) -> dict[str, float]:
        """Seconds per 1,000 self-play moves of each part of :data:`PROFILE` over the whole run."""
        moves = max(self.global_step, 1)
        return {part: 1000 * self.counters[f"{part}_s"] / moves for part in PROFILE}

    # ------------------------------------------------------------ checkpoints
    def checkpoint(self) -> tuple[dict[str, Any], dict[str, Any]]:
        """(metadata, data) of a checkpoint: the network as a PPO checkpoint holds it, and the run's state."""
        g = self.game
        metadata = {"kind": self.KIND, "game": g.name, "board_size": g.size, "variant": g.variant,
                    "observation_version": g.observation_version, "net_config": self.config.to_dict(),
                    **({"general": True, "board_sizes": [game.size for game in self.games]}
                       if self.config.general else {}),
                    "args": dict(vars(self.args)), "global_step": self.global_step, "update": self.update,
                    "train_seconds": self.train_seconds, "torch_version": torch.__version__,
                    **({"init_sha256": self.init_sha256} if self.init_sha256 else {})}
        several = self.several_sizes  # (a run of one size keeps the layout of the runs before --board-sizes)
        buffers = [b.state_dict() for b in self.buffers]
        selfplays = [sp.state_dict() for sp in self.selfplays]
        data = {"model": dict(self.net.state_dict()), "optimizer": self.optimizer.state_dict(),
                "buffer": buffers if several else buffers[0], "selfplay": selfplays if several else selfplays[0],
                "counters": dict(self.counters), "rng": all_rng(self.np_rng)}
        return metadata, data

    def save(self, path: str | Path) -> Path:
        """Write the checkpoint atomically (a killed run never leaves a half-written file)."""
        return ckpt_io.save(path, *self.checkpoint())

    def restore(self, ckpt: dict[str, Any]) -> None:
        """Continue from a checkpoint (:func:`agents.train.checkpoint.load`) of a run with these arguments;
        ValueError saying what does not fit (checked before anything changes but the optimiser's and the
        network's tensors, which only a damaged file fails to load)."""
        try:
            self._restore(ckpt)
        except (KeyError, IndexError, TypeError, AttributeError, RuntimeError) as err:
            raise ValueError(f"cannot resume from this checkpoint: {type(err).__name__}: {err}") from err

    def _restore(self, ckpt: dict[str, Any]) -> None:
        ckpt_io.check_metadata(ckpt, self.game.name, self.game.size)
        if ckpt["kind"] != self.KIND:
            raise ValueError(f"a {ckpt['kind']!r} checkpoint holds no AlphaZero run to resume")
        if NetConfig.from_dict(ckpt["net_config"]) != self.config:
            raise ValueError(f"checkpoint network {ckpt['net_config']} differs from the run's {self.config.to_dict()}")
        conflict = _resume_conflicts(vars(self.args), saved_args(ckpt, Args), AZ_COMMAND.mutable)
        if conflict:
            raise ValueError(conflict)
        counters = {k: ckpt["counters"][k] for k in self.counters}
        steps = (ckpt["global_step"], ckpt["update"], counters["games"], counters["gradient_steps"], counters["positions"])
        if not all(isinstance(v, int) and v >= 0 for v in steps):
            raise ValueError(f"bad counters {steps}")
        several = self.several_sizes
        saved_buffers = ckpt["buffer"] if several else [ckpt["buffer"]]
        saved_selfplays = ckpt["selfplay"] if several else [ckpt["selfplay"]]
        if not (isinstance(saved_buffers, list) and isinstance(saved_selfplays, list)
                and len(saved_buffers) == len(saved_selfplays) == len(self.games)):
            raise ValueError(f"the checkpoint's replay buffers and games do not fit the run's {len(self.games)} "
                             "board sizes")
        buffers = [ReplayBuffer(b.capacity, game.observation_shape, game.num_actions)
                   for b, game in zip(self.buffers, self.games)]
        for buffer, state in zip(buffers, saved_buffers):
            buffer.load_state_dict(state)
        for selfplay, state in zip(self.selfplays, saved_selfplays):
            selfplay.load_state_dict(state)
        self.net.load_state_dict(ckpt["model"])
        groups = [dict(g, betas=tuple(g["betas"])) for g in ckpt["optimizer"]["param_groups"]]  # stored as lists
        self.optimizer.load_state_dict(dict(ckpt["optimizer"], param_groups=groups))
        for group in self.optimizer.param_groups:
            group["lr"] = self.args.lr  # (may change on resume)
        self.buffers = buffers
        self.counters = {k: type(self.counters[k])(v) for k, v in counters.items()}
        self.global_step, self.update = ckpt["global_step"], ckpt["update"]
        self.train_seconds = float(ckpt["train_seconds"])
        self.init_sha256 = str(ckpt.get("init_sha256", ""))
        set_rng(ckpt["rng"], self.np_rng)


# ============================================================== the run
def run(trainer: AZTrainer) -> AZTrainer:
    """Train until the step or time limit, logging, evaluating and checkpointing (the PPO trainer's loop,
    :func:`agents.train.ppo.drive`); returns the trainer. Ends with the line saying which limit stopped the
    run, and the profile."""
    shown = {}  # the progress bar's value loss: the last iteration that made gradient steps (nan otherwise)

    def update() -> tuple[dict[str, float], dict[str, str]]:
        metrics = trainer.iteration()
        if math.isfinite(metrics["value_loss"]):
            shown["vloss"] = f"{metrics['value_loss']:.3f}"
        return metrics, dict(shown)

    drive(trainer, update, "moves")
    profile = ", ".join(f"{part} {s:.2f}" for part, s in trainer.profile().items())
    print(f"profile, seconds per 1,000 self-play moves: {profile}")
    return trainer


def prepare_run(args: Args) -> AZTrainer:
    """Check ``args`` and the run directory; return the trainer, restored from the run's checkpoint with
    ``resume`` (:func:`agents.train.ppo.prepare_run`)."""
    from .ppo import prepare_run as prepare

    return prepare(args, AZ_COMMAND, AZTrainer)


def train(args: Args) -> AZTrainer:
    """Run (or resume) training as ``args`` says; returns the trainer at the end."""
    return run(prepare_run(args))


def main(argv: list[str] | None = None) -> int:
    """Command-line entry point (``python -m agents.alphazero``): every mistake in the arguments or the run
    directory is one message and exit status 2."""
    return ppo_main(argv, AZ_COMMAND, AZTrainer, run)


if __name__ == "__main__":
    sys.exit(main())
