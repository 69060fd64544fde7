"""Tic-tac-toe's rules as compiled kernels (:class:`odd_env.game.CompiledRules`), for the toy game of the tests.

What a game adds to be searched by the compiled search (:mod:`agents.search`): the kernels on a
flat ``int32`` position (the 9 cells, 0 empty, 1 X, 2 O; then the player to move, the winner
plus one (0: none) and 1 once the game is over), and ``encode``/``decode`` to its positions.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np
from numba import njit

from odd_env.game import CompiledRules

STATE_SIZE = 12
TO_MOVE, WINNER, OVER = 9, 10, 11
LINES = np.array([(0, 1, 2), (3, 4, 5), (6, 7, 8), (0, 3, 6), (1, 4, 7), (2, 5, 8), (0, 4, 8), (2, 4, 6)], np.int32)


@njit(cache=True)
def new_state(tables):
    return np.zeros(STATE_SIZE, np.int32)


@njit(cache=True)
def legal_mask(s, tables, mask):
    mask[:] = 0
    count = 0
    if s[OVER] == 0:
        for cell in range(9):
            if s[cell] == 0:
                mask[cell] = 1
                count += 1
    return count


@njit(cache=True)
def legal_actions(s, tables, actions):
    count = 0
    if s[OVER] == 0:
        for cell in range(9):
            if s[cell] == 0:
                actions[count] = cell
                count += 1
    return count


@njit(cache=True)
def apply(s, tables, action):
    mark = s[TO_MOVE] + 1
    s[action] = mark
    lines = tables[0]
    for k in range(lines.shape[0]):
        if s[lines[k, 0]] == mark and s[lines[k, 1]] == mark and s[lines[k, 2]] == mark:
            s[WINNER] = mark
            s[OVER] = 1
    full = True
    for cell in range(9):
        if s[cell] == 0:
            full = False
    if full:
        s[OVER] = 1
    s[TO_MOVE] = 1 - s[TO_MOVE]


@njit(cache=True)
def is_terminal(s, tables):
    return s[OVER] == 1


@njit(cache=True)
def to_move(s, tables):
    return s[TO_MOVE]


@njit(cache=True)
def returns(s, tables):
    if s[WINNER] == 1:
        return 1.0, -1.0
    if s[WINNER] == 2:
        return -1.0, 1.0
    return 0.0, 0.0


@njit(cache=True)
def observe(s, tables, viewer, obs):
    for cell in range(9):
        obs[0, cell] = 1 if s[cell] == viewer + 1 else 0
        obs[1, cell] = 1 if s[cell] == 2 - viewer else 0
        obs[2, cell] = 1


def encode(position) -> np.ndarray:
    from toy_game import TicTacToe

    if not isinstance(position, TicTacToe):
        raise ValueError(f"a position of tictactoe is needed, got {type(position).__name__}")
    s = np.zeros(STATE_SIZE, np.int32)
    s[:9] = position.board
    s[TO_MOVE] = position.to_move
    s[WINNER] = 0 if position.winner is None else position.winner + 1
    s[OVER] = int(position.is_terminal)
    return s


def decode(data: np.ndarray):
    from toy_game import TicTacToe

    data = np.asarray(data)
    if data.shape != (STATE_SIZE,) or not np.isin(data[:9], (0, 1, 2)).all():
        raise ValueError(f"not a tic-tac-toe position array: {data!r}")
    state = TicTacToe()
    state.board[:] = data[:9]
    state.to_move, state.winner = int(data[TO_MOVE]), (None if data[WINNER] == 0 else int(data[WINNER]) - 1)
    state.is_terminal = bool(data[OVER])
    return state


@lru_cache(maxsize=None)
def compiled_rules() -> CompiledRules:
    """The compiled rules of tic-tac-toe."""
    return CompiledRules(state_size=STATE_SIZE, num_actions=10, max_legal=9, num_planes=3, height=3, width=3,
                         tables=(LINES,), new_state=new_state, legal_mask=legal_mask, legal_actions=legal_actions,
                         apply=apply, is_terminal=is_terminal, to_move=to_move, returns=returns, observe=observe,
                         encode=encode, decode=decode)
