"""The frame every game's position class shares.

A position of each game here is one flat ``int32`` state vector written by
that game's compiled kernels, with a block of bookkeeping ("meta") in it.
:class:`PositionBase` holds what does not depend on the game's rules:
copying, equality, pickling, the cached legal-action mask, checked play, the
bookkeeping every game keeps (player to act, game over, winner, decisions
played, passes in a row), the checks on the arguments of ``observation()``
and ``why_illegal()``, the checks of planes given to ``from_observation()``
that need no rules, and the hooks Jupyter draws with. A game's class lays
out its vector, names the places of that bookkeeping, and fills the hooks
(the methods that raise :class:`NotImplementedError` here).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from .validation import as_int

if TYPE_CHECKING:
    from typing import Self

    from ..game import Game
    from .geometry import Geometry


class PositionBase:
    """One position of a game held in a flat ``int32`` vector (the shared frame; see the module docstring).

    Players are 0 (who moves first) and 1. Meets :class:`odd_env.game.Position` once a
    subclass fills the hooks and says what :meth:`key` holds.
    """

    __slots__ = ("_mask", "_meta", "data")

    data: np.ndarray
    """The state vector (``int32``, C-contiguous); play writes into it."""
    geometry: Geometry
    """The board (an instance slot or a class attribute of the subclass)."""

    # ------------------------------------------------------------ what a subclass declares
    _GAME_SLOTS: tuple[str, ...] = ()
    """Slots besides ``data`` that say which game this is (pickled with it)."""
    _M_TO_MOVE: int
    _M_DONE: int
    _M_WINNER: int
    _M_PLY: int
    _M_PASSES: int
    _PLAYER_NAMES: tuple[str, str]
    _NUM_PLANES: int
    _PLANE_NAMES: tuple[str, ...]
    _PLANE_DTYPE_KINDS: str
    """The dtype kinds ``from_observation`` accepts (``"biuf"``: numbers; ``"biu"``: integers)."""
    _ONBOARD_PLANE: int
    _CONSTANT_PLANES: tuple[int, ...]
    _ZERO_OFF_BOARD_PLANES: tuple[int, ...]
    _CELL_WORD: str
    """What the game calls a place of its board in messages: ``"cell"``, ``"point"``."""
    _ACTIONS_FORMULA: str
    """How the action count is made, for messages: ``"2*H*W+1"``."""
    _num_actions: int

    # ------------------------------------------------------------ hooks
    def _bind(self, data: np.ndarray) -> None:
        """Take ``data`` as the state vector (the game's slots already set): set ``data``, the
        ``_meta`` view and the other views, and empty the caches."""
        raise NotImplementedError

    def _fill_copy(self, other: Self, data: np.ndarray) -> None:
        """Give ``other``, a bare instance, this game's slots, ``data`` (a copy of this vector)
        with its views, and the read-only caches other than ``_mask``, which copies share."""
        raise NotImplementedError

    def _fill_legal(self) -> None:
        """Compute the legal-action mask (and any other cache) of this position, read-only."""
        raise NotImplementedError

    def _play(self, action: int) -> None:
        """Play ``action``, known legal, on ``data``, and drop the caches other than ``_mask``."""
        raise NotImplementedError

    def _observe_into(self, viewer: int, flat: np.ndarray) -> None:
        """Write the planes of player ``viewer`` into ``flat`` (``int8[C, H*W]``)."""
        raise NotImplementedError

    def _why_not(self, action: int) -> str:
        """Why ``action``, in range and the game running, is illegal here."""
        raise NotImplementedError

    def _game_args(self) -> tuple[str, int | None, str]:
        """``(name, size, variant)`` for :func:`odd_env.game.make`."""
        raise NotImplementedError

    def _equal(self, other: Self) -> bool:
        """Whether ``other`` (of this class) is the same position."""
        raise NotImplementedError

    # ------------------------------------------------------------ copying
    def copy(self) -> Self:
        """An independent copy (one array copy; the board tables and read-only caches are shared)."""
        cls = type(self)
        other = cls.__new__(cls)
        other._mask = self._mask
        # One hook writing the slots outright: search copies positions in its inner loop.
        self._fill_copy(other, self.data.copy())
        return other

    __copy__ = copy

    def __deepcopy__(self, memo: dict) -> Self:
        return self.copy()

    def __eq__(self, other: object) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        return self._equal(other)

    __hash__ = None  # mutable; key() gives a hashable value

    def __getstate__(self) -> dict[str, Any]:
        # The state vector alone: the views into it and the caches are rebuilt on loading.
        return {name: getattr(self, name) for name in (*self._GAME_SLOTS, "data")}

    def __setstate__(self, state: Any) -> None:
        # Pickles written before this class are (None, {slot: value}) and carry the view of the
        # bookkeeping as an array of its own; only the vector and the game are taken from them.
        if isinstance(state, tuple):
            state = state[1]
        for name in self._GAME_SLOTS:
            setattr(self, name, state[name])
        self._bind(state["data"])

    # ------------------------------------------------------------ reading
    @property
    def game(self) -> Game:
        """The :class:`odd_env.game.Game` this is a position of."""
        from ..game import make  # the interface sits above the rules core

        return make(*self._game_args())

    def key(self) -> bytes:
        """Bytes identifying the position for the rules: equal keys, equal futures (the counters left out)."""
        raise NotImplementedError

    def _m(self, i: int) -> int:
        return int(self._meta[i])

    @property
    def to_move(self) -> int:
        """The player who decides now (0 first player, 1 second; once over: the last to decide)."""
        return int(self._meta[self._M_TO_MOVE])

    @property
    def is_terminal(self) -> bool:
        """True once the game is over."""
        return bool(self._meta[self._M_DONE])

    @property
    def winner(self) -> int | None:
        """The winner (0 or 1); None while the game runs and on a draw."""
        w = int(self._meta[self._M_WINNER])
        return w if w in (0, 1) else None

    def returns(self) -> tuple[float, float]:
        """Rewards of players 0 and 1: +1/-1 at the end, zeros on a draw or before the end."""
        w = self.winner
        if w is None:
            return 0.0, 0.0
        return (1.0, -1.0) if w == 0 else (-1.0, 1.0)

    @property
    def ply(self) -> int:
        """Decisions (environment steps) played so far."""
        return int(self._meta[self._M_PLY])

    @property
    def consecutive_passes(self) -> int:
        """Passes in a row just played (a second one ends the game)."""
        return int(self._meta[self._M_PASSES])

    # ------------------------------------------------------------ rules
    def legal_action_mask(self) -> np.ndarray:
        """``int8[num_actions]``, 1 where the action is legal for the player to act (read-only, cached)."""
        if self._mask is None:
            self._fill_legal()
        return self._mask

    def legal_actions(self) -> np.ndarray:
        """Indices of the legal actions, ascending."""
        return np.flatnonzero(self.legal_action_mask())

    def why_illegal(self, action: object) -> str | None:
        """None if ``action`` is legal here, else a sentence saying why not."""
        last = self._num_actions - 1
        a = as_int(action)
        if a is None:
            return f"action must be an integer in [0, {last}], got {action!r} of type {type(action).__name__}"
        if not 0 <= a <= last:
            return f"action {a} is out of range: actions are 0..{last} ({self._ACTIONS_FORMULA} = {last + 1} actions)"
        if self.is_terminal:
            return "the game is over"
        if self.legal_action_mask()[a]:
            return None
        return self._why_not(a)

    def apply(self, action: int) -> Self:
        """Play ``action`` (an integer scalar, 0-d arrays included) in place after checking it;
        raise ValueError (state unchanged) if illegal."""
        a = action if type(action) is int else as_int(action)
        mask = self._mask if self._mask is not None else self.legal_action_mask()
        if a is not None and 0 <= a < len(mask) and mask[a]:
            self._play(a)
            self._mask = None
            return self
        raise ValueError(f"illegal action {action!r}: {self.why_illegal(action)}")

    def child(self, action: int) -> Self:
        """A copy with ``action`` played."""
        return self.copy().apply(action)

    # ------------------------------------------------------------ observing
    def observation(self, viewer: int | None = None, out: np.ndarray | None = None) -> np.ndarray:
        """``int8[C, H, W]`` planes from ``viewer``'s side (0 or 1; default: the player to act).

        ``out``, if given, must be a C-contiguous writeable ``int8[C, H, W]`` array; it is filled
        and returned.
        """
        g = self.geometry
        if viewer is None:
            viewer = self.to_move
        elif type(viewer) is not int or not 0 <= viewer <= 1:
            v = as_int(viewer)  # an integer scalar, not a bool
            if v not in (0, 1):
                names = self._PLAYER_NAMES
                raise ValueError(f"viewer must be 0 ({names[0]}), 1 ({names[1]}) or None (the player to act), "
                                 f"got {viewer!r}")
            viewer = v
        shape = (self._NUM_PLANES, g.height, g.width)
        if out is None:
            out = np.empty(shape, dtype=np.int8)
        elif not (isinstance(out, np.ndarray) and out.dtype == np.int8 and out.shape == shape
                  and out.flags.c_contiguous and out.flags.writeable):  # else reshape would fill a copy
            got = f"{out.dtype}{list(out.shape)}" if isinstance(out, np.ndarray) else type(out).__name__
            raise ValueError(f"out must be a C-contiguous, writeable int8{list(shape)} array, got {got}")
        self._observe_into(viewer, out.reshape(self._NUM_PLANES, g.num_cells))
        return out

    @classmethod
    def _read_planes(cls, geometry: Geometry, planes: Any, board: str) -> np.ndarray:
        """``planes`` as ``[C, H*W]`` (their own dtype) after the checks that need no rules: the
        shape, numbers 0 and 1, the on-board plane, the constant planes, and the planes that are
        zero off the board; ValueError naming the plane and place otherwise. ``board`` names the
        board in messages (``"xodd 5"``)."""
        g = geometry
        n = g.num_cells
        names = cls._PLANE_NAMES
        planes = np.asarray(planes)
        shape = (cls._NUM_PLANES, g.height, g.width)
        if planes.shape != shape:
            raise ValueError(f"planes must have shape {shape} for {board}, got {planes.shape}")
        if planes.dtype.kind not in cls._PLANE_DTYPE_KINDS:
            what = "numbers" if "f" in cls._PLANE_DTYPE_KINDS else "integers"
            raise ValueError(f"planes must hold {what} 0 or 1, got dtype {planes.dtype}")
        flat = planes.reshape(cls._NUM_PLANES, n)

        def place(x: int) -> str:
            return f"{cls._CELL_WORD} {g.label(x)}"

        bad = np.argwhere((flat != 0) & (flat != 1))
        if len(bad):
            p, x = (int(v) for v in bad[0])
            raise ValueError(f"plane {p} ({names[p]}) holds {flat[p, x].item()!r} at {place(x)}: "
                             "planes hold only 0 and 1")
        on = flat.astype(bool)
        p = cls._ONBOARD_PLANE
        if not np.array_equal(on[p], g.onboard):
            x = int(np.flatnonzero(on[p] != g.onboard)[0])
            raise ValueError(f"plane {p} ({names[p]}) does not match the {board} board: it holds "
                             f"{int(on[p, x])} at {place(x)}")
        for p in cls._CONSTANT_PLANES:
            if on[p].any() and not on[p].all():
                raise ValueError(f"plane {p} ({names[p]}) must be constant (all 0 or all 1), but it is 1 on "
                                 f"{int(on[p].sum())} of {n} {cls._CELL_WORD}s")
        for p in cls._ZERO_OFF_BOARD_PLANES:
            off = on[p] & ~g.onboard
            if off.any():
                raise ValueError(f"plane {p} ({names[p]}) marks {place(int(np.flatnonzero(off)[0]))}; "
                                 f"off-board {cls._CELL_WORD}s are 0 in this plane")
        return flat

    # ------------------------------------------------------------ pictures
    def _repr_svg_(self) -> str:
        """The position as SVG, so that Jupyter draws states (the game's ``to_svg``)."""
        return self.game.to_svg(self)  # the game's picture: the rules core imports no views
