"""The symmetries of each game's board, as index maps on planes, masks and actions.

Every game of :mod:`odd_env.game` is played on a board whose rules see only
adjacency and lines, so a rotation or reflection of a position is a position
of the same game with the same value, whose legal actions are the images of
the original ones. :func:`symmetries` lists the board's symmetry group:

=============  =====  ==========================================================
game           maps   the group
=============  =====  ==========================================================
Xodd (n x n)   8      rotations by 90 degrees and reflections of the square
Yodd, YINSH    12     rotations by 60 degrees and reflections of the hexagon,
                      in the axial coordinates (q, r) of the H x W array
                      (cell (q, r) at row ``r + n - 1``, column ``q + n - 1``)
=============  =====  ==========================================================

The 85 YINSH points are the base-6 hexagon without its 6 corners, which the
12 maps permute among themselves, so the YINSH board has the same group.

Each :class:`Symmetry` is three precomputed index arrays, so mapping is one
gather (a batch of a few thousand observations takes a few milliseconds):

* cells: on-board cells move, off-board array cells stay where they are;
* observation planes: every plane is mapped cell-wise, except the planes
  that encode a number rather than places (YINSH plane 18, the markers left
  in the pool as ones on the first valid points in array order), which stay
  as they are;
* actions: each point-action block is mapped cell-wise and pass / end turn
  stays. A YINSH row action ``N + d*N + s`` (five points from ``s`` along
  direction ``d``) maps to the row action naming the same five image points:
  direction ``d'`` is the image of ``d`` when that is one of the three row
  directions, and when it is the opposite of one, the row is named from its
  other end. Row actions that fit no row on the board stay where they are.

Usage::

    from odd_env.symmetry import symmetries, map_batch
    group = symmetries(game)                    # group[0] is the identity
    s = group[3]
    planes2, mask2, action2 = s.map_planes(planes), s.map_mask(mask), s.map_actions(action)
    obs, mask, actions = map_batch(group, which, obs, mask, actions)  # one map per sample
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from .game import Game, make

# Integer 2x2 matrices acting on a cell's coordinate vector (see _coordinates).
_SQUARE_ROTATE = np.array([[0, -1], [1, 0]])  # (x, y) -> (-y, x): 90 degrees
_SQUARE_REFLECT = np.array([[0, 1], [1, 0]])  # transpose
_HEX_ROTATE = np.array([[0, -1], [1, 1]])  # axial (q, r) -> (-r, q + r): 60 degrees
_HEX_REFLECT = np.array([[0, 1], [1, 0]])  # (q, r) -> (r, q): the mirror through the axis q = r

_NUMBER_PLANES = {"yinsh": (18,)}
"""Observation planes that hold a count, not places: left as they are (YINSH: the pool plane)."""


class Symmetry:
    """One symmetry of a game's board: index maps of cells, observation planes and actions.

    Get them from :func:`symmetries`; combine them with :meth:`then` and
    :meth:`inverse`. Two symmetries are equal when all their maps are.
    """

    __slots__ = ("game", "name", "cells", "actions", "_cell_source", "_plane_source", "_action_source",
                 "_onboard", "_onboard_slice")

    def __init__(self, game: Game, name: str, cells: np.ndarray, plane_source: np.ndarray, actions: np.ndarray):
        """Wrap precomputed maps (use :func:`symmetries`: this checks nothing)."""
        self.game = game
        self.name = name
        self.cells = cells
        """int64[H*W]: the image of each array cell (off-board cells are their own image)."""
        self.actions = actions
        """int64[A]: the image of each action."""
        self._cell_source = np.argsort(cells)
        self._plane_source = plane_source  # mapped planes, flat: out[..., i] = planes[..., source[i]]
        self._action_source = np.argsort(actions)
        for a in (self.cells, self.actions, self._cell_source, self._plane_source, self._action_source):
            a.setflags(write=False)
        n = game.height * game.width
        self._onboard = np.asarray(game.onboard, dtype=bool).reshape(n)
        self._onboard_slice = slice(game.onboard_plane * n, (game.onboard_plane + 1) * n)

    # ------------------------------------------------------------ mapping
    def map_planes(self, planes: np.ndarray) -> np.ndarray:
        """The image of observation planes ``(C, H, W)`` or a batch ``(..., C, H, W)`` (a new array)."""
        planes = np.asarray(planes)
        shape = self.game.observation_shape
        if planes.shape[-3:] != shape:
            raise ValueError(f"planes of {self.game.label} have shape (..., {', '.join(map(str, shape))}), "
                             f"got {planes.shape}")
        flat = planes.reshape(*planes.shape[:-3], -1)
        # Xodd 7 and Yodd 4 planes have one shape: the on-board plane tells the boards apart.
        on = flat[..., self._onboard_slice]
        if not (on == self._onboard).all():
            raise ValueError(f"these planes are not of {self.game.label}: their on-board plane differs (planes of "
                             f"another game or board of the same shape, {shape}?)")
        return np.take(flat, self._plane_source, axis=-1).reshape(planes.shape)

    def map_mask(self, mask: np.ndarray) -> np.ndarray:
        """The image of an action mask, or of any vector over actions (priors, visit counts),
        ``(A,)`` or a batch ``(..., A)``: ``out[image(a)] = mask[a]`` (a new array)."""
        mask = np.asarray(mask)
        if mask.ndim == 0 or mask.shape[-1] != len(self.actions):
            raise ValueError(f"a {self.game.label} mask has {len(self.actions)} entries (last axis), "
                             f"got shape {mask.shape}")
        return mask[..., self._action_source]

    def map_actions(self, actions: int | np.ndarray) -> int | np.ndarray:
        """The image of an action (an int back) or of an array of actions."""
        a = np.asarray(actions)
        if a.size == 0 and a.ndim == 1:  # an empty list reads as float
            a = a.astype(np.int64)
        if a.dtype.kind not in "iu" or (a.size and (a.min() < 0 or a.max() >= len(self.actions))):
            raise ValueError(f"{self.game.label} actions are integers in [0, {len(self.actions)}), got {actions!r}")
        out = self.actions[a]
        return int(out) if a.ndim == 0 else out

    def map_cells(self, cells: int | np.ndarray) -> int | np.ndarray:
        """The image of an array cell (an int back) or of an array of cells."""
        c = np.asarray(cells)
        if c.size == 0 and c.ndim == 1:  # an empty list reads as float
            c = c.astype(np.int64)
        if c.dtype.kind not in "iu" or (c.size and (c.min() < 0 or c.max() >= len(self.cells))):
            raise ValueError(f"{self.game.label} cells are integers in [0, {len(self.cells)}), got {cells!r}")
        out = self.cells[c]
        return int(out) if c.ndim == 0 else out

    # ------------------------------------------------------------ the group
    def then(self, other: Symmetry) -> Symmetry:
        """The map that applies this symmetry, then ``other``."""
        if not isinstance(other, Symmetry):
            raise ValueError(f"then takes a Symmetry (from symmetries(game)), got {type(other).__name__}")
        if other.game is not self.game:
            raise ValueError(f"cannot compose a symmetry of {self.game.label} with one of {other.game.label}")
        return Symmetry(self.game, f"{self.name}, then {other.name}", other.cells[self.cells],
                        self._plane_source[other._plane_source], other.actions[self.actions])

    def inverse(self) -> Symmetry:
        """The map that undoes this one."""
        return Symmetry(self.game, f"inverse of {self.name}", self._cell_source.copy(),
                        np.argsort(self._plane_source), self._action_source.copy())

    @property
    def is_identity(self) -> bool:
        """True when every map is the identity."""
        return bool((self.cells == np.arange(len(self.cells))).all()
                    and (self.actions == np.arange(len(self.actions))).all()
                    and (self._plane_source == np.arange(len(self._plane_source))).all())

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Symmetry):
            return NotImplemented
        return (self.game is other.game and np.array_equal(self.cells, other.cells)
                and np.array_equal(self.actions, other.actions)
                and np.array_equal(self._plane_source, other._plane_source))

    def __hash__(self) -> int:
        return hash((self.game.label, self.cells.tobytes()))

    def __repr__(self) -> str:
        return f"Symmetry({self.game.label}: {self.name})"

    def __reduce__(self):
        # The maps are derived from the game: pickle the game, the name and the group element equal to
        # this map (a composed or inverted one is an element of the group under another name).
        index = next(i for i, s in enumerate(symmetries(self.game)) if s == self)
        return (_lookup, (self.game, self.name, index))


def _lookup(game: Game, name: str, index: int | None = None) -> Symmetry:
    group = symmetries(game)
    if index is not None and 0 <= index < len(group):
        s = group[index]
        return s if s.name == name else Symmetry(game, name, s.cells, s._plane_source, s.actions)
    for s in group:  # pickles of earlier versions: the name alone
        if s.name == name:
            return s
    raise ValueError(f"{game.label} has no symmetry named {name!r}")


# ================================================================ building
def _coordinates(game: Game) -> tuple[np.ndarray, np.ndarray, np.ndarray, int]:
    """(vectors int[H*W, 2] of every cell, rotation, reflection, rotation angle in degrees).

    Square boards: (x, y) = (2 col - (n-1), 2 row - (n-1)), doubled so that
    the centre is the origin in integers. Hexagonal arrays: axial (q, r) =
    (col - (n-1), row - (n-1)) with n = (H + 1) / 2.
    """
    rows, cols = np.divmod(np.arange(game.height * game.width), game.width)
    if game.hexagonal:
        if game.height != game.width or game.height % 2 == 0:
            raise ValueError(f"{game.label}: a hexagonal array must be square with an odd side, "
                             f"got {game.height} x {game.width}")
        c = (game.height - 1) // 2
        return np.stack([cols - c, rows - c], axis=1), _HEX_ROTATE, _HEX_REFLECT, 60
    if game.height != game.width:
        raise ValueError(f"{game.label}: symmetries of a square board need H == W, got {game.height} x {game.width}")
    n = game.height
    return np.stack([2 * cols - (n - 1), 2 * rows - (n - 1)], axis=1), _SQUARE_ROTATE, _SQUARE_REFLECT, 90


def _cell_map(game: Game, vectors: np.ndarray, matrix: np.ndarray) -> np.ndarray:
    """The image of every cell under ``matrix`` (off-board cells fixed); ValueError if an
    on-board cell leaves the board (the map is then no symmetry of this board)."""
    lookup = {tuple(v): i for i, v in enumerate(vectors.tolist())}
    onboard = np.asarray(game.onboard, dtype=bool)
    cells = np.arange(len(vectors))
    for x in np.flatnonzero(onboard):
        y = lookup.get(tuple((matrix @ vectors[x]).tolist()))
        if y is None or not onboard[y]:
            raise ValueError(f"{game.label}: the map {matrix.tolist()} sends on-board cell {x} off the board")
        cells[x] = y
    return cells


def _row_blocks(game: Game, cells: np.ndarray) -> np.ndarray:
    """YINSH: the image of every row action (indices into actions N .. 4N-1)."""
    from .games.yinsh.state import NUM_POINTS, tables
    from .games.yinsh.kernels import ROW_LENGTH

    t = tables()
    n = NUM_POINTS
    rows: dict[tuple[int, ...], int] = {}
    members: dict[int, np.ndarray] = {}
    for d in range(3):
        for s in np.flatnonzero(t.row_ends[d] >= 0):
            points = np.concatenate([[s], t.rays[s, d, : ROW_LENGTH - 1]])
            a = n + d * n + int(s)
            rows[tuple(sorted(points.tolist()))] = a
            members[a] = points
    out = np.arange(n, 4 * n)  # row actions that fit no row stay where they are
    for a, points in members.items():
        out[a - n] = rows[tuple(sorted(cells[points].tolist()))]
    return out


def _build(game: Game, name: str, matrix: np.ndarray, vectors: np.ndarray) -> Symmetry:
    cells = _cell_map(game, vectors, matrix)
    hw = game.height * game.width
    source = np.argsort(cells)
    plane_source = np.concatenate([
        (p * hw + (np.arange(hw) if p in _NUMBER_PLANES.get(game.name, ()) else source))
        for p in range(game.num_planes)
    ])
    blocks = [k * hw + cells for k in range(game.point_planes)]
    if game.name == "yinsh":
        blocks[1:] = [_row_blocks(game, cells)]  # blocks 1-3: rows of five, not points
    actions = np.concatenate(blocks + [[game.num_actions - 1]]).astype(np.int64)
    return Symmetry(game, name, cells.astype(np.int64), plane_source.astype(np.int64), actions)


@lru_cache(maxsize=None)
def _group(game: Game) -> tuple[Symmetry, ...]:
    if game.name not in ("xodd", "yodd", "yinsh"):  # a game whose symmetries are not known: the identity alone
        hw, planes = game.height * game.width, game.num_planes
        return (Symmetry(game, "identity", np.arange(hw, dtype=np.int64), np.arange(planes * hw, dtype=np.int64),
                         np.arange(game.num_actions, dtype=np.int64)),)
    vectors, rotate, reflect, angle = _coordinates(game)
    out = []
    for mirrored in (False, True):
        for k in range(360 // angle):
            matrix = np.linalg.matrix_power(rotate, k) @ (reflect if mirrored else np.eye(2, dtype=int))
            turn = f"rotate {k * angle}" if k else ""
            name = ", ".join(filter(None, ["reflect" if mirrored else "", turn])) or "identity"
            out.append(_build(game, name, matrix, vectors))
    return tuple(out)


def symmetries(game: Game | str) -> list[Symmetry]:
    """The symmetry group of ``game``'s board (a :class:`~odd_env.game.Game` or a game name
    at its default size): 8 maps on the square, 12 on the hexagon; the identity first."""
    if not isinstance(game, (Game, str)):
        raise ValueError(f"symmetries takes a Game (odd_env.game.make('xodd', 9)) or a game name, "
                         f"got {type(game).__name__}: {game!r}")
    return list(_group(make(game) if isinstance(game, str) else game))


def map_batch(
    group: list[Symmetry],
    which: np.ndarray,
    obs: np.ndarray | None = None,
    mask: np.ndarray | None = None,
    actions: np.ndarray | None = None,
) -> tuple[np.ndarray | None, np.ndarray | None, np.ndarray | None]:
    """Map sample ``i`` of a batch by ``group[which[i]]``: observations ``(B, C, H, W)``,
    masks ``(B, A)`` and actions ``(B,)`` (each optional; None stays None). New arrays."""
    if not group or not all(isinstance(s, Symmetry) for s in group) or len({s.game for s in group}) > 1:
        raise ValueError("group must be symmetries of one game (symmetries(game), or some of them)")
    obs, mask, actions = (None if x is None else np.asarray(x) for x in (obs, mask, actions))
    which = np.asarray(which)
    if which.ndim != 1 or which.dtype.kind not in "iu" or (which.size and not 0 <= which.min() <= which.max() < len(group)):
        raise ValueError(f"which must be a 1-d array of symmetry indices in [0, {len(group)}), got {which!r}")
    given = [x for x in (obs, mask, actions) if x is not None]
    if any(x.ndim == 0 for x in given):
        raise ValueError("obs, mask and actions are batches (one entry per index of which), got a scalar")
    if any(len(x) != len(which) for x in given):
        raise ValueError(f"obs, mask and actions must have one entry per index of which ({len(which)}), got "
                         f"{[len(x) for x in given]}")
    outs = [None if x is None else np.empty_like(x) for x in (obs, mask, actions)]
    for k in np.unique(which):
        s = group[int(k)]
        sel = np.flatnonzero(which == k)
        if obs is not None:
            outs[0][sel] = s.map_planes(obs[sel])
        if mask is not None:
            outs[1][sel] = s.map_mask(mask[sel])
        if actions is not None:
            outs[2][sel] = s.map_actions(actions[sel])
    return outs[0], outs[1], outs[2]


__all__ = ["Symmetry", "map_batch", "symmetries"]
