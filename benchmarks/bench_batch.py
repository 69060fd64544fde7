"""Batched random play: OddBatch and YinshBatch against Pgx's hex (JAX, jit + vmap) in one run.

Both engines play uniformly random legal actions, produce observations and
legal-action masks every step, and reset finished games automatically. Pgx
(``pip install pgx jax``) is optional: without it its row is skipped. The
table reports the median steps per second over interleaved rounds.

    python benchmarks/bench_batch.py --batch 1024 --seconds 3 --rounds 5
"""

from __future__ import annotations

import argparse
import os
import time

import numpy as np
from _args import nonneg_int, positive_float, positive_int  # noqa: E402
from _table import print_rate_table

from odd_env.games.odd.batch import OddBatch
from odd_env.games.yinsh.batch import YinshBatch


def odd_rate(game: str, size: int | bool, batch: int, seconds: float, seed: int) -> float:
    """Steps/s (games x steps) of OddBatch, or YinshBatch (``size``: blitz), with uniform random legal actions."""
    engine = YinshBatch(batch, blitz=size) if game == "yinsh" else OddBatch(game, size, batch)
    engine.reset()
    rng = np.random.default_rng(seed)
    for _ in range(20):
        engine.step(engine.random_actions(rng))
    steps = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        engine.step(engine.random_actions(rng))
        steps += batch
    return steps / (time.perf_counter() - start)


def make_pgx_runner(batch: int):
    """A compiled Pgx hex 11x11 step (random legal actions, auto-reset), or None."""
    try:
        import jax
        import jax.numpy as jnp
        import pgx
        from pgx.experimental import auto_reset
    except ImportError as err:
        print(f"pgx skipped: {err}")
        return None
    env = pgx.make("hex")
    init = jax.jit(jax.vmap(env.init))
    step = jax.vmap(auto_reset(env.step, env.init))

    @jax.jit
    def one(state, key):
        k_act, k_reset = jax.random.split(key)
        logits = jnp.where(state.legal_action_mask, 0.0, -jnp.inf)
        action = jax.random.categorical(k_act, logits, axis=-1)
        return step(state, action, jax.random.split(k_reset, batch))

    def rate(seconds: float, seed: int) -> float:
        key = jax.random.PRNGKey(seed)
        state = init(jax.random.split(key, batch))
        for _ in range(20):
            key, sub = jax.random.split(key)
            state = one(state, sub)
        state.observation.block_until_ready()
        steps = 0
        start = time.perf_counter()
        while time.perf_counter() - start < seconds:
            key, sub = jax.random.split(key)
            state = one(state, sub)
            steps += batch
        state.observation.block_until_ready()
        return steps / (time.perf_counter() - start)

    return rate


def main() -> None:
    """Run the benchmark and print a markdown table."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--batch", type=positive_int, default=1024, help="games stepped together")
    parser.add_argument("--seconds", type=positive_float, default=3.0, help="seconds per measurement")
    parser.add_argument("--rounds", type=positive_int, default=5, help="interleaved rounds (the median is reported)")
    parser.add_argument("--seed", type=nonneg_int, default=0)
    args = parser.parse_args()

    cases = {f"OddBatch xodd {s}": ("xodd", s) for s in (9, 11, 14)}
    cases.update({f"OddBatch yodd {s}": ("yodd", s) for s in (6, 10)})
    cases.update({"YinshBatch": ("yinsh", False), "YinshBatch blitz": ("yinsh", True)})
    pgx_rate = make_pgx_runner(args.batch)
    results: dict[str, list[float]] = {k: [] for k in cases}
    if pgx_rate is not None:
        results["pgx hex 11x11 (jit+vmap)"] = []
    for r in range(args.rounds):
        for name, (game, size) in cases.items():
            results[name].append(odd_rate(game, size, args.batch, args.seconds, args.seed + r))
        if pgx_rate is not None:
            results["pgx hex 11x11 (jit+vmap)"].append(pgx_rate(args.seconds, args.seed + r))

    print(f"random legal play with observations and masks, batch {args.batch}, "
          f"median of {args.rounds} rounds x {args.seconds:g} s, {os.cpu_count()} CPUs")
    print_rate_table("engine", results, "pgx hex 11x11 (jit+vmap)" if pgx_rate else None)

if __name__ == "__main__":
    main()
