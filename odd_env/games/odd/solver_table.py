"""The transposition table of the exact solver (:mod:`odd_env.games.odd.solver`), compiled: the Zobrist
hashes of a position under every symmetry of the board (kept up to date a stone at a time), the key of a
node (its smallest image), and the table's probe, store and bulk insert.

Each entry: a 64-bit key, a 32-bit check, a ``uint16`` of value code (:data:`LOSS`, :data:`WIN`,
:data:`DEAD`) and best move (in the key's symmetry), and a ``uint8`` of work (log2 of the nodes of its
proof); buckets of 4 entries, a full bucket replacing its entry of least work. The search's counters
live in a stats vector (the ``S_*`` indices).
"""

from __future__ import annotations

import numpy as np
from numba import njit

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
