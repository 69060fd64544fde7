"""The PPO trainer's options: the :class:`Args` dataclass (each field's docstring is its ``--help``),
the command line that builds it, and the checks of a run's arguments (:mod:`agents.train.ppo`)."""

from __future__ import annotations

import argparse
import ast
import inspect
import math
import textwrap
from dataclasses import asdict, dataclass, fields
from pathlib import Path
from typing import Any

import numpy as np

from odd_env.game import Game, make as make_game

from . import checkpoint as ckpt_io
from ..registry import split_specs
from ..arena import MAX_GAMES
from ..base import MAX_THREADS, check_float, check_int
from .network import check_device
from .selfplay import split_slots


# =============================================================== arguments
@dataclass
class Args:
    """Training options; each field's docstring is its ``--help`` text."""

    game: str = "xodd"
    """the game: xodd, yodd or yinsh"""
    board_size: int = 0
    """board size (Xodd side, Yodd base); 0: the game's default (Xodd 9, Yodd 6; YINSH has one board)"""
    board_sizes: str = ""
    """train on several board sizes in one run, comma-separated (e.g. 9,10,11,12,13,14; in place of --board-size): one batched engine per size stepped side by side, minibatches of one size each, one size-general network (implies --general); evaluation and logs per size"""
    size_weights: str = ""
    """with --board-sizes: each size's share of the --num-games game slots, comma-separated in the same order (e.g. 1,1,1,2,2,2); empty: equal shares"""
    general: bool = False
    """a size-general network: convolutions and global pooling only (mean and max over the board's points in the value head), so that it plays every board size of its game"""
    variant: str = ""
    """the game's variant: "" (standard) or, for YINSH, blitz (one ring wins)"""
    seed: int = 1
    """seed of every random choice (runs repeat exactly on one machine)"""
    device: str = "cpu"
    """torch device: cpu or cuda"""
    threads: int = 1
    """torch CPU threads (more than the free cores makes small networks many times slower)"""
    total_steps: int = 2_000_000
    """stop after this many environment steps (all games together)"""
    total_minutes: float = 0.0
    """stop after this much wall-clock training time too (0: no limit)"""
    num_games: int = 128
    """games stepped together in the batched engine"""
    rollout_steps: int = 32
    """engine steps per rollout (samples: up to num_games x rollout_steps)"""
    channels: int = 32
    """channels of the residual trunk"""
    blocks: int = 3
    """residual blocks"""
    init_from: str = ""
    """start from another network of this game instead of random weights: a checkpoint path or a pretrained name (e.g. yodd6), of any board size, with these --channels and --blocks (every weight is copied except the value head's board-sized layer when the board differs, which starts fresh)"""
    grow: bool = False
    """with --init-from: --channels and --blocks may exceed the source's, which is grown into them exactly (the same outputs, the new channels and blocks ready to learn; docs/alphazero.md#growing-a-network)"""
    lr: float = 1e-3
    """Adam learning rate (a new value given with --resume applies from the next update)"""
    anneal_lr: bool = False
    """anneal the learning rate linearly to 0 over total_steps"""
    gamma: float = 1.0
    """discount (1.0: the episodic zero-sum setting the scheme is exact for)"""
    gae_lambda: float = 0.95
    """GAE lambda"""
    update_epochs: int = 2
    """passes over each rollout"""
    minibatch_size: int = 256
    """samples per gradient step"""
    clip_coef: float = 0.2
    """PPO clip range"""
    ent_coef: float = 0.01
    """entropy bonus (over legal actions)"""
    vf_coef: float = 0.5
    """value loss weight"""
    max_grad_norm: float = 0.5
    """gradient clipping"""
    target_kl: float = 0.0
    """stop an update's epochs early above this KL (0: never)"""
    augment: bool = False
    """before each update, replace every sample by its image under a random board symmetry (8 on the square, 12 on the hexagon), its old log-probability and value recomputed"""
    latest_prob: float = 0.5
    """probability that a new game's opponent is the latest network (else a snapshot)"""
    scripted_opponents: str = ""
    """comma-separated agent specs also used as opponents (e.g. greedy); empty: pure self-play"""
    scripted_prob: float = 0.0
    """probability that a new game's opponent is one of scripted_opponents (drawn first)"""
    snapshot_every: int = 10
    """updates between snapshots added to the opponent pool"""
    pool_size: int = 10
    """snapshots kept in the pool (oldest dropped)"""
    eval_every: int = 20
    """updates between evaluations (0: only at the end)"""
    eval_games: int = 100
    """evaluation games per opponent (half with each colour)"""
    eval_opponents: str = "auto"
    """comma-separated agent specs to evaluate against (e.g. random,greedy,mcts:simulations=100,c=1.4); auto: random,greedy on Xodd and Yodd, random on YINSH (greedy plays Xodd and Yodd only)"""
    eval_opening: int = 0
    """random legal actions that open every evaluation game (the two games of a pair that swap colours share theirs): varied games between deterministic players, which without it play the same two games over and over"""
    checkpoint_every: int = 20
    """updates between checkpoints"""
    milestones: str = ""
    """comma-separated training minutes at which to keep a checkpoint at-<m>min.pt (e.g. 5,15)"""
    run_dir: str = "runs/ppo"
    """directory of logs (CSV, TensorBoard) and checkpoints"""
    resume: bool = False
    """continue the run in run_dir from its last checkpoint, with its saved arguments"""
    overwrite: bool = False
    """start a new run in a run_dir that holds one: first deletes its last.pt, args.json, metrics.csv, at-*min.pt and tb/"""
    tensorboard: bool = True
    """also write TensorBoard logs (needs the tensorboard package)"""
    progress: bool = True
    """show a progress bar toward whichever limit (steps or minutes) ends the run first"""


MUTABLE_ON_RESUME = ("total_steps", "total_minutes", "eval_every", "eval_games", "eval_opponents",
                     "eval_opening",
                     "checkpoint_every", "milestones", "lr", "threads", "device", "progress", "tensorboard")
"""Arguments a resumed run may change; every other saved argument must stay as it was."""
RUN_CONTROL = ("run_dir", "resume", "overwrite")
"""Arguments that say where and how to start, never compared with a run's saved ones."""


def _flag(name: str) -> str:
    return "--" + name.replace("_", "-")


def resume_help(mutable: tuple[str, ...]) -> str:
    """The ``--help`` epilog on resuming a run whose arguments ``mutable`` may change."""
    return ("resuming: --run-dir R --resume continues the run in R with the arguments saved in its checkpoint. "
            "Flags given again must agree with the saved ones, except these, which may change: "
            + ", ".join(_flag(n) for n in mutable)
            + " (--lr applies from the next update; another --device or --threads continues the run, but not bit "
            "for bit). A new run refuses a run directory that already holds one (last.pt or args.json) unless "
            "--resume or --overwrite is given.")


RESUME_HELP = resume_help(MUTABLE_ON_RESUME)


@dataclass(frozen=True)
class Command:
    """A trainer's command line: its arguments dataclass (each field's docstring its ``--help``), its name and
    description, the arguments a resumed run may change, the check of its arguments and the game they name.
    The functions below take one (None: PPO's, :data:`PPO_COMMAND`)."""

    cls: type
    prog: str
    description: str
    mutable: tuple[str, ...]
    validate: Any
    """``validate(args)``: ValueError naming the first wrong argument."""
    game_of: Any
    """``game_of(args)``: the run's game (the one its checkpoints name)."""


def _field_docs(cls: type) -> dict[str, str]:
    """Attribute docstrings of a dataclass (the string literal after each field)."""
    tree = ast.parse(inspect.getsource(cls))
    body = tree.body[0].body  # type: ignore[attr-defined]
    docs = {}
    for node, nxt in zip(body, body[1:]):
        if isinstance(node, ast.AnnAssign) and isinstance(nxt, ast.Expr) and isinstance(nxt.value, ast.Constant):
            docs[node.target.id] = str(nxt.value.value)  # type: ignore[attr-defined]
    return docs


def _field_kind(f: Any) -> type:
    return {"int": int, "float": float, "str": str, "bool": bool}[f.type if isinstance(f.type, str) else f.type.__name__]


def _fits_kind(value: Any, kind: type) -> bool:
    """Whether ``value`` can be an argument of ``kind`` (a bool is no number; an int is a float)."""
    if kind is float:
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    return isinstance(value, kind) and not (kind is int and isinstance(value, bool))


def build_parser(suppress_defaults: bool = False, command: Command | None = None) -> argparse.ArgumentParser:
    """An argparse parser generated from the arguments dataclass of ``command`` (:class:`Args`) and its
    field docstrings.

    ``suppress_defaults``: flags not given are left out of the namespace (to
    tell which flags the user gave).
    """

    command = command or PPO_COMMAND

    class Formatter(argparse.ArgumentDefaultsHelpFormatter, argparse.RawDescriptionHelpFormatter):
        pass

    parser = argparse.ArgumentParser(
        prog=command.prog, description=command.description,
        epilog=textwrap.fill(resume_help(command.mutable), 79), formatter_class=Formatter,
    )
    docs = _field_docs(command.cls)
    for f in fields(command.cls):
        default = argparse.SUPPRESS if suppress_defaults else f.default
        text = docs.get(f.name, "").replace("%", "%%")
        kind = _field_kind(f)
        if kind is bool:
            parser.add_argument(_flag(f.name), default=default, action=argparse.BooleanOptionalAction, help=text)
        else:
            parser.add_argument(_flag(f.name), type=kind, default=default, help=text)
    return parser


def saved_args(metadata: dict[str, Any], cls: type = Args) -> dict[str, Any]:
    """The arguments a checkpoint was written with (its metadata's ``args``), completed
    with today's defaults (of the arguments dataclass ``cls``) for arguments added since."""
    saved = metadata.get("args")
    if not isinstance(saved, dict):
        raise ValueError("the checkpoint's metadata has no saved arguments")
    return {**asdict(cls()), **{k: v for k, v in saved.items() if k in cls.__dataclass_fields__}}


def _resume_conflicts(given: dict[str, Any], saved: dict[str, Any],
                      mutable: tuple[str, ...] = MUTABLE_ON_RESUME) -> str | None:
    """A message naming the given arguments that differ from the saved ones and may not, or None."""
    diff = [f"{_flag(k)} {given[k]!r} (the run has {saved[k]!r})" for k in given
            if k not in mutable + RUN_CONTROL and k in saved and given[k] != saved[k]]
    if not diff:
        return None
    return ("--resume: " + "; ".join(diff) + " cannot change in a resumed run: leave them out (the run's "
            "saved values are used) or start a new run. Flags that may change on resume: "
            + ", ".join(_flag(n) for n in mutable))


def no_checkpoint(run_dir: Path) -> FileNotFoundError:
    """The error of ``--resume`` in ``run_dir`` without a last.pt: what to do depends on whether a run
    started there (its args.json) and was stopped before its first checkpoint."""
    last = run_dir / "last.pt"
    if (run_dir / "args.json").exists():
        return FileNotFoundError(f"--resume: the run in {run_dir} was stopped before its first checkpoint (it has "
                                 f"args.json but no {last.name}): there is nothing to resume; start it again with "
                                 "--overwrite (without --resume)")
    return FileNotFoundError(f"--resume: no checkpoint at {last} (start a new run without --resume)")


def parse_args(argv: list[str] | None = None, command: Command | None = None) -> Any:
    """Parse the command line into :class:`Args` (the arguments dataclass of ``command``).

    With ``--resume`` the run's saved arguments (from its checkpoint) fill in
    every flag not given; a given flag that differs from the saved one raises
    ValueError unless it is in :data:`MUTABLE_ON_RESUME` (``command.mutable``).
    """
    command = command or PPO_COMMAND
    full = vars(build_parser(command=command).parse_args(argv))
    if not full["resume"] or full["overwrite"]:
        return command.cls(**full)  # (--resume with --overwrite is refused by validate_args)
    given = vars(build_parser(suppress_defaults=True, command=command).parse_args(argv))
    last = Path(full["run_dir"]) / "last.pt"
    if not last.is_file():
        raise no_checkpoint(Path(full["run_dir"]))
    saved = saved_args(ckpt_io.read_metadata(last), command.cls)
    conflict = _resume_conflicts(given, saved, command.mutable)
    if conflict:
        raise ValueError(conflict)
    return command.cls(**{**saved, **given, "run_dir": full["run_dir"], "resume": True, "overwrite": False})


MAX_SAMPLES = 1 << 22
"""Most samples of one rollout (``num_games * rollout_steps``): their buffers must fit in memory."""

_RANGES: dict[str, tuple[float, float, bool]] = {
    # name: (low, high, low_open) -- integers from low to high, or finite floats in the range. Counts and
    # times are bounded by what can finish (and fit in memory): --total-minutes 1e30 never would.
    "board_size": (0, math.inf, False), "seed": (0, math.inf, False), "threads": (1, MAX_THREADS, False),
    "total_steps": (1, 10**12, False), "total_minutes": (0, 366 * 24 * 60, False),
    "num_games": (1, 1 << 16, False), "rollout_steps": (1, 1 << 16, False), "channels": (1, 1024, False),
    "blocks": (0, 100, False), "lr": (0, math.inf, True), "gamma": (0, 1, False),
    "gae_lambda": (0, 1, False), "update_epochs": (1, 1000, False), "minibatch_size": (1, MAX_SAMPLES, False),
    "clip_coef": (0, math.inf, True), "ent_coef": (0, math.inf, False), "vf_coef": (0, math.inf, False),
    "max_grad_norm": (0, math.inf, True), "target_kl": (0, math.inf, False), "latest_prob": (0, 1, False),
    "scripted_prob": (0, 1, False), "snapshot_every": (1, math.inf, False), "pool_size": (1, 1000, False),
    "eval_every": (0, math.inf, False), "eval_opening": (0, 1 << 10, False),
    "eval_games": (1, MAX_GAMES, False), "checkpoint_every": (1, math.inf, False),
}


def parse_milestones(text: str) -> list[float]:
    """The training minutes of ``--milestones`` ("5,15"), sorted; ValueError if any is not a positive number."""
    out = []
    for item in (x.strip() for x in text.split(",")):
        if not item:
            continue
        try:
            value = float(item)
        except ValueError:
            value = float("nan")
        if not (math.isfinite(value) and value > 0):
            raise ValueError(f"--milestones must be comma-separated positive minutes (e.g. 5,15), got {item!r} in {text!r}")
        out.append(value)
    return sorted(out)


def check_fields(args: Any, ranges: dict[str, tuple[float, float, bool]]) -> None:
    """Raise ValueError naming the first field of the dataclass ``args`` whose type is wrong, or whose
    value is outside its ``ranges`` entry ``(low, high, low_open)``: integers from low to high, or finite
    floats in the range."""
    cls = type(args)
    for f in fields(cls):
        value, kind = getattr(args, f.name), _field_kind(f)
        if not _fits_kind(value, kind):
            hint = f" (a NumPy scalar: pass {kind.__name__}(value))" if isinstance(value, np.generic) else ""
            raise ValueError(f"{_flag(f.name)} must be {kind.__name__}, got {value!r}{hint}")
    for name, (low, high, low_open) in ranges.items():
        if _field_kind(cls.__dataclass_fields__[name]) is int:
            check_int(_flag(name), getattr(args, name), int(low), None if high == math.inf else int(high))
        else:
            check_float(_flag(name), getattr(args, name), low, high, low_open)


def validate_args(args: Args) -> None:
    """Raise ValueError naming the first wrong argument and what would be right.

    Checks types, ranges (finite numbers, probabilities in [0, 1], positive
    sizes and frequencies), the game and board size, the device, the
    milestones and how the scripted-opponent options fit together. Agent
    specs are checked when the :class:`Trainer` builds them.
    """
    check_fields(args, _RANGES)
    if args.num_games * args.rollout_steps > MAX_SAMPLES:
        raise ValueError(f"--num-games x --rollout-steps must be at most {MAX_SAMPLES:,} samples a rollout (what fits "
                         f"in memory), got {args.num_games} x {args.rollout_steps} = "
                         f"{args.num_games * args.rollout_steps:,}")
    if args.seed > 2**32 - 1:  # numpy's global seed (seeded with it) takes 32 bits
        raise ValueError(f"--seed must be an integer from 0 to 2**32 - 1 = {2**32 - 1}, got {args.seed}")
    games_of(args)
    check_device(args.device, "--device")
    parse_milestones(args.milestones)
    if not args.run_dir.strip():
        raise ValueError("--run-dir must name a directory, got an empty string")
    scripted = split_specs(args.scripted_opponents)
    if args.scripted_prob > 0 and not scripted:
        raise ValueError("--scripted-prob > 0 needs --scripted-opponents (e.g. --scripted-opponents greedy)")
    if scripted and args.scripted_prob == 0:
        raise ValueError(f"--scripted-opponents {args.scripted_opponents} would never play with --scripted-prob 0: "
                         "give a probability (e.g. --scripted-prob 0.3) or leave the opponents out")
    if args.eval_games % 2:
        raise ValueError(f"--eval-games must be even (half the games with each colour), got {args.eval_games}")
    if args.grow and not args.init_from.strip():
        raise ValueError("--grow grows the --init-from network into --channels and --blocks: give --init-from too")
    if args.resume and args.overwrite:
        raise ValueError("give --resume (continue the run) or --overwrite (start it over), not both")
    split_slots(args.num_games, parse_size_weights(args, len(games_of(args))))


def game_of(args: Args) -> Game:
    """The game of a run's arguments (with ``--board-sizes``, of its first size: the one its checkpoints
    name); ValueError naming the flags if there is none such."""
    return games_of(args)[0]


PPO_COMMAND = Command(Args, "python -m agents.ppo", "Self-play PPO for Xodd, Yodd and YINSH.", MUTABLE_ON_RESUME,
                      validate_args, game_of)
"""The command line of :mod:`agents.train.ppo`."""


def parse_board_sizes(text: str) -> list[int]:
    """The sizes of ``--board-sizes`` ("9,10,11"), in their order; ValueError unless they are distinct
    integers."""
    sizes = []
    for item in (x.strip() for x in text.split(",")):
        if not item.isdigit() or int(item) < 1:
            raise ValueError(f"--board-sizes must be comma-separated board sizes (e.g. 9,10,11,12,13,14), "
                             f"got {item!r} in {text!r}")
        if int(item) in sizes:
            raise ValueError(f"--board-sizes names {item} twice in {text!r}: give each size once (--size-weights "
                             f"gives a size a larger share)")
        sizes.append(int(item))
    return sizes


def games_of(args: Args) -> list[Game]:
    """The games of a run's arguments: one per board size (``--board-sizes``), or the one of
    ``--board-size``; ValueError naming the flags if one is not a game."""
    if args.board_sizes.strip() and args.board_size:
        raise ValueError(f"give --board-size ({args.board_size}) or --board-sizes ({args.board_sizes}), not both")
    sizes: list[int | None] = list(parse_board_sizes(args.board_sizes)) if args.board_sizes.strip() else \
        [args.board_size or None]
    games = []
    for size in sizes:
        try:
            games.append(make_game(args.game, size, args.variant))
        except ValueError as err:
            flag = f" --board-sizes {args.board_sizes}" if args.board_sizes.strip() else \
                (f" --board-size {args.board_size}" if args.board_size else "")
            variant = f" --variant {args.variant}" if args.variant else ""
            raise ValueError(f"--game {args.game}{flag}{variant}: {err}") from err
    if len({g.label for g in games}) < len(games):  # (YINSH: every size is its one board)
        raise ValueError(f"--board-sizes {args.board_sizes}: {games[0].name} has one board; leave --board-sizes out")
    return games


def parse_size_weights(args: Args, sizes: int) -> list[float]:
    """The shares of ``--size-weights`` for ``sizes`` board sizes (equal shares when empty);
    ValueError unless there is one positive finite number per size."""
    text = args.size_weights.strip()
    if not text:
        return [1.0] * sizes
    if not args.board_sizes.strip():
        raise ValueError(f"--size-weights {text} shares the game slots among --board-sizes: give --board-sizes too")
    weights = []
    for item in (x.strip() for x in text.split(",")):
        try:
            value = float(item)
        except ValueError:
            value = float("nan")
        if not (math.isfinite(value) and value > 0):
            raise ValueError(f"--size-weights must be positive numbers (e.g. 1,1,2), got {item!r} in {text!r}")
        weights.append(value)
    if len(weights) != sizes:
        raise ValueError(f"--size-weights {text} gives {len(weights)} weights for the {sizes} sizes of "
                         f"--board-sizes {args.board_sizes}: give one per size")
    return weights
