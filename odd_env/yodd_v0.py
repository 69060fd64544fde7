from . import _doc
from .common.aec import OddParallelEnv, make_env, make_parallel_env
from .games.odd.env import OddRawEnv

__doc__ = _doc.page(
    "Yodd",
    "Yodd (Luis Bolaños Mures, 2011) on a hexhex board of base n (n cells per "
    "side, 3n(n-1)+1 cells) with hexagonal adjacency. Same rules as Xodd: one "
    "or two stones of either colour per turn, an odd total of groups after "
    "every turn, fewer groups of your colour wins.",
    "| parameter | default | allowed |\n|---|---|---|\n"
    "| `board_size` | 6 | 2 to 12 (the base; H = W = 2n - 1) |\n"
    "| `render_mode` | None | `\"ansi\"`, `\"rgb_array\"`, `\"human\"` |\n\n"
    "Cells use axial coordinates (q, r), stored at row = r + n - 1, "
    "col = q + n - 1; array cells with |q + r| > n - 1 are off the board: plane 3 "
    "is zero there and their actions are always masked.",
)


class raw_env(OddRawEnv):  # noqa: N801 (PettingZoo's name)
    """Yodd as a PettingZoo AEC environment without wrappers (see the module docstring)."""

    metadata = {**OddRawEnv.metadata, "name": "yodd_v0"}
    game = "yodd"
    default_size = 6


def env(**kwargs) -> "raw_env":
    """Yodd with PettingZoo's standard wrappers (illegal actions end the game with -1)."""
    return make_env(raw_env, **kwargs)


def parallel_env(**kwargs) -> OddParallelEnv:
    """Yodd as a PettingZoo ``ParallelEnv`` (the turn-based conversion of ``env()``; one agent acts per step)."""
    return make_parallel_env(raw_env, **kwargs)
