"""The games of the package, one folder per game family, each registered with :mod:`odd_env.game`.

=================  ==========================================================
folder             game
=================  ==========================================================
:mod:`.odd`        Xodd (square board) and Yodd (hexagonal board)
:mod:`.yinsh`      YINSH (standard and blitz)
=================  ==========================================================

A folder holds everything of its game: board tables, compiled kernels, the
position class, the batched engine, notation, records, pictures, the AEC
environment and the game's :class:`~odd_env.game.Game` factory (``game.py``).
Registration names the factory as a string, so nothing of a game is imported
until the first ``odd_env.game.make`` of it. A new game is one more folder and
one more line here (or a :func:`odd_env.game.register` call from anywhere).
"""

from ..game import register

register("xodd", "odd_env.games.odd.game:make_game", infer="odd_env.games.odd.game:infer_game")
register("yodd", "odd_env.games.odd.game:make_game", infer="odd_env.games.odd.game:infer_game")
register("yinsh", "odd_env.games.yinsh.game:make_game", infer="odd_env.games.yinsh.game:infer_game")
