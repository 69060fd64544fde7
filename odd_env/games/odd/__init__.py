"""Xodd and Yodd: the two games share their rules and differ only in the board.

================  =============================================================
module            what
================  =============================================================
kernels           the rules as compiled kernels over one flat int32 state vector
batch_kernels     B games stepped in lockstep with those kernels
validation        checks that a state vector is a position the rules can reach
state             :class:`GameState`, one position (a cheap-to-copy value)
batch             :class:`OddBatch`, the batched engine
notation          cell, stone and turn names (``c4``, ``Bc4,Wd5``)
records           :class:`GameRecord`, games as text
render            text, SVG and RGB pictures
positions         positions drawn as ASCII boards (for tests and notebooks)
heuristics        the greedy player's compiled search: priors and rollouts for search
env               the AEC environment (public as :mod:`odd_env.xodd_v0` / ``yodd_v0``)
game              the :class:`~odd_env.game.Game` of each board size
================  =============================================================

The board itself (square or hexhex, any size) is a
:class:`~odd_env.common.geometry.Geometry`: the rules never ask which it is.
"""
