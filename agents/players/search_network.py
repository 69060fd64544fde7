"""The ``network=`` option of the search players (``mcts``, ``az``): a shipped name or a checkpoint path.

One loader for both, so that they accept the same values and say the same thing about bad
ones. A shipped name loads its search network where it ships one (its value refit on its own
games, :mod:`agents.pretrained`), else the player's network.
"""

from __future__ import annotations

import os
from typing import Any


def load_search_network(network: Any, agent: str) -> Any:
    """The :class:`agents.players.network_player.PPOAgent` of ``network`` (a pretrained network's name
    or the path of a PPO checkpoint), or ValueError naming ``agent``'s option and what is accepted.
    Imports torch (a ValueError saying how to install it if it is missing)."""
    from ..pretrained import pretrained_names

    shipped = pretrained_names()
    is_name = isinstance(network, str) and network in shipped and not os.path.isfile(network)
    if not is_name and (not isinstance(network, (str, os.PathLike)) or not os.path.isfile(network)):
        raise ValueError(f"{agent} option network must be a pretrained network's name "
                         f"({', '.join(shipped) or 'none shipped'}) or the path of a PPO checkpoint file, "
                         f"got {network!r}"
                         + ("" if not isinstance(network, (str, os.PathLike)) else ": not a file"))
    try:
        from .network_player import PPOAgent  # torch loads only for network-guided search
    except ImportError as exc:
        if (exc.name or "").split(".")[0] != "torch":
            raise
        raise ValueError(f"{agent} option network needs PyTorch, which is not installed ({exc}): "
                         "pip install \"odd-env[agents]\" (from a checkout: pip install -e \".[agents]\")"
                         ) from exc
    try:
        where = {"pretrained": network} if is_name else {"path": network}
        if is_name:  # a shipped name: its search network if it has one (agents.pretrained)
            from ..pretrained import check_loaded, get_pretrained

            entry = get_pretrained(network)
            if entry.search_path is not None:
                from ..train import checkpoint as ckpt_io

                check_loaded(entry, ckpt_io.read_metadata(entry.search_path), search=True)
                where = {"path": str(entry.search_path)}
        return PPOAgent(**where)
    except ValueError as err:
        raise ValueError(f"{agent} option network {str(network)!r}: {err}") from err
