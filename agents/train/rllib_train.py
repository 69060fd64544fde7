"""Self-play PPO on Ray RLlib: the baseline's network, scaled out over env runners and machines.

    python -m agents.rllib_train --game yodd --board-size 6 --env-runners 2 --iterations 50
    python -m agents.rllib_train --address auto ...      # on a running Ray cluster (or RAY_ADDRESS)
    python -m agents.rllib_train --run-dir runs/rllib --resume --iterations 100   # continue a run

Without ``--address`` (and without ``RAY_ADDRESS``) it starts a local Ray
with ``--num-cpus`` CPUs. Each env runner takes one CPU and plays
``--envs-per-env-runner`` games; the learner runs in this process
(``--threads`` torch threads). The pieces (env, RLModule, league,
evaluation, players) are in :mod:`agents.train.rllib`.

Writes to ``--run-dir``: ``metrics.csv`` (one row per iteration: losses,
steps per second, win rates against the league and, every
``--eval-every`` iterations, against ``--eval-opponents``), TensorBoard logs,
``args.json`` and ``checkpoint/`` (RLlib's ``Algorithm.save_to_path``;
``agents.load("rllib", path="<run-dir>/checkpoint")`` is its player, and
``league.json`` beside RLlib's files: the iteration, the steps and the
league's slots, which ``--resume`` rebuilds before RLlib restores the weights
and optimizer). A new run refuses a run directory that holds one unless
``--resume`` or ``--overwrite`` is given, and a run directory in use by
another process (an exclusive lock on ``<run-dir>/.lock`` for as long as the
run lasts, as :mod:`agents.train.ppo` takes).

An iteration that samples no environment steps (its env runners died: Ray's
memory monitor kills workers when the machine runs short; or they never
started) stops the run with an error and exit status 1
(:class:`NoStepsError`), before that iteration writes a checkpoint, a row of
metrics or an evaluation.
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import json
import math
import os
import sys
import time
from dataclasses import asdict, dataclass, fields
from pathlib import Path
from typing import TYPE_CHECKING, Any

import torch

from odd_env._files import (RECORD_LIMIT, LockedError, check_can_make_dir, lock_dir, read_text, unlock_dir,
                            write_atomic)

if TYPE_CHECKING:  # ray is imported when a run starts, so that --help and errors come fast
    from ray.rllib.algorithms.ppo import PPOConfig


# =============================================================== arguments
@dataclass
class Args:
    """Training options; each field's docstring is its ``--help`` text."""

    game: str = "yodd"
    """the game (see odd_env.game.available_games())"""
    board_size: int = 0
    """board size (Xodd side, Yodd base); 0: the game's default (Xodd 9, Yodd 6; YINSH has one board)"""
    variant: str = ""
    """the game's variant: "" (standard) or, for YINSH, blitz (one ring wins)"""
    iterations: int = 10
    """training iterations (each samples train_batch_size steps, then updates)"""
    env_runners: int = 2
    """RLlib env runners (one CPU each); 0 samples in this process"""
    envs_per_env_runner: int = 1
    """games each env runner steps together"""
    address: str = ""
    """Ray cluster to join ("auto": the local node's cluster); empty: RAY_ADDRESS, else a new local Ray"""
    num_cpus: int = 2
    """CPUs of the local Ray started when there is no cluster address"""
    threads: int = 1
    """torch threads of the learner (this process)"""
    seed: int = 1
    """seed of RLlib (env runners, torch) and of the evaluation games (league draws follow the episode ids)"""
    channels: int = 32
    """channels of the residual trunk"""
    blocks: int = 3
    """residual blocks"""
    lr: float = 1e-3
    """Adam learning rate"""
    gamma: float = 1.0
    """discount (1.0: the episodic zero-sum setting)"""
    gae_lambda: float = 0.95
    """GAE lambda"""
    train_batch_size: int = 4096
    """environment steps per iteration"""
    minibatch_size: int = 256
    """samples per gradient step"""
    num_epochs: int = 2
    """passes over each batch"""
    clip_coef: float = 0.2
    """PPO clip range"""
    ent_coef: float = 0.01
    """entropy bonus (over legal actions: the logits are masked)"""
    vf_coef: float = 0.5
    """value loss weight"""
    max_grad_norm: float = 0.5
    """gradient clipping (global norm)"""
    latest_prob: float = 0.5
    """probability that a game's second seat is main too (else a league snapshot)"""
    snapshot_every: int = 10
    """iterations between snapshots of main added to the league"""
    pool_size: int = 10
    """snapshots kept in the league (the oldest slot is overwritten)"""
    eval_every: int = 10
    """iterations between evaluations (0: only at the end)"""
    eval_games: int = 100
    """evaluation games per opponent (half with each colour)"""
    eval_opponents: str = "auto"
    """comma-separated agent specs to evaluate against; auto: random,greedy on Xodd and Yodd, random on YINSH"""
    eval_env_runners: int = 0
    """env runners for evaluation games (0: played in this process)"""
    checkpoint_every: int = 10
    """iterations between checkpoints (and one at the end)"""
    run_dir: str = "runs/rllib"
    """directory of logs and the checkpoint"""
    tensorboard: bool = True
    """also write TensorBoard logs (needs the tensorboard package)"""
    resume: bool = False
    """continue the run in --run-dir from its checkpoint, to --iterations iterations in all"""
    overwrite: bool = False
    """start a new run in a --run-dir that holds one (deletes its checkpoint/, args.json, metrics.csv and tb/)"""


MUTABLE_ON_RESUME = ("iterations", "env_runners", "envs_per_env_runner", "address", "num_cpus", "threads",
                     "eval_every", "eval_games", "eval_opponents", "eval_env_runners", "checkpoint_every",
                     "tensorboard")
"""Arguments a resumed run may change; every other saved argument must stay as it was."""
LEAGUE_FILE = "league.json"
"""Beside RLlib's files in ``<run-dir>/checkpoint``: the iteration, the steps and the league's bookkeeping."""
RUN_FILES = ("checkpoint", "args.json", "metrics.csv", "metrics.csv*.tmp", "tb")
"""What a run writes in its directory (and ``--overwrite`` deletes)."""


def build_parser(suppress_defaults: bool = False) -> argparse.ArgumentParser:
    """An argparse parser generated from :class:`Args` and its field docstrings
    (``suppress_defaults``: flags not given are left out of the namespace)."""
    from .ppo_args import _field_docs, _field_kind, _flag

    parser = argparse.ArgumentParser(
        prog="python -m agents.rllib_train", description="Self-play PPO on Ray RLlib.",
        epilog="resuming: --run-dir R --resume continues the run in R with the arguments saved in R/args.json "
               "(RLlib's checkpoint and the league: not bit for bit). Flags given again must agree with the "
               "saved ones, except these: " + ", ".join(_flag(n) for n in MUTABLE_ON_RESUME) + ".",
        formatter_class=argparse.ArgumentDefaultsHelpFormatter,
    )
    docs = _field_docs(Args)
    for f in fields(Args):
        default = argparse.SUPPRESS if suppress_defaults else f.default
        kind = _field_kind(f)
        if kind is bool:
            parser.add_argument(_flag(f.name), default=default, action=argparse.BooleanOptionalAction,
                                help=docs.get(f.name))
        else:
            parser.add_argument(_flag(f.name), type=kind, default=default, help=docs.get(f.name))
    return parser


def saved_run_args(run_dir: str | Path) -> dict[str, Any]:
    """The arguments of the run in ``run_dir`` (its ``args.json``), completed with today's defaults
    for arguments added since. Raises FileNotFoundError / ValueError."""
    path = Path(run_dir) / "args.json"
    ckpt = Path(run_dir) / "checkpoint"
    if not (ckpt / LEAGUE_FILE).is_file():
        if ckpt.is_dir() and any(ckpt.iterdir()):
            raise FileNotFoundError(f"--resume: {ckpt} has no {LEAGUE_FILE} (written by runs since --resume "
                                    "exists): its player loads with agents.load('rllib', path=...), but the "
                                    "run cannot be continued; start a new one")
        raise FileNotFoundError(f"--resume: no checkpoint in {ckpt} (start a new run without --resume)")
    try:
        saved = json.loads(read_text(path, "args.json", RECORD_LIMIT))
        if not isinstance(saved, dict):
            raise ValueError("not a JSON object")
    except (OSError, ValueError) as err:
        raise ValueError(f"--resume: {path} is missing or corrupt ({err})") from None
    from .ppo_args import _field_kind, _fits_kind

    for f in fields(Args):  # a hand-edited file: a wrong type is named here, not met as a TypeError later
        kind = _field_kind(f)
        if f.name in saved and not _fits_kind(saved[f.name], kind):
            raise ValueError(f"--resume: {path} is corrupt: {f.name} must be {kind.__name__}, "
                             f"got {saved[f.name]!r}")
    return {**asdict(Args()), **{k: v for k, v in saved.items() if k in Args.__dataclass_fields__}}


def parse_args(argv: list[str] | None = None) -> Args:
    """Parse the command line into :class:`Args`; with ``--resume`` the run's saved arguments fill
    in every flag not given, and a given flag that differs from the saved one raises ValueError
    unless it is in :data:`MUTABLE_ON_RESUME`."""
    from .ppo_args import _resume_conflicts

    full = vars(build_parser().parse_args(argv))
    if not full["resume"] or full["overwrite"]:
        return Args(**full)  # (--resume with --overwrite is refused by check_args)
    given = vars(build_parser(suppress_defaults=True).parse_args(argv))
    saved = saved_run_args(full["run_dir"])
    conflict = _resume_conflicts(given, saved, MUTABLE_ON_RESUME)
    if conflict:
        raise ValueError(conflict)
    return Args(**{**saved, **given, "run_dir": full["run_dir"], "resume": True, "overwrite": False})


def _game(args: Args):
    """The game of the run: ``--game`` at ``--board-size`` (0: the game's default size)."""
    from odd_env.game import make as make_game

    return make_game(args.game, args.board_size or None, args.variant)


def check_args(args: Args) -> None:
    """Raise ValueError naming the first option that cannot work."""
    _game(args)  # names the allowed games and sizes
    positive = ("iterations", "envs_per_env_runner", "num_cpus", "threads", "channels",
                "train_batch_size", "minibatch_size", "num_epochs", "snapshot_every", "pool_size",
                "eval_games", "checkpoint_every")
    for name in positive:
        if getattr(args, name) < 1:
            raise ValueError(f"--{name.replace('_', '-')} must be >= 1, got {getattr(args, name)}")
    for name in ("env_runners", "eval_every", "eval_env_runners", "blocks"):  # blocks 0: as agents.train.ppo takes it
        if getattr(args, name) < 0:
            raise ValueError(f"--{name.replace('_', '-')} must be >= 0, got {getattr(args, name)}")
    if args.minibatch_size > args.train_batch_size:
        raise ValueError(f"--minibatch-size {args.minibatch_size} exceeds --train-batch-size {args.train_batch_size}")
    if not 0.0 <= args.latest_prob <= 1.0:
        raise ValueError(f"--latest-prob must be in [0, 1], got {args.latest_prob}")
    if args.seed < 0:
        raise ValueError(f"--seed must be >= 0, got {args.seed}")
    # The same ranges as python -m agents.ppo (NaN fails every comparison, so it is refused too).
    for name, low, high, low_open in (("lr", 0.0, math.inf, True), ("gamma", 0.0, 1.0, False),
                                      ("gae_lambda", 0.0, 1.0, False), ("clip_coef", 0.0, math.inf, True),
                                      ("ent_coef", 0.0, math.inf, False), ("vf_coef", 0.0, math.inf, False),
                                      ("max_grad_norm", 0.0, math.inf, True)):
        value = getattr(args, name)
        if not ((value > low if low_open else value >= low) and value <= high and math.isfinite(value)):
            span = f"in [{low:g}, {high:g}]" if math.isfinite(high) else f"{'>' if low_open else '>='} {low:g}"
            raise ValueError(f"--{name.replace('_', '-')} must be a finite number {span}, got {value}")
    if args.resume and args.overwrite:
        raise ValueError("give --resume (continue the run) or --overwrite (start it over), not both")
    from .. import registry as agents

    from ..base import check_board

    game = _game(args)
    for spec in _opponents(args):
        try:
            check_board(agents.load(spec), game, spec)  # loaded once here: bad options fail now, not in Ray
        except (ValueError, OSError) as err:
            raise ValueError(f"--eval-opponents {spec}: {err}") from None


def _opponents(args: Args) -> tuple[str, ...]:
    from .ppo import eval_opponents

    return tuple(s.strip() for s in eval_opponents(args.eval_opponents, _game(args)).split(",") if s.strip())


# ================================================================ the config
def build_config(args: Args) -> PPOConfig:
    """The RLlib ``PPOConfig`` of a run: env, RLModule, league, evaluation and resources."""
    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec

    from . import rllib

    rllib.register_envs()
    game = _game(args)
    spec = rllib.module_spec(game, channels=args.channels, blocks=args.blocks)
    agents = rllib.agent_ids(game)
    opponents = _opponents(args)
    config = (
        PPOConfig()
        .environment(rllib.env_name(game.name), env_config={"board_size": game.size, "variant": game.variant})
        .env_runners(num_env_runners=args.env_runners, num_envs_per_env_runner=args.envs_per_env_runner,
                     num_cpus_per_env_runner=1)
        .learners(num_learners=0)
        .multi_agent(policies={rllib.MAIN}, policy_mapping_fn=rllib.LeagueMapping(agents, (), args.latest_prob),
                     policies_to_train=[rllib.MAIN])
        .rl_module(rl_module_spec=MultiRLModuleSpec(rl_module_specs={rllib.MAIN: spec}))
        .training(lr=args.lr, gamma=args.gamma, lambda_=args.gae_lambda,
                  train_batch_size_per_learner=args.train_batch_size, minibatch_size=args.minibatch_size,
                  num_epochs=args.num_epochs, clip_param=args.clip_coef, entropy_coeff=args.ent_coef,
                  vf_loss_coeff=args.vf_coef, grad_clip=args.max_grad_norm, grad_clip_by="global_norm",
                  use_kl_loss=False)
        .callbacks(functools.partial(rllib.LeagueCallback, spec=spec, agents=agents,
                                     snapshot_every=args.snapshot_every, pool_size=args.pool_size,
                                     latest_prob=args.latest_prob))
        .evaluation(evaluation_interval=args.eval_every or None,
                    evaluation_num_env_runners=args.eval_env_runners,
                    custom_evaluation_function=functools.partial(
                        rllib.evaluate_against_agents, opponents=opponents, games=args.eval_games, seed=args.seed))
        .debugging(seed=args.seed)
    )
    return config


# ================================================================ the run
def require_ray() -> None:
    """ValueError saying how to install Ray RLlib if it is not importable."""
    import importlib.util

    if importlib.util.find_spec("ray") is None:
        raise ValueError('Ray is not installed: pip install -e ".[rllib]" (Ray RLlib, kept out of the core '
                         "dependencies)")


def init_ray(args: Args) -> None:
    """Join the cluster of ``--address`` (or ``RAY_ADDRESS``), else start a local Ray with ``--num-cpus``."""
    import ray

    if ray.is_initialized():
        return
    address = args.address or os.environ.get("RAY_ADDRESS", "")
    if address:
        ray.init(address=address)
    else:
        ray.init(num_cpus=args.num_cpus, include_dashboard=False)


def _flatten(d: dict, prefix: str = "") -> dict[str, Any]:
    out = {}
    for k, v in d.items():
        key = f"{prefix}{k}"
        if isinstance(v, dict):
            out.update(_flatten(v, key + "/"))
        else:
            out[key] = v
    return out


def iteration_metrics(result: dict) -> dict[str, float]:
    """The numbers of one RLlib result worth a CSV column (losses, throughput, win rates)."""
    flat = _flatten(result)
    keys = {
        "env_steps_total": "env_runners/num_env_steps_sampled_lifetime",
        "env_steps_sampled": "env_runners/num_env_steps_sampled",  # in this iteration
        "episode_len_mean": "env_runners/episode_len_mean",
        "win_rate_vs_league": "env_runners/win_rate_vs_league",
        "illegal_action_rate": "env_runners/illegal_action_rate",
        "league_size": "league_size",
        "policy_loss": "learners/main/policy_loss",
        "value_loss": "learners/main/vf_loss",
        "entropy": "learners/main/entropy",
        "total_loss": "learners/main/total_loss",
        "explained_variance": "learners/main/vf_explained_var",
        "iteration_seconds": "time_this_iter_s",
        # Nonzero when an env step raised or an env runner died.
        "env_step_failures": "env_runners/num_env_step_failures",
        "env_runner_restarts": "fault_tolerance/num_remote_worker_restarts",
    }
    out = {name: float(flat[k]) for name, k in keys.items() if isinstance(flat.get(k), (int, float))}
    prefix = "evaluation/env_runners/win_rate/"
    for k, v in flat.items():
        if k.startswith(prefix) and isinstance(v, (int, float)):
            out["win_rate/" + k[len(prefix):]] = float(v)
    return out


class NoStepsError(RuntimeError):
    """A training iteration sampled no environment steps: the run would learn nothing, so it stops."""


def check_progress(row: dict[str, float], iteration: int, steps: int) -> int:
    """The lifetime environment steps after ``iteration``, read from its metrics row
    (:func:`iteration_metrics` of RLlib's result; ``steps``: the lifetime steps before it). Raises
    :class:`NoStepsError` when the iteration sampled none (neither the lifetime count grew nor the
    iteration's own count is positive, or RLlib reported no count at all), naming the env step
    failures and env runner restarts RLlib counted."""
    done, sampled = row.get("env_steps_total"), row.get("env_steps_sampled")
    if done is not None and math.isfinite(done) and int(done) > steps:
        return int(done)
    if sampled is not None and math.isfinite(sampled) and int(sampled) > 0:
        return steps + int(sampled)  # a lifetime count that a restore did not carry on
    seen = [f"{row[k]:g} {what}" for k, what in (("env_step_failures", "env step failures"),
                                                 ("env_runner_restarts", "env runner restarts"))
            if row.get(k)]
    count = "no step count at all" if done is None else f"{steps:,} steps in all, as before"
    raise NoStepsError(
        f"iteration {iteration} sampled no environment steps ({count}"
        + (f"; {', '.join(seen)}" if seen else "") + "): the env runners died or never started (Ray's "
        "memory monitor kills workers when the machine runs short of memory; Ray's logs are in "
        "/tmp/ray/session_latest/logs). Nothing was written for this iteration (no checkpoint, metrics or "
        "evaluation); try fewer --env-runners, more free memory, or --env-runners 0 (sampling in this process)")


def _release(run_dir: Path, made: bool) -> None:
    """Release the lock on ``run_dir``; remove the directory too when this process made it and it holds
    nothing but the lock file (a run that did not start leaves no trace)."""
    unlock_dir(run_dir)
    if made:
        with contextlib.suppress(OSError):
            if [p.name for p in run_dir.iterdir()] == [".lock"]:
                (run_dir / ".lock").unlink()
                run_dir.rmdir()


def prepare_run_dir(args: Args, clear: bool = True) -> dict[str, Any] | None:
    """Check ``--run-dir`` for ``args``: with ``--resume`` return the checkpoint's record (iteration,
    steps, league), else None, after ``--overwrite`` cleared an old run (unless ``clear`` is False).
    Raises ValueError / FileNotFoundError saying what is wrong before anything is written."""
    run_dir = check_can_make_dir(args.run_dir, "--run-dir")
    ckpt = run_dir / "checkpoint"
    if args.resume:
        from .ppo_args import _resume_conflicts

        conflict = _resume_conflicts(asdict(args), saved_run_args(run_dir), MUTABLE_ON_RESUME)
        if conflict:
            raise ValueError(conflict)
        try:
            record = json.loads(read_text(ckpt / LEAGUE_FILE, LEAGUE_FILE, RECORD_LIMIT))
            int(record["iteration"]), int(record["env_steps"]), dict(record["league"])
        except (ValueError, KeyError, TypeError) as err:
            raise ValueError(f"--resume: {ckpt / LEAGUE_FILE} is corrupt ({err!r}); start a new run "
                             "(--overwrite)") from None
        if int(record["iteration"]) >= args.iterations:  # nothing to train: said before Ray starts
            raise ValueError(f"--resume: {run_dir} is at iteration {int(record['iteration'])} already "
                             f"(--iterations {args.iterations}): raise --iterations to train on")
        return record
    if ckpt.exists() or (run_dir / "args.json").exists():
        if not args.overwrite:
            raise ValueError(f"{run_dir} already holds a run: add --resume to continue it, or --overwrite to "
                             f"start a new one there (deletes its {', '.join(RUN_FILES[:3])} and tb/), or "
                             "choose another --run-dir")
        if not clear:
            return None
        import shutil

        for name in RUN_FILES:
            for path in run_dir.glob(name):
                if path.is_dir():
                    shutil.rmtree(path)
                elif path.exists() or path.is_symlink():
                    path.unlink()
    return None


def _save(algo: Any, league: Any, ckpt: Path, iteration: int, steps: int) -> None:
    """RLlib's checkpoint, then the league file that makes it resumable (written last, atomically)."""
    algo.save_to_path(str(ckpt.resolve()))
    write_atomic(ckpt / LEAGUE_FILE, json.dumps({"iteration": iteration, "env_steps": steps,
                                                 "league": league.get_state()}), what="league file")


def train(args: Args) -> dict[str, float]:
    """Run to ``args.iterations`` iterations (Ray must be initialised), from the run's checkpoint with
    ``args.resume``; returns the last row of metrics. A resumed run already at ``args.iterations`` is a
    ValueError, raised before RLlib builds anything; so is a run directory that another process holds
    (:class:`odd_env._files.LockedError`). An iteration that samples no environment steps raises
    :class:`NoStepsError` before anything of it is written."""
    from . import rllib
    from .ppo import RunLog

    check_args(args)
    run_dir = check_can_make_dir(args.run_dir, "--run-dir")
    made = not run_dir.exists()
    # One process a run directory: a second run there would write the same checkpoint and CSV. The
    # lock lasts until this function returns or the process ends (a kill included).
    lock_dir(run_dir, "--run-dir")  # (a no-op when main took it already)
    try:
        return _train_locked(args, run_dir, rllib, RunLog)
    finally:
        _release(run_dir, made)


def _train_locked(args: Args, run_dir: Path, rllib: Any, RunLog: Any) -> dict[str, float]:
    record = prepare_run_dir(args)
    torch.set_num_threads(args.threads)
    ckpt = run_dir / "checkpoint"
    algo = build_config(args).build_algo()
    league = next(cb for cb in algo.callbacks if isinstance(cb, rllib.LeagueCallback))
    start, steps = 0, 0
    row: dict[str, float] = {}
    log = None
    try:
        if record is not None:
            league.set_state(algo, record["league"])  # the snapshot modules, before their weights load
            algo.restore_from_path(str(ckpt.resolve()))
            start, steps = int(record["iteration"]), int(record["env_steps"])
            if algo.iteration != start:
                raise ValueError(f"{ckpt}: RLlib's checkpoint is at iteration {algo.iteration}, its "
                                 f"{LEAGUE_FILE} at {start} (a run stopped while saving); start a new run")
            print(f"resuming {run_dir} at iteration {start} ({steps:,} steps, league of "
                  f"{len(league.mapping.snapshots)})", flush=True)
        (run_dir / "args.json").write_text(json.dumps(asdict(args), indent=2))
        log = RunLog(run_dir, args.tensorboard, resume_step=None if record is None else steps)
        for it in range(start + 1, args.iterations + 1):
            result = algo.train()
            row = iteration_metrics(result)
            done = check_progress(row, it, steps)  # NoStepsError before anything of it is written
            if it == args.iterations and not (args.eval_every and it % args.eval_every == 0):
                row.update(iteration_metrics({"evaluation": algo.evaluate()}))  # the final evaluation
            row.update(iteration=float(it), env_steps=float(done - steps))
            if row.get("iteration_seconds"):
                row["steps_per_second"] = row["env_steps"] / row["iteration_seconds"]
            steps = done
            log.log(steps, row)
            if it % args.checkpoint_every == 0 or it == args.iterations:
                _save(algo, league, ckpt, it, steps)
            shown = {k: row[k] for k in ("steps_per_second", "policy_loss", "value_loss", "entropy",
                                         "win_rate_vs_league") if k in row and not math.isnan(row[k])}
            shown.update({k: v for k, v in row.items() if k.startswith("win_rate/")})
            print(f"iteration {it}: {steps} steps " + " ".join(f"{k}={v:.3g}" for k, v in shown.items()),
                  flush=True)
    finally:
        if log is not None:
            log.close()
        algo.stop()
    return row


def main(argv: list[str] | None = None) -> None:
    """Command-line entry point (exit status 2 on bad options, 1 when an iteration samples no steps)."""
    run_dir, made = None, False
    try:
        args = parse_args(argv)
        check_args(args)
        run_dir = check_can_make_dir(args.run_dir, "--run-dir")
        made = not run_dir.exists()
        lock_dir(run_dir, "--run-dir")  # held through train(); a second run on the directory stops here
        prepare_run_dir(args, clear=False)  # before Ray starts (train clears an --overwrite run's files)
        require_ray()
    except (ValueError, OSError) as err:  # OSError: a run directory that cannot be made or read
        if run_dir is not None and not isinstance(err, LockedError):
            _release(run_dir, made)
        print(f"python -m agents.rllib_train: error: {err}", file=sys.stderr)
        raise SystemExit(2) from None
    init_ray(args)
    t0 = time.perf_counter()
    try:
        train(args)
    except NoStepsError as err:
        print(f"python -m agents.rllib_train: error: {err}", file=sys.stderr)
        raise SystemExit(1) from None
    finally:
        _release(run_dir, made)
    print(f"done in {time.perf_counter() - t0:.0f} s; player: agents.load('rllib', path='{args.run_dir}/checkpoint')")


if __name__ == "__main__":
    main()
