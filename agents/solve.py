"""Solve small Xodd and Yodd boards exactly, and rate agents against the solution (issue 39).

::

    python -m agents.solve --game xodd --board-size 4
    python -m agents.solve --game yodd --board-size 3 --save yodd3.solve
    python -m agents.solve --from game.txt               # the position a game record ends in
    python -m agents.solve --game xodd --board-size 5 --checkpoint /work/solve-ckpt/xodd5.ckpt --resume
    python -m agents.solve --game xodd --board-size 4 --load xodd4.solve --rate greedy --games 100

It prints who wins with perfect play, the winning first turns (all of them,
unless ``--first-win``), the nodes searched, the time and the size of the
transposition table, with a progress line on stderr while it runs.

``--rate SPEC`` measures how exact an agent is: it plays ``--games`` games of
the agent (``agents.load`` spec, e.g. ``random``, ``greedy``,
``mcts:simulations=200``) against ``--opponent`` (default: the same spec,
self-play, so that the rated positions are the agent's own), the rated agent
taking Black in even games and White in odd ones, and reports the share of
the rated agent's decisions in won positions (won for the player to act,
with perfect play) after which the position is still won.

The solver is the module the game names (``game.extra["solver"]``); this
module uses only the game interface.
"""

from __future__ import annotations

import argparse
import importlib
import sys
import time
from pathlib import Path
from typing import Any, Sequence

import odd_env.game as game_api


def solver_module(game: Any) -> Any:
    path = game.extra.get("solver")
    if not path:
        raise ValueError(f"{game.label} has no exact solver: the solver solves Xodd and Yodd only")
    return importlib.import_module(path)


def read_record(path: str) -> tuple[Any, Any]:
    """(game, position) at the end of a game record file (docs/rules/xodd_yodd.md section 8)."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as err:
        raise ValueError(f"cannot read record {path!r}: {err}") from None
    lines = [(i + 1, ln.split("#", 1)[0].strip()) for i, ln in enumerate(text.splitlines())]
    lines = [(i, ln) for i, ln in lines if ln]
    if not lines:
        raise ValueError(f"record {path!r} is empty")
    head = lines[0][1].split()
    if len(head) != 2 or not head[1].isdigit():
        raise ValueError(f"record {path!r} line {lines[0][0]}: expected a header like 'xodd 4', got {lines[0][1]!r}")
    game = game_api.make(head[0], int(head[1]))
    pos = game.new_state()
    for lineno, line in lines[1:]:
        if pos.is_terminal:
            raise ValueError(f"record {path!r} line {lineno}: the game is already over")
        parts = [p.strip() for p in line.split(",")]
        trailing = len(parts) > 1 and parts[-1] == ""
        if trailing:
            parts = parts[:-1]
        try:
            for part in parts:
                pos.apply(game.parse_action(pos, part))
            if len(parts) == 1 and not trailing and not pos.is_terminal and _step_two(pos):
                pos.apply(game.num_actions - 1)  # a one-stone turn: end it
        except ValueError as err:
            raise ValueError(f"record {path!r} line {lineno} ({line!r}): {err}") from None
    return game, pos


def _step_two(pos: Any) -> bool:
    """True in step 2 of a turn (observation plane 5, docs/rules/xodd_yodd.md section 6)."""
    return bool(pos.observation()[5].flat[0])


class Progress:
    """A carriage-return progress line on stderr, at most a few times a second."""

    def __init__(self, enabled: bool = True):
        self.enabled = enabled
        self.last = 0.0
        self.width = 0

    def __call__(self, info: dict) -> None:
        if not self.enabled or time.monotonic() - self.last < 0.5:
            return
        self.last = time.monotonic()
        secs = max(info.get("seconds", 0.0), 1e-9)
        line = (f"root {info.get('root', '?')}/{info.get('root_moves', '?')} {info.get('move', '')}  "
                f"nodes {info['nodes'] / 1e6:.1f}M  {info['nodes'] / secs / 1e3:.0f}k/s  "
                f"table {info['table_entries'] / 1e6:.2f}M/{info['table_capacity'] / 1e6:.1f}M  "
                f"{secs:.0f} s")
        sys.stderr.write("\r" + line.ljust(self.width))
        sys.stderr.flush()
        self.width = len(line)

    def done(self) -> None:
        if self.enabled and self.width:
            sys.stderr.write("\r" + " " * self.width + "\r")
            sys.stderr.flush()


def rate(game: Any, solver: Any, spec: str, games: int, opponent: str | None, seed: int,
         time_limit: float | None = None, progress: bool = True) -> dict:
    """The exactness metric of agent ``spec`` (see the module docstring)."""
    import agents  # the package's loader; imported here so that agents.solve loads without it

    rated = agents.load(spec)
    other = rated if opponent is None else agents.load(opponent)
    kept = decisions = won_positions = lost_positions = rated_wins = black_wins = 0
    for i in range(games):
        rated.reset(seed + 2 * i)
        if other is not rated:
            other.reset(seed + 2 * i + 1)
        side = i % 2  # the rated agent plays Black in even games
        pos = game.new_state()
        while not pos.is_terminal:
            me = pos.to_move
            player = rated if (me == side or other is rated) else other
            action = int(player.act(pos))
            if player is rated and (me == side or other is rated):
                decisions += 1
                v = solver.value(pos, time_limit)
                if v == 1:
                    won_positions += 1
                    if solver.child_value(pos, action) == 1:
                        kept += 1
                elif v == -1:
                    lost_positions += 1
            pos.apply(action)
        rated_wins += pos.winner == side
        black_wins += pos.winner == 0
        if progress:
            sys.stderr.write(f"\rrate {spec}: game {i + 1}/{games}, kept {kept}/{won_positions}")
            sys.stderr.flush()
    if progress:
        sys.stderr.write("\n")
    return {"agent": spec, "opponent": opponent or spec, "games": games, "decisions": decisions,
            "won_positions": won_positions, "kept": kept, "lost_positions": lost_positions,
            "exactness": kept / won_positions if won_positions else None,
            "rated_wins": rated_wins if other is not rated else None, "black_wins": black_wins}


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m agents.solve", description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--game", default="xodd", help="xodd or yodd (default xodd)")
    p.add_argument("--board-size", type=int, default=None, help="Xodd side or Yodd base (default 3)")
    p.add_argument("--from", dest="record", metavar="RECORDFILE",
                   help="solve the position a game record ends in (its header names the game)")
    p.add_argument("--save", metavar="FILE", help="save the solution table (entries of work >= --save-min-work)")
    p.add_argument("--save-min-work", type=int, default=0,
                   help="keep only table entries whose proof took >= 2**(W-1) nodes (smaller files; default 0: all)")
    p.add_argument("--load", metavar="FILE", help="load a solution table first (checked: checksum, rules version)")
    p.add_argument("--time-limit", type=float, default=None, help="seconds; stop with an unknown value past it")
    p.add_argument("--table-bits", type=int, default=None,
                   help="transposition table of 2**BITS entries, 15 bytes each (default: by board, 18 to 26)")
    p.add_argument("--first-win", action="store_true", help="stop at the first winning turn")
    p.add_argument("--checkpoint", metavar="PATH", help="save the table here every --checkpoint-every seconds")
    p.add_argument("--checkpoint-every", type=float, default=600.0)
    p.add_argument("--resume", action="store_true", help="start from the --checkpoint file")
    p.add_argument("--rate", metavar="SPEC", action="append",
                   help="rate an agent (agents.load spec; repeatable): share of its decisions in won positions "
                        "that keep them won")
    p.add_argument("--opponent", metavar="SPEC", default=None, help="opponent of the rated agent (default: itself)")
    p.add_argument("--games", type=int, default=20, help="games per rated agent (default 20)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--quiet", action="store_true", help="no progress line")
    return p


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        if args.record:
            game, position = read_record(args.record)
        else:
            game = game_api.make(args.game, 3 if args.board_size is None and args.game != "yinsh"
                                 else args.board_size)
            position = game.new_state()
        module = solver_module(game)
        if args.resume and not args.checkpoint:
            raise ValueError("--resume needs --checkpoint PATH")
        if position.is_terminal:
            raise ValueError("the record's game is over: there is nothing to solve")
        bits = args.table_bits
        if bits is None:
            cells = int(game.onboard.sum())
            bits = 18 if cells <= 9 else 24 if cells <= 16 else 25 if cells <= 19 else 26
        solver = module.Solver(game, bits)
        done = None
        if args.load:
            header = solver.load(args.load)
            print(f"loaded {args.load}: {header['entries']:,} entries")
        if args.resume:
            if Path(args.checkpoint).exists():
                header = solver.load(args.checkpoint)
                if header.get("root_key") in (None, position.key().hex()):  # root results of this position
                    done = header.get("root_done") or None
                print(f"resumed from {args.checkpoint}: {header['entries']:,} entries, "
                      f"{header['nodes']:,} nodes, {header['seconds']:.0f} s so far")
            else:
                print(f"no checkpoint at {args.checkpoint} yet: starting afresh")
        bar = Progress(not args.quiet)
        try:
            result = solver.solve(position, time_limit=args.time_limit, progress=bar,
                                  all_moves=not args.first_win, checkpoint=args.checkpoint,
                                  checkpoint_every=args.checkpoint_every, done=done)
        finally:
            bar.done()
        print(result.summary())
        if args.save:
            header = solver.save(args.save, min_work=args.save_min_work)
            print(f"saved {args.save}: {header['entries']:,} entries, {Path(args.save).stat().st_size:,} bytes")
        for spec in args.rate or []:
            r = rate(game, solver, spec, args.games, args.opponent, args.seed, args.time_limit,
                     progress=not args.quiet)
            share = "n/a" if r["exactness"] is None else f"{r['exactness']:.3f}"
            print(f"rate {spec} vs {r['opponent']} ({r['games']} games): exactness {share} "
                  f"({r['kept']} of {r['won_positions']} decisions in won positions kept the win; "
                  f"{r['decisions']} decisions, {r['lost_positions']} in lost positions; "
                  + (f"{r['black_wins']} games won by black)" if r["rated_wins"] is None
                     else f"{r['rated_wins']} games won by {spec})"))
    except ValueError as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
