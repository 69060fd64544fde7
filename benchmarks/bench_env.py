"""Random legal play through the AEC environments (Xodd, Yodd, YINSH), side by side with PettingZoo's go_v5.

Every environment runs in this process through the same loop (``last()``,
a uniform legal action from the mask, ``step``), in interleaved rounds; the
table reports the median steps per second over the rounds and the ratio to
go_v5 9x9. go_v5 needs pygame (``pip install pygame``); without it the Go
rows are skipped.

    python benchmarks/bench_env.py --seconds 3 --rounds 5
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable

import numpy as np
from _args import nonneg_int, positive_float, positive_int  # noqa: E402
from _table import print_rate_table

from odd_env import xodd_v0, yinsh_v0, yodd_v0


def steps_per_second(make: Callable, seconds: float, seed: int) -> float:
    """Steps/s of uniform random legal play in the env made by ``make``."""
    env = make()
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    steps = 0
    start = time.perf_counter()
    deadline = start + seconds
    while True:
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            if time.perf_counter() > deadline:
                break
            env.reset()
            continue
        env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        steps += 1
    return steps / (time.perf_counter() - start)


def main() -> None:
    """Run the benchmark and print a markdown table."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seconds", type=positive_float, default=3.0, help="seconds per measurement")
    parser.add_argument("--rounds", type=positive_int, default=5, help="interleaved rounds (the median is reported)")
    parser.add_argument("--seed", type=nonneg_int, default=0)
    args = parser.parse_args()

    cases: dict[str, Callable] = {}
    try:
        from pettingzoo.classic import go_v5

        cases["go_v5 9x9 env()"] = lambda: go_v5.env(board_size=9)
        cases["go_v5 13x13 env()"] = lambda: go_v5.env(board_size=13)
    except ImportError as err:  # pragma: no cover - optional competitor
        print(f"go_v5 skipped: {err}")
    for module, sizes in ((xodd_v0, (9, 14)), (yodd_v0, (6, 10))):
        name = module.__name__.split(".")[-1]
        for size in sizes:
            cases[f"{name} {size} env()"] = lambda m=module, s=size: m.env(board_size=s)
            cases[f"{name} {size} raw_env"] = lambda m=module, s=size: m.raw_env(board_size=s)
    for blitz in (False, True):
        name = "yinsh_v0" + (" blitz" if blitz else "")
        cases[f"{name} env()"] = lambda b=blitz: yinsh_v0.env(blitz=b)
        cases[f"{name} raw_env"] = lambda b=blitz: yinsh_v0.raw_env(blitz=b)

    for make in cases.values():  # warm up (numba compilation, caches)
        steps_per_second(make, 0.2, args.seed)
    results: dict[str, list[float]] = {k: [] for k in cases}
    for r in range(args.rounds):
        for name, make in cases.items():
            results[name].append(steps_per_second(make, args.seconds, args.seed + r))

    print(f"random legal play, median of {args.rounds} rounds x {args.seconds:g} s")
    print_rate_table("env", results, "go_v5 9x9 env()")

if __name__ == "__main__":
    main()
