"""Ship a trained network with the package and measure the shipped ones.

    # export a run's network into agents/networks/ and record it in the index (--replace: over a listed one)
    python benchmarks/pretrained.py add xodd9 runs/recipes/xodd9/last.pt --command "python -m agents.ppo ..."
    # a network refit by agents.train.refit: both commands are recorded
    python benchmarks/pretrained.py add yodd6 runs/yodd6-refit.pt --command "python -m agents.ppo ..." \
        --refit-command "python -m agents.refit ..."
    # a search network for NAME: its value refit (agents.train.refit) guides mcts:network=NAME, the player stays
    python benchmarks/pretrained.py add-search xodd9 xodd9-search.pt --refit-command "python -m agents.refit ..."
    # arena tables (both colours), written into the index and printed as Markdown
    python benchmarks/pretrained.py measure xodd9 --opponents random,greedy,mcts:simulations=200 --games 400
    python benchmarks/pretrained.py measure xodd9 --opponents mcts:simulations=1000 --games 40
    python benchmarks/pretrained.py table       # every shipped network's table, for docs/pretrained.md

``measure`` replaces the rows of the opponents it measured and keeps the others. Its games are journaled
as they end (``runs/measure/NAME/vs-SPEC.jsonl``, ``--journal-dir``): a long measurement that was stopped
continues with the same command and ``--resume``; a journal that holds games is refused without
``--resume`` or ``--overwrite`` (play them all again), and every journal is checked before the first game.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import re
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from agents import split_specs  # noqa: E402
from odd_env._files import check_can_make_dir, write_atomic  # noqa: E402
from odd_env.game import make as make_game  # noqa: E402
from agents.pretrained import INDEX_NAME, network_dir, pretrained_networks  # noqa: E402
from agents.pretrained import _read_index as read_index  # noqa: E402  (the package's reader: corrupt files named)


def write_index(folder: Path, index: dict) -> None:
    write_atomic(folder / INDEX_NAME, json.dumps(index, indent=1, sort_keys=True) + "\n", what="index")


LOCK_NAME = ".index.lock"  # beside the index (ignored by git): serialises the read-modify-writes of it


@contextlib.contextmanager
def locked_index(folder: Path):
    """Hold an exclusive lock on ``folder``'s index while the block reads and rewrites it.

    Several measurements recording at once (two ``bench_general.py --record`` or ``measure``
    processes) each read the index, change their rows and write it back; without the lock the last
    writer drops the rows the others wrote meanwhile. The lock is :func:`fcntl.flock` on
    ``folder/.index.lock``; a second process waits for it (the block is a read and a write). On a
    system without ``fcntl`` (Windows) nothing is locked."""
    folder = Path(folder)
    with open(folder / LOCK_NAME, "ab") as f:
        try:
            import fcntl
        except ImportError:  # pragma: no cover - not on POSIX
            yield
            return
        fcntl.flock(f.fileno(), fcntl.LOCK_EX)  # released when the file closes, or the process ends
        yield


def record_row(folder: Path, name: str, row: dict) -> None:
    """Put the strength row ``row`` into the index entry of ``name``, replacing its row of the same board
    (``board_size``: a general network's rows are per board; a per-size network's have none) and
    opponent, under :func:`locked_index` and read afresh (another measurement may have written
    meanwhile): the other rows stay as they were."""
    with locked_index(folder):
        index = read_index(folder)
        same = (row.get("board_size"), row["opponent"])
        rows = [r for r in index[name].get("strength", []) if (r.get("board_size"), r["opponent"]) != same]
        index[name]["strength"] = sorted(rows + [row], key=opponent_order)
        write_index(folder, index)


def check_name(name: str) -> str:
    """``name`` if it can name a shipped network (its file is NAME.pt in the folder), else ValueError."""
    if not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9_.-]*", name) or name.endswith(".pt"):
        raise ValueError(f"a network name is letters, digits, '_', '.' and '-', starting with a letter or digit "
                         f"(e.g. yodd6), without .pt: its file is NAME.pt in the folder; got {name!r}")
    return name


def add(name: str, src: str, command: str, folder: Path, refit_command: str = "", replace: bool = False) -> None:
    import shutil

    from agents.train import checkpoint as ckpt_io

    check_name(name)
    shipped = read_index(folder).get(name)
    if shipped is not None and not replace:
        raise ValueError(f"a network named {name!r} is listed already ({board_label(shipped)}, "
                         f"{shipped['global_step']:,} steps): give --replace to replace it (its strength table "
                         "and search network go with it unless the file is the same), or choose another name")
    src_meta = ckpt_io.load(src)  # verified before anything is written
    if "refit" in src_meta and not refit_command:
        raise ValueError(f"{src} is a refit network (python -m agents.refit): give --refit-command too")
    if refit_command and "refit" not in src_meta:
        raise ValueError(f"--refit-command given, but {src} is not a refit network (python -m agents.refit writes one)")
    if src_meta["kind"] == ckpt_io.NETWORK_KIND:  # already a network file (a refit's output): shipped as it is
        dst = folder / f"{name}.pt"
        if Path(src).resolve() != dst.resolve():
            shutil.copyfile(src, dst)
    else:
        dst = ckpt_io.export(src, folder / f"{name}.pt")
    meta = ckpt_io.read_metadata(dst)
    with locked_index(folder):
        index = read_index(folder)
        old = index.get(name, {})
        index[name] = {
            "file": dst.name, "game": meta["game"], "board_size": meta["board_size"], "variant": meta.get("variant", ""),
            "sha256": meta["sha256"], "global_step": int(meta["global_step"]),
            "train_minutes": round(float(meta["train_seconds"]) / 60, 1), "command": command,
            **({"refit_command": refit_command} if refit_command else {}),
            "net_config": {k: meta["net_config"][k] for k in ("channels", "blocks")},
            **({"general": True, "board_sizes": list(meta["board_sizes"])} if meta.get("general") is True else {}),
            "strength": old.get("strength", []) if old.get("sha256") == meta["sha256"] else [],
        }
        if old.get("search") and old.get("sha256") == meta["sha256"]:  # a search network refit from this very file stays
            index[name]["search"] = old["search"]
        write_index(folder, index)
    if old.get("search") and "search" not in index[name]:
        (folder / old["search"]["file"]).unlink(missing_ok=True)
        print(f"{name}: its search network {old['search']['file']} was refit from the replaced network: removed "
              f"(add-search a refit of the new one)")
    board = board_label(meta) + (f" (trained on {', '.join(map(str, meta['board_sizes']))})"
                                 if meta.get("general") is True else "")
    print(f"{name}: {dst} ({dst.stat().st_size / 1e6:.2f} MB), {board}, {meta['global_step']} steps")


def board_label(entry: dict) -> str:
    """The board a network plays, as the game names it: ``xodd 9``, ``yinsh`` (one board: size 0),
    ``yinsh blitz``, ``xodd, every size`` (a size-general network; its ``board_size`` is only its default)."""
    if entry.get("general") is True:
        return f"{entry['game']}, every size"
    return make_game(entry["game"], int(entry["board_size"]) or None, entry.get("variant", "")).label


def add_search(name: str, src: str, refit_command: str, folder: Path) -> None:
    """Ship the refit network ``src`` as the search network of the shipped ``name`` (``src`` must be
    ``python -m agents.refit``'s output from ``name``'s very file)."""
    import shutil

    from agents.train import checkpoint as ckpt_io

    listed = read_index(folder)
    if name not in listed:
        raise ValueError(f"no network named {name!r} in {folder}; there are: {', '.join(sorted(listed)) or 'none'}")
    src_meta = ckpt_io.load(src)  # verified before anything is written
    if "refit" not in src_meta:
        raise ValueError(f"{src} is not a refit network: a search network is made by python -m agents.refit {name} OUT")
    if not refit_command.startswith("python -m agents.refit"):
        raise ValueError(f"--refit-command must be the python -m agents.refit command that made {src}, "
                         f"got {refit_command!r}")
    with locked_index(folder):
        index = read_index(folder)
        sha = index.get(name, {}).get("sha256")
        if src_meta.get("source_sha256") != sha:
            raise ValueError(f"{src} was refit from another network (sha256 {str(src_meta.get('source_sha256'))[:12]}), "
                             f"not from {name} ({str(sha)[:12]}): refit {name} itself")
        dst = folder / f"{name}-search.pt"
        if Path(src).resolve() != dst.resolve():
            shutil.copyfile(src, dst)
        index[name]["search"] = {"file": dst.name, "sha256": src_meta["sha256"], "command": refit_command}
        write_index(folder, index)
    print(f"{name}: search network {dst} ({dst.stat().st_size / 1e6:.2f} MB)")


def journal_name(spec: str) -> str:
    """A file name for the journal of the games against ``spec``."""
    return "vs-" + "".join(c if c.isalnum() or c in "-." else "_" for c in spec) + ".jsonl"


def measure(name: str, opponents: list[str], games: int, seed: int, workers: int, folder: Path,
            journal_dir: Path | None = None, resume: bool = False, overwrite: bool = False,
            opening: int = 0) -> None:
    import agents
    from agents.arena import JournalError, check_journal, round_robin
    from agents.base import check_board
    from agents.pretrained import get_pretrained
    from odd_env._files import check_can_make_dir
    from odd_env.game import make as make_game

    # Everything checked before the first game: a bad opponent once failed after the others' rows were written.
    if games < 2 or games % 2:
        raise ValueError(f"--games must be even and >= 2 (half with each colour), got {games}")
    if seed < 0:
        raise ValueError(f"--seed must be an integer >= 0, got {seed}")
    if workers < 1:
        raise ValueError(f"--workers must be an integer >= 1, got {workers}")
    if opening < 0:
        raise ValueError(f"--opening must be an integer >= 0, got {opening}")
    if not opponents:
        raise ValueError("--opponents names no opponent (e.g. --opponents random,greedy,mcts:simulations=200)")
    if len(set(opponents)) != len(opponents):
        raise ValueError(f"--opponents names an opponent twice: {','.join(opponents)}")
    if resume and overwrite:
        raise ValueError("give --resume (keep the journaled games) or --overwrite (play them again), not both")
    net = get_pretrained(name, folder)  # ValueError if unlisted or its file is missing
    game = make_game(net.game, net.board_size or None, net.variant)
    loaded = [agents.load(spec) for spec in opponents]
    for spec, opponent in zip(opponents, loaded):
        check_board(opponent, game, spec)
    if journal_dir is not None:
        check_can_make_dir(journal_dir, "--journal-dir")
    player = agents.load("ppo", path=str(net.path), greedy=True)
    # The network's label carries its checksum: a journal of another file under the same name is refused.
    label = f"{name}@{net.sha256[:12]}"
    for spec, opponent in zip(opponents, loaded):  # every journal is checked before the first game
        path = None if journal_dir is None else journal_dir / journal_name(spec)
        if path is None or not path.exists():
            continue
        if not (resume or overwrite):
            raise ValueError(f"{path} holds games already: --resume continues them (same --seed), --overwrite "
                             "plays them again, or give another --journal-dir")
        if resume:
            try:
                check_journal(path, game, [label, spec], [player.network_sha256, opponent.network_sha256], games, seed,
                              opening)
            except JournalError as exc:
                raise ValueError(f"{exc} (journals are in --journal-dir: give another)") from None
    for spec in opponents:
        t0 = time.perf_counter()
        res = round_robin([player, spec], game, games_per_pair=games, seed=seed,
                          progress=False, labels=[label, spec], workers=workers, resume=resume, opening=opening,
                          journal=None if journal_dir is None else journal_dir / journal_name(spec))
        # (without resume, round_robin starts the journal afresh: --overwrite, or a journal not there before)
        rate, lo, hi, n = res.win_rate(0, 1)
        # Unrounded: the tables round once, to 3 places (rounding 0.99049 to 0.9905 here printed 0.991).
        row = {"opponent": spec, "games": int(n), "win_rate": float(rate), "ci_low": float(lo),
               "ci_high": float(hi), "seed": seed, "ms_per_move": round(float(res.ms_per_move[0]), 2)}
        if opening:
            row["opening"] = opening  # (as bench_general.py --record: absent when games start from the empty board)
        kept = f", {res.resumed} of them from the journal" if res.resumed else ""
        print(f"{name} vs {spec}: {rate:.3f} [{lo:.3f}, {hi:.3f}] over {n} games ({time.perf_counter() - t0:.0f} s"
              f"{kept})", flush=True)
        # Only this opponent's row is replaced, so a measurement stopped after it leaves the others' rows as they were.
        record_row(folder, name, row)


def opponent_order(row: dict) -> tuple:
    """By board (a general network's rows; a per-size network's have none), then random, greedy, then
    MCTS by simulations, then the rest by name."""
    from agents import parse_spec

    name, options = parse_spec(row["opponent"])
    rank = {"random": 0, "greedy": 1, "mcts": 2}.get(name, 3)
    return row.get("board_size", 0), rank, int(options.get("simulations", 0) or 0), row["opponent"]


def table(folder: Path) -> str:
    lines = ["| network | game | steps | minutes | opponent | win rate | 95% CI | games |",
             "|---|---|---:|---:|---|---:|---|---:|"]
    for net in pretrained_networks(folder):
        for row in sorted(net.strength, key=opponent_order):
            minutes = f"{net.train_minutes:.0f}" + (" + refit" if net.refit_command else "")
            board = f"{net.game} {row['board_size']}" if net.general else net.label  # a general network: per board
            lines.append(f"| `{net.name}` | {board} | {net.global_step:,} | {minutes} | "
                         f"{row['opponent']} | {row['win_rate']:.3f} | [{row['ci_low']:.3f}, {row['ci_high']:.3f}] "
                         f"| {row['games']} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    parser.add_argument("--folder", type=Path, default=None, help="networks folder (default: the package's)")
    sub = parser.add_subparsers(dest="action", required=True)
    p_add = sub.add_parser("add", help="export a training checkpoint's network and list it")
    p_add.add_argument("name")
    p_add.add_argument("checkpoint")
    p_add.add_argument("--command", dest="train_command", required=True, help="the command that trained it")
    p_add.add_argument("--refit-command", default="",
                       help="for a refit network (python -m agents.refit), the command that refit it")
    p_add.add_argument("--replace", action="store_true", help="replace a network listed under the same name")
    p_search = sub.add_parser("add-search", help="ship a refit network as the search network of a shipped one")
    p_search.add_argument("name")
    p_search.add_argument("network", help="the output of python -m agents.refit NAME OUT")
    p_search.add_argument("--refit-command", required=True, help="the command that made it")
    p_measure = sub.add_parser("measure", help="arena results against opponents, written into the index")
    p_measure.add_argument("name")
    p_measure.add_argument("--opponents", default="random,greedy,mcts:simulations=200")
    p_measure.add_argument("--games", type=int, default=400, help="games per opponent, half with each colour")
    p_measure.add_argument("--seed", type=int, default=0)
    p_measure.add_argument("--workers", type=int, default=1)
    p_measure.add_argument("--opening", type=int, default=0,
                           help="random legal actions that open every pair of games (the pair swaps colours): "
                                "varied games between deterministic players, e.g. a network against a network")
    p_measure.add_argument("--journal-dir", type=Path, default=None,
                           help="where each opponent's games are journaled as they end "
                                "(default: runs/measure/NAME)")
    p_measure.add_argument("--resume", action="store_true",
                           help="keep the games already in the journals (same --seed; --games may grow) and play the rest")
    p_measure.add_argument("--overwrite", action="store_true",
                           help="play every game again, replacing journals that hold games (without --resume or "
                                "--overwrite, such journals are refused)")
    sub.add_parser("table", help="print every shipped network's strength table")
    args = parser.parse_args(argv)
    folder = args.folder or network_dir()
    try:  # every mistake (a bad name, spec or path, another round robin's journal) is one message, exit 2
        if args.action == "add":
            check_can_make_dir(folder, "--folder")
            folder.mkdir(parents=True, exist_ok=True)  # a new folder of your own networks
            add(args.name, args.checkpoint, args.train_command, folder, args.refit_command, args.replace)
        elif args.action == "add-search":
            add_search(args.name, args.network, args.refit_command, folder)
        elif args.action == "measure":
            names = [n.name for n in pretrained_networks(folder)]
            if args.name not in names:
                raise ValueError(f"no network named {args.name!r} in {folder}; there are: {', '.join(names) or 'none'}")
            measure(args.name, split_specs(args.opponents), args.games, args.seed, args.workers, folder,
                    args.journal_dir or Path("runs") / "measure" / args.name, args.resume, args.overwrite,
                    args.opening)
        else:
            print(table(folder))
    except (ValueError, OSError) as exc:  # JournalError is a ValueError
        parser.error(str(exc))
    return 0


if __name__ == "__main__":
    sys.exit(main())
