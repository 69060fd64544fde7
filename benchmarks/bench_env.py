"""Random legal play through the AEC environments (Xodd, Yodd, YINSH), side by side with PettingZoo's go_v5.

Every environment runs in this process through the loop PettingZoo's documentation shows::

    for agent in env.agent_iter():
        obs, reward, term, trunc, info = env.last()
        action = None if term or trunc else <uniform legal action from obs["action_mask"]>
        env.step(action)

every step counted, the final ``None`` steps of a finished game included, and a new game by
``env.reset()`` after the loop ends (the reset's time counted too). The environments run in
interleaved rounds; the table reports the median steps per second over the rounds and the ratio to
go_v5 9x9. go_v5 needs pygame (``pip install pygame``, in the ``bench`` extra); without it the Go
rows are skipped.

    python benchmarks/bench_env.py --seconds 2 --rounds 7
    python benchmarks/bench_env.py --sizes --raw     # more board sizes, and the unwrapped raw_env rows
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
from _args import nonneg_int, positive_float, positive_int  # noqa: E402
from _table import print_rate_table

import odd_env
from odd_env import xodd_v0, yinsh_v0, yodd_v0

BASELINE = "go_v5 9x9 env()"


def steps_per_second(make: Callable, seconds: float, seed: int, clock: Callable[[], float] = time.perf_counter) -> float:
    """Steps/s of uniform random legal play in the env made by ``make``, in PettingZoo's documented loop.

    Whole games are played; ``clock`` is read after each (so a measurement lasts at least
    ``seconds`` of it and ends with a game)."""
    env = make()
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    choice, flatnonzero = rng.choice, np.flatnonzero
    steps = 0
    start = clock()
    deadline = start + seconds
    while True:
        for _agent in env.agent_iter():
            obs, _reward, term, trunc, _info = env.last()
            action = None if term or trunc else int(choice(flatnonzero(obs["action_mask"])))
            env.step(action)
            steps += 1
        if clock() > deadline:
            break
        env.reset()
    return steps / (clock() - start)


def cases(sizes: bool, raw: bool) -> dict[str, Callable]:
    """The environments to measure, by table row."""
    out: dict[str, Callable] = {}
    try:
        from pettingzoo.classic import go_v5

        out[BASELINE] = lambda: go_v5.env(board_size=9)
        if sizes:
            out["go_v5 13x13 env()"] = lambda: go_v5.env(board_size=13)
    except ImportError as err:  # pragma: no cover - optional competitor
        print(f"go_v5 skipped: {err}")
    for module, board_sizes in ((xodd_v0, (9, 14)), (yodd_v0, (6, 10))):
        name = module.__name__.split(".")[-1]
        for size in board_sizes if sizes else board_sizes[:1]:
            out[f"{name} {size} env()"] = lambda m=module, s=size: m.env(board_size=s)
            if raw:
                out[f"{name} {size} raw_env"] = lambda m=module, s=size: m.raw_env(board_size=s)
    for blitz in (False, True):
        name = "yinsh_v0" + (" blitz" if blitz else "")
        out[f"{name} env()"] = lambda b=blitz: yinsh_v0.env(blitz=b)
        if raw:
            out[f"{name} raw_env"] = lambda b=blitz: yinsh_v0.raw_env(blitz=b)
    return out


def main() -> None:
    """Run the benchmark and print a markdown table."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seconds", type=positive_float, default=2.0, help="seconds per measurement")
    parser.add_argument("--rounds", type=positive_int, default=7, help="interleaved rounds (the median is reported)")
    parser.add_argument("--seed", type=nonneg_int, default=0)
    parser.add_argument("--sizes", action="store_true", help="also Go 13x13, Xodd 14 and Yodd 10")
    parser.add_argument("--raw", action="store_true", help="also the raw_env rows (no wrappers)")
    parser.add_argument("--clock", choices=("wall", "cpu"), default="wall",
                        help="steps per second of wall-clock time, or of this process's CPU time (steadier on "
                             "a machine shared with other jobs)")
    args = parser.parse_args()

    clock = time.perf_counter if args.clock == "wall" else time.process_time
    todo = cases(args.sizes, args.raw)
    for make in todo.values():  # warm up (numba compilation, caches)
        steps_per_second(make, 0.2, args.seed, clock)
    results: dict[str, list[float]] = {k: [] for k in todo}
    for r in range(args.rounds):
        for name, make in todo.items():
            results[name].append(steps_per_second(make, args.seconds, args.seed + r, clock))

    print(f"odd_env from {Path(odd_env.__file__).parent}")
    print(f"random legal play in PettingZoo's documented agent_iter loop, median of {args.rounds} rounds "
          f"x {args.seconds:g} s of {'wall-clock' if args.clock == 'wall' else 'CPU'} time")
    print_rate_table("env", results, BASELINE)


if __name__ == "__main__":
    main()
