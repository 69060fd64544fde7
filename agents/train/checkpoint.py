"""Checkpoint files: tensors and plain values only, verified on every load.

Every reader of a trained network goes through this module:
``agents.load("ppo", path=...)``, the arena, ``python -m agents.ppo --resume``
and any later user of pretrained networks (network-guided search, RLlib).

The file
    A torch archive that ``torch.load(path, weights_only=True)`` reads: a dict
    ``{"metadata": {...}, "data": {...}}`` holding only tensors and plain
    values (dict, list, str, int, float, bool, None). Nothing in it needs full
    unpickling, which could run code hidden in a file. The archive also holds
    the metadata as a JSON record (``odd_env_metadata.json``), so that
    :func:`read_metadata` reads it with ``zipfile`` and ``json`` alone,
    without unpickling anything.

The metadata (plain JSON values)
    ``format`` (:data:`FORMAT`), ``kind`` (``"odd_env-ppo"`` for a PPO run),
    ``game``, ``board_size``, ``observation_version`` (of the planes the
    network reads), ``net_config`` (:class:`~agents.train.network.NetConfig` as a
    dict) and ``sha256``, plus what the writer adds (a PPO run: ``args``,
    ``global_step``, ``update``, ``episodes``, ``train_seconds``). A size-general
    network's checkpoint also says ``general: true`` and ``board_sizes`` (the sizes
    it was trained on); ``board_size`` is then its first, and the file loads for
    every board size of its game. Any other checkpoint is for its board alone.

The checksum
    ``sha256`` covers every value of the file but itself: each tensor by its
    name (its path in the dict), dtype, shape and bytes, each plain value by
    its name and JSON text, and the rest of the metadata. :func:`load` refuses
    a file whose checksum differs (a flipped byte, a truncated or edited
    file), whose floating-point tensors are not all finite, or whose JSON
    record disagrees with the metadata inside.

Older files
    Format 1 (before this module) pickled numpy arrays and agent objects, so
    only full unpickling could read it; such files are refused with a message
    naming their format. A file you made yourself can be converted once, as an
    explicit opt-in: ``python -m agents.checkpoint convert OLD.pt NEW.pt --trust``.

Command line::

    python -m agents.checkpoint info runs/x7/last.pt
    python -m agents.checkpoint export runs/x7/last.pt x7.pt   # the network alone
    python -m agents.checkpoint convert old.pt new.pt --trust
"""

from __future__ import annotations

import argparse
import hashlib
import importlib
import io
import json
import os
import pickle
import pickletools
import sys
import zipfile
from pathlib import Path
from typing import Any, Iterator, Sequence

import numpy as np
import torch

from odd_env._files import check_path, write_atomic
from odd_env.game import make as make_game

from .network import NetConfig, PolicyValueNet, check_device

FORMAT = 2
"""The checkpoint format this version writes and reads."""
PPO_KIND = "odd_env-ppo"
"""``kind`` of a PPO training checkpoint (a network and everything its run needs to resume)."""
AZ_KIND = "odd_env-alphazero"
"""A run of :mod:`agents.train.alphazero` (its network loads as a PPO checkpoint's does)."""
NETWORK_KIND = "odd_env-network"
"""``kind`` of a network file: the weights alone, with the metadata of the run that trained them
(:func:`export` writes one; the shipped pretrained networks are such files)."""
EXPORTED_METADATA = ("game", "board_size", "variant", "observation_version", "net_config", "general", "board_sizes",
                     "args", "global_step", "update", "episodes", "train_seconds", "torch_version", "init_sha256")
"""Metadata that :func:`export` carries over from the training checkpoint."""
METADATA_RECORD = "odd_env_metadata.json"
"""Name of the metadata's JSON record inside the archive (beside torch's ``data.pkl``)."""
REQUIRED_METADATA = ("format", "kind", "game", "board_size", "observation_version", "net_config", "sha256")
"""Keys every checkpoint's metadata has."""

_PLAIN = (str, int, float, bool, type(None))
_MEMO_OPS = ("MEMOIZE", "PUT", "BINPUT", "LONG_BINPUT")


class CheckpointError(ValueError):
    """A checkpoint file that cannot be used: corrupt, unsafe, too old, or for another board."""


# ----------------------------------------------------------------- values
def _normalise(value: Any, where: str) -> Any:
    """``value`` as tensors (on the CPU) and plain values only: tuples become lists,
    numpy arrays become tensors, numpy scalars Python numbers; anything else raises."""
    if isinstance(value, torch.Tensor):
        return value.detach().cpu()
    if isinstance(value, np.ndarray):
        return torch.from_numpy(value.copy())
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, _PLAIN):
        return value
    if isinstance(value, dict):
        out = {}
        for k, v in value.items():
            if not isinstance(k, (str, int)) or isinstance(k, bool):
                raise TypeError(f"checkpoint keys must be str or int, got {k!r} in {where}")
            out[k] = _normalise(v, f"{where}/{k}")
        return out
    if isinstance(value, (list, tuple)):
        return [_normalise(v, f"{where}/{i}") for i, v in enumerate(value)]
    raise TypeError(f"a checkpoint holds only tensors and plain values, got {type(value).__name__} in {where}")


def _leaves(value: Any, path: tuple = ()) -> Iterator[tuple[tuple, Any]]:
    """Every leaf of a tree of dicts and lists with its path, in a fixed order.

    Raises CheckpointError for a value that is neither a tensor nor plain.
    """
    if isinstance(value, dict):
        for k in sorted(value, key=lambda k: (type(k).__name__, k)):
            if not isinstance(k, (str, int)) or isinstance(k, bool):
                raise CheckpointError(f"unexpected key {k!r} of type {type(k).__name__} at {_name(path)}")
            yield from _leaves(value[k], path + (k,))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from _leaves(v, path + (i,))
    elif isinstance(value, (torch.Tensor, *_PLAIN)):
        yield path, value
    else:
        raise CheckpointError(f"unexpected value of type {type(value).__name__} at {_name(path)}")


def _name(path: tuple) -> str:
    return "/".join(str(p) for p in path) or "(top)"


def _tensor_bytes(t: torch.Tensor) -> bytes:
    if t.numel() == 0:  # (an empty tensor's view as bytes fails: its stride may be 0)
        return b""
    return t.detach().cpu().contiguous().reshape(-1).view(torch.uint8).numpy().tobytes()


def checksum(metadata: dict[str, Any], data: dict[str, Any]) -> str:
    """The sha256 (hex) of a checkpoint: every tensor (name, dtype, shape, bytes), every
    plain value (name, JSON text) of ``data`` and the metadata without its ``sha256``."""
    h = hashlib.sha256()
    meta = {k: v for k, v in metadata.items() if k != "sha256"}
    h.update(json.dumps(meta, sort_keys=True).encode())
    for path, leaf in _leaves(data):
        h.update(b"\x00" + json.dumps(list(path)).encode() + b"\x00")
        if isinstance(leaf, torch.Tensor):
            h.update(f"tensor {leaf.dtype} {tuple(leaf.shape)}\x00".encode())
            h.update(_tensor_bytes(leaf))
        else:
            h.update(b"value " + json.dumps(leaf).encode())
    return h.hexdigest()


# ----------------------------------------------------------------- writing
def save(path: str | os.PathLike, metadata: dict[str, Any], data: dict[str, Any]) -> Path:
    """Write a checkpoint atomically (a killed process never leaves a half-written file).

    ``metadata`` must hold the keys of :data:`REQUIRED_METADATA` except
    ``format`` and ``sha256``, which are filled in, and only JSON values.
    ``data`` holds tensors (moved to the CPU) and plain values; numpy arrays
    become tensors and tuples lists. Its keys must differ from the metadata's
    (:func:`load` returns both in one dict).
    """
    path = check_path(path, "checkpoint path")  # before any work: not a directory, not a file descriptor
    metadata = dict(metadata, format=FORMAT)
    metadata.pop("sha256", None)
    missing = [k for k in REQUIRED_METADATA if k not in metadata and k != "sha256"]
    if missing:
        raise ValueError(f"checkpoint metadata is missing {missing}")
    clash = sorted(set(metadata) & set(data))
    if clash:
        raise ValueError(f"checkpoint data keys {clash} clash with metadata keys")
    # Plain JSON only, as read back from the JSON record (tuples become lists).
    metadata = json.loads(json.dumps(metadata, allow_nan=False))
    data = _normalise(data, "data")
    metadata["sha256"] = checksum(metadata, data)
    buf = io.BytesIO()
    torch.save({"metadata": metadata, "data": data}, buf)
    with zipfile.ZipFile(buf, "a") as zf:
        prefix = zf.namelist()[0].split("/")[0]
        zf.writestr(f"{prefix}/{METADATA_RECORD}", json.dumps(metadata, indent=1, sort_keys=True))
    return write_atomic(path, buf.getvalue(), fsync=True, what="checkpoint path")


# ----------------------------------------------------------------- reading
def _legacy_fields(pickled: bytes) -> dict[str, Any]:
    """``kind`` and ``format`` of a pickled dict, read from its opcodes without running any.

    :func:`pickletools.genops` only parses; nothing is imported or called.
    """
    found: dict[str, Any] = {}
    previous = None
    try:
        for op, arg, _ in pickletools.genops(pickled):
            if op.name in _MEMO_OPS:
                continue
            if previous in ("kind", "format") and previous not in found:
                if isinstance(arg, (str, int)) and not isinstance(arg, bool):
                    found[previous] = arg
            previous = arg if isinstance(arg, str) else None
    except Exception:  # a damaged pickle: report what was found before the damage
        pass
    return found


def _unsafe_message(path: Path, fmt: Any) -> str:
    return (
        f"{path} is an odd_env checkpoint of format {fmt}, which is refused: format {fmt} stored Python "
        f"objects (numpy arrays, agent objects) that only full unpickling can read, and unpickling a "
        f"file can run any code hidden in it. This version reads format {FORMAT} (tensors and plain "
        f"values, loaded with torch.load(weights_only=True)). Retrain, or convert a file you made "
        f"yourself: python -m agents.checkpoint convert {path} NEW.pt --trust"
    )


def _open_archive(path: str | os.PathLike) -> tuple[Path, zipfile.ZipFile, str]:
    if not isinstance(path, (str, os.PathLike)):
        raise ValueError(f"a checkpoint path is a str or os.PathLike, got {type(path).__name__}: {path!r}")
    path = Path(path)
    if path.is_dir():
        raise CheckpointError(f"{path} is a directory, not a checkpoint file (a run's is RUN_DIR/last.pt)")
    if path.exists() and not path.is_file():
        raise CheckpointError(f"{path} is not a regular file (a pipe or a device), not a checkpoint")
    if not path.is_file():
        raise FileNotFoundError(f"no checkpoint at {path}")
    try:
        zf = zipfile.ZipFile(path)
        names = zf.namelist()
    except (zipfile.BadZipFile, OSError, ValueError) as err:
        raise CheckpointError(f"{path} is corrupt or not a checkpoint (not a complete torch archive: {err})") from err
    pkl = [n for n in names if n.endswith("/data.pkl") and n.count("/") == 1]
    if not pkl:
        zf.close()
        raise CheckpointError(f"{path} is corrupt or not a checkpoint (no data.pkl in the archive)")
    return path, zf, pkl[0].split("/")[0]


def read_metadata(path: str | os.PathLike, game: str | None = None, board_size: int | None = None) -> dict[str, Any]:
    """The metadata of a checkpoint, read as JSON without unpickling anything.

    Checks the format, the observation version and, when given, the game
    and board size; raises :class:`CheckpointError` (a ``ValueError``) saying
    what is wrong, or ``FileNotFoundError``. It does not verify the checksum
    (that needs the tensors: :func:`load` does).
    """
    path, zf, prefix = _open_archive(path)
    with zf:
        try:
            text = zf.read(f"{prefix}/{METADATA_RECORD}")
        except KeyError:
            fields = _legacy_fields(zf.read(f"{prefix}/data.pkl"))
            if isinstance(fields.get("kind"), str) and fields["kind"].startswith("odd_env"):
                raise CheckpointError(_unsafe_message(path, fields.get("format", "unknown"))) from None
            raise CheckpointError(f"{path} is not an odd_env checkpoint (a torch file without odd_env metadata)") from None
        except (zipfile.BadZipFile, OSError, ValueError) as err:
            raise CheckpointError(f"{path} is corrupt (its metadata record cannot be read: {err})") from err
    try:
        metadata = json.loads(text)
    except ValueError as err:
        raise CheckpointError(f"{path} is corrupt (its metadata is not JSON: {err})") from err
    check_metadata(metadata, game, board_size, where=str(path))
    return metadata


def check_metadata(metadata: Any, game: str | None = None, board_size: int | None = None,
                   where: str = "checkpoint") -> None:
    """Raise :class:`CheckpointError` unless ``metadata`` describes a usable checkpoint
    (this format, this observation version, and the given game and board size)."""
    if not isinstance(metadata, dict):
        raise CheckpointError(f"{where} is corrupt (its metadata is not a JSON object)")
    fmt = metadata.get("format")
    if fmt != FORMAT:
        if isinstance(fmt, int) and fmt < FORMAT:
            raise CheckpointError(_unsafe_message(Path(where), fmt))
        raise CheckpointError(f"{where} has checkpoint format {fmt!r}; this version reads format {FORMAT} "
                              f"(a newer odd_env wrote it?)")
    missing = [k for k in REQUIRED_METADATA if k not in metadata]
    if missing:
        raise CheckpointError(f"{where} is corrupt (its metadata is missing {missing})")
    try:
        played = make_game(metadata["game"], metadata["board_size"] or None, metadata.get("variant", ""))
    except ValueError as err:
        raise CheckpointError(f"{where} is for a game this odd_env does not have: {err}") from err
    if metadata["observation_version"] != played.observation_version:
        raise CheckpointError(f"{where} was trained on {played.name} observation version "
                              f"{metadata['observation_version']}, this odd_env produces version "
                              f"{played.observation_version}: retrain for this version")
    if board_size is not None and (isinstance(board_size, bool) or not isinstance(board_size, (int, np.integer))):
        raise ValueError(f"board_size must be an integer or None, got {type(board_size).__name__}: {board_size!r}")
    if game is not None and not isinstance(game, str):
        raise ValueError(f"game must be a game name (e.g. 'xodd') or None, got {type(game).__name__}: {game!r}")
    if game is not None or board_size is not None:
        have = (metadata["game"], metadata["board_size"])
        want = (game if game is not None else have[0], board_size if board_size is not None else have[1])
        if metadata.get("general") is True and have[0] == want[0]:
            try:  # a size-general network plays every board of its game
                make_game(want[0], want[1] or None, metadata.get("variant", ""))
            except ValueError as err:
                raise CheckpointError(f"{where} holds a size-general {have[0]} network, but {err}") from err
        elif have != want:
            hint = "" if have[0] != want[0] else (
                f": its network was trained for that board alone (a per-size network); use one trained on "
                f"{want[0]} {want[1]}, or a size-general network (trained with --general or --board-sizes), "
                f"which plays every size")
            raise CheckpointError(f"{where} is for {have[0]} {have[1]}, not {want[0]} {want[1]}{hint}")


def load(path: str | os.PathLike, game: str | None = None, board_size: int | None = None,
         kind: str | None = None, map_location: str | torch.device = "cpu") -> dict[str, Any]:
    """Read and verify a checkpoint; return its metadata and data in one dict.

    Loads with ``torch.load(weights_only=True)`` only. Refuses, with a
    :class:`CheckpointError` (a ``ValueError``) saying why: a missing or
    damaged file, an older format, a file holding anything but tensors and
    plain values, a checksum mismatch, non-finite weights, another
    observation version, another ``kind``, or another game or board size
    (when given). A missing file raises ``FileNotFoundError``.
    """
    metadata = read_metadata(path, game, board_size)
    path = Path(path)
    if kind is not None and metadata["kind"] != kind:
        raise CheckpointError(f"{path} is a {metadata['kind']!r} checkpoint, not {kind!r}")
    _check_device(map_location)
    try:
        payload = torch.load(path, map_location=map_location, weights_only=True)
    except pickle.UnpicklingError as err:
        raise CheckpointError(
            f"{path} was refused: torch.load(weights_only=True) cannot read it ({str(err).splitlines()[0]}). "
            f"A checkpoint holds only tensors and plain values; anything else would need full unpickling, "
            f"which can run code hidden in the file") from err
    except Exception as err:  # torch raises several types for damaged archives
        raise CheckpointError(f"{path} is corrupt: {err}") from err
    if not isinstance(payload, dict) or set(payload) != {"metadata", "data"} or not isinstance(payload["data"], dict):
        raise CheckpointError(f"{path} is corrupt (expected a dict of metadata and data)")
    if payload["metadata"] != metadata:
        raise CheckpointError(f"{path} is corrupt (its JSON metadata record differs from the metadata inside)")
    data = payload["data"]
    digest = checksum(metadata, data)  # also refuses values that are neither tensors nor plain
    if digest != metadata["sha256"]:
        raise CheckpointError(f"{path} is corrupt: checksum mismatch (sha256 {digest[:16]}..., expected "
                              f"{metadata['sha256'][:16]}...): the file was damaged or edited after it was written")
    for name, leaf in _leaves(data):
        if isinstance(leaf, torch.Tensor) and leaf.is_floating_point() and not torch.isfinite(leaf).all():
            raise CheckpointError(f"{path} holds non-finite values (NaN or inf) in {_name(name)}: "
                                  f"the run diverged before this checkpoint; use an earlier one")
    clash = set(metadata) & set(data)
    if clash:
        raise CheckpointError(f"{path} is corrupt (data keys {sorted(clash)} repeat metadata keys)")
    return {**metadata, **data}


def _check_device(map_location: Any) -> None:
    """ValueError unless ``map_location`` is a device this machine has, a dict, a callable or None
    (a problem of the call, which torch would report as a damaged file)."""
    if isinstance(map_location, (str, torch.device)):
        check_device(map_location, "map_location")
    elif not (map_location is None or callable(map_location) or isinstance(map_location, dict)):
        raise ValueError(f"map_location must be a device (e.g. 'cpu'), a dict, a callable or None, "
                         f"got {type(map_location).__name__}: {map_location!r}")


def network_config(metadata: dict[str, Any], where: str = "checkpoint") -> NetConfig:
    """The checkpoint's :class:`NetConfig`, checked against its game and board size."""
    try:
        config = NetConfig.from_dict(metadata["net_config"])
    except ValueError as err:
        raise CheckpointError(f"{where}: {err}") from err
    g = make_game(metadata["game"], metadata["board_size"] or None, metadata.get("variant", ""))
    if (config.game, config.board_size, config.variant, config.height, config.width, config.in_planes,
            config.point_planes) != (g.name, g.size, g.variant, g.height, g.width, g.num_planes, g.point_planes):
        raise CheckpointError(f"{where}: its network is for {config.game} {config.board_size} {config.variant}, "
                              f"its metadata says {g.label}")
    if config.general != (metadata.get("general") is True):
        raise CheckpointError(f"{where}: its network is {'' if config.general else 'not '}size-general, its "
                              f"metadata says general={metadata.get('general')!r}")
    return config


def _weights(ckpt: dict[str, Any], path: str | os.PathLike) -> dict[str, torch.Tensor]:
    """The network weights (``model``) of a loaded checkpoint, or a :class:`CheckpointError`."""
    model = ckpt.get("model")
    if not isinstance(model, dict) or not all(isinstance(v, torch.Tensor) for v in model.values()):
        raise CheckpointError(f"{path} holds no network weights ('model')")
    return model


def load_network(path: str | os.PathLike, game: str | None = None, board_size: int | None = None,
                 device: str | torch.device = "cpu") -> PolicyValueNet:
    """The network of a checkpoint (verified as :func:`load` does), in eval mode.

    Building it draws nothing from torch's global random generator.
    """
    return network_of(load(path, game, board_size), path, device)


def network_of(ckpt: dict[str, Any], path: str | os.PathLike,
               device: str | torch.device = "cpu") -> PolicyValueNet:
    """The network of a checkpoint already read by :func:`load` (``path`` names it in errors), in eval mode."""
    config = network_config(ckpt, str(path))
    model = _weights(ckpt, path)
    try:
        net = PolicyValueNet.from_weights(config, model)
    except RuntimeError as err:  # load_state_dict: missing, unexpected or misshapen weights
        raise CheckpointError(f"{path}: its weights do not fit its network config: {err}") from err
    return net.to(device).eval()


# ----------------------------------------------------------------- export
def export(src: str | os.PathLike, dst: str | os.PathLike) -> Path:
    """Write the network of checkpoint ``src`` alone to ``dst`` (kind :data:`NETWORK_KIND`).

    ``src`` is verified first; ``dst`` keeps the weights (float32) and the
    run's metadata (:data:`EXPORTED_METADATA`, plus ``source_sha256``, the
    checksum of ``src``) and drops what only resuming needs (optimizer, opponent
    pool, random states): a network of 48 channels x 4 blocks takes about 0.7 MB.
    It loads wherever a checkpoint does (``agents.load("ppo", path=dst)``) but
    cannot resume a run.
    """
    dst = check_path(dst, "export destination")
    if Path(src).exists() and dst.exists() and dst.resolve() == Path(src).resolve():
        raise ValueError(f"export writes the network to a new file: {os.fspath(dst)!r} is the checkpoint itself, "
                         "which would lose what resuming needs (give another destination)")
    ckpt = load(src)
    config = network_config(ckpt, str(src))
    model = _weights(ckpt, src)
    metadata = {k: ckpt[k] for k in EXPORTED_METADATA if k in ckpt}
    metadata.update(kind=NETWORK_KIND, net_config=config.to_dict(), source_sha256=ckpt["sha256"])
    return save(dst, metadata, {"model": {k: v.detach().cpu() for k, v in model.items()}})


# ----------------------------------------------------------------- conversion
UPGRADES = {1: "agents.train.ppo:upgrade_format1"}
"""Format -> ``"module:function"`` that rewrites a checkpoint of that format (unpickled) as
``(metadata, data)`` of the current one; named by string, as the lazy agents are, because the
trainer that wrote the format owns its upgrade."""


def convert(old: str | os.PathLike, new: str | os.PathLike, trust: bool = False) -> Path:
    """Rewrite a format-1 checkpoint (made before this module) in the current format.

    Format 1 can only be read by full unpickling, which runs whatever code
    the file holds: ``trust=True`` says the file is yours. Writes ``new``
    and verifies it by loading it back.
    """
    if not trust:
        raise ValueError("converting a format-1 checkpoint unpickles it fully, which can run code hidden in "
                         "the file: pass trust=True (--trust) only for a file you made yourself")
    old, new = Path(old), Path(new)
    if not old.is_file():
        raise FileNotFoundError(f"no checkpoint at {old}")
    if new.resolve() == old.resolve():
        raise ValueError("write the converted checkpoint to a new path (keep the original until the new one works)")
    try:
        ckpt = torch.load(old, map_location="cpu", weights_only=False)
    except Exception as err:
        raise CheckpointError(f"{old} cannot be read as a format-1 checkpoint: {err}") from err
    if not isinstance(ckpt, dict) or ckpt.get("kind") != PPO_KIND or ckpt.get("format") != 1:
        raise CheckpointError(f"{old} is not a format-1 odd_env PPO checkpoint (kind {ckpt.get('kind')!r}, "
                              f"format {ckpt.get('format')!r})" if isinstance(ckpt, dict) else
                              f"{old} is not a format-1 odd_env PPO checkpoint")
    module, _, attr = UPGRADES[1].partition(":")
    metadata, data = getattr(importlib.import_module(module), attr)(ckpt)
    save(new, metadata, data)
    load(new)
    return new


# ----------------------------------------------------------------- command line
def build_parser() -> argparse.ArgumentParser:
    """The parser of ``python -m agents.checkpoint``."""
    parser = argparse.ArgumentParser(prog="python -m agents.checkpoint",
                                     description="Inspect or convert odd_env checkpoints.")
    sub = parser.add_subparsers(dest="command", required=True)
    info = sub.add_parser("info", help="print a checkpoint's metadata (JSON) after verifying the whole file")
    info.add_argument("path")
    exp = sub.add_parser("export", help="write a checkpoint's network alone (weights and the run's metadata), "
                                        "as the shipped pretrained networks are")
    exp.add_argument("src", help="a training checkpoint (e.g. runs/yodd6/last.pt)")
    exp.add_argument("dst", help="the network file to write")
    conv = sub.add_parser("convert", help="rewrite a format-1 checkpoint in the current format")
    conv.add_argument("old", help="the format-1 checkpoint")
    conv.add_argument("new", help="where to write the converted one")
    conv.add_argument("--trust", action="store_true",
                      help="required: format 1 needs full unpickling, which runs any code in the file; "
                           "give it only for files you made yourself")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Command-line entry point; returns the exit status."""
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        if args.command == "info":
            metadata = read_metadata(args.path)
            load(args.path)  # verifies the checksum and the weights too
            print(json.dumps(metadata, indent=1, sort_keys=True))
        elif args.command == "export":
            path = export(args.src, args.dst)
            print(f"wrote {path} ({path.stat().st_size / 1e6:.2f} MB, kind {NETWORK_KIND})")
        else:
            if not args.trust:
                parser.error("convert needs --trust: format 1 is read by full unpickling, which runs any code "
                             "hidden in the file; give --trust only for a checkpoint you made yourself")
            path = convert(args.old, args.new, trust=True)
            print(f"wrote {path} (format {FORMAT})")
    except (ValueError, FileNotFoundError) as err:
        parser.error(str(err))
    return 0


if __name__ == "__main__":
    sys.exit(main())
