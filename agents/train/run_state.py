"""What a PPO run saves and restores (:mod:`agents.train.ppo`'s checkpoints): the network, the
optimiser, the opponent pool, every lane's games, seats and opponents, the scripted agents'
states, the counters and every random generator, so that ``--resume`` continues exactly.

A run of one board size stores its games as ``engine_states``, ``learner_seat`` and
``opponent``; a run over several sizes stores them per size in ``lanes`` (a list of such dicts,
in the order of ``--board-sizes``). A size-general network's checkpoint says so in its metadata:
``general`` and ``board_sizes``, the sizes it was trained on.
"""

from __future__ import annotations

import copy
import math
import os
import random
from dataclasses import asdict
from typing import Any

import numpy as np
import torch

from . import checkpoint as ckpt_io
from ..registry import split_specs
from .network import NetConfig
from .ppo_args import Args, _resume_conflicts, saved_args
from .selfplay import LATEST, SCRIPTED

RUN_KEYS = ("model", "optimizer", "pool", "scripted", "rng", "args", "global_step", "update", "episodes",
            "train_seconds")
"""What a checkpoint must hold to resume a run (besides its games)."""
LANE_KEYS = ("engine_states", "learner_seat", "opponent")
"""The games of one board size in a checkpoint."""


def rng_data(python: Any, numpy_global: Any, numpy: dict[str, Any], torch_state: torch.Tensor,
             cuda: list[torch.Tensor] | None) -> dict[str, Any]:
    """Every random generator's state as tensors and plain values (a checkpoint's ``rng``).

    The Mersenne Twister words (of Python's ``random`` and numpy's global
    generator) go in int64 tensors: hundreds of plain ints would make the
    file slow to read. ``numpy_global`` may be the legacy tuple of
    :func:`numpy.random.get_state` or its dict form.
    """
    if isinstance(numpy_global, tuple):  # ('MT19937', key, pos, has_gauss, cached_gaussian)
        _, key, pos, has_gauss, gauss = numpy_global
        numpy_global = {"bit_generator": "MT19937", "state": {"key": key, "pos": pos},
                        "has_gauss": has_gauss, "gauss": gauss}
    key = torch.tensor(np.asarray(numpy_global["state"]["key"], dtype=np.int64))
    version, words, gauss = python
    return {"python": {"version": version, "words": torch.tensor(words, dtype=torch.int64), "gauss": gauss},
            "numpy_global": dict(numpy_global, state=dict(numpy_global["state"], key=key)),
            "numpy": numpy, "torch": torch_state, "cuda": cuda}


def all_rng(np_rng: np.random.Generator) -> dict[str, Any]:
    """Every random generator's state now (:func:`rng_data`), ``np_rng`` as ``numpy``."""
    return rng_data(random.getstate(), np.random.get_state(), np_rng.bit_generator.state, torch.get_rng_state(),
                    _cuda_states())


def _cuda_states() -> list[torch.Tensor] | None:
    return torch.cuda.get_rng_state_all() if torch.cuda.is_available() else None


def checkpoint(trainer: Any) -> tuple[dict[str, Any], dict[str, Any]]:
    """(metadata, data) of ``trainer``'s checkpoint: everything needed to rebuild the agent and resume exactly."""
    g = trainer.game
    metadata = {
        "kind": ckpt_io.PPO_KIND, "game": g.name, "board_size": g.size, "variant": g.variant,
        "observation_version": g.observation_version, "net_config": trainer.config.to_dict(),
        **({"general": True, "board_sizes": [lane.game.size for lane in trainer.lanes]}
           if trainer.config.general else {}),
        "args": asdict(trainer.args), "global_step": trainer.global_step, "update": trainer.update,
        "episodes": trainer.episodes, "train_seconds": trainer.train_seconds, "torch_version": torch.__version__,
        **({"init_sha256": trainer.init_sha256} if trainer.init_sha256 else {}),
    }
    lanes = [{"engine_states": lane.engine.get_states(), "learner_seat": lane.learner_seat.copy(),
              "opponent": lane.opponent.copy()} for lane in trainer.lanes]
    data = {
        "model": dict(trainer.net.state_dict()),
        "optimizer": trainer.optimizer.state_dict(),
        "pool": trainer.pool.snapshots,
        **(lanes[0] if len(lanes) == 1 else {"lanes": lanes}),
        "scripted": [{"spec": spec, "state": agent.get_state()}
                     for spec, agent in zip(trainer.scripted_specs, trainer.scripted)],
        "rng": all_rng(trainer.np_rng),
    }
    return metadata, data


def snapshot(trainer: Any) -> dict[str, Any]:
    """A copy of everything :func:`restore` changes, for :func:`put_back`."""
    return {
        "net": copy.deepcopy(trainer.net.state_dict()), "optimizer": copy.deepcopy(trainer.optimizer.state_dict()),
        "lanes": [(lane.engine.get_states(), lane.learner_seat.copy(), lane.opponent.copy()) for lane in trainer.lanes],
        "pool": [dict(s) for s in trainer.pool.snapshots],
        "scripted": [agent.get_state() for agent in trainer.scripted],
        "counters": (trainer.global_step, trainer.update, trainer.episodes, trainer.train_seconds,
                     trainer.init_sha256),
        "rng": (random.getstate(), np.random.get_state(), trainer.np_rng.bit_generator.state, torch.get_rng_state(),
                _cuda_states()),
    }


def put_back(trainer: Any, state: dict[str, Any]) -> None:
    """Set ``trainer`` to a :func:`snapshot`."""
    trainer.net.load_state_dict(state["net"])
    trainer.optimizer.load_state_dict(state["optimizer"])
    for lane, (games, seats, opponent) in zip(trainer.lanes, state["lanes"]):
        lane.engine.set_states(games)
        lane.learner_seat[:] = seats
        lane.opponent[:] = opponent
    trainer.pool.replace(state["pool"])
    for agent, saved in zip(trainer.scripted, state["scripted"]):
        agent.set_state(saved)
    (trainer.global_step, trainer.update, trainer.episodes, trainer.train_seconds,
     trainer.init_sha256) = state["counters"]
    py, npg, npr, tr, cuda = state["rng"]
    random.setstate(py)
    np.random.set_state(npg)
    trainer.np_rng.bit_generator.state = npr
    torch.set_rng_state(tr)
    if cuda is not None:
        torch.cuda.set_rng_state_all(cuda)


def restore(trainer: Any, ckpt: dict[str, Any]) -> None:
    """Continue ``trainer`` from a checkpoint of a run with its arguments (ValueError saying what does
    not fit; ``trainer`` is then as it was)."""
    before = snapshot(trainer)
    try:
        _restore(trainer, ckpt)
    except BaseException as err:
        put_back(trainer, before)
        if isinstance(err, (KeyError, IndexError, TypeError, RuntimeError)):
            raise ValueError(f"cannot resume from this checkpoint: {type(err).__name__}: {err}") from err
        raise


def _lanes_of(ckpt: dict[str, Any], count: int) -> list[dict[str, Any]]:
    lanes = ckpt["lanes"] if "lanes" in ckpt else [{k: ckpt[k] for k in LANE_KEYS if k in ckpt}]
    if len(lanes) != count or any(set(LANE_KEYS) - set(lane) for lane in lanes):
        raise ValueError(f"the checkpoint holds the games of {len(lanes)} board size(s), the run plays {count} "
                         f"(or it holds a network, not a run to resume)")
    return lanes


def _restore(trainer: Any, ckpt: dict[str, Any]) -> None:
    ckpt_io.check_metadata(ckpt, trainer.game.name, trainer.game.size)
    if ckpt["kind"] != ckpt_io.PPO_KIND:
        raise ValueError(f"a {ckpt['kind']!r} checkpoint holds no PPO run to resume")
    if NetConfig.from_dict(ckpt["net_config"]) != trainer.config:  # (fields added since take their defaults)
        raise ValueError(f"checkpoint network {ckpt['net_config']} differs from the run's {trainer.config.to_dict()}")
    missing = [k for k in RUN_KEYS if k not in ckpt]
    if missing:
        raise ValueError(f"the checkpoint lacks {missing} (it holds a network, not a run to resume)")
    lanes = _lanes_of(ckpt, len(trainer.lanes))
    specs = [entry["spec"] for entry in ckpt["scripted"]]
    if specs != trainer.scripted_specs:
        raise ValueError(f"checkpoint has scripted opponents {specs}, the run has {trainer.scripted_specs}")
    pool = list(ckpt["pool"])
    for lane, saved in zip(trainer.lanes, lanes):
        B = lane.slots
        seats, opponent = saved["learner_seat"].numpy(), saved["opponent"].numpy()
        if seats.shape != (B,) or not np.isin(seats, (0, 1)).all():
            raise ValueError(f"learner_seat must be {B} seats of 0 or 1")
        valid = (opponent == LATEST) | ((opponent >= 0) & (opponent < len(pool))) | (
            (opponent <= SCRIPTED) & (opponent > SCRIPTED - len(specs)))
        if opponent.shape != (B,) or not valid.all():
            raise ValueError(f"opponent must be {B} ids of the latest network, a pool snapshot or a scripted agent")
    if len(pool) > trainer.args.pool_size:
        raise ValueError(f"the pool holds {len(pool)} snapshots, more than pool_size {trainer.args.pool_size}")
    shapes = {k: v.shape for k, v in ckpt["model"].items()}
    for i, snap in enumerate(pool):
        if {k: v.shape for k, v in snap.items()} != shapes:
            raise ValueError(f"pool snapshot {i} does not fit the network")
    counters = {k: ckpt[k] for k in ("global_step", "update", "episodes")}
    if not all(isinstance(v, int) and v >= 0 for v in counters.values()):
        raise ValueError(f"bad counters {counters}")
    seconds = ckpt["train_seconds"]
    if isinstance(seconds, bool) or not isinstance(seconds, (int, float)) or not 0 <= seconds < math.inf:
        raise ValueError(f"train_seconds must be a finite number >= 0, got {seconds!r}")
    conflict = _resume_conflicts(asdict(trainer.args), saved_args(ckpt))  # what prepare_run checks, for API users
    if conflict:
        raise ValueError(conflict)
    for lane, saved in zip(trainer.lanes, lanes):
        lane.engine.set_states(saved["engine_states"].numpy())  # validates every game's state
    trainer.net.load_state_dict(ckpt["model"])
    groups = [dict(g, betas=tuple(g["betas"])) for g in ckpt["optimizer"]["param_groups"]]  # stored as lists
    trainer.optimizer.load_state_dict(dict(ckpt["optimizer"], param_groups=groups))
    if trainer.args.lr != ckpt["args"]["lr"]:
        for group in trainer.optimizer.param_groups:
            group["lr"] = trainer.args.lr
    trainer.pool.replace(pool)
    for lane, saved in zip(trainer.lanes, lanes):
        lane.learner_seat[:] = saved["learner_seat"].numpy()
        lane.opponent[:] = saved["opponent"].numpy()
    for entry, agent in zip(ckpt["scripted"], trainer.scripted):
        agent.set_state(entry["state"])
    trainer.global_step, trainer.update, trainer.episodes = (counters["global_step"], counters["update"],
                                                             counters["episodes"])
    trainer.train_seconds = float(ckpt["train_seconds"])
    trainer.init_sha256 = str(ckpt.get("init_sha256", ""))
    set_rng(ckpt["rng"], trainer.np_rng)


def set_rng(rng: dict[str, Any], np_rng: np.random.Generator) -> None:
    """Set every random generator (Python's, numpy's global one, ``np_rng``, torch's, CUDA's where the
    devices match) to a checkpoint's ``rng`` (:func:`rng_data`)."""
    python = rng["python"]
    random.setstate((python["version"], tuple(python["words"].tolist()), python["gauss"]))
    numpy_global = rng["numpy_global"]
    np.random.set_state(dict(numpy_global, state=dict(
        numpy_global["state"], key=numpy_global["state"]["key"].numpy().astype(np.uint32))))
    np_rng.bit_generator.state = rng["numpy"]
    torch.set_rng_state(rng["torch"])
    if rng["cuda"] is not None and torch.cuda.is_available() and len(rng["cuda"]) == torch.cuda.device_count():
        torch.cuda.set_rng_state_all(rng["cuda"])


def load_checkpoint(path: str | os.PathLike, game: str | None = None, board_size: int | None = None,
                    map_location: str = "cpu") -> dict[str, Any]:
    """Read and verify a PPO checkpoint (:func:`agents.train.checkpoint.load`): its metadata
    (``game``, ``board_size``, ``global_step``, ``net_config``, ...) and data in one dict.

    Clear errors (ValueError, FileNotFoundError) for missing, corrupt,
    unsafe, outdated or foreign files, and for another game or board size.
    """
    return ckpt_io.load(path, game, board_size, kind=ckpt_io.PPO_KIND, map_location=map_location)


def upgrade_format1(old: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """(metadata, data) in the current format from a format-1 checkpoint already unpickled
    (by :func:`agents.train.checkpoint.convert`, on the user's explicit trust)."""
    args = {**asdict(Args()), **{k: v for k, v in old["args"].items() if k in Args.__dataclass_fields__}}
    specs = split_specs(args["scripted_opponents"])
    scripted = old.get("scripted", [])
    if len(scripted) != len(specs):
        raise ValueError(f"the checkpoint has {len(scripted)} scripted agents for the specs {specs}")
    metadata = {k: old[k] for k in ("game", "board_size", "observation_version", "net_config",
                                    "global_step", "update", "episodes", "train_seconds")}
    metadata.update(kind=ckpt_io.PPO_KIND, args=args, torch_version=torch.__version__, converted_from_format=1)
    rng = old["rng"]
    data = {
        "model": dict(old["model"]), "optimizer": old["optimizer"], "pool": [dict(s) for s in old["pool"]],
        "engine_states": np.asarray(old["engine_states"], dtype=np.int32),
        "learner_seat": np.asarray(old["learner_seat"], dtype=np.int64),
        "opponent": np.asarray(old["opponent"], dtype=np.int64),
        "scripted": [{"spec": spec, "state": agent.get_state()} for spec, agent in zip(specs, scripted)],
        "rng": rng_data(rng["python"], rng["numpy_global"], rng["numpy"], rng["torch"], rng.get("cuda")),
    }
    return metadata, data
