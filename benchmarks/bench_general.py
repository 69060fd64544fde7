"""The strength of a size-general network at every board size of its game (issue 40's table).

    python benchmarks/bench_general.py --checkpoint runs/xodd-general/last.pt --games 200 --opening 2
    python benchmarks/bench_general.py --checkpoint xodd --sizes 9-14 --opponents greedy,mcts:simulations=200
    python benchmarks/bench_general.py --checkpoint runs/yodd-general/last.pt --games 20 --journal-dir runs/bench-y

For each board size (by default Xodd 5 to 14, Yodd 3 to 10) the network plays, with the arena
(:func:`agents.arena.round_robin`, both colours, its most probable legal move), each opponent of
``--opponents`` (by default random, greedy and ``mcts:simulations=200``) and, with ``--per-size``
(the default), the shipped per-size network of that board where one ships (``ppo:pretrained=xodd9``
...). It prints one Markdown table: board, opponent, games, the network's score with its 95% Wilson
interval, and the network's ms per move. ``--opening N`` starts every pair of games from N random
legal actions (the networks and greedy are deterministic: without openings the games of each
colour repeat). ``--journal-dir`` journals every row's games as they end
(``DIR/SIZE-vs-SPEC.jsonl``); with ``--resume`` a stopped measurement continues from them, and
``--games`` may grow (the journaled games are kept, the rest played).
A per-size checkpoint is measured on its own board only.

``--record`` writes every finished row into the package's index as a strength row of the shipped
network that ``--checkpoint`` names (``xodd``, ``yodd``), with its board, opening and seed, replacing
the row of the same board and opponent; ``python benchmarks/pretrained.py table`` then prints it.
Rows measured from journals alone cost no games: ``--resume --record`` records a finished measurement.
"""

from __future__ import annotations

import argparse
import re
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from _args import nonneg_int, positive_int  # noqa: E402
from pretrained import record_row  # noqa: E402  (benchmarks/pretrained.py)

DEFAULT_SIZES = {"xodd": (5, 14), "yodd": (3, 10)}
"""The sizes of the issue's table: Xodd 5 to 14, Yodd bases 3 to 10."""
DEFAULT_OPPONENTS = "random,greedy,mcts:simulations=200"


def parse_sizes(text: str) -> list[int]:
    """``"9-14"`` or ``"5,7,9"`` (or both, ``"3,5-7"``) as a sorted list of distinct sizes."""
    sizes: set[int] = set()
    for item in (x.strip() for x in text.split(",")):
        m = re.fullmatch(r"(\d+)(?:-(\d+))?", item)
        if not m or (m.group(2) and int(m.group(2)) < int(m.group(1))):
            raise ValueError(f"--sizes takes sizes and ranges such as 9-14 or 5,7,9, got {item!r} in {text!r}")
        sizes.update(range(int(m.group(1)), int(m.group(2) or m.group(1)) + 1))
    return sorted(sizes)


def build_parser() -> argparse.ArgumentParser:
    """The command line."""
    p = argparse.ArgumentParser(prog="python benchmarks/bench_general.py", description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    p.add_argument("--checkpoint", required=True,
                   help="the network: a checkpoint or network file, or a shipped network's name")
    p.add_argument("--sizes", default="", help="board sizes, e.g. 9-14 or 5,7,9 (default: Xodd 5-14, Yodd 3-10; "
                                               "a per-size network: its board)")
    p.add_argument("--opponents", default=DEFAULT_OPPONENTS, help="comma-separated agent specs")
    p.add_argument("--per-size", action=argparse.BooleanOptionalAction, default=True,
                   help="also play the shipped per-size network of each board where one ships")
    p.add_argument("--games", type=positive_int, default=200, help="games per row (even: half with each colour)")
    p.add_argument("--opening", type=nonneg_int, default=0, help="random legal actions that start every pair")
    p.add_argument("--seed", type=nonneg_int, default=0, help="seed of the games")
    p.add_argument("--workers", type=positive_int, default=1, help="processes playing games")
    p.add_argument("--journal-dir", default=None, help="journal every row's games here (DIR/SIZE-vs-SPEC.jsonl)")
    p.add_argument("--resume", action="store_true", help="continue the rows from their journals in --journal-dir")
    p.add_argument("--record", action="store_true",
                   help="write every row into the index as a strength row of the shipped network --checkpoint names")
    p.add_argument("--folder", type=Path, default=None, help="networks folder of --record (default: the package's)")
    return p


def plan(args: argparse.Namespace) -> tuple[object, list[tuple[object, str]]]:
    """The network player and the (game, opponent spec) rows, every one checked before any game
    (ValueError saying what is wrong)."""
    import agents
    from agents.base import check_board
    from agents.registry import split_specs
    from odd_env.game import make as make_game

    if args.games % 2:
        raise ValueError(f"--games must be even (half with each colour), got {args.games}")
    if args.resume and not args.journal_dir:
        raise ValueError("--resume continues the rows from their journals: give --journal-dir too")
    if args.record:
        shipped = {net.name: net for net in agents.pretrained_networks(args.folder)}
        if args.checkpoint not in shipped:
            raise ValueError(f"--record writes into the index of a shipped network: --checkpoint must name one "
                             f"({', '.join(sorted(shipped)) or 'none'}), got {args.checkpoint!r}")
        args.record_as = args.checkpoint
        if args.folder is not None:  # the file of that folder's index, not the package's network of that name
            args.checkpoint = str(shipped[args.checkpoint].path)
    try:
        player = agents.load("ppo", path=args.checkpoint, greedy=True)
    except FileNotFoundError as err:
        raise ValueError(f"--checkpoint: {err}") from None
    cfg = player.network.config
    if cfg.game not in DEFAULT_SIZES:
        raise ValueError(f"--checkpoint holds a {cfg.game} network; this table is of Xodd and Yodd")
    if args.sizes:
        sizes = parse_sizes(args.sizes)
    elif player.general:
        sizes = list(range(DEFAULT_SIZES[cfg.game][0], DEFAULT_SIZES[cfg.game][1] + 1))
    else:
        sizes = [cfg.board_size]
    opponents = split_specs(args.opponents)
    if not opponents and not args.per_size:
        raise ValueError("--opponents names no opponent and --no-per-size leaves out the per-size networks")
    per_size = {net.board_size: f"ppo:pretrained={net.name}" for net in agents.pretrained_networks()
                if net.game == cfg.game and not net.general} if args.per_size else {}
    rows = []
    loaded = {spec: agents.load(spec) for spec in opponents}
    for size in sizes:
        try:
            game = make_game(cfg.game, size)
        except ValueError as err:
            raise ValueError(f"--sizes: {err}") from None
        check_board(player, game, args.checkpoint)
        for spec in opponents + ([per_size[size]] if size in per_size else []):
            check_board(loaded.get(spec) or agents.load(spec), game, spec)
            rows.append((game, spec))
    return player, rows


def journal_path(folder: str, game: object, spec: str) -> Path:
    """The journal of one row: ``FOLDER/SIZE-vs-SPEC.jsonl`` (the spec's odd characters as ``_``)."""
    return Path(folder) / f"{game.size}-vs-{re.sub(r'[^A-Za-z0-9.]+', '_', spec)}.jsonl"


def measure(args: argparse.Namespace, player: object, rows: list[tuple[object, str]]) -> list[dict]:
    """Play every row of :func:`plan`; print the table as it grows and return its rows."""
    from agents.arena import round_robin
    from odd_env._files import check_can_make_dir

    if args.journal_dir:
        check_can_make_dir(args.journal_dir, "--journal-dir").mkdir(parents=True, exist_ok=True)
    label = f"{Path(str(args.checkpoint)).name}@{(player.network_sha256 or '')[:12]}"
    print(f"{label}: {player.network.config.game}, {'size-general' if player.general else 'per-size'} network, "
          f"{args.games} games a row, opening {args.opening}, seed {args.seed}\n", flush=True)
    print("| board | opponent | games | network's score | 95% CI | ms per move |")
    print("|---|---|---:|---:|---|---:|", flush=True)
    out = []
    for game, spec in rows:
        t0 = time.perf_counter()
        journal = journal_path(args.journal_dir, game, spec) if args.journal_dir else None
        res = round_robin([player, spec], game, games_per_pair=args.games, seed=args.seed, workers=args.workers,
                          progress=False, labels=[label, spec], opening=args.opening, journal=journal,
                          resume=args.resume and journal is not None and journal.exists())
        rate, lo, hi, n = res.win_rate(0, 1)
        row = {"board": game.label, "opponent": spec, "games": int(n), "win_rate": float(rate), "ci_low": float(lo),
               "ci_high": float(hi), "ms_per_move": float(res.ms_per_move[0]), "seconds": time.perf_counter() - t0}
        out.append(row)
        if args.record:
            record(args, game, spec, row)
        print(f"| {row['board']} | `{spec}` | {n} | {rate:.1%} | [{lo:.1%}, {hi:.1%}] | {row['ms_per_move']:.1f} |",
              flush=True)
    return out


def record(args: argparse.Namespace, game: object, spec: str, row: dict) -> None:
    """Write one measured row into the index entry of the shipped network ``args.record_as`` (read
    again first: another measurement may have written meanwhile), replacing its row of that board
    and opponent. Rates unrounded, as ``benchmarks/pretrained.py measure`` writes them."""
    from agents.pretrained import network_dir

    new = {"board_size": int(game.size), "opponent": spec, "games": row["games"], "win_rate": row["win_rate"],
           "ci_low": row["ci_low"], "ci_high": row["ci_high"], "seed": args.seed,
           "ms_per_move": round(row["ms_per_move"], 2)}
    if args.opening:
        new["opening"] = args.opening  # (as benchmarks/pretrained.py measure: absent when games start from the empty board)
    record_row(args.folder or network_dir(), args.record_as, new)  # under the index lock: others may record too


def main(argv: list[str] | None = None) -> int:
    """Command-line entry point: a bad argument is one message and exit status 2."""
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        player, rows = plan(args)  # every row checked before the first game
    except ValueError as err:
        parser.error(str(err))
    measure(args, player, rows)
    return 0


if __name__ == "__main__":
    sys.exit(main())
