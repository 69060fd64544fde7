"""YINSH (Kris Burm), standard and blitz.

================  =============================================================
module            what
================  =============================================================
kernels           the rules as compiled kernels over one flat int32 state vector
batch_kernels     B games stepped in lockstep with those kernels
state             :class:`YinshState`, one position (a cheap-to-copy value), point names
batch             :class:`YinshBatch`, the batched engine
records           :class:`YinshRecord`, games as text
render            text, SVG and RGB pictures
env               the AEC environment (public as :mod:`odd_env.yinsh_v0`)
game              the :class:`~odd_env.game.Game` of the standard and blitz games
================  =============================================================
"""
