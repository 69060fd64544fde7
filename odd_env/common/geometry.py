"""Board geometry: the square grid of Xodd, the hexhex board of Yodd, the YINSH board.

A :class:`Geometry` is an immutable value built once per (kind, size) by
:func:`square`, :func:`hexhex` or :func:`yinsh` (all cached). It carries
everything the rules need to know about the board as index tables, so the
rules core never asks which game it is playing:

* cells live in an ``H x W`` array, row-major, ``cell = row * W + col``;
* ``onboard[cell]`` is False for the off-board corners of the hexagonal arrays;
* ``neighbours[cell]`` lists the adjacent on-board cells, padded with -1;
* ``rays[cell, k]`` lists the on-board cells met going from ``cell`` in
  direction ``directions[k]`` until the edge, padded with -1 (YINSH ring moves
  and rows of five run along them).

The YINSH board (docs/rules/yinsh.md section 1) is Yodd's base-6 hexhex array with its 6
corner cells removed: 85 points with the same six neighbours.
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
# The same six steps ordered for YINSH: the first three are the row directions
# d = 0, 1, 2 of docs/rules/yinsh.md section 4 (along a column, along a row number,
# diagonally; numbers and letters increasing), step k + 3 is the opposite of k.
_YINSH_STEPS = ((-1, 0), (0, 1), (-1, 1), (1, 0), (0, -1), (1, -1))
YINSH_BASE = 6
"""The YINSH board is the hexhex board of this base without its 6 corners."""


@dataclass(frozen=True, eq=False)
class Geometry:
    """Index tables of one board kind and size (read-only arrays)."""

    kind: str
    """``"square"`` (Xodd), ``"hex"`` (Yodd) or ``"yinsh"``."""
    size: int
    """Side length n of the square, or base n of the hexhex board (6 for YINSH)."""
    height: int
    width: int
    onboard: np.ndarray = field(repr=False)
    """bool[H*W]: whether each array cell is a playable cell."""
    neighbours: np.ndarray = field(repr=False)
    """int32[H*W, D]: on-board neighbours of each cell, padded with -1 (D = 4 or 6)."""
    directions: tuple[tuple[int, int], ...]
    """The D (row, col) steps of the board's lines, the order of the second axis of ``rays``."""
    rays: np.ndarray = field(repr=False)
    """int32[H*W, D, L]: from each on-board cell, the on-board cells along each
    direction in order until the edge, padded with -1 (L = max(H, W) - 1)."""

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
        """The game played on this board: ``"xodd"``, ``"yodd"`` or ``"yinsh"``."""
        return _GAMES[self.kind]

    def cell(self, row: int, col: int) -> int:
        """Array index of (row, col)."""
        return row * self.width + col

    def row_col(self, cell: int) -> tuple[int, int]:
        """(row, col) of an array index."""
        return divmod(int(cell), self.width)

    def label(self, cell: int) -> str:
        """A readable name of any array cell: its docs/rules/xodd_yodd.md name (``c4``; YINSH
        points in capitals, ``E5``), or its index and (row, col) when it is off
        the board."""
        row, col = self.row_col(cell)
        if 0 <= cell < self.num_cells and self.onboard[cell]:
            return f"{chr(ord('A' if self.kind == 'yinsh' else 'a') + col)}{self.height - row}"
        return f"{cell} (row {row}, col {col}, off the board)"

    def __reduce__(self):
        # Geometries are interned: unpickling returns the cached instance.
        if self.kind == "yinsh":
            return (yinsh_board, ())
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
    rays = np.full((h * w, len(steps), max(h, w) - 1), -1, dtype=np.int32)

    def inside(rr: int, cc: int) -> bool:
        return 0 <= rr < h and 0 <= cc < w and bool(onboard[rr, cc])

    for r in range(h):
        for c in range(w):
            if not onboard[r, c]:
                continue
            k = 0
            for d, (dr, dc) in enumerate(steps):
                rr, cc = r + dr, c + dc
                if inside(rr, cc):
                    nbr[r * w + c, k] = rr * w + cc
                    k += 1
                i = 0
                while inside(rr, cc):
                    rays[r * w + c, d, i] = rr * w + cc
                    rr, cc, i = rr + dr, cc + dc, i + 1
    flat.setflags(write=False)
    nbr.setflags(write=False)
    rays.setflags(write=False)
    return Geometry(kind, size, h, w, flat, nbr, tuple(steps), rays)


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


def _hexhex_onboard(n: int) -> np.ndarray:
    span = 2 * n - 1
    rows, cols = np.indices((span, span))
    return np.abs((rows - (n - 1)) + (cols - (n - 1))) <= n - 1


@lru_cache(maxsize=None)
def _hexhex(n: int) -> Geometry:
    return _build("hex", n, _hexhex_onboard(n), _HEX_STEPS)


@lru_cache(maxsize=None)
def yinsh_board() -> Geometry:
    """The YINSH board: Yodd's base-6 hexhex array without its 6 corners (85 points).

    Point ``(i, j)`` of the 11 x 11 array is column ``j`` (A = 0 .. K = 10)
    and row number ``11 - i`` (docs/rules/yinsh.md section 4); ``rays[:, d]`` for
    ``d < 3`` run along the row directions d of docs/rules/yinsh.md section 4.
    """
    n = YINSH_BASE
    onboard = _hexhex_onboard(n)
    last = 2 * n - 2
    for r, c in ((0, n - 1), (0, last), (n - 1, 0), (n - 1, last), (last, 0), (last, n - 1)):
        onboard[r, c] = False
    return _build("yinsh", n, onboard, _YINSH_STEPS)


_GAMES = {"square": "xodd", "hex": "yodd", "yinsh": "yinsh"}
"""The game played on each kind of board."""


def geometry(game: str, size: int) -> Geometry:
    """The board of ``game`` ("xodd" or "yodd") at ``size``.

    Only the games whose rules take a board size: YINSH has one board,
    :func:`yinsh_board`, and rules of its own (so Xodd/Yodd code asking for
    a board by name never gets it).
    """
    if game == "xodd":
        return square(size)
    if game == "yodd":
        return hexhex(size)
    if game == "yinsh":
        raise ValueError("these are the Xodd/Yodd boards and rules; YINSH has its own: odd_env.YinshBatch for "
                         "batched play, odd_env.game.make('yinsh') or odd_env.games.yinsh.state.YinshState for positions, "
                         "yinsh_board() for its board")
    raise ValueError(f"game must be 'xodd' or 'yodd', got {game!r}")
