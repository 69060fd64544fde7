"""Exact solutions of small Xodd and Yodd boards (issue 39).

A compiled (Numba) win/loss search over the decisions of the game
(docs/rules/xodd_yodd.md sections 1-5): a turn is one or two decisions
(stone, then stone or end turn; or pass), and the searched unit is one
decision, in the relative action encoding of section 5, so that the moves the
solver returns are the environment's actions.

How it searches
---------------
* The state is two ``uint64`` bitboards over the ``H x W`` array cells
  (black, white; boards of at most 64 array cells: Xodd up to 8x8, Yodd up to
  base 4), the group counts of both colours, the player to act, the step of
  the turn and the pending pass. Black's first turn is the empty board. The
  first stone of a turn is not part of the state: in step 2 the legal moves
  depend only on the parity of the total (section 3), not on where the first
  stone went.
* A stone of colour c on x changes the count of c by ``1 - k`` (section 2);
  k is found by flood-filling the c-groups around x on the bitboard.
* The game is a DAG (every non-pass turn fills a cell, pass-pass ends it) and
  has no draws, so the search is a boolean AND/OR negamax: a node is a win
  for the player to act iff one of its children is (a step-1 stone keeps the
  player, so its child's value is taken as it is, not negated), and it stops
  at the first winning child. Every stored value is exact.
* The look-ahead rule of section 3 falls out of the search: a parity-flipping
  first stone leads to a step-2 node with an even total, and if no
  parity-flipping second stone exists that node is *dead*, so the first stone
  was illegal and is skipped.
* Transposition table: Zobrist hashes over the board with the symmetries of
  the board folded in (8 for the square, 12 for the hexhex): the hash of
  every image of the position is kept up to date incrementally (one XOR per
  symmetry per stone) and the smallest is the key. Colour swap is folded in
  too, *together with* the swap of the player to act: the hash is over
  "stones of the player to act" and "stones of the other player", because
  after Black's first turn the rules treat the two players alike (the winner
  is the player with fewer groups of their own colour), so a position and its
  colour-swapped image with the other player to act have the same value for
  the player to act. Colour swap alone is not a symmetry: who owns which
  groups decides the game. Two independent 64-bit hashes: one indexes the
  table and is stored whole, 32 bits of the other are stored as a check
  (a false match needs 64 + 32 - log2(table size) bits to agree).
  Buckets of 4 entries; a full bucket replaces its entry of least work
  (log2 of the nodes it took to prove).
* Move ordering: the greedy score of the decision (opponent's groups minus
  own groups after it), then a history table of the moves that won.
* The kernel stops after a node budget; the Python side then saves
  checkpoints, reports progress, checks the time limit and calls it again
  (the table keeps everything proven, so a restart walks back to where it
  stopped quickly).

Files: :meth:`Solver.save` writes the table (all entries, or only those of
at least some work, which keeps shipped files small) with the result, a rules
version and a sha256 checksum; :meth:`Solver.load` checks both.
"""

from __future__ import annotations

import hashlib
import json
import os
import time
import zlib
from dataclasses import asdict, dataclass, field
from typing import Any, Callable

import numpy as np
from numba import njit

RULES_VERSION = 1
"""The Xodd/Yodd rules this solver implements (docs/rules/xodd_yodd.md sections 1-3). A saved table
records it and is refused by a solver of another version."""
FORMAT_VERSION = 2
"""The layout of saved tables and checkpoints (format 1, one block, is still read)."""
BLOCK = 1 << 20
"""Table slots per block of a saved table."""
MAGIC = b"ODDSOLVE"
MAX_CELLS = 64
"""Largest board array (H * W) the bitboards hold: Xodd up to 8x8, Yodd up to base 4."""
ZOBRIST_SEED = 0x0DD5017E

LOSS, WIN, DEAD = 1, 2, 3
"""Table value codes (0: empty slot)."""

# stats vector indices
S_NODES, S_LIMIT, S_ABORT, S_HITS, S_STORES, S_USED, S_MAXPLY = 0, 1, 2, 3, 4, 5, 6
S_ETC, S_WEIGHT, S_ETC_CUTS = 7, 8, 9
"""Tuning (read by the kernel): enhanced transposition cutoffs at nodes with at least ``st[S_ETC]`` empty
cells; ``st[S_WEIGHT]``: weight of the greedy score against the history score in move ordering."""
NSTATS = 12
ETC_MIN_EMPTY = 1
GREEDY_WEIGHT = 64


# =================================================================== kernels
@njit(cache=True, inline="always")
def _lowbit(v):
    return v & (~v + np.uint64(1))


@njit(cache=True, inline="always")
def _popcount(v):
    c = 0
    while v:
        v &= v - np.uint64(1)
        c += 1
    return c


@njit(cache=True, inline="always")
def _bitindex(v):
    """Index of the single set bit of ``v``."""
    i = 0
    while v > np.uint64(1):
        v >>= np.uint64(1)
        i += 1
    return i


@njit(cache=True, inline="always")
def _flood(g, c, lsh, lpm, rsh, rpm):
    """The group of colour bitboard ``c`` that contains the stones ``g``."""
    while True:
        ng = g
        for d in range(lsh.shape[0]):
            ng |= (g & lpm[d]) << lsh[d]
        for d in range(rsh.shape[0]):
            ng |= (g & rpm[d]) >> rsh[d]
        ng &= c
        if ng == g:
            return g
        g = ng


@njit(cache=True, inline="always")
def _kgroups(c, x, nbm, lsh, lpm, rsh, rpm):
    """Distinct groups of colour bitboard ``c`` next to cell ``x``."""
    nb = nbm[x] & c
    if nb == 0:
        return 0
    if (nb & (nb - np.uint64(1))) == 0:
        return 1
    k = 0
    while nb:
        g = _flood(_lowbit(nb), c, lsh, lpm, rsh, rpm)
        k += 1
        nb &= ~g
    return k


@njit(cache=True)
def count_groups(c, lsh, lpm, rsh, rpm):
    """Number of groups of colour bitboard ``c``."""
    k = 0
    while c:
        g = _flood(_lowbit(c), c, lsh, lpm, rsh, rpm)
        k += 1
        c &= ~g
    return k


@njit(cache=True)
def hash_row(b, w, z, out):
    """The symmetry hashes of board (b, w) from scratch into ``out`` (length 4 * nsym)."""
    nsym = z.shape[1]
    n = z.shape[3]
    for i in range(out.shape[0]):
        out[i] = 0
    for x in range(n):
        bit = np.uint64(1) << np.uint64(x)
        c = -1
        if b & bit:
            c = 0
        elif w & bit:
            c = 1
        if c < 0:
            continue
        for s in range(nsym):
            for wd in range(2):
                out[(wd * 2) * nsym + s] ^= z[wd, s, c, x]
                out[(wd * 2 + 1) * nsym + s] ^= z[wd, s, 1 - c, x]


@njit(cache=True, inline="always")
def _push_hash(H, p, z, c, x):
    nsym = z.shape[1]
    for s in range(nsym):
        for wd in range(2):
            i0 = (wd * 2) * nsym + s
            i1 = i0 + nsym
            H[p + 1, i0] = H[p, i0] ^ z[wd, s, c, x]
            H[p + 1, i1] = H[p, i1] ^ z[wd, s, 1 - c, x]


@njit(cache=True, inline="always")
def _copy_hash(H, p):
    for i in range(H.shape[1]):
        H[p + 1, i] = H[p, i]


@njit(cache=True)
def canon(H, p, nsym, tomove, step, passes, meta):
    """(h1, h2, sym): the key of node ``p`` (smallest image) and the symmetry that gives it."""
    base = tomove * nsym
    best = H[p, base]
    j = 0
    for s in range(1, nsym):
        v = H[p, base + s]
        if v < best:
            best = v
            j = s
    h2 = H[p, (2 + tomove) * nsym + j]
    mi = step * 2 + passes
    return best ^ meta[0, mi], h2 ^ meta[1, mi], j


@njit(cache=True)
def tt_probe(tkey, tchk, tdat, h1, h2):
    """Index of the entry of key (h1, h2), or -1."""
    mask = np.uint64(tkey.shape[0] - 1)
    base = np.int64(h1 & mask) & ~np.int64(3)
    chk = np.uint32(h2 >> np.uint64(32))
    for i in range(4):
        e = base + i
        if tdat[e] != 0 and tkey[e] == h1 and tchk[e] == chk:
            return e
    return -1


@njit(cache=True)
def tt_store(tkey, tchk, tdat, twork, st, h1, h2, dat, work):
    mask = np.uint64(tkey.shape[0] - 1)
    base = np.int64(h1 & mask) & ~np.int64(3)
    chk = np.uint32(h2 >> np.uint64(32))
    victim = -1
    for i in range(4):
        e = base + i
        if tdat[e] != 0 and tkey[e] == h1 and tchk[e] == chk:
            victim = e
            break
    if victim >= 0:
        if twork[victim] > work:  # a re-search of a proven node (after a restart) is cheaper than its proof
            work = twork[victim]
    else:
        vw = 1000
        for i in range(4):
            e = base + i
            if tdat[e] == 0:
                victim = e
                st[S_USED] += 1
                break
            if twork[e] < vw:
                vw = twork[e]
                victim = e
    tkey[victim] = h1
    tchk[victim] = chk
    tdat[victim] = dat
    twork[victim] = work
    st[S_STORES] += 1


@njit(cache=True, inline="always")
def _log2work(nodes):
    w = 0
    while nodes > 0 and w < 255:
        nodes >>= 1
        w += 1
    return w


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


@njit(cache=True, inline="always")
def _child_key(H, p, z, nsym, c, x, ctm, cstep, cpass, meta):
    """The key of the child of node ``p`` with a stone of colour ``c`` (-1: none) on ``x`` and player
    ``ctm`` to act at step ``cstep`` with ``cpass`` passes."""
    cc = c if ctm == 0 else 1 - c
    base = ctm * nsym
    best = H[p, base] ^ (z[0, 0, cc, x] if c >= 0 else np.uint64(0))
    j = 0
    for s in range(1, nsym):
        v = H[p, base + s] ^ (z[0, s, cc, x] if c >= 0 else np.uint64(0))
        if v < best:
            best = v
            j = s
    h2 = H[p, (2 + ctm) * nsym + j] ^ (z[1, j, cc, x] if c >= 0 else np.uint64(0))
    mi = cstep * 2 + cpass
    return best ^ meta[0, mi], h2 ^ meta[1, mi]


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
    aborted (``st[S_ABORT]`` says which). Iterative: explicit frames ``F``/``U`` per ply."""
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


@njit(cache=True)
def lookup(b, w, tomove, step, passes, z, perm, inv, meta, tkey, tchk, tdat, twork, H):
    """(value code, move in this node's coordinates, work) of a position from the table; code 0 if absent."""
    n = perm.shape[1]
    hash_row(b, w, z, H[0])
    h1, h2, j = canon(H, 0, perm.shape[0], tomove, step, passes, meta)
    e = tt_probe(tkey, tchk, tdat, h1, h2)
    if e < 0:
        return 0, -1, 0
    d = np.int64(tdat[e])
    code = d & 3
    mc = d >> 2
    if mc == 2 * n:
        m = mc
    elif mc < n:
        m = inv[j, mc]
    else:
        m = n + inv[j, mc - n]
    return code, m, np.int64(twork[e])


@njit(cache=True)
def bump_work(b, w, tomove, step, passes, z, perm, meta, tkey, tchk, tdat, twork, H, work):
    """Raise the recorded work of a position's entry to at least ``work`` (the solved root's whole search)."""
    hash_row(b, w, z, H[0])
    h1, h2, j = canon(H, 0, perm.shape[0], tomove, step, passes, meta)
    e = tt_probe(tkey, tchk, tdat, h1, h2)
    if e >= 0 and twork[e] < work:
        twork[e] = work


@njit(cache=True)
def tt_insert_many(tkey, tchk, tdat, twork, st, keys, chks, dats, works):
    for i in range(keys.shape[0]):
        tt_store(tkey, tchk, tdat, twork, st, keys[i], np.uint64(chks[i]) << np.uint64(32), dats[i], works[i])


# ============================================================= Python side
def _check_geometry(g: Any) -> Any:
    kind = getattr(g, "kind", None)
    if kind not in ("square", "hex"):
        raise ValueError(f"the solver solves Xodd and Yodd positions only, not {getattr(g, 'game', kind)!r} "
                         "(YINSH has rules of its own)")
    if g.height * g.width > MAX_CELLS:
        raise ValueError(
            f"{g.game} {g.size} is too big for the solver: its array has {g.height * g.width} cells and the "
            f"solver's bitboards hold at most {MAX_CELLS} (Xodd up to 8x8, Yodd up to base 4); boards that "
            "big are far out of reach of an exact solve anyway")
    return g


def _symmetries(g: Any) -> np.ndarray:
    """int32[nsym, H*W]: the board's symmetries as permutations of array cells (identity first)."""
    h, wd, n = g.height, g.width, g.height * g.width
    perms = []
    if g.kind == "square":
        s = g.size
        maps = [lambda r, c: (r, c), lambda r, c: (c, s - 1 - r), lambda r, c: (s - 1 - r, s - 1 - c),
                lambda r, c: (s - 1 - c, r), lambda r, c: (r, s - 1 - c), lambda r, c: (c, r),
                lambda r, c: (s - 1 - r, c), lambda r, c: (s - 1 - c, s - 1 - r)]
    else:
        base = g.size - 1

        def rot(q, r):
            return -r, q + r

        def make(k, mirror):
            def f(row, col):
                q, r = col - base, row - base
                if mirror:
                    q, r = r, q
                for _ in range(k):
                    q, r = rot(q, r)
                return r + base, q + base
            return f

        maps = [make(k, m) for m in (False, True) for k in range(6)]
    onboard = np.asarray(g.onboard, dtype=bool)
    for f in maps:
        p = np.arange(n, dtype=np.int32)  # off-board cells map to themselves
        for x in range(n):
            if onboard[x]:
                r, c = f(x // wd, x % wd)
                p[x] = r * wd + c
        perms.append(p)
    perms = np.array(perms, dtype=np.int32)
    nbr = np.asarray(g.neighbours)
    for p in perms:  # each must map the board onto itself and keep adjacency
        if not (onboard[p[onboard]].all() and len(set(p.tolist())) == n):
            raise AssertionError("bad symmetry")
        for x in np.flatnonzero(onboard):
            a = {int(p[y]) for y in nbr[x] if y >= 0}
            b = {int(y) for y in nbr[p[x]] if y >= 0}
            if a != b:
                raise AssertionError("a symmetry breaks adjacency")
    return perms


class _Tables:
    """The constant tables of one board."""

    def __init__(self, g: Any):
        g = _check_geometry(g)
        self.geometry = g
        h, wd = g.height, g.width
        self.n = n = h * wd
        onboard = np.asarray(g.onboard, dtype=bool)
        self.onb = np.uint64(sum(1 << int(x) for x in np.flatnonzero(onboard)))
        self.nbm = np.zeros(n, dtype=np.uint64)
        for x in range(n):
            self.nbm[x] = np.uint64(sum(1 << int(y) for y in g.neighbours[x] if y >= 0))
        lsh, lpm, rsh, rpm = [], [], [], []
        for dr, dc in g.directions:
            shift = dr * wd + dc
            pre = 0
            for x in range(n):
                r, c = divmod(x, wd)
                if 0 <= r + dr < h and 0 <= c + dc < wd:
                    pre |= 1 << x
            if shift > 0:
                lsh.append(shift)
                lpm.append(pre)
            else:
                rsh.append(-shift)
                rpm.append(pre)
        self.lsh = np.array(lsh, dtype=np.uint64)
        self.lpm = np.array(lpm, dtype=np.uint64)
        self.rsh = np.array(rsh, dtype=np.uint64)
        self.rpm = np.array(rpm, dtype=np.uint64)
        self.perm = _symmetries(g)
        self.inv = np.argsort(self.perm, axis=1).astype(np.int32)
        nsym = len(self.perm)
        rng = np.random.default_rng([ZOBRIST_SEED, RULES_VERSION, 0 if g.kind == "square" else 1, g.size])
        zb = rng.integers(1, 2**63, size=(2, 2, n), dtype=np.int64).astype(np.uint64) * np.uint64(2) + \
            rng.integers(0, 2, size=(2, 2, n), dtype=np.int64).astype(np.uint64)
        self.meta = rng.integers(1, 2**63, size=(2, 4), dtype=np.int64).astype(np.uint64)
        self.meta[:, 0] = 0
        self.z = np.empty((2, nsym, 2, n), dtype=np.uint64)
        for s in range(nsym):
            self.z[:, s, :, :] = zb[:, :, self.perm[s]]
        self.fingerprint = hashlib.sha256(self.z.tobytes() + self.meta.tobytes()).hexdigest()[:16]


@dataclass
class SolveResult:
    """What :func:`solve` found."""

    game: str
    size: int
    value: int | None
    """+1 if the player to act wins with perfect play, -1 if they lose, None if the time ran out."""
    to_move: int
    """The player to act at the solved position (0 black, 1 white)."""
    winner: int | None
    """The player (0 black, 1 white) who wins with perfect play, None if unknown."""
    winning_moves: list[str] = field(default_factory=list)
    """The winning first turns of the player to act, in notation (``Bc2``, ``Wa1,Bb2``, ``pass``)."""
    winning_actions: list[list[int]] = field(default_factory=list)
    """The same turns as lists of actions."""
    complete: bool = True
    """False if the list of winning turns stopped early (``all_moves=False`` or the time ran out)."""
    nodes: int = 0
    seconds: float = 0.0
    table_entries: int = 0
    table_capacity: int = 0
    root_moves: int = 0
    """Legal decisions at the root."""

    @property
    def winner_name(self) -> str:
        return {0: "black", 1: "white", None: "unknown"}[self.winner]

    def summary(self) -> str:
        if self.value is None:
            head = f"{self.game} {self.size}: unknown (time limit reached)"
        else:
            head = f"{self.game} {self.size}: {self.winner_name} wins with perfect play"
        turns = ", ".join(self.winning_moves) if self.winning_moves else "-"
        more = "" if self.complete else " (not all listed)"
        return (f"{head}\nwinning first turns{more}: {turns}\nnodes {self.nodes:,}  time {self.seconds:.2f} s  "
                f"table {self.table_entries:,} entries of {self.table_capacity:,}")


def _nearest_pow2(x: int) -> int:
    return 1 << max(4, int(x).bit_length() - 1)


class Solver:
    """The solver of one board, with its transposition table.

    ``Solver(game_or_geometry, table_bits=22)``: a table of ``2**table_bits``
    entries (15 bytes each).
    """

    CHUNK = 2_000_000
    _warm = False
    """Nodes per kernel call; between calls the Python side checks time, progress and checkpoints."""

    def __init__(self, game: Any, table_bits: int = 22):
        g = game.extra.get("geometry") if hasattr(game, "extra") else game
        if g is None or not hasattr(g, "kind"):
            raise ValueError(f"the solver solves Xodd and Yodd positions only, not {getattr(game, 'label', game)!r}")
        self.t = _Tables(g)
        self.game = game if hasattr(game, "extra") else None
        self.name, self.size = g.game, g.size
        if not (8 <= int(table_bits) <= 34):
            raise ValueError(f"table_bits must be from 8 to 34, got {table_bits!r}")
        self._alloc(1 << int(table_bits))
        n = self.t.n
        self.maxply = 4 * n + 8
        self.H = np.zeros((self.maxply + 2, 4 * len(self.t.perm)), dtype=np.uint64)
        self.mv = np.zeros((self.maxply + 2, 2 * n + 1), dtype=np.int32)
        self.sc = np.zeros((self.maxply + 2, 2 * n + 1), dtype=np.int32)
        self.hist = np.zeros((2, 2 * n + 1), dtype=np.int32)
        self.F = np.zeros((self.maxply + 2, NF), dtype=np.int64)
        self.U = np.zeros((self.maxply + 2, 4), dtype=np.uint64)
        self.total_nodes = 0
        self.total_seconds = 0.0
        self.result: SolveResult | None = None

    def _alloc(self, size: int) -> None:
        self.tkey = np.zeros(size, dtype=np.uint64)
        self.tchk = np.zeros(size, dtype=np.uint32)
        self.tdat = np.zeros(size, dtype=np.uint16)
        self.twork = np.zeros(size, dtype=np.uint8)
        self.st = np.zeros(NSTATS, dtype=np.int64)
        self.st[S_ETC] = ETC_MIN_EMPTY
        self.st[S_WEIGHT] = GREEDY_WEIGHT

    @property
    def table_entries(self) -> int:
        return int(self.st[S_USED])

    @property
    def table_capacity(self) -> int:
        return int(self.tkey.shape[0])

    # ------------------------------------------------------------ positions
    def _internal(self, position: Any) -> tuple:
        """(b, w, gb, gw, to_move, step, passes) of a position, read through its observation planes."""
        game = getattr(position, "game", None)
        g = game.extra.get("geometry") if game is not None and hasattr(game, "extra") else None
        if g is None or getattr(g, "kind", None) not in ("square", "hex") or g is not self.t.geometry:
            what = game.label if hasattr(game, "label") else type(position).__name__
            raise ValueError(f"a position of {self.name} {self.size} is needed, got one of {what}")
        planes = np.asarray(position.observation()).reshape(position.observation().shape[0], -1)
        mover = 0 if planes[6, 0] else 1
        own = sum(1 << int(x) for x in np.flatnonzero(planes[0]))
        opp = sum(1 << int(x) for x in np.flatnonzero(planes[1]))
        b, w = (own, opp) if mover == 0 else (opp, own)
        b, w = np.uint64(b), np.uint64(w)
        t = self.t
        gb = count_groups(b, t.lsh, t.lpm, t.rsh, t.rpm)
        gw = count_groups(w, t.lsh, t.lpm, t.rsh, t.rpm)
        step = int(planes[5, 0])
        passes = int(planes[11, 0])
        return b, w, gb, gw, mover, step, passes

    def _search(self, node: tuple, deadline: float | None, progress: Callable | None, info: dict) -> int | None:
        """Value of an internal node for its player to act, in chunks; None if the deadline passed."""
        b, w, gb, gw, tomove, step, passes = node
        t = self.t
        if step == 0 and passes == 1 and (gb < gw if tomove == 0 else gw < gb):
            return 1
        if not Solver._warm:  # load the compiled kernels outside the timed calls
            Solver._warm = True
            Solver(self.t.geometry, 8).value_of_empty_board()
        while True:
            hash_row(b, w, t.z, self.H[0])
            self.st[S_ABORT] = 0
            self.st[S_LIMIT] = self.st[S_NODES] + self.CHUNK
            start = time.perf_counter()
            before = int(self.st[S_NODES])
            v = search(np.uint64(b), np.uint64(w), gb, gw, tomove, step, passes, t.onb, t.nbm, t.lsh, t.lpm,
                       t.rsh, t.rpm, t.z, t.perm, t.inv, t.meta, self.tkey, self.tchk, self.tdat, self.twork,
                       self.st, self.H, self.mv, self.sc, self.hist, self.F, self.U)
            self.total_nodes += int(self.st[S_NODES]) - before
            self.total_seconds += time.perf_counter() - start
            if progress is not None:
                progress(dict(info, nodes=self.total_nodes, seconds=self.total_seconds,
                              table_entries=self.table_entries, table_capacity=self.table_capacity))
            if not self.st[S_ABORT]:
                return int(v)
            if deadline is not None and time.monotonic() >= deadline:
                return None

    def value_of_empty_board(self) -> int | None:
        """Value for Black of the empty board (also: a warm-up of the kernels)."""
        tbl = np.zeros(4, dtype=np.uint64)
        tt_insert_many(self.tkey, self.tchk, self.tdat, self.twork, np.zeros(NSTATS, dtype=np.int64), tbl[:0],
                       tbl[:0].astype(np.uint32), tbl[:0].astype(np.uint16), tbl[:0].astype(np.uint8))
        lookup(np.uint64(0), np.uint64(0), 0, 0, 0, self.t.z, self.t.perm, self.t.inv, self.t.meta, self.tkey,
               self.tchk, self.tdat, self.twork, self.H)
        return self._search((np.uint64(0), np.uint64(0), 0, 0, 0, 0, 0), time.monotonic(), None, {})

    def child_value(self, position: Any, action: int, deadline: float | None = None,
                    progress: Callable | None = None, info: dict | None = None) -> int | None:
        """Value for the player to act in ``position`` of playing ``action`` (+1 win, -1 loss)."""
        child = position.child(int(action))
        me = position.to_move
        if child.is_terminal:
            return 1 if child.winner == me else -1
        v = self._search(self._internal(child), deadline, progress, info or {})
        if v is None:
            return None
        if v == 0:
            raise AssertionError("the solver found a dead end after a legal action (a rules mismatch)")
        return v if child.to_move == me else -v

    def value(self, position: Any, time_limit: float | None = None) -> int | None:
        """+1 if the player to act in ``position`` wins with perfect play, -1 if not (None: time ran out).

        Looks the position up in the table, else searches (within ``time_limit`` seconds)."""
        if position.is_terminal:
            raise ValueError("the game is over: no player to act")
        deadline = None if time_limit is None else time.monotonic() + float(time_limit)
        return self._search(self._internal(position), deadline, None, {})

    def action_values(self, position: Any, time_limit: float | None = None) -> dict[int, tuple[int | None, int]]:
        """{action: (value for the player to act, work)} of every legal action; work is log2 of the
        nodes the child's value took to prove (0 if not in the table)."""
        deadline = None if time_limit is None else time.monotonic() + float(time_limit)
        out = {}
        t = self.t
        for a in position.legal_actions():
            a = int(a)
            v = self.child_value(position, a, deadline)
            work = 0
            child = position.child(a)
            if not child.is_terminal:
                b, w, _, _, tm, stp, ps = self._internal(child)
                _, _, work = lookup(b, w, tm, stp, ps, t.z, t.perm, t.inv, t.meta, self.tkey, self.tchk,
                                    self.tdat, self.twork, self.H)
            out[a] = (v, int(work))
        return out

    def best_action(self, position: Any, time_limit: float | None = None) -> int:
        """A perfect player's action: a winning one if any (the one of smallest proof), else the losing
        action whose refutation took the most nodes to prove (the opponent's hardest win)."""
        if position.is_terminal:
            raise ValueError("the game is over: no player to act")
        vals = self.action_values(position, time_limit)
        wins = [(work, a) for a, (v, work) in vals.items() if v == 1]
        if wins:
            return min(wins)[1]
        known = [(work, -a) for a, (v, work) in vals.items() if v is not None]
        if not known:
            return int(position.legal_actions()[0])
        return -max(known)[1]

    # ------------------------------------------------------------ solve
    def solve(self, position: Any, time_limit: float | None = None, progress: Callable | None = None,
              all_moves: bool = True, checkpoint: str | os.PathLike | None = None,
              checkpoint_every: float = 600.0, done: dict | None = None) -> SolveResult:
        """Solve ``position``: its value and the winning first turns of the player to act.

        ``all_moves=False`` stops at the first winning turn. ``checkpoint``: a file the table is saved
        to every ``checkpoint_every`` seconds (and at the end). ``done``: root results already known
        (from a resumed checkpoint), ``{action: value}``.
        """
        if position.is_terminal:
            raise ValueError("the game is over: there is nothing to solve")
        self._internal(position)  # checks the position's game
        game = position.game
        deadline = None if time_limit is None else time.monotonic() + float(time_limit)
        nodes0, secs0 = self.total_nodes, self.total_seconds
        me = position.to_move
        done = {} if done is None else {int(k): v for k, v in done.items()}
        self._root_done = done
        self._root_key = position.key().hex()
        last_ckpt = [time.monotonic()]

        def tick(info: dict) -> None:
            if progress is not None:
                progress(info)
            if checkpoint is not None and time.monotonic() - last_ckpt[0] >= checkpoint_every:
                self.save(checkpoint, partial=True)
                last_ckpt[0] = time.monotonic()

        legal = [int(a) for a in position.legal_actions()]
        b, w, gb, gw, tm, stp, ps = self._internal(position)
        t = self.t
        order = root_order(b, w, gb, gw, tm, stp, ps, t.onb, t.nbm, t.lsh, t.lpm, t.rsh, t.rpm, self.mv, self.sc,
                           self.hist, self.st[S_WEIGHT])
        rank = {int(a): i for i, a in enumerate(order)}
        actions = sorted(legal, key=lambda a: rank.get(a, len(rank)))
        # order the root like the kernel: greedy score first, so a first win comes early
        value: int | None = -1
        winning: list[list[int]] = []
        complete = True
        for i, a in enumerate(actions):
            info = {"root": i + 1, "root_moves": len(actions), "move": game.action_to_string(position, a)}
            if a in done:
                v = done[a]
            else:
                v = self.child_value(position, a, deadline, tick, info)
                if v is None:
                    value, complete = None, False
                    break
                done[a] = v
            if v != 1:
                continue
            value = 1
            child = position.child(a)
            if not child.is_terminal and child.to_move == me:  # a first stone: list the winning second steps
                for a2 in child.legal_actions():
                    a2 = int(a2)
                    v2 = self.child_value(child, a2, deadline, tick, info)
                    if v2 is None:
                        complete = False
                        break
                    if v2 == 1:
                        winning.append([a, a2])
            else:
                winning.append([a])
            if not all_moves:
                complete = complete and i == len(actions) - 1
                break
            if deadline is not None and time.monotonic() >= deadline:
                complete = False
        if value is None and winning:
            value = 1
        if value is not None and complete:  # the root into the table too (its children are there)
            node = self._internal(position)
            self._search(node, deadline, None, {})
            b, w, _, _, tm, stp, ps = node
            bump_work(b, w, tm, stp, ps, t.z, t.perm, t.meta, self.tkey, self.tchk, self.tdat, self.twork, self.H,
                      np.uint8(min(255, max(1, (self.total_nodes - nodes0).bit_length()))))
        names = []
        for turn in winning:
            pos = position.copy()
            parts = []
            for a in turn:
                text = game.action_to_string(pos, a)
                pos.apply(a)
                if text != "end":
                    parts.append(text)
            names.append(",".join(parts))
        winner = None if value is None else (me if value == 1 else 1 - me)
        self.result = SolveResult(
            game=self.name, size=self.size, value=value, to_move=me, winner=winner, winning_moves=names,
            winning_actions=winning, complete=complete and value is not None,
            nodes=self.total_nodes - nodes0, seconds=round(self.total_seconds - secs0, 3),
            table_entries=self.table_entries, table_capacity=self.table_capacity, root_moves=len(actions))
        if checkpoint is not None:
            self.save(checkpoint, partial=True)
        return self.result

    # ------------------------------------------------------------ files
    def save(self, path: str | os.PathLike, min_work: int = 0, partial: bool = False) -> dict:
        """Write the table (entries of work >= ``min_work``: log2 of their proof's nodes) and the
        result to ``path``, atomically, block by block (a 2 GB table needs little memory more). Returns
        the header written."""
        path = os.fspath(path)
        folder = os.path.dirname(path)
        if folder:
            os.makedirs(folder, exist_ok=True)
        part = path + ".payload.tmp"
        comp = zlib.compressobj(1 if partial else 6)
        sha = hashlib.sha256()
        count = 0
        cap = self.table_capacity
        with open(part, "wb") as f:
            for i in range(0, cap, BLOCK):
                j = min(cap, i + BLOCK)
                m = self.tdat[i:j] != 0
                if min_work > 0:
                    m &= self.twork[i:j] >= min_work
                c = int(m.sum())
                if not c:
                    continue
                block = b"".join((np.uint32(c).tobytes(), self.tkey[i:j][m].tobytes(), self.tchk[i:j][m].tobytes(),
                                  self.tdat[i:j][m].tobytes(), self.twork[i:j][m].tobytes()))
                out = comp.compress(block)
                sha.update(out)
                f.write(out)
                count += c
            out = comp.flush()
            sha.update(out)
            f.write(out)
        header = {
            "format": FORMAT_VERSION, "rules_version": RULES_VERSION, "game": self.name, "size": self.size,
            "zobrist": self.t.fingerprint, "entries": count, "min_work": int(min_work),
            "sha256": sha.hexdigest(), "nodes": self.total_nodes,
            "seconds": round(self.total_seconds, 3),
            "result": asdict(self.result) if self.result is not None else None,
            "root_done": {str(k): v for k, v in getattr(self, "_root_done", {}).items()} if partial else None,
            "root_key": getattr(self, "_root_key", None) if partial else None,
        }
        tmp = path + ".tmp"
        try:
            with open(tmp, "wb") as f, open(part, "rb") as src:
                f.write(MAGIC + b"\n" + json.dumps(header).encode() + b"\n")
                while True:
                    chunk = src.read(1 << 24)
                    if not chunk:
                        break
                    f.write(chunk)
                f.flush()
                os.fsync(f.fileno())
            os.replace(tmp, path)
        finally:
            for leftover in (part, tmp):
                if os.path.exists(leftover):
                    os.remove(leftover)
        return header

    @staticmethod
    def read_header(path: str | os.PathLike) -> tuple[dict, int]:
        """(header, offset of the payload) of a saved table, its checksum verified; ValueError if it is not
        one or is corrupt."""
        name = os.fspath(path)
        try:
            with open(name, "rb") as f:
                magic = f.readline().rstrip(b"\n")
                line = f.readline() if magic == MAGIC else b""
                offset = f.tell()
                if magic != MAGIC:
                    raise ValueError(f"{name!r} is not a solver table (no {MAGIC.decode()} header)")
                try:
                    header = json.loads(line)
                except ValueError:
                    raise ValueError(f"solver table {name!r} has a corrupt header") from None
                if not isinstance(header, dict) or header.get("format") not in (1, FORMAT_VERSION):
                    got = header.get("format") if isinstance(header, dict) else None
                    raise ValueError(f"solver table {name!r} has format {got!r}; this solver reads formats 1 "
                                     f"and {FORMAT_VERSION}")
                sha = hashlib.sha256()
                while True:
                    chunk = f.read(1 << 24)
                    if not chunk:
                        break
                    sha.update(chunk)
        except OSError as err:
            raise ValueError(f"cannot read solver table {name!r}: {err}") from None
        if sha.hexdigest() != header.get("sha256"):
            raise ValueError(f"solver table {name!r} is corrupt: its checksum does not match")
        return header, offset

    def load(self, path: str | os.PathLike) -> dict:
        """Add the entries of a saved table (checked: checksum, rules version, board) to this solver's
        table; returns the file's header (``header["result"]``: the saved result, as a dict)."""
        header, offset = self.read_header(path)
        name = os.fspath(path)
        if header.get("rules_version") != RULES_VERSION:
            raise ValueError(f"solver table {name!r} was made under rules version "
                             f"{header.get('rules_version')}, this solver implements version {RULES_VERSION}")
        if (header.get("game"), header.get("size")) != (self.name, self.size):
            raise ValueError(f"solver table {name!r} is of {header.get('game')} {header.get('size')}, "
                             f"not {self.name} {self.size}")
        if header.get("zobrist") != self.t.fingerprint:
            raise ValueError(f"solver table {name!r} was hashed with other keys")
        m = int(header["entries"])
        if m > self.table_capacity // 2:
            self._alloc(_nearest_pow2(4 * m))
        corrupt = ValueError(f"solver table {name!r} is corrupt: its entries do not decode")
        loaded = 0

        def insert(raw: bytes, c: int) -> None:
            k = 8 * c
            keys = np.frombuffer(raw, dtype=np.uint64, count=c, offset=0)
            chks = np.frombuffer(raw, dtype=np.uint32, count=c, offset=k)
            dats = np.frombuffer(raw, dtype=np.uint16, count=c, offset=k + 4 * c)
            works = np.frombuffer(raw, dtype=np.uint8, count=c, offset=k + 6 * c)
            tt_insert_many(self.tkey, self.tchk, self.tdat, self.twork, self.st, keys, chks, dats, works)

        with open(name, "rb") as f:
            f.seek(offset)
            dec = zlib.decompressobj()
            try:
                if header["format"] == 1:  # one block: all keys, then all checks, values, works
                    raw = dec.decompress(f.read()) + dec.flush()
                    if len(raw) != 15 * m:
                        raise corrupt
                    if m:
                        insert(raw, m)
                    loaded = m
                else:
                    buf = bytearray()
                    while True:
                        chunk = f.read(1 << 22)
                        if chunk:
                            buf += dec.decompress(chunk)
                        else:
                            buf += dec.flush()
                        while len(buf) >= 4:
                            c = int(np.frombuffer(bytes(buf[:4]), dtype=np.uint32)[0])
                            if c == 0 or c > BLOCK:
                                raise corrupt
                            if len(buf) < 4 + 15 * c:
                                break
                            insert(bytes(buf[4:4 + 15 * c]), c)
                            del buf[:4 + 15 * c]
                            loaded += c
                        if not chunk:
                            break
                    if buf or loaded != m:
                        raise corrupt
            except zlib.error:
                raise corrupt from None
        self.total_nodes = max(self.total_nodes, int(header.get("nodes") or 0))
        self.total_seconds = max(self.total_seconds, float(header.get("seconds") or 0.0))
        if header.get("result"):
            self.result = SolveResult(**header["result"])
        return header


_SOLVERS: dict[tuple, Solver] = {}


def solver_for(game: Any, table_bits: int = 22) -> Solver:
    """The shared :class:`Solver` of a game (one per board, made on first use)."""
    g = game.extra.get("geometry") if hasattr(game, "extra") else game
    key = (getattr(g, "kind", None), getattr(g, "size", None))
    if key not in _SOLVERS:
        solver = Solver(game, table_bits)
        shipped = shipped_table(solver.name, solver.size)
        if shipped is not None:
            solver.load(shipped)
        _SOLVERS[key] = solver
    return _SOLVERS[key]


SOLUTIONS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "solutions")
"""Folder of the shipped solution tables, ``<game><size>.solve`` (the larger proofs only: a few hundred KB)."""


def shipped_table(name: str, size: int) -> str | None:
    """The path of the shipped solution table of a board, or None."""
    path = os.path.join(SOLUTIONS, f"{name}{size}.solve")
    return path if os.path.exists(path) else None


def solve(game_or_position: Any, time_limit: float | None = None, progress: Callable | None = None,
          all_moves: bool = True, table_bits: int = 22, solver: Solver | None = None) -> SolveResult:
    """Solve a game from its start (a :class:`odd_env.game.Game`) or a position.

    Returns a :class:`SolveResult`: the value with perfect play, the winning first turns in notation,
    nodes, time and table size. ``progress(info)`` is called between chunks of the search.
    """
    if hasattr(game_or_position, "new_state") and hasattr(game_or_position, "extra"):
        game, position = game_or_position, game_or_position.new_state()
    elif hasattr(game_or_position, "legal_action_mask"):
        game, position = game_or_position.game, game_or_position
    else:
        raise ValueError(f"solve takes a Game (odd_env.game.make('xodd', 3)) or a position, "
                         f"got {type(game_or_position).__name__}")
    if solver is None:
        solver = Solver(game, table_bits)
    return solver.solve(position, time_limit=time_limit, progress=progress, all_moves=all_moves)


def value(position: Any, time_limit: float | None = None) -> int | None:
    """+1 if the player to act wins with perfect play, -1 if not (shared solver of the board)."""
    return solver_for(position.game).value(position, time_limit)


def best_action(position: Any, time_limit: float | None = None) -> int:
    """A perfect player's action (shared solver of the board): see :meth:`Solver.best_action`."""
    return solver_for(position.game).best_action(position, time_limit)


def load(path: str | os.PathLike, game: Any = None) -> Solver:
    """A solver of the board of a saved table with the table loaded (into the shared solver of the board
    when ``game`` is given or the file names one)."""
    if game is None:
        raise ValueError("load needs the game of the table: load(path, game=odd_env.game.make(...))")
    s = solver_for(game)
    s.load(path)
    return s


__all__ = ["MAX_CELLS", "RULES_VERSION", "SolveResult", "Solver", "best_action", "load", "solve", "solver_for",
           "value"]
