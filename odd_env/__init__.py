"""odd_env: Xodd, Yodd and YINSH as PettingZoo and Gymnasium environments.

``import odd_env`` registers ``odd_env/xodd-v0``, ``odd_env/yodd-v0`` and
``odd_env/yinsh-v0`` in both of PettingZoo's registries, AEC (the game
module's ``env()``) and parallel (its ``parallel_env()``)::

    pettingzoo.make("aec", "odd_env/xodd-v0", board_size=9)
    pettingzoo.make("parallel", "odd_env/yodd-v0", board_size=6)
    pettingzoo.make("aec", "odd_env/yinsh-v0", blitz=True)

and the single-agent ``odd_env/Xodd-v0`` and ``odd_env/Yodd-v0`` in Gymnasium's
(``gymnasium.make("odd_env/Yodd-v0", board_size=6, opponent="greedy")``).
"""

import pettingzoo as _pettingzoo

from . import xodd_v0, yinsh_v0, yodd_v0
from .batch import OddBatch
from .core import GameState, Geometry, YinshState, hexhex, square
from .gym_env import OddGymEnv, register_envs
from .yinsh_batch import YinshBatch

__version__ = "0.1.0"


def _register_pettingzoo(game: str) -> None:
    """Register ``odd_env/<game>-v0``: ``odd_env.<game>_v0.env`` as AEC, ``.parallel_env`` as parallel."""
    env_id, module = f"odd_env/{game}-v0", f"odd_env.{game}_v0"
    _pettingzoo.register("aec", env_id, entry_point=f"{module}:env")
    _pettingzoo.register("parallel", env_id, entry_point=f"{module}:parallel_env")


for _game in ("xodd", "yodd", "yinsh"):
    _register_pettingzoo(_game)
register_envs()

__all__ = [
    "GameState", "Geometry", "OddBatch", "OddGymEnv", "YinshBatch", "YinshState", "hexhex", "square",
    "xodd_v0", "yinsh_v0", "yodd_v0",
]
