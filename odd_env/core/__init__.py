"""The pure rules core: geometry, game states (Xodd/Yodd, YINSH), legality and observation planes.

Imports numpy and numba only; never gymnasium, pettingzoo or torch.
"""

from .geometry import HEX_SIZES, SQUARE_SIZES, Geometry, geometry, hexhex, square, yinsh_board
from .state import (
    BLACK,
    COLOUR_NAMES,
    NUM_PLANES,
    OBSERVATION_VERSION,
    PLANE_NAMES,
    STATE_PLANE_NAMES,
    WHITE,
    GameState,
)
from .yinsh import YinshState

__all__ = [
    "BLACK",
    "COLOUR_NAMES",
    "HEX_SIZES",
    "NUM_PLANES",
    "OBSERVATION_VERSION",
    "PLANE_NAMES",
    "SQUARE_SIZES",
    "STATE_PLANE_NAMES",
    "WHITE",
    "GameState",
    "Geometry",
    "YinshState",
    "geometry",
    "hexhex",
    "square",
    "yinsh_board",
]
