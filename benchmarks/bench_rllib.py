"""Training throughput: RLlib (1, 2... env runners) against agents.train.ppo, same board, network and batch.

Each case is the real command run in a fresh process (``python -m agents.ppo``
or ``python -m agents.rllib_train`` with a local Ray of ``--num-cpus``), for
``--iterations`` updates of ``--batch`` environment steps each; a case's rate
is the median steps per second (sampling plus update) over its iterations
after the first (warm-up: compilation, first weight sync). Cases run in interleaved
rounds, so a busy machine slows them alike; the table reports the median over
the rounds. Needs the ``rllib`` extra.

    python benchmarks/bench_rllib.py --game yodd --board-size 6 --rounds 2
"""

from __future__ import annotations

import argparse
import csv
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _args import nonneg_int, positive_int  # noqa: E402
from _table import print_rate_table


PPO_GAMES = 128
"""Games agents.train.ppo plays side by side; --batch is split into rollouts of --batch / 128 steps each."""


def case_command(case: str, args: argparse.Namespace, run_dir: Path) -> list[str]:
    """The training command of ``case`` ("ppo" or "rllib:RxE")."""
    common = ["--game", args.game, "--board-size", str(args.board_size), "--channels", str(args.channels),
              "--blocks", str(args.blocks), "--minibatch-size", str(args.minibatch_size), "--seed", "1",
              "--run-dir", str(run_dir), "--no-tensorboard"]
    if case == "ppo":
        games = PPO_GAMES
        cmd = [sys.executable, "-m", "agents.ppo", *common, "--num-games", str(games),
               "--rollout-steps", str(args.batch // games), "--update-epochs", str(args.epochs),
               "--total-steps", str(args.batch * args.iterations), "--eval-every", "0", "--eval-games", "2",
               "--eval-opponents", "random", "--no-progress", "--threads", "1"]
    else:
        runners, envs = (int(x) for x in case.split(":")[1].split("x"))
        cmd = [sys.executable, "-m", "agents.rllib_train", *common, "--env-runners", str(runners),
               "--envs-per-env-runner", str(envs), "--train-batch-size", str(args.batch),
               "--num-epochs", str(args.epochs), "--iterations", str(args.iterations), "--eval-every", "0",
               "--eval-games", "2", "--eval-opponents", "random", "--num-cpus", str(args.num_cpus),
               "--threads", "1"]
    return cmd


def run_case(case: str, args: argparse.Namespace, run_dir: Path) -> list[float]:
    """Steps per second of each iteration after the first, for ``case`` ("ppo" or "rllib:RxE")."""
    cmd = case_command(case, args, run_dir)
    done = subprocess.run(cmd, stdout=subprocess.DEVNULL)
    if done.returncode:
        raise SystemExit(f"case {case} failed (exit status {done.returncode}): {' '.join(cmd[1:])}")
    with open(run_dir / "metrics.csv") as f:
        rates = [float(row["steps_per_second"]) for row in csv.DictReader(f)]
    # The final evaluation (2 games against random) is outside the iterations' times.
    return rates[1:]


def main() -> None:
    """Run the cases in interleaved rounds and print a markdown table."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--game", default="yodd")
    parser.add_argument("--board-size", type=nonneg_int, default=6)
    parser.add_argument("--channels", type=positive_int, default=64)
    parser.add_argument("--blocks", type=nonneg_int, default=4)
    parser.add_argument("--batch", type=positive_int, default=4096, help="environment steps per update")
    parser.add_argument("--minibatch-size", type=positive_int, default=1024)
    parser.add_argument("--epochs", type=positive_int, default=4)
    parser.add_argument("--iterations", type=positive_int, default=4, help="updates per case and round (the first is dropped)")
    parser.add_argument("--rounds", type=positive_int, default=2, help="interleaved rounds (the median is reported)")
    parser.add_argument("--num-cpus", type=positive_int, default=2, help="CPUs of RLlib's local Ray")
    parser.add_argument("--rllib-cases", default="1x1,2x1",
                        help="comma-separated RLlib cases RUNNERSxENVS (env runners x games per runner)")
    args = parser.parse_args()
    # Everything checked before the first case trains.
    import importlib.util

    if importlib.util.find_spec("ray") is None:
        parser.error('Ray is not installed: pip install -e ".[rllib]" (the RLlib cases need it)')
    if args.iterations < 2:
        parser.error(f"--iterations must be 2 or more (the first is not measured), got {args.iterations}")
    if args.batch % PPO_GAMES:
        parser.error(f"--batch must be a multiple of {PPO_GAMES} (agents.train.ppo plays {PPO_GAMES} games side by side), "
                     f"got {args.batch}")
    if args.minibatch_size > args.batch:
        parser.error(f"--minibatch-size {args.minibatch_size} exceeds --batch {args.batch}")
    cases = ["ppo"]
    for c in (c.strip() for c in args.rllib_cases.split(",")):
        if c and not re.fullmatch(r"[1-9][0-9]*x[1-9][0-9]*", c):
            parser.error(f"--rllib-cases: {c!r} is not RUNNERSxENVS (e.g. 1x1,2x1: env runners x games per runner)")
        if c:
            cases.append(f"rllib:{c}")
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from agents.train import ppo, rllib_train

    for c in cases:  # each command through its trainer's own checks (game, board, sizes)
        argv = case_command(c, args, Path("unused"))[3:]
        try:
            if c == "ppo":
                ppo.validate_args(ppo.parse_args(argv))
            else:
                rllib_train.check_args(rllib_train.parse_args(argv))
        except ValueError as exc:
            parser.error(f"{c}: {exc}")
    labels = {"ppo": f"agents.train.ppo (batched engine, {PPO_GAMES} games)"}
    for c in cases[1:]:
        runners, envs = c.split(":")[1].split("x")
        labels[c] = f"RLlib, {runners} env runner{'s' * (runners != '1')} x {envs} game{'s' * (envs != '1')}"
    results: dict[str, list[float]] = {labels[c]: [] for c in cases}
    t0 = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        for r in range(args.rounds):
            for c in cases:
                rates = run_case(c, args, Path(tmp) / f"{c.replace(':', '_')}-{r}")
                results[labels[c]].append(statistics.median(rates))
                print(f"round {r + 1} {labels[c]}: {[round(x) for x in rates]}", file=sys.stderr, flush=True)
    print(f"{args.game} {args.board_size}, network {args.channels}x{args.blocks}, {args.batch} steps per update, "
          f"minibatch {args.minibatch_size}, {args.epochs} epochs; median over {args.rounds} rounds "
          f"({time.perf_counter() - t0:.0f} s)\n")
    print_rate_table("training (sampling + update)", results, labels["ppo"])


if __name__ == "__main__":
    main()
