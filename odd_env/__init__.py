"""odd_env: Xodd, Yodd and YINSH as PettingZoo and Gymnasium environments.

``import odd_env`` registers ``odd_env/xodd-v0``, ``odd_env/yodd-v0`` and
``odd_env/yinsh-v0`` in both of PettingZoo's registries, AEC (the game
module's ``env()``) and parallel (its ``parallel_env()``)::

    pettingzoo.make("aec", "odd_env/xodd-v0", board_size=9)
    pettingzoo.make("parallel", "odd_env/yodd-v0", board_size=6)
    pettingzoo.make("aec", "odd_env/yinsh-v0", blitz=True)

and the single-agent ``odd_env/Xodd-v0``, ``odd_env/Yodd-v0`` and ``odd_env/Yinsh-v0`` in
Gymnasium's (``gymnasium.make("odd_env/Yodd-v0", board_size=6, opponent="greedy")``,
``gymnasium.make("odd_env/Yinsh-v0", blitz=True, opponent="random")``).

Registration names every entry point as a string, and the public names below
(``odd_env.OddBatch``, ``odd_env.xodd_v0``...) are imported on first use, so
``import odd_env`` loads no game and compiles nothing.
"""

from __future__ import annotations

import importlib
from typing import Any

import gymnasium as _gymnasium
import pettingzoo as _pettingzoo

from . import games as _games  # noqa: F401  (registers the games with odd_env.game)

__version__ = "0.1.0"

_PUBLIC = {
    "xodd_v0": "odd_env.xodd_v0",
    "yodd_v0": "odd_env.yodd_v0",
    "yinsh_v0": "odd_env.yinsh_v0",
    "game": "odd_env.game",
    "symmetry": "odd_env.symmetry",
    "GameState": "odd_env.games.odd.state:GameState",
    "OddBatch": "odd_env.games.odd.batch:OddBatch",
    "GameRecord": "odd_env.games.odd.records:GameRecord",
    "YinshState": "odd_env.games.yinsh.state:YinshState",
    "YinshBatch": "odd_env.games.yinsh.batch:YinshBatch",
    "YinshRecord": "odd_env.games.yinsh.records:YinshRecord",
    "Geometry": "odd_env.common.geometry:Geometry",
    "hexhex": "odd_env.common.geometry:hexhex",
    "square": "odd_env.common.geometry:square",
    "OddGymEnv": "odd_env.gym_env:OddGymEnv",
    "YinshGymEnv": "odd_env.gym_env:YinshGymEnv",
    "symmetries": "odd_env.symmetry:symmetries",
    "map_batch": "odd_env.symmetry:map_batch",
}
"""Public names, imported on first use: ``name -> "module"`` or ``"module:attribute"``."""


def __getattr__(name: str) -> Any:
    target = _PUBLIC.get(name)
    if target is None:
        raise AttributeError(f"module 'odd_env' has no attribute {name!r}")
    module, _, attr = target.partition(":")
    value = importlib.import_module(module)
    if attr:
        value = getattr(value, attr)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_PUBLIC))


for _game in ("xodd", "yodd", "yinsh"):
    _pettingzoo.register("aec", f"odd_env/{_game}-v0", entry_point=f"odd_env.{_game}_v0:env")
    _pettingzoo.register("parallel", f"odd_env/{_game}-v0", entry_point=f"odd_env.{_game}_v0:parallel_env")
for _name, _entry in (("Xodd", "xodd_env"), ("Yodd", "yodd_env"), ("Yinsh", "yinsh_env")):
    if f"odd_env/{_name}-v0" not in _gymnasium.registry:
        _gymnasium.register(f"odd_env/{_name}-v0", entry_point=f"odd_env.gym_env:{_entry}")

__all__ = sorted(_PUBLIC)
