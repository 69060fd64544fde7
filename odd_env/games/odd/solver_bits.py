"""Bitboard tricks of the exact solver (:mod:`odd_env.games.odd.solver`), compiled: the lowest bit, a bit
count, a bit's index, and the groups of a colour (flood fill over the board's neighbour shifts).

A board of at most 64 array cells is a ``uint64`` per colour; a neighbour of every cell is one shift
(``lsh``/``rsh``) of the bitboard masked by ``lpm``/``rpm`` (the cells that have that neighbour).
"""

from __future__ import annotations

import numpy as np
from numba import njit


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
