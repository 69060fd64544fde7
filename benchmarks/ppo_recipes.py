"""Train the PPO baseline on fixed recipes, evaluate it with the arena, print a table and plot curves.

    python benchmarks/ppo_recipes.py --recipes small          # Xodd 7x7, Yodd base 4: 15 min each
    python benchmarks/ppo_recipes.py --recipes full           # Xodd 9x9, Yodd base 6: 30 min each
    python benchmarks/ppo_recipes.py --recipes yinsh --parallel 1 --threads 2 --mcts-games 40   # YINSH: 15 min
    python benchmarks/ppo_recipes.py --recipes small --device cuda

``--league`` adds the greedy agent to the self-play opponents (30% of
games). Recipes run side by side (``--parallel``, one torch thread each); training
time is wall-clock time spent collecting and updating (evaluations excluded).
Checkpoints at the milestone minutes are evaluated afterwards with the
arena, ``--eval-games`` games per opponent, half with each colour. Outputs go
to ``--out``: one run directory per recipe, ``results.json``, and
``learning_curves.png`` (win rates logged during training).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path
from _args import nonneg_int, positive_float, positive_int  # noqa: E402

RECIPES = {
    "xodd7": dict(game="xodd", board_size=7, minutes=15, milestones="5,15", opponents="random,greedy",
                  train=["--channels", "32", "--blocks", "3", "--lr", "1e-3", "--num-games", "128",
                         "--rollout-steps", "32", "--update-epochs", "4", "--minibatch-size", "1024"]),
    "yodd4": dict(game="yodd", board_size=4, minutes=15, milestones="5,15", opponents="random,greedy",
                  train=["--channels", "32", "--blocks", "3", "--lr", "1e-3", "--num-games", "128",
                         "--rollout-steps", "32", "--update-epochs", "4", "--minibatch-size", "1024"]),
    "xodd9": dict(game="xodd", board_size=9, minutes=30, milestones="10,30",
                  opponents="random,greedy,mcts:simulations=200",
                  train=["--channels", "48", "--blocks", "4", "--lr", "5e-4", "--num-games", "128",
                         "--rollout-steps", "32", "--update-epochs", "4", "--minibatch-size", "1024"]),
    # Yodd 6: the recipe that beats greedy in 30 minutes (the trainer's defaults: 32x3, lr 1e-3,
    # 2 epochs of minibatches of 256) with its own league (greedy, 30% of games). "yodd6-old" is
    # the recipe before it (48x4, lr 5e-4, 4 epochs of 1,024; with --league).
    "yodd6": dict(game="yodd", board_size=6, minutes=30, milestones="10,20,30",
                  opponents="random,greedy,mcts:simulations=200",
                  train=["--channels", "32", "--blocks", "3", "--lr", "1e-3", "--num-games", "128",
                         "--rollout-steps", "32", "--update-epochs", "2", "--minibatch-size", "256",
                         "--scripted-opponents", "greedy", "--scripted-prob", "0.3"]),
    "yodd6-old": dict(game="yodd", board_size=6, minutes=30, milestones="10,30", label="yodd 6 (old recipe)",
                      opponents="random,greedy,mcts:simulations=200",
                      train=["--channels", "48", "--blocks", "4", "--lr", "5e-4", "--num-games", "128",
                             "--rollout-steps", "32", "--update-epochs", "4", "--minibatch-size", "1024"]),
    # YINSH: greedy does not play it, so the league opponent (and the evaluation during training)
    # is random; the trained network meets MCTS-200 at the end.
    "yinsh": dict(game="yinsh", board_size=0, minutes=15, milestones="5,10,15", label="YINSH",
                  opponents="random,mcts:simulations=200", eval_opponents="random",
                  train=["--channels", "32", "--blocks", "3", "--lr", "1e-3", "--num-games", "128",
                         "--rollout-steps", "32", "--update-epochs", "2", "--minibatch-size", "256",
                         "--eval-every", "5", "--scripted-opponents", "random", "--scripted-prob", "0.5"]),
}
GROUPS = {"small": ["xodd7", "yodd4"], "full": ["xodd9", "yodd6"], "all": list(RECIPES)}


def label(name: str) -> str:
    """The recipe's game and board in words (plot titles)."""
    r = RECIPES[name]
    return r.get("label") or f"{r['game']} {r['board_size']}"


def train_command(name: str, out: Path, device: str, seed: int, minutes: float | None,
                  extra: list[str], threads: int = 1) -> list[str]:
    """The ``python -m agents.ppo`` command of a recipe."""
    r = RECIPES[name]
    return [sys.executable, "-m", "agents.ppo", "--game", r["game"], "--board-size", str(r["board_size"]),
            "--total-minutes", str(r["minutes"] if minutes is None else minutes), "--total-steps", str(10**10),
            "--milestones", r["milestones"], "--eval-every", "10", "--eval-games", "50",
            "--eval-opponents", r.get("eval_opponents", "random,greedy"), "--threads", str(threads), "--device", device, "--seed", str(seed),
            "--run-dir", str(out / name), "--no-progress", *r["train"], *extra]


def check_command(cmd: list[str]) -> str | None:
    """What agents.train.ppo would refuse in a recipe's command (its arguments, the device, a run
    directory that holds a run), or None: checked here, before any recipe trains."""
    from agents.train.ppo import check_run, parse_args

    try:
        check_run(parse_args(cmd[3:]))
    except (ValueError, OSError) as exc:
        return str(exc)
    return None


def evaluate(name: str, out: Path, games: int, seed: int, mcts_games: int, workers: int = 1) -> list[dict]:
    """Arena results of every milestone checkpoint of a recipe."""
    import agents
    from agents.arena import round_robin

    r = RECIPES[name]
    rows = []
    ckpts = sorted((out / name).glob("at-*min.pt"), key=lambda p: float(p.stem[3:-3]))
    for ckpt in ckpts:
        ppo = agents.load("ppo", path=str(ckpt), greedy=True)
        for spec in r["opponents"].split(","):
            if spec.startswith("mcts") and ckpt != ckpts[-1]:
                continue  # the slow opponent meets only the final network
            n_games = mcts_games if spec.startswith("mcts") else games
            res = round_robin([ppo, spec], r["game"], r["board_size"] or None, games_per_pair=n_games, seed=seed,
                              progress=False, labels=["ppo", spec], workers=workers)
            rate, lo, hi, n = res.win_rate(0, 1)
            rows.append(dict(recipe=name, checkpoint=ckpt.name, minutes=float(ckpt.stem[3:-3]), opponent=spec,
                             win_rate=float(rate), ci_low=float(lo), ci_high=float(hi), games=int(n)))
            print(f"{name} {ckpt.name} vs {spec}: {rate:.3f} [{lo:.3f}, {hi:.3f}] over {n} games", flush=True)
    return rows


def plot(names: list[str], out: Path) -> Path:
    """Learning curves (logged win rates against training minutes) as one PNG."""
    import csv

    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, len(names), figsize=(5 * len(names), 3.6), squeeze=False)
    for ax, name in zip(axes[0], names):
        rows = list(csv.DictReader(open(out / name / "metrics.csv")))
        for key in [k for k in rows[0] if k.startswith("win_rate/")]:
            pts = [(float(r["train_minutes"]), float(r[key])) for r in rows if r.get(key) not in ("", None)]
            if pts:
                ax.plot(*zip(*pts), marker="o", ms=3, label=key.split("/")[1])
        ax.set_title(label(name))
        ax.set_xlabel("training minutes")
        ax.set_ylabel("win rate (50 games/point)")
        ax.set_ylim(0, 1)
        ax.grid(alpha=0.3)
        ax.legend()
    fig.tight_layout()
    path = out / f"learning_curves_{'_'.join(names)}.png"
    fig.savefig(path, dpi=110)
    return path


def main() -> None:
    """Run the chosen recipes, then evaluate and report."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--recipes", choices=list(GROUPS) + list(RECIPES), default="small")
    parser.add_argument("--out", default="runs/recipes", help="output directory")
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--seed", type=nonneg_int, default=1)
    parser.add_argument("--parallel", type=positive_int, default=2, help="recipes trained at once")
    parser.add_argument("--threads", type=positive_int, default=1,
                        help="torch threads of each training run (parallel x threads <= the machine's cores; "
                             "one recipe on 2 cores: --parallel 1 --threads 2)")
    parser.add_argument("--minutes", type=positive_float, default=None, help="override every recipe's training minutes")
    parser.add_argument("--eval-games", type=positive_int, default=400)
    parser.add_argument("--skip-training", action="store_true", help="only evaluate existing checkpoints")
    parser.add_argument("--league", action="store_true",
                        help="also train against the greedy agent (--scripted-opponents greedy --scripted-prob 0.3); "
                             "the yinsh recipe has its own league (random, 0.5)")
    parser.add_argument("--mcts-games", type=positive_int, default=50, help="evaluation games against mcts (slow)")
    parser.add_argument("--workers", type=positive_int, default=1, help="processes for the evaluation games")
    parser.add_argument("--overwrite", action="store_true",
                        help="train again where --out already holds a recipe's run (agents.train.ppo --overwrite)")
    args = parser.parse_args()
    for name in ("eval_games", "mcts_games"):  # checked now, not after the training
        value = getattr(args, name)
        if value < 2 or value % 2:
            parser.error(f"--{name.replace('_', '-')} must be even and >= 2 (half with each colour), got {value}")
    out = Path(args.out)
    if out.exists() and not out.is_dir():
        parser.error(f"--out {out} is a file: give a directory")

    names = GROUPS.get(args.recipes, [args.recipes])
    commands = {}
    for name in names:  # every recipe checked before any training starts or any file is written
        if args.skip_training:
            if not list((out / name).glob("at-*min.pt")) or not (out / name / "metrics.csv").is_file():
                parser.error(f"--skip-training: {out / name} holds no trained recipe (at-*min.pt checkpoints and "
                             "metrics.csv); train it first (without --skip-training)")
            continue
        own = "--scripted-opponents" in RECIPES[name]["train"]
        extra = ["--scripted-opponents", "greedy", "--scripted-prob", "0.3"] if args.league and not own else []
        extra += ["--overwrite"] if args.overwrite else []
        commands[name] = train_command(name, out, args.device, args.seed, args.minutes, extra, args.threads)
        problem = check_command(commands[name])
        if problem:
            parser.error(f"recipe {name}: {problem} (this script: --overwrite, or another --out; "
                         "--skip-training evaluates a trained recipe as it is)")
    out.mkdir(parents=True, exist_ok=True)
    if not args.skip_training:
        pending = list(names)
        running: list[tuple[str, subprocess.Popen, float]] = []
        while pending or running:
            while pending and len(running) < args.parallel:
                name = pending.pop(0)
                cmd = commands[name]
                print("$", " ".join(cmd[1:]), flush=True)
                log = open(out / f"{name}.log", "w")
                running.append((name, subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT), time.time()))
            time.sleep(5)
            for item in list(running):
                name, proc, start = item
                if proc.poll() is not None:
                    running.remove(item)
                    if proc.returncode:
                        for _, other, _ in running:  # the other recipes would go on training unseen
                            other.terminate()
                            other.wait()
                        raise SystemExit(f"{name} failed: see {out / (name + '.log')}")
                    print(f"{name} trained in {(time.time() - start) / 60:.1f} min wall", flush=True)
    rows = []
    for name in names:
        rows += evaluate(name, out, args.eval_games, args.seed, args.mcts_games, args.workers)
    (out / f"results_{'_'.join(names)}.json").write_text(json.dumps(rows, indent=2))
    png = plot(names, out)
    print("\n| recipe | training minutes | opponent | win rate | 95% CI | games |")
    print("|---|---:|---|---:|---|---:|")
    for r in rows:
        print(f"| {r['recipe']} | {r['minutes']:g} | {r['opponent']} | {r['win_rate']:.3f} | "
              f"[{r['ci_low']:.3f}, {r['ci_high']:.3f}] | {r['games']} |")
    print(f"\nlearning curves: {png}")


if __name__ == "__main__":
    main()
