"""Pretrained networks shipped inside the package, by name.

The files live in ``agents/networks/`` (package data): one network file per
name (``xodd9.pt``, ``yodd6.pt``, ...) written by ``python -m agents.checkpoint
export``, and ``index.json``, which says for each name what the file holds
(game, board size, variant, training steps and minutes), the command that
trained it, its file's checksum, and its strength table as measured with the
arena (``benchmarks/pretrained.py measure`` writes those rows).

Use them by name wherever a checkpoint path is accepted::

    agents.load("ppo", pretrained="yodd6")           # the network as a player
    agents.load("ppo:pretrained=yodd6")              # the same, as a spec
    agents.load("mcts", network="yodd6", simulations=200)   # PUCT guided by it (or its search network)
    gymnasium.make("odd_env/Yodd-v0", board_size=6, opponent="ppo:pretrained=yodd6")

:func:`pretrained_networks` lists them (it reads ``index.json`` only: no torch
import); :func:`pretrained_path` gives a name's file. An entry may also carry a
search network (``search`` in the index: the player's network with its value
refit on its own games by :mod:`agents.train.refit`), which then guides
``mcts:network=NAME`` in place of the player's own; ``ppo:pretrained=NAME``
always plays the player's. A size-general network (``general`` in the index, with the
``board_sizes`` it was trained on) is named by its game alone (``xodd``,
``yodd``) and plays every board size of it: ``agents.load("ppo",
pretrained="xodd")`` takes the size from the game it is asked to play (the
arena's, the env's, the play session's).
Loading a network verifies
the file as every checkpoint is verified (:func:`agents.train.checkpoint.load`) and
also checks it against its index entry, so a replaced file is refused.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

INDEX_NAME = "index.json"
"""The index file in :func:`network_dir`."""


def network_dir() -> Path:
    """The folder of the shipped networks (``agents/networks`` in the installed package)."""
    return Path(str(resources.files("agents") / "networks"))


@dataclass(frozen=True)
class PretrainedNetwork:
    """One shipped network, as its index entry describes it."""

    name: str
    """What to pass as ``pretrained=`` (e.g. ``"yodd6"``)."""
    game: str
    board_size: int
    """The board size (0 for YINSH, which has one board)."""
    variant: str
    path: Path
    """The network file."""
    sha256: str
    """The checksum recorded in the file's metadata (checked when it loads)."""
    global_step: int
    """Environment steps of its training run."""
    train_minutes: float
    """Minutes of training (collection and updates) of that run."""
    command: str
    """The command that trained it (then ``python -m agents.checkpoint export``)."""
    refit_command: str = ""
    """For a network whose value was refit on its own games, the ``python -m agents.refit`` command that
    made the shipped file from the trained one (see :mod:`agents.train.refit`); empty otherwise."""
    strength: tuple[dict[str, Any], ...] = field(default=())
    """Arena results: dicts with ``opponent``, ``games``, ``win_rate``, ``ci_low``, ``ci_high``, ``seed``,
    ``ms_per_move``; ``opening`` (random opening actions) only when it is not 0; for a general network
    ``board_size`` (``benchmarks/bench_general.py --record``)."""
    search_path: Path | None = None
    """The network that guides ``agents.load("mcts", network=NAME)`` when it is not the player's own:
    the player's network with its value refit on its own games (:mod:`agents.train.refit`), where that refit
    made the search stronger but the network's own play weaker; None when the search uses :attr:`path`."""
    search_sha256: str = ""
    """The checksum of :attr:`search_path`'s file (checked when it loads)."""
    search_command: str = ""
    """The ``python -m agents.refit`` command that made :attr:`search_path` from the shipped player."""
    general: bool = False
    """A size-general network: it plays every board size of its game (``agents.load("ppo", pretrained="xodd")``
    takes the size from the game it is given); :attr:`board_size` is then the first it was trained on."""
    board_sizes: tuple[int, ...] = ()
    """The board sizes a general network was trained on (empty for a per-size network)."""

    @property
    def stages(self) -> tuple[str, ...]:
        """The training commands in order: :attr:`command` split at ``" && "`` (a network trained in
        stages, each stage ``--init-from`` the previous one's ``--run-dir``; one command otherwise)."""
        return tuple(part.strip() for part in self.command.split(" && "))

    @property
    def label(self) -> str:
        """``"yodd 6"``, ``"yinsh blitz"``, ``"xodd, every size"``: the game and board in words."""
        if self.game == "yinsh":
            return "yinsh" + (f" {self.variant}" if self.variant else "")
        if self.general:
            return f"{self.game}, every size"
        return f"{self.game} {self.board_size}"

    def table(self) -> str:
        """The strength table as Markdown (opponent, win rate, 95% interval, games; a general network's
        rows start with their board)."""
        board = "| board " if self.general else ""
        lines = [f"{board}| opponent | win rate | 95% CI | games |", "|---" * self.general + "|---|---:|---|---:|"]
        for row in self.strength:
            where = f"| {self.game} {row.get('board_size', '?')} " if self.general else ""
            lines.append(f"{where}| {row['opponent']} | {row['win_rate']:.3f} | [{row['ci_low']:.3f}, "
                         f"{row['ci_high']:.3f}] | {row['games']} |")
        return "\n".join(lines)


def _read_index(folder: Path) -> dict[str, Any]:
    path = folder / INDEX_NAME
    if not path.is_file():
        return {}
    try:
        index = json.loads(path.read_text())
    except ValueError as err:
        raise ValueError(f"{path} is corrupt (not JSON: {err}); reinstall odd_env") from err
    if not isinstance(index, dict):
        raise ValueError(f"{path} is corrupt (expected a JSON object of networks); reinstall odd_env")
    return index


def _entry(name: str, raw: Any, folder: Path) -> PretrainedNetwork:
    try:
        return PretrainedNetwork(
            name=name, game=str(raw["game"]), board_size=int(raw["board_size"]), variant=str(raw.get("variant", "")),
            path=folder / str(raw["file"]), sha256=str(raw["sha256"]), global_step=int(raw["global_step"]),
            train_minutes=float(raw["train_minutes"]), command=str(raw["command"]),
            refit_command=str(raw.get("refit_command", "")),
            strength=tuple(dict(row) for row in raw.get("strength", ())),
            general=raw.get("general", False) is True, board_sizes=tuple(int(n) for n in raw.get("board_sizes", ())),
            **_search_fields(raw.get("search"), folder))
    except (KeyError, TypeError, ValueError) as err:
        raise ValueError(f"{folder / INDEX_NAME}: the entry of {name!r} is corrupt ({err!r}); reinstall odd_env") from err


def _search_fields(raw: Any, folder: Path) -> dict[str, Any]:
    if raw is None:
        return {}
    return {"search_path": folder / str(raw["file"]), "search_sha256": str(raw["sha256"]),
            "search_command": str(raw["command"])}


def pretrained_networks(folder: str | Path | None = None) -> list[PretrainedNetwork]:
    """The shipped networks, by game, then board size, then name (reads the index only; imports no torch).

    ``folder`` reads another folder laid out the same way (tests, or networks
    you keep yourself); by default the package's own.
    """
    if folder is None:
        folder = network_dir()
    else:
        if not isinstance(folder, (str, os.PathLike)):
            raise ValueError(f"folder must be a path (a str or os.PathLike) or None, got {type(folder).__name__}: "
                             f"{folder!r}")
        folder = Path(folder)
        if not folder.is_dir():
            raise ValueError(f"no networks folder at {folder}" + (" (it is a file)" if folder.exists() else ""))
    index = _read_index(folder)
    nets = [_entry(name, index[name], folder) for name in index]
    return sorted(nets, key=lambda n: (n.game, n.variant, n.board_size, n.name))


def pretrained_names(folder: str | Path | None = None) -> list[str]:
    """The names :func:`pretrained_path` accepts."""
    return [net.name for net in pretrained_networks(folder)]


def get_pretrained(name: str, folder: str | Path | None = None) -> PretrainedNetwork:
    """The index entry of ``name``; a ``ValueError`` naming the shipped ones if there is none."""
    if not isinstance(name, str):
        raise ValueError(f"a pretrained network is named by a string (e.g. 'yodd6'), got {name!r}")
    nets = {net.name: net for net in pretrained_networks(folder)}
    if name not in nets:
        have = ", ".join(sorted(nets)) or "none"
        raise ValueError(f"no pretrained network named {name!r}; shipped: {have} "
                         f"(agents.pretrained_networks() lists them with their strength)")
    net = nets[name]
    for path in (net.path, net.search_path):
        if path is not None and not path.is_file():
            raise ValueError(f"the pretrained network {name!r} is listed but its file {path} is missing; "
                             f"reinstall odd_env")
    return net


def pretrained_path(name: str, folder: str | Path | None = None) -> Path:
    """The file of the shipped network ``name``."""
    return get_pretrained(name, folder).path


def network_file(source: str | Path) -> Path:
    """A checkpoint file's path, or the file of the shipped network named ``source``
    (``FileNotFoundError`` naming the shipped ones if it is neither)."""
    path = Path(source)
    if path.is_file():
        return path
    if isinstance(source, str) and source in pretrained_names():
        return pretrained_path(source)
    raise FileNotFoundError(f"{source}: no such checkpoint file, nor a pretrained name "
                            f"({', '.join(pretrained_names())})")


def check_loaded(net: PretrainedNetwork, metadata: dict[str, Any], search: bool = False) -> None:
    """Raise ``ValueError`` unless a loaded file's metadata is the one ``net``'s index entry describes
    (its player's file, or with ``search=True`` its search network's)."""
    path, sha = (net.search_path, net.search_sha256) if search and net.search_path is not None else (net.path, net.sha256)
    have = (metadata.get("game"), metadata.get("board_size"), metadata.get("variant", ""), metadata.get("sha256"),
            metadata.get("general") is True)
    want = (net.game, net.board_size, net.variant, sha, net.general)
    if have != want:
        raise ValueError(f"the file of pretrained network {net.name!r} ({path}) is not the one its index "
                         f"describes (game, size, variant, sha256, general {have[:3]} {str(have[3])[:16]}... "
                         f"{have[4]} against {want[:3]} {want[3][:16]}... {want[4]}); reinstall odd_env")


def load_pretrained(name: str, device: str = "cpu", search: bool = False):
    """The shipped network ``name`` (a :class:`~agents.train.network.PolicyValueNet` in eval mode) and its file;
    with ``search=True`` the network that guides searches named by it (its search network if it ships
    one, :attr:`PretrainedNetwork.search_path`, else the same).

    The file is verified as every checkpoint is (:func:`agents.train.checkpoint.load`)
    and must match its index entry. Imports torch.
    """
    from .train import checkpoint as ckpt_io
    from .train.network import check_device

    check_device(device, "device")
    if not isinstance(search, bool):
        raise ValueError(f"search must be True or False, got {search!r}")
    entry = get_pretrained(name)
    path = entry.search_path if search and entry.search_path is not None else entry.path
    check_loaded(entry, ckpt_io.read_metadata(path), search=search)
    return ckpt_io.load_network(path, device=device), path
