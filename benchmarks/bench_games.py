"""Full random games per second: every game's engines now, at an older commit, and the C++ engine yngine, in one run.

Every engine plays uniformly random legal games from the empty board to the
end (YINSH's standard rules, Xodd 9x9, Yodd base 6), one thread:

* ``batch obs+masks``: ``YinshBatch(B)`` / ``OddBatch(game, size, B)`` stepped
  from Python, observation planes and masks written every decision, random
  actions from ``random_actions``;
* ``batch bare``: ``YinshBatch(B, observations=False)``, masks only (YINSH);
* ``single compiled``: one position in a numba loop over the game's compiled
  rules (``game.compiled()``: ``new_state``, ``legal_actions``, ``apply``,
  ``is_terminal``, passed as arguments as a compiled search passes them), no
  Python per decision;
* ``Python loop``: one position stepped from Python (``legal_actions``, which
  reads ``legal_action_mask``, then ``apply``): ``YinshState`` / ``GameState``;
* ``yngine (C++)``: the public C++ YINSH engine temhelk/yngine, through the
  driver ``benchmarks/yngine_random_games.cpp`` (its header says how to build
  it), given by ``--yngine PATH`` or the environment variable
  ``YNGINE_RANDOM_GAMES``; without it the row says "not built".

With ``--old PATH`` (a checkout of the older code, for example
``git worktree add --detach /tmp/oldcode c2a5a3a``) the cases that the old code
has run against it in the same session, interleaved round by round (the old
code has no compiled rules: its "single compiled" loop drives its kernels'
mask and apply directly, as its own engines do). Each case runs in its own
subprocess with ``PYTHONPATH`` set to the code it measures; the yngine driver
runs once per round among them.

    python benchmarks/bench_games.py --old /tmp/oldcode --yngine /tmp/yngine/random_games --seconds 3 --rounds 3
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
GAMES = {"yinsh": ("yinsh", None), "xodd9": ("xodd", 9), "yodd6": ("yodd", 6)}
LABELS = {"yinsh": "YINSH", "xodd9": "Xodd 9", "yodd6": "Yodd 6"}
KINDS = ("batch obs+masks", "batch bare", "single compiled", "Python loop")
OLD_KINDS = ("batch obs+masks", "single compiled", "Python loop")
YNGINE = "yngine (C++)"


def cases(game: str, old: bool) -> tuple[str, ...]:
    """The kinds of engine measured for ``game`` (``old``: in the older code)."""
    kinds = OLD_KINDS if old else KINDS
    return kinds if game == "yinsh" else tuple(k for k in kinds if k != "batch bare")


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


def _compiled_new(game, seconds: float, seed: int) -> tuple[float, float]:
    import numpy as np
    from numba import njit

    r = game.compiled()

    @njit
    def play(new_state, legal_actions, apply, is_terminal, tables, num_actions, num_games, seed):
        np.random.seed(seed)
        actions = np.empty(num_actions, np.int32)
        decisions = 0
        for _ in range(num_games):
            s = new_state(tables)
            while not is_terminal(s, tables):
                c = legal_actions(s, tables, actions)
                apply(s, tables, actions[np.random.randint(c)])
                decisions += 1
        return decisions

    return _time_games(lambda g, sd: play(r.new_state, r.legal_actions, r.apply, r.is_terminal, r.tables,
                                          r.num_actions, g, sd), seconds, seed)


def _compiled_old_yinsh(seconds: float, seed: int) -> tuple[float, float]:
    import numpy as np
    from numba import njit

    from odd_env.core import yinsh_kernels as K
    from odd_env.core.yinsh import tables

    t = tables()
    n, onboard, rays, lines, line_dir = t.n, t.onboard, t.rays, t.lines, t.line_dir

    @njit
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


def _compiled_old_odd(game, seconds: float, seed: int) -> tuple[float, float]:
    import numpy as np
    from numba import njit

    from odd_env.core import kernels as K

    g = game.extra["geometry"]
    n, nbr, onboard = g.num_cells, g.neighbours, g.onboard

    @njit
    def play_old(num_games, seed, n, nbr, onboard):
        np.random.seed(seed)
        s = np.empty(3 * n + K.META, np.int32)
        mask = np.zeros(2 * n + 1, np.int8)
        keep = np.zeros((2, n), np.int8)
        actions = np.empty(2 * n + 1, np.int32)
        decisions = 0
        for _ in range(num_games):
            K.init_state(s, n, onboard)
            while s[2 * n + K.M_DONE] == 0:
                K.legal_mask_into(s, n, nbr, mask, keep)
                c = 0
                for a in range(2 * n + 1):
                    if mask[a]:
                        actions[c] = a
                        c += 1
                K.apply_action(s, n, nbr, actions[np.random.randint(c)])
                decisions += 1
        return decisions

    return _time_games(lambda gm, sd: play_old(gm, sd, n, nbr, onboard), seconds, seed)


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


def _python_loop(game, seconds: float, seed: int) -> tuple[float, float]:
    import numpy as np

    rng = np.random.default_rng(seed)
    s = game.new_state()  # one game first: compile or load the kernels outside the timing
    while not s.is_terminal:
        s.apply(int(rng.choice(s.legal_actions())))
    games = decisions = 0
    start = CLOCK()
    while (elapsed := CLOCK() - start) < seconds or games == 0:
        s = game.new_state()
        while not s.is_terminal:
            legal = s.legal_actions()
            s.apply(int(legal[int(rng.integers(len(legal)))]))
            decisions += 1
        games += 1
    elapsed = CLOCK() - start
    return games / elapsed, decisions / elapsed


def worker(game_key: str, kind: str, batch: int, seconds: float, seed: int) -> None:
    """Measure one case with the odd_env found on PYTHONPATH; print JSON."""
    import odd_env
    from odd_env.game import make

    name, size = GAMES[game_key]
    game = make(name, size)
    new_layout = (Path(odd_env.__file__).parent / "games").is_dir()
    if kind == "batch obs+masks":
        engine = odd_env.YinshBatch(batch) if name == "yinsh" else odd_env.OddBatch(name, size, batch)
        rate = _batch_rate(engine, seconds, seed)
    elif kind == "batch bare" and name == "yinsh":
        rate = _batch_rate(odd_env.YinshBatch(batch, observations=False), seconds, seed)
    elif kind == "single compiled":
        if getattr(game, "compiled", None) is not None:
            rate = _compiled_new(game, seconds, seed)
        elif new_layout:
            raise SystemExit(f"{game.label} has no compiled rules in {odd_env.__file__}")
        else:
            rate = _compiled_old_yinsh(seconds, seed) if name == "yinsh" else _compiled_old_odd(game, seconds, seed)
    elif kind == "Python loop":
        rate = _python_loop(game, seconds, seed)
    else:
        raise SystemExit(f"unknown case {game_key} {kind!r}")
    print(json.dumps({"games": rate[0], "decisions": rate[1], "module": odd_env.__file__}))


# ---------------------------------------------------------------- the driver
def measure(code: Path, game: str, kind: str, args: argparse.Namespace, seed: int) -> tuple[float, float]:
    """Run one case in a subprocess over the code at ``code``; (games/s, decisions/s)."""
    env = dict(os.environ, PYTHONPATH=str(code))
    cmd = [sys.executable, str(Path(__file__).resolve()), "--worker", game, kind, "--clock", args.clock,
           "--batch", str(args.batch), "--seconds", str(args.seconds), "--seed", str(seed)]
    done = subprocess.run(cmd, env=env, cwd=str(code), capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise SystemExit(f"{game} {kind} over {code} failed:\n{done.stderr[-3000:]}")
    result = json.loads(done.stdout.strip().splitlines()[-1])
    if not result["module"].startswith(str(code)):
        raise SystemExit(f"{game} {kind}: imported {result['module']}, not the code under {code}")
    return result["games"], result["decisions"]


def yngine_missing(path: str | None) -> str | None:
    """Why the yngine driver cannot run ("not built: ..."), or None when it can."""
    if not path:
        return ("not built: give --yngine PATH or set YNGINE_RANDOM_GAMES (build it as "
                "benchmarks/yngine_random_games.cpp says)")
    if not (os.path.isfile(path) and os.access(path, os.X_OK)):
        return f"not built: {path} is not an executable file"
    return None


def yngine_rate(path: str, seconds: float, clock: str, seed: int) -> tuple[float, float]:
    """(games/s, decisions/s) printed by the yngine driver binary (its games/s is the last number it prints)."""
    out = subprocess.run([path, "--seconds", str(seconds), "--clock", clock, "--seed", str(seed)],
                         capture_output=True, text=True, check=True).stdout
    games = re.search(r"games per second ([0-9.]+)", out)
    decisions = re.search(r"decisions per second ([0-9.]+)", out)
    if not games:
        raise SystemExit(f"{path} printed no games per second: {out[-500:]!r}")
    return float(games.group(1)), float(decisions.group(1)) if decisions else float("nan")


def main() -> None:
    """Run the benchmark and print a markdown table."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", nargs="+", choices=tuple(GAMES), default=list(GAMES), help="games to measure")
    parser.add_argument("--batch", type=positive_int, default=256, help="games stepped together (batched cases)")
    parser.add_argument("--seconds", type=positive_float, default=3.0, help="seconds per measurement")
    parser.add_argument("--rounds", type=positive_int, default=3, help="interleaved rounds (the median is reported)")
    parser.add_argument("--seed", type=nonneg_int, default=0)
    parser.add_argument("--old", type=Path, default=None, help="a checkout of the older code to measure beside")
    parser.add_argument("--yngine", default=os.environ.get("YNGINE_RANDOM_GAMES"),
                        help="the yngine driver binary (benchmarks/yngine_random_games.cpp; "
                             "default: $YNGINE_RANDOM_GAMES)")
    parser.add_argument("--clock", choices=("cpu", "wall"), default="cpu",
                        help="rates per CPU second of the measuring process (default: robust when others share "
                             "the machine) or per wall-clock second")
    parser.add_argument("--worker", nargs=2, default=None, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker is not None:
        global CLOCK
        CLOCK = time.process_time if args.clock == "cpu" else time.perf_counter
        worker(args.worker[0], args.worker[1], args.batch, args.seconds, args.seed)
        return
    if args.old is not None and not (args.old / "odd_env" / "__init__.py").is_file():
        parser.error(f"--old {args.old} is not a checkout of odd_env")
    old = args.old.resolve() if args.old is not None else None
    why_no_yngine = yngine_missing(args.yngine) if "yinsh" in args.games else "not measured (YINSH not asked)"

    jobs: list[tuple[Path | None, str, str]] = []
    for game in args.games:
        jobs += [(ROOT, game, kind) for kind in cases(game, old=False)]
        if old is not None:
            jobs += [(old, game, kind) for kind in cases(game, old=True)]
        if game == "yinsh" and why_no_yngine is None:
            jobs.append((None, game, YNGINE))
    results: dict[tuple[Path | None, str, str], list[tuple[float, float]]] = {j: [] for j in jobs}
    for r in range(args.rounds):
        for code, game, kind in jobs:
            if code is None:
                rate = yngine_rate(args.yngine, args.seconds, args.clock, args.seed + r)
            else:
                rate = measure(code, game, kind, args, args.seed + r)
            results[(code, game, kind)].append(rate)

    def med(code: Path | None, game: str, kind: str, i: int = 0) -> float | None:
        values = results.get((code, game, kind))
        return statistics.median(v[i] for v in values) if values else None

    print(f"Full random games per second (empty board to the end), one thread, batch {args.batch}, median of "
          f"{args.rounds} rounds x {args.seconds:g} s ({args.clock} clock), {os.cpu_count()} CPUs, "
          f"load average {os.getloadavg()[0]:.1f} at the end")
    print(f"now: {ROOT}; old: {args.old or 'not measured (give --old)'}; yngine: {args.yngine or 'none'}")
    print("| game | engine | games/s now | decisions/s now | games/s old | now/old | vs Python loop now "
          "| vs yngine |")
    print("|---|---|---:|---:|---:|---:|---:|---:|")
    for game in args.games:
        loop = med(ROOT, game, "Python loop")
        yngine = med(None, game, YNGINE) if game == "yinsh" else None
        for kind in cases(game, old=False):
            now, dec = med(ROOT, game, kind), med(ROOT, game, kind, 1)
            before = med(old, game, kind) if old is not None else None
            cells = [LABELS[game], kind, f"{now:,.0f}", f"{dec:,.0f}", f"{before:,.0f}" if before else "n/a",
                     f"{now / before:.2f}x" if before else "n/a", f"{now / loop:.1f}x" if loop else "n/a",
                     f"{now / yngine:.2f}x" if yngine else "n/a"]
            print("| " + " | ".join(cells) + " |")
        if old is not None:
            before = med(old, game, "Python loop")
            if before:
                print(f"| {LABELS[game]} | Python loop, old code | {before:,.0f} | "
                      f"{med(old, game, 'Python loop', 1):,.0f} | | | {before / loop:.2f}x | |")
        if game == "yinsh":
            if yngine:
                print(f"| YINSH | {YNGINE} | {yngine:,.0f} | {med(None, game, YNGINE, 1):,.0f} | | | "
                      f"{yngine / loop:.1f}x | 1.00x |")
            else:
                print(f"| YINSH | {YNGINE} | {why_no_yngine} | | | | | |")


if __name__ == "__main__":
    main()
