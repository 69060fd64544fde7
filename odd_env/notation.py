"""Cell names of RULES.md section 8: a column letter and a row number.

Column ``col`` is the letter ``'a' + col``; row ``row`` of the array is numbered
``H - row`` (row 0 is drawn at the top, so numbers count from 1 at the
bottom). The same scheme names every on-board Yodd cell uniquely.
"""

from __future__ import annotations

import re

from .core.geometry import Geometry

_CELL = re.compile(r"([a-z])([0-9]{1,2})")


def cell_name(geometry: Geometry, cell: int) -> str:
    """The name of array cell ``cell``, e.g. ``"c4"``."""
    if not 0 <= cell < geometry.num_cells or not geometry.onboard[cell]:
        raise ValueError(f"cell {cell} is not on the {geometry.game} {geometry.size} board")
    row, col = geometry.row_col(cell)
    return f"{chr(ord('a') + col)}{geometry.height - row}"


def parse_cell(geometry: Geometry, name: str) -> int:
    """The array index of a cell name such as ``"c4"``; ValueError if malformed or off the board."""
    if not isinstance(name, str):
        raise ValueError(f"a cell name must be a string like 'c4', got {name!r}")
    m = _CELL.fullmatch(name.strip().lower())
    if m is None:
        raise ValueError(f"malformed cell {name!r}: expected a column letter and a row number, like 'c4'")
    col = ord(m.group(1)) - ord("a")
    row = geometry.height - int(m.group(2))
    if not (0 <= col < geometry.width and 0 <= row < geometry.height) or not geometry.onboard[
        row * geometry.width + col
    ]:
        raise ValueError(f"cell {name!r} is not on the {geometry.game} {geometry.size} board")
    return row * geometry.width + col


def column_letters(geometry: Geometry) -> str:
    """The column letters of the board, in order."""
    return "".join(chr(ord("a") + c) for c in range(geometry.width))
