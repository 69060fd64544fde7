"""The search kernel of the exact solver (:mod:`odd_env.games.odd.solver`), compiled: the decisions of a
node in their order (:func:`root_order`) and the iterative AND/OR negamax over them (:func:`search`), with
the transposition table of :mod:`odd_env.games.odd.solver_table`; the module docstring of
:mod:`odd_env.games.odd.solver` says how it searches.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .solver_bits import _bitindex, _kgroups, _lowbit, _popcount
from .solver_table import (
    DEAD, LOSS, S_ABORT, S_ETC, S_ETC_CUTS, S_HITS, S_LIMIT, S_MAXPLY, S_NODES, S_WEIGHT, WIN, _child_key,
    _copy_hash, _log2work, _push_hash, canon, tt_probe, tt_store,
)


@njit(cache=True, inline="always")
def _gen(p, b, w, gb, gw, tomove, step, passes, onb, nbm, lsh, lpm, rsh, rpm, mv, sc, hist, W):
    """The decisions of a node into ``mv[p]``, best first; returns their number."""
    n = nbm.shape[0]
    PASS = 2 * n
    if tomove == 0:
        own = b
        gown = gb
        gopp = gw
    else:
        own = w
        gown = gw
        gopp = gb
    occ = b | w
    opp = occ & ~own
    empty = onb & ~occ
    first = occ == 0
    cnt = 0
    if step == 0:
        if not first:  # after a pass, passing ends the game: a loss here (a win was caught on entry)
            mv[p, cnt] = PASS
            sc[p, cnt] = (-100 if passes else (4 if gown < gopp else -4)) * W + hist[0, PASS]
            cnt += 1
        rest = empty
        while rest:
            bit = _lowbit(rest)
            rest &= ~bit
            x = _bitindex(bit)
            ko = _kgroups(own, x, nbm, lsh, lpm, rsh, rpm)
            kp = _kgroups(opp, x, nbm, lsh, lpm, rsh, rpm)
            mv[p, cnt] = x
            sc[p, cnt] = (ko - 1) * W + hist[0, x] + _popcount(nbm[x])
            cnt += 1
            mv[p, cnt] = n + x
            sc[p, cnt] = (1 - kp) * W + hist[0, n + x] + _popcount(nbm[x])
            cnt += 1
    else:
        odd = (gb + gw) & 1
        if odd:
            mv[p, cnt] = PASS
            sc[p, cnt] = hist[1, PASS]
            cnt += 1
        rest = empty
        while rest:
            bit = _lowbit(rest)
            rest &= ~bit
            x = _bitindex(bit)
            ko = _kgroups(own, x, nbm, lsh, lpm, rsh, rpm)
            if (ko & 1) == odd:  # keeps an odd total odd, or flips an even one back
                mv[p, cnt] = x
                sc[p, cnt] = (ko - 1) * W + hist[1, x]
                cnt += 1
            kp = _kgroups(opp, x, nbm, lsh, lpm, rsh, rpm)
            if (kp & 1) == odd:
                mv[p, cnt] = n + x
                sc[p, cnt] = (1 - kp) * W + hist[1, n + x]
                cnt += 1
    for i in range(1, cnt):  # insertion sort, best first
        m = mv[p, i]
        s = sc[p, i]
        k = i - 1
        while k >= 0 and sc[p, k] < s:
            mv[p, k + 1] = mv[p, k]
            sc[p, k + 1] = sc[p, k]
            k -= 1
        mv[p, k + 1] = m
        sc[p, k + 1] = s
    return cnt



@njit(cache=True)
def root_order(b, w, gb, gw, tomove, step, passes, onb, nbm, lsh, lpm, rsh, rpm, mv, sc, hist, W):
    """The decisions of a node in the kernel's order (the root's order in :meth:`Solver.solve`)."""
    cnt = _gen(0, b, w, gb, gw, tomove, step, passes, onb, nbm, lsh, lpm, rsh, rpm, mv, sc, hist, W)
    return mv[0, :cnt].copy()


# frame fields (int64 F[p, :])
F_GB, F_GW, F_TM, F_STEP, F_PASS, F_CNT, F_IDX, F_RES, F_BEST, F_N0, F_J, F_SAME = range(12)
NF = 12
# U[p, :]: b, w, h1, h2


@njit(cache=True)
def search(b, w, gb, gw, tomove, step, passes, onb, nbm, lsh, lpm, rsh, rpm, z, perm, inv, meta,
           tkey, tchk, tdat, twork, st, H, mv, sc, hist, F, U):
    """Value for the player to act of the root node (hashes in ``H[0]``): 1 win, -1 loss, 0 dead or
    aborted (``st[S_ABORT]`` says which). Iterative: explicit frames ``F``/``U`` per ply.

    One loop on purpose: cut into inlined helpers (entering a node, the enhanced transposition cutoff,
    pushing a child, taking its value back, storing the node) it searched the same nodes about 12%
    slower (Xodd 4, measured when the solver was split into modules)."""
    n = nbm.shape[0]
    nsym = perm.shape[0]
    PASS = 2 * n
    p = 0
    U[0, 0] = b
    U[0, 1] = w
    F[0, F_GB] = gb
    F[0, F_GW] = gw
    F[0, F_TM] = tomove
    F[0, F_STEP] = step
    F[0, F_PASS] = passes
    enter = True
    ret = 0
    while True:
        if enter:
            st[S_NODES] += 1
            if st[S_NODES] >= st[S_LIMIT]:
                st[S_ABORT] = 1
                return 0
            if p > st[S_MAXPLY]:
                st[S_MAXPLY] = p
            b = U[p, 0]
            w = U[p, 1]
            gb = F[p, F_GB]
            gw = F[p, F_GW]
            tomove = F[p, F_TM]
            step = F[p, F_STEP]
            passes = F[p, F_PASS]
            gown = gb if tomove == 0 else gw
            gopp = gw if tomove == 0 else gb
            done = False
            if step == 0 and passes == 1 and gown < gopp:
                ret = 1  # pass and win
                done = True
            else:
                h1, h2, j = canon(H, p, nsym, tomove, step, passes, meta)
                e = tt_probe(tkey, tchk, tdat, h1, h2)
                if e >= 0:
                    st[S_HITS] += 1
                    code = tdat[e] & 3
                    ret = 1 if code == WIN else (-1 if code == LOSS else 0)
                    done = True
                else:
                    U[p, 2] = h1
                    U[p, 3] = h2
                    F[p, F_J] = j
                    F[p, F_N0] = st[S_NODES]
                    cnt = _gen(p, b, w, gb, gw, tomove, step, passes, onb, nbm, lsh, lpm, rsh, rpm,
                               mv, sc, hist, st[S_WEIGHT])
                    F[p, F_CNT] = cnt
                    F[p, F_IDX] = 0
                    F[p, F_RES] = 0
                    F[p, F_BEST] = -1
                    occ = b | w
                    if _popcount(onb & ~occ) >= st[S_ETC]:
                        # enhanced transposition cutoff: a child already known to lose for its player
                        same = step == 0 and occ != 0
                        for i in range(cnt):
                            m = mv[p, i]
                            if m == PASS:
                                if step == 0 and passes == 1:
                                    continue
                                c = -1
                                x = 0
                                cpass = 1 if step == 0 else 0
                                ctm = 1 - tomove
                                cstep = 0
                            else:
                                x = m if m < n else m - n
                                c = tomove if m < n else 1 - tomove
                                cpass = 0
                                ctm = tomove if same else 1 - tomove
                                cstep = 1 if same else 0
                            k1, k2 = _child_key(H, p, z, nsym, c, x, ctm, cstep, cpass, meta)
                            ce = tt_probe(tkey, tchk, tdat, k1, k2)
                            if ce < 0:
                                continue
                            code = tdat[ce] & 3
                            if (code == WIN and same and m != PASS) or (code == LOSS and not (same and m != PASS)):
                                F[p, F_RES] = 1
                                F[p, F_BEST] = m
                                F[p, F_IDX] = cnt
                                st[S_ETC_CUTS] += 1
                                break
            if done:
                if p == 0:
                    return ret
                p -= 1
                enter = False
                continue
        else:
            # back from the child of move F_IDX - 1 with its value ``ret`` for its player to act
            v = ret if F[p, F_SAME] else -ret
            if v != 0:  # 0: a first stone that cannot be completed (illegal): skipped
                m = mv[p, F[p, F_IDX] - 1]
                if F[p, F_BEST] < 0:
                    F[p, F_BEST] = m
                F[p, F_RES] = v
                if v == 1:
                    F[p, F_BEST] = m
                    stp = F[p, F_STEP]
                    occ = U[p, 0] | U[p, 1]
                    hist[stp, m] += 1 + (PASS - 2 * _popcount(occ))
                    if hist[stp, m] > 4000:
                        for a in range(2):
                            for q in range(PASS + 1):
                                hist[a, q] >>= 1
                    F[p, F_IDX] = F[p, F_CNT]  # cut: no more children
        # next child, or finish the node
        b = U[p, 0]
        w = U[p, 1]
        gb = F[p, F_GB]
        gw = F[p, F_GW]
        tomove = F[p, F_TM]
        step = F[p, F_STEP]
        passes = F[p, F_PASS]
        pushed = False
        while F[p, F_IDX] < F[p, F_CNT]:
            m = mv[p, F[p, F_IDX]]
            F[p, F_IDX] += 1
            q = p + 1
            if m == PASS:
                if step == 0 and passes == 1:
                    # pass ends the game; a win was caught on entry, so this loses
                    if F[p, F_BEST] < 0:
                        F[p, F_BEST] = m
                    F[p, F_RES] = -1
                    continue
                _copy_hash(H, p)
                U[q, 0] = b
                U[q, 1] = w
                F[q, F_GB] = gb
                F[q, F_GW] = gw
                F[q, F_TM] = 1 - tomove
                F[q, F_STEP] = 0
                F[q, F_PASS] = 1 if step == 0 else 0
                F[p, F_SAME] = 0
            else:
                if m < n:
                    x = m
                    c = tomove
                else:
                    x = m - n
                    c = 1 - tomove
                bit = np.uint64(1) << np.uint64(x)
                if c == 0:
                    k = _kgroups(b, x, nbm, lsh, lpm, rsh, rpm)
                    U[q, 0] = b | bit
                    U[q, 1] = w
                    F[q, F_GB] = gb + 1 - k
                    F[q, F_GW] = gw
                else:
                    k = _kgroups(w, x, nbm, lsh, lpm, rsh, rpm)
                    U[q, 0] = b
                    U[q, 1] = w | bit
                    F[q, F_GB] = gb
                    F[q, F_GW] = gw + 1 - k
                _push_hash(H, p, z, c, x)
                F[q, F_PASS] = 0
                if step == 0 and (b | w) != 0:
                    F[q, F_TM] = tomove
                    F[q, F_STEP] = 1
                    F[p, F_SAME] = 1
                else:
                    F[q, F_TM] = 1 - tomove
                    F[q, F_STEP] = 0
                    F[p, F_SAME] = 0
            pushed = True
            break
        if pushed:
            p += 1
            enter = True
            continue
        # finish node p
        res = F[p, F_RES]
        best = F[p, F_BEST]
        if res == 0:
            code = DEAD
            best = PASS
        elif res == 1:
            code = WIN
        else:
            code = LOSS
        j = F[p, F_J]
        if best == PASS:
            mc = PASS
        elif best < n:
            mc = perm[j, best]
        else:
            mc = n + perm[j, best - n]
        tt_store(tkey, tchk, tdat, twork, st, U[p, 2], U[p, 3], np.uint16(code | (mc << 2)),
                 np.uint8(_log2work(st[S_NODES] - F[p, F_N0])))
        ret = res
        if p == 0:
            return ret
        p -= 1
        enter = False
