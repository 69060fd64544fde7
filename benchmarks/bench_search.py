"""Search and augmentation speeds: ms per move of MCTS (network-guided or with rollouts), ms per augmented batch.

For each network given (a checkpoint path or a pretrained name), MCTS with
the network's priors and values plays the game against the random player,
once for each ``--batches`` value (leaves per network call), and so does the
default MCTS (greedy priors and rollouts on Xodd/Yodd, random rollouts on
YINSH) at the same number of simulations; the table gives the median
milliseconds per move of the searching side over ``--games`` games. A second table times
:func:`odd_env.symmetry.map_batch` on a batch of ``--batch`` random samples
of every game (what ``python -m agents.ppo --augment`` adds to each update).

    python benchmarks/bench_search.py runs/x5/last.pt runs/y3/last.pt --simulations 200
    python benchmarks/bench_search.py xodd9 yodd6 --batches 1,8,16 --games 2
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np
import torch

import agents
from agents.train.checkpoint import read_metadata
from agents.pretrained import network_file
from odd_env.game import make
from odd_env.symmetry import map_batch, symmetries
from _args import nonneg_int, positive_int  # noqa: E402


def ms_per_move(spec: str, options: dict, game, games: int, seed: int) -> list[float]:
    """Milliseconds of every move the agent ``spec`` made in ``games`` games against random play."""
    times = []
    rng = np.random.default_rng(seed)
    for g in range(games):
        player = agents.load(spec, seed=seed + g, **options)
        state = game.new_state()
        side = g % 2
        while not state.is_terminal:
            if state.to_move == side:
                t = time.perf_counter()
                action = player.act(state)
                times.append(1e3 * (time.perf_counter() - t))
            else:
                legal = state.legal_actions()
                action = int(legal[rng.integers(len(legal))])
            state.apply(action)
    return times


def augment_ms(game, batch: int, rounds: int, seed: int) -> list[float]:
    """Milliseconds to map a batch of random observations, masks and actions by random symmetries."""
    rng = np.random.default_rng(seed)
    group = symmetries(game)
    obs = rng.integers(0, 2, size=(batch, *game.observation_shape), dtype=np.int8)
    mask = rng.integers(0, 2, size=(batch, game.num_actions)).astype(bool)
    actions = rng.integers(0, game.num_actions, size=batch)
    out = []
    for _ in range(rounds):
        which = rng.integers(len(group), size=batch)
        t = time.perf_counter()
        map_batch(group, which, obs, mask, actions)
        out.append(1e3 * (time.perf_counter() - t))
    return out


def main() -> None:
    """Parse the arguments, time, print the tables."""
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("networks", nargs="*", help="PPO checkpoints or pretrained names (each of its own game)")
    p.add_argument("--simulations", type=positive_int, default=200)
    p.add_argument("--games", type=positive_int, default=2, help="games per agent (half with each colour)")
    p.add_argument("--batches", default="1,8", help="network-guided search: leaves per network call, "
                   "comma-separated (default 1,8)")
    p.add_argument("--batch", type=positive_int, default=4096, help="samples per augmented batch")
    p.add_argument("--rounds", type=positive_int, default=10)
    p.add_argument("--seed", type=nonneg_int, default=0)
    a = p.parse_args()
    try:
        batches = [int(b) for b in a.batches.split(",")]
        if min(batches) < 1:
            raise ValueError
    except ValueError:
        p.error(f"--batches must be positive integers separated by commas, got {a.batches!r}")
    torch.set_num_threads(1)
    shipped = {net.name: net for net in agents.pretrained_networks()}
    for source in a.networks:  # every network checked before any timing
        try:
            read_metadata(network_file(source))
        except (ValueError, OSError) as err:
            p.error(str(err))
    if a.networks:
        print(f"| game | network | agent | ms/move (median) | min | max | moves |")
        print("|---|---|---|---:|---:|---:|---:|")
        for path in a.networks:
            path = str(shipped[path].path) if path in shipped else path
            meta = read_metadata(path)
            game = make(meta["game"], meta["board_size"] or None, meta.get("variant", ""))
            cfg = meta["net_config"]
            net = f"{cfg['channels']}x{cfg['blocks']}, {meta.get('global_step', 0):,} steps"
            runs = [(f"mcts network, batch {b}", {"network": path, "batch": b}) for b in batches]
            for label, options in runs + [("mcts rollouts", {})]:
                times = ms_per_move("mcts", {"simulations": a.simulations, **options}, game, a.games, a.seed)
                print(f"| {game.label} | {net} | {label}, {a.simulations} sims | {statistics.median(times):.1f} "
                      f"| {min(times):.1f} | {max(times):.1f} | {len(times)} |")
        print()
    print(f"| game | symmetries | map_batch of {a.batch:,} samples, ms (median) | min |")
    print("|---|---:|---:|---:|")
    for name, size, variant in (("xodd", 5, ""), ("xodd", 9, ""), ("yodd", 3, ""), ("yodd", 6, ""), ("yinsh", None, "")):
        game = make(name, size, variant)
        times = augment_ms(game, a.batch, a.rounds, a.seed)
        print(f"| {game.label} | {len(symmetries(game))} | {statistics.median(times):.1f} | {min(times):.1f} |")


if __name__ == "__main__":
    main()
