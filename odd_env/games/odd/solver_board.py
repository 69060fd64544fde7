"""The constant tables of one board for the exact solver (:mod:`odd_env.games.odd.solver`): the bitboard
masks and shifts of its neighbours, its symmetries as permutations of the array cells (8 on the square
board, 12 on the hexhex), and the Zobrist keys of every stone under every symmetry.

The keys are drawn from the board, :data:`RULES_VERSION` and a fixed seed, so a saved table is read back
only by a solver that hashes alike (its ``fingerprint``).
"""

from __future__ import annotations

import hashlib
from typing import Any

import numpy as np

RULES_VERSION = 1
"""The Xodd/Yodd rules this solver implements (docs/rules/xodd_yodd.md sections 1-3). A saved table
records it and is refused by a solver of another version."""
MAX_CELLS = 64
"""Largest board array (H * W) the bitboards hold: Xodd up to 8x8, Yodd up to base 4."""
ZOBRIST_SEED = 0x0DD5017E


def check_geometry(g: Any) -> Any:
    """``g`` if it is a Xodd or Yodd board the bitboards hold, else ValueError saying why not."""
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


def cell_symmetries(g: Any) -> np.ndarray:
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


class BoardTables:
    """The constant tables of one board (``g``, a Xodd or Yodd geometry), as the kernels take them."""

    def __init__(self, g: Any):
        g = check_geometry(g)
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
        self.perm = cell_symmetries(g)
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
