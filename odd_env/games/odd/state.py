"""A game of Xodd or Yodd as a cheap-to-copy value.

:class:`GameState` wraps one flat ``int32`` vector (see
:mod:`odd_env.games.odd.kernels`) and a :class:`~odd_env.common.geometry.Geometry`.
It knows the rules and nothing of players' names, rewards or spaces: those
belong to the environments built on top of it.

Observation planes (``int8[C, H, W]``, from the viewer's side, docs/rules/xodd_yodd.md 6):

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

State planes (``int8[C, H, W]``, :meth:`GameState.state_planes`, PettingZoo's
``state()``): the same twelve planes seen from a fixed side, Black's,
whoever is to act, so that a centralised critic or a replay buffer gets one
view of a position. When Black is to act they equal Black's observation.

=====  ==================================================================
plane  content
=====  ==================================================================
0      black stones
1      white stones
2      empty on-board cells
3      on-board cells (all ones in Xodd)
4      the stone already placed this turn (step 2), else zeros
5      constant: 1 in step 2 of a turn
6      constant: 1 when Black is to act
7      empty cells where a black stone keeps parity
8      empty cells where a white stone keeps parity
9      legal cells for a black stone, for the player to act
10     legal cells for a white stone, for the player to act
11     constant: 1 when the previous turn was a pass
=====  ==================================================================
"""

from __future__ import annotations

import numpy as np

from . import kernels as K
from ...common.geometry import Geometry
from ...common.position import PositionBase
from .validation import check_cell, check_colour, check_geometry, check_state, describe_cell

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
STATE_PLANE_NAMES = (
    "black stones",
    "white stones",
    "empty",
    "on board",
    "first stone of this turn",
    "step 2",
    "black to act",
    "black keeps parity",
    "white keeps parity",
    "black legal",
    "white legal",
    "previous turn was a pass",
)
NUM_STATE_PLANES = len(STATE_PLANE_NAMES)
BLACK, WHITE = 0, 1
"""Player indices (colour values on the board are index + 1)."""
COLOUR_NAMES = ("black", "white")

_ZERO_OFF_BOARD = (0, 1, 2, 4, 7, 8, 9, 10)  # planes that are 0 on off-board cells
_CONSTANT = (5, 6, 11)


def _check_planes(g: Geometry, flat: np.ndarray) -> None:
    """ValueError naming the plane and cell if the stone planes of ``flat`` (``[NUM_PLANES, H*W]``,
    past :meth:`PositionBase._read_planes`) contradict each other; the checks that need no rules."""
    on = flat.astype(bool)
    both = on[0] & on[1]
    if both.any():
        raise ValueError(f"{describe_cell(g, int(np.flatnonzero(both)[0]))} holds both an own stone (plane 0) "
                         "and an opponent stone (plane 1)")
    empty = g.onboard & ~on[0] & ~on[1]
    if not np.array_equal(on[2], empty):
        x = int(np.flatnonzero(on[2] != empty)[0])
        says = "empty" if on[2, x] else "not empty"
        shows = "no stone" if empty[x] else "a stone"
        raise ValueError(f"plane 2 (empty) says {describe_cell(g, x)} is {says}, but planes 0 and 1 show {shows}")
    marked = np.flatnonzero(on[4])
    if on[5, 0]:
        if len(marked) != 1:
            raise ValueError(f"plane 4 (first stone of this turn) marks {len(marked)} cells in step 2 (plane 5 "
                             "is 1); it must mark exactly one, the stone placed in step 1")
        if empty[marked[0]]:
            raise ValueError(f"plane 4 (first stone of this turn) marks {describe_cell(g, int(marked[0]))}, "
                             "which holds no stone")
        if on[11, 0]:
            raise ValueError("plane 11 (previous turn was a pass) and plane 5 (step 2) are both 1: "
                             "step 2 follows a stone placed this turn, so no pass can be pending")
    elif len(marked):
        raise ValueError(f"plane 4 (first stone of this turn) marks {len(marked)} cell(s) in step 1 (plane 5 "
                         "is 0); it is all zero until a stone is placed")


class GameState(PositionBase):
    """One position of Xodd or Yodd with the player to act and the step of the turn.

    Actions are relative to the player to act (docs/rules/xodd_yodd.md section 5): ``a < N``
    is a stone of their own colour on cell ``a``, ``N <= a < 2N`` a stone of
    the opponent's colour on cell ``a - N``, and ``2N`` is pass (step 1) or
    end turn (step 2), with ``N = H * W``. Players: 0 black, 1 white. Copying,
    pickling, play and the checks of arguments are :class:`~odd_env.common.position.PositionBase`'s.
    """

    __slots__ = ("_keep", "_n", "geometry")
    _GAME_SLOTS = ("geometry",)
    _M_TO_MOVE, _M_DONE, _M_WINNER, _M_PLY, _M_PASSES = K.M_TO_MOVE, K.M_DONE, K.M_WINNER, K.M_PLY, K.M_PASSES
    _PLAYER_NAMES = COLOUR_NAMES
    _NUM_PLANES, _PLANE_NAMES, _PLANE_DTYPE_KINDS = NUM_PLANES, PLANE_NAMES, "biuf"
    _ONBOARD_PLANE, _CONSTANT_PLANES, _ZERO_OFF_BOARD_PLANES = 3, _CONSTANT, _ZERO_OFF_BOARD
    _CELL_WORD, _ACTIONS_FORMULA = "cell", "2*H*W+1"

    def __init__(self, geometry: Geometry, data: np.ndarray | None = None):
        """A new game on ``geometry``'s board, or the position held in ``data``.

        ``data`` (``int32[state_size]``, C-contiguous, writeable) is used in
        place, not copied, after checking that it is a position the rules can
        reach (:func:`~odd_env.games.odd.validation.check_state`); ValueError
        saying what is wrong otherwise.
        """
        check_geometry(geometry)
        if data is None:
            data = np.empty(K.state_size(geometry.num_cells), dtype=np.int32)
            K.init_state(data, geometry.num_cells, geometry.onboard)
        else:
            check_state(geometry, data)
            if not (data.flags.c_contiguous and data.flags.writeable):
                raise ValueError("state data must be a C-contiguous, writeable array (the state plays in place): "
                                 "pass np.array(data, dtype=np.int32)")
        self.geometry = geometry
        self._bind(data)

    def _bind(self, data: np.ndarray) -> None:
        n = self.geometry.num_cells
        self.data = data
        self._n = n
        self._meta = data[2 * n : 2 * n + K.META]
        self._mask = None
        self._keep = None

    def _fill_copy(self, other: GameState, data: np.ndarray) -> None:
        n = self._n
        other.geometry, other._n, other._keep = self.geometry, n, self._keep
        other.data, other._meta = data, data[2 * n : 2 * n + K.META]

    @classmethod
    def _trusted(cls, geometry: Geometry, data: np.ndarray) -> GameState:
        """Wrap ``data`` that the rules kernels produced, without checking it (the engine's own states)."""
        state = cls.__new__(cls)
        state.geometry = geometry
        state._bind(data)
        return state

    @classmethod
    def from_observation(cls, geometry: Geometry, planes: np.ndarray) -> GameState:
        """Rebuild the state seen in ``planes`` (int[C, H, W]) by the player to act.

        Everything the rules depend on is recovered (stones, groups, player,
        step, first stone, a pending pass); the step and turn counters start at 0.
        Planes that no position gives the player to act (values other than
        0/1, planes that contradict each other or the rules) raise ValueError
        naming the plane and cell. The planes do not say whether the game is
        over (there is no player to act then): a finished game's planes give
        the running position they show, with its pending pass.
        """
        g = check_geometry(geometry)
        n = g.num_cells
        flat = cls._read_planes(g, planes, f"{g.game} {g.size}")
        _check_planes(g, flat)
        on = flat.astype(bool)
        viewer = BLACK if on[6, 0] else WHITE
        state = cls(g)
        data, nbr = state.data, g.neighbours
        own, opp = viewer + 1, 2 - viewer
        # The checks made every stone an on-board cell holding one colour:
        # placing them is safe and the kernels build groups and parity bits.
        for cell in np.flatnonzero(on[0]):
            K.place(data, n, nbr, int(cell), own)
        for cell in np.flatnonzero(on[1]):
            K.place(data, n, nbr, int(cell), opp)
        m = 2 * n
        data[m + K.M_TO_MOVE] = viewer
        data[m + K.M_STEP] = int(on[5, 0])
        data[m + K.M_FIRST_STONE] = int(np.flatnonzero(on[4])[0]) if on[5, 0] else -1
        data[m + K.M_PASSES] = int(on[11, 0])
        try:
            check_state(g, data)
        except ValueError as err:
            raise ValueError(f"the planes show an impossible position: {err}") from None
        # The derived planes (parity, legal cells) must be those of this position.
        again = state.observation().reshape(NUM_PLANES, n)
        diff = np.argwhere(again != flat)
        if len(diff):
            p, x = (int(v) for v in diff[0])
            if p in (9, 10) and not flat[9:11].any():
                raise ValueError(
                    "planes 9 and 10 (legal cells) are all zero, but the player to act has legal stones: "
                    "these are the planes of the player not to act (or of a finished game); "
                    "from_observation needs the planes of the player to act"
                )
            raise ValueError(
                f"plane {p} ({PLANE_NAMES[p]}) disagrees with the stones at {describe_cell(g, x)}: "
                f"it holds {flat[p, x]}, the position gives {again[p, x]}"
            )
        return state

    def _equal(self, other: GameState) -> bool:
        # The union-find block is left out: two histories can link the same groups differently.
        return (
            self.geometry is other.geometry
            and np.array_equal(self.board, other.board)
            and np.array_equal(self._meta, other._meta)
        )

    def _game_args(self) -> tuple[str, int | None, str]:
        return self.geometry.game, self.geometry.size, ""

    # ------------------------------------------------------------ reading
    @property
    def game_name(self) -> str:
        """``"xodd"`` or ``"yodd"``."""
        return self.geometry.game

    def key(self) -> bytes:
        """What the rules depend on: the board and the turn bookkeeping, not the counters."""
        meta = (self.to_move, self.turn_step, self.first_stone, self.consecutive_passes, self.is_terminal)
        return self.board.tobytes() + np.array(meta, dtype=np.int32).tobytes()

    @property
    def board(self) -> np.ndarray:
        """int32[H*W] view: 0 empty, 1 black, 2 white, 3 off-board (read it, don't write)."""
        return self.data[: self._n]

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
    def num_empty(self) -> int:
        """Empty on-board cells."""
        return self._m(K.M_EMPTY)

    @property
    def turn(self) -> int:
        """Turns completed so far."""
        return self._m(K.M_TURN)

    def group_of(self, cell: int) -> int:
        """A label of the group holding the stone on ``cell`` (its root), or -1 if it holds no stone.

        ValueError if ``cell`` is not an array index ``0..H*W-1``.
        """
        x = check_cell(self.geometry, cell)
        if self.board[x] not in (1, 2):
            return -1
        return int(K.find(self.data, self._n, x))

    # ------------------------------------------------------------ rules
    def _fill_legal(self, viewer: int = 0, flat: np.ndarray | None = None) -> None:
        # With ``flat``, the same kernel call also writes the planes of ``viewer`` there.
        g = self.geometry
        n = self._n
        mask = np.empty(2 * n + 1, dtype=np.int8)
        keep = np.empty((2, n), dtype=np.int8)
        if flat is None:
            K.legal_mask_into(self.data, n, g.neighbours, mask, keep)
        else:
            K.legal_mask_and_observe(self.data, n, g.neighbours, g.onboard, viewer, mask, keep, flat)
        mask.setflags(write=False)
        keep.setflags(write=False)
        self._mask, self._keep = mask, keep

    @property
    def _num_actions(self) -> int:
        return 2 * self._n + 1

    def parity_keeping(self) -> np.ndarray:
        """int8[2, N]: 1 where a stone of colour (0 black, 1 white) keeps parity."""
        self.legal_action_mask()  # computes both
        return self._keep

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
        """k: distinct groups of ``colour`` (0 black, 1 white) touching ``cell``.

        ValueError if ``cell`` is not an array index ``0..H*W-1`` or ``colour`` not 0 or 1.
        """
        g = self.geometry
        x = check_cell(g, cell)
        c = check_colour(colour)
        roots = np.empty(8, dtype=np.int32)
        return int(K.adjacent_groups(self.data, g.num_cells, g.neighbours, x, c + 1, roots))

    def _why_not(self, a: int) -> str:
        g = self.geometry
        n = g.num_cells
        if a == 2 * n:
            if self.first_turn:
                return "Black may not pass on the first turn"
            return "end turn would leave an even number of groups: the first stone flipped parity, so a parity-flipping second stone is required"
        x = a % n
        if not g.onboard[x]:
            return f"cell {g.label(x)}"  # the label says "off the board"
        if self.board[x] != 0:
            return f"cell {g.label(x)} is occupied"
        p = self.to_move
        colour = p if a < n else 1 - p
        k = self.adjacent_groups(x, colour)
        who = COLOUR_NAMES[colour]
        if self.turn_step == 2:
            return (f"a {who} stone on {g.label(x)} touches {k} {who} group(s) and would leave "
                    "an even number of groups at the end of the turn")
        return (f"a {who} stone on {g.label(x)} flips parity (k={k}) and no parity-flipping "
                "second stone would remain to restore an odd total")

    def _play(self, action: int) -> None:
        K.apply_action(self.data, self._n, self.geometry.neighbours, action)
        self._keep = None

    def _observe_into(self, viewer: int, flat: np.ndarray) -> None:
        if self._mask is None:
            self._fill_legal(viewer, flat)
        else:
            g = self.geometry
            K.observe_into(self.data, self._n, g.onboard, viewer, self._keep, self._mask, flat)

    def state_planes(self, out: np.ndarray | None = None) -> np.ndarray:
        """int8[C, H, W] planes of the position from Black's side, whoever is to act
        (the state table in the module docstring); Black's observation when Black acts."""
        out = self.observation(BLACK, out)
        if self.to_move == WHITE:
            # Black's observation has the acting player's planes (6, 9, 10) from a
            # bystander's side; restate them for White to act, in Black/White order.
            n = self._n
            flat = out.reshape(NUM_PLANES, n)
            mask = self.legal_action_mask()  # cached by observation()
            flat[6] = 0
            flat[9] = mask[n : 2 * n]  # a black stone is White's opponent colour
            flat[10] = mask[:n]
        return out

    def __repr__(self) -> str:
        b, w = self.group_counts
        status = (f"winner={COLOUR_NAMES[self.winner]}" if self.is_terminal
                  else f"to_move={COLOUR_NAMES[self.to_move]} step={self.turn_step}")
        return (f"GameState({self.geometry.game} {self.geometry.size}, {status}, "
                f"groups black={b} white={w})")
