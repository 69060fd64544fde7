"""The names that ``odd_env.core`` held before the games got their folders (kept for old imports).

The rules now live with their games: :mod:`odd_env.games.odd` (Xodd and Yodd)
and :mod:`odd_env.games.yinsh`; the board geometry in
:mod:`odd_env.common.geometry`.
"""

from ..common.geometry import HEX_SIZES, SQUARE_SIZES, Geometry, geometry, hexhex, square, yinsh_board
from ..games.odd.state import (
    BLACK,
    COLOUR_NAMES,
    NUM_PLANES,
    OBSERVATION_VERSION,
    PLANE_NAMES,
    STATE_PLANE_NAMES,
    WHITE,
    GameState,
)
from ..games.yinsh.state import YinshState

__all__ = [
    "BLACK", "COLOUR_NAMES", "HEX_SIZES", "NUM_PLANES", "OBSERVATION_VERSION", "PLANE_NAMES", "SQUARE_SIZES",
    "STATE_PLANE_NAMES", "WHITE", "GameState", "Geometry", "YinshState", "geometry", "hexhex", "square",
    "yinsh_board",
]
