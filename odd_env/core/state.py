"""A game of Xodd or Yodd as a cheap-to-copy value.

:class:`GameState` wraps one flat ``int32`` vector (see
:mod:`odd_env.core.kernels`) and a :class:`~odd_env.core.geometry.Geometry`.
It knows the rules and nothing of players' names, rewards or spaces: those
belong to the environments built on top of it.

Observation planes (``int8[C, H, W]``, from the viewer's side, RULES.md 6):

=====  ==================================================================
plane  content
=====  ==================================================================
0      stones of the viewer's colour
1      stones of the opponent's colour
2      empty on-board cells
3      on-board cells (all ones in Xodd)
4      the stone already placed this turn (step 2), else zeros
5      constant: 1 in step 2 of a turn
6      constant: 1 when the viewer is Black
7      empty cells where a stone of the viewer's colour keeps parity (k odd)
8      empty cells where a stone of the opponent's colour keeps parity
9      legal cells for a stone of the viewer's colour (the action mask)
10     legal cells for a stone of the opponent's colour (the action mask)
11     constant: 1 when the previous turn was a pass (passing now ends the game)
=====  ==================================================================

Planes 7 to 11 are extra features (observation version 1): they spell out
the placement arithmetic and the look-ahead that a network would otherwise
have to learn, and the one fact of the history that the rules depend on.
Planes 9 and 10 are zero when the viewer is not to act. The planes hold all
the state the rules need: :meth:`GameState.from_observation` rebuilds it.
"""

from __future__ import annotations

import numpy as np

from . import kernels as K
from .geometry import Geometry

OBSERVATION_VERSION = 1
"""Bumped whenever the meaning of the observation planes changes."""
NUM_PLANES = K.NUM_PLANES
PLANE_NAMES = (
    "own stones",
    "opponent stones",
    "empty",
    "on board",
    "first stone of this turn",
    "step 2",
    "viewer is black",
    "own colour keeps parity",
    "opponent colour keeps parity",
    "own colour legal",
    "opponent colour legal",
    "previous turn was a pass",
)
BLACK, WHITE = 0, 1
"""Player indices (colour values on the board are index + 1)."""
COLOUR_NAMES = ("black", "white")


class GameState:
    """One position of Xodd or Yodd with the player to act and the step of the turn.

    Actions are relative to the player to act (RULES.md section 5): ``a < N``
    is a stone of their own colour on cell ``a``, ``N <= a < 2N`` a stone of
    the opponent's colour on cell ``a - N``, and ``2N`` is pass (step 1) or
    end turn (step 2), with ``N = H * W``.
    """

    __slots__ = ("geometry", "data", "_n", "_meta", "_mask", "_keep")

    def __init__(self, geometry: Geometry, data: np.ndarray | None = None):
        self.geometry = geometry
        n = geometry.num_cells
        if data is None:
            data = np.empty(K.state_size(n), dtype=np.int32)
            K.init_state(data, n, geometry.onboard)
        elif data.shape != (K.state_size(n),) or data.dtype != np.int32:
            raise ValueError(
                f"state data must be int32[{K.state_size(n)}] for this board, got {data.dtype}{list(data.shape)}"
            )
        self.data = data
        self._n = n
        self._meta = data[2 * n : 2 * n + K.META]
        self._mask: np.ndarray | None = None
        self._keep: np.ndarray | None = None

    @classmethod
    def from_observation(cls, geometry: Geometry, planes: np.ndarray) -> GameState:
        """Rebuild the state seen in ``planes`` (int[C, H, W]) by the player to act.

        Everything the rules depend on is recovered (stones, groups, player,
        step, first stone, a pending pass); the step and turn counters start at 0.
        """
        g = geometry
        n = g.num_cells
        planes = np.asarray(planes)
        if planes.ndim != 3 or planes.shape[0] < NUM_PLANES or planes.shape[1:] != (g.height, g.width):
            raise ValueError(
                f"planes must have shape ({NUM_PLANES}, {g.height}, {g.width}) for "
                f"{g.game} {g.size}, got {planes.shape}"
            )
        flat = planes.reshape(planes.shape[0], n)
        if not np.array_equal(flat[3].astype(bool), g.onboard):
            raise ValueError(f"plane 3 (on-board cells) does not match the {g.game} {g.size} board")
        viewer = BLACK if flat[6, 0] else WHITE
        state = cls(g)
        data, nbr = state.data, g.neighbours
        own, opp = viewer + 1, 2 - viewer
        for cell in np.flatnonzero(flat[0]):
            K.place(data, n, nbr, int(cell), own)
        for cell in np.flatnonzero(flat[1]):
            K.place(data, n, nbr, int(cell), opp)
        m = 2 * n
        data[m + K.M_TO_MOVE] = viewer
        data[m + K.M_STEP] = int(flat[5, 0])
        first = np.flatnonzero(flat[4])
        data[m + K.M_FIRST_STONE] = int(first[0]) if data[m + K.M_STEP] and len(first) else -1
        data[m + K.M_PASSES] = int(flat[11, 0])
        return state

    # ------------------------------------------------------------ copying
    def copy(self) -> GameState:
        """An independent copy (one array copy; the geometry is shared)."""
        other = GameState.__new__(GameState)
        other.geometry = self.geometry
        other.data = self.data.copy()
        other._n = self._n
        other._meta = other.data[2 * self._n : 2 * self._n + K.META]
        other._mask = self._mask
        other._keep = self._keep
        return other

    __copy__ = copy

    def __deepcopy__(self, memo) -> GameState:
        return self.copy()

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, GameState):
            return NotImplemented
        return (
            self.geometry is other.geometry
            and np.array_equal(self.board, other.board)
            and np.array_equal(self._meta, other._meta)
        )

    __hash__ = None  # mutable

    # ------------------------------------------------------------ reading
    @property
    def game(self):
        """The :class:`odd_env.game.Game` this is a position of (Xodd or Yodd at this size)."""
        from ..game import make  # the interface sits above the rules core

        return make(self.geometry.game, self.geometry.size)

    @property
    def game_name(self) -> str:
        """``"xodd"`` or ``"yodd"``."""
        return self.geometry.game

    def key(self) -> bytes:
        """What the rules depend on: the board and the turn bookkeeping, not the counters."""
        meta = (self.to_move, self.turn_step, self.first_stone, self.consecutive_passes, self.is_terminal)
        return self.board.tobytes() + np.array(meta, dtype=np.int32).tobytes()

    def _m(self, i: int) -> int:
        return int(self._meta[i])

    @property
    def board(self) -> np.ndarray:
        """int32[H*W] view: 0 empty, 1 black, 2 white, 3 off-board (read it, don't write)."""
        return self.data[: self._n]

    @property
    def to_move(self) -> int:
        """Player to act: 0 black, 1 white."""
        return self._m(K.M_TO_MOVE)

    @property
    def turn_step(self) -> int:
        """Step of the current turn: 1 or 2."""
        return self._m(K.M_STEP) + 1

    @property
    def first_turn(self) -> bool:
        """True on Black's first turn (one stone, no pass)."""
        return self._m(K.M_STONES) == 0

    @property
    def first_stone(self) -> int:
        """Cell of the stone placed in step 1 of this turn, or -1."""
        return self._m(K.M_FIRST_STONE)

    @property
    def group_counts(self) -> tuple[int, int]:
        """(black groups, white groups)."""
        return self._m(K.M_GROUPS_BLACK), self._m(K.M_GROUPS_WHITE)

    @property
    def total_groups(self) -> int:
        """Black groups + white groups."""
        b, w = self.group_counts
        return b + w

    @property
    def consecutive_passes(self) -> int:
        """Passes in a row just played (2 ends the game)."""
        return self._m(K.M_PASSES)

    @property
    def num_empty(self) -> int:
        """Empty on-board cells."""
        return self._m(K.M_EMPTY)

    @property
    def ply(self) -> int:
        """Environment steps played so far."""
        return self._m(K.M_PLY)

    @property
    def turn(self) -> int:
        """Turns completed so far."""
        return self._m(K.M_TURN)

    @property
    def is_terminal(self) -> bool:
        """True once both players have passed in succession."""
        return bool(self._m(K.M_DONE))

    @property
    def winner(self) -> int | None:
        """0 black, 1 white, None while the game runs."""
        w = self._m(K.M_WINNER)
        return None if w < 0 else w

    def returns(self) -> tuple[float, float]:
        """(black, white) rewards: +1/-1 at the end, zeros before."""
        w = self.winner
        if w is None:
            return 0.0, 0.0
        return (1.0, -1.0) if w == BLACK else (-1.0, 1.0)

    def group_of(self, cell: int) -> int:
        """A label of the group holding the stone on ``cell`` (its root), or -1 if empty."""
        if not 0 <= cell < self.geometry.num_cells or self.board[cell] not in (1, 2):
            return -1
        return int(K.find(self.data, self.geometry.num_cells, cell))

    # ------------------------------------------------------------ rules
    def _legal(self) -> tuple[np.ndarray, np.ndarray]:
        if self._mask is None:
            n = self._n
            mask = np.empty(2 * n + 1, dtype=np.int8)
            keep = np.empty((2, n), dtype=np.int8)
            K.legal_mask_into(self.data, n, self.geometry.neighbours, mask, keep)
            mask.setflags(write=False)
            keep.setflags(write=False)
            self._mask, self._keep = mask, keep
        return self._mask, self._keep

    def legal_action_mask(self) -> np.ndarray:
        """int8[2N+1], 1 where the action is legal for the player to act (read-only, cached)."""
        return self._legal()[0]

    def legal_actions(self) -> np.ndarray:
        """Indices of the legal actions, ascending."""
        return np.flatnonzero(self.legal_action_mask())

    def parity_keeping(self) -> np.ndarray:
        """int8[2, N]: 1 where a stone of colour (0 black, 1 white) keeps parity."""
        return self._legal()[1]

    def placement_classes(self) -> np.ndarray:
        """int8[2, N] per colour (0 black, 1 white) and cell: -1 not empty, 0 illegal now,
        1 legal and parity-flipping, 2 legal and parity-keeping (for the player to act)."""
        n = self._n
        mask = self.legal_action_mask()
        own = self.to_move
        legal = np.empty((2, n), dtype=np.int8)
        legal[own], legal[1 - own] = mask[:n], mask[n : 2 * n]
        classes = legal * (1 + self.parity_keeping())
        classes[:, self.board != 0] = -1
        return classes.astype(np.int8)

    def adjacent_groups(self, cell: int, colour: int) -> int:
        """k: distinct groups of ``colour`` (0 black, 1 white) touching ``cell``."""
        g = self.geometry
        roots = np.empty(8, dtype=np.int32)
        return int(K.adjacent_groups(self.data, g.num_cells, g.neighbours, cell, colour + 1, roots))

    def why_illegal(self, action: object) -> str | None:
        """None if ``action`` is legal here, else a sentence saying why not."""
        g = self.geometry
        n = g.num_cells
        if isinstance(action, (bool, np.bool_)) or not isinstance(action, (int, np.integer)):
            return f"action must be an integer in [0, {2 * n}], got {action!r} of type {type(action).__name__}"
        a = int(action)
        if not 0 <= a <= 2 * n:
            return f"action {a} is out of range: actions are 0..{2 * n} (2*H*W+1 = {2 * n + 1} actions)"
        if self.is_terminal:
            return "the game is over"
        if self.legal_action_mask()[a]:
            return None
        if a == 2 * n:
            if self.first_turn:
                return "Black may not pass on the first turn"
            return "end turn would leave an even number of groups: the first stone flipped parity, so a parity-flipping second stone is required"
        x = a % n
        if not g.onboard[x]:
            return f"cell {g.label(x)}"  # the label says "off the board"
        if self.board[x] != 0:
            return f"cell {g.label(x)} ({x}) is occupied"
        p = self.to_move
        colour = p if a < n else 1 - p
        k = self.adjacent_groups(x, colour)
        who = COLOUR_NAMES[colour]
        if self.turn_step == 2:
            return (f"a {who} stone on {g.label(x)} ({x}) touches {k} {who} group(s) and would leave "
                    "an even number of groups at the end of the turn")
        return (f"a {who} stone on {g.label(x)} ({x}) flips parity (k={k}) and no parity-flipping "
                "second stone would remain to restore an odd total")

    def apply(self, action: int) -> GameState:
        """Play ``action`` in place after checking it; raise ValueError (state unchanged) if illegal."""
        if type(action) is int or isinstance(action, np.integer):
            a = int(action)
            mask = self._mask if self._mask is not None else self._legal()[0]
            if 0 <= a <= 2 * self._n and mask[a]:
                K.apply_action(self.data, self._n, self.geometry.neighbours, a)
                self._mask = None
                self._keep = None
                return self
        raise ValueError(f"illegal action {action!r}: {self.why_illegal(action)}")

    def child(self, action: int) -> GameState:
        """A copy with ``action`` played."""
        return self.copy().apply(action)

    def observation(self, viewer: int | None = None, out: np.ndarray | None = None) -> np.ndarray:
        """int8[C, H, W] planes from ``viewer``'s side (default: the player to act)."""
        g = self.geometry
        n = self._n
        if viewer is None:
            viewer = self.to_move
        if out is None:
            out = np.empty((NUM_PLANES, g.height, g.width), dtype=np.int8)
        flat = out.reshape(NUM_PLANES, n)
        if self._mask is None:
            mask = np.empty(2 * n + 1, dtype=np.int8)
            keep = np.empty((2, n), dtype=np.int8)
            K.legal_mask_and_observe(self.data, n, g.neighbours, g.onboard, int(viewer), mask, keep, flat)
            mask.setflags(write=False)
            keep.setflags(write=False)
            self._mask, self._keep = mask, keep
        else:
            K.observe_into(self.data, n, g.onboard, int(viewer), self._keep, self._mask, flat)
        return out

    def __repr__(self) -> str:
        b, w = self.group_counts
        status = (f"winner={COLOUR_NAMES[self.winner]}" if self.is_terminal
                  else f"to_move={COLOUR_NAMES[self.to_move]} step={self.turn_step}")
        return (f"GameState({self.geometry.game} {self.geometry.size}, {status}, "
                f"groups black={b} white={w})")

    def _repr_svg_(self) -> str:
        """The position as SVG, so that Jupyter draws states (see :func:`odd_env.render.to_svg`)."""
        from ..render import to_svg  # lazily: the rules core imports no views

        return to_svg(self)
