"""The AlphaZero trainer's options (:mod:`agents.train.alphazero`): the :class:`Args` dataclass (each
field's docstring is its ``--help``) and their checks. The command line is built from it as PPO's is
(:mod:`agents.train.ppo_args`, :data:`AZ_COMMAND`)."""

from __future__ import annotations

import math
from dataclasses import dataclass

from odd_env.game import Game

from ..search import MAX_SIMULATIONS
from ..search.search import check_precision
from ..arena import MAX_GAMES
from ..base import MAX_THREADS
from .network import check_device
from .ppo_args import Command, check_fields, games_of, parse_milestones, parse_size_weights
from .selfplay import split_slots

POLICY_TARGETS = ("gumbel", "visits")
"""``--policy-target``: Gumbel AlphaZero's improved policy, or AlphaZero's root visit shares."""


@dataclass
class Args:
    """AlphaZero training options; each field's docstring is its ``--help`` text."""

    game: str = "xodd"
    """the game: xodd, yodd or yinsh"""
    board_size: int = 0
    """board size (Xodd side, Yodd base); 0: the game's default (Xodd 9, Yodd 6; YINSH has one board)"""
    board_sizes: str = ""
    """self-play on several board sizes in one run, comma-separated (e.g. 6,7,8,9,10; in place of --board-size): one batched search per size, a replay buffer per size, minibatches of one size each (drawn in proportion to the buffers), one size-general network (implies --general); evaluation per size"""
    size_weights: str = ""
    """with --board-sizes: each size's share of the --num-games games (and of --buffer-size), comma-separated in the same order (e.g. 1,1,2); empty: equal shares"""
    variant: str = ""
    """the game's variant: "" (standard) or, for YINSH, blitz (one ring wins)"""
    seed: int = 1
    """seed of every random choice (runs repeat exactly on one machine)"""
    device: str = "cpu"
    """torch device of the network (self-play inference and updates): cpu or cuda"""
    threads: int = 1
    """torch CPU threads (more than the free cores makes small networks many times slower)"""
    selfplay_precision: str = "float32"
    """the network's arithmetic in the self-play searches: float32, or bfloat16 (a bfloat16 copy of the network: faster on CPUs with bfloat16 units such as Intel AMX, outputs within about 1e-2)"""
    update_precision: str = "float32"
    """the learner's arithmetic: float32, or bfloat16 (mixed precision: the forward and backward passes under torch's autocast, the weights, losses and optimizer in float32; faster on CPUs with bfloat16 units)"""
    compile: bool = False
    """run the self-play network through torch.compile (TorchInductor: 1.3-1.9 times as fast network calls on CPU, outputs equal to rounding; compiled once per process outside the clock; needs a C++ compiler on CPU)"""
    total_steps: int = 1_000_000
    """stop after this many self-play moves (all games together, full and fast searches)"""
    total_minutes: float = 0.0
    """stop after this much wall-clock training time too (0: no limit)"""
    num_games: int = 64
    """self-play games searched together: one tree each, every wave's leaves in one network call"""
    simulations: int = 32
    """simulations of a full search (whose position becomes a training sample)"""
    fast_simulations: int = 8
    """simulations of a fast search (playout-cap randomisation: the move is played, not recorded)"""
    full_search_prob: float = 0.25
    """probability that a move gets a full search and is recorded (1: every move, no fast searches)"""
    policy_target: str = "visits"
    """the policy target: visits (a PUCT search with Dirichlet root noise; target the root's visit shares; the better of the two in docs/alphazero.md's comparison) or gumbel (a Gumbel root search; target softmax(logits + sigma(completed q)))"""
    considered: int = 16
    """with --policy-target gumbel: actions considered at the root (sequential halving over them)"""
    c_puct: float = 1.0
    """PUCT's exploration constant below the root (and at the root with --policy-target visits)"""
    noise: float = 0.25
    """with --policy-target visits: share of Dirichlet noise in the roots' priors"""
    dirichlet_alpha: float = 0.3
    """with --policy-target visits: the Dirichlet noise's concentration"""
    temperature_moves: int = 8
    """moves of each game played by sampling from the policy target; later moves play the search's choice"""
    moves_per_iteration: int = 8
    """moves of every game between two learning phases (the trees are rebuilt at each iteration's start)"""
    channels: int = 32
    """channels of the residual trunk (with --init-from: the source network's)"""
    blocks: int = 3
    """residual blocks (with --init-from: the source network's)"""
    general: bool = False
    """a size-general network (convolutions and global pooling only; with --init-from: the source network's)"""
    init_from: str = ""
    """start from another network of this game: a checkpoint path or a pretrained name (e.g. xodd9); its architecture (channels, blocks, general) replaces --channels, --blocks and --general (with --grow: its general alone)"""
    grow: bool = False
    """with --init-from: grow the source network into --channels and --blocks (at least its own) instead: the grown network computes exactly the source's outputs, its new channels and blocks ready to learn (docs/alphazero.md#growing-a-network)"""
    lr: float = 1e-3
    """Adam learning rate (a new value given with --resume applies from the next update)"""
    weight_decay: float = 1e-4
    """Adam's L2 weight decay"""
    vf_coef: float = 1.0
    """value loss weight (loss = policy cross-entropy + vf_coef * value MSE)"""
    max_grad_norm: float = 1.0
    """gradient clipping"""
    minibatch_size: int = 256
    """positions per gradient step"""
    replay_ratio: float = 4.0
    """times each recorded position is trained on, on average (gradient steps = new positions x this / minibatch)"""
    buffer_size: int = 100_000
    """positions the replay buffer holds (the oldest are dropped)"""
    min_buffer: int = 1000
    """positions in the buffer before learning starts"""
    augment: bool = True
    """map each sampled position (planes, legal mask, policy target) by a random board symmetry (8 on the square, 12 on the hexagon)"""
    eval_every: int = 20
    """iterations between evaluations (0: only at the end)"""
    eval_games: int = 100
    """evaluation games per opponent (half with each colour)"""
    eval_opponents: str = "auto"
    """comma-separated agent specs the network's policy (no search) is evaluated against; auto: random,greedy on Xodd and Yodd, random on YINSH"""
    eval_opening: int = 0
    """random legal actions that open every evaluation game (the two games of a pair that swap colours share theirs): varied games between deterministic players, which without it play the same two games over and over"""
    checkpoint_every: int = 20
    """iterations between checkpoints"""
    milestones: str = ""
    """comma-separated training minutes at which to keep a checkpoint at-<m>min.pt (e.g. 5,15)"""
    run_dir: str = "runs/az"
    """directory of logs (CSV, TensorBoard) and checkpoints"""
    resume: bool = False
    """continue the run in run_dir from its last checkpoint, with its saved arguments"""
    overwrite: bool = False
    """start a new run in a run_dir that holds one: first deletes its last.pt, args.json, metrics.csv, at-*min.pt and tb/"""
    tensorboard: bool = True
    """also write TensorBoard logs (needs the tensorboard package)"""
    progress: bool = True
    """show a progress bar toward whichever limit (steps or minutes) ends the run first"""


MUTABLE_ON_RESUME = ("total_steps", "total_minutes", "eval_every", "eval_games", "eval_opponents", "eval_opening",
                     "checkpoint_every", "milestones", "lr", "threads", "device", "selfplay_precision",
                     "update_precision", "compile", "progress", "tensorboard")
"""Arguments a resumed run may change; every other saved argument must stay as it was."""

MAX_BUFFER = 1 << 24
"""Most positions of the replay buffer."""

_RANGES: dict[str, tuple[float, float, bool]] = {
    # name: (low, high, low_open): integers from low to high, or finite floats in the range.
    "board_size": (0, math.inf, False), "seed": (0, 2**32 - 1, False), "threads": (1, MAX_THREADS, False),
    "total_steps": (1, 10**12, False), "total_minutes": (0, 366 * 24 * 60, False),
    "num_games": (1, 1 << 14, False), "simulations": (1, MAX_SIMULATIONS, False),
    "fast_simulations": (1, MAX_SIMULATIONS, False), "full_search_prob": (0, 1, True),
    "considered": (1, 4096, False), "c_puct": (0, math.inf, False), "noise": (0, 1, False),
    "dirichlet_alpha": (0, 100, True), "temperature_moves": (0, 1 << 20, False),
    "moves_per_iteration": (1, 1 << 20, False), "channels": (1, 1024, False), "blocks": (0, 100, False),
    "lr": (0, math.inf, True), "weight_decay": (0, math.inf, False), "vf_coef": (0, math.inf, False),
    "max_grad_norm": (0, math.inf, True), "minibatch_size": (1, 1 << 16, False),
    "replay_ratio": (0, 1000, True), "buffer_size": (1, MAX_BUFFER, False), "min_buffer": (1, MAX_BUFFER, False),
    "eval_every": (0, math.inf, False), "eval_opening": (0, 1 << 10, False),
    "eval_games": (2, MAX_GAMES, False), "checkpoint_every": (1, math.inf, False),
}


def game_of(args: Args) -> Game:
    """The game of a run's arguments (with ``--board-sizes``, of its first size: the one its checkpoints
    name); ValueError naming the flags if there is none such."""
    return games_of(args)[0]


def size_shares(args: Args) -> tuple[list[Game], list[int], list[int]]:
    """The run's games (one per board size), each one's share of ``--num-games`` and of ``--buffer-size``
    (in proportion to ``--size-weights``); ValueError if a size would get no game."""
    games = games_of(args)
    weights = parse_size_weights(args, len(games))
    slots = split_slots(args.num_games, weights)
    if len(games) > 1 and args.buffer_size < len(games):
        raise ValueError(f"--buffer-size {args.buffer_size} cannot hold positions of the {len(games)} sizes of "
                         f"--board-sizes {args.board_sizes}: give at least one position per size")
    capacity = split_slots(args.buffer_size, weights) if len(games) > 1 else [args.buffer_size]
    return games, slots, capacity


def validate_args(args: Args) -> None:
    """Raise ValueError naming the first wrong argument and what would be right: types, ranges, the
    game (it must have compiled rules, which the search plays through), the device, the policy target,
    how the sizes fit together, the milestones. Agent specs are checked when the trainer builds them."""
    if not isinstance(args, Args):
        raise ValueError(f"the AlphaZero trainer takes an agents.train.az_args.Args, got {type(args).__name__}")
    check_fields(args, _RANGES)
    for game in size_shares(args)[0]:
        if game.compiled is None:
            raise ValueError(f"--game {args.game}: {game.label} has no compiled rules, which the search plays "
                             "through")
    check_device(args.device, "--device")
    check_precision(args.selfplay_precision, "--selfplay-precision")
    check_precision(args.update_precision, "--update-precision")
    parse_milestones(args.milestones)
    if args.policy_target not in POLICY_TARGETS:
        raise ValueError(f"--policy-target must be one of {', '.join(POLICY_TARGETS)}, got {args.policy_target!r}")
    if args.fast_simulations > args.simulations:
        raise ValueError(f"--fast-simulations ({args.fast_simulations}) must be at most --simulations "
                         f"({args.simulations}): a fast search is the cheap one")
    if args.min_buffer > args.buffer_size:
        raise ValueError(f"--min-buffer ({args.min_buffer}) must be at most --buffer-size ({args.buffer_size})")
    if args.minibatch_size > args.buffer_size:
        raise ValueError(f"--minibatch-size ({args.minibatch_size}) must be at most --buffer-size ({args.buffer_size})")
    if args.eval_games % 2:
        raise ValueError(f"--eval-games must be even (half the games with each colour), got {args.eval_games}")
    if not args.run_dir.strip():
        raise ValueError("--run-dir must name a directory, got an empty string")
    if args.grow and not args.init_from.strip():
        raise ValueError("--grow grows the --init-from network into --channels and --blocks: give --init-from too")
    if args.resume and args.overwrite:
        raise ValueError("give --resume (continue the run) or --overwrite (start it over), not both")


AZ_COMMAND = Command(Args, "python -m agents.alphazero",
                     "AlphaZero-style training (batched self-play search, replay buffer, learner) for Xodd, Yodd "
                     "and YINSH.", MUTABLE_ON_RESUME, validate_args, game_of)
"""The command line of :mod:`agents.train.alphazero`."""
