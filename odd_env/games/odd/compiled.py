"""Xodd's and Yodd's rules as compiled kernels on one position (:class:`odd_env.game.CompiledRules`).

Thin adapters over :mod:`odd_env.games.odd.kernels` to the common signature
``kernel(s, tables, ...)``. The board is the tables: ``tables = (n, neighbours,
onboard)``, with ``n = H * W`` the number of array cells, ``neighbours`` the
geometry's ``int32[n, D]`` neighbour table (padded with -1) and ``onboard`` its
``bool[n]`` playable cells. Every Xodd size and Yodd base has tables of the same
types, so one compilation of a search serves them all.

Nothing on the path of a search allocates: ``legal_mask``, ``legal_actions``,
``apply``, ``is_terminal``, ``to_move``, ``returns`` and ``observe`` work in the
position and the caller's buffers, with scratch space on the stack; only
``new_state`` makes an array.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from ..._compiling import njit, stack_buffer
from ...common.geometry import Geometry, geometry
from ...game import CompiledRules
from . import kernels as K
from .state import NUM_PLANES, GameState

_mask_buffer = stack_buffer(np.int8, 2 * K.MAX_CELLS + 1)
_keep_buffer = stack_buffer(np.int8, 2 * K.MAX_CELLS)


@njit(cache=True)
def new_state(tables):
    """The start position (Black places the first stone)."""
    n, nbr, onboard = tables
    s = np.empty(3 * n + K.META, np.int32)  # K.state_size(n)
    K.init_state(s, n, onboard)
    return s


@njit(cache=True)
def legal_mask(s, tables, mask):
    """The legal-action mask of the player to act into ``mask`` (``int8[2n + 1]``); returns the count."""
    n, nbr, onboard = tables
    return K.legal_mask(s, n, nbr, mask)


@njit(cache=True)
def legal_actions(s, tables, actions):
    """The legal actions, ascending, into ``actions[:count]``; returns ``count``."""
    n, nbr, onboard = tables
    mask = _mask_buffer()[: 2 * n + 1]
    K.legal_mask(s, n, nbr, mask)
    count = 0
    for a in range(2 * n + 1):  # branch-free: a branch per action mispredicts half the time
        actions[count] = a
        count += mask[a]
    return count


@njit(cache=True)
def apply(s, tables, action):
    """Play the legal ``action`` for the player to act, in place."""
    n, nbr, onboard = tables
    K.apply_action(s, n, nbr, action)


@njit(cache=True)
def is_terminal(s, tables):
    """True once both players have passed in succession."""
    return s[2 * tables[0] + K.M_DONE] != 0


@njit(cache=True)
def to_move(s, tables):
    """The player to act (0 black, 1 white)."""
    return s[2 * tables[0] + K.M_TO_MOVE]


@njit(cache=True)
def returns(s, tables):
    """The rewards of black and white (+1/-1 at the end, 0 before)."""
    winner = s[2 * tables[0] + K.M_WINNER]
    if winner < 0:
        return 0.0, 0.0
    return (1.0, -1.0) if winner == 0 else (-1.0, 1.0)


@njit(cache=True)
def observe(s, tables, viewer, obs):
    """The planes of ``viewer`` into ``obs`` (``int8[12, n]``)."""
    n, nbr, onboard = tables
    mask = _mask_buffer()[: 2 * n + 1]
    keep = _keep_buffer()[: 2 * n].reshape((2, n))
    K.legal_mask_into(s, n, nbr, mask, keep)
    K.observe_into(s, n, onboard, viewer, keep, mask, obs)


def _own(g: Geometry, position: GameState) -> GameState:
    if not isinstance(position, GameState) or position.geometry is not g:
        what = position.game.label if hasattr(position, "game") else type(position).__name__
        raise ValueError(f"a position of {g.game} {g.size} is needed, got one of {what}")
    return position


@lru_cache(maxsize=None)
def compiled_rules(game: str, size: int) -> CompiledRules:
    """The compiled rules of ``game`` ("xodd" or "yodd") on the board of ``size``."""
    g = geometry(game, size)
    n = g.num_cells
    return CompiledRules(
        state_size=K.state_size(n), num_actions=g.num_actions, max_legal=2 * g.num_onboard,
        num_planes=NUM_PLANES, height=g.height, width=g.width,
        tables=(n, g.neighbours, g.onboard),
        new_state=new_state, legal_mask=legal_mask, legal_actions=legal_actions, apply=apply,
        is_terminal=is_terminal, to_move=to_move, returns=returns, observe=observe,
        encode=lambda position: _own(g, position).data.copy(),
        decode=lambda data: GameState(g, np.array(data, dtype=np.int32)),
    )
