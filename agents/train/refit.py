"""Refit a network's value on the outcomes of its own games (for network-guided search).

    python -m agents.refit yodd6 runs/yodd6-refit.pt --games 3000 --seed 0

PPO's value head learns from bootstrapped returns of sampled self-play and
league games, and on the larger boards it ends up predicting the winner of a
game hardly better than a coin (``benchmarks/value_accuracy.py``). A search
that evaluates its leaves with it (:mod:`agents.players.mcts`, ``network=``) inherits
that. This tool gives the network value targets that mean what the search
needs, the result of good play from the position:

1. **Games.** The network plays ``--games`` games against itself in the
   batched engine. Each game samples its first ``k`` steps from the policy
   (temperature ``--temperature``; ``k`` drawn uniformly from
   ``[0, --explore-plies)`` per game), which spreads the positions, then plays
   the most probable legal action to the end. Every position from step ``k``
   on is kept with the game's result for the player to act (+1 win, -1 loss):
   the outcome of the network's own best play from there.
2. **Fit.** The whole network is trained for ``--epochs`` passes (Adam,
   ``--lr``, minibatches of ``--batch-size``) on the value's squared error
   plus ``--policy-weight`` times the KL divergence of its policy from the
   original one over the legal actions, so the priors stay what they were
   (the trunk must change for the value to learn what it did not represent).
   ``--train value`` trains the value head alone instead: the policy, and
   with it the network's player, stays exactly the source's, at the price of
   a value limited to what the trunk already represents.
3. **Check.** The last tenth of the games is held out; the tool prints the
   value's squared error and sign accuracy on them before and after, and how
   often the policy's most probable action is unchanged.

The output is a network file (``kind`` ``odd_env-network``) with the source's
metadata, ``source_sha256``, and a ``refit`` record of the options and the
held-out figures; it loads wherever a checkpoint does. Runs repeat exactly on
one machine for one ``--seed``.
"""

from __future__ import annotations

import argparse
import copy
import sys
import time
from dataclasses import asdict, dataclass, fields
from pathlib import Path
from typing import Any, Sequence

import numpy as np
import torch

from odd_env._files import check_can_make_dir, check_path
from odd_env.game import make as make_game

from . import checkpoint as ckpt_io
from ..base import check_float, check_int
from .network import PolicyValueNet, masked_logits
from ..pretrained import network_file


VALUE_HEAD = ("value_conv", "value_fc", "value_pool_fc", "value_out")
"""The modules of :class:`~agents.train.network.PolicyValueNet` that only the value passes through
(``value_fc`` in a per-size network, ``value_pool_fc`` in a size-general one)."""

TRAIN_CHOICES = ("all", "value")


@dataclass(frozen=True)
class RefitOptions:
    """The options of a refit (recorded in the output's ``refit`` metadata)."""

    games: int = 3000
    """self-play games (the last tenth held out to report the fit)"""
    explore_plies: int = 60
    """each game samples its first k steps from the policy, k uniform in [0, explore_plies); 0: none"""
    temperature: float = 1.0
    """softmax temperature of those sampled steps"""
    num_games: int = 256
    """games played together in the batched engine"""
    epochs: int = 2
    """passes over the positions"""
    lr: float = 1e-3
    """Adam learning rate"""
    batch_size: int = 512
    """positions per gradient step"""
    policy_weight: float = 1.0
    """weight of the KL divergence that keeps the policy the source's"""
    seed: int = 0
    """seed of the games and of the minibatch order"""
    train: str = "all"
    """which weights learn: all (the trunk too, the KL term holding the policy), or value (the value head
    alone: the policy and so the network's player stay exactly the source's)"""

    def check(self) -> None:
        """ValueError naming the first option out of range."""
        check_int("--games", self.games, 10)
        check_int("--explore-plies", self.explore_plies, 0)
        check_float("--temperature", self.temperature, 0.0, 100.0, True)
        check_int("--num-games", self.num_games, 1)
        check_int("--epochs", self.epochs, 1)
        check_float("--lr", self.lr, 0.0, 1.0, True)
        check_int("--batch-size", self.batch_size, 1)
        check_float("--policy-weight", self.policy_weight, 0.0, 1e6)
        check_int("--seed", self.seed, 0)
        if self.train not in TRAIN_CHOICES:
            raise ValueError(f"--train must be one of {', '.join(TRAIN_CHOICES)}, got {self.train!r}")


@torch.no_grad()
def self_play(net: PolicyValueNet, game, opts: RefitOptions) -> dict[str, np.ndarray]:
    """The kept positions of ``opts.games`` games: ``obs``, ``mask``, ``z`` (result for the player to
    act) and ``game`` (the game's number, in the order the games ended)."""
    B = min(opts.num_games, opts.games)
    engine = game.new_batch(B)
    out = engine.reset(seed=opts.seed)
    rng = np.random.default_rng(opts.seed)
    gen = torch.Generator().manual_seed(opts.seed)
    explore = max(opts.explore_plies, 1)
    switch = rng.integers(0, explore, B) if opts.explore_plies else np.zeros(B, dtype=np.int64)
    ply = np.zeros(B, dtype=np.int64)
    kept: list[list[tuple[np.ndarray, np.ndarray, int]]] = [[] for _ in range(B)]
    obs_all, mask_all, z_all, game_all = [], [], [], []
    finished = 0
    while finished < opts.games:
        obs = np.array(out.observation, copy=True)
        mask = np.array(out.action_mask, copy=True).astype(bool)
        to_play = np.array(out.to_play, copy=True)
        logits, _ = net(torch.from_numpy(obs))
        logits = masked_logits(logits, torch.from_numpy(mask))
        probs = torch.softmax(logits / opts.temperature, dim=-1)
        sampled = torch.multinomial(probs, 1, generator=gen).squeeze(1).numpy()
        action = np.where(ply < switch, sampled, logits.argmax(-1).numpy())
        for i in np.flatnonzero(ply >= switch):
            kept[i].append((obs[i], mask[i], int(to_play[i])))
        out = engine.step(action)
        ply += 1
        for i in np.flatnonzero(out.terminated):
            if finished < opts.games:
                rewards = out.info["final_rewards"][i]
                for o, m, p in kept[i]:
                    obs_all.append(o)
                    mask_all.append(m)
                    z_all.append(1.0 if rewards[p] > 0 else -1.0)
                    game_all.append(finished)
                finished += 1
            kept[i] = []
            ply[i] = 0
            switch[i] = rng.integers(0, explore) if opts.explore_plies else 0
    return {"obs": np.stack(obs_all), "mask": np.stack(mask_all), "z": np.asarray(z_all, dtype=np.float32),
            "game": np.asarray(game_all, dtype=np.int64)}


@torch.no_grad()
def evaluate(net: PolicyValueNet, ref: PolicyValueNet, data: dict[str, np.ndarray]) -> dict[str, float]:
    """Value squared error and sign accuracy against ``z``, and the share of positions whose most
    probable legal action is ``ref``'s."""
    sq, right, same, n = 0.0, 0, 0, len(data["z"])
    for i in range(0, n, 2048):
        obs = torch.from_numpy(data["obs"][i:i + 2048])
        mask = torch.from_numpy(data["mask"][i:i + 2048])
        z = torch.from_numpy(data["z"][i:i + 2048])
        logits, value = net(obs)
        ref_logits, _ = ref(obs)
        sq += float(((value - z) ** 2).sum())
        right += int((torch.sign(value) == z).sum())
        same += int((masked_logits(logits, mask).argmax(-1) == masked_logits(ref_logits, mask).argmax(-1)).sum())
    return {"value_mse": sq / n, "value_accuracy": right / n, "same_best_action": same / n}


def fit(net: PolicyValueNet, data: dict[str, np.ndarray], opts: RefitOptions, progress: bool = True) -> None:
    """Train ``net`` in place on ``data``: value error plus ``policy_weight`` x KL(original policy || policy);
    with ``opts.train == "value"`` the value head alone, on the value error (the policy cannot change)."""
    ref = copy.deepcopy(net).eval()
    value_only = opts.train == "value"
    params = ([p for name in VALUE_HEAD if hasattr(net, name) for p in getattr(net, name).parameters()] if value_only
              else list(net.parameters()))
    optimizer = torch.optim.Adam(params, lr=opts.lr)
    gen = torch.Generator().manual_seed(opts.seed)
    obs, mask, z = (torch.from_numpy(data[k]) for k in ("obs", "mask", "z"))
    n = len(z)
    learning = {id(p) for p in params}
    frozen = [p for p in net.parameters() if id(p) not in learning]
    for p in frozen:  # no gradient through the trunk when only the value head learns
        p.requires_grad_(False)
    net.train()
    try:
        for epoch in range(opts.epochs):
            order = torch.randperm(n, generator=gen)
            total, start = 0.0, time.perf_counter()
            for i in range(0, n, opts.batch_size):
                idx = order[i:i + opts.batch_size]
                x, m = obs[idx], mask[idx]
                logits, value = net(x)
                loss = ((value - z[idx]) ** 2).mean()
                if opts.policy_weight and not value_only:
                    with torch.no_grad():
                        ref_logp = torch.log_softmax(masked_logits(ref(x)[0], m), dim=-1)
                    logp = torch.log_softmax(masked_logits(logits, m), dim=-1)
                    kl = (ref_logp.exp() * (ref_logp - logp)).masked_fill(~m, 0.0).sum(-1).mean()
                    loss = loss + opts.policy_weight * kl
                optimizer.zero_grad()
                loss.backward()
                optimizer.step()
                total += loss.item() * len(idx)
            if progress:
                print(f"epoch {epoch + 1}/{opts.epochs}: loss {total / n:.4f} ({time.perf_counter() - start:.0f} s)",
                      flush=True)
    finally:
        for p in frozen:
            p.requires_grad_(True)
    net.eval()


def refit(source: str | Path, out: str | Path, opts: RefitOptions = RefitOptions(), threads: int = 1,
          progress: bool = True) -> dict[str, Any]:
    """Refit the network ``source`` (a checkpoint path or pretrained name) and write it to ``out``.

    Returns the ``refit`` record written into the output's metadata.
    """
    opts.check()
    check_int("--threads", threads, 1)
    path = network_file(source)
    out = check_path(out, "the output")  # the output's path is checked before hours of self-play
    if out.exists() and not out.is_file():
        raise ValueError(f"the output {out} exists and is not a regular file")
    if out.parent != Path(""):
        check_can_make_dir(out.parent, "the output's folder")
    if out.resolve() == path.resolve():
        raise ValueError(f"the output {out} is the source network: write the refit network to another file")
    ckpt = ckpt_io.load(path)
    config = ckpt_io.network_config(ckpt, str(path))
    game = make_game(ckpt["game"], ckpt["board_size"] or None, ckpt.get("variant", ""))
    previous = torch.get_num_threads()
    torch.set_num_threads(threads)
    try:
        net = ckpt_io.load_network(path)
        ref = copy.deepcopy(net)
        start = time.perf_counter()
        data = self_play(net, game, opts)
        played = time.perf_counter() - start
        held = data["game"] >= opts.games - max(1, opts.games // 10)
        train = {k: v[~held] for k, v in data.items()}
        test = {k: v[held] for k, v in data.items()}
        for part, what in ((train, "fitted"), (test, "held-out")):
            if not len(part["z"]):
                raise ValueError(f"the {what} games kept no positions: a game keeps its positions from its step k on "
                                 f"(k uniform below --explore-plies {opts.explore_plies}), and these games ended "
                                 f"sooner: lower --explore-plies below the length of a game of {game.label}, "
                                 f"or play more --games")
        before = evaluate(net, ref, test)
        if progress:
            print(f"{opts.games} games, {len(data['z'])} positions ({len(train['z'])} to fit) in {played:.0f} s; "
                  f"held out before: value error {before['value_mse']:.3f}, accuracy {before['value_accuracy']:.3f}",
                  flush=True)
        fit(net, train, opts, progress)
        after = evaluate(net, ref, test)
        if progress:
            print(f"held out after: value error {after['value_mse']:.3f}, accuracy {after['value_accuracy']:.3f}, "
                  f"same most probable action {after['same_best_action']:.3f}", flush=True)
    finally:
        torch.set_num_threads(previous)
    record = {**asdict(opts), "positions": int(len(train["z"])), "held_out_positions": int(len(test["z"])),
              "before": before, "after": after, "seconds": round(time.perf_counter() - start, 1)}
    metadata = {k: ckpt[k] for k in ckpt_io.EXPORTED_METADATA if k in ckpt}
    metadata.update(kind=ckpt_io.NETWORK_KIND, net_config=config.to_dict(), source_sha256=ckpt["sha256"],
                    refit=record)
    ckpt_io.save(out, metadata, {"model": {k: v.detach().cpu() for k, v in net.state_dict().items()}})
    return record


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m agents.refit", description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    parser.add_argument("source", help="a checkpoint or network file, or a pretrained name (e.g. yodd6)")
    parser.add_argument("out", help="the network file to write")
    defaults = RefitOptions()
    from .ppo_args import _field_docs

    docs = _field_docs(RefitOptions)
    for f in fields(RefitOptions):
        parser.add_argument("--" + f.name.replace("_", "-"), type=type(getattr(defaults, f.name)),
                            default=getattr(defaults, f.name), help=docs.get(f.name, ""))
    parser.add_argument("--threads", type=int, default=1, help="torch CPU threads")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = vars(parser.parse_args(argv))
    source, out, threads = args.pop("source"), args.pop("out"), args.pop("threads")
    try:
        refit(source, out, RefitOptions(**args), threads=threads)
    except (ValueError, OSError) as err:
        parser.error(str(err))
    print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
