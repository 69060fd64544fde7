"""The rules as compiled kernels over one flat int32 state vector.

Every game state, scalar or batched, is one ``int32`` vector of length
``state_size(N) = 3 * N + META`` (``N = H * W``), so a copy is a single
``memcpy``:

* ``s[0:N]``: the board: ``EMPTY``, ``BLACK``, ``WHITE`` or ``OFFBOARD``;
* ``s[N:2N]``: the groups as a flat union-find: a root holds ``-size`` of its
  group, every other stone the index of its root (merges relabel the smaller
  groups, so a find is one load);
* ``s[2N:2N+META]``: the turn bookkeeping, indexed by the ``M_*`` constants;
* ``s[2N+META:3N+META]``: per empty cell, the parity of k for each colour
  (bit 0 black, bit 1 white: 1 when a stone there keeps parity), kept up to
  date on every placement, with the number of parity-flipping cells of each
  colour in ``M_FLIPS_BLACK`` / ``M_FLIPS_WHITE``.

The :class:`~odd_env.games.odd.state.GameState` wrapper and the batched engine call
these same functions, so there is one implementation of the rules. Every
kernel is compiled with Numba (``cache=True``); with ``NUMBA_DISABLE_JIT=1``
they run as plain Python.

Bookkeeping is incremental: placing a stone unions it with the distinct
groups of its colour around it, the group count of that colour changes by
``1 - k`` (docs/rules/xodd_yodd.md section 2), and k changes only for that colour and only
on cells next to the stone or to the groups it merged (docs/rules/xodd_yodd.md section 3),
so only those cells' parity bits are refreshed. Nothing is ever recounted.
"""

from __future__ import annotations

import numpy as np
from ..._compiling import njit, stack_buffer

EMPTY, BLACK, WHITE, OFFBOARD = 0, 1, 2, 3

M_TO_MOVE = 0  # player to act: 0 black, 1 white
M_STEP = 1  # 0: first step of a turn, 1: second step
M_GROUPS_BLACK = 2
M_GROUPS_WHITE = 3
M_PASSES = 4  # consecutive passes so far
M_FIRST_STONE = 5  # cell of the stone placed in step 1 of this turn, or -1
M_DONE = 6
M_WINNER = 7  # 0 black, 1 white, -1 while the game runs
M_EMPTY = 8  # empty on-board cells
M_STONES = 9  # stones on the board (0 means Black's first turn)
M_PLY = 10  # environment steps played
M_TURN = 11  # turns completed
M_FLIPS_BLACK = 12  # empty cells where a black stone flips parity (k even)
M_FLIPS_WHITE = 13  # the same for white
META = 14


MAX_CELLS = 23 * 23
"""The most array cells of any board (Yodd base 12): the size of the kernels' scratch on the stack."""
_roots_buffer = stack_buffer(np.int32, 8)  # distinct group roots around a cell (at most 6)
_cells_buffer = stack_buffer(np.int32, MAX_CELLS)


def state_size(n: int) -> int:
    """Length of the state vector of a board with ``n = H * W`` array cells."""
    return 3 * n + META

NUM_PLANES = 12
"""Observation planes written by :func:`observe_into` (see odd_env.games.odd.state)."""


@njit(cache=True)
def init_state(s, n, onboard):
    """Write the empty board into state ``s`` (length ``state_size(n)``)."""
    m = 2 * n
    kb = m + META
    cnt = 0
    for x in range(n):
        s[x] = EMPTY if onboard[x] else OFFBOARD
        s[n + x] = -1
        s[kb + x] = 0
        cnt += onboard[x]
    for i in range(META):
        s[m + i] = 0
    s[m + M_FIRST_STONE] = -1
    s[m + M_WINNER] = -1
    s[m + M_EMPTY] = cnt
    s[m + M_FLIPS_BLACK] = cnt
    s[m + M_FLIPS_WHITE] = cnt


@njit(cache=True, inline="always")
def find(s, n, x):
    """Root of the group of stone ``x`` (an empty cell is its own root)."""
    p = s[n + x]
    return x if p < 0 else p


@njit(cache=True, inline="always")
def adjacent_groups(s, n, nbr, x, colour, roots):
    """Number k of distinct groups of ``colour`` adjacent to cell ``x``.

    Their roots are written to ``roots[:k]``.
    """
    k = 0
    for j in range(nbr.shape[1]):
        y = nbr[x, j]
        if y < 0:
            break
        if s[y] == colour:
            r = find(s, n, y)
            seen = False
            for i in range(k):
                if roots[i] == r:
                    seen = True
                    break
            if not seen:
                roots[k] = r
                k += 1
    return k


@njit(cache=True, inline="always")
def _refresh_parity(s, n, nbr, y, colour, roots):
    """Recompute the parity bit of ``colour`` on empty cell ``y`` (idempotent)."""
    bit = colour - 1
    kb = 2 * n + META + y
    new = adjacent_groups(s, n, nbr, y, colour, roots) & 1
    old = (s[kb] >> bit) & 1
    s[kb] ^= (old ^ new) << bit
    s[2 * n + M_FLIPS_BLACK + bit] += old - new


@njit(cache=True, inline="always")
def _refresh_around(s, n, nbr, y, colour, roots):
    """Refresh the parity bit of ``colour`` on every empty neighbour of ``y``."""
    for j in range(nbr.shape[1]):
        z = nbr[y, j]
        if z < 0:
            break
        if s[z] == EMPTY:
            _refresh_parity(s, n, nbr, z, colour, roots)


@njit(cache=True)
def place(s, n, nbr, x, colour):
    """Put a stone of ``colour`` on empty cell ``x``; return k (groups merged)."""
    m = 2 * n
    roots = _roots_buffer()
    k = adjacent_groups(s, n, nbr, x, colour, roots)
    bits = s[m + META + x]  # x leaves the empty cells
    s[m + M_FLIPS_BLACK] -= 1 - (bits & 1)
    s[m + M_FLIPS_WHITE] -= 1 - ((bits >> 1) & 1)
    s[m + META + x] = 0
    s[x] = colour
    if k == 0:
        s[n + x] = -1
    else:
        big = roots[0]
        size = 1 - s[n + big]
        for i in range(1, k):
            r = roots[i]
            size -= s[n + r]
            if s[n + r] < s[n + big]:
                big = r
        s[n + x] = big
        s[n + big] = -size
        if k > 1:
            # Relabel the smaller groups (small-to-large keeps this cheap);
            # only their empty neighbours, and x's, can now see two merged
            # groups as one.
            members = _cells_buffer()
            tail = 0
            for i in range(k):
                r = roots[i]
                if r == big:
                    continue
                head = tail
                members[tail] = r
                tail += 1
                s[n + r] = big
                while head < tail:
                    y = members[head]
                    head += 1
                    for j in range(nbr.shape[1]):
                        z = nbr[y, j]
                        if z < 0:
                            break
                        if s[z] == colour and s[n + z] == r:
                            s[n + z] = big
                            members[tail] = z
                            tail += 1
            for i in range(tail):
                _refresh_around(s, n, nbr, members[i], colour, roots)
    _refresh_around(s, n, nbr, x, colour, roots)
    s[m + M_GROUPS_BLACK + colour - 1] += 1 - k
    s[m + M_EMPTY] -= 1
    s[m + M_STONES] += 1
    return k


@njit(cache=True)
def _flip_exists_after(s, n, nbr, x, colour, roots):
    """Exact look-ahead: after ``colour`` at ``x``, is there a parity-flipping
    stone of ``colour`` on some other empty cell?

    The caller has already checked the other colour, whose groups ``x`` does
    not touch. Groups merged by ``x`` (roots given) count as one, with ``x``.
    """
    k0 = adjacent_groups(s, n, nbr, x, colour, roots)
    local = _roots_buffer()
    for y in range(n):
        if s[y] != EMPTY or y == x:
            continue
        k = 0
        for j in range(nbr.shape[1]):
            z = nbr[y, j]
            if z < 0:
                break
            if z == x:
                r = -2
            elif s[z] == colour:
                r = find(s, n, z)
                for i in range(k0):
                    if roots[i] == r:
                        r = -2
                        break
            else:
                continue
            seen = False
            for i in range(k):
                if local[i] == r:
                    seen = True
                    break
            if not seen:
                local[k] = r
                k += 1
        if k % 2 == 0:
            return True
    return False


@njit(cache=True)
def legal_mask_into(s, n, nbr, mask, keep):
    """Write the exact legal-action mask of the player to act into ``mask``.

    ``mask`` is int8[2n + 1] in the relative encoding of docs/rules/xodd_yodd.md section 5.
    ``keep`` (int8[2, n]) receives, per colour (0 black, 1 white) and empty
    cell, 1 if a stone there keeps parity (k odd), else 0; non-empty cells 0.
    Returns the number of legal actions.
    """
    kb = 2 * n + META
    for x in range(n):
        keep[0, x] = s[kb + x] & 1
    for x in range(n):
        keep[1, x] = (s[kb + x] >> 1) & 1
    return legal_mask(s, n, nbr, mask)


@njit(cache=True)
def legal_mask(s, n, nbr, mask):
    """:func:`legal_mask_into` without the parity planes; allocates nothing."""
    m = 2 * n
    kb = m + META
    flips_b = s[m + M_FLIPS_BLACK]
    flips_w = s[m + M_FLIPS_WHITE]
    mask[2 * n] = 0
    if s[m + M_DONE]:
        for x in range(2 * n):
            mask[x] = 0
        return 0
    own = s[m + M_TO_MOVE]  # colour index (0 black, 1 white) of the "own" actions
    opp = 1 - own
    if s[m + M_STEP] == 1:
        # A second stone must keep an odd total odd, or flip an even one back.
        want = (s[m + M_GROUPS_BLACK] + s[m + M_GROUPS_WHITE]) & 1
        mask[2 * n] = want
        for x in range(n):
            mask[x] = (((s[kb + x] >> own) & 1) == want) & (s[x] == EMPTY)
        for x in range(n):
            mask[n + x] = (((s[kb + x] >> opp) & 1) == want) & (s[x] == EMPTY)
        return _count(mask)
    first_turn = s[m + M_STONES] == 0  # Black's first turn: any empty cell, no pass
    mask[2 * n] = not first_turn
    if first_turn or (flips_b >= 2 and flips_w >= 2):
        # Every stone is legal: a flipping one can be answered by a flipping
        # stone of the other colour on another cell (x does not change those).
        for x in range(n):
            mask[x] = s[x] == EMPTY
        for x in range(n):
            mask[n + x] = s[x] == EMPTY
        return _count(mask)
    roots = _roots_buffer()
    for x in range(n):
        empty = s[x] == EMPTY
        keep_b = s[kb + x] & 1
        keep_w = (s[kb + x] >> 1) & 1
        # A flipping first stone needs a flipping second stone. One of the
        # other colour on any other cell is unaffected by x.
        ok_b = (keep_b | ((flips_w - ((1 - keep_w) & empty)) > 0)) & empty
        ok_w = (keep_w | ((flips_b - ((1 - keep_b) & empty)) > 0)) & empty
        if empty and not ok_b:
            ok_b = _flip_exists_after(s, n, nbr, x, BLACK, roots)
        if empty and not ok_w:
            ok_w = _flip_exists_after(s, n, nbr, x, WHITE, roots)
        if own == 0:
            mask[x] = ok_b
            mask[n + x] = ok_w
        else:
            mask[x] = ok_w
            mask[n + x] = ok_b
    return _count(mask)


@njit(cache=True, inline="always")
def _count(mask):
    c = 0
    for i in range(mask.shape[0]):
        c += int(mask[i])  # int: as plain Python (NUMBA_DISABLE_JIT=1) an int8 sum would wrap at 127
    return c


@njit(cache=True)
def apply_action(s, n, nbr, a):
    """Play relative action ``a`` for the player to act; legality is the caller's.

    Returns 1 if this step ended the game, else 0.
    """
    m = 2 * n
    p = s[m + M_TO_MOVE]
    s[m + M_PLY] += 1
    if a == 2 * n:
        if s[m + M_STEP] == 0:  # pass
            s[m + M_PASSES] += 1
            s[m + M_TURN] += 1
            if s[m + M_PASSES] >= 2:
                s[m + M_DONE] = 1
                black_fewer = s[m + M_GROUPS_BLACK] < s[m + M_GROUPS_WHITE]
                s[m + M_WINNER] = 0 if black_fewer else 1
                return 1
        else:  # end turn after one stone
            s[m + M_STEP] = 0
            s[m + M_FIRST_STONE] = -1
            s[m + M_TURN] += 1
        s[m + M_TO_MOVE] = 1 - p
        return 0
    x = a if a < n else a - n
    colour = p + 1 if a < n else 2 - p
    first_turn = s[m + M_STONES] == 0
    place(s, n, nbr, x, colour)
    s[m + M_PASSES] = 0
    if s[m + M_STEP] == 0 and not first_turn:
        s[m + M_STEP] = 1
        s[m + M_FIRST_STONE] = x
        return 0
    s[m + M_STEP] = 0
    s[m + M_FIRST_STONE] = -1
    s[m + M_TURN] += 1
    s[m + M_TO_MOVE] = 1 - p
    return 0


@njit(cache=True)
def observe_into(s, n, onboard, viewer, keep, mask, obs):
    """Write the observation planes of ``viewer`` (0 black, 1 white) into ``obs``.

    ``obs`` is int8[NUM_PLANES, n] (a flat view of (C, H, W)); ``keep`` and
    ``mask`` are the outputs of :func:`legal_mask_into` for this state (the
    mask planes are zero unless ``viewer`` is the player to act).
    """
    m = 2 * n
    own = viewer + 1
    opp = 2 - viewer
    first = s[m + M_FIRST_STONE]
    step2 = s[m + M_STEP]
    is_black = 1 if viewer == 0 else 0
    acting = s[m + M_TO_MOVE] == viewer
    passed = 1 if s[m + M_PASSES] > 0 else 0
    # One simple loop per plane: contiguous stores that compile to vector code.
    for x in range(n):
        obs[0, x] = s[x] == own
    for x in range(n):
        obs[1, x] = s[x] == opp
    for x in range(n):
        obs[2, x] = s[x] == EMPTY
    for x in range(n):
        obs[3, x] = onboard[x]
    for x in range(n):
        obs[4, x] = 0
    if first >= 0:
        obs[4, first] = 1
    obs[5, :] = step2
    obs[6, :] = is_black
    for x in range(n):
        obs[7, x] = keep[viewer, x]
    for x in range(n):
        obs[8, x] = keep[1 - viewer, x]
    if acting:
        for x in range(n):
            obs[9, x] = mask[x]
        for x in range(n):
            obs[10, x] = mask[n + x]
    else:
        obs[9, :] = 0
        obs[10, :] = 0
    obs[11, :] = passed


@njit(cache=True)
def legal_mask_and_observe(s, n, nbr, onboard, viewer, mask, keep, obs):
    """:func:`legal_mask_into` then :func:`observe_into` in one call."""
    count = legal_mask_into(s, n, nbr, mask, keep)
    observe_into(s, n, onboard, viewer, keep, mask, obs)
    return count
