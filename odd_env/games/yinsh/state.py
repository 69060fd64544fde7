"""A game of YINSH as a cheap-to-copy value (docs/rules/yinsh.md).

:class:`YinshState` wraps one flat ``int32`` vector (see
:mod:`odd_env.games.yinsh.kernels`). It knows the rules and nothing of players'
names, rewards or spaces: those belong to the environment built on top of it.
Players are 0 (white, who starts) and 1 (black). Every decision of docs/rules/yinsh.md
section 3 is one action of ``Discrete(485)`` (docs/rules/yinsh.md section 4), read by the
decision kind:

======  ==============================  =========================================
kind    decision                        legal actions
======  ==============================  =========================================
0       ``place``: place a ring         point ``a < N``: any empty point
1       ``move``: choose a ring          point: one of your rings that can move
2       ``destination``                 point: a point the chosen ring reaches
3       ``remove_row``                  ``N + d*N + s``: a row of five of your
                                        markers from point ``s`` in direction d
4       ``remove_ring``                 point: one of your rings
5       ``pass``                        ``4N``: none of your rings can move
======  ==============================  =========================================

Observation planes (``int8[24, 11, 11]``, from the viewer's side; docs/rules/yinsh.md
section 5 fixes planes 0 to 5; observation version 1):

=====  ==================================================================
plane  content
=====  ==================================================================
0      the viewer's rings
1      the opponent's rings
2      the viewer's markers
3      the opponent's markers
4      valid points (85 ones)
5      the chosen ring (destination decision), else zeros
6-11   constant: 1 on the plane of the current decision kind (6 + kind:
       place, move, destination, remove_row, remove_ring, pass); all zero
       once the game is over
12-14  constant: the viewer has removed at least 1, 2, 3 rings
15-17  constant: the opponent has removed at least 1, 2, 3 rings
18     markers left in the pool: 1 on the first ``pool`` valid points in
       array order (so the plane sums to the pool, 0 to 51)
19     constant: 1 when the viewer is white
20     constant: 1 while the decider resolves rows made by the opponent's
       move (then the decider moves next), 0 while the mover resolves their own
21     constant: 1 when the previous decision was a pass (passing now ends
       the game)
22     constant: 1 in the blitz variant (one ring removed wins)
23     constant: 1 when the viewer decides now (the game running)
=====  ==================================================================

The planes of the decider hold all that the rules depend on:
:meth:`YinshState.from_observation` rebuilds the position from them (the
counters of decisions and moves and the last move start afresh). While the
ring to move is being chosen and its destination decided the ring stays on
its point (plane 0) and no marker is shown there: the marker is put down when
the move is made.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from functools import lru_cache

import numpy as np

from . import kernels as K
from ...common.geometry import Geometry, yinsh_board
from ...common.position import PositionBase
from ...common.validation import as_int

OBSERVATION_VERSION = 1
"""Bumped whenever the meaning of the YINSH observation planes changes."""
NUM_PLANES = K.NUM_PLANES
PLANE_NAMES = (
    "own rings", "opponent rings", "own markers", "opponent markers", "valid points", "chosen ring",
    "decision: place", "decision: move", "decision: destination", "decision: remove_row",
    "decision: remove_ring", "decision: pass",
    "own removed >= 1", "own removed >= 2", "own removed >= 3",
    "opponent removed >= 1", "opponent removed >= 2", "opponent removed >= 3",
    "markers in the pool", "viewer is white", "resolving the opponent's rows",
    "previous decision was a pass", "blitz", "viewer decides",
)
WHITE, BLACK = K.WHITE, K.BLACK
"""Player indices: white moves first."""
PLAYER_NAMES = ("white", "black")
DECISIONS = ("place", "move", "destination", "remove_row", "remove_ring", "pass")
"""Names of the decision kinds, indexed by kind."""
DIRECTION_NAMES = ("column", "row", "diagonal")
"""Row directions d of docs/rules/yinsh.md section 4: along a column (number increasing),
along a row number (letter increasing), diagonal (both increasing)."""
NUM_POINTS = 121
ROW_PREFIX = "x"
"""Notation: a removed row is written ``x`` and its two ends, ``xE5-E9``."""
RING_PREFIX = "r"
"""Notation: a removed ring is written ``r`` and its point, ``rE5``."""
NUM_ACTIONS = K.num_actions(NUM_POINTS)
PASS_ACTION = 4 * NUM_POINTS
_RULES_END = NUM_POINTS + K.M_PLY  # key(): the board and the bookkeeping the rules read


class YinshTables:
    """The YINSH board tables the kernels read (one shared, read-only instance)."""

    def __init__(self, geometry: Geometry):
        """Derive the tables from the YINSH geometry."""
        g = geometry
        self.geometry = g
        self.n = g.num_cells
        self.onboard = g.onboard.astype(np.int8)
        self.rays = g.rays
        self.points = np.flatnonzero(g.onboard).astype(np.int32)
        """The 85 valid points in array order."""
        lines, dirs = [], []
        width = g.rays.shape[2] + 1
        for d in range(3):
            for x in self.points:
                # A line starts where the opposite ray is empty; keep those that can hold a row.
                if g.rays[x, d + 3, 0] < 0 and g.rays[x, d, K.ROW_LENGTH - 2] >= 0:
                    line = np.full(width, -1, dtype=np.int32)
                    ray = g.rays[x, d][g.rays[x, d] >= 0]
                    line[0] = x
                    line[1 : 1 + len(ray)] = ray
                    lines.append(line)
                    dirs.append(d)
        self.lines = np.array(lines, dtype=np.int32)
        self.line_dir = np.array(dirs, dtype=np.int32)
        # row_ends[d, s]: the far end of the row of five from s in direction d, or -1.
        self.row_ends = g.rays[:, :3, K.ROW_LENGTH - 2].T.copy()
        self.row_ends[:, ~g.onboard] = -1
        for a in (self.onboard, self.points, self.lines, self.line_dir, self.row_ends):
            a.setflags(write=False)


@lru_cache(maxsize=None)
def tables() -> YinshTables:
    """The tables of the YINSH board."""
    return YinshTables(yinsh_board())


def _player(value: object, what: str) -> int:
    if isinstance(value, str) and value.lower() in PLAYER_NAMES:
        return PLAYER_NAMES.index(value.lower())
    if not isinstance(value, (bool, np.bool_)) and isinstance(value, (int, np.integer)) and value in (0, 1):
        return int(value)
    raise ValueError(f"{what} must be 'white' (0) or 'black' (1), got {value!r}")


class YinshState(PositionBase):
    """One YINSH position with the player to decide and the kind of decision.

    Build a new game with ``YinshState()`` (``blitz=True``: one ring removed
    wins), a described position with :meth:`from_position`, or the position
    an agent sees with :meth:`from_observation`. Actions follow docs/rules/yinsh.md
    section 4 (see the module docstring). Players: 0 white, 1 black. Copying,
    pickling, play and the checks of arguments are :class:`~odd_env.common.position.PositionBase`'s.
    """

    __slots__ = ()
    game_name = "yinsh"
    geometry: Geometry = yinsh_board()
    _M_TO_MOVE, _M_DONE, _M_WINNER, _M_PLY, _M_PASSES = K.M_TO_MOVE, K.M_DONE, K.M_WINNER, K.M_PLY, K.M_PASSES
    _PLAYER_NAMES = PLAYER_NAMES
    _NUM_PLANES, _PLANE_NAMES, _PLANE_DTYPE_KINDS = NUM_PLANES, PLANE_NAMES, "biu"
    _ONBOARD_PLANE, _ZERO_OFF_BOARD_PLANES = 4, tuple(range(6))
    _CONSTANT_PLANES = tuple(p for p in range(6, NUM_PLANES) if p != K.P_POOL)
    _CELL_WORD, _ACTIONS_FORMULA = "point", "4*121+1"
    _num_actions = NUM_ACTIONS

    def __init__(self, blitz: bool | None = None, data: np.ndarray | None = None):
        """A new game, or a wrapper (no copy) around the state vector ``data``."""
        if blitz is not None and not isinstance(blitz, (bool, np.bool_)):
            raise ValueError(f"blitz must be True, False or None, got {blitz!r}")
        t = tables()
        size = K.state_size(t.n)
        if data is None:
            data = K.new_state(1 if blitz else 3)
        else:
            if not isinstance(data, np.ndarray) or data.shape != (size,) or data.dtype != np.int32:
                got = f"{data.dtype}{list(data.shape)}" if isinstance(data, np.ndarray) else type(data).__name__
                raise ValueError(f"YINSH state data must be int32[{size}], got {got}")
            if not (data.flags.c_contiguous and data.flags.writeable):
                raise ValueError("YINSH state data must be a C-contiguous, writeable array (play writes into it)")
            problem = _check_data(data)  # garbage would reach compiled code, which trusts it
            if problem is not None:
                raise ValueError(f"the data is not a YINSH position play can reach: {problem}")
            if blitz is not None and bool(blitz) != (int(data[t.n + K.M_TARGET]) == 1):
                raise ValueError(f"blitz={blitz} was given but the state data is of the "
                                 f"{'blitz' if data[t.n + K.M_TARGET] == 1 else 'standard'} game")
        self._bind(data)

    def _bind(self, data: np.ndarray) -> None:
        self.data = data
        self._meta = data[NUM_POINTS:]
        self._mask = None

    def _fill_copy(self, other: YinshState, data: np.ndarray) -> None:
        other.data, other._meta = data, data[NUM_POINTS:]

    @classmethod
    def _trusted(cls, data: np.ndarray) -> YinshState:
        """Wrap ``data`` that the rules kernels produced, without checking it (the engine's own states)."""
        state = cls.__new__(cls)
        state._bind(data)
        return state

    def _equal(self, other: YinshState) -> bool:
        return np.array_equal(self.data, other.data)

    def _game_args(self) -> tuple[str, int | None, str]:
        return "yinsh", None, "blitz" if self.blitz else ""

    def key(self) -> bytes:
        """Bytes identifying the position for the rules (board, decider, decision,
        removed rings, pending pass...), without the counters and the last move."""
        return self.data[:_RULES_END].tobytes()

    # ------------------------------------------------------------ reading
    @property
    def board(self) -> np.ndarray:
        """int32[121] view of the points: 0 empty, 1 + p a ring and 3 + p a marker of
        player p (0 white, 1 black), 5 off the board (read it, don't write)."""
        return self.data[:NUM_POINTS]

    @property
    def blitz(self) -> bool:
        """True in the blitz variant (the first ring removed wins)."""
        return self._m(K.M_TARGET) == 1

    @property
    def rings_to_win(self) -> int:
        """Rings a player must remove to win: 3, or 1 in blitz."""
        return self._m(K.M_TARGET)

    @property
    def decision(self) -> int:
        """The kind of the current decision (index into :data:`DECISIONS`), -1 once over."""
        return self._m(K.M_KIND)

    @property
    def decision_name(self) -> str:
        """``"place"``, ``"move"``, ``"destination"``, ``"remove_row"``, ``"remove_ring"``,
        ``"pass"``, or ``"over"``."""
        k = self.decision
        return "over" if k < 0 else DECISIONS[k]

    @property
    def is_draw(self) -> bool:
        """True when the game ended level."""
        return self._m(K.M_WINNER) == K.DRAW

    @property
    def rings_removed(self) -> tuple[int, int]:
        """(white, black): rings each player has removed."""
        return self._m(K.M_REMOVED + WHITE), self._m(K.M_REMOVED + BLACK)

    @property
    def pool(self) -> int:
        """Markers left in the common pool (51 at the start)."""
        return self._m(K.M_POOL)

    @property
    def rings_placed(self) -> int:
        """Rings placed so far (10 once the placement phase is over)."""
        return self._m(K.M_PLACED)

    @property
    def chosen_ring(self) -> int:
        """The point of the ring chosen to move (destination decision), else -1."""
        return self._m(K.M_CHOSEN)

    @property
    def resolving_opponent_rows(self) -> bool:
        """True while the decider removes rows that the opponent's move made."""
        return bool(self._m(K.M_OPP_ROWS))

    @property
    def last_move(self) -> tuple[int, int] | None:
        """(from, to) points of the latest ring move, or None."""
        a, b = self._m(K.M_LAST_FROM), self._m(K.M_LAST_TO)
        return None if a < 0 else (a, b)

    @property
    def moves_played(self) -> int:
        """Ring moves played so far."""
        return self._m(K.M_MOVES)

    def rings(self, player: int | str) -> np.ndarray:
        """Points of ``player``'s rings (0/"white" or 1/"black"), ascending."""
        return np.flatnonzero(self.board == K.RING + _player(player, "player"))

    def markers(self, player: int | str) -> np.ndarray:
        """Points of the markers showing ``player``'s colour, ascending."""
        return np.flatnonzero(self.board == K.MARKER + _player(player, "player"))

    def point_name(self, point: int) -> str:
        """The name of a point, e.g. ``"E5"``."""
        return point_name(point)

    def piece_at(self, point: int | str) -> str:
        """What stands on a point: ``"empty"``, ``"white ring"``, ``"black marker"``..."""
        return _piece_name(int(self.board[_point(point)]))

    # ------------------------------------------------------------ rules
    def _fill_legal(self) -> None:
        mask = np.empty(NUM_ACTIONS, dtype=np.int8)
        K.legal_mask(self.data, mask)
        mask.setflags(write=False)
        self._mask = mask

    def destinations(self, point: int | str) -> np.ndarray:
        """The points the ring on ``point`` could move to now (whoever's turn it is), ascending."""
        x = _point(point)
        if self.board[x] not in (K.RING, K.RING + 1):
            raise ValueError(f"{point_name(x)} holds no ring ({self.piece_at(x)})")
        mask = np.zeros(NUM_POINTS, dtype=np.int8)
        K.destinations_into(self.data, tables().rays, x, mask)
        return np.flatnonzero(mask)

    def _play(self, action: int) -> None:
        K.apply(self.data, action)

    def state_planes(self) -> np.ndarray:
        """A global view, the same whoever decides: the observation planes from White's side
        (plane 23 then says whether White decides; the env's ``state()``)."""
        return self.observation(WHITE)

    def _observe_into(self, viewer: int, flat: np.ndarray) -> None:
        K.observe(self.data, viewer, flat)

    # ------------------------------------------------------------ explaining
    def _why_not(self, a: int) -> str:
        who = PLAYER_NAMES[self.to_move]
        kind = self.decision
        n = NUM_POINTS
        what = action_kind_name(a)
        if kind == K.KIND_PASS:
            return f"{who} has no ring that can move: the only legal action is pass ({PASS_ACTION})"
        if a == PASS_ACTION:
            return f"pass is legal only when no ring can move, and {who} has a ring that can"
        if kind == K.KIND_ROW:
            if a < n:
                return (f"{who} must remove a row of five {who} markers now (a row action "
                        f"{n}..{4 * n - 1}), not a point")
            return self._why_not_row(a)
        if a >= n:
            task = {K.KIND_PLACE: "place a ring", K.KIND_MOVE: "choose a ring to move",
                    K.KIND_DESTINATION: "choose where the ring goes",
                    K.KIND_RING: "remove one of their rings"}[kind]
            return f"{who} must {task} now (a point action 0..{n - 1}), not {what}"
        g = self.geometry
        if not g.onboard[a]:
            return f"point {g.label(a)}"  # the label says "off the board"
        name, piece = point_name(a), self.piece_at(a)
        if kind == K.KIND_PLACE:
            return f"{name} is occupied by a {piece}: a ring is placed on an empty point"
        if kind in (K.KIND_MOVE, K.KIND_RING):
            if self.board[a] != K.RING + self.to_move:
                return f"{name} holds no {who} ring ({piece})"
            return f"the {who} ring on {name} cannot move: every direction is blocked"
        return self._why_not_destination(a)

    def _why_not_destination(self, a: int) -> str:
        x = self.chosen_ring
        start, name = point_name(x), point_name(a)
        for ray in tables().rays[x]:
            ray = [int(y) for y in ray if y >= 0]
            if a not in ray:
                continue
            jumped: list[int] = []
            for y in ray:
                v = int(self.board[y])
                if y == a:
                    return f"the ring on {start} cannot stop on {name}: it holds a {_piece_name(v)}"
                if v in (K.RING, K.RING + 1):
                    return f"the {_piece_name(v)} on {point_name(y)} blocks the way from {start} to {name}"
                if v != K.EMPTY:
                    jumped.append(y)
                elif jumped:
                    markers = (f"the marker {point_name(jumped[0])}" if len(jumped) == 1 else
                               f"the markers {point_name(jumped[0])}-{point_name(jumped[-1])}")
                    after = "it" if len(jumped) == 1 else "them"
                    return (f"the ring on {start} jumps {markers} and must stop on {point_name(y)}, "
                            f"the first empty point after {after}")
        return f"{name} is not on a line through the chosen ring on {start}"

    def _why_not_row(self, a: int) -> str:
        t = tables()
        d, s = divmod(a - NUM_POINTS, NUM_POINTS)
        who = PLAYER_NAMES[self.to_move]
        if not self.geometry.onboard[s] or t.row_ends[d, s] < 0:
            return (f"row action {a} (from point {self.geometry.label(s)} along the {DIRECTION_NAMES[d]}) "
                    "does not fit on the board")
        cells = [s] + [int(y) for y in t.rays[s, d, : K.ROW_LENGTH - 1]]
        wrong = [f"{point_name(y)} ({self.piece_at(y)})" for y in cells
                 if self.board[y] != K.MARKER + self.to_move]
        return (f"the row {point_name(cells[0])}-{point_name(cells[-1])} is not five {who} markers: "
                + ", ".join(wrong))

    def action_to_string(self, action: int) -> str:
        """The notation of ``action`` in this position (docs/rules/yinsh.md section 6):
        ``"E5"`` (a ring placed, or chosen to move), ``"E4-E10"`` (a move, at the
        destination decision), ``"xE5-E9"`` (a row removed, by its ends),
        ``"rE5"`` (a ring removed), ``"pass"``."""
        a = as_int(action)
        if a is None or not 0 <= a < NUM_ACTIONS:
            raise ValueError(f"action must be an integer in [0, {NUM_ACTIONS - 1}], got {action!r}")
        if a == PASS_ACTION:
            return "pass"
        if a >= NUM_POINTS:
            d, s = divmod(a - NUM_POINTS, NUM_POINTS)
            end = int(tables().row_ends[d, s])
            if end < 0:
                raise ValueError(f"row action {a} does not fit on the board")
            return f"{ROW_PREFIX}{point_name(s)}-{point_name(end)}"
        point_name(a)  # validates
        if self.decision == K.KIND_DESTINATION:
            return f"{point_name(self.chosen_ring)}-{point_name(a)}"
        if self.decision == K.KIND_RING:
            return RING_PREFIX + point_name(a)
        return point_name(a)

    def parse_action(self, text: str) -> int:
        """The action named by ``text`` for the current decision (inverse of
        :meth:`action_to_string`, case-insensitive). A row may be named from
        either end and without its ``x``, a removed ring without its ``r``, a
        destination by its point alone. Legality is not checked, but a ring
        removal (``rE5``) is refused at another decision, where its point would
        mean something else."""
        if not isinstance(text, str):
            raise ValueError(f"an action name must be a string like 'E5', 'E4-E10', 'xE5-E9', 'rE5' or 'pass', "
                             f"got {text!r}")
        t = text.strip().upper()
        if t == "PASS":
            return PASS_ACTION
        if t.startswith(RING_PREFIX.upper()):
            if self.decision != K.KIND_RING:
                raise ValueError(f"{text!r} removes a ring, but the decision now is {self.decision_name!r}")
            return parse_point(t[1:])
        row = t.startswith(ROW_PREFIX.upper())
        parts = (t[1:] if row else t).split("-")
        if len(parts) == 1 and not row:
            return parse_point(parts[0])
        if len(parts) != 2:
            raise ValueError(f"malformed action {text!r}: expected 'E5', 'E4-E10', 'xE5-E9', 'rE5' or 'pass'")
        a, b = parse_point(parts[0]), parse_point(parts[1])
        if not row and self.decision not in (K.KIND_DESTINATION, K.KIND_ROW):
            raise ValueError(f"{text!r} names a ring move or a row, but the decision now is "
                             f"{self.decision_name!r}: name one point, like 'E5'")
        if self.decision == K.KIND_DESTINATION and not row:
            if a != self.chosen_ring:
                raise ValueError(f"the chosen ring is on {point_name(self.chosen_ring)}, not {parts[0]}")
            return b
        return row_action(a, b)

    # ------------------------------------------------------------ building
    @classmethod
    def from_position(
        cls,
        rings: Mapping[int | str, Iterable[int | str]] | None = None,
        markers: Mapping[int | str, Iterable[int | str]] | None = None,
        to_move: int | str = WHITE,
        decision: int | str | None = None,
        chosen: int | str | None = None,
        removed: tuple[int, int] = (0, 0),
        blitz: bool = False,
        opponent_rows: bool = False,
        passed: bool = False,
    ) -> YinshState:
        """A position described by its pieces, for tests and analysis.

        ``rings`` and ``markers`` map a player ("white"/"black" or 0/1) to
        points (names like ``"E5"`` or indices). ``removed`` is (white, black)
        rings removed. The pool is 51 minus the markers on the board. Without
        ``decision`` it follows from the position: ``"place"`` while fewer
        than 10 rings have entered the game, ``"destination"`` when ``chosen``
        is given, ``"remove_row"`` when the decider has a row of five, else
        ``"move"`` or ``"pass"`` (and a move decision with an empty pool ends
        the game at once, as the rules say). ``opponent_rows``: the decider
        resolves rows made by the opponent's move; ``passed``: the opponent
        has just passed. ValueError if the position cannot arise.
        """
        for flag, value in (("blitz", blitz), ("opponent_rows", opponent_rows), ("passed", passed)):
            if not isinstance(value, (bool, np.bool_)):
                raise ValueError(f"{flag} must be True or False, got {value!r}")
        t = tables()
        n = t.n
        board = np.where(t.onboard.astype(bool), K.EMPTY, K.OFFBOARD).astype(np.int32)
        for what, base, spec in (("rings", K.RING, rings), ("markers", K.MARKER, markers)):
            if spec is None:
                continue
            if not isinstance(spec, Mapping):
                raise ValueError(f"{what} must map a player to a list of points, like "
                                 f"{{'white': ['E5', 'F6']}}, got {type(spec).__name__}")
            for player, points in spec.items():
                p = _player(player, f"a key of {what}")
                if isinstance(points, (str, int, np.integer)) or not isinstance(points, Iterable):
                    raise ValueError(f"{what}[{player!r}] must be a list of points, got {points!r}")
                for name in points:
                    x = _point(name)
                    if board[x] != K.EMPTY:
                        raise ValueError(f"point {point_name(x)} is given twice")
                    board[x] = base + p
        p = _player(to_move, "to_move")
        if (not isinstance(removed, (tuple, list)) or len(removed) != 2
                or not all(isinstance(r, (int, np.integer)) and not isinstance(r, bool)
                           and 0 <= r <= K.NUM_RINGS for r in removed)):
            raise ValueError(f"removed must be a pair (white, black) of integers 0 to {K.NUM_RINGS}, "
                             f"got {removed!r}")
        if decision is None:
            kind = None
        elif isinstance(decision, str) and decision in DECISIONS:
            kind = DECISIONS.index(decision)
        elif isinstance(decision, (int, np.integer)) and not isinstance(decision, bool) and 0 <= decision < K.NUM_KINDS:
            kind = int(decision)
        else:
            raise ValueError(f"decision must be one of {DECISIONS} (or its index), got {decision!r}")
        chosen_point = -1 if chosen is None else _point(chosen)
        data = np.zeros(K.state_size(n), dtype=np.int32)
        data[:n] = board
        m = data[n:]
        m[K.M_TO_MOVE] = p
        m[K.M_CHOSEN] = chosen_point
        m[K.M_REMOVED + WHITE], m[K.M_REMOVED + BLACK] = int(removed[0]), int(removed[1])
        m[K.M_POOL] = K.NUM_MARKERS - int(np.count_nonzero((board == K.MARKER) | (board == K.MARKER + 1)))
        rings_in_game = int(np.count_nonzero((board == K.RING) | (board == K.RING + 1))) + sum(removed)
        m[K.M_PLACED] = min(rings_in_game, 2 * K.NUM_RINGS)
        m[K.M_PASSES] = 1 if passed else 0
        m[K.M_OPP_ROWS] = 1 if opponent_rows else 0
        m[K.M_TARGET] = 1 if blitz else 3
        m[K.M_WINNER] = -1
        m[K.M_LAST_FROM] = m[K.M_LAST_TO] = -1
        K.sync_derived(data)  # the ring slots and marker bitboards, from the board
        if kind is None:
            if rings_in_game < 2 * K.NUM_RINGS:
                kind = K.KIND_PLACE
            elif chosen is not None:
                kind = K.KIND_DESTINATION
            elif K.row_owners_all(data):
                kind = K.KIND_ROW  # check_state says what is wrong if the decider has none
            else:
                problem = _check_counts(data)
                if problem is None and opponent_rows:
                    problem = "opponent_rows is set but no row of five stands on the board"
                if problem is not None:
                    raise ValueError(f"impossible YINSH position: {problem}")
                # Move or pass, as the kernels decide it; an empty pool ends the game.
                K.to_move_decision(data, p)
                if m[K.M_DONE]:
                    return cls(data=data)
                kind = int(m[K.M_KIND])
        m[K.M_KIND] = kind
        problem = check_state(data)
        if problem is not None:
            raise ValueError(f"impossible YINSH position: {problem}")
        return cls(data=data)

    @classmethod
    def from_observation(cls, planes: np.ndarray, blitz: bool | None = None) -> YinshState:
        """Rebuild the position seen in ``planes`` (int[24, 11, 11]) by the decider.

        Everything the rules depend on is recovered (pieces, decider,
        decision, chosen ring, removed rings, the order of row resolution, a
        pending pass, the variant); the counters start at 0 and the last move
        is unknown. ``blitz``, if given, must match plane 22. ValueError if
        the planes are malformed or show an impossible position.
        """
        t = tables()
        n = t.n
        flat = cls._read_planes(cls.geometry, planes, "YINSH").astype(np.int64)
        onboard = t.onboard.astype(bool)
        const = flat[:, 0]
        if not const[K.P_DECIDES]:
            raise ValueError("plane 23 is zero: these are not the planes of the player who decides "
                             "(or the game is over), so the position cannot be rebuilt from them")
        kinds = np.flatnonzero(const[K.P_KIND : K.P_KIND + K.NUM_KINDS])
        if len(kinds) != 1:
            raise ValueError(f"planes 6-11 must mark exactly one decision kind, got {len(kinds)}")
        if blitz is not None and not isinstance(blitz, (bool, np.bool_)):
            raise ValueError(f"blitz must be True, False or None, got {blitz!r}")
        if blitz is not None and bool(blitz) != bool(const[K.P_BLITZ]):
            raise ValueError(f"blitz={blitz} was given but plane 22 says blitz={bool(const[K.P_BLITZ])}")
        if (flat[:4].sum(axis=0) > 1).any():
            raise ValueError("planes 0-3 overlap: a point holds at most one piece")
        viewer = WHITE if const[K.P_WHITE] else BLACK
        removed = []
        for base in (K.P_REMOVED_OWN, K.P_REMOVED_OPP):
            levels = const[base : base + 3]
            if any(levels[i + 1] > levels[i] for i in range(2)):
                raise ValueError(f"planes {base}-{base + 2} (rings removed) must be a thermometer code")
            removed.append(int(levels.sum()))
        pool = int(flat[K.P_POOL].sum())
        if not np.array_equal(flat[K.P_POOL], _pool_plane(pool)):
            raise ValueError("plane 18 (markers in the pool) must be 1 on the first valid points only")
        chosen = np.flatnonzero(flat[5])
        data = np.zeros(K.state_size(n), dtype=np.int32)
        board = data[:n]
        board[:] = np.where(onboard, K.EMPTY, K.OFFBOARD)
        board[flat[0] == 1] = K.RING + viewer
        board[flat[1] == 1] = K.RING + 1 - viewer
        board[flat[2] == 1] = K.MARKER + viewer
        board[flat[3] == 1] = K.MARKER + 1 - viewer
        m = data[n:]
        m[K.M_TO_MOVE] = viewer
        m[K.M_KIND] = int(kinds[0])
        if len(chosen) > 1:
            raise ValueError("plane 5 (chosen ring) marks more than one point")
        m[K.M_CHOSEN] = int(chosen[0]) if len(chosen) else -1
        m[K.M_REMOVED + viewer] = removed[0]
        m[K.M_REMOVED + 1 - viewer] = removed[1]
        m[K.M_POOL] = pool
        rings_in_game = int(np.count_nonzero(flat[:2])) + sum(removed)
        m[K.M_PLACED] = min(rings_in_game, 2 * K.NUM_RINGS)
        m[K.M_PASSES] = const[K.P_PASSED]
        m[K.M_OPP_ROWS] = const[K.P_OPP_ROWS]
        m[K.M_TARGET] = 1 if const[K.P_BLITZ] else 3
        m[K.M_WINNER] = -1
        m[K.M_LAST_FROM] = m[K.M_LAST_TO] = -1
        K.sync_derived(data)  # the ring slots and marker bitboards, from the board
        problem = check_state(data)
        if problem is not None:
            raise ValueError(f"the planes show an impossible YINSH position: {problem}")
        return cls(data=data)

    def __repr__(self) -> str:
        w, b = self.rings_removed
        if self.is_terminal:
            status = "draw" if self.is_draw else f"{PLAYER_NAMES[self.winner]} won"
        else:
            status = f"{PLAYER_NAMES[self.to_move]} to {self.decision_name}"
        variant = " blitz" if self.blitz else ""
        return f"YinshState({status}, removed white {w} black {b}, pool {self.pool}{variant})"


# ---------------------------------------------------------------- points
def point_name(point: int) -> str:
    """The name of a YINSH point, e.g. ``"E5"`` (ValueError off the board)."""
    g = YinshState.geometry
    if isinstance(point, bool) or not isinstance(point, (int, np.integer)) or not (
        0 <= point < g.num_cells and g.onboard[point]
    ):
        raise ValueError(f"{point!r} is not a point of the YINSH board (valid points: {_VALID_HINT})")
    return g.label(int(point))


@lru_cache(maxsize=None)
def _point_index() -> dict[str, int]:
    g = YinshState.geometry
    return {g.label(x): int(x) for x in np.flatnonzero(g.onboard)}


def parse_point(name: str) -> int:
    """The array index of a point name such as ``"E5"`` (case-insensitive)."""
    if not isinstance(name, str):
        raise ValueError(f"a point name must be a string like 'E5', got {name!r}")
    x = _point_index().get(name.strip().upper())
    if x is None:
        raise ValueError(f"{name!r} is not a point of the YINSH board (valid points: {_VALID_HINT})")
    return x


_VALID_HINT = "columns A-K; A2-5, B1-7, C1-8, D1-9, E1-10, F2-10, G2-11, H3-11, I4-11, J5-11, K7-10"


def _point(point: int | str) -> int:
    if isinstance(point, str):
        return parse_point(point)
    point_name(point)  # validates
    return int(point)


def row_action(first: int | str, last: int | str) -> int:
    """The action removing the row of five between points ``first`` and ``last`` (either order)."""
    a, b = _point(first), _point(last)
    ends = tables().row_ends
    for d in range(3):
        if ends[d, a] == b:
            return NUM_POINTS + d * NUM_POINTS + a
        if ends[d, b] == a:
            return NUM_POINTS + d * NUM_POINTS + b
    raise ValueError(f"{point_name(a)} and {point_name(b)} are not the ends of a row of five points")


def action_kind_name(action: int) -> str:
    """What an action number is, whatever the decision, named by the board's points (no array
    indices): ``"pass"``, ``"the point E5"``, ``"the row E5-E9"``."""
    if action == PASS_ACTION:
        return "pass"
    onboard = YinshState.geometry.onboard
    if action >= NUM_POINTS:
        d, s = divmod(action - NUM_POINTS, NUM_POINTS)
        end = int(tables().row_ends[d, s]) if onboard[s] else -1
        if end < 0:
            return f"row action {action}, a row along the {DIRECTION_NAMES[d]} that does not fit on the board"
        return f"the row {point_name(s)}-{point_name(end)}"
    if not onboard[action]:
        return f"point action {action}, off the board"
    return f"the point {point_name(action)}"


def _piece_name(v: int) -> str:
    if v == K.EMPTY:
        return "empty point"
    if v == K.OFFBOARD:
        return "point off the board"
    kind = "ring" if v in (K.RING, K.RING + 1) else "marker"
    return f"{PLAYER_NAMES[(v - K.RING) % 2]} {kind}"


def _pool_plane(pool: int) -> np.ndarray:
    plane = np.zeros(NUM_POINTS, dtype=np.int64)
    plane[tables().points[:pool]] = 1
    return plane


# ---------------------------------------------------------------- validation
def _check_counts(data: np.ndarray) -> str | None:
    """The checks on pieces and counts that do not depend on the decision."""
    t = tables()
    n = t.n
    board, m = data[:n], data[n:]
    onboard = t.onboard.astype(bool)
    if (board[~onboard] != K.OFFBOARD).any():
        return "points off the board must hold the off-board value 5"
    if ((board[onboard] < K.EMPTY) | (board[onboard] > K.MARKER + 1)).any():
        return "a point holds a value other than 0 (empty), 1-2 (rings) or 3-4 (markers)"
    if m[K.M_TARGET] not in (1, 3):
        return f"the rings needed to win must be 3 (or 1 in blitz), got {m[K.M_TARGET]}"
    if m[K.M_TO_MOVE] not in (0, 1):
        return f"the decider must be 0 (white) or 1 (black), got {m[K.M_TO_MOVE]}"
    markers = int(np.count_nonzero((board == K.MARKER) | (board == K.MARKER + 1)))
    if markers > K.NUM_MARKERS:
        return f"{markers} markers on the board, but there are only {K.NUM_MARKERS}"
    if m[K.M_POOL] != K.NUM_MARKERS - markers:
        return f"the pool holds {m[K.M_POOL]} markers, but 51 - {markers} on the board = {51 - markers}"
    for p in (WHITE, BLACK):
        on = int(np.count_nonzero(board == K.RING + p))
        r = int(m[K.M_REMOVED + p])
        if not 0 <= r < m[K.M_TARGET]:
            return (f"{PLAYER_NAMES[p]} has removed {r} rings: a running game allows 0 to "
                    f"{m[K.M_TARGET] - 1}")
        if on + r > K.NUM_RINGS:
            return f"{PLAYER_NAMES[p]} has {on} rings on the board and {r} removed: more than {K.NUM_RINGS}"
    return _check_ring_slots(data)


def _check_data(data: np.ndarray) -> str | None:
    """What is wrong with state vector ``data`` (of the right shape and dtype), or None: a running
    game passes :func:`check_state`; a finished one the checks that keep compiled code in bounds."""
    n = tables().n
    m = data[n:]
    if m[K.M_DONE] == 0:
        return check_state(data)
    board = data[:n]
    onboard = tables().onboard.astype(bool)
    if m[K.M_DONE] != 1:
        return f"the game-over flag must be 0 or 1, got {m[K.M_DONE]}"
    if (board[~onboard] != K.OFFBOARD).any() or ((board[onboard] < K.EMPTY) | (board[onboard] > K.MARKER + 1)).any():
        return "a point holds a value other than 0 (empty), 1-2 (rings) or 3-4 (markers), or off-board 5"
    if m[K.M_TARGET] not in (1, 3) or m[K.M_TO_MOVE] not in (0, 1) or m[K.M_WINNER] not in (0, 1, K.DRAW):
        return "the target, the last actor or the winner of the finished game is out of range"
    if m[K.M_KIND] != K.KIND_NONE or m[K.M_CHOSEN] != -1:
        return (f"a finished game has decision kind {K.KIND_NONE} and no chosen ring (-1), "
                f"got {m[K.M_KIND]} and {m[K.M_CHOSEN]}")
    markers = int(np.count_nonzero((board == K.MARKER) | (board == K.MARKER + 1)))
    if markers > K.NUM_MARKERS or m[K.M_POOL] != K.NUM_MARKERS - markers:
        return f"the pool holds {m[K.M_POOL]} markers, but 51 - {markers} on the board = {51 - markers}"
    for p in (WHITE, BLACK):
        on = int(np.count_nonzero(board == K.RING + p))
        r = int(m[K.M_REMOVED + p])
        if not 0 <= r <= m[K.M_TARGET] or on + r > K.NUM_RINGS:
            return (f"{PLAYER_NAMES[p]} has {on} rings on the board and {r} removed: removed must be "
                    f"0 to {m[K.M_TARGET]} and the two at most {K.NUM_RINGS}")
    if not 0 <= m[K.M_PLACED] <= 2 * K.NUM_RINGS:
        return f"the rings placed must be 0 to {2 * K.NUM_RINGS}, got {m[K.M_PLACED]}"
    if m[K.M_PASSES] not in (0, 1, 2) or m[K.M_OPP_ROWS] not in (0, 1):
        return (f"passes in a row must be 0 to 2 and the opponent-rows flag 0 or 1 in a finished game, "
                f"got {m[K.M_PASSES]} and {m[K.M_OPP_ROWS]}")
    problem = _check_ring_slots(data)
    if problem is not None:
        return problem
    return _check_history(data)


def _check_ring_slots(data: np.ndarray) -> str | None:
    """The ring slots and marker bitboards of the bookkeeping must match the board."""
    board = data[:NUM_POINTS]
    slots = data[NUM_POINTS + K.M_RINGS : NUM_POINTS + K.M_RINGS + 2 * K.NUM_RINGS]
    for p in (WHITE, BLACK):
        on = np.flatnonzero(board == K.RING + p)
        want = np.full(K.NUM_RINGS, -1, dtype=np.int32)
        want[: min(len(on), K.NUM_RINGS)] = on[: K.NUM_RINGS]
        if not np.array_equal(slots[K.NUM_RINGS * p : K.NUM_RINGS * (p + 1)], want):
            return (f"the ring slots of the bookkeeping (entries {NUM_POINTS + K.M_RINGS + K.NUM_RINGS * p}.."
                    f"{NUM_POINTS + K.M_RINGS + K.NUM_RINGS * (p + 1) - 1}) must list {PLAYER_NAMES[p]}'s ring "
                    f"points ascending, then -1: expected {want.tolist()}, got "
                    f"{slots[K.NUM_RINGS * p : K.NUM_RINGS * (p + 1)].tolist()}")
    words = data[NUM_POINTS + K.M_BITS : NUM_POINTS + K.M_BITS + 8]
    want = np.zeros(8, dtype=np.int64)
    for p in (WHITE, BLACK):
        for x in np.flatnonzero(board == K.MARKER + p):
            want[4 * p + x // 32] |= 1 << (int(x) % 32)
    if not np.array_equal(words.astype(np.int64) & 0xFFFFFFFF, want):
        return (f"the marker bitboards of the bookkeeping (entries {NUM_POINTS + K.M_BITS}.."
                f"{NUM_POINTS + K.M_BITS + 7}) do not match the markers on the board")
    return None


def _check_history(data: np.ndarray) -> str | None:
    """The checks on the counters and the latest ring move, running game or finished."""
    t = tables()
    m = data[t.n :]
    if not 0 <= m[K.M_MOVES] <= m[K.M_PLY]:
        return f"the ring moves played ({m[K.M_MOVES]}) must be 0 to the decisions played ({m[K.M_PLY]})"
    a, b = int(m[K.M_LAST_FROM]), int(m[K.M_LAST_TO])
    if (a, b) != (-1, -1):
        onboard = t.onboard.astype(bool)
        if not (0 <= a < t.n and 0 <= b < t.n and a != b and onboard[a] and onboard[b]):
            return (f"the latest ring move must be two different points of the board, or (-1, -1) "
                    f"before any, got ({a}, {b})")
        if m[K.M_MOVES] == 0:
            return f"a latest ring move ({a}, {b}) is set but no ring move has been played"
    return None


def check_state(data: np.ndarray) -> str | None:
    """None if ``data`` is a running YINSH position that play can reach, else what is wrong.

    Checks the pieces and counters against the decision: the placement
    order, five rings per player after it (on the board or removed), the
    pool, no rows of five at a move decision, a row for the decider at a row
    decision, move versus pass, the chosen ring.
    """
    t = tables()
    n = t.n
    if not isinstance(data, np.ndarray) or data.shape != (K.state_size(n),) or data.dtype != np.int32:
        return f"YINSH state data must be int32[{K.state_size(n)}]"
    board, m = data[:n], data[n:]
    problem = _check_counts(data)
    if problem is not None:
        return problem
    if m[K.M_DONE] != 0 or m[K.M_WINNER] != -1:
        return "the game is over"
    p = int(m[K.M_TO_MOVE])
    who = PLAYER_NAMES[p]
    kind = int(m[K.M_KIND])
    if not 0 <= kind < K.NUM_KINDS:
        return f"the decision kind must be 0..{K.NUM_KINDS - 1}, got {kind}"
    if m[K.M_PASSES] not in (0, 1):
        return f"passes in a row must be 0 or 1 in a running game, got {m[K.M_PASSES]}"
    if m[K.M_OPP_ROWS] not in (0, 1):
        return f"the opponent-rows flag must be 0 or 1, got {m[K.M_OPP_ROWS]}"
    problem = _check_history(data)
    if problem is not None:
        return problem
    rings = [int(np.count_nonzero(board == K.RING + q)) for q in (WHITE, BLACK)]
    removed = [int(m[K.M_REMOVED + q]) for q in (WHITE, BLACK)]
    markers = K.NUM_MARKERS - int(m[K.M_POOL])
    owners = int(K.row_owners_all(data))
    if m[K.M_CHOSEN] != -1 and kind != K.KIND_DESTINATION:
        return "a ring is chosen but the decision is not its destination"
    if kind != K.KIND_ROW and kind != K.KIND_RING and m[K.M_OPP_ROWS]:
        return "the opponent-rows flag is set outside row resolution"
    if m[K.M_PASSES] and kind not in (K.KIND_MOVE, K.KIND_PASS):
        return "a pending pass outside a move decision"
    if kind == K.KIND_PLACE:
        if markers or any(removed):
            return "markers or removed rings during the placement of the rings"
        if rings[WHITE] - rings[BLACK] != p:
            return (f"with {rings[WHITE]} white and {rings[BLACK]} black rings placed it is "
                    f"{PLAYER_NAMES[rings[WHITE] - rings[BLACK]] if rings[WHITE] - rings[BLACK] in (0, 1) else 'nobody'}"
                    f"'s turn to place (white places first), not {who}'s")
        if m[K.M_PLACED] != sum(rings):
            return f"{m[K.M_PLACED]} rings placed but {sum(rings)} on the board"
        return None
    if m[K.M_PLACED] != 2 * K.NUM_RINGS:
        return "all 10 rings must be placed before the first move"
    for q in (WHITE, BLACK):
        if rings[q] + removed[q] != K.NUM_RINGS:
            return (f"{PLAYER_NAMES[q]} has {rings[q]} rings on the board and {removed[q]} removed: "
                    f"after placement they add up to {K.NUM_RINGS}")
    if kind in (K.KIND_MOVE, K.KIND_PASS, K.KIND_DESTINATION):
        if owners:
            return "a row of five stands on the board at a move decision: rows are resolved first"
        if m[K.M_POOL] == 0:
            return "the pool is empty at a move decision: the game would be over"
        movable = any(K.ring_can_move(data, x) for x in np.flatnonzero(board == K.RING + p))
        if kind == K.KIND_MOVE and not movable:
            return f"{who} has no ring that can move: the decision is 'pass'"
        if kind == K.KIND_PASS and movable:
            return f"{who} has a ring that can move, so may not pass"
        if kind == K.KIND_DESTINATION:
            x = int(m[K.M_CHOSEN])
            if not 0 <= x < n or board[x] != K.RING + p:
                return f"the chosen ring must be one of {who}'s rings"
            if m[K.M_PASSES]:
                return "a pending pass at a destination decision"
            if not K.ring_can_move(data, x):
                return f"the chosen ring on {point_name(x)} cannot move"
        return None
    # Row resolution.
    if m[K.M_PASSES]:
        return "a pending pass during row resolution"
    if m[K.M_OPP_ROWS] and owners & (1 << (1 - p)):
        return (f"{who} resolves the rows of the opponent's move, but the opponent still has a row: "
                "the mover resolves first")
    if kind == K.KIND_ROW and not owners & (1 << p):
        return f"the decision is to remove a row but {who} has no row of five"
    return None
