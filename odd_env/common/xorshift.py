"""A tiny random generator for compiled code (xorshift64*).

Numba's own ``np.random`` inside ``njit`` functions keeps one hidden global
state per thread, which two agents in one process would share. The agents'
kernels take an explicit ``uint64[1]`` state instead (made by
:func:`agents.base.new_rng_state` from the agent's seeded Generator), so each
agent's random choices depend on its own seed only.
"""

from __future__ import annotations

import numpy as np
from .._compiling import njit

_MUL = np.uint64(2685821657736338717)
_S12 = np.uint64(12)
_S25 = np.uint64(25)
_S27 = np.uint64(27)
_S11 = np.uint64(11)
_INV53 = 1.0 / 9007199254740992.0  # 2**-53


@njit(cache=True, inline="always")
def next_u64(rng):
    """Advance ``rng`` (uint64[1]) and return 64 random bits."""
    x = rng[0]
    x ^= x >> _S12
    x ^= x << _S25
    x ^= x >> _S27
    rng[0] = x
    return x * _MUL


@njit(cache=True, inline="always")
def uniform(rng):
    """A float in [0, 1)."""
    return np.float64(next_u64(rng) >> _S11) * _INV53


@njit(cache=True, inline="always")
def randbelow(rng, k):
    """An int in [0, k) (k >= 1)."""
    return int(uniform(rng) * k)
