"""OpenSpiel's MCTSBot against odd_env's MCTS at equal simulations, on the games odd_env registers in OpenSpiel.

For each game of ``--cases`` and each of our agents in ``--ours``, ``--games``
games are played through OpenSpiel (:func:`open_spiel.python.algorithms.evaluate_bots.evaluate_bots`
on the games of :mod:`odd_env.openspiel`) between

* OpenSpiel's ``MCTSBot`` (UCT with ``uct_c=--uct-c``, one random rollout
  per leaf by ``RandomRolloutEvaluator``, MCTS-solver on as by default), and
* our ``agents.load("mcts", simulations=N)`` with the options of the spec
  (``mcts`` is the default search: greedy rollouts and priors on Xodd/Yodd,
  random rollouts and UCT on YINSH, tree reuse; ``mcts:rollout=random,prior=none,c=1,reuse_tree=false``
  is OpenSpiel's algorithm: UCT with random rollouts, c=1 on values in [0, 1] being
  uct_c=2 on OpenSpiel's [-1, 1]),

both with ``--simulations`` simulations per decision, colours alternating
(OpenSpiel's bot moves first in the even games). The table gives OpenSpiel's
score (wins + draws / 2, with a 95% Wilson interval) and the mean
milliseconds per decision of each side.

    nice -n 10 python benchmarks/bench_openspiel.py --games 30 --simulations 200
    python benchmarks/bench_openspiel.py --cases xodd:3 --games 2 --simulations 20   # a smoke run
"""

from __future__ import annotations

import argparse
import math
import sys
import time

import numpy as np

from _args import nonneg_int, positive_float, positive_int  # noqa: E402


def parse_cases(text: str) -> list[tuple[str, int | None, str]]:
    """``"xodd:5,yodd:4,yinsh:blitz,yinsh"`` as ``make()`` arguments."""
    cases = []
    for item in filter(None, (p.strip() for p in text.split(","))):
        name, _, param = item.partition(":")
        if name == "yinsh":
            if param not in ("", "blitz"):
                raise argparse.ArgumentTypeError(f"--cases: YINSH takes 'blitz' or nothing, got {item!r}")
            cases.append(("yinsh", None, param))
        elif name in ("xodd", "yodd"):
            if not param.isdigit():
                raise argparse.ArgumentTypeError(f"--cases: {name} needs a board size ({name}:5), got {item!r}")
            cases.append((name, int(param), ""))
        else:
            raise argparse.ArgumentTypeError(f"--cases: unknown game {name!r} in {item!r} (xodd, yodd, yinsh)")
    if not cases:
        raise argparse.ArgumentTypeError("--cases: no game given")
    return cases


def wilson(score: float, n: int, z: float = 1.96) -> tuple[float, float]:
    """The 95% Wilson interval of a proportion ``score / n``."""
    if n == 0:
        return (0.0, 1.0)
    p = score / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return (max(0.0, centre - half), min(1.0, centre + half))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--cases", type=parse_cases, default=parse_cases("xodd:5,yodd:4,yinsh:blitz"),
                        help="games, comma-separated: xodd:SIZE, yodd:SIZE, yinsh, yinsh:blitz "
                             "(default xodd:5,yodd:4,yinsh:blitz)")
    parser.add_argument("--ours", default="mcts;mcts:rollout=random,prior=none,c=1,reuse_tree=false",
                        help="our agents, ';'-separated agent specs, each given --simulations and a seed "
                             "(default: 'mcts;mcts:rollout=random,prior=none,c=1,reuse_tree=false')")
    parser.add_argument("--games", type=positive_int, default=20, help="games per row (default 20)")
    parser.add_argument("--simulations", type=positive_int, default=200,
                        help="simulations per decision of both searches (default 200)")
    parser.add_argument("--uct-c", type=positive_float, default=2.0, help="MCTSBot's uct_c (default 2)")
    parser.add_argument("--seed", type=nonneg_int, default=0, help="first seed (game i: seed + i)")
    parser.add_argument("--progress", action="store_true", help="print every game's result to stderr")
    args = parser.parse_args()

    import agents

    specs = [s.strip() for s in args.ours.split(";") if s.strip()]
    if not specs:
        parser.error("--ours: no agent given")
    for spec in specs:  # a bad spec is an argparse error before any game is played
        name, options = agents.parse_spec(spec)
        if "simulations" in options or "seed" in options:
            parser.error(f"--ours {spec!r}: simulations and seed are set by this script")
        try:
            agents.load(spec, simulations=args.simulations, seed=0)
        except ValueError as err:
            parser.error(f"--ours {spec!r}: {err}")

    try:
        import pyspiel
        from open_spiel.python.algorithms import mcts
        from open_spiel.python.algorithms.evaluate_bots import evaluate_bots

        from odd_env import openspiel
    except ImportError as err:
        parser.error(f"{err}")

    class TimedBot(pyspiel.Bot):
        """A bot that adds up the seconds of its decisions."""

        def __init__(self, bot):
            pyspiel.Bot.__init__(self)
            self.bot, self.seconds, self.decisions = bot, 0.0, 0

        def restart_at(self, state):
            self.bot.restart_at(state)

        def inform_action(self, state, player, action):
            self.bot.inform_action(state, player, action)

        def step(self, state):
            t = time.perf_counter()
            action = self.bot.step(state)
            self.seconds += time.perf_counter() - t
            self.decisions += 1
            return action

    class AgentBot(pyspiel.Bot):
        """One of our agents as an OpenSpiel bot (it reads the library's position of the state)."""

        def __init__(self, agent):
            pyspiel.Bot.__init__(self)
            self.agent = agent

        def restart_at(self, state):
            self.agent.reset()

        def inform_action(self, state, player, action):
            pass

        def step(self, state):
            return self.agent.act(state.position)

    print(f"OpenSpiel MCTSBot (uct_c={args.uct_c:g}, random rollouts) against our MCTS, "
          f"{args.simulations} simulations per decision each, {args.games} games a row, colours alternating")
    print()
    print("| game | ours | games | OpenSpiel score | 95% interval | OpenSpiel ms/decision | ours ms/decision "
          "| decisions/game |")
    print("|---|---|---:|---:|---|---:|---:|---:|")
    for case in args.cases:
        game = openspiel.load_game(*case)
        label = game.odd_game.label
        for spec in specs:
            # Compiles the agent's kernels for this game (numba) before anything is timed.
            agents.load(spec, simulations=args.simulations, seed=0).act(game.new_initial_state().position)
            score, draws = 0.0, 0
            theirs_t = ours_t = None
            total_decisions = 0
            theirs_s = ours_s = 0.0
            theirs_n = ours_n = 0
            for i in range(args.games):
                seed = args.seed + i
                evaluator = mcts.RandomRolloutEvaluator(n_rollouts=1, random_state=np.random.RandomState(seed))
                theirs_t = TimedBot(mcts.MCTSBot(game, args.uct_c, args.simulations, evaluator,
                                                 random_state=np.random.RandomState(seed + 10_000)))
                ours_t = TimedBot(AgentBot(agents.load(spec, simulations=args.simulations, seed=seed)))
                side = i % 2  # OpenSpiel's bot is player `side`
                bots = [theirs_t, ours_t] if side == 0 else [ours_t, theirs_t]
                state = game.new_initial_state()
                returns = evaluate_bots(state, bots, np.random.RandomState(seed))
                result = returns[side]
                score += (result + 1) / 2
                draws += result == 0
                total_decisions += len(state.history())
                theirs_s += theirs_t.seconds
                theirs_n += theirs_t.decisions
                ours_s += ours_t.seconds
                ours_n += ours_t.decisions
                if args.progress:
                    print(f"{label} {spec} game {i + 1}: OpenSpiel as {game.odd_game.player_names[side]} "
                          f"{'wins' if result > 0 else 'loses' if result < 0 else 'draws'} "
                          f"in {len(state.history())} decisions; score {score:g}/{i + 1}",
                          file=sys.stderr, flush=True)
            low, high = wilson(score, args.games)
            draw_note = f" ({draws} draws)" if draws else ""
            print(f"| {label} | `{spec}` | {args.games} | {score / args.games:.3f}{draw_note} "
                  f"| [{low:.3f}, {high:.3f}] | {1e3 * theirs_s / max(theirs_n, 1):.0f} "
                  f"| {1e3 * ours_s / max(ours_n, 1):.0f} | {total_decisions / args.games:.0f} |", flush=True)


if __name__ == "__main__":
    main()
