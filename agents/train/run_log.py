"""The logs of a PPO run (:mod:`agents.train.ppo`): the metrics in a CSV file and TensorBoard, and
the progress bar toward whichever limit (steps or minutes) ends the run first."""

from __future__ import annotations

import csv
import io
import math
from pathlib import Path
from typing import Any

from odd_env._files import JOURNAL_LIMIT, read_text, write_atomic


# ============================================================ the run
class RunLog:
    """Every metric to a CSV file (one row per update) and to TensorBoard.

    ``resume_step``: the step of the checkpoint a run resumes from; rows
    logged after it (by the run that was interrupted) are dropped from the
    CSV, and TensorBoard hides their events.
    """

    def __init__(self, run_dir: Path, tensorboard: bool, resume_step: int | None = None):
        self.path = run_dir / "metrics.csv"
        self.rows: list[dict[str, float]] = []
        if resume_step is not None and self.path.exists():
            text = read_text(self.path, "metrics file", JOURNAL_LIMIT)
            # An empty cell is a metric that row did not log (e.g. no evaluation): leave it out.
            rows = [{k: float(v) for k, v in r.items() if v != ""} for r in csv.DictReader(io.StringIO(text, newline=""))]
            self.rows = [r for r in rows if r.get("global_step", math.inf) <= resume_step]
            self._write()
        self.writer = None
        if tensorboard:
            try:
                from torch.utils.tensorboard import SummaryWriter
            except ImportError:
                print("tensorboard is not installed: logging to metrics.csv only "
                      "(pip install tensorboard, or the project's agents or dev extra)")
            else:
                purge = None if resume_step is None else resume_step + 1
                self.writer = SummaryWriter(str(run_dir / "tb"), purge_step=purge)

    def _write(self) -> None:
        keys: list[str] = []
        for r in self.rows:
            keys += [k for k in r if k not in keys]
        buf = io.StringIO(newline="")
        w = csv.DictWriter(buf, fieldnames=keys)
        w.writeheader()
        w.writerows(self.rows)
        write_atomic(self.path, buf.getvalue(), what="metrics file")  # a killed run never leaves a half-written CSV

    def log(self, step: int, metrics: dict[str, float]) -> None:
        """Append one row and rewrite the CSV atomically."""
        self.rows.append({"global_step": float(step), **metrics})
        self._write()
        if self.writer is not None:
            for k, v in metrics.items():
                if not math.isnan(v):
                    self.writer.add_scalar(k, v, step)
            self.writer.flush()

    def close(self) -> None:
        """Close the TensorBoard writer."""
        if self.writer is not None:
            self.writer.close()


def progress_toward_limit(args: Any, trainer: Any) -> tuple[float, str]:
    """(fraction done, "steps" or "time"): how far the run is toward whichever limit ends it first."""
    steps = trainer.global_step / args.total_steps
    if args.total_minutes:
        minutes = trainer.train_seconds / (60 * args.total_minutes)
        if minutes > steps:
            return min(1.0, minutes), "time"
    return min(1.0, steps), "steps"


def stop_reason(args: Any, trainer: Any) -> str | None:
    """Which limit the run has reached ("step limit", "time limit"), or None."""
    if trainer.global_step >= args.total_steps:
        return "step limit"
    if args.total_minutes and trainer.train_seconds >= 60 * args.total_minutes:
        return "time limit"
    return None


class Progress:
    """A tqdm bar in percent of the nearer limit (or nothing, with a note, without tqdm)."""

    def __init__(self, args: Any, trainer: Any):
        self.args, self.trainer, self.bar = args, trainer, None
        try:
            from tqdm import tqdm
        except ImportError:
            print("tqdm is not installed: no progress bar (pip install tqdm)")
            return
        fraction, desc = self._where()
        self.bar = tqdm(total=100.0, initial=100 * fraction, desc=desc, unit="%", dynamic_ncols=True,
                        bar_format="{desc}: {percentage:3.0f}%|{bar}| [{elapsed}<{remaining}{postfix}]")

    def _where(self) -> tuple[float, str]:
        a, t = self.args, self.trainer
        fraction, limit = progress_toward_limit(a, t)
        if limit == "steps":
            return fraction, f"{t.global_step:,}/{a.total_steps:,} steps"
        return fraction, f"{t.train_seconds / 60:.1f}/{a.total_minutes:g} min"

    def show(self, postfix: dict[str, str]) -> None:
        """Move the bar to the run's progress."""
        if self.bar is None:
            return
        fraction, desc = self._where()
        self.bar.set_description_str(desc, refresh=False)
        self.bar.set_postfix(postfix, refresh=False)
        self.bar.update(100 * fraction - self.bar.n)

    def close(self) -> None:
        """Close the bar."""
        if self.bar is not None:
            self.bar.close()
