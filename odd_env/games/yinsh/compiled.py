"""YINSH's rules as compiled kernels on one position (:class:`odd_env.game.CompiledRules`).

Thin adapters over :mod:`odd_env.games.yinsh.kernels` to the common signature
``kernel(s, tables, ...)``. YINSH has one board, so its kernels read their
board tables as module constants; ``tables`` only carries the rings needed to
win (3, or 1 in blitz), which the start position records.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from ..._compiling import njit
from ...game import CompiledRules
from . import kernels as K
from .state import NUM_PLANES, YinshState


@njit(cache=True)
def new_state(tables):
    """The start position (white places the first ring)."""
    return K.new_state(tables[0])


@njit(cache=True)
def legal_mask(s, tables, mask):
    """The legal-action mask of the player to decide; returns the number of legal actions."""
    return K.legal_mask(s, mask)


@njit(cache=True)
def legal_actions(s, tables, actions):
    """The legal actions (the first ``count`` entries); returns ``count``."""
    return K.legal_actions(s, actions)


@njit(cache=True)
def apply(s, tables, action):
    """Play the legal ``action`` for the player to decide, in place."""
    K.apply(s, action)


@njit(cache=True)
def is_terminal(s, tables):
    """True once the game is over."""
    return K.is_terminal(s)


@njit(cache=True)
def to_move(s, tables):
    """The player who decides now (0 white, 1 black)."""
    return K.to_move(s)


@njit(cache=True)
def returns(s, tables):
    """The rewards of white and black (+1/-1 at the end, 0 on a draw and before)."""
    return K.returns(s)


@njit(cache=True)
def observe(s, tables, viewer, obs):
    """The planes of ``viewer`` into ``obs`` (``int8[24, 121]``)."""
    K.observe(s, viewer, obs)


def _encode(position: YinshState, blitz: bool) -> np.ndarray:
    if not isinstance(position, YinshState) or position.blitz != blitz:
        what = position.game.label if hasattr(position, "game") else type(position).__name__
        raise ValueError(f"a position of {'yinsh blitz' if blitz else 'yinsh'} is needed, got one of {what}")
    return position.data.copy()


@lru_cache(maxsize=None)
def compiled_rules(blitz: bool) -> CompiledRules:
    """The compiled rules of YINSH (``blitz``: one ring removed wins)."""
    return CompiledRules(
        state_size=K.STATE_SIZE, num_actions=K.NUM_ACTIONS, max_legal=K.MAX_LEGAL,
        num_planes=NUM_PLANES, height=11, width=11,
        tables=(np.int32(1 if blitz else 3),),
        new_state=new_state, legal_mask=legal_mask, legal_actions=legal_actions, apply=apply,
        is_terminal=is_terminal, to_move=to_move, returns=returns, observe=observe,
        encode=lambda position: _encode(position, blitz),
        decode=lambda data: YinshState(blitz=blitz, data=np.array(data, dtype=np.int32)),
    )
