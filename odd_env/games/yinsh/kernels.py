"""The YINSH rules as compiled kernels over one flat int32 state vector.

A YINSH position is one ``int32`` vector of length ``STATE_SIZE = N + META``
(``N = 121`` points of the 11 x 11 array of docs/rules/yinsh.md section 4), so a copy is
a single ``memcpy`` and a batch of games is one 2-d array:

* ``s[0:N]``: the board: ``EMPTY``, ``RING + p``, ``MARKER + p`` (player
  ``p``: 0 white, 1 black) or ``OFFBOARD``;
* ``s[N:N+META]``: the bookkeeping, indexed by the ``M_*`` constants; it
  ends with two views of the board kept in step with it: each player's ring
  points (ascending, -1 padded) and each colour's marker bitboard (four
  32-bit words over the 121 array indices). Every constructor fills them
  (:func:`sync_derived`) and the validation checks them.

The layout changed with issue 38 (those two views were added, 137 -> 155
entries): state vectors saved before it do not load (``YinshState(data=...)``
and ``set_states`` refuse their length).

Every decision of docs/rules/yinsh.md section 3 is one action: :func:`apply`
plays it and moves the game on to the next decision (whose kind is in
``M_KIND``), :func:`legal_mask` writes the exact mask of that decision and
:func:`observe` the observation planes. The
:class:`~odd_env.games.yinsh.state.YinshState` wrapper, the AEC environment and the
batched engine call these same functions. With ``NUMBA_DISABLE_JIT=1`` they
run as plain Python.

The single-position API (the contract a compiled search calls)
----------------------------------------------------------------

The board tables live in this module as compiled-in constants, so these
functions take nothing but the state row (``int32[STATE_SIZE]``, C-contiguous)
and their output buffers; they are ``@njit(cache=True)`` and callable from
other numba code with no Python per node. None of them allocates except
:func:`copy`::

    s = new_state(3)                       # int32[STATE_SIZE]; 3 rings to win (1: blitz)
    t = copy(s)                            # or copy_into(s, t): one memcpy
    count = legal_mask(s, mask)            # mask: int8[NUM_ACTIONS], cleared then set
    count = legal_actions(s, actions)      # actions: int32[>= MAX_LEGAL], ascending
    count = legal_both(s, mask, actions)   # both at once
    ended = apply(s, a)                    # a legal action (unchecked); 1 if the game ended
    is_terminal(s); to_move(s); decision(s) (KIND_*, -1 once over)
    winner(s)                              # 0 white, 1 black, DRAW, -1 while running
    returns(s)                             # (white, black) floats: +1/-1, 0 on a draw / running
    observe(s, viewer, obs)                # obs: int8[NUM_PLANES, N] (or [24, 11, 11] reshaped)

``apply`` trusts its caller: an illegal action corrupts the state. One step
is one decision, so the player to move (``to_move``) can stay the same for
several plies (ring choice then destination, rows then rings).

Of the older entry points taking the tables as arguments, ``destinations_into``
remains (:meth:`YinshState.destinations` reads a ring's destinations with it).

Speed notes: the bookkeeping tells how many rings each player has on the
board, so ring scans stop after the last one; rows are found on the
marker bitboards kept in the state (two ``uint64`` words per colour over the
121 array indices, a row of five starting at bit s being bit s of
``M & M>>k & M>>2k & M>>3k & M>>4k`` for the index step ``k`` of its
direction: a few dozen branch-free operations per move), and the step path
allocates nothing.
"""

from __future__ import annotations

import numpy as np
from ..._compiling import njit

EMPTY = 0
RING = 1  # RING + p: a ring of player p (0 white, 1 black)
MARKER = 3  # MARKER + p: a marker showing player p's colour; MARKER ^ 7 flips it
OFFBOARD = 5
FLIP = 7  # (MARKER + p) ^ FLIP == MARKER + 1 - p

WHITE, BLACK = 0, 1
NUM_RINGS = 5  # per player
NUM_MARKERS = 51  # the common pool at the start
ROW_LENGTH = 5

# Decision kinds (docs/rules/yinsh.md section 3).
KIND_PLACE = 0  # place a ring on an empty point
KIND_MOVE = 1  # choose the ring to move
KIND_DESTINATION = 2  # choose where the chosen ring goes
KIND_ROW = 3  # choose a row of five to remove
KIND_RING = 4  # choose one of your rings to remove
KIND_PASS = 5  # no ring can move: pass
NUM_KINDS = 6
KIND_NONE = -1  # the game is over

M_TO_MOVE = 0  # the player who decides now (0 white, 1 black); the last actor once over
M_KIND = 1  # decision kind, KIND_NONE once over
M_CHOSEN = 2  # the chosen ring (destination decision), else -1
M_REMOVED = 3  # M_REMOVED + p: rings player p has removed
M_POOL = 5  # markers left in the pool (always 51 - markers on the board)
M_PLACED = 6  # rings placed so far (10 once placement is over)
M_PASSES = 7  # passes in a row just played (a move resets it)
M_OPP_ROWS = 8  # 1 while the decider resolves rows made by the opponent's move
M_TARGET = 9  # rings to remove to win: 3, or 1 in the blitz variant
M_DONE = 10
M_WINNER = 11  # 0 white, 1 black, DRAW, or -1 while the game runs
M_PLY = 12  # decisions played
M_MOVES = 13  # ring moves played
M_LAST_FROM = 14  # the latest ring move (from, to), or -1, -1
M_LAST_TO = 15
M_RINGS = 16  # M_RINGS + 5 * p + i: the points of player p's rings on the board, ascending, then -1
M_BITS = 26  # M_BITS + 4 * p + w: bits 32w..32w+31 of player p's marker bitboard over the 121 indices
META = M_BITS + 8  # 34
DRAW = 2

NUM_PLANES = 24
"""Observation planes written by :func:`observe` (see :mod:`odd_env.games.yinsh.state`)."""
P_KIND = 6  # planes P_KIND + kind: the decision kind
P_REMOVED_OWN = 12  # 3 planes: the viewer has removed >= 1, 2, 3 rings
P_REMOVED_OPP = 15  # the same for the opponent
P_POOL = 18
P_WHITE = 19
P_OPP_ROWS = 20
P_PASSED = 21
P_BLITZ = 22
P_DECIDES = 23

# ---------------------------------------------------------------- board tables (compiled-in constants)
def _board_tables() -> tuple[np.ndarray, np.ndarray]:
    """(onboard bool[121], rays int32[121, 6, 10]) of the YINSH board, built here so that this
    module imports nothing of the package (tests check them against ``geometry.yinsh_board``)."""
    size = 11
    rows, cols = np.indices((size, size))
    onboard = np.abs((rows - 5) + (cols - 5)) <= 5  # the base-6 hexhex array
    for r, c in ((0, 5), (0, 10), (5, 0), (5, 10), (10, 0), (10, 5)):
        onboard[r, c] = False  # without its six corners
    steps = ((-1, 0), (0, 1), (-1, 1), (1, 0), (0, -1), (1, -1))  # d = 0, 1, 2, then their opposites
    rays = np.full((size * size, 6, size - 1), -1, dtype=np.int32)
    for r in range(size):
        for c in range(size):
            if onboard[r, c]:
                for k, (dr, dc) in enumerate(steps):
                    rr, cc, i = r + dr, c + dc, 0
                    while 0 <= rr < size and 0 <= cc < size and onboard[rr, cc]:
                        rays[r * size + c, k, i] = rr * size + cc
                        rr, cc, i = rr + dr, cc + dc, i + 1
    return onboard.reshape(-1), rays


_ONBOARD_BOOL, RAYS = _board_tables()  # RAYS: int32[N, 6, 10], -1 padded
N = len(_ONBOARD_BOOL)  # 121
STATE_SIZE = N + META
NUM_ACTIONS = 4 * N + 1
PASS = 4 * N
MAX_LEGAL = 128
"""An upper bound on the legal actions of any decision (85 placements, 123 row actions at most)."""
ONBOARD = _ONBOARD_BOOL.astype(np.int8)
POINTS = np.flatnonzero(_ONBOARD_BOOL).astype(np.int32)  # the 85 valid points in array order
NUM_POINTS = len(POINTS)
_STEP = np.array([RAYS[POINTS[40], k, 0] - POINTS[40] for k in range(6)], dtype=np.int64)
assert tuple(_STEP) == (-(11), 1, -10, 11, -1, 10), _STEP
# DIRECTION[x, y] / DISTANCE[x, y]: the ray of x that reaches y and how far along, or -1 / 0.
DIRECTION = np.full((N, N), -1, dtype=np.int8)
DISTANCE = np.zeros((N, N), dtype=np.int8)
for _x in POINTS:
    for _k in range(6):
        for _i, _y in enumerate(RAYS[_x, _k]):
            if _y >= 0:
                DIRECTION[_x, _y] = _k
                DISTANCE[_x, _y] = _i + 1
# Rows of five: ROW_START[r], ROW_DIR[r] for the 123 rows that fit, in action order.
_rows = [(d, x) for d in range(3) for x in POINTS if RAYS[x, d, ROW_LENGTH - 2] >= 0]
ROW_DIR = np.array([d for d, _ in _rows], dtype=np.int64)
ROW_START = np.array([x for _, x in _rows], dtype=np.int64)
NUM_ROWS = len(_rows)
# POOL_PLANE[k]: plane 18 for a pool of k markers (1 on the first k valid points).
POOL_PLANE = np.zeros((NUM_MARKERS + 1, N), dtype=np.int8)
for _k in range(NUM_MARKERS + 1):
    POOL_PLANE[_k, POINTS[:_k]] = 1
for _a in (RAYS, ONBOARD, POINTS, DIRECTION, DISTANCE, ROW_DIR, ROW_START, POOL_PLANE):
    _a.setflags(write=False)
del _x, _k, _i, _y, _rows, _a
_U1 = np.uint64(1)
_U64 = np.uint64(64)


def state_size(n: int) -> int:
    """Length of the state vector of a board of ``n`` array points."""
    return n + META


def num_actions(n: int) -> int:
    """``4 * n + 1`` (docs/rules/yinsh.md section 4)."""
    return 4 * n + 1


# ---------------------------------------------------------------- the single-position API
@njit(cache=True)
def init(s, target):
    """Write the empty board (white to place the first ring) into ``s``; ``target``: 3, or 1 (blitz)."""
    for x in range(N):
        s[x] = EMPTY if ONBOARD[x] else OFFBOARD
    for i in range(META):
        s[N + i] = 0
    s[N + M_KIND] = KIND_PLACE
    s[N + M_CHOSEN] = -1
    s[N + M_POOL] = NUM_MARKERS
    s[N + M_TARGET] = target
    s[N + M_WINNER] = -1
    s[N + M_LAST_FROM] = -1
    s[N + M_LAST_TO] = -1
    for i in range(2 * NUM_RINGS):
        s[N + M_RINGS + i] = -1
    for i in range(8):
        s[N + M_BITS + i] = 0


@njit(cache=True)
def sync_derived(s):
    """Rewrite the ring slots and marker bitboards of ``s`` from its board (for states built point by point)."""
    for i in range(8):
        s[N + M_BITS + i] = 0
    for x in range(N):
        if s[x] == MARKER or s[x] == MARKER + 1:
            _toggle(s, s[x] - MARKER, x)
    for p in range(2):
        base = N + M_RINGS + NUM_RINGS * p
        i = 0
        for x in range(N):
            if s[x] == RING + p and i < NUM_RINGS:
                s[base + i] = x
                i += 1
        while i < NUM_RINGS:
            s[base + i] = -1
            i += 1


@njit(cache=True, inline="always")
def _toggle(s, p, x):
    """Flip bit ``x`` of colour ``p``'s marker bitboard."""
    i = N + M_BITS + 4 * p + (x >> 5)
    s[i] = np.int32(np.int64(s[i]) ^ (np.int64(1) << (x & 31)))


@njit(cache=True, inline="always")
def _toggle_if(s, p, x, on):
    """Flip bit ``x`` of colour ``p``'s marker bitboard if ``on`` (0 or 1), without a branch."""
    i = N + M_BITS + 4 * p + (x >> 5)
    s[i] = np.int32(np.int64(s[i]) ^ (np.int64(on) << (x & 31)))


@njit(cache=True, inline="always")
def _bits(s, p):
    """Colour ``p``'s marker bitboard as two uint64 words (indices 0..63, 64..127)."""
    b = N + M_BITS + 4 * p
    lo = np.uint64(np.uint32(s[b])) | (np.uint64(np.uint32(s[b + 1])) << np.uint64(32))
    hi = np.uint64(np.uint32(s[b + 2])) | (np.uint64(np.uint32(s[b + 3])) << np.uint64(32))
    return lo, hi


@njit(cache=True, inline="always")
def _ring_insert(s, p, x):
    """Add a ring of ``p`` on ``x`` to the ascending slots."""
    base = N + M_RINGS + NUM_RINGS * p
    i = NUM_RINGS - 1
    while i > 0 and (s[base + i - 1] < 0 or s[base + i - 1] > x):
        s[base + i] = s[base + i - 1]
        i -= 1
    s[base + i] = x


@njit(cache=True, inline="always")
def _ring_delete(s, p, x):
    """Remove ``p``'s ring on ``x`` from the slots."""
    base = N + M_RINGS + NUM_RINGS * p
    i = 0
    while s[base + i] != x:
        i += 1
    while i < NUM_RINGS - 1:
        s[base + i] = s[base + i + 1]
        i += 1
    s[base + NUM_RINGS - 1] = -1


@njit(cache=True, inline="always")
def _ring_move(s, p, x, a):
    """``p``'s ring moves from ``x`` to ``a``: keep the slots ascending."""
    base = N + M_RINGS + NUM_RINGS * p
    i = 0
    while s[base + i] != x:
        i += 1
    while i + 1 < NUM_RINGS and s[base + i + 1] >= 0 and s[base + i + 1] < a:
        s[base + i] = s[base + i + 1]
        i += 1
    while i > 0 and s[base + i - 1] > a:
        s[base + i] = s[base + i - 1]
        i -= 1
    s[base + i] = a


@njit(cache=True)
def new_state(target):
    """A new game (``int32[STATE_SIZE]``): 3 rings to win, or 1 in blitz."""
    s = np.empty(STATE_SIZE, dtype=np.int32)
    init(s, target)
    return s


@njit(cache=True)
def copy_into(src, dst):
    """Copy position ``src`` into ``dst`` (no allocation)."""
    for i in range(STATE_SIZE):
        dst[i] = src[i]


@njit(cache=True)
def copy(s):
    """A copy of position ``s``."""
    return s.copy()


@njit(cache=True, inline="always")
def is_terminal(s):
    """True once the game is over."""
    return s[N + M_DONE] != 0


@njit(cache=True, inline="always")
def to_move(s):
    """The player who decides now (0 white, 1 black); once over, the last to decide."""
    return s[N + M_TO_MOVE]


@njit(cache=True, inline="always")
def decision(s):
    """The kind of the current decision (``KIND_*``), ``KIND_NONE`` once over."""
    return s[N + M_KIND]


@njit(cache=True, inline="always")
def winner(s):
    """0 white, 1 black, ``DRAW``, or -1 while the game runs."""
    return s[N + M_WINNER]


@njit(cache=True)
def returns(s):
    """(white, black) rewards: +1/-1 to the winner/loser at the end, (0, 0) on a draw or before the end."""
    w = s[N + M_WINNER]
    if w == WHITE:
        return 1.0, -1.0
    if w == BLACK:
        return -1.0, 1.0
    return 0.0, 0.0


@njit(cache=True)
def ring_can_move(s, x):
    """True if the ring on ``x`` has at least one destination."""
    for k in range(6):
        for i in range(10):
            y = RAYS[x, k, i]
            if y < 0:
                break
            v = s[y]
            if v == EMPTY:  # the first empty point, before or right after a run of markers
                return True
            if v != MARKER and v != MARKER + 1:  # a ring blocks
                break
    return False


@njit(cache=True, inline="always")
def _set(mask, actions, count, a, wm, wl):
    if wm:
        mask[a] = 1
    if wl:
        actions[count] = a


@njit(cache=True, inline="always")
def _destinations(s, x, mask, actions, count, wm, wl):
    """Add the points the ring on ``x`` reaches (mask and/or list); return the new count.

    Along each direction: every empty point up to the first marker; past one
    unbroken run of markers, only the first point after it, if empty; never
    past or onto a ring. The list comes out in direction order, not ascending.
    """
    for k in range(6):
        jumped = False
        for i in range(10):
            y = RAYS[x, k, i]
            if y < 0:
                break
            v = s[y]
            if v == EMPTY:
                _set(mask, actions, count, y, wm, wl)
                count += 1
                if jumped:
                    break
            elif v == MARKER or v == MARKER + 1:
                jumped = True
            else:
                break
    return count


@njit(cache=True, inline="always")
def _shift(lo, hi, k):
    """The 128-bit value (lo, hi) shifted by ``k`` (0 < |k| < 64): left (towards higher bits) if k > 0."""
    if k > 0:
        u = np.uint64(k)
        return lo << u, (hi << u) | (lo >> (_U64 - u))
    u = np.uint64(-k)
    return (lo >> u) | (hi << (_U64 - u)), hi >> u


@njit(cache=True, inline="always")
def _row_starts(lo, hi, d):
    """Bitboard of the starts of rows of five in direction d (0, 1, 2) within markers (lo, hi).

    Bit s is set iff s, s + t, ..., s + 4t all hold a marker, t the index step
    of direction d; lines never wrap onto valid points, so no masking is needed.
    """
    t = -11 if d == 0 else (1 if d == 1 else -10)  # index step; a start s needs bits s + i*t
    rlo, rhi = lo, hi
    for i in range(1, ROW_LENGTH):
        slo, shi = _shift(lo, hi, -i * t)  # bit s of the shifted board is bit s + i*t of the board
        rlo &= slo
        rhi &= shi
    return rlo, rhi


@njit(cache=True, inline="always")
def _has_row(lo, hi):
    for d in range(3):
        rlo, rhi = _row_starts(lo, hi, d)
        if rlo | rhi:
            return True
    return False


@njit(cache=True)
def row_owners_all(s):
    """Bit p set when player p has at least one row of five anywhere on the board."""
    wlo, whi = _bits(s, WHITE)
    blo, bhi = _bits(s, BLACK)
    found = 0
    if _has_row(wlo, whi):
        found |= 1
    if _has_row(blo, bhi):
        found |= 2
    return found


@njit(cache=True, inline="always")
def _rows(s, p, mask, actions, count, wm, wl):
    """Add player ``p``'s row actions (mask and/or list, ascending); return the new count.

    A line of six markers holds two rows (two starts), and rows sharing
    markers are all listed: the player chooses.
    """
    lo, hi = _bits(s, p)
    for d in range(3):
        rlo, rhi = _row_starts(lo, hi, d)
        if (rlo | rhi) == 0:
            continue
        for x in range(N):
            bit = (rlo >> np.uint64(x)) & _U1 if x < 64 else (rhi >> np.uint64(x - 64)) & _U1
            if bit:
                _set(mask, actions, count, N + d * N + x, wm, wl)
                count += 1
    return count


@njit(cache=True, inline="always")
def _end_by_score(s):
    """The game ends (empty pool or two passes): more rings removed wins, equal draws."""
    white = s[N + M_REMOVED + WHITE]
    black = s[N + M_REMOVED + BLACK]
    s[N + M_DONE] = 1
    s[N + M_KIND] = KIND_NONE
    s[N + M_CHOSEN] = -1
    if white > black:
        s[N + M_WINNER] = WHITE
    elif black > white:
        s[N + M_WINNER] = BLACK
    else:
        s[N + M_WINNER] = DRAW


@njit(cache=True)
def to_move_decision(s, q):
    """Player ``q`` is about to move: end on an empty pool, else move or pass. Returns 1 if the game ended."""
    s[N + M_OPP_ROWS] = 0
    s[N + M_CHOSEN] = -1
    if s[N + M_POOL] == 0:
        _end_by_score(s)
        return 1
    s[N + M_TO_MOVE] = q
    base = N + M_RINGS + NUM_RINGS * q
    for i in range(NUM_RINGS):
        x = s[base + i]
        if x < 0:
            break
        if ring_can_move(s, x):
            s[N + M_KIND] = KIND_MOVE
            return 0
    s[N + M_KIND] = KIND_PASS
    return 0


@njit(cache=True, inline="always")
def _resolve_next(s, owners, p):
    """After ``p``'s move (or ``p``'s ring removal), who decides what next.

    ``owners`` says who has rows of five on the board now. The mover resolves
    their rows first, then the opponent theirs, then the opponent moves.
    Returns 1 if the game ended.
    """
    q = 1 - p
    mover_done = s[N + M_OPP_ROWS] == 1  # p is resolving the other player's rows
    if owners & (1 << p):
        s[N + M_TO_MOVE] = p
        s[N + M_KIND] = KIND_ROW
        return 0
    if not mover_done and owners & (1 << q):
        s[N + M_TO_MOVE] = q
        s[N + M_KIND] = KIND_ROW
        s[N + M_OPP_ROWS] = 1
        return 0
    return to_move_decision(s, p if mover_done else q)


@njit(cache=True)
def apply(s, a):
    """Play action ``a`` for the player to decide; legality is the caller's.

    Returns 1 if this decision ended the game, else 0.
    """
    p = s[N + M_TO_MOVE]
    kind = s[N + M_KIND]
    s[N + M_PLY] += 1
    if kind == KIND_MOVE:
        s[N + M_CHOSEN] = a
        s[N + M_KIND] = KIND_DESTINATION
        s[N + M_PASSES] = 0
        return 0
    if kind == KIND_DESTINATION:
        x = s[N + M_CHOSEN]
        k = DIRECTION[x, a]
        dist = DISTANCE[x, a]
        # Every point between x and a is empty or a marker; the markers flip (no branches).
        for i in range(dist - 1):
            y = RAYS[x, k, i]
            v = s[y]
            on = np.int64(v != EMPTY)
            s[y] = v ^ (FLIP * on)
            _toggle_if(s, WHITE, y, on)
            _toggle_if(s, BLACK, y, on)
        s[x] = MARKER + p
        _toggle(s, p, x)
        s[a] = RING + p
        _ring_move(s, p, x, a)
        s[N + M_POOL] -= 1
        s[N + M_CHOSEN] = -1
        s[N + M_MOVES] += 1
        s[N + M_LAST_FROM] = x
        s[N + M_LAST_TO] = a
        # The board held no row before the move (rows are resolved at once), so any row now is new.
        return _resolve_next(s, row_owners_all(s), p)
    if kind == KIND_PLACE:
        s[a] = RING + p
        _ring_insert(s, p, a)
        s[N + M_PLACED] += 1
        if s[N + M_PLACED] == 2 * NUM_RINGS:
            return to_move_decision(s, 1 - p)
        s[N + M_TO_MOVE] = 1 - p
        return 0
    if kind == KIND_ROW:
        r = a - N
        d = r // N
        x = r - d * N
        s[x] = EMPTY
        _toggle(s, p, x)
        for i in range(ROW_LENGTH - 1):
            y = RAYS[x, d, i]
            s[y] = EMPTY
            _toggle(s, p, y)
        s[N + M_POOL] += ROW_LENGTH
        s[N + M_KIND] = KIND_RING
        return 0
    if kind == KIND_RING:
        s[a] = EMPTY
        _ring_delete(s, p, a)
        s[N + M_REMOVED + p] += 1
        if s[N + M_REMOVED + p] >= s[N + M_TARGET]:
            s[N + M_DONE] = 1
            s[N + M_WINNER] = p
            s[N + M_KIND] = KIND_NONE
            return 1
        return _resolve_next(s, row_owners_all(s), p)
    # KIND_PASS
    s[N + M_PASSES] += 1
    if s[N + M_PASSES] >= 2:
        _end_by_score(s)
        return 1
    return to_move_decision(s, 1 - p)


@njit(cache=True, inline="always")
def _legal(s, mask, actions, wm, wl):
    """The legal actions of the decider into ``mask`` (cleared first, if ``wm``) and/or the
    list ``actions`` (if ``wl``); returns the count."""
    if wm:
        for i in range(NUM_ACTIONS):
            mask[i] = 0
    if s[N + M_DONE]:
        return 0
    p = s[N + M_TO_MOVE]
    kind = s[N + M_KIND]
    count = 0
    if kind == KIND_DESTINATION:
        return _destinations(s, s[N + M_CHOSEN], mask, actions, 0, wm, wl)
    if kind == KIND_MOVE or kind == KIND_RING:
        base = N + M_RINGS + NUM_RINGS * p
        for i in range(NUM_RINGS):
            x = s[base + i]
            if x < 0:
                break
            if kind == KIND_RING or ring_can_move(s, x):
                _set(mask, actions, count, x, wm, wl)
                count += 1
        return count
    if kind == KIND_PLACE:
        for j in range(NUM_POINTS):
            x = POINTS[j]
            if s[x] == EMPTY:
                _set(mask, actions, count, x, wm, wl)
                count += 1
        return count
    if kind == KIND_ROW:
        return _rows(s, p, mask, actions, 0, wm, wl)
    # KIND_PASS
    _set(mask, actions, 0, PASS, wm, wl)
    return 1


@njit(cache=True)
def legal_mask(s, mask):
    """Write the exact legal-action mask (int8[NUM_ACTIONS]) of the decider; return the count."""
    return _legal(s, mask, mask, True, False)


@njit(cache=True)
def legal_actions(s, actions):
    """Write the legal actions into ``actions`` (int32/int64[>= MAX_LEGAL]); return the count.

    Ascending, except at a destination decision (in direction order there).
    """
    return _legal(s, actions, actions, False, True)


@njit(cache=True)
def legal_both(s, mask, actions):
    """:func:`legal_mask` and :func:`legal_actions` in one pass; returns the count."""
    return _legal(s, mask, actions, True, True)


@njit(cache=True)
def observe(s, viewer, obs):
    """Write the planes of ``viewer`` (0 white, 1 black) into ``obs`` (int8[NUM_PLANES, N], C-contiguous)."""
    own_ring = np.int32(RING + viewer)
    opp_ring = np.int32(RING + 1 - viewer)
    own_marker = np.int32(MARKER + viewer)
    opp_marker = np.int32(MARKER + 1 - viewer)
    # One simple loop per plane over row views, constant planes as row fills: vector stores and memsets.
    o = obs[0]
    for x in range(N):
        o[x] = np.int8(s[x] == own_ring)
    o = obs[1]
    for x in range(N):
        o[x] = np.int8(s[x] == opp_ring)
    o = obs[2]
    for x in range(N):
        o[x] = np.int8(s[x] == own_marker)
    o = obs[3]
    for x in range(N):
        o[x] = np.int8(s[x] == opp_marker)
    o = obs[4]
    for x in range(N):
        o[x] = ONBOARD[x]
    o = obs[P_POOL]
    pool = s[N + M_POOL]
    for x in range(N):
        o[x] = POOL_PLANE[pool, x]
    chosen = s[N + M_CHOSEN]
    kind = s[N + M_KIND]
    own_removed = s[N + M_REMOVED + viewer]
    opp_removed = s[N + M_REMOVED + 1 - viewer]
    obs[5][:] = np.int8(0)
    if chosen >= 0:
        obs[5, chosen] = 1
    for k in range(NUM_KINDS):
        obs[P_KIND + k][:] = np.int8(kind == k)
    for t in range(3):
        obs[P_REMOVED_OWN + t][:] = np.int8(own_removed > t)
        obs[P_REMOVED_OPP + t][:] = np.int8(opp_removed > t)
    obs[P_WHITE][:] = np.int8(viewer == WHITE)
    obs[P_OPP_ROWS][:] = np.int8(s[N + M_OPP_ROWS])
    obs[P_PASSED][:] = np.int8(s[N + M_PASSES] > 0)
    obs[P_BLITZ][:] = np.int8(s[N + M_TARGET] == 1)
    obs[P_DECIDES][:] = np.int8(s[N + M_TO_MOVE] == viewer and s[N + M_DONE] == 0)


# ---------------------------------------------------------------- the older entry points (tables as arguments)
@njit(cache=True)
def destinations_into(s, rays, x, mask):
    """Set ``mask[y] = 1`` for every point the ring on ``x`` may move to; return the count."""
    return _destinations(s, x, mask, mask, 0, True, False)
