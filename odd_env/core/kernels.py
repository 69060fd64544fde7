"""The rules as compiled kernels over one flat int32 state vector.

Every game state, scalar or batched, is one ``int32`` vector of length
``2 * N + META`` (``N = H * W``), so a copy is a single ``memcpy``:

* ``s[0:N]``: the board: ``EMPTY``, ``BLACK``, ``WHITE`` or ``OFFBOARD``;
* ``s[N:2N]``: a union-find forest over the stones; a root holds ``-size``
  of its group, any other stone the index of its parent (union by size keeps
  trees shallow, so read-only finds need no path compression);
* ``s[2N:]``: the turn bookkeeping, indexed by the ``M_*`` constants.

The :class:`~odd_env.core.state.GameState` wrapper and the batched engine call
these same functions, so there is one implementation of the rules. Every
kernel is compiled with Numba (``cache=True``); with ``NUMBA_DISABLE_JIT=1``
they run as plain Python.

Group bookkeeping is incremental: placing a stone unions it with the distinct
groups of its colour around it, and the group count of that colour changes by
``1 - k`` (RULES.md section 2). Nothing is ever recounted.
"""

from __future__ import annotations

import numpy as np
from numba import njit

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
META = 12

NUM_PLANES = 12
"""Observation planes written by :func:`observe_into` (see odd_env.core.state)."""


@njit(cache=True)
def init_state(s, n, onboard):
    """Write the empty board into state ``s`` (length ``2n + META``)."""
    for x in range(n):
        s[x] = EMPTY if onboard[x] else OFFBOARD
        s[n + x] = -1
    m = 2 * n
    for i in range(META):
        s[m + i] = 0
    s[m + M_FIRST_STONE] = -1
    s[m + M_WINNER] = -1
    cnt = 0
    for x in range(n):
        if onboard[x]:
            cnt += 1
    s[m + M_EMPTY] = cnt


@njit(cache=True, inline="always")
def find(s, n, x):
    """Root of the group of stone ``x`` (read-only)."""
    while s[n + x] >= 0:
        x = s[n + x]
    return x


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


@njit(cache=True)
def place(s, n, nbr, x, colour):
    """Put a stone of ``colour`` on empty cell ``x``; return k (groups merged)."""
    roots = np.empty(8, dtype=np.int32)
    k = adjacent_groups(s, n, nbr, x, colour, roots)
    s[x] = colour
    root = x
    s[n + x] = -1
    for i in range(k):
        r = roots[i]
        if s[n + r] < s[n + root]:  # r is the larger group: it becomes the root
            s[n + r] += s[n + root]
            s[n + root] = r
            root = r
        else:
            s[n + root] += s[n + r]
            s[n + r] = root
    m = 2 * n
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
    local = np.empty(8, dtype=np.int32)
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

    ``mask`` is int8[2n + 1] in the relative encoding of RULES.md section 5.
    ``keep`` (int8[2, n]) receives, per colour (0 black, 1 white) and empty
    cell, 1 if a stone there keeps parity (k odd), else 0; non-empty cells 0.
    Returns the number of legal actions.
    """
    m = 2 * n
    roots = np.empty(8, dtype=np.int32)
    for i in range(2 * n + 1):
        mask[i] = 0
    # One find per stone, then one pass over each empty cell's neighbours.
    root = np.empty(n, dtype=np.int32)
    for x in range(n):
        if s[x] == BLACK or s[x] == WHITE:
            root[x] = find(s, n, x)
    flips_b = 0
    flips_w = 0
    for x in range(n):
        if s[x] != EMPTY:
            keep[0, x] = 0
            keep[1, x] = 0
            continue
        kb = 0
        kw = 0
        for j in range(nbr.shape[1]):
            y = nbr[x, j]
            if y < 0:
                break
            v = s[y]
            if v == BLACK or v == WHITE:
                r = root[y]
                seen = False
                for i in range(kb + kw):
                    if roots[i] == r:
                        seen = True
                        break
                if not seen:
                    roots[kb + kw] = r
                    if v == BLACK:
                        kb += 1
                    else:
                        kw += 1
        keep[0, x] = kb & 1
        keep[1, x] = kw & 1
        flips_b += 1 - (kb & 1)
        flips_w += 1 - (kw & 1)
    if s[m + M_DONE]:
        return 0
    p = s[m + M_TO_MOVE]
    own = p + 1
    total_odd = (s[m + M_GROUPS_BLACK] + s[m + M_GROUPS_WHITE]) & 1
    count = 0
    if s[m + M_STEP] == 1:
        mask[2 * n] = total_odd
        count += total_odd
        want = total_odd  # a second stone must keep an odd total odd, flip an even one
        for x in range(n):
            if s[x] == EMPTY:
                for c in range(2):
                    if keep[c, x] == want:
                        rel = 0 if c + 1 == own else n
                        mask[rel + x] = 1
                        count += 1
        return count
    if s[m + M_STONES] == 0:  # Black's first turn: any empty cell, either colour
        for x in range(n):
            if s[x] == EMPTY:
                mask[x] = 1
                mask[n + x] = 1
                count += 2
        return count
    mask[2 * n] = 1
    count += 1
    for x in range(n):
        if s[x] != EMPTY:
            continue
        for c in range(2):
            ok = keep[c, x]
            if not ok:
                # A flipping first stone needs a flipping second stone. One of
                # the other colour on any other cell is unaffected by x.
                other_flips = flips_w if c == 0 else flips_b
                other_flips -= 1 - keep[1 - c, x]
                if other_flips > 0:
                    ok = 1
                elif _flip_exists_after(s, n, nbr, x, c + 1, roots):
                    ok = 1
            if ok:
                rel = 0 if c + 1 == own else n
                mask[rel + x] = 1
                count += 1
    return count


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
    step2 = s[m + M_STEP]
    is_black = 1 if viewer == 0 else 0
    acting = s[m + M_TO_MOVE] == viewer
    first = s[m + M_FIRST_STONE]
    passed = 1 if s[m + M_PASSES] > 0 else 0
    for x in range(n):
        v = s[x]
        obs[0, x] = v == own
        obs[1, x] = v == 3 - own
        obs[2, x] = v == EMPTY
        obs[3, x] = onboard[x]
        obs[4, x] = x == first
        obs[5, x] = step2
        obs[6, x] = is_black
        obs[7, x] = keep[viewer, x]
        obs[8, x] = keep[1 - viewer, x]
        if acting:
            obs[9, x] = mask[x]
            obs[10, x] = mask[n + x]
        else:
            obs[9, x] = 0
            obs[10, x] = 0
        obs[11, x] = passed


@njit(cache=True)
def legal_mask_and_observe(s, n, nbr, onboard, viewer, mask, keep, obs):
    """:func:`legal_mask_into` then :func:`observe_into` in one call."""
    count = legal_mask_into(s, n, nbr, mask, keep)
    observe_into(s, n, onboard, viewer, keep, mask, obs)
    return count
