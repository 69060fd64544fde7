"""A frozen copy of the YINSH kernels before the speed-up of issue 38 (odd_env/core/yinsh_kernels.py at c2a5a3a), kept as the oracle of tests/test_yinsh_fast.py.

A YINSH position is one ``int32`` vector of length ``state_size(N) = N + META``
(``N = 121`` points of the 11 x 11 array of docs/rules/yinsh.md section 4), so a copy is
a single ``memcpy`` and a batch of games is one 2-d array:

* ``s[0:N]``: the board: ``EMPTY``, ``RING + p``, ``MARKER + p`` (player
  ``p``: 0 white, 1 black) or ``OFFBOARD``;
* ``s[N:N+META]``: the bookkeeping, indexed by the ``M_*`` constants.

The kernels take the board tables of :func:`odd_env.core.geometry.yinsh_board`:
``rays`` (int32[N, 6, 10]: the points along each direction until the edge;
directions 0..2 are docs/rules/yinsh.md's row directions d, direction k + 3 the opposite
of k), ``lines`` (int32[L, 11]: every line of at least five points, in row
direction ``line_dir[l]``, padded with -1) and ``points`` (the 85 on-board
indices in array order).

Every decision of docs/rules/yinsh.md section 3 is one action: :func:`apply_action`
plays it and moves the game on to the next decision (whose kind is in
``M_KIND``), :func:`legal_mask_into` writes the exact mask of that decision
and :func:`observe_into` the observation planes. The
:class:`~odd_env.core.yinsh.YinshState` wrapper, the AEC environment and the
batched engine call these same functions. With ``NUMBA_DISABLE_JIT=1`` they
run as plain Python.

Invariant: at every move decision (``KIND_MOVE``, ``KIND_PASS``,
``KIND_DESTINATION``) the board holds no row of five of either colour, since
rows are resolved as soon as a move makes them; so after a move only the
lines through the markers it changed can hold rows.
"""

from __future__ import annotations

import numpy as np
from numba import njit

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
META = 16
DRAW = 2

NUM_PLANES = 24
"""Observation planes written by :func:`observe_into` (see :mod:`odd_env.core.yinsh`)."""
P_KIND = 6  # planes P_KIND + kind: the decision kind
P_REMOVED_OWN = 12  # 3 planes: the viewer has removed >= 1, 2, 3 rings
P_REMOVED_OPP = 15  # the same for the opponent
P_POOL = 18
P_WHITE = 19
P_OPP_ROWS = 20
P_PASSED = 21
P_BLITZ = 22
P_DECIDES = 23


def state_size(n: int) -> int:
    """Length of the state vector of a board of ``n`` array points."""
    return n + META


def num_actions(n: int) -> int:
    """``4 * n + 1`` (docs/rules/yinsh.md section 4)."""
    return 4 * n + 1


@njit(cache=True)
def init_state(s, n, onboard, target):
    """Write the empty board (white to place the first ring) into ``s``."""
    for x in range(n):
        s[x] = EMPTY if onboard[x] else OFFBOARD
    for i in range(META):
        s[n + i] = 0
    s[n + M_KIND] = KIND_PLACE
    s[n + M_CHOSEN] = -1
    s[n + M_POOL] = NUM_MARKERS
    s[n + M_TARGET] = target
    s[n + M_WINNER] = -1
    s[n + M_LAST_FROM] = -1
    s[n + M_LAST_TO] = -1


@njit(cache=True, inline="always")
def is_marker(v):
    """True for a marker of either colour."""
    return v == MARKER or v == MARKER + 1


@njit(cache=True)
def can_move(s, rays, x):
    """True if the ring on ``x`` has at least one destination."""
    for k in range(rays.shape[1]):
        for i in range(rays.shape[2]):
            y = rays[x, k, i]
            if y < 0:
                break
            v = s[y]
            if v == EMPTY:  # the first empty point, before or right after a run of markers
                return True
            if v != MARKER and v != MARKER + 1:  # a ring blocks
                break
    return False


@njit(cache=True)
def destinations_into(s, rays, x, mask):
    """Set ``mask[y] = 1`` for every point the ring on ``x`` may move to; return the count.

    Along each direction: every empty point up to the first marker; past one
    unbroken run of markers, only the first point after it, if empty; never
    past or onto a ring.
    """
    count = 0
    for k in range(rays.shape[1]):
        jumped = False
        for i in range(rays.shape[2]):
            y = rays[x, k, i]
            if y < 0:
                break
            v = s[y]
            if v == EMPTY:
                mask[y] = 1
                count += 1
                if jumped:
                    break
            elif v == MARKER or v == MARKER + 1:
                jumped = True
            else:
                break
    return count


@njit(cache=True)
def rows_into(s, n, lines, line_dir, p, mask):
    """Set the row actions of player ``p``'s rows of five in ``mask``; return how many.

    A line of six markers holds two rows (two starts), and rows sharing
    markers are all listed: the player chooses.
    """
    want = MARKER + p
    count = 0
    for line in range(lines.shape[0]):
        base = n + line_dir[line] * n
        run = 0
        for k in range(lines.shape[1]):
            y = lines[line, k]
            if y < 0:
                break
            if s[y] == want:
                run += 1
                if run >= ROW_LENGTH:
                    mask[base + lines[line, k - ROW_LENGTH + 1]] = 1
                    count += 1
            else:
                run = 0
    return count


@njit(cache=True)
def row_owners(s, lines):
    """Bit p set when player p has at least one row of five on the board."""
    found = 0
    for line in range(lines.shape[0]):
        run = 0
        colour = -1
        for k in range(lines.shape[1]):
            y = lines[line, k]
            if y < 0:
                break
            v = s[y]
            if v == MARKER or v == MARKER + 1:
                if v == colour:
                    run += 1
                else:
                    colour = v
                    run = 1
                if run >= ROW_LENGTH:
                    found |= 1 << (v - MARKER)
                    if found == 3:
                        return found
            else:
                run = 0
                colour = -1
    return found


@njit(cache=True, inline="always")
def _run_along(s, rays, x, k, colour):
    """Markers of ``colour`` in an unbroken run from ``x`` (excluded) in direction ``k``."""
    c = 0
    for i in range(rays.shape[2]):
        y = rays[x, k, i]
        if y < 0 or s[y] != colour:
            break
        c += 1
    return c


@njit(cache=True)
def row_owners_through(s, rays, cells, count):
    """:func:`row_owners` restricted to rows through ``cells[:count]``.

    Exact when every other row was resolved before: a move changes only the
    markers on its own line, so its rows pass through them.
    """
    found = 0
    for j in range(count):
        x = cells[j]
        v = s[x]
        if v != MARKER and v != MARKER + 1:
            continue
        bit = 1 << (v - MARKER)
        if found & bit:
            continue
        for d in range(3):
            if 1 + _run_along(s, rays, x, d, v) + _run_along(s, rays, x, d + 3, v) >= ROW_LENGTH:
                found |= bit
                break
    return found


@njit(cache=True)
def _end_by_score(s, n):
    """The game ends (empty pool or two passes): more rings removed wins, equal draws."""
    white = s[n + M_REMOVED + WHITE]
    black = s[n + M_REMOVED + BLACK]
    s[n + M_DONE] = 1
    s[n + M_KIND] = KIND_NONE
    s[n + M_CHOSEN] = -1
    if white > black:
        s[n + M_WINNER] = WHITE
    elif black > white:
        s[n + M_WINNER] = BLACK
    else:
        s[n + M_WINNER] = DRAW


@njit(cache=True)
def _to_move_decision(s, n, rays, q):
    """Player ``q`` is about to move: end on an empty pool, else move or pass.

    Returns 1 if the game ended.
    """
    s[n + M_OPP_ROWS] = 0
    s[n + M_CHOSEN] = -1
    if s[n + M_POOL] == 0:
        _end_by_score(s, n)
        return 1
    s[n + M_TO_MOVE] = q
    ring = RING + q
    for x in range(n):
        if s[x] == ring and can_move(s, rays, x):
            s[n + M_KIND] = KIND_MOVE
            return 0
    s[n + M_KIND] = KIND_PASS
    return 0


@njit(cache=True)
def _resolve_next(s, n, rays, owners, p):
    """After ``p``'s move (or ``p``'s ring removal), who decides what next.

    ``owners`` is :func:`row_owners` of the board now. The mover resolves
    their rows first, then the opponent theirs, then the opponent moves.
    Returns 1 if the game ended.
    """
    q = 1 - p
    mover_done = s[n + M_OPP_ROWS] == 1  # p is resolving the other player's rows
    if owners & (1 << p):
        s[n + M_TO_MOVE] = p
        s[n + M_KIND] = KIND_ROW
        return 0
    if not mover_done and owners & (1 << q):
        s[n + M_TO_MOVE] = q
        s[n + M_KIND] = KIND_ROW
        s[n + M_OPP_ROWS] = 1
        return 0
    return _to_move_decision(s, n, rays, p if mover_done else q)


@njit(cache=True)
def apply_action(s, n, rays, lines, a):
    """Play action ``a`` for the player to decide; legality is the caller's.

    Returns 1 if this decision ended the game, else 0.
    """
    p = s[n + M_TO_MOVE]
    kind = s[n + M_KIND]
    s[n + M_PLY] += 1
    if kind == KIND_PLACE:
        s[a] = RING + p
        s[n + M_PLACED] += 1
        if s[n + M_PLACED] == 2 * NUM_RINGS:
            return _to_move_decision(s, n, rays, 1 - p)
        s[n + M_TO_MOVE] = 1 - p
        return 0
    if kind == KIND_MOVE:
        s[n + M_CHOSEN] = a
        s[n + M_KIND] = KIND_DESTINATION
        s[n + M_PASSES] = 0
        return 0
    if kind == KIND_DESTINATION:
        x = s[n + M_CHOSEN]
        # The direction whose ray reaches a; every point before it is empty or a marker.
        changed = np.empty(rays.shape[2] + 1, dtype=np.int32)
        changed[0] = x
        count = 1
        for k in range(rays.shape[1]):
            hit = False
            for i in range(rays.shape[2]):
                y = rays[x, k, i]
                if y < 0 or y == a:
                    hit = y == a
                    break
                if s[y] < RING or s[y] > RING + 1:  # not a ring: empty or marker
                    continue
                break
            if hit:
                for i in range(rays.shape[2]):
                    y = rays[x, k, i]
                    if y == a:
                        break
                    if s[y] != EMPTY:
                        s[y] ^= FLIP
                        changed[count] = y
                        count += 1
                break
        s[x] = MARKER + p
        s[a] = RING + p
        s[n + M_POOL] -= 1
        s[n + M_CHOSEN] = -1
        s[n + M_MOVES] += 1
        s[n + M_LAST_FROM] = x
        s[n + M_LAST_TO] = a
        owners = row_owners_through(s, rays, changed, count)
        return _resolve_next(s, n, rays, owners, p)
    if kind == KIND_ROW:
        r = a - n
        d = r // n
        x = r - d * n
        s[x] = EMPTY
        for i in range(ROW_LENGTH - 1):
            s[rays[x, d, i]] = EMPTY
        s[n + M_POOL] += ROW_LENGTH
        s[n + M_KIND] = KIND_RING
        return 0
    if kind == KIND_RING:
        s[a] = EMPTY
        s[n + M_REMOVED + p] += 1
        if s[n + M_REMOVED + p] >= s[n + M_TARGET]:
            s[n + M_DONE] = 1
            s[n + M_WINNER] = p
            s[n + M_KIND] = KIND_NONE
            return 1
        return _resolve_next(s, n, rays, row_owners(s, lines), p)
    # KIND_PASS
    s[n + M_PASSES] += 1
    if s[n + M_PASSES] >= 2:
        _end_by_score(s, n)
        return 1
    return _to_move_decision(s, n, rays, 1 - p)


@njit(cache=True)
def legal_mask_into(s, n, rays, lines, line_dir, mask):
    """Write the exact legal-action mask (int8[4n + 1]) of the decider; return the count."""
    mask[:] = 0
    if s[n + M_DONE]:
        return 0
    p = s[n + M_TO_MOVE]
    kind = s[n + M_KIND]
    count = 0
    if kind == KIND_PLACE:
        for x in range(n):
            mask[x] = s[x] == EMPTY
            count += mask[x]
    elif kind == KIND_MOVE:
        ring = RING + p
        for x in range(n):
            if s[x] == ring and can_move(s, rays, x):
                mask[x] = 1
                count += 1
    elif kind == KIND_DESTINATION:
        count = destinations_into(s, rays, s[n + M_CHOSEN], mask)
    elif kind == KIND_ROW:
        count = rows_into(s, n, lines, line_dir, p, mask)
    elif kind == KIND_RING:
        ring = RING + p
        for x in range(n):
            if s[x] == ring:
                mask[x] = 1
                count += 1
    else:  # KIND_PASS
        mask[4 * n] = 1
        count = 1
    return count


@njit(cache=True)
def observe_into(s, n, onboard, points, viewer, obs):
    """Write the planes of ``viewer`` (0 white, 1 black) into ``obs`` (int8[NUM_PLANES, n])."""
    own_ring = RING + viewer
    opp_ring = RING + 1 - viewer
    own_marker = MARKER + viewer
    opp_marker = MARKER + 1 - viewer
    # One simple loop per plane: contiguous stores that compile to vector code.
    for x in range(n):
        obs[0, x] = s[x] == own_ring
    for x in range(n):
        obs[1, x] = s[x] == opp_ring
    for x in range(n):
        obs[2, x] = s[x] == own_marker
    for x in range(n):
        obs[3, x] = s[x] == opp_marker
    for x in range(n):
        obs[4, x] = onboard[x]
    obs[5, :] = 0
    chosen = s[n + M_CHOSEN]
    if chosen >= 0:
        obs[5, chosen] = 1
    kind = s[n + M_KIND]
    for k in range(NUM_KINDS):
        obs[P_KIND + k, :] = 1 if kind == k else 0
    own_removed = s[n + M_REMOVED + viewer]
    opp_removed = s[n + M_REMOVED + 1 - viewer]
    for t in range(3):
        obs[P_REMOVED_OWN + t, :] = 1 if own_removed > t else 0
        obs[P_REMOVED_OPP + t, :] = 1 if opp_removed > t else 0
    obs[P_POOL, :] = 0
    for i in range(s[n + M_POOL]):
        obs[P_POOL, points[i]] = 1
    obs[P_WHITE, :] = 1 if viewer == WHITE else 0
    obs[P_OPP_ROWS, :] = s[n + M_OPP_ROWS]
    obs[P_PASSED, :] = 1 if s[n + M_PASSES] > 0 else 0
    obs[P_BLITZ, :] = 1 if s[n + M_TARGET] == 1 else 0
    obs[P_DECIDES, :] = 1 if s[n + M_TO_MOVE] == viewer and s[n + M_DONE] == 0 else 0


@njit(cache=True)
def legal_mask_and_observe(s, n, rays, lines, line_dir, onboard, points, viewer, mask, obs):
    """:func:`legal_mask_into` then :func:`observe_into` in one call; returns the mask count."""
    count = legal_mask_into(s, n, rays, lines, line_dir, mask)
    observe_into(s, n, onboard, points, viewer, obs)
    return count
