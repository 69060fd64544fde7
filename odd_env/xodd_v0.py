from . import _doc
from .common.aec import OddParallelEnv, make_env, make_parallel_env
from .games.odd.env import OddRawEnv

__doc__ = _doc.page(
    "Xodd",
    "Xodd (Luis Bolaños Mures, 2011) on an n x n square grid with orthogonal "
    "adjacency. Players place one or two stones of either colour per turn; "
    "after every turn the total number of groups must be odd; the player with "
    "fewer groups of their colour at the end wins.",
    "| parameter | default | allowed |\n|---|---|---|\n"
    "| `board_size` | 9 | 2 to 19 (n x n points; H = W = n) |\n"
    "| `render_mode` | None | `\"ansi\"`, `\"rgb_array\"`, `\"human\"` |",
)


class raw_env(OddRawEnv):  # noqa: N801 (PettingZoo's name)
    """Xodd as a PettingZoo AEC environment without wrappers (see the module docstring)."""

    metadata = {**OddRawEnv.metadata, "name": "xodd_v0"}
    game = "xodd"
    default_size = 9


def env(**kwargs) -> "raw_env":
    """Xodd with PettingZoo's standard wrappers (illegal actions end the game with -1)."""
    return make_env(raw_env, **kwargs)


def parallel_env(**kwargs) -> OddParallelEnv:
    """Xodd as a PettingZoo ``ParallelEnv`` (the turn-based conversion of ``env()``; one agent acts per step)."""
    return make_parallel_env(raw_env, **kwargs)
