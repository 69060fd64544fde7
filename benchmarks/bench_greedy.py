"""The greedy turn (the kernel of the greedy player, of MCTS's priors and of its rollouts), side by side.

Times :func:`odd_env.games.odd.heuristics.best_turn` on the positions of greedy games (each
from a few random opening moves) on every board given, and, with
``--against REV``, the ``best_turn`` of the greedy kernel as it was at git
revision ``REV``, loaded into the same process and timed on the same positions
with the same tie-break seeds in interleaved rounds. It checks that both
choose the same turn with the same score on every position (tie-breaks
included, so seeded games and arena journals replay unchanged) and prints the
median microseconds per call and the ratio.

    python benchmarks/bench_greedy.py --against d9d105a
    python benchmarks/bench_greedy.py --boards xodd:13,yodd:8 --games 8 --rounds 5

Only the greedy kernel's file is taken from ``REV``; the rules kernels it calls
are today's.
"""

from __future__ import annotations

import argparse
import importlib.util
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

import odd_env.games.odd.heuristics as current
from odd_env.games.odd import kernels as K
from odd_env.game import make
from _args import nonneg_int, positive_int  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
NO_SCORES = np.empty((2, 0), dtype=np.int64)


KERNEL_FILES = ("odd_env/games/odd/heuristics.py", "agents/greedy.py")
"""Where the greedy kernel lives, newest layout first (it was agents/greedy.py before the game folders)."""
OLD_IMPORTS = {  # the module paths of the layout before the game folders, as the present layout names them
    "odd_env.core.kernels": "odd_env.games.odd.kernels", "odd_env.core.geometry": "odd_env.common.geometry",
    "odd_env.core.state": "odd_env.games.odd.state", "agents._xorshift": "odd_env.common.xorshift",
}


def load_revision(rev: str):
    """The greedy kernel of git revision ``rev`` as a module of its own (compiled afresh, not cached)."""
    errors = []
    for name in KERNEL_FILES:
        try:
            source = subprocess.run(["git", "show", "--end-of-options", f"{rev}:{name}"], cwd=ROOT, check=True,
                                    capture_output=True, text=True).stdout
            break
        except (OSError, subprocess.CalledProcessError) as err:
            errors.append(str(getattr(err, "stderr", "") or err).strip())
    else:
        raise LookupError(f"cannot read the greedy kernel at that revision ({'; '.join(errors)})")
    package = "odd_env.games.odd" if name.startswith("odd_env") else "agents"
    source = re.sub(r"^from \.\.\.(\w+)", r"from odd_env.\1", source, flags=re.M)
    source = re.sub(r"^from \.(\w+) import", rf"from {package}.\1 import", source, flags=re.M)
    source = re.sub(r"^from \. import", rf"from {package} import", source, flags=re.M)
    for old, new in OLD_IMPORTS.items():
        source = re.sub(rf"^from {re.escape(old)} import", f"from {new} import", source, flags=re.M)
    source = source.replace("from odd_env.core import kernels as K", "from odd_env.games.odd import kernels as K")
    source = source.replace("@njit(cache=True", "@njit(cache=False")
    path = Path(tempfile.mkdtemp(prefix="bench_greedy_")) / "greedy_at_rev.py"
    path.write_text(source)
    spec = importlib.util.spec_from_file_location("greedy_at_rev", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def positions(game: str, size: int, games: int, opening: int, seed: int) -> list[np.ndarray]:
    """The step-1 positions of ``games`` greedy games, each after ``opening`` random actions."""
    G = make(game, size)
    rng = np.random.default_rng(seed)
    out = []
    for g in range(games):
        state = G.new_state()
        for _ in range(opening):
            if not state.is_terminal:
                state.apply(int(rng.choice(state.legal_actions())))
        geo = state.geometry
        s, n, nbr = state.data.copy(), geo.num_cells, geo.neighbours
        m = 2 * n
        tie = np.array([seed * 1000 + g + 1], dtype=np.uint64)
        while s[m + K.M_DONE] == 0:
            if s[m + K.M_STEP] == 0:
                out.append(s.copy())
                first, second, _, _ = current.best_turn(s, n, nbr, tie, True, NO_SCORES)
                K.apply_action(s, n, nbr, first)
                if second >= 0 and s[m + K.M_DONE] == 0:
                    K.apply_action(s, n, nbr, second)
            else:
                action, _, _ = current.best_second(s, n, nbr, tie, True, NO_SCORES)
                K.apply_action(s, n, nbr, action)
    return out


def run(best_turn, states: list[np.ndarray], n: int, nbr: np.ndarray) -> tuple[float, list[tuple]]:
    """Seconds for one call on each position (tie-break seed: the position's index) and the results."""
    t0 = time.perf_counter()
    results = [best_turn(s, n, nbr, np.array([i + 1], dtype=np.uint64), True, NO_SCORES)
               for i, s in enumerate(states)]
    return time.perf_counter() - t0, results


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--boards", default="xodd:7,xodd:9,xodd:13,yodd:4,yodd:6,yodd:8",
                        help="comma-separated GAME:SIZE (default: %(default)s)")
    parser.add_argument("--against", metavar="REV", help="also time agents/greedy.py of this git revision")
    parser.add_argument("--games", type=positive_int, default=6, help="greedy games per board (default: %(default)s)")
    parser.add_argument("--opening", type=nonneg_int, default=9, help="random actions before each (default: %(default)s)")
    parser.add_argument("--rounds", type=positive_int, default=5, help="interleaved timing rounds (default: %(default)s)")
    parser.add_argument("--seed", type=nonneg_int, default=0)
    args = parser.parse_args(argv)
    boards = []
    for item in args.boards.split(","):
        game, _, size = item.strip().partition(":")
        if not size.isdigit():
            parser.error(f"--boards {item!r}: expected GAME:SIZE, e.g. xodd:9")
        try:
            boards.append((game, int(size), make(game, int(size))))
        except ValueError as err:
            parser.error(f"--boards {item!r}: {err}")
        if game not in ("xodd", "yodd"):
            parser.error(f"--boards {item!r}: the greedy player plays xodd and yodd only")
    if args.against is not None and (not args.against or args.against.startswith("-")):
        parser.error(f"--against must name a git revision (e.g. HEAD~3 or a commit), got {args.against!r}")
    kernels = {"today": current.best_turn}
    if args.against:
        try:
            kernels[args.against] = load_revision(args.against).best_turn
        except (LookupError, AttributeError) as err:
            parser.error(f"--against {args.against}: {err}")
    head = " | ".join(f"{k} us/call" for k in kernels)
    print(f"| board | positions | {head} |" + (" ratio | same turns |" if args.against else ""))
    print("|---|---:|" + "---:|" * len(kernels) + ("---:|---:|" if args.against else ""))
    for game, size, G in boards:
        states = positions(game, size, args.games, args.opening, args.seed)
        if not states:
            print(f"| {G.label} | 0 (every game ended within the opening) |", flush=True)
            continue
        geo = G.new_state().geometry
        n, nbr = geo.num_cells, geo.neighbours
        times = {k: [] for k in kernels}
        results = {}
        for k, f in kernels.items():  # compile outside the timing
            f(states[0], n, nbr, np.ones(1, dtype=np.uint64), True, NO_SCORES)
        for _ in range(args.rounds):
            for k, f in kernels.items():
                dt, results[k] = run(f, states, n, nbr)
                times[k].append(1e6 * dt / len(states))
        med = {k: statistics.median(v) for k, v in times.items()}
        row = f"| {G.label} | {len(states)} | " + " | ".join(f"{med[k]:.0f}" for k in kernels) + " |"
        if args.against:
            same = sum(a == b for a, b in zip(results["today"], results[args.against]))
            row += f" {med[args.against] / med['today']:.2f}x | {same} of {len(states)} |"
        print(row, flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
