"""Board geometry: the square grid of Xodd and the hexhex board of Yodd.

A :class:`Geometry` is an immutable value built once per (kind, size) by
:func:`square` or :func:`hexhex` (both cached). It carries everything the rules
need to know about the board as index tables, so the rules core never asks
which game it is playing:

* cells live in an ``H x W`` array, row-major, ``cell = row * W + col``;
* ``onboard[cell]`` is False for the off-board corners of the Yodd array;
* ``neighbours[cell]`` lists the adjacent on-board cells, padded with -1.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache

import numpy as np

SQUARE_SIZES = range(2, 20)
"""Allowed Xodd board sizes n (an n x n grid)."""
HEX_SIZES = range(2, 13)
"""Allowed Yodd base sizes n (n cells per side)."""

_SQUARE_STEPS = ((-1, 0), (0, -1), (0, 1), (1, 0))
_HEX_STEPS = ((-1, 0), (-1, 1), (0, -1), (0, 1), (1, -1), (1, 0))


@dataclass(frozen=True, eq=False)
class Geometry:
    """Index tables of one board kind and size (read-only arrays)."""

    kind: str
    """``"square"`` (Xodd) or ``"hex"`` (Yodd)."""
    size: int
    """Side length n of the square, or base n of the hexhex board."""
    height: int
    width: int
    onboard: np.ndarray = field(repr=False)
    """bool[H*W]: whether each array cell is a playable cell."""
    neighbours: np.ndarray = field(repr=False)
    """int32[H*W, D]: on-board neighbours of each cell, padded with -1 (D = 4 or 6)."""

    @property
    def num_cells(self) -> int:
        """Number of array cells ``H * W`` (on-board or not)."""
        return self.height * self.width

    @property
    def num_onboard(self) -> int:
        """Number of playable cells (n*n, or 3n(n-1)+1)."""
        return int(self.onboard.sum())

    @property
    def num_actions(self) -> int:
        """Size of the relative action space, ``2 * H * W + 1``."""
        return 2 * self.num_cells + 1

    @property
    def game(self) -> str:
        """The game played on this board: ``"xodd"`` or ``"yodd"``."""
        return "xodd" if self.kind == "square" else "yodd"

    def cell(self, row: int, col: int) -> int:
        """Array index of (row, col)."""
        return row * self.width + col

    def row_col(self, cell: int) -> tuple[int, int]:
        """(row, col) of an array index."""
        return divmod(int(cell), self.width)

    def label(self, cell: int) -> str:
        """A readable name of any array cell: its RULES.md name (``c4``), or its
        index and (row, col) when it is off the board."""
        row, col = self.row_col(cell)
        if 0 <= cell < self.num_cells and self.onboard[cell]:
            return f"{chr(ord('a') + col)}{self.height - row}"
        return f"{cell} (row {row}, col {col}, off the board)"

    def __reduce__(self):
        # Geometries are interned: unpickling returns the cached instance.
        return (square if self.kind == "square" else hexhex, (self.size,))


def _check_size(size: object, allowed: range, what: str) -> int:
    if isinstance(size, bool) or not isinstance(size, (int, np.integer)):
        raise ValueError(
            f"{what} must be an integer from {allowed.start} to {allowed.stop - 1}, got {size!r}"
        )
    if int(size) not in allowed:
        raise ValueError(
            f"{what} must be from {allowed.start} to {allowed.stop - 1}, got {size}"
        )
    return int(size)


def _build(kind: str, size: int, onboard: np.ndarray, steps) -> Geometry:
    h, w = onboard.shape
    flat = onboard.reshape(-1).copy()
    nbr = np.full((h * w, len(steps)), -1, dtype=np.int32)
    for r in range(h):
        for c in range(w):
            if not onboard[r, c]:
                continue
            k = 0
            for dr, dc in steps:
                rr, cc = r + dr, c + dc
                if 0 <= rr < h and 0 <= cc < w and onboard[rr, cc]:
                    nbr[r * w + c, k] = rr * w + cc
                    k += 1
    flat.setflags(write=False)
    nbr.setflags(write=False)
    return Geometry(kind, size, h, w, flat, nbr)


def square(size: int = 9) -> Geometry:
    """The Xodd board: an ``size x size`` grid with orthogonal adjacency."""
    return _square(_check_size(size, SQUARE_SIZES, "Xodd board_size"))


def hexhex(size: int = 6) -> Geometry:
    """The Yodd board: a hexhex board of base ``size`` in axial coordinates.

    Cell (q, r) with ``|q|, |r|, |q + r| <= n - 1`` is stored at
    ``row = r + n - 1``, ``col = q + n - 1``.
    """
    return _hexhex(_check_size(size, HEX_SIZES, "Yodd board_size (base)"))


@lru_cache(maxsize=None)
def _square(n: int) -> Geometry:
    return _build("square", n, np.ones((n, n), dtype=bool), _SQUARE_STEPS)


@lru_cache(maxsize=None)
def _hexhex(n: int) -> Geometry:
    span = 2 * n - 1
    rows, cols = np.indices((span, span))
    onboard = np.abs((rows - (n - 1)) + (cols - (n - 1))) <= n - 1
    return _build("hex", n, onboard, _HEX_STEPS)


def geometry(game: str, size: int) -> Geometry:
    """The board of ``game`` ("xodd" or "yodd") at ``size``."""
    if game == "xodd":
        return square(size)
    if game == "yodd":
        return hexhex(size)
    raise ValueError(f"game must be 'xodd' or 'yodd', got {game!r}")
