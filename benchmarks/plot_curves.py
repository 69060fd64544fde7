"""Plot the win rates that training runs logged against training minutes, on one figure.

    python benchmarks/plot_curves.py runs/a runs/b --labels "4 epochs" "2 epochs" \\
        --metric win_rate/random --out docs/learning_curves_yinsh.png --title "YINSH, 15 minutes"

Each run directory is one of ``python -m agents.ppo --run-dir`` (or ``python -m agents.alphazero``); its
``metrics.csv`` holds a ``win_rate/<opponent>`` column for every evaluation
opponent (``--eval-opponents``), filled every ``--eval-every`` updates.
"""

from __future__ import annotations

import argparse
import csv
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from _args import positive_int  # noqa: E402
from odd_env._files import check_can_make_dir  # noqa: E402


def read_curve(run_dir: Path, metric: str) -> list[tuple[float, float]]:
    """(training minutes, value) at every row of the run's metrics.csv that logged ``metric``."""
    path = run_dir / "metrics.csv"
    if not path.is_file():
        raise ValueError(f"{run_dir} holds no metrics.csv (not a PPO run directory?)")
    try:
        with open(path, newline="", encoding="utf-8") as f:
            rows = list(csv.DictReader(f))
    except (UnicodeDecodeError, csv.Error) as err:
        raise ValueError(f"{path} is not a metrics CSV ({err})") from None
    if rows and metric not in rows[0]:
        have = sorted(k for k in rows[0] if k.startswith("win_rate/"))
        raise ValueError(f"{path} has no column {metric!r}; it has {', '.join(have) or 'no win rates'}")
    try:
        points = [(float(r["train_minutes"]), float(r[metric])) for r in rows if r.get(metric) not in ("", None)]
    except (KeyError, ValueError) as err:
        raise ValueError(f"{path}: every row needs numbers in train_minutes and {metric} ({err!r})") from None
    if not points:
        raise ValueError(f"{path} holds no value of {metric} yet (the run has not evaluated: --eval-every)")
    return points


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("runs", nargs="+", type=Path, help="run directories")
    parser.add_argument("--labels", nargs="+", help="one legend label per run (default: the directory names)")
    parser.add_argument("--metric", nargs="+", default=["win_rate/random"],
                        help="the metrics.csv column to plot: one for every run, or one per run (a run given twice "
                             "plots two of its columns)")
    parser.add_argument("--title", default="")
    parser.add_argument("--games", type=positive_int, default=None, help="games per point, for the axis label")
    parser.add_argument("--out", type=Path, required=True, help="the PNG to write")
    args = parser.parse_args(argv)
    labels = args.labels or [run.name for run in args.runs]
    if len(labels) != len(args.runs):
        parser.error(f"{len(args.runs)} runs but {len(labels)} labels")
    metrics = args.metric * len(args.runs) if len(args.metric) == 1 else args.metric
    if len(metrics) != len(args.runs):
        parser.error(f"{len(args.runs)} runs but {len(args.metric)} metrics: give one for every run, or one per run")
    if args.out.suffix.lower() != ".png" or args.out.is_dir():
        parser.error(f"--out must name a .png file, got {args.out}")
    try:
        curves = [read_curve(run, metric) for run, metric in zip(args.runs, metrics)]  # all read before drawing
        check_can_make_dir(args.out.parent, "the folder of --out")
    except ValueError as err:
        parser.error(str(err))

    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6.4, 4.0 + 0.25 * len(args.runs)))
    for pts, label in zip(curves, labels):
        ax.plot(*zip(*pts), marker="o", ms=3, label=label)
    ax.set_xlabel("training minutes")
    per_point = f" ({args.games} games/point)" if args.games else ""
    shown = metrics[0].replace("win_rate/", "score against ") if len(set(metrics)) == 1 else "score"
    ax.set_ylabel(f"{shown}{per_point}")
    ax.set_ylim(0, 1)
    ax.grid(alpha=0.3)
    # Below the axes: curves that reach 1.0 fill every corner of the plot.
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.16), ncol=1, frameon=False)
    if args.title:
        ax.set_title(args.title)
    fig.tight_layout()
    args.out.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(args.out, dpi=110)
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
