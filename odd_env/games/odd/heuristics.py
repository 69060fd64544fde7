"""Xodd and Yodd heuristics: the greedy player's compiled search, and what search takes from it.

The greedy player (:class:`agents.players.greedy.GreedyAgent`) plays the best whole turn by the group count, one turn deep.

At step 1 of a turn the greedy agent looks at every legal turn -- pass, every
one-stone turn and every two-stone turn -- and scores each by

    groups = (opponent's groups) - (own groups)    after the turn,

where *own* is the colour of the player to act. It plays a turn of the highest
score. A pass right after the opponent's pass ends the game, so it is scored
as the result: ``+WIN`` if it wins (fewer own groups), ``-WIN`` if it loses.
On Black's first turn exactly one stone is placed.

Ties (there are hundreds early in the game) are broken by the *liberty
balance* after the turn,

    liberties = (liberties of own groups) - (liberties of opponent groups),

a group's liberties being the empty cells next to it, summed group by group
(equivalently: the sum over empty cells of k_own - k_opp), and then uniformly
at random over the step sequences that remain. Many liberties of one's own
groups are future merges; the opponent's liberties are its merges. With random
tie-breaks only (``tiebreak="random"``) greedy wins only about 60-65% against
the random player on Xodd 7x7 and 9x9: it scatters opponent stones that the
opponent later joins. The liberty tie-break lifts that to about 99%.

The turn is planned whole at step 1; step 2 plays the remembered second
action. If the agent is asked to play a step 2 it did not plan (another player
made the first stone, or the position differs), it picks the best single
second action or end turn by the same score.

Nothing is recounted: a stone of colour c on cell x changes the count of c by
``1 - k`` (docs/rules/xodd_yodd.md section 2), k being the distinct groups of c around x, and
the liberty balance changes by the union of the merged groups' liberties. The
second stone's k is read from tables built once per first stone. The search is
one compiled kernel, :func:`best_turn`; it skips, by upper bounds, the second
stones (:func:`_second_stone_key`) and the first stones (:func:`_turn_bound`)
that cannot reach the best turn found so far, which never changes the choice
or the tie-breaks.
"""

from __future__ import annotations


import numpy as np
from ..._compiling import njit

from ...common.xorshift import randbelow, uniform
from . import kernels as K
from .state import GameState

WIN = 1 << 20
"""Score of a pass that ends the game with a win (``-WIN``: a loss)."""
NO_SCORES = np.empty((2, 0), dtype=np.int64)
"""Pass as ``scores`` to :func:`best_turn` / :func:`best_second` when only the best action is wanted."""


@njit(cache=True)
def _liberty_tables(t, n, nbr, rtab, kk, libcnt, liboff, libs):
    """Index the groups of board ``t`` by their liberties (adjacent empty cells).

    Fills, for every empty cell y and colour index c (0 black, 1 white),
    ``kk[c, y]``, the distinct groups of that colour around y, and
    ``rtab[y, c, :kk[c, y]]``, their roots; for every group root r, its
    liberties ``libs[liboff[r]:liboff[r] + libcnt[r]]``. Returns
    ``(L_black, L_white)``: the liberties summed over the groups of each colour.
    """
    roots = np.empty(8, dtype=np.int32)
    for x in range(n):
        libcnt[x] = 0
    lb = 0
    lw = 0
    for y in range(n):
        if t[y] != K.EMPTY:
            kk[0, y] = 0
            kk[1, y] = 0
            continue
        for c in range(2):
            k = K.adjacent_groups(t, n, nbr, y, c + 1, roots)
            kk[c, y] = k
            for i in range(k):
                rtab[y, c, i] = roots[i]
                libcnt[roots[i]] += 1
        lb += kk[0, y]
        lw += kk[1, y]
    off = 0
    for x in range(n):
        liboff[x] = off
        off += libcnt[x]
        libcnt[x] = 0
    for y in range(n):
        if t[y] != K.EMPTY:
            continue
        for c in range(2):
            for i in range(kk[c, y]):
                r = rtab[y, c, i]
                libs[liboff[r] + libcnt[r]] = y
                libcnt[r] += 1
    return lb, lw


@njit(cache=True)
def _liberty_change(t, n, nbr, y, c, rtab, kk, libcnt, liboff, libs, stamp, gen):
    """Change of (L_c, L_other) when a stone of colour index ``c`` goes on empty ``y``.

    The groups it merges become one group whose liberties are the union of
    theirs and y's empty neighbours, less y; every group of the other colour
    around y loses the liberty y. ``stamp`` marks cells seen in call ``gen``.
    """
    k = kk[c, y]
    union = 0
    before = 0
    for i in range(k):
        r = rtab[y, c, i]
        before += libcnt[r]
        for j in range(liboff[r], liboff[r] + libcnt[r]):
            z = libs[j]
            if stamp[z] != gen:
                stamp[z] = gen
                union += 1
    for j in range(nbr.shape[1]):
        z = nbr[y, j]
        if z < 0:
            break
        if t[z] == K.EMPTY and stamp[z] != gen:
            stamp[z] = gen
            union += 1
    if k > 0:
        union -= 1  # y was a liberty of every merged group
    return union - before, -kk[1 - c, y]


@njit(cache=True, inline="always")
def _offer(d, l, a1, a2, best_d, best_l, count, bf, bs, rng):
    # Lexicographic (groups, liberties); uniform over exact ties (reservoir sampling).
    if d > best_d or (d == best_d and l > best_l):
        return d, l, 1, a1, a2
    if d == best_d and l == best_l:
        count += 1
        if randbelow(rng, count) == 0:
            return d, l, count, a1, a2
        return d, l, count, bf, bs
    return best_d, best_l, count, bf, bs


@njit(cache=True, inline="always")
def _groups_after(y, c, x, rk, rset, nbr, rtab, kk, out):
    """The groups of colour index ``c`` around empty cell ``y`` once a stone of
    colour ``c`` on ``x`` has joined the groups ``rset[:rk]`` into one (id -1).

    Writes the group ids (roots, or -1) to ``out``; returns their number.
    """
    k = 0
    for i in range(kk[c, y]):
        r = rtab[y, c, i]
        for j in range(rk):
            if rset[j] == r:
                r = -1
                break
        seen = False
        for j in range(k):
            if out[j] == r:
                seen = True
                break
        if not seen:
            out[k] = r
            k += 1
    for j in range(nbr.shape[1]):
        z = nbr[y, j]
        if z < 0:
            break
        if z == x:
            seen = False
            for i in range(k):
                if out[i] == -1:
                    seen = True
                    break
            if not seen:
                out[k] = -1
                k += 1
            break
    return k


@njit(cache=True, inline="always")
def _turn_bound(s, nbr, x, c, p, rk, d1, l1, can_end, kmax, kk, liberties):
    """An upper bound (groups, liberties) of the score of every turn whose first stone,
    of colour index ``c`` on ``x``, joins ``rk`` groups and scores ``(d1, l1)``.

    The second stone on y, of colour c2, touching k2 groups of c2 (after the first
    stone) and k_other of the other colour, with nE empty neighbours besides x:
    the turn needs k2 = rk modulo 2; the groups change by k2 - 1 for the player's
    colour and 1 - k2 for the opponent's; the liberties by nE + k_other less one
    when k2 > 0 (the player's stone) and by -(nE + k_other) or at most 1 - k_other
    when k2 is 0 or 1 (the opponent's). The k2 groups, the k_other groups and the
    nE cells take distinct neighbours of y, so nE + k_other <= deg - k2; an
    opponent's stone touching no opponent group touches a group of the player
    (x's, if it is next to x) or an empty cell, so nE + k_other >= 1. The
    player's k2 is at most ``kmax``, or one more next to x when c is the player's.
    """
    deg = nbr.shape[1]
    lib = 1 if liberties else 0
    if rk % 2 == 0:  # the opponent's stone touching none of its groups
        hd = d1 + 1
        hl = l1 - lib
    else:  # the opponent's stone touching one of its groups
        hd = d1
        hl = l1 + lib
    mown = kmax
    if c == p:
        for j in range(deg):
            z = nbr[x, j]
            if z < 0:
                break
            if s[z] == K.EMPTY and kk[p, z] + 1 > mown:
                mown = kk[p, z] + 1
    k2 = mown if (mown - rk) % 2 == 0 else mown - 1  # the player's stone touching the most groups
    if k2 >= 0:
        od = d1 + k2 - 1
        ol = l1 + lib * (deg - k2 - (1 if k2 > 0 else 0))
        if od > hd or (od == hd and ol > hl):
            hd = od
            hl = ol
    if can_end and (d1 > hd or (d1 == hd and l1 > hl)):
        hd = d1
        hl = l1
    return hd, hl


KEY = 1 << 24
"""The factor of groups in a packed (groups, liberties) key: above twice any liberty balance."""


@njit(cache=True, inline="always")
def _second_stone_key(k2, k_other, nfree, own, liberties):
    """An upper bound (groups, liberties), packed, of the change of the turn's score by
    a second stone on an empty cell touching ``k2`` groups of its colour, ``k_other``
    of the other and ``nfree`` empty cells, the first stone being elsewhere.

    The player's stone (``own``): groups k2 - 1; liberties at most nfree + k_other,
    less one (the cell) when it joins groups. The opponent's: groups 1 - k2;
    liberties -(nfree + k_other) when it joins none, at most 1 - k_other when it
    joins one, unbounded when it joins more.
    """
    if own:
        groups = k2 - 1
        libs = nfree + k_other - (1 if k2 > 0 else 0)
    else:
        groups = 1 - k2
        libs = -(nfree + k_other) if k2 == 0 else (1 - k_other if k2 == 1 else KEY // 2 - 1)
    return groups * KEY + (libs if liberties else 0)


@njit(cache=True, inline="always")
def _union_liberties(ids, k, x, glist, gcnt, libcnt, liboff, libs, stamp, gen):
    """Distinct liberties (other than ``x``) of the groups ``ids[:k]`` (-1: the joined group)."""
    u = 0
    for i in range(k):
        r = ids[i]
        if r == -1:
            for j in range(gcnt):
                z = glist[j]
                if stamp[z] != gen:
                    stamp[z] = gen
                    u += 1
        else:
            for j in range(liboff[r], liboff[r] + libcnt[r]):
                z = libs[j]
                if z != x and stamp[z] != gen:
                    stamp[z] = gen
                    u += 1
    return u


@njit(cache=True)
def best_turn(s, n, nbr, rng, liberties, scores):
    """The greedy turn for the player to act in ``s`` (step 1, game running).

    ``rng`` is a uint64[1] xorshift state for the ties; ``liberties`` False
    scores every turn's liberty balance as 0 (pure random tie-breaks). Returns
    ``(first, second, groups, liberties)``: the step-1 action, the step-2
    action (``2n`` = end turn after one stone, ``-1`` = no step 2: a pass or
    Black's first stone) and the turn's score (see :class:`GreedyAgent`).

    ``scores`` is int64[2, 2n+1] or empty (shape (2, 0)). When given, it
    receives for every step-1 action the score (groups, liberties) of the best
    turn that starts with it, ``-4 * WIN`` for illegal actions.

    The liberty tables are built once, on ``s``; a first stone on x of colour
    c changes them only for the groups of c that x joins (they become one
    group, whose liberty list is built once) and for the groups of the other
    colour around x (they lose the liberty x), so the second stones are scored
    against the tables of ``s`` through that difference.
    """
    m = 2 * n
    end = 2 * n
    deg = nbr.shape[1]
    score_all = scores.shape[1] > 0
    if score_all:
        scores[:, :] = -4 * WIN
    p = s[m + K.M_TO_MOVE]
    d0 = s[m + K.M_GROUPS_BLACK + 1 - p] - s[m + K.M_GROUPS_BLACK + p]
    mask = np.empty(2 * n + 1, dtype=np.int8)
    keep = np.empty((2, n), dtype=np.int8)
    K.legal_mask_into(s, n, nbr, mask, keep)
    first_turn = s[m + K.M_STONES] == 0
    rtab = np.empty((n, 2, deg), dtype=np.int32)
    kk = np.empty((2, n), dtype=np.int32)
    libcnt = np.empty(n, dtype=np.int32)
    liboff = np.empty(n, dtype=np.int32)
    libs = np.empty(n * deg, dtype=np.int32)
    glist = np.empty(n, dtype=np.int32)
    stamp = np.zeros(n, dtype=np.int64)
    gen = 0
    lsum = _liberty_tables(s, n, nbr, rtab, kk, libcnt, liboff, libs)
    # The empty cells in order; and, for the first stone of action a, the cells
    # next to x or to a group it joins (near[y] == a + 1): only there do the
    # groups of its colour differ from kk and rtab (_groups_after).
    empties = np.empty(n, dtype=np.int32)
    ne = 0
    for y in range(n):
        if s[y] == K.EMPTY:
            empties[ne] = y
            ne += 1
    near = np.zeros(n, dtype=np.int32)
    # key[r, y, c2]: an upper bound of what a second stone of colour c2 on y adds
    # to the turn's score, (groups, liberties) packed as groups * KEY + liberties,
    # where y's groups are kk's and the first stone joins r groups (mod 2); below
    # every score where the parity forbids it (see _second_stone_key).
    key = np.full((2, n, 2), -8 * WIN * KEY, dtype=np.int64)
    kmax = 0  # the most groups of the player's colour around one empty cell
    for e in range(ne):
        y = empties[e]
        kmax = max(kmax, kk[p, y])
        nfree = 0
        for j in range(deg):
            z = nbr[y, j]
            if z < 0:
                break
            if s[z] == K.EMPTY:
                nfree += 1
        for c2 in range(2):
            k2 = kk[c2, y]
            key[k2 & 1, y, c2] = _second_stone_key(k2, kk[1 - c2, y], nfree, c2 == p, liberties)
    rset = np.empty(8, dtype=np.int32)  # groups of the first stone's colour it joins
    rbar = np.empty(8, dtype=np.int32)  # groups of the other colour it touches
    ids = np.empty(8, dtype=np.int32)
    other = np.empty(8, dtype=np.int32)
    best_d = -4 * WIN
    best_l = -4 * WIN
    count = 0
    bf = -1
    bs = -1
    if mask[end]:
        if s[m + K.M_PASSES] >= 1:  # passing ends the game
            best_d = WIN if d0 > 0 else -WIN
            best_l = 0
        else:
            best_d = d0
            best_l = (lsum[p] - lsum[1 - p]) if liberties else 0
        count = 1
        bf = end
        if score_all:
            scores[0, end] = best_d
            scores[1, end] = best_l
    for a in range(2 * n):
        if not mask[a]:
            continue
        x = a if a < n else a - n
        c = p if a < n else 1 - p
        rk = K.adjacent_groups(s, n, nbr, x, c + 1, rset)
        d = 1 - rk
        d1 = d0 - d if c == p else d0 + d
        can_end = first_turn or (d & 1) == 0
        # A second stone gains at most deg - 1 (an own stone joining deg groups).
        if d1 + deg - 1 < best_d and not score_all:
            continue
        kb = K.adjacent_groups(s, n, nbr, x, 2 - c, rbar)
        # The joined group's liberties: those of the groups it joins and x's, less x.
        gen += 1
        gcnt = 0
        before = 0
        for i in range(rk):
            r = rset[i]
            before += libcnt[r]
            for j in range(liboff[r], liboff[r] + libcnt[r]):
                z = libs[j]
                if z != x and stamp[z] != gen:
                    stamp[z] = gen
                    glist[gcnt] = z
                    gcnt += 1
        for j in range(deg):
            z = nbr[x, j]
            if z < 0:
                break
            if s[z] == K.EMPTY and stamp[z] != gen:
                stamp[z] = gen
                glist[gcnt] = z
                gcnt += 1
        for j in range(gcnt):  # glist: the joined group's liberties, which are these cells
            near[glist[j]] = a + 1
        lc = lsum[c] - before + gcnt
        lo = lsum[1 - c] - kb
        l1 = ((lc - lo) if c == p else (lo - lc)) if liberties else 0
        if not score_all and not first_turn:
            hd, hl = _turn_bound(s, nbr, x, c, p, rk, d1, l1, can_end, kmax, kk, liberties)
            if hd < best_d or (hd == best_d and hl < best_l):
                continue  # no turn that starts with a can beat or tie the best so far
        if can_end:
            best_d, best_l, count, bf, bs = _offer(
                d1, l1, a, -1 if first_turn else end, best_d, best_l, count, bf, bs, rng)
            if score_all:
                scores[0, a] = d1
                scores[1, a] = l1
        if first_turn:
            continue
        par = rk & 1
        for e in range(ne):
            y = empties[e]
            moved = near[y] == a + 1
            if not moved:  # kk holds y's groups: skip y unless a stone there can reach the best
                if score_all:
                    need = (scores[0, a] - d1) * KEY + (scores[1, a] - l1)
                else:
                    need = (best_d - d1) * KEY + (best_l - l1)
                if y == x or (key[par, y, 0] < need and key[par, y, 1] < need):
                    continue
            for c2 in range(2):
                if c2 == c and moved:
                    k2 = _groups_after(y, c, x, rk, rset, nbr, rtab, kk, ids)
                else:
                    k2 = kk[c2, y]
                d2 = 1 - k2
                if ((d + d2) & 1) != 0:
                    continue
                dd = d1 - d2 if c2 == p else d1 + d2
                if dd < (scores[0, a] if score_all else best_d):
                    continue
                if c2 == c and not moved:  # what _groups_after returns here, without its loops
                    for i in range(k2):
                        ids[i] = rtab[y, c, i]
                ll = l1
                if liberties:
                    # The liberty arithmetic of _liberty_change, written out here:
                    # calls with array arguments cost reference counting in this loop.
                    if c2 == c:
                        k_other = kk[1 - c, y]
                    else:
                        for i in range(k2):
                            ids[i] = rtab[y, c2, i]
                        k_other = _groups_after(y, c, x, rk, rset, nbr, rtab, kk, other) if moved else kk[c, y]
                    if k2 == 1:
                        # One group: y's empty neighbours that are not yet its
                        # liberties are new ones, and y is lost.
                        g1 = ids[0]
                        dl2 = -1
                        for j in range(deg):
                            z = nbr[y, j]
                            if z < 0:
                                break
                            if s[z] != K.EMPTY or z == x:
                                continue
                            lib = False
                            if g1 == -1:  # the group joined by the first stone
                                for jj in range(deg):
                                    w = nbr[z, jj]
                                    if w < 0:
                                        break
                                    if w == x:
                                        lib = True
                                        break
                                if not lib:
                                    for i in range(kk[c2, z]):
                                        r = rtab[z, c2, i]
                                        for jj in range(rk):
                                            if rset[jj] == r:
                                                lib = True
                                                break
                                        if lib:
                                            break
                            else:
                                for i in range(kk[c2, z]):
                                    if rtab[z, c2, i] == g1:
                                        lib = True
                                        break
                            if not lib:
                                dl2 += 1
                    else:
                        before2 = 0
                        for i in range(k2):
                            r = ids[i]
                            if r == -1:
                                before2 += gcnt
                                continue
                            before2 += libcnt[r]
                            if c2 != c:
                                for j in range(kb):
                                    if rbar[j] == r:
                                        before2 -= 1  # it lost the liberty x
                                        break
                        gen += 1
                        u = _union_liberties(ids, k2, x, glist, gcnt, libcnt, liboff, libs, stamp, gen)
                        for j in range(deg):
                            z = nbr[y, j]
                            if z < 0:
                                break
                            if s[z] == K.EMPTY and z != x and stamp[z] != gen:
                                stamp[z] = gen
                                u += 1
                        if k2 > 0:
                            u -= 1  # y was a liberty of every group it joins
                        dl2 = u - before2  # change of the liberties of colour c2
                    ll += (dl2 + k_other) if c2 == p else (-k_other - dl2)
                if score_all and (dd > scores[0, a] or (dd == scores[0, a] and ll > scores[1, a])):
                    scores[0, a] = dd
                    scores[1, a] = ll
                best_d, best_l, count, bf, bs = _offer(
                    dd, ll, a, y if c2 == p else n + y, best_d, best_l, count, bf, bs, rng)
    return bf, bs, best_d, best_l


@njit(cache=True)
def best_second(s, n, nbr, rng, liberties, scores):
    """The best step-2 action (a second stone or end turn) by the same score; ties at random.

    Returns ``(action, groups, liberties)``; ``scores`` as in :func:`best_turn`,
    for the step-2 actions.
    """
    m = 2 * n
    end = 2 * n
    deg = nbr.shape[1]
    p = s[m + K.M_TO_MOVE]
    d0 = s[m + K.M_GROUPS_BLACK + 1 - p] - s[m + K.M_GROUPS_BLACK + p]
    mask = np.empty(2 * n + 1, dtype=np.int8)
    keep = np.empty((2, n), dtype=np.int8)
    K.legal_mask_into(s, n, nbr, mask, keep)
    rtab = np.empty((n, 2, deg), dtype=np.int32)
    kk = np.empty((2, n), dtype=np.int32)
    libcnt = np.empty(n, dtype=np.int32)
    liboff = np.empty(n, dtype=np.int32)
    libs = np.empty(n * deg, dtype=np.int32)
    stamp = np.zeros(n, dtype=np.int64)
    lb, lw = _liberty_tables(s, n, nbr, rtab, kk, libcnt, liboff, libs)
    l0 = (lb - lw if p == 0 else lw - lb) if liberties else 0
    score_all = scores.shape[1] > 0
    if score_all:
        scores[:, :] = -4 * WIN
    best_d = -4 * WIN
    best_l = -4 * WIN
    count = 0
    choice = -1
    unused = -1
    for a in range(2 * n + 1):
        if not mask[a]:
            continue
        if a == end:
            dd = d0
            ll = l0
        else:
            y = a if a < n else a - n
            c2 = p if a < n else 1 - p
            d2 = 1 - kk[c2, y]
            dd = d0 - d2 if c2 == p else d0 + d2
            ll = l0
            if liberties:
                dl_c, dl_o = _liberty_change(s, n, nbr, y, c2, rtab, kk, libcnt, liboff, libs, stamp, a + 1)
                ll += dl_c - dl_o if c2 == p else dl_o - dl_c
        if score_all:
            scores[0, a] = dd
            scores[1, a] = ll
        best_d, best_l, count, choice, unused = _offer(
            dd, ll, a, -1, best_d, best_l, count, choice, unused, rng)
    return choice, best_d, best_l


def action_scores(state: GameState, liberties: bool = True) -> np.ndarray:
    """int64[2, 2N+1]: for each legal action, the greedy score (groups, liberties) of
    the best turn it leads to (step 1) or of the turn it completes (step 2).

    Illegal actions score ``-4 * WIN``. Used by the MCTS agent for its priors.
    """
    g = state.geometry
    n = g.num_cells
    scores = np.empty((2, 2 * n + 1), dtype=np.int64)
    rng = np.ones(1, dtype=np.uint64)
    if state.turn_step == 1:
        best_turn(state.data, n, g.neighbours, rng, liberties, scores)
    else:
        best_second(state.data, n, g.neighbours, rng, liberties, scores)
    return scores


@njit(cache=True)
def rollout(s, n, nbr, greedy, epsilon, rng):
    """Play state ``s`` to the end in place; return the winner (0 black, 1 white).

    ``greedy`` False: uniform random steps. True: greedy turns
    (:func:`best_turn`), each step replaced by a uniformly random
    one with probability ``epsilon``.
    """
    m = 2 * n
    mask = np.empty(2 * n + 1, dtype=np.int8)
    keep = np.empty((2, n), dtype=np.int8)
    no_scores = np.empty((2, 0), dtype=np.int64)
    while s[m + K.M_DONE] == 0:
        if not greedy or uniform(rng) < epsilon:
            count = K.legal_mask_into(s, n, nbr, mask, keep)
            r = randbelow(rng, count)
            for a in range(2 * n + 1):
                if mask[a]:
                    if r == 0:
                        K.apply_action(s, n, nbr, a)
                        break
                    r -= 1
        elif s[m + K.M_STEP] == 0:
            first, second, _, _ = best_turn(s, n, nbr, rng, True, no_scores)
            K.apply_action(s, n, nbr, first)
            if second >= 0 and s[m + K.M_DONE] == 0:
                K.apply_action(s, n, nbr, second)
        else:
            a, _, _ = best_second(s, n, nbr, rng, True, no_scores)
            K.apply_action(s, n, nbr, a)
    return s[m + K.M_WINNER]


class OddHeuristics:
    """Xodd and Yodd's knowledge for search (:class:`odd_env.game.Heuristics`): greedy priors and
    compiled rollouts on the flat state, the winning pass, and the group balance."""

    greedy = True

    def rollout(self, position: GameState, rng_state: np.ndarray, greedy: bool, epsilon: float) -> int:
        """Play a copy of ``position`` to the end (compiled); return the winner (0 black, 1 white)."""
        g = position.geometry
        return int(rollout(position.data.copy(), g.num_cells, g.neighbours, greedy, epsilon, rng_state))

    def prior_scores(self, position: GameState, actions: np.ndarray) -> np.ndarray:
        """The greedy score of the best turn through each action: groups, with the liberty balance
        scaled below one group to order turns of equal group score."""
        scores = action_scores(position)[:, actions].astype(np.float64)
        groups = np.clip(scores[0], -2 * WIN, 2 * WIN)
        libs = scores[1]
        spread = max(1.0, float(libs.max() - libs.min()))
        return groups + 0.5 * (libs - libs.min()) / spread

    def decided_action(self, position: GameState) -> int | None:
        """A pass that ends the game with a win (it needs no search), or None."""
        if position.consecutive_passes >= 1 and position.turn_step == 1:
            b, w = position.group_counts
            if (b < w) == (position.to_move == 0):
                return 2 * position.geometry.num_cells
        return None

    def balance(self, position: GameState) -> float:
        """Opponent's groups minus own groups, for the player to act."""
        black, white = position.group_counts
        return float(white - black) if position.to_move == 0 else float(black - white)


HEURISTICS = OddHeuristics()
"""The one instance the games' :attr:`~odd_env.game.Game.heuristics` hold."""
