"""Self-play PPO for Xodd, Yodd and YINSH, readable top to bottom (CleanRL style).

    python -m agents.ppo --game xodd --board-size 7 --total-minutes 5 --run-dir runs/x7

This module holds the trainer and the run (its command line, the loop, the
run directory); the parts each read in one sitting: the options
(:mod:`~agents.train.ppo_args`), self-play rollouts, the opponent pool and the
per-player advantages (:mod:`~agents.train.selfplay`), the PPO update
(:mod:`~agents.train.ppo_update`), the evaluation
(:mod:`~agents.train.evaluation`), what a checkpoint saves and restores
(:mod:`~agents.train.run_state`) and the logs (:mod:`~agents.train.run_log`).

Board sizes
    A run plays one board size (``--board-size``), or several side by side
    (``--board-sizes 9,10,11,12,13,14``, each size's share of the game slots
    by ``--size-weights``) with one size-general network
    (:class:`~agents.train.network.NetConfig` ``general``): each size is a
    lane, its own batched engine; a rollout steps every lane once per step,
    and the update's minibatches hold samples of one size each (planes of one
    shape), interleaved in random order, with one optimiser. Evaluation and
    the logs report each size (``win_rate/SPEC@SIZE``, ``samples@SIZE``).

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
import json
import os
import random
import shutil
import sys
import time
from dataclasses import asdict
from pathlib import Path
from typing import Any, Callable, Sequence

import numpy as np
import torch

from odd_env._files import check_can_make_dir, lock_dir, report_os_error, unlock_dir
from odd_env.game import Game
from odd_env import symmetries as board_symmetries

from . import checkpoint as ckpt_io
from . import run_state
from ..registry import load as load_agent
from ..base import Agent, check_board
from .evaluation import evaluate
from .network import NetConfig, PolicyValueNet, check_device, grown_weights
from .ppo_update import PPOUpdate
from .run_log import Progress, RunLog, progress_toward_limit, stop_reason  # noqa: F401 (RunLog: rllib_train's too)
from .run_state import load_checkpoint, upgrade_format1  # noqa: F401 (upgrade_format1: checkpoint.UPGRADES names it here)
from .selfplay import LATEST, SCRIPTED, Lane, OpponentPool, SelfPlay, per_player_advantages, split_slots  # noqa: F401
from ..players.network_player import PPOAgent, torch_threads  # noqa: F401 (PPOAgent: agents.train.ppo.PPOAgent too)
from .ppo_args import (  # noqa: F401 (MUTABLE_ON_RESUME: agents.train.ppo's too)
    MUTABLE_ON_RESUME, PPO_COMMAND, Args, Command, _resume_conflicts, build_parser, game_of, games_of, no_checkpoint,
    parse_args, parse_milestones, parse_size_weights, saved_args, split_specs, validate_args,
)


CHECKPOINT_FORMAT = ckpt_io.FORMAT


def check_growable(source: str, theirs: NetConfig, mine: NetConfig) -> None:
    """ValueError (what would be right) unless network ``theirs`` (read from ``source``) can be grown
    into ``mine``: at least its channels and blocks, the same value head and kind (per-size or general)."""
    if mine.channels < theirs.channels or mine.blocks < theirs.blocks or mine.value_hidden != theirs.value_hidden:
        raise ValueError(f"--init-from {source} --grow: its network has {theirs.channels} channels x "
                         f"{theirs.blocks} blocks, this run {mine.channels} x {mine.blocks}: a grown network "
                         f"needs at least as many of each (--channels >= {theirs.channels}, --blocks >= "
                         f"{theirs.blocks})")
    if mine.general != theirs.general:
        raise ValueError(f"--init-from {source} --grow: its network is "
                         f"{'size-general' if theirs.general else 'per-size'}, this run's "
                         f"{'size-general' if mine.general else 'per-size'}: a grown network keeps its kind")


def init_weights(net: PolicyValueNet, source: str, grow: bool = False) -> tuple[str, list[str]]:
    """Copy the weights of network ``source`` (a checkpoint path or a pretrained name) into ``net``.

    ``source`` must play the same game and variant with the same channels and
    blocks; its board size may differ, since the trunk, the policy and pass heads
    and the value head's convolution do not depend on it, and either network may
    be size-general. Weights whose shape differs or that one network lacks (the
    value head's hidden layer, when the boards differ or one value head pools)
    keep ``net``'s own, bias included. With ``grow``, ``net`` may be wider and
    deeper than ``source`` (at least its channels and blocks): the source is
    grown into it exactly (:func:`agents.train.network.grown_weights`: the same
    outputs, the new channels and blocks ready to learn). Returns the source
    file's sha256 and the names of the weights that start fresh. ValueError
    (``net`` unchanged) if ``source`` does not fit; FileNotFoundError if it is
    neither a file nor a pretrained name.
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
    if grow:
        check_growable(source, theirs, mine)
    elif (theirs.channels, theirs.blocks, theirs.value_hidden) != (mine.channels, mine.blocks, mine.value_hidden):
        raise ValueError(f"--init-from {source}: its network has {theirs.channels} channels x {theirs.blocks} blocks, "
                         f"this run {mine.channels} x {mine.blocks}: give --channels {theirs.channels} "
                         f"--blocks {theirs.blocks}, or --grow to grow it into a wider or deeper network")
    own, theirs_w = net.state_dict(), src.state_dict()
    if grow:
        theirs_w = grown_weights(own, theirs_w, theirs.channels)
    # A layer that misfits (or that one of the two lacks: a size-general value head) starts fresh whole.
    layers = {k.rsplit(".", 1)[0] for k in own if k not in theirs_w or own[k].shape != theirs_w[k].shape}
    fresh = [k for k in own if k.rsplit(".", 1)[0] in layers]
    with torch.no_grad():
        for k, v in theirs_w.items():
            if k in own and k not in fresh:
                own[k].copy_(v)
    return digest, fresh


def eval_opponents(text: str, game: Game) -> str:
    """``--eval-opponents`` with ``auto`` resolved for ``game``: random and greedy where greedy
    can play (Xodd and Yodd), else random alone (YINSH); other text unchanged."""
    if text.strip() != "auto":
        return text
    from ..players.greedy import GreedyAgent

    return "random" if GreedyAgent().cannot_play(game) else "random,greedy"


def build_agents(text: str, game: Game | Sequence[Game], what: str,
                 seed: int | None = None) -> list[tuple[str, Agent]]:
    """(spec, agent) for each spec of a comma-separated list, checked to play ``game``, or, in a run
    over several board sizes, at least one of them (a per-size network plays its own board's lane
    only: :func:`~agents.base.plays`).

    Agent ``i`` gets ``seed + i`` when ``seed`` is given. Raises ValueError
    naming the option ``what`` and the spec for an unknown agent, a bad
    option, a missing checkpoint or a network for another board.
    """
    games = [game] if isinstance(game, Game) else list(game)
    out = []
    for i, spec in enumerate(split_specs(text)):
        try:
            agent = load_agent(spec) if seed is None else load_agent(spec, seed=seed + i)
        except (ValueError, FileNotFoundError) as err:
            raise ValueError(f"{what}: agent {spec!r}: {err}") from err
        reasons = []
        for g in games:
            try:
                check_board(agent, g, spec)
            except ValueError as err:
                reasons.append(str(err))
        if len(reasons) == len(games):
            sizes = f" (the run's boards: {', '.join(g.label for g in games)})" if len(games) > 1 else ""
            raise ValueError(f"{what}: {reasons[0]}{sizes}")
        out.append((spec, agent))
    return out


# ============================================================== trainer
class Trainer:
    """Everything a run holds: the network and its optimiser, the lanes of games (one per board
    size), the opponent pool, the scripted agents, counters and random generators; and the parts
    that work on them: :class:`~agents.train.selfplay.SelfPlay` (rollouts),
    :class:`~agents.train.ppo_update.PPOUpdate` (the update), :func:`~agents.train.evaluation.evaluate`
    and :mod:`~agents.train.run_state` (checkpoints)."""

    KIND = ckpt_io.PPO_KIND
    """The kind of the run's checkpoints."""

    def __init__(self, args: Args):
        if not isinstance(args, Args):
            raise ValueError(f"Trainer takes an agents.train.ppo.Args (e.g. Args(game='xodd', board_size=9)), "
                             f"got {type(args).__name__}")
        validate_args(args)
        self.args = args
        self.games = games_of(args)
        self.game = self.games[0]
        """The run's (first) game and board: the one its checkpoints name."""
        # Agents first: a bad spec fails before anything is allocated or seeded.
        scripted = build_agents(args.scripted_opponents, self.games, "--scripted-opponents", seed=args.seed)
        self.scripted_specs = [spec for spec, _ in scripted]
        self.scripted = [agent for _, agent in scripted]
        self.eval_agents = build_agents(eval_opponents(args.eval_opponents, self.game), self.games, "--eval-opponents")
        self.device = check_device(args.device, "--device")
        # The process-wide settings this changes are put back if it fails (a bad --init-from, say).
        saved = (random.getstate(), np.random.get_state(), torch.get_rng_state(), torch.get_num_threads())
        try:
            if self.device.type == "cpu":
                torch.set_num_threads(args.threads)
            self.config = NetConfig.for_game(self.game, channels=args.channels, blocks=args.blocks,
                                             general=args.general or bool(args.board_sizes.strip()))
            self._seed_everything(args.seed)
            self.net = PolicyValueNet(self.config).to(self.device)
            self.init_sha256 = ""
            if args.init_from and not args.resume:  # (a resumed run's weights come from its checkpoint)
                self.init_sha256, _ = init_weights(self.net, args.init_from, grow=args.grow)
        except BaseException:
            random.setstate(saved[0])
            np.random.set_state(saved[1])
            torch.set_rng_state(saved[2])
            torch.set_num_threads(saved[3])
            raise
        self.optimizer = torch.optim.Adam(self.net.parameters(), lr=args.lr, eps=1e-5)
        self.pool = OpponentPool(self.config, args.pool_size, self.device)
        slots = split_slots(args.num_games, parse_size_weights(args, len(self.games)))
        self.lanes = [Lane.new(game, n) for game, n in zip(self.games, slots)]
        self.selfplay = SelfPlay(args, self.lanes, self.pool, self.scripted, self.np_rng, self.device)
        self.updater = PPOUpdate(args, self.net, self.optimizer, self.device)
        self.global_step = 0
        self.update = 0
        self.train_seconds = 0.0
        self.episodes = 0

    def _seed_everything(self, seed: int) -> None:
        random.seed(seed)
        np.random.seed(seed)
        torch.manual_seed(seed)
        self.np_rng = np.random.default_rng(seed)

    # The games of a run of one board size (its only lane), by the names they had before lanes.
    @property
    def engine(self) -> Any:
        """The batched engine of the first board size."""
        return self.lanes[0].engine

    @property
    def learner_seat(self) -> np.ndarray:
        """The learner's seat in each game slot of the first board size."""
        return self.lanes[0].learner_seat

    @property
    def opponent(self) -> np.ndarray:
        """The opponent id in each game slot of the first board size."""
        return self.lanes[0].opponent

    def collect(self, deadline: float | None = None) -> dict[str, Any]:
        """Play ``rollout_steps`` engine steps in every lane; return the rollout with advantages.

        A run of one board size gets that size's batch (``obs``, ``mask``, ``action``, ``logp``,
        ``value``, ``adv``, ``ret``) with the summary (``steps``, ``win_rate_vs_pool``,
        ``win_rate_vs_scripted``); a run over several sizes gets the summary and ``parts``, one
        batch per size. ``deadline``: see :meth:`SelfPlay.collect`.
        """
        parts, info = self.selfplay.collect(self.net, deadline)
        self.global_step += info["steps"]
        self.episodes += info["episodes"]
        summary = {"steps": info["steps"], **_win_rates(info["wins"], "")}
        if len(parts) > 1:
            for lane, wins in zip(self.lanes, info["wins"]):
                summary.update(_win_rates([wins], f"@{lane.game.size}"))
        return {**parts[0], **summary} if len(parts) == 1 else {**summary, "parts": parts}

    def augment(self, batch: dict[str, Any]) -> dict[str, Any]:
        """The batch of one board size with each sample replaced by its image under a board
        symmetry drawn from the trainer's generator (:meth:`PPOUpdate.augment`)."""
        game = self.lanes[batch.get("lane", 0)].game
        return self.updater.augment(batch, board_symmetries(game), self.np_rng)

    def learn(self, batch: dict[str, Any], deadline: float | None = None) -> dict[str, float]:
        """PPO epochs over one rollout (each size's batch first mapped by :meth:`augment` with
        ``augment``); returns the update's metrics (in a run over several sizes also each size's
        ``samples@SIZE`` and losses). ``deadline``: no minibatch starts after it (one always runs)."""
        parts = batch.get("parts", [batch])
        if self.args.augment:
            parts = [self.augment(part) for part in parts]
        metrics, per_part = self.updater.learn(parts, self.global_step, deadline)
        self.update += 1
        if len(parts) > 1:
            for part, stats in zip(parts, per_part):
                size = self.lanes[part["lane"]].game.size
                metrics.update({f"samples@{size}": float(len(part["action"])),
                                f"value_loss@{size}": stats["value_loss"], f"policy_loss@{size}": stats["policy_loss"]})
        return metrics

    def evaluate(self, games: int | None = None, progress: bool = False) -> dict[str, float]:
        """Win rate of the current network (greedy policy) against each evaluation opponent on each
        board size, with the arena (:func:`~agents.train.evaluation.evaluate`)."""
        return evaluate(self.net, self.games, self.eval_agents, self.args.eval_games if games is None else games,
                        self.args.seed + self.update, self.args.threads, progress, opening=self.args.eval_opening)

    def checkpoint(self) -> tuple[dict[str, Any], dict[str, Any]]:
        """(metadata, data) of a checkpoint: everything needed to rebuild the agent and resume exactly."""
        return run_state.checkpoint(self)

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
        run_state.restore(self, ckpt)


def _win_rates(wins: list[dict[str, list[float]]], suffix: str) -> dict[str, float]:
    """The learner's win rates against pool snapshots and scripted agents (NaN where none ended)."""
    out = {}
    for kind in ("pool", "scripted"):
        results = [x for w in wins for x in w.get(kind, [])]
        out[f"win_rate_vs_{kind}{suffix}"] = float(np.mean(results)) if results else float("nan")
    return out


RUN_FILES = ("last.pt", "last.pt*.tmp", "args.json", "metrics.csv", "metrics.csv*.tmp", "at-*min.pt", "at-*min.pt*.tmp",
             "tb")
"""What a run writes in its directory (and ``--overwrite`` deletes)."""


def check_run(args: Any, command: Command | None = None) -> None:
    """The checks of :func:`prepare_run` that need no trainer: ``args`` and the run directory
    (ValueError / FileNotFoundError saying what is wrong; nothing is written). Tools that start
    several runs check them all with it first. ``command``: the trainer's command line (None: PPO's)."""
    command = command or PPO_COMMAND
    command.validate(args)
    run_dir = check_can_make_dir(args.run_dir, "--run-dir")
    last = run_dir / "last.pt"
    if args.resume:
        if not last.is_file():
            raise no_checkpoint(run_dir)
        G = command.game_of(args)
        saved = saved_args(ckpt_io.read_metadata(last, G.name, G.size), command.cls)
        conflict = _resume_conflicts(asdict(args), saved, command.mutable)
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


def prepare_run(args: Any, command: Command | None = None, trainer_cls: type | None = None) -> Any:
    """Check ``args`` and the run directory (:func:`check_run`); return the trainer (``trainer_cls``,
    None: :class:`Trainer`), restored from the run's checkpoint with ``resume``. Raises ValueError /
    FileNotFoundError saying what is wrong before anything is written."""
    check_run(args, command)
    run_dir = Path(args.run_dir)
    last = run_dir / "last.pt"
    existed = run_dir.is_dir()
    # One process a run directory: a second trainer there would write the same checkpoint and CSV.
    # The lock lasts until run() ends or the process does (a kill included).
    lock_dir(run_dir, "--run-dir")
    try:
        return _prepare_locked(args, run_dir, last, command or PPO_COMMAND, trainer_cls or Trainer)
    except BaseException:
        unlock_dir(run_dir)
        if not existed:  # leave no trace of a run that did not start
            with contextlib.suppress(OSError):
                (run_dir / ".lock").unlink()
                run_dir.rmdir()
        raise


def _prepare_locked(args: Any, run_dir: Path, last: Path, command: Command, trainer_cls: type) -> Any:
    trainer = trainer_cls(args)
    if args.resume:
        G = command.game_of(args)
        ckpt = ckpt_io.load(last, G.name, G.size, kind=trainer_cls.KIND)
        try:
            trainer.restore(ckpt)
        except ValueError as err:
            raise ValueError(f"{last}: {err}") from err
        reached = stop_reason(args, trainer)
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


def log_and_save(trainer: Any, metrics: dict[str, float], log: RunLog, milestones: list[float],
                 latest_eval: dict[str, float]) -> dict[str, float]:
    """After an update: evaluate when due (``eval_every``, and at the end), log the metrics, save ``last.pt``
    when due (``checkpoint_every``, and at the end) and the milestones reached; returns the latest evaluation."""
    args = trainer.args
    run_dir = Path(args.run_dir)
    done = stop_reason(args, trainer) is not None
    if (args.eval_every and trainer.update % args.eval_every == 0) or done:
        latest_eval = trainer.evaluate()
        metrics.update(latest_eval)
    log.log(trainer.global_step, metrics)
    if trainer.update % args.checkpoint_every == 0 or done:
        trainer.save(run_dir / "last.pt")
    while milestones and trainer.train_seconds >= 60 * milestones[0]:
        trainer.save(run_dir / f"at-{milestones.pop(0):g}min.pt")
    return latest_eval


def drive(trainer: Any, update: Callable[[], tuple[dict[str, float], dict[str, str]]], steps: str = "steps") -> Any:
    """A trainer's run loop: ``update()`` (one update; returns its metrics and the progress bar's own fields)
    until the step or time limit, each followed by :func:`log_and_save`, with the progress bar; returns the
    trainer. Ends with one line saying which limit stopped the run, the ``steps`` count and the checkpoint's
    path."""
    args = trainer.args
    run_dir = Path(args.run_dir)
    last = run_dir / "last.pt"
    lock_dir(run_dir, "--run-dir")  # (taken by prepare_run already; a no-op then)
    log = RunLog(run_dir, args.tensorboard, trainer.global_step if args.resume else None)
    bar = Progress(args, trainer) if args.progress else None
    latest_eval: dict[str, float] = {}
    milestones = [m for m in parse_milestones(args.milestones) if 60 * m > trainer.train_seconds]
    try:
        while stop_reason(args, trainer) is None:
            metrics, postfix = update()
            latest_eval = log_and_save(trainer, metrics, log, milestones, latest_eval)
            if bar is not None:
                bar.show({k.split("/")[-1]: f"{v:.2f}" for k, v in latest_eval.items()} | postfix)
    finally:
        if bar is not None:
            bar.close()
        log.close()
        unlock_dir(run_dir)
    print(f"stopped at the {stop_reason(args, trainer)}: {trainer.global_step:,} {steps} "
          f"(--total-steps {args.total_steps}), {trainer.train_seconds / 60:.2f} training minutes "
          f"(--total-minutes {args.total_minutes:g}); checkpoint: {last}")
    return trainer


def _update(trainer: Trainer) -> tuple[dict[str, float], dict[str, str]]:
    """One PPO update: a rollout, then the update; its metrics and the progress bar's entropy."""
    args = trainer.args
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
    metrics.update({k: v for k, v in batch.items() if k.startswith("win_rate_vs_")})  # (per size too)
    metrics.update(rollout_seconds=t1 - t0, update_seconds=t2 - t1, steps_per_second=batch["steps"] / (t2 - t0),
                   train_minutes=trainer.train_seconds / 60, episodes=float(trainer.episodes))
    return metrics, {"ent": f"{metrics['entropy']:.2f}"}


def run(trainer: Trainer) -> Trainer:
    """Train until the step or time limit, logging and checkpointing; returns the trainer.

    Ends with one line saying which limit stopped the run, the step count and
    the checkpoint's path.
    """
    return drive(trainer, lambda: _update(trainer))


def train(args: Args) -> Trainer:
    """Run (or resume) training as ``args`` says; returns the trainer at the end."""
    return run(prepare_run(args))


def main(argv: list[str] | None = None, command: Command | None = None, trainer_cls: type | None = None,
         loop: Any = None) -> int:
    """Command-line entry point: every mistake in the arguments or the run directory
    is one message and exit status 2. ``command``, ``trainer_cls``, ``loop``: another trainer's
    command line, trainer and run loop (None: PPO's, :class:`Trainer`, :func:`run`)."""
    parser = build_parser(command=command)
    try:
        trainer = prepare_run(parse_args(argv, command), command, trainer_cls)
    except (ValueError, OSError) as err:  # OSError: a run directory that cannot be made or read
        parser.error(str(err))
    last = Path(trainer.args.run_dir) / "last.pt"
    try:
        (loop or run)(trainer)
    except OSError as err:  # a full disk, a quota, a folder removed meanwhile: one line, not a traceback
        print(f"{parser.prog}: {report_os_error(err, 'writing the run')}; {_last_saved(last)}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:  # Ctrl-C: the checkpoints are written atomically, so the last one is whole
        print(f"{parser.prog}: interrupted; {_last_saved(last)}", file=sys.stderr)
        return 130  # (the shell's status for a process ended by SIGINT)
    finally:
        unlock_dir(trainer.args.run_dir)  # (however the loop ended; the run loop lets go of it itself)
    return 0


def _last_saved(last: Path) -> str:
    """What a run ended early (Ctrl-C, a full disk) left: its last checkpoint (steps, minutes) and how to go on,
    or that none was saved."""
    if not last.is_file():
        return ("no checkpoint was saved, so --resume has nothing to continue: start again there with "
                "--overwrite (or choose another --run-dir)")
    try:
        meta = ckpt_io.read_metadata(last)
        at = f" ({int(meta['global_step']):,} steps, {float(meta['train_seconds']) / 60:.1f} minutes of training)"
    except (ValueError, KeyError, TypeError, OSError):  # (read for the message only; --resume verifies it)
        at = ""
    return f"the last checkpoint saved is {last}{at}: --resume continues from it"


if __name__ == "__main__":
    sys.exit(main())
