"""The AlphaZero trainer's policy targets compared at equal wall time: ``--policy-target gumbel`` vs ``visits``.

Each target trains one run of ``--minutes`` training minutes on a small board (Xodd 5 by default) with the
same settings and seed; then each run's network is measured against greedy and a fixed-strength MCTS, as
its raw policy (``ppo``: the most probable legal action, no search) and inside the ``az`` search
(``--az-simulations`` simulations a move). Prints a markdown table (win rates of the trained side, half
the games with each colour)::

    python benchmarks/bench_alphazero.py --minutes 5 --games 40 --out-dir runs/bench_az

The runs are kept in ``--out-dir`` (``gumbel/``, ``visits/``); an existing run there is overwritten.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from benchmarks._args import nonneg_int, positive_float, positive_int  # noqa: E402


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    p.add_argument("--minutes", type=positive_float, default=5.0, help="training minutes of each run")
    p.add_argument("--board-size", type=positive_int, default=5, help="Xodd board size")
    p.add_argument("--targets", default="gumbel,visits", help="policy targets to compare, comma-separated")
    p.add_argument("--games", type=positive_int, default=40, help="games per measurement (even: half each colour)")
    p.add_argument("--simulations", type=positive_int, default=16, help="self-play simulations of a full search")
    p.add_argument("--az-simulations", type=positive_int, default=32, help="simulations of the az player measured")
    p.add_argument("--mcts", default="mcts:simulations=200", help="the fixed-strength MCTS opponent's spec")
    p.add_argument("--channels", type=positive_int, default=32, help="network channels")
    p.add_argument("--blocks", type=nonneg_int, default=3, help="network residual blocks")
    p.add_argument("--threads", type=positive_int, default=1, help="torch threads")
    p.add_argument("--seed", type=nonneg_int, default=1, help="seed of the runs and the games")
    p.add_argument("--out-dir", default="runs/bench_az", help="where the runs go")
    return p


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    a = parser.parse_args(argv)
    targets = [t.strip() for t in a.targets.split(",") if t.strip()]
    if a.games % 2:
        parser.error(f"--games must be even (half the games with each colour), got {a.games}")
    import agents
    from agents.arena import round_robin
    from agents.train.alphazero import train
    from agents.train.az_args import POLICY_TARGETS, Args, validate_args
    from odd_env.game import make

    if not targets or set(targets) - set(POLICY_TARGETS):
        parser.error(f"--targets must name some of {', '.join(POLICY_TARGETS)}, got {a.targets!r}")
    runs = {t: Args(game="xodd", board_size=a.board_size, policy_target=t, simulations=a.simulations,
                    fast_simulations=max(1, a.simulations // 4), num_games=32, total_minutes=a.minutes,
                    total_steps=10**12, channels=a.channels, blocks=a.blocks, min_buffer=512, replay_ratio=8.0,
                    threads=a.threads, seed=a.seed, eval_every=0, eval_games=2, eval_opponents="random",
                    run_dir=str(Path(a.out_dir) / t), overwrite=True, tensorboard=False, progress=False)
            for t in targets}
    try:
        for args in runs.values():
            validate_args(args)
        opponents = {"greedy": agents.load("greedy", seed=a.seed), "mcts": agents.load(a.mcts, seed=a.seed)}
    except ValueError as err:
        parser.error(str(err))
    game = make("xodd", a.board_size)
    rows = []
    for target, args in runs.items():
        trainer = train(args)
        path = str(Path(args.run_dir) / "last.pt")
        players = {"policy": agents.load("ppo", path=path),
                   "az": agents.load("az", network=path, simulations=a.az_simulations, seed=a.seed)}
        rates = {}
        for who, player in players.items():
            for name, opponent in opponents.items():
                res = round_robin([player, opponent], game, games_per_pair=a.games, seed=a.seed, progress=False)
                rates[f"{who} vs {name}"] = res.win_rate(0, 1)[0]
        rows.append((target, trainer.global_step, trainer.counters["gradient_steps"], rates))
    keys = list(rows[0][3])
    print(f"\nXodd {a.board_size}, {a.minutes:g} training minutes a run, {a.games} games a measurement, "
          f"az = the network in the az search with {a.az_simulations} simulations, mcts = {a.mcts}")
    print("| target | self-play moves | gradient steps | " + " | ".join(keys) + " |")
    print("|---|---:|---:|" + "---:|" * len(keys))
    for target, moves, steps, rates in rows:
        print(f"| {target} | {moves:,} | {steps:,} | " + " | ".join(f"{rates[k]:.2f}" for k in keys) + " |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
