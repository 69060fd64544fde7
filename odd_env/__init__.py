"""odd_env: Xodd, Yodd and YINSH as PettingZoo and Gymnasium environments.

``import odd_env`` registers ``odd_env/xodd-v0``, ``odd_env/yodd-v0`` and
``odd_env/yinsh-v0`` in PettingZoo's registry
(``pettingzoo.make("aec", "odd_env/xodd-v0", board_size=9)``)
and the single-agent ``odd_env/Xodd-v0`` and ``odd_env/Yodd-v0`` in Gymnasium's
(``gymnasium.make("odd_env/Yodd-v0", board_size=6, opponent="greedy")``).
"""

from pettingzoo import register as _register_aec

from . import xodd_v0, yinsh_v0, yodd_v0
from .batch import OddBatch
from .core import GameState, Geometry, YinshState, hexhex, square
from .gym_env import OddGymEnv, register_envs
from .yinsh_batch import YinshBatch

__version__ = "0.1.0"

_register_aec("aec", "odd_env/xodd-v0", entry_point="odd_env.xodd_v0:env")
_register_aec("aec", "odd_env/yodd-v0", entry_point="odd_env.yodd_v0:env")
_register_aec("aec", "odd_env/yinsh-v0", entry_point="odd_env.yinsh_v0:env")
register_envs()

__all__ = [
    "GameState", "Geometry", "OddBatch", "OddGymEnv", "YinshBatch", "YinshState", "hexhex", "square",
    "xodd_v0", "yinsh_v0", "yodd_v0",
]
