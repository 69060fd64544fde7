"""Full random games per second: YINSH's engines now and at an older commit, side by side.

Every engine plays uniformly random legal games from the empty board to the
end (standard rules), one thread:

* ``batch obs+masks``: ``YinshBatch(B)`` stepped from Python, observation
  planes and masks written every decision, random actions from
  ``random_actions``;
* ``batch bare``: ``YinshBatch(B, observations=False)``, masks only;
* ``single compiled``: one position in a numba loop over the single-position
  API (``legal_actions``, ``apply``, ``is_terminal``), no Python per node;
* ``YinshState loop``: one :class:`~odd_env.games.yinsh.state.YinshState` stepped
  from Python (``legal_actions``, ``apply``).

With ``--old PATH`` (a checkout of the older code, for example
``git worktree add --detach /tmp/oldcode c2a5a3a``) the same cases that the
old code has run against it in the same session, interleaved round by round
(the old single compiled loop drives the old kernels' mask). Each case runs
in its own subprocess with ``PYTHONPATH`` set to the code it measures.
``--yngine PATH`` runs a binary that prints games per second (the C++ engine
temhelk/yngine with a random-playout driver, which nobody has built here
yet); without it that row says "not built". ``--others`` adds OddBatch
Xodd 9 and Yodd 6 rows for scale.

    python benchmarks/bench_games.py --old /tmp/oldcode --seconds 3 --rounds 3
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import time
from pathlib import Path

from _args import nonneg_int, positive_float, positive_int

ROOT = Path(__file__).resolve().parents[1]
CLOCK = time.process_time  # the worker's clock: CPU time by default (--clock), robust on a shared machine
CASES = ("batch obs+masks", "batch bare", "single compiled", "YinshState loop")
OLD_CASES = ("batch obs+masks", "single compiled", "YinshState loop")
OTHERS = ("OddBatch xodd 9", "OddBatch yodd 6")


# ---------------------------------------------------------------- the worker (runs in a subprocess)
def _batch_rate(engine, seconds: float, seed: int) -> tuple[float, float]:
    import numpy as np

    rng = np.random.default_rng(seed)
    engine.reset()
    for _ in range(300):  # past the first, synchronised game
        engine.step(engine.random_actions(rng))
    games = steps = 0
    start = CLOCK()
    while (elapsed := CLOCK() - start) < seconds:
        out = engine.step(engine.random_actions(rng))
        games += int(np.count_nonzero(out.terminated))
        steps += 1
    return games / elapsed, steps * engine.num_games / elapsed


def _compiled_new(seconds: float, seed: int) -> tuple[float, float]:
    import numpy as np
    from numba import njit

    K = _yinsh_modules()[0]

    @njit(cache=True)
    def play(num_games, seed):
        np.random.seed(seed)
        s = K.new_state(3)
        actions = np.empty(K.MAX_LEGAL, np.int32)
        decisions = 0
        for _ in range(num_games):
            K.init(s, 3)
            while not K.is_terminal(s):
                c = K.legal_actions(s, actions)
                K.apply(s, actions[np.random.randint(c)])
                decisions += 1
        return decisions

    return _time_games(play, seconds, seed)


def _compiled_old(seconds: float, seed: int) -> tuple[float, float]:
    import numpy as np
    from numba import njit

    K, YinshState = _yinsh_modules()
    t = __import__(YinshState.__module__, fromlist=["tables"]).tables()
    n, onboard, rays, lines, line_dir = t.n, t.onboard, t.rays, t.lines, t.line_dir

    @njit(cache=True)
    def play_old(num_games, seed, n, onboard, rays, lines, line_dir):
        np.random.seed(seed)
        s = np.empty(n + K.META, np.int32)
        mask = np.zeros(4 * n + 1, np.int8)
        actions = np.empty(4 * n + 1, np.int32)
        decisions = 0
        for _ in range(num_games):
            K.init_state(s, n, onboard, 3)
            while s[n + K.M_DONE] == 0:
                K.legal_mask_into(s, n, rays, lines, line_dir, mask)
                c = 0
                for a in range(4 * n + 1):
                    if mask[a]:
                        actions[c] = a
                        c += 1
                K.apply_action(s, n, rays, lines, actions[np.random.randint(c)])
                decisions += 1
        return decisions

    return _time_games(lambda g, sd: play_old(g, sd, n, onboard, rays, lines, line_dir), seconds, seed)


def _time_games(play, seconds: float, seed: int) -> tuple[float, float]:
    play(20, seed)  # compile or load
    games = 50
    while True:
        start = CLOCK()
        decisions = play(games, seed)
        elapsed = CLOCK() - start
        if elapsed >= seconds / 1.2:
            return games / elapsed, decisions / elapsed
        games = int(games * min(10.0, max(1.5, 1.1 * seconds / max(elapsed, 1e-3))))


def _state_loop(seconds: float, seed: int) -> tuple[float, float]:
    import numpy as np

    YinshState = _yinsh_modules()[1]
    rng = np.random.default_rng(seed)
    s = YinshState()  # one game first: compile or load the kernels outside the timing
    while not s.is_terminal:
        s.apply(int(rng.choice(s.legal_actions())))
    games = decisions = 0
    start = CLOCK()
    while (elapsed := CLOCK() - start) < seconds or games == 0:
        s = YinshState()
        while not s.is_terminal:
            legal = s.legal_actions()
            s.apply(int(legal[int(rng.integers(len(legal)))]))
            decisions += 1
        games += 1
    elapsed = CLOCK() - start
    return games / elapsed, decisions / elapsed


def _yinsh_modules():
    """(kernels module, YinshState) in either package layout (before or after odd_env/games/)."""
    import odd_env

    if (Path(odd_env.__file__).parent / "games" / "yinsh").is_dir():
        from odd_env.games.yinsh import kernels
        from odd_env.games.yinsh.state import YinshState
    else:  # the layout before the game folders (the code checked out beside it)
        from odd_env.core import yinsh_kernels as kernels
        from odd_env.core.yinsh import YinshState
    return kernels, YinshState


def worker(case: str, batch: int, seconds: float, seed: int) -> None:
    """Measure one case with the odd_env found on PYTHONPATH; print JSON."""
    import odd_env

    if case == "batch obs+masks":
        rate = _batch_rate(odd_env.YinshBatch(batch), seconds, seed)
    elif case == "batch bare":
        rate = _batch_rate(odd_env.YinshBatch(batch, observations=False), seconds, seed)
    elif case == "single compiled":
        K = _yinsh_modules()[0]
        rate = (_compiled_new if hasattr(K, "legal_actions") else _compiled_old)(seconds, seed)
    elif case == "YinshState loop":
        rate = _state_loop(seconds, seed)
    elif case in OTHERS:
        game, size = case.split()[1], int(case.split()[2])
        rate = _batch_rate(odd_env.OddBatch(game, size, batch), seconds, seed)
    else:
        raise SystemExit(f"unknown case {case!r}")
    print(json.dumps({"games": rate[0], "decisions": rate[1], "module": odd_env.__file__}))


# ---------------------------------------------------------------- the driver
def measure(code: Path, case: str, args: argparse.Namespace, seed: int) -> tuple[float, float]:
    """Run one case in a subprocess over the code at ``code``; (games/s, decisions/s)."""
    env = dict(os.environ, PYTHONPATH=str(code))
    cmd = [sys.executable, str(Path(__file__).resolve()), "--worker", case, "--clock", args.clock, "--batch", str(args.batch),
           "--seconds", str(args.seconds), "--seed", str(seed)]
    done = subprocess.run(cmd, env=env, cwd=str(code), capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise SystemExit(f"{case} over {code} failed:\n{done.stderr[-3000:]}")
    result = json.loads(done.stdout.strip().splitlines()[-1])
    if not result["module"].startswith(str(code)):
        raise SystemExit(f"{case}: imported {result['module']}, not the code under {code}")
    return result["games"], result["decisions"]


def yngine_rate(path: str | None) -> float | None:
    """Games/s printed by the yngine driver binary (the last number it prints), or None."""
    if path is None:
        return None
    out = subprocess.run([path], capture_output=True, text=True, check=True).stdout
    numbers = re.findall(r"[0-9][0-9,]*\.?[0-9]*", out)
    if not numbers:
        raise SystemExit(f"{path} printed no number: {out[-500:]!r}")
    return float(numbers[-1].replace(",", ""))


def main() -> None:
    """Run the benchmark and print a markdown table."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--batch", type=positive_int, default=256, help="games stepped together (batched cases)")
    parser.add_argument("--seconds", type=positive_float, default=3.0, help="seconds per measurement")
    parser.add_argument("--rounds", type=positive_int, default=3, help="interleaved rounds (the median is reported)")
    parser.add_argument("--seed", type=nonneg_int, default=0)
    parser.add_argument("--old", type=Path, default=None, help="a checkout of the older code to measure beside")
    parser.add_argument("--yngine", default=None, help="a binary printing the C++ engine's random games/s")
    parser.add_argument("--others", action="store_true", help="add OddBatch Xodd 9 and Yodd 6 rows")
    parser.add_argument("--clock", choices=("cpu", "wall"), default="cpu",
                        help="rates per CPU second of the measuring process (default: robust when others share "
                             "the machine) or per wall-clock second")
    parser.add_argument("--worker", default=None, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker is not None:
        global CLOCK
        CLOCK = time.process_time if args.clock == "cpu" else time.perf_counter
        worker(args.worker, args.batch, args.seconds, args.seed)
        return
    if args.old is not None and not (args.old / "odd_env" / "core" / "yinsh_kernels.py").is_file():
        parser.error(f"--old {args.old} is not a checkout of odd_env")

    jobs = [(ROOT, c) for c in CASES] + ([(ROOT, c) for c in OTHERS] if args.others else [])
    if args.old is not None:
        jobs += [(args.old.resolve(), c) for c in OLD_CASES]
    results: dict[tuple[Path, str], list[tuple[float, float]]] = {j: [] for j in jobs}
    for r in range(args.rounds):
        for code, case in jobs:
            results[(code, case)].append(measure(code, case, args, args.seed + r))
    yngine = yngine_rate(args.yngine)

    def med(code: Path, case: str, i: int = 0) -> float | None:
        values = results.get((code, case))
        return statistics.median(v[i] for v in values) if values else None

    print(f"YINSH full random games per second (standard rules, empty board to the end), one thread, "
          f"batch {args.batch}, median of {args.rounds} rounds x {args.seconds:g} s ({args.clock} clock), "
          f"{os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f} at the end")
    print(f"now: {ROOT}; old: {args.old or 'not measured (give --old)'}")
    print("| engine | games/s now | decisions/s now | games/s old | speed-up | vs yngine |")
    print("|---|---:|---:|---:|---:|---:|")
    for case in CASES + (OTHERS if args.others else ()):
        now, dec = med(ROOT, case), med(ROOT, case, 1)
        old = med(args.old.resolve(), case) if args.old is not None else None
        old_text = f"{old:,.0f}" if old else "n/a"
        speed = f"{now / old:.2f}x" if old else "n/a"
        vs = f"{now / yngine:.2f}x" if yngine and case not in OTHERS else "n/a"
        print(f"| {case} | {now:,.0f} | {dec:,.0f} | {old_text} | {speed} | {vs} |")
    print(f"| yngine (C++) | {f'{yngine:,.0f}' if yngine else 'not built'} | | | | |")


if __name__ == "__main__":
    main()
