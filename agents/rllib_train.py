"""Self-play PPO on Ray RLlib: the baseline's network, scaled out over env runners and machines.

    python -m agents.rllib_train --game yodd --board-size 6 --env-runners 2 --iterations 50
    python -m agents.rllib_train --address auto ...      # on a running Ray cluster (or RAY_ADDRESS)

Without ``--address`` (and without ``RAY_ADDRESS``) it starts a local Ray
with ``--num-cpus`` CPUs. Each env runner takes one CPU and plays
``--envs-per-env-runner`` games; the learner runs in this process
(``--threads`` torch threads). The pieces (env, RLModule, league,
evaluation, players) are in :mod:`agents.rllib`.

Writes to ``--run-dir``: ``metrics.csv`` (one row per iteration: losses,
steps per second, win rates against the league and, every
``--eval-every`` iterations, against ``--eval-opponents``), TensorBoard logs,
``args.json`` and ``checkpoint/`` (RLlib's ``Algorithm.save_to_path``;
``agents.load("rllib", path="<run-dir>/checkpoint")`` is its player).
"""

from __future__ import annotations

import argparse
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

if TYPE_CHECKING:  # ray is imported when a run starts, so that --help and errors come fast
    from ray.rllib.algorithms.ppo import PPOConfig


# =============================================================== arguments
@dataclass
class Args:
    """Training options; each field's docstring is its ``--help`` text."""

    game: str = "yodd"
    """the game (see odd_env.game.available_games())"""
    board_size: int = 6
    """board size (Xodd side, Yodd base)"""
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
    channels: int = 64
    """channels of the residual trunk"""
    blocks: int = 4
    """residual blocks"""
    lr: float = 3e-4
    """Adam learning rate"""
    gamma: float = 1.0
    """discount (1.0: the episodic zero-sum setting)"""
    gae_lambda: float = 0.95
    """GAE lambda"""
    train_batch_size: int = 4096
    """environment steps per iteration"""
    minibatch_size: int = 1024
    """samples per gradient step"""
    num_epochs: int = 4
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
    eval_opponents: str = "random,greedy"
    """comma-separated agent specs to evaluate against"""
    eval_env_runners: int = 0
    """env runners for evaluation games (0: played in this process)"""
    checkpoint_every: int = 10
    """iterations between checkpoints (and one at the end)"""
    run_dir: str = "runs/rllib"
    """directory of logs and the checkpoint"""
    tensorboard: bool = True
    """also write TensorBoard logs (needs the tensorboard package)"""


def build_parser() -> argparse.ArgumentParser:
    """An argparse parser generated from :class:`Args` and its field docstrings."""
    from .ppo import _field_docs

    parser = argparse.ArgumentParser(
        prog="python -m agents.rllib_train", description="Self-play PPO on Ray RLlib.",
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


def check_args(args: Args) -> None:
    """Raise ValueError naming the first option that cannot work."""
    from odd_env.game import make as make_game

    make_game(args.game, args.board_size)  # names the allowed games and sizes
    positive = ("iterations", "envs_per_env_runner", "num_cpus", "threads", "channels", "blocks",
                "train_batch_size", "minibatch_size", "num_epochs", "snapshot_every", "pool_size",
                "eval_games", "checkpoint_every")
    for name in positive:
        if getattr(args, name) < 1:
            raise ValueError(f"--{name.replace('_', '-')} must be >= 1, got {getattr(args, name)}")
    for name in ("env_runners", "eval_every", "eval_env_runners"):
        if getattr(args, name) < 0:
            raise ValueError(f"--{name.replace('_', '-')} must be >= 0, got {getattr(args, name)}")
    if args.minibatch_size > args.train_batch_size:
        raise ValueError(f"--minibatch-size {args.minibatch_size} exceeds --train-batch-size {args.train_batch_size}")
    if not 0.0 <= args.latest_prob <= 1.0:
        raise ValueError(f"--latest-prob must be in [0, 1], got {args.latest_prob}")
    import agents

    for spec in _opponents(args):
        name, _ = agents.parse_spec(spec)
        if name not in agents.available():
            raise ValueError(f"--eval-opponents: unknown agent {name!r}; available: {', '.join(agents.available())}")


def _opponents(args: Args) -> tuple[str, ...]:
    return tuple(s.strip() for s in args.eval_opponents.split(",") if s.strip())


# ================================================================ the config
def build_config(args: Args) -> PPOConfig:
    """The RLlib ``PPOConfig`` of a run: env, RLModule, league, evaluation and resources."""
    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec

    from odd_env.game import make as make_game

    from . import rllib

    rllib.register_envs()
    game = make_game(args.game, args.board_size)
    spec = rllib.module_spec(game, channels=args.channels, blocks=args.blocks)
    agents = rllib.agent_ids(game)
    opponents = _opponents(args)
    config = (
        PPOConfig()
        .environment(rllib.env_name(game.name), env_config={"board_size": game.size})
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


def train(args: Args) -> dict[str, float]:
    """Run ``args.iterations`` iterations (Ray must be initialised); returns the last row of metrics."""
    from .ppo import RunLog

    check_args(args)
    torch.set_num_threads(args.threads)
    run_dir = Path(args.run_dir)
    run_dir.mkdir(parents=True, exist_ok=True)
    (run_dir / "args.json").write_text(json.dumps(asdict(args), indent=2))
    log = RunLog(run_dir, args.tensorboard)
    algo = build_config(args).build_algo()
    steps = 0
    row: dict[str, float] = {}
    try:
        for it in range(1, args.iterations + 1):
            result = algo.train()
            row = iteration_metrics(result)
            if it == args.iterations and not (args.eval_every and it % args.eval_every == 0):
                row.update(iteration_metrics({"evaluation": algo.evaluate()}))  # the final evaluation
            done = int(row.get("env_steps_total", steps))
            row.update(iteration=float(it), env_steps=float(done - steps))
            if row.get("iteration_seconds"):
                row["steps_per_second"] = row["env_steps"] / row["iteration_seconds"]
            steps = done
            log.log(steps, row)
            if it % args.checkpoint_every == 0 or it == args.iterations:
                algo.save_to_path(str((run_dir / "checkpoint").resolve()))
            shown = {k: row[k] for k in ("steps_per_second", "policy_loss", "value_loss", "entropy",
                                         "win_rate_vs_league") if k in row and not math.isnan(row[k])}
            shown.update({k: v for k, v in row.items() if k.startswith("win_rate/")})
            print(f"iteration {it}: {steps} steps " + " ".join(f"{k}={v:.3g}" for k, v in shown.items()),
                  flush=True)
    finally:
        algo.stop()
    return row


def main(argv: list[str] | None = None) -> None:
    """Command-line entry point (exit status 2 on bad options)."""
    args = Args(**vars(build_parser().parse_args(argv)))
    try:
        check_args(args)
    except ValueError as err:
        print(f"python -m agents.rllib_train: error: {err}", file=sys.stderr)
        raise SystemExit(2) from None
    init_ray(args)
    t0 = time.perf_counter()
    train(args)
    print(f"done in {time.perf_counter() - t0:.0f} s; player: agents.load('rllib', path='{args.run_dir}/checkpoint')")


if __name__ == "__main__":
    main()
