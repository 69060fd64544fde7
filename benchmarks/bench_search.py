"""Search speeds with a network: simulations per second of the compiled batched search against
today's network-guided MCTS, in the same run; then ms per augmented batch.

For each network given (a checkpoint path, a pretrained name, or ``fresh:GAME`` for a freshly
initialised network of the default PPO config, e.g. ``fresh:yinsh`` where no network ships),
positions are drawn by random play from the start (``--plies`` random actions, at most), and
each searcher searches them for ``--simulations`` simulations:

* ``mcts network, Python tree (before)``: :class:`agents.players.mcts.MCTSAgent` with ``network=`` and
  ``compiled=False``, the network-guided search as it was before the compiled search: Python per node,
  one position at a time, ``k`` leaves per network call;
* ``mcts network, compiled``: the same player as it is now (``network=``: the compiled search, one tree);
* ``az, batch k``: the ``az`` player (:class:`agents.players.az.AZAgent`), one compiled tree, ``k``
  leaves per network call;
* ``batched search, T trees``: :class:`agents.search.BatchedSearch` over ``--trees`` positions at once,
  ``--leaves`` leaves per tree per wave: one network call per wave for all trees.

A second table times the search machinery alone, with a uniform evaluator instead of the network:
the Python tree against the batched search.

Each row is measured ``--rounds`` times, the rounds interleaved (the first compile excluded);
simulations per second are the medians, and the last column their ratio to the first row. Torch
runs on one thread.

    python benchmarks/bench_search.py xodd9 fresh:yinsh --simulations 200 --trees 128
    python benchmarks/bench_search.py runs/x5/last.pt --batches 1,8 --rounds 3
    python benchmarks/bench_search.py xodd9 --precisions float32,bfloat16

``--precisions`` adds the az player's and the batched search's rows with the network in bfloat16
(:class:`agents.search.NetworkEvaluator`'s ``precision``); ``--compile`` adds them again with the
network run through ``torch.compile`` (the evaluator's ``compile``; the compiling is done before the
timed rounds).

    python benchmarks/bench_search.py yinsh --precisions bfloat16 --compile --batches 8
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

import numpy as np
import torch

import agents
from agents.pretrained import network_file
from agents.search import BatchedSearch, NetworkEvaluator, SearchConfig
from agents.search.search import PRECISIONS, check_precision
from agents.train.checkpoint import load_network, read_metadata
from odd_env.game import Game, available_games, make
from odd_env.symmetry import map_batch, symmetries
from _args import nonneg_int, positive_int  # noqa: E402


def fresh_network(game: str, folder: Path) -> str:
    """The path of a freshly initialised network of the default PPO config for ``game`` (saved in ``folder``)."""
    from agents.train.ppo import Args, Trainer

    args = Args(game=game, num_games=2, rollout_steps=2, eval_opponents="random", run_dir=str(folder),
                tensorboard=False, progress=False, seed=0)
    return str(Trainer(args).save(folder / f"fresh-{game}.pt"))


def positions(game: Game, count: int, plies: int, seed: int) -> list:
    """``count`` positions, each after up to ``plies`` random actions from the start (never a finished game)."""
    rng = np.random.default_rng(seed)
    out = []
    while len(out) < count:
        state = game.new_state()
        for _ in range(int(rng.integers(plies + 1))):
            legal = state.legal_actions()
            child = state.child(int(legal[rng.integers(len(legal))]))
            if child.is_terminal:
                break
            state = child
        out.append(state)
    return out


def player_rate(spec: str, options: dict, states: list, simulations: int) -> float:
    """Simulations per second of a player searching each of ``states`` once (no tree reuse)."""
    player = agents.load(spec, simulations=simulations, reuse_tree=False, seed=0, **options)
    player.act(states[0])  # compiles / warms up
    sims, t = 0, time.perf_counter()
    for state in states:
        player.act(state)
        sims += player.last_simulations
    return sims / (time.perf_counter() - t)


def batched_rate(search: BatchedSearch, states: list, simulations: int) -> float:
    """Simulations per second of one batched search of every position of ``states`` (one tree each)."""
    search.set_roots(states)
    t = time.perf_counter()
    done = search.run(simulations)
    return float(done.sum()) / (time.perf_counter() - t)


def search_only_table(sources: list[str], a: argparse.Namespace) -> None:
    """Print simulations per second of the search machinery alone: a uniform evaluator (zero logits and
    values, no network) in the Python tree and in the batched search, for the game of every source."""
    shipped = {net.name: net for net in agents.pretrained_networks()}
    print("| game | searcher, uniform evaluator (no network) | sims/s (median) | min | max | vs first row |")
    print("|---|---|---:|---:|---:|---:|")
    for source in sources:
        if source.startswith("fresh:"):
            game = make(source[6:])
        else:
            meta = read_metadata(str(shipped[source].path) if source in shipped else source)
            game = make(meta["game"], meta["board_size"] or None, meta.get("variant", ""))
        n = game.num_actions
        states = positions(game, max(a.trees, a.moves), a.plies, a.seed)

        def uniform(planes: np.ndarray, masks: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
            return np.zeros((len(planes), n), np.float32), np.zeros(len(planes), np.float32)

        def python_tree() -> float:
            player = agents.load("mcts", simulations=a.simulations, policy_value_fn=lambda s: (np.ones(n), 0.0),
                                 group_weight=0.0, reuse_tree=False, seed=0)
            sims, t = 0, time.perf_counter()
            for state in states[:a.moves]:
                player.act(state)
                sims += player.last_simulations
            return sims / (time.perf_counter() - t)

        search = BatchedSearch(game, a.trees, uniform, SearchConfig(leaves=a.leaves))
        batched_rate(search, states[:a.trees], 2)  # compiles
        searchers = [("mcts Python tree, batch 1", python_tree),
                     (f"batched search, {a.trees} trees x {a.leaves} leaves",
                      lambda: batched_rate(search, states[:a.trees], a.simulations))]
        rows: list[tuple[str, list[float]]] = [(label, []) for label, _ in searchers]
        for _ in range(a.rounds):
            for (_, rates), (_, measure) in zip(rows, searchers):
                rates.append(measure())
        base = statistics.median(rows[0][1])
        for label, rates in rows:
            med = statistics.median(rates)
            print(f"| {game.label} | {label}, {a.simulations} sims | {med:,.0f} | {min(rates):,.0f} "
                  f"| {max(rates):,.0f} | {med / base:.1f}x |", flush=True)
    print()


def augment_ms(game, batch: int, rounds: int, seed: int) -> list[float]:
    """Milliseconds to map a batch of random observations, masks and actions by random symmetries."""
    rng = np.random.default_rng(seed)
    group = symmetries(game)
    obs = rng.integers(0, 2, size=(batch, *game.observation_shape), dtype=np.int8)
    obs[:, game.onboard_plane] = game.onboard.reshape(game.height, game.width)  # the board's own points
    mask = rng.integers(0, 2, size=(batch, game.num_actions)).astype(bool)
    actions = rng.integers(0, game.num_actions, size=batch)
    out = []
    for _ in range(rounds):
        which = rng.integers(len(group), size=batch)
        t = time.perf_counter()
        map_batch(group, which, obs, mask, actions)
        out.append(1e3 * (time.perf_counter() - t))
    return out


def search_table(sources: list[str], a: argparse.Namespace, batches: list[int], precisions: list[str],
                 folder: Path) -> None:
    """Print the simulations-per-second table of every network of ``sources``: the az player and the
    batched search once per network precision of ``precisions`` (and once more compiled, with ``--compile``)."""
    modes = [(precision, False) for precision in precisions] + (
        [(precision, True) for precision in precisions] if a.compile else [])
    shipped = {net.name: net for net in agents.pretrained_networks()}
    print("| game | network | searcher | sims/s (median) | min | max | vs first row |")
    print("|---|---|---|---:|---:|---:|---:|")
    for source in sources:
        path = fresh_network(source[6:], folder) if source.startswith("fresh:") else (
            str(shipped[source].path) if source in shipped else source)
        meta = read_metadata(path)
        game = make(meta["game"], meta["board_size"] or None, meta.get("variant", ""))
        cfg = meta["net_config"]
        net = f"{cfg['channels']}x{cfg['blocks']}, " + (
            "fresh" if source.startswith("fresh:") else f"{meta.get('global_step', 0):,} steps")
        states = positions(game, max(a.trees, a.moves), a.plies, a.seed)
        moves = states[:a.moves]
        network = load_network(path)
        batched = {}
        for precision, compiled in modes:
            batched[precision, compiled] = BatchedSearch(
                game, a.trees, NetworkEvaluator(network, precision=precision, compile=compiled),
                SearchConfig(leaves=a.leaves))
            batched_rate(batched[precision, compiled], states[:a.trees], 2)  # compiles
        searchers = [(f"mcts network, Python tree (before), batch {b}",
                      lambda b=b: player_rate("mcts", {"network": path, "batch": b, "compiled": False}, moves,
                                              a.simulations)) for b in batches]
        searchers += [(f"mcts network, compiled, batch {b}",
                       lambda b=b: player_rate("mcts", {"network": path, "batch": b}, moves, a.simulations))
                      for b in batches]
        def tag(precision: str, compiled: bool) -> str:
            return ("" if precision == "float32" else f", {precision}") + (", compiled" if compiled else "")

        for precision, compiled in modes:
            searchers += [(f"az, batch {b}{tag(precision, compiled)}",
                           lambda b=b, precision=precision, compiled=compiled: player_rate(
                               "az", {"network": path, "batch": b, "precision": precision, "compile": compiled},
                               moves, a.simulations))
                          for b in batches]
        searchers += [(f"batched search, {a.trees} trees x {a.leaves} leaves{tag(*mode)}",
                       lambda search=search: batched_rate(search, states[:a.trees], a.simulations))
                      for mode, search in batched.items()]
        rows: list[tuple[str, list[float]]] = [(label, []) for label, _ in searchers]
        for _ in range(a.rounds):  # rounds interleaved: a change of the machine's load hits every row alike
            for (_, rates), (_, measure) in zip(rows, searchers):
                rates.append(measure())
        base = statistics.median(rows[0][1])
        for label, rates in rows:
            med = statistics.median(rates)
            print(f"| {game.label} | {net} | {label}, {a.simulations} sims | {med:,.0f} | {min(rates):,.0f} "
                  f"| {max(rates):,.0f} | {med / base:.1f}x |", flush=True)
    print()


def main() -> None:
    """Parse the arguments, time, print the tables."""
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("networks", nargs="*",
                   help="PPO checkpoints, pretrained names, or fresh:GAME (each of its own game)")
    p.add_argument("--simulations", type=positive_int, default=200)
    p.add_argument("--moves", type=positive_int, default=8, help="positions each player searches per round")
    p.add_argument("--trees", type=positive_int, default=128, help="positions the batched search searches at once")
    p.add_argument("--leaves", type=positive_int, default=1, help="batched search: leaves per tree per wave")
    p.add_argument("--plies", type=nonneg_int, default=30, help="random actions (at most) before each position")
    p.add_argument("--batches", default="1,8", help="the players: leaves per network call, comma-separated")
    p.add_argument("--precisions", default="float32",
                   help="the az player and the batched search: network precisions, comma-separated "
                        f"({', '.join(PRECISIONS)})")
    p.add_argument("--compile", action="store_true",
                   help="add the az and batched-search rows with the network run through torch.compile")
    p.add_argument("--batch", type=positive_int, default=4096, help="samples per augmented batch")
    p.add_argument("--rounds", type=positive_int, default=3)
    p.add_argument("--seed", type=nonneg_int, default=0)
    a = p.parse_args()
    try:
        batches = [int(b) for b in a.batches.split(",")]
        if min(batches) < 1:
            raise ValueError
    except ValueError:
        p.error(f"--batches must be positive integers separated by commas, got {a.batches!r}")
    precisions = a.precisions.split(",")
    try:
        for precision in precisions:
            check_precision(precision, "--precisions")
    except ValueError as err:
        p.error(str(err))
    torch.set_num_threads(1)
    for source in a.networks:  # every network checked before any timing
        if source.startswith("fresh:"):
            if source[6:] not in available_games():
                p.error(f"{source}: fresh:GAME takes a game name ({', '.join(available_games())})")
            continue
        try:
            read_metadata(network_file(source))
        except (ValueError, OSError) as err:
            p.error(str(err))
    if a.networks:
        with tempfile.TemporaryDirectory() as folder:
            search_table(a.networks, a, batches, precisions, Path(folder))
        search_only_table(a.networks, a)
    print(f"| game | symmetries | map_batch of {a.batch:,} samples, ms (median) | min |")
    print("|---|---:|---:|---:|")
    boards = (("xodd", 5, ""), ("xodd", 9, ""), ("yodd", 3, ""), ("yodd", 6, ""), ("yinsh", None, ""))
    for name, size, variant in boards:
        game = make(name, size, variant)
        times = augment_ms(game, a.batch, a.rounds, a.seed)
        print(f"| {game.label} | {len(symmetries(game))} | {statistics.median(times):.1f} | {min(times):.1f} |")


if __name__ == "__main__":
    main()
